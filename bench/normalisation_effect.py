"""The effect of typographic normalisation on warnings and on the items entering the scores.

For every WMT21/22 German↔English pair-year, with the DFKI public suite: the warnings over
all systems, and the items that enter the scores (fairness rule), without normalisation
(the published method) and with each profile. Outcomes that change between pass and fail
are counted too (a normalisation should resolve warnings, not flip decisions).

Usage::

    python bench/normalisation_effect.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()

    from testsuite.dfki import import_dfki
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite
    from testsuite.normalise import profile
    from testsuite.scoring import score

    with tempfile.TemporaryDirectory() as folder:
        for pair in ("de-en", "en-de"):
            import_dfki(args.data / "dfki-mt-testsuite" / pair / "items.json", Path(folder))
        suite = load_suite([Path(folder)])
    print("| pair-year | systems | warnings: none → typographic → nfkc | items entering: none "
          "→ typographic → nfkc | pass↔fail flips |")
    print("|---|---:|---|---|---:|")
    for year in ("wmt21", "wmt22"):
        for pair in ("de-en", "en-de"):
            systems, located = load_outputs(suite, [args.data / year / "txt-ts"], pair=pair)
            warnings, entered, outcomes = [], [], []
            for name in (None, "typographic", "nfkc"):
                evaluation = evaluate(suite, systems, located=located,
                                      normalise=profile(name))
                columns = evaluation.columns
                warnings.append(sum(o == "warning" for o in columns["outcome"]))
                entered.append(score(evaluation, suite, pair).coverage.entered)
                outcomes.append(dict(zip(zip(columns["item"], columns["system"], strict=True),
                                         columns["outcome"], strict=True)))
            flips = sum(1 for key, before in outcomes[0].items()
                        if {before, outcomes[1][key]} == {"pass", "fail"})
            print(f"| {year} {pair} | {len(evaluation.systems)} | "
                  f"{warnings[0]:,} → {warnings[1]:,} → {warnings[2]:,} | "
                  f"{entered[0]:,} → {entered[1]:,} → {entered[2]:,} | {flips} |")


if __name__ == "__main__":
    main()
