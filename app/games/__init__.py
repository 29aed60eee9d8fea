"""A game: its use cases (`usecases`), the write transaction they share (`writes`), the read model
(`views`) and the app's cache of it (`viewcache`), the correction log (`changes`), who keeps it
(`keeping`, `handover`), its results at a table (`results`), and its deletion (`removal`).
"""
