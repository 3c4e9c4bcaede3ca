"""How the bundled rules judge translations they were not written from.

`bench/heldout/<set>/<pair>/*.tsv` hold translations of the bundled suites' sources, written
by us from the sources alone, without reading the rules, and labelled by hand: a header line,
then ``item<TAB>label<TAB>made<TAB>output`` where `label` is ``correct`` or ``wrong`` and
`made` says how the translation was made (``strong``: as a strong MT system would;
``literal``: word for word where that stays correct; ``paraphrase``: a correct rewording;
``error``: a typical error on the phenomenon the item tests).

Eleven sets, each written by writers who never read the rules. The rules were fixed on
``dev`` (round 2), then on ``test`` (round 3), on near misses of our own (round 4), on
``test2`` (round 5), on ``test3`` (round 6), on ``test4`` and ``test5`` (round 7), on
``test6`` (round 8), on ``test7`` and ``test8`` (round 9) and on ``test9`` (round 10); each
round was measured first on sets its authors never opened. ``test10`` (written from the
sources and descriptions alone, its labels reviewed blind by others) was never looked at
while the shipped rules were written: its figures are the ones the README reports (the
default, `UNSEEN`), over all its outputs and over those no earlier set holds word for word
(`--seen`, `SEEN`).

For each set and pair it counts, over the correct outputs, those judged fail (a wrong
number) and warning (a person's time), and over the wrong outputs those judged pass (a
wrong number) and warning, per way of making.

Usage::

    python bench/suite_heldout.py [--set test4 --set test5] [--seen dev …] [--list] [--json]
                                  [--row RULES]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
HELDOUT = REPO / "bench" / "heldout"
LABELS = {"correct", "wrong"}
MADE = {"strong", "literal", "paraphrase", "error"}
# The sets the shipped rules were never fixed on, nor their authors looked at.
UNSEEN = ("test10",)
# The sets the shipped rules were fixed on: the README's "new only" row leaves out the
# unseen set's outputs that one of these holds word for word.
SEEN = ("dev", "test", "test2", "test3", "test4", "test5", "test6", "test7", "test8",
        "test9")
# How the README's table names the shipped rules.
SHIPPED = "round 10 (shipped)"


@dataclass(frozen=True)
class Row:
    """One labelled translation."""

    file: str
    line: int
    pair: str
    item: str
    label: str
    made: str
    output: str


def read_rows(folder: Path, pair: str) -> list[Row]:
    """The labelled translations of one set and pair, checked as they are read."""
    rows = []
    for path in sorted((folder / pair).glob("*.tsv")):
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(reader, None)
            if header != ["item", "label", "made", "output"]:
                sys.exit(f"{path}:1: the header must be item, label, made, output")
            for number, fields in enumerate(reader, start=2):
                if not fields:
                    continue
                if len(fields) != 4:
                    sys.exit(f"{path}:{number}: {len(fields)} fields, not 4")
                item, label, made, output = (f.strip() for f in fields)
                if label not in LABELS or made not in MADE:
                    sys.exit(f"{path}:{number}: label {label!r} or made {made!r} unknown")
                rows.append(Row(str(path), number, pair, item, label, made,
                                output))
    return rows


def read_sets(folder: Path, names: Iterable[str], pair: str) -> list[Row]:
    """The labelled translations of several sets of one pair, one after the other."""
    return [row for name in names for row in read_rows(folder / name, pair)]


def new_only_name(name: str) -> str:
    """How the figures of a set's new wordings are named (the README's set column)."""
    return f"{name}, new only"


def new_only(rows: list[Row], seen: list[Row]) -> list[Row]:
    """The rows whose output no seen row has for the same pair and item.

    The writers of later sets often write, word for word, a translation an earlier set
    already holds (a strong translation of a short sentence, the obvious calque): rules fixed
    on the earlier set decide those by construction. Left out, the figures say how the rules
    do on wordings they have never met.
    """
    known = {(row.pair, row.item, row.output) for row in seen}
    return [row for row in rows if (row.pair, row.item, row.output) not in known]


def judged(rows: list[Row], suite_paths: list[Path]) -> list[tuple[Row, str, str]]:
    """Each row with its outcome and reason under the rules (verdicts included, as a user's
    run would judge it)."""
    from testsuite.loader import load_suite
    from testsuite.matching import CompiledRule, RegexCache

    suite = load_suite(suite_paths)
    cache = RegexCache()
    compiled: dict[tuple[str, str], CompiledRule] = {}
    result = []
    for row in rows:
        key = (row.pair, row.item)
        if key not in suite.items:
            sys.exit(f"{row.file}:{row.line}: no {row.pair} item {row.item!r} in the suite")
        if key not in compiled:
            compiled[key] = CompiledRule(suite.rules.get(key), cache)
        judgement = compiled[key].judge(row.output)
        result.append((row, str(judgement.outcome), judgement.reason or ""))
    return result


def summary(results: list[tuple[Row, str, str]]) -> dict[str, object]:
    """Counts per label and way of making, and the rates the README reports."""
    counts: Counter[tuple[str, str, str]] = Counter(
        (row.label, row.made, outcome) for row, outcome, _ in results)
    correct = [o for r, o, _ in results if r.label == "correct"]
    wrong = [o for r, o, _ in results if r.label == "wrong"]
    return {
        "items": len({r.item for r, _, _ in results}),
        "correct": len(correct),
        "correct_fail": correct.count("fail"),
        "correct_warning": correct.count("warning"),
        "correct_warning_rate": round(correct.count("warning") / len(correct), 4)
        if correct else None,
        "wrong": len(wrong),
        "wrong_pass": wrong.count("pass"),
        "wrong_warning": wrong.count("warning"),
        "by_made": {f"{label}/{made}/{outcome}": n
                    for (label, made, outcome), n in sorted(counts.items())},
    }


def table_row(pair: str, rules: str, name: str, numbers: Mapping[str, Any]) -> str:
    """One row of the README's table (direction, rules, set, then the counts of `summary`)."""
    warnings = " / ".join(str(numbers["by_made"].get(f"correct/{m}/warning", 0))
                          for m in ("strong", "literal", "paraphrase"))
    passed, wrong = numbers["wrong_pass"], numbers["wrong"]
    return (f"| {pair} | {rules} | {name} | {numbers['correct']:,} | "
            f"{numbers['correct_fail']} | {warnings} / {numbers['correct_warning']} "
            f"({100 * numbers['correct_warning_rate']:.1f} %) | {wrong} | "
            f"{passed} ({100 * passed / wrong:.1f} %) | {numbers['wrong_warning']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets",
                        help="a set: a folder of --heldout (dev, test, test2 … test10); "
                             f"repeatable; default: {', '.join(UNSEEN)}, never seen by the "
                             "rules' authors")
    parser.add_argument("--heldout", type=Path, default=HELDOUT,
                        help="the folder holding the sets")
    parser.add_argument("--pair", choices=["de-en", "en-de"], action="append")
    parser.add_argument("--suite", type=Path, action="append",
                        help="suite and rules folders (default: the bundled ones)")
    parser.add_argument("--list", action="store_true",
                        help="list every correct output not passed and wrong output passed")
    parser.add_argument("--json", action="store_true", help="one JSON object per pair")
    parser.add_argument("--seen", action="append", default=[], metavar="SET",
                        help="a set the rules were fixed on (repeatable): outputs it holds "
                             "for the same item are left out, the figures count new "
                             "wordings only")
    parser.add_argument("--row", metavar="RULES",
                        help="print the README table's row, the rules named RULES")
    args = parser.parse_args()
    sets = args.sets or list(UNSEEN)
    for name in sets + args.seen:
        if not (args.heldout / name).is_dir():
            parser.error(f"no set {name!r} in {args.heldout}")
    if overlap := set(sets) & set(args.seen):
        parser.error(f"a set cannot be both measured and seen: {', '.join(sorted(overlap))}")
    suite_paths = args.suite or [REPO / "suites", REPO / "rules"]
    pairs = args.pair or ["de-en", "en-de"]
    seen = {pair: read_sets(args.heldout, args.seen, pair) for pair in pairs if args.seen}
    for name in sets:
        for pair in pairs:
            rows = read_rows(args.heldout / name, pair)
            if args.seen:
                report(new_only_name(name), pair, new_only(rows, seen[pair]), suite_paths,
                       args)
            else:
                report(name, pair, rows, suite_paths, args)


