"""The pages' side: view models built from a game's view (`context`, `keeper`, `tables`, …), forms,
rendering, and the charts drawn on the server (`chart`, `results_chart`).
"""
