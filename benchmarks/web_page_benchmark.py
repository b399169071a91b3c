"""The reference web client's first render and transfer (issue 33), in Debian's chromium.

Against a running ``teoti serve`` (``--web``, default http://127.0.0.1:8080), each run
opens the page in a fresh browser context (empty cache, no service worker) and measures,
from the navigation's start:

- ``first paint``: chromium's first-contentful-paint (the page's first pixels: the
  header and the lobby, drawn by the bundle);
- ``lobby ready``: the lobby's game list and rulesets answered and drawn (its "create"
  form offers the server's games);
- ``transfer``: bytes over the network for the page, its files and the lobby's API
  calls (Resource Timing's transferSize, headers included), and the files' bodies.

Prints each run and min / median / max over the runs.

    python -m benchmarks.web_page_benchmark --runs 7 --web http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
from typing import Any

CHROMIUM = os.environ.get("TEOTI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

MEASURE = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const resources = performance.getEntriesByType("resource");
  const all = [nav, ...resources];
  return {
    first_paint_ms: paint ? paint.startTime : -1,
    transfer_bytes: all.reduce((sum, e) => sum + (e.transferSize || 0), 0),
    body_bytes: all.reduce((sum, e) => sum + (e.encodedBodySize || 0), 0),
    requests: all.length,
    files: all.map((e) => [e.name.replace(location.origin, ""), e.transferSize]),
  };
}"""


def run_once(browser: Any, web: str) -> dict[str, Any]:
    """One cold load of the page: its figures (ms from navigation start, bytes)."""
    context = browser.new_context(base_url=web, viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto("/")
        page.wait_for_selector("#create-ruleset option", state="attached")
        # "connected" once ListGames answered and its list is drawn.
        page.wait_for_function(
            "document.getElementById('server-status').textContent === 'connected'"
        )
        ready = float(page.evaluate("performance.now()"))
        figures: dict[str, Any] = page.evaluate(MEASURE)
        figures["lobby_ready_ms"] = ready
        return figures
    finally:
        context.close()


def spread(values: list[float]) -> str:
    """min / median / max of ``values``."""
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--web", default="http://127.0.0.1:8080")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            run_once(browser, args.web)  # warm the server's and the OS's caches
            runs = [run_once(browser, args.web) for _ in range(args.runs)]
        finally:
            browser.close()
    for number, run in enumerate(runs, 1):
        print(
            f"run {number}: first paint {run['first_paint_ms']:.0f} ms, lobby ready "
            f"{run['lobby_ready_ms']:.0f} ms, {run['transfer_bytes']} B over "
            f"{run['requests']} requests ({run['body_bytes']} B of bodies)"
        )
    print("files of the last run:", runs[-1]["files"])
    print(f"first paint ms (min / median / max): {spread([r['first_paint_ms'] for r in runs])}")
    print(f"lobby ready ms (min / median / max): {spread([r['lobby_ready_ms'] for r in runs])}")
    print(f"transfer bytes (min / median / max): {spread([r['transfer_bytes'] for r in runs])}")


if __name__ == "__main__":
    main()
