"""Benchmark: commands as users run them — one fresh process each — against a plain script.

On the real data (DFKI public suite imported once into a temporary folder, not timed), on
the same machine and in the same run:

* ``plain``: `bench/plain_score.py`, the script a user could write in an afternoon (reads the
  DFKI JSON and the WMT files, judges with `re`, accuracies and Z-test first clusters);
* ``score``: ``testsuite score`` of the same WMT21 de-en pair-year (terminal tables);
* ``report``: ``testsuite report --out`` of it;
* ``compare``: ``testsuite compare`` of three saved runs (WMT21 de-en, WMT22 de-en, and WMT21
  de-en again under another campaign name);
* ``evaluate ×4``: the four WMT21/22 pair-years as four separate ``testsuite evaluate``
  commands (total);
* ``--help``: start-up.

Every command runs ``--repeat`` times after one warm-up (caches filled, as for a user's
second run); the table shows the median wall time and the peak memory of each process.

Usage::

    python bench/bench_commands.py [--data ../shared/data] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = args.data.resolve()
    testsuite = str(BIN / "testsuite")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        env = {**os.environ, "TESTSUITE_CACHE_DIR": str(work / "cache"), "COLUMNS": "160"}
        for pair in ("de-en", "en-de"):
            subprocess.run([testsuite, "import-dfki", str(data / "dfki-mt-testsuite" / pair /
                                                          "items.json"), "--out", "dfki"],
                           cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
        wmt21 = str(data / "wmt21" / "txt-ts")
        for campaign, year in (("wmt21", "wmt21"), ("wmt22", "wmt22"), ("wmt21b", "wmt21")):
            subprocess.run([testsuite, "evaluate", str(data / year / "txt-ts"), "--pair",
                            "de-en", "--suite", "dfki", "-q", "--save", f"runs/{campaign}",
                            "--campaign", campaign], cwd=work, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        commands = {
            "plain script (score)": [[sys.executable, str(REPO / "bench" / "plain_score.py"),
                                      str(data / "dfki-mt-testsuite" / "de-en" / "items.json"),
                                      wmt21, "de-en"]],
            "testsuite score": [[testsuite, "score", wmt21, "--pair", "de-en", "--suite",
                                 "dfki", "-q"]],
            "testsuite report --out": [[testsuite, "report", wmt21, "--pair", "de-en",
                                        "--suite", "dfki", "-q", "--out", "r.html"]],
            "testsuite compare (3 runs)": [[testsuite, "compare", "runs/wmt21", "runs/wmt22",
                                            "runs/wmt21b"]],
            "testsuite evaluate ×4 (total)": [
                [testsuite, "evaluate", str(data / year / "txt-ts"), "--pair", pair, "--suite",
                 "dfki", "-q"] for year in ("wmt21", "wmt22") for pair in ("de-en", "en-de")],
            "testsuite --help": [[testsuite, "--help"]],
        }
        results = {}
        for name, group in commands.items():
            for command in group:  # warm-up: caches, page cache
                timed(command, work, env)
            walls, peaks = [], []
            for _ in range(args.repeat):
                runs = [timed(command, work, env) for command in group]
                walls.append(sum(w for w, _ in runs))
                peaks.append(max(p for _, p in runs))
            results[name] = (statistics.median(walls), max(peaks))
        shutil.rmtree(work / "cache", ignore_errors=True)
    plain = results["plain script (score)"][0]
    print(f"| command | wall time (median of {args.repeat}) | × plain script | peak memory |")
    print("|---|---:|---:|---:|")
    for name, (wall, peak) in results.items():
        print(f"| {name} | {wall:.2f} s | {wall / plain:.2f} | {peak:.0f} MiB |")


if __name__ == "__main__":
    main()
