"""HTTP around the use cases: middleware, security headers, request ids, strict JSON bodies and
orjson answers, problem+json, Prefer, limits and rate limits, event streams (the front that opens them is app.stream_front), metrics, static assets,
the server's options, and the last line of defence against an unexpected error (`errors`).
"""
