"""The rules: everything pure. How each game scores and ends (the families `cards`, `lowest`, `lives`
and the presets, fronted by `scoring`), names, the round timer's rules, what it takes to win, awards.

Nothing here imports a framework, a database or another wing of the app (tests/project/test_architecture.py).
"""
