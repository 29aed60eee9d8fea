"""The routes, one module per part of the site or the API; each reaches the rest of the app through
`routes.deps`.
"""
