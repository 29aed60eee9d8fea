"""Backups you can hold: a game or a table as one JSON document. Export and import (`usecases`), the
document's shape (`answers`), checking one before anything is written (`check`), and writing it
(`writes`).
"""
