"""Benchmark: the HTML report of WMT21 de-en (DFKI suite, 18 systems), made and opened.

Usage::

    python bench/bench_report.py [--data ../shared/data] [--repeat 3] [--no-browser]

The DFKI public suite is imported into our YAML format in a temporary folder (not timed).
Each run is a fresh process that does what ``testsuite report`` does, timed in steps:
loading the suite, reading and locating the outputs, evaluating, scoring, and rendering
the page (`html_report`). The first run starts with an empty compiled-regex cache (cold),
the others use it (warm). Then the page is opened in headless Chromium (Debian's
``/usr/bin/chromium`` through Playwright, never a downloaded browser) and the time to the
first drill-down rows is read from the page's own ``testsuite:first-rows`` performance
mark (navigation start to the first rows drawn), median of several loads.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def timed_run(suite_dir: Path, data: Path, out: Path) -> dict[str, float]:
    """The measured work; runs in its own process (see `main`)."""
    steps: dict[str, float] = {}
    start = last = time.perf_counter()

    def step(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        steps[name] = now - last
        last = now

    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite
    from testsuite.reports.html import html_report
    from testsuite.scoring import score
    step("import")
    suite = load_suite([suite_dir])
    step("suite")
    systems, located = load_outputs(suite, [data / "wmt21" / "txt-ts"], pair="de-en")
    step("outputs")
    evaluation = evaluate(suite, systems, located=located)
    step("evaluate")
    scores = score(evaluation, suite, "de-en")
    step("score")
    text = html_report([scores], evaluation, suite)
    step("html")
    out.write_text(text, encoding="utf-8")
    steps["total"] = time.perf_counter() - start
    steps["bytes"] = len(text.encode("utf-8"))
    return steps


def first_rows(page_file: Path, loads: int = 5) -> list[float]:
    """Milliseconds from navigation start to the first drill-down rows, per load."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for _ in range(loads):
            page.goto(page_file.as_uri())
            page.wait_for_selector("article.item")
            times.append(page.evaluate(
                "performance.getEntriesByName('testsuite:first-rows')[0].startTime"))
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--page", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(timed_run(args.run, args.data, args.page)))
        return

    from testsuite.dfki import import_dfki

    with tempfile.TemporaryDirectory() as folder:
        suite_dir = Path(folder) / "dfki"
        import_dfki(args.data / "dfki-mt-testsuite" / "de-en" / "items.json", suite_dir)
        page = Path(folder) / "report.html"
        env = dict(os.environ, TESTSUITE_CACHE_DIR=str(Path(folder) / "cache"))
        runs = []
        for _ in range(args.repeat):
            done = subprocess.run([sys.executable, __file__, "--run", str(suite_dir),
                                   "--data", str(args.data), "--page", str(page)],
                                  env=env, check=True, capture_output=True, text=True)
            runs.append(json.loads(done.stdout))
        cold, warm = runs[0], runs[1:] or runs
        print(f"report size: {cold['bytes'] / 1e6:.2f} MB")
        for name in ("import", "suite", "outputs", "evaluate", "score", "html", "total"):
            values = [r[name] for r in warm]
            print(f"{name:>9}: cold {cold[name]:5.2f} s · warm median "
                  f"{statistics.median(values):5.2f} s")
        if not args.no_browser and Path(CHROMIUM).exists():
            times = first_rows(page)
            print(f"first drill-down rows in Chromium: median {statistics.median(times):.0f} ms "
                  f"(loads: {', '.join(f'{t:.0f}' for t in times)})")


if __name__ == "__main__":
    main()
