"""Simulation: how many decisions and how much reading the triage needs, and how often its
proposals are wrong, with an oracle annotator on real data.

Usage::

    python bench/triage_sim.py [--suite ../shared/data/dfki-mt-testsuite/de-en/items.json]
                               [--outputs ../shared/data/wmt21/txt-ts] [--pair de-en]
                               [--phenomenon NAME …] [--mode MODE …] [--json] [--trace]
    python bench/triage_sim.py --choose [--json] [--jobs N]  # settings chosen leaving one out

Take the items that have rules, hide their rules, and let an *oracle* decide each output the
way the hidden rule judges it; outputs the hidden rule leaves undecided (its warnings) are
not counted. The simulated annotator works the triage queue in the order the triage UI
gives it (`testsuite.verdicts.queue`: outputs that complete their item first, then those of
the most systems) and, on each entry still open:

* ``none`` — decides it by hand (asked once per distinct output);
* ``item`` — is offered the best proposal (`testsuite.verdicts.proposals`, the learner the
  triage UI and ``testsuite suggest`` use, with their default settings) that decides the
  entry, kept to the entry's item; otherwise decides by hand;
* ``phenomenon`` — the same, with proposals across the items of the entry's phenomenon.

A proposal is shown as the triage UI shows it: its rows (`Phenomenon.rows`: outputs that are
the same once each item's own words are masked, one row each, least like the evidence
first). The **careful** annotator reads every row and accepts when the output shown on each
is decided as the oracle would; else it rejects the proposal (one decision) and decides the
first wrong one by hand (another); a rejected proposal is not offered again. The
**hurried** annotator (a second run) reads only the rows that fit the proposal dialog at
80×24 (`testsuite.tui.render.preview_room`, `rows_that_fit`) and accepts when those are
right.

Reported per mode: decisions (accepted or rejected proposals and decisions by hand),
outputs read (every row of every preview shown, and every decision by hand), both per
resolved output (item × system outcomes the oracle decides); proposal precision (outputs
decided as the oracle would, over the outputs of every proposal offered, counted each time
it was offered); outcomes whose final verdict is against the oracle, for the careful and
for the hurried annotator. ``--choose`` runs every setting of `GRID` on the four WMT21/22
de-en/en-de pair-years and reports each pair-year with the settings chosen on the other
three (`choose`): never the figure the settings were tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import product
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from testsuite.matching import CompiledRule, RegexCache  # noqa: E402
from testsuite.tui.render import HURRIED_SCREEN, preview_room, rows_that_fit  # noqa: E402
from testsuite.verdicts.proposals import (  # noqa: E402
    DEFAULT,
    Phenomenon,
    Proposal,
    Settings,
)

DATA = REPO.parent / "shared" / "data"
#: The pair-years settings are chosen on, one left out at a time.
PAIR_YEARS = (("wmt21", "de-en"), ("wmt21", "en-de"), ("wmt22", "de-en"), ("wmt22", "en-de"))
#: The settings tried by --choose (each combination).
GRID = {"support": (2, 3), "min_precision": (0.99, 0.995), "prior": (0.98, 0.99, 0.995)}
#: The settings measured, and those the grid varies (the learner's defaults, or with
#: --sibling-changes the learner from siblings turned on).
BASE = DEFAULT
#: What a chosen setting must reach on every pair-year it is chosen on.
TARGET_PRECISION = 0.99
TARGET_SKIM = 0.001

#: item → distinct output → (systems, the hidden rule's outcome)
Oracle = dict[str, dict[str, tuple[list[str], str]]]


@dataclass
class Result:
    """What one way of working cost, for one annotator."""

    mode: str
    decisions: int = 0
    reads: int = 0
    manual: int = 0
    accepted: int = 0
    rejected: int = 0
    offered_outputs: int = 0
    right_outputs: int = 0
    resolved: int = 0
    against_oracle: int = 0
    items: int = 0
    seconds: float = 0.0
    trace: list[str] = field(default_factory=list, repr=False)
    #: (how, verdict) → [outputs offered, of which decided as the oracle would]
    by_kind: dict[str, list[int]] = field(default_factory=dict)

    @property
    def precision(self) -> float | None:
        return self.right_outputs / self.offered_outputs if self.offered_outputs else None


def oracle_of(suite, systems: Sequence, pair: str, cache: RegexCache,
              phenomena: Sequence[str]) -> Oracle:
    """item → distinct output → (systems, the hidden rule's outcome), for items with rules."""
    wanted = {p.casefold() for p in phenomena}
    items: Oracle = {}
    compiled: dict[str, CompiledRule] = {}
    for system in systems:
        if system.pair != pair:
            continue
        for item_id, output in system.outputs.items():
            item = suite.items.get((pair, item_id))
            rule = suite.rules.get((pair, item_id))
            if item is None or rule is None or not output.strip():
                continue
            if wanted and item.phenomenon.casefold() not in wanted:
                continue
            judge = compiled.get(item_id)
            if judge is None:
                judge = compiled[item_id] = CompiledRule(replace(rule, verdicts=()), cache)
            key = output.strip()
            entry = items.setdefault(item_id, {}).get(key)
            if entry is None:
                entry = items[item_id][key] = ([], judge.judge(output).outcome.value)
            entry[0].append(system.system)
    return items


def queue_of(items: Oracle, order: Sequence[str]) -> list[tuple[str, str]]:
    """The resolved outputs in the triage queue's order (`queue.pending_rows` with every
    output pending): those that complete their item first, then most systems first, then
    the suite's order."""
    position = {item: index for index, item in enumerate(order)}
    decided = {item: [o for o, (_, v) in outputs.items() if v in ("pass", "fail")]
               for item, outputs in items.items()}
    entries = [(item, output) for item, outputs in decided.items() for output in outputs]
    return sorted(entries, key=lambda e: (len(decided[e[0]]) != 1, -len(items[e[0]][e[1]][0]),
                                          position[e[0]]))


class Simulation:
    """The queue of one pair-year worked in one mode by one annotator (`run`)."""

    def __init__(self, items: Oracle, phenomena: Mapping[str, str], sources: Mapping[str, str],
                 order: Sequence[str], pair: str, settings: Settings = DEFAULT) -> None:
        self.items = items
        self.phenomena = phenomena
        self.pair = pair
        self.queue = queue_of(items, order)
        self.oracle = {(i, o): v for i, outputs in items.items() for o, (_, v) in outputs.items()
                       if v in ("pass", "fail")}
        self.resolved = sum(len(items[i][o][0]) for i, o in self.oracle)
        by_phenomenon: dict[str, dict[str, list[str]]] = {}
        for item, outputs in items.items():
            by_phenomenon.setdefault(phenomena[item], {})[item] = list(outputs)
        self.learners = {name: Phenomenon(pair, name, outputs, sources, settings)
                         for name, outputs in by_phenomenon.items()}

    def run(self, mode: str, screen: tuple[int, int] | None = None) -> Result:
        """Work the queue in `mode` (``none``, ``item``, ``phenomenon``): a careful
        annotator, or with `screen` (a terminal's width and height) a hurried one who reads
        only the rows of each preview that its proposal dialog shows at once there."""
        result = Result(mode, resolved=self.resolved)
        start = time.perf_counter()
        judged: dict[str, dict[str, dict[str, str]]] = {}  # phenomenon → item → output → v
        pending: dict[str, dict[str, dict[str, list[str]]]] = {}
        for item, output in self.oracle:
            pending.setdefault(self.phenomena[item], {}).setdefault(item, {})[output] = \
                self.items[item][output][0]
        rejected: set[str] = set()
        learned: dict[str, list[Proposal]] = {}  # until the phenomenon's decisions change

        def record(item: str, output: str, verdict: str) -> None:
            name = self.phenomena[item]
            judged.setdefault(name, {}).setdefault(item, {})[output] = verdict
            del pending[name][item][output]
            if not pending[name][item]:
                del pending[name][item]
            learned.pop(name, None)

        def by_hand(item: str, output: str) -> None:
            result.decisions += 1
            result.manual += 1
            result.reads += 1
            result.trace.append(f"by hand {item}: {self.oracle[(item, output)]} {output}")
            record(item, output, self.oracle[(item, output)])

        for item, output in self.queue:
            name = self.phenomena[item]
            if output not in pending.get(name, {}).get(item, {}):
                continue
            chosen = None
            if mode != "none":
                if name not in learned:
                    learned[name] = self.learners[name].learn(
                        judged.get(name, {}), pending.get(name, {}), rejected)
                offers = [p if mode == "phenomenon" else p.within(item) for p in learned[name]
                          if any(i == item and d.output == output for i, d in p.decides)]
                # Kept to the item, a proposal of one output is no faster than a decision.
                offers = [p for p in offers if p.id not in rejected and len(p.decides) > 1]
                chosen = max(offers, key=lambda p: p.outcomes) if offers else None
            if chosen is None:
                by_hand(item, output)
                continue
            rows = self.learners[name].rows(chosen)
            read = rows if screen is None else \
                rows[:rows_that_fit(rows, *preview_room(chosen, *screen))]
            result.decisions += 1
            result.reads += len(read)
            result.offered_outputs += len(chosen.decides)
            right = sum(self.oracle[(i, d.output)] == d.outcome for i, d in chosen.decides)
            result.right_outputs += right
            kind = result.by_kind.setdefault(f"{chosen.how} {chosen.verdict}", [0, 0])
            kind[0] += len(chosen.decides)
            kind[1] += right
            wrong = [r for r in read if self.oracle[(r.item, r.shown)] != chosen.verdict]
            result.trace.append(
                f"{'rejected' if wrong else 'accepted'} {chosen.how} {chosen.verdict} "
                f"{chosen.pattern} {chosen.source}: {len(chosen.decides)} outputs of "
                f"{len(chosen.items)} items in {len(rows)} rows"
                f" (est. {chosen.precision:.3f})"
                + "".join(f"\n    wrong {i}: {d.output}" for i, d in chosen.decides
                          if self.oracle[(i, d.output)] != d.outcome))
            if not wrong:
                result.accepted += 1
                for i, decided in chosen.decides:
                    record(i, decided.output, chosen.verdict)
                continue
            result.rejected += 1
            rejected.add(chosen.id)
            by_hand(wrong[0].item, wrong[0].shown)
            if output in pending.get(name, {}).get(item, {}):
                by_hand(item, output)
        final = {(i, o): v for per_item in judged.values() for i, outputs in per_item.items()
                 for o, v in outputs.items()}
        result.items = len({i for i, _ in self.oracle})
        result.against_oracle = sum(len(self.items[i][o][0]) for (i, o), v in final.items()
                                    if v != self.oracle[(i, o)])
        result.seconds = time.perf_counter() - start
        return result


def summary(careful: Result, hurried: Result) -> dict[str, object]:
    """One JSON object per mode: the fields the issue names, and the counts behind them."""
    resolved = careful.resolved
    return {
        "mode": careful.mode,
        "decisions_per_output": round(careful.decisions / resolved, 4),
        "reads_per_output": round(careful.reads / resolved, 4),
        "proposal_precision": None if careful.precision is None
        else round(careful.precision, 4),
        "skim_against_oracle": hurried.against_oracle,
        "skim_against_oracle_share": round(hurried.against_oracle / resolved, 5),
        "against_oracle": careful.against_oracle,
        "resolved_outputs": resolved,
        "decisions": careful.decisions, "reads": careful.reads, "manual": careful.manual,
        "accepted": careful.accepted, "rejected": careful.rejected,
        "offered_outputs": careful.offered_outputs, "items": careful.items,
        "by_kind": careful.by_kind,
        "seconds": round(careful.seconds + hurried.seconds, 1)}


def load(suite_path: Path, outputs: Sequence[Path], pair: str, phenomena: Sequence[str] = ()
         ) -> tuple[Oracle, dict[str, str], dict[str, str], list[str]]:
    """The oracle, each item's phenomenon and source, and the suite's item order."""
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite

    with tempfile.TemporaryDirectory() as tmp:
        if suite_path.suffix == ".json":
            from testsuite.dfki import import_dfki

            import_dfki(suite_path, Path(tmp))
            suite_path = Path(tmp)
        suite = load_suite([suite_path])
        systems, _ = load_outputs(suite, list(outputs), pair=pair)
    items = oracle_of(suite, systems, pair, RegexCache(), phenomena)
    found = {i: suite.items[(pair, i)] for i in items}
    order = [item.id for item in suite.items_of(pair) if item.id in items]
    return items, {i: x.phenomenon for i, x in found.items()}, \
        {i: x.source for i, x in found.items()}, order


def simulate(loaded: tuple[Oracle, dict[str, str], dict[str, str], list[str]], pair: str,
             modes: Iterable[str], settings: Settings | None = None, trace: bool = False
             ) -> list[tuple[Result, Result]]:
    """(careful, hurried) results of each mode (with `BASE` unless `settings`)."""
    simulation = Simulation(*loaded, pair=pair, settings=settings or BASE)
    found = []
    for mode in modes:
        careful = simulation.run(mode)
        hurried = careful if mode == "none" else simulation.run(mode, HURRIED_SCREEN)
        if not trace:
            careful.trace.clear()
        found.append((careful, hurried))
    return found


# --- choosing the settings --------------------------------------------------------------


def grid() -> list[Settings]:
    """Every combination of `GRID` over `BASE`."""
    names = list(GRID)
    return [replace(BASE, **dict(zip(names, values, strict=True)))
            for values in product(*(GRID[n] for n in names))]


def meets(row: Mapping[str, object]) -> bool:
    """Whether a result reaches the targets a setting is chosen for (precision and the
    hurried annotator's errors; the careful one's must be none)."""
    precision = row["proposal_precision"]
    return (precision is None or float(precision) >= TARGET_PRECISION) \
        and float(row["skim_against_oracle_share"]) <= TARGET_SKIM \
        and row["against_oracle"] == 0  # type: ignore[operator]


def choose(results: Mapping[tuple[str, str], Mapping[Settings, Mapping[str, object]]],
           held_out: tuple[str, str], baseline: Mapping[tuple[str, str], float]) -> Settings:
    """The settings chosen without `held_out`: among those that meet the targets on every
    other pair-year, the fewest decisions (relative to asking once per distinct output) on
    average; if none meets them, the one whose worst precision is highest."""
    others = [py for py in results if py != held_out]
    candidates = list(results[others[0]])

    def cost(settings: Settings) -> float:
        return sum(float(results[py][settings]["decisions_per_output"]) / baseline[py]
                   for py in others) / len(others)

    good = [s for s in candidates if all(meets(results[py][s]) for py in others)]
    if good:
        return min(good, key=lambda s: (cost(s), -s.min_precision, s.support))
    return max(candidates, key=lambda s: (min(float(results[py][s]["proposal_precision"] or 1)
                                              for py in others), -cost(s)))


def grid_of(pair_year: tuple[str, str], mode: str = "phenomenon"
            ) -> tuple[dict[str, object], dict[Settings, dict[str, object]]]:
    """One pair-year asked once per distinct output, and in `mode` with every setting of
    `GRID`."""
    year, pair = pair_year
    loaded = load(DATA / "dfki-mt-testsuite" / pair / "items.json", [DATA / year / "txt-ts"],
                  pair)
    [(careful, hurried)] = simulate(loaded, pair, ["none"])
    none = summary(careful, hurried)
    found = {}
    for chosen in grid():
        [(careful, hurried)] = simulate(loaded, pair, [mode], chosen)
        found[chosen] = summary(careful, hurried)
        print(f"# {year} {pair} {asdict(chosen)}: {found[chosen]}", file=sys.stderr,
              flush=True)
    return none, found


def choose_all(as_json: bool, mode: str = "phenomenon", jobs: int = 1) -> int:
    """Run `GRID` on every pair-year (`jobs` pair-years at once); report each with the
    settings chosen without it."""
    results: dict[tuple[str, str], dict[Settings, dict[str, object]]] = {}
    baseline: dict[tuple[str, str], float] = {}
    none_rows: dict[tuple[str, str], dict[str, object]] = {}
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(grid_of, PAIR_YEARS, [mode] * len(PAIR_YEARS)))
    else:
        done = [grid_of(pair_year, mode) for pair_year in PAIR_YEARS]
    for pair_year, (none, found) in zip(PAIR_YEARS, done, strict=True):
        none_rows[pair_year] = none
        baseline[pair_year] = float(none["decisions_per_output"])
        results[pair_year] = found
    loaded_again = {}
    for year, pair in PAIR_YEARS:
        chosen = choose(results, (year, pair), baseline)
        row = results[(year, pair)][chosen]
        none = none_rows[(year, pair)]
        if (year, pair) not in loaded_again:
            loaded_again[(year, pair)] = load(DATA / "dfki-mt-testsuite" / pair / "items.json",
                                              [DATA / year / "txt-ts"], pair)
        [(careful, hurried)] = simulate(loaded_again.pop((year, pair)), pair, ["item"], chosen)
        line = {"pair_year": f"{year} {pair}", "settings": {n: getattr(chosen, n) for n in GRID},
                "none": none, "item": summary(careful, hurried), mode: row}
        if as_json:
            print(json.dumps(line), flush=True)
        else:
            print(f"{year} {pair}: settings {line['settings']}: decisions "
                  f"{row['decisions_per_output']} (none {none['decisions_per_output']}, "
                  f"{float(row['decisions_per_output']) / baseline[(year, pair)]:.2f}×), reads "
                  f"{row['reads_per_output']} ({float(row['reads_per_output']) / float(none['reads_per_output']):.2f}×), "  # noqa: E501
                  f"precision {row['proposal_precision']}, against the oracle "
                  f"{row['against_oracle']}, hurried {row['skim_against_oracle']} "
                  f"({float(row['skim_against_oracle_share']):.3%})", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path,
                        default=DATA / "dfki-mt-testsuite" / "de-en" / "items.json",
                        help="DFKI items.json, or suite and rules YAML folder")
    parser.add_argument("--outputs", type=Path, nargs="+", default=[DATA / "wmt21" / "txt-ts"])
    parser.add_argument("--pair", default="de-en")
    parser.add_argument("--phenomenon", action="append", default=[])
    parser.add_argument("--mode", action="append", choices=("none", "item", "phenomenon"))
    parser.add_argument("--json", action="store_true", help="one JSON object per mode")
    parser.add_argument("--trace", action="store_true", help="print every decision")
    parser.add_argument("--choose", action="store_true",
                        help="choose the settings leaving one pair-year out (slow)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="with --choose: pair-years worked at once (processes)")
    parser.add_argument("--sibling-changes", type=int, default=DEFAULT.sibling_changes,
                        help="proposals from paradigm siblings whose sources differ by at "
                        "most this many changes (0: none; Settings.sibling_changes)")
    args = parser.parse_args(argv)
    global BASE
    BASE = replace(DEFAULT, sibling_changes=args.sibling_changes)
    if args.choose:
        return choose_all(args.json, jobs=args.jobs)
    loaded = load(args.suite, args.outputs, args.pair, args.phenomenon)
    found = simulate(loaded, args.pair, args.mode or ("none", "item", "phenomenon"),
                     trace=args.trace)
    for careful, hurried in found:
        if args.trace:
            print(f"# {careful.mode}", *careful.trace, sep="\n")
        row = summary(careful, hurried)
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{careful.mode:<11} {careful.decisions:>6} decisions, {careful.reads:>6} "
                  f"read for {careful.resolved} resolved outputs of {careful.items} items = "
                  f"{row['decisions_per_output']:.3f} decisions and "
                  f"{row['reads_per_output']:.3f} reads per output ({careful.manual} by "
                  f"hand, {careful.accepted} accepted, {careful.rejected} rejected); "
                  f"proposal precision {row['proposal_precision']}; against the oracle "
                  f"{careful.against_oracle}, hurried {hurried.against_oracle}  "
                  f"[{row['seconds']:.1f} s]")
    return 1 if any(careful.against_oracle for careful, _ in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())
