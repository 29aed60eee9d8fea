"""Blitzboard: a score keeper for Dutch Blitz."""
