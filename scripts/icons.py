"""Make the app's PNG icons (static/icons/) from static/icon.svg, drawn by Debian's Chromium.

Run again after changing icon.svg: `.venv/bin/python scripts/icons.py`. The PNGs are committed; nothing
runs this at build or start-up.

- icon-<size>.png: the card icon on a transparent background ("purpose": "any" in the manifest).
- maskable-<size>.png: the card icon inside the maskable safe zone (the middle 80 % circle), on the page's
  light background filling the whole square, so a launcher may cut it to any shape ("purpose": "maskable").
- apple-touch-icon.png: 180 px, opaque (iOS fills transparency with black).
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.device import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

OUT = ROOT / "static" / "icons"
LIGHT_BG = "#f6f4ef"


def page_html(size: int, *, scale: float, background: str) -> str:
    svg = base64.b64encode((ROOT / "static" / "icon.svg").read_bytes()).decode()
    inner = round(size * scale)
    return (
        f"<html><body style='margin:0;width:{size}px;height:{size}px;background:{background};"
        "display:flex;align-items:center;justify-content:center'>"
        f"<img src='data:image/svg+xml;base64,{svg}' width='{inner}' height='{inner}'></body></html>"
    )


def main() -> None:
    OUT.mkdir(exist_ok=True)
    jobs = [(f"icon-{s}.png", s, 1.0, "transparent") for s in (192, 512)]
    # The safe zone is a circle of 80 % of the side: the 32-unit icon's cards fit in 62 % of it.
    jobs += [(f"maskable-{s}.png", s, 0.62, LIGHT_BG) for s in (192, 512)]
    jobs += [("apple-touch-icon.png", 180, 0.8, LIGHT_BG)]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for name, size, scale, background in jobs:
            page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
            page.set_content(page_html(size, scale=scale, background=background))
            page.screenshot(path=OUT / name, omit_background=background == "transparent")
            page.close()
            print(OUT / name)
        browser.close()


if __name__ == "__main__":
    main()
