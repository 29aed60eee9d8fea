"""A table: the same people playing game after game. Its use cases (`usecases`), who sits at it
(`roster`), its standings and head-to-head (`standings`) and their answer models (`answers`).
"""