def report(name: str, pair: str, rows: list[Row], suite_paths: list[Path],
           args: argparse.Namespace) -> None:
    """Print one set's figures for one pair (and, with --list, what it misjudges)."""
    if not rows:
        print(f"{name} {pair}: no held-out translations")
        return
    results = judged(rows, suite_paths)
    numbers = summary(results)
    if args.json:
        print(json.dumps({"set": name, "pair": pair, **numbers}, ensure_ascii=False))
    elif args.row:
        print(table_row(pair, args.row, name, numbers))
    else:
        print(f"{name} {pair}: {numbers['items']} items; "
              f"{numbers['correct']} correct outputs: {numbers['correct_fail']} fail, "
              f"{numbers['correct_warning']} warning "
              f"({100 * float(numbers['correct_warning_rate'] or 0):.1f} %); "
              f"{numbers['wrong']} wrong outputs: {numbers['wrong_pass']} pass, "
              f"{numbers['wrong_warning']} warning")
    if args.list:
        for row, outcome, reason in results:
            bad = (row.label == "correct" and outcome != "pass") or (
                row.label == "wrong" and outcome == "pass")
            if bad:
                print(f"  {row.file}:{row.line} {row.item} {row.label}/{row.made} → "
                      f"{outcome} ({reason}): {row.output}")


if __name__ == "__main__":
    main()
