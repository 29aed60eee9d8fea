"""The phone and the Chromium that the browser tests, scripts/screenshots.py and the benchmarks in bench/
all use: one source, so a page measured in bench/ is the page the tests check.

No Playwright import here: bench/common.py imports this for every benchmark.
"""

from __future__ import annotations

import os
from typing import Any

CHROMIUM = os.environ.get("BLITZBOARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The phone every browser test and benchmark uses: 390×844 CSS pixels, touch, mobile viewport.
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
