"""Benchmark: the full WMT21 + WMT22 evaluation, both directions, all systems, from disk.

Usage::

    python bench/bench_evaluate.py [--data ../shared/data] [--repeat 3]

The DFKI public suite is first imported into our YAML format in a temporary folder (not
timed). Each timed run is a fresh process that loads the suite and rules from YAML, reads
and locates every WMT hypothesis file, and judges every item × system — what
`testsuite evaluate` does, minus printing. The first run starts with an empty
compiled-regex cache (cold); the others use the cache the first one wrote (warm). It
reports both wall times, the outcomes per second and the peak resident memory, and the
start-up time of `testsuite --help`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed_run(suite_dir: Path, data: Path) -> dict[str, float]:
    """The measured work; runs in its own process (see `main`)."""
    start = time.perf_counter()
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite

    suite = load_suite([suite_dir])
    outcomes = 0
    for campaign in ("wmt21", "wmt22"):
        for pair in ("de-en", "en-de"):
            systems, located = load_outputs(suite, [data / campaign / "txt-ts"], pair=pair)
            outcomes += len(evaluate(suite, systems, located=located).results)
    wall = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"wall_s": wall, "outcomes": outcomes, "peak_mib": peak_mib}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(timed_run(args.run, args.data)))
        return

    from testsuite.dfki import import_dfki

    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        for pair in ("de-en", "en-de"):
            import_dfki(args.data / "dfki-mt-testsuite" / pair / "items.json", Path(tmp))
        runs = []
        environment = {**os.environ, "TESTSUITE_CACHE_DIR": cache}
        for _ in range(1 + args.repeat):
            out = subprocess.run([sys.executable, __file__, "--run", tmp, "--data",
                                  str(args.data)], check=True, capture_output=True, text=True,
                                 env=environment)
            runs.append(json.loads(out.stdout))
    cold, warm = runs[0], runs[1:]
    best = min(warm, key=lambda r: r["wall_s"])
    helps = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "testsuite", "--help"], check=True,
                       capture_output=True)
        helps.append(time.perf_counter() - start)
    print(f"outcomes (item x system): {best['outcomes']}")
    print(f"cold run (empty regex cache): {cold['wall_s']:.2f} s, "
          f"{cold['outcomes'] / cold['wall_s']:,.0f} outcomes/s")
    walls = ", ".join(f"{r['wall_s']:.2f}" for r in warm)
    print(f"warm runs, best of {args.repeat}: {best['wall_s']:.2f} s (all: {walls}), "
          f"{best['outcomes'] / best['wall_s']:,.0f} outcomes/s")
    print(f"peak memory: {max(r['peak_mib'] for r in runs):.0f} MiB")
    print(f"testsuite --help: {statistics.median(helps):.2f} s (median of 5)")


if __name__ == "__main__":
    main()
