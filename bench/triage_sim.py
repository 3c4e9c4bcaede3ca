"""Simulation: how many human decisions the triage needs, with and without help.

Usage::

    python bench/triage_sim.py [--suite ../shared/data/dfki-mt-testsuite/de-en/items.json]
                               [--outputs ../shared/data/wmt21/txt-ts] [--pair de-en]
                               [--phenomenon NAME …] [--mode MODE …] [--json] [--trace]

Take the items that have rules, hide their rules, and let an *oracle annotator* decide each
output the way the hidden rule judges it; outputs the hidden rule leaves undecided (its
warnings) are not counted. The simulated annotator works each item's pending outputs, most
systems first, as the triage queue orders them:

* **asked once per distinct output** (no help): one decision per distinct output;
* **with suggestions**: after each decision, the best rule suggestion learned from the
  item's verdicts (`testsuite.verdicts.suggest`) that decides at least two distinct
  outputs is offered with its preview; the annotator accepts it only if the oracle agrees
  with every output it decides (one decision either way); after a rejection, the annotator
  decides an output the preview got wrong;
* **with suggestions and batches**: before that, the batch learned from the items of the
  same phenomenon decided so far (`testsuite.verdicts.batch.phrase_batches`: "pass the
  outputs of this item that contain *had had to*", or "fail those without it") is offered
  the same way;
* **with batches across a phenomenon** as well: before each item, the batches learned from
  the shapes of the outputs of the phenomenon's finished items
  (`testsuite.verdicts.batch.shape_batches`: "pass every pending output of the phenomenon
  shaped ``^\\w+ shouldn't have \\w+\\.$``") are offered over its items still to do, until
  none is left. After a rejection the annotator decides by hand every output the preview
  got wrong when they are at most half of it (``ctrl+o`` in the batch dialog), one
  decision each, and the batch may be offered again without them; otherwise the first
  one, and the batch is not offered again.

Reported: decisions per resolved output (resolved outputs are item × system outcomes the
oracle decides), and the number of outputs whose final outcome differs from the oracle,
re-judged with everything the simulation wrote (verdicts and accepted patterns): it must
be 0. The suite is a DFKI ``items.json`` (imported into a temporary folder) or our YAML.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from testsuite.matching import CompiledRule, RegexCache  # noqa: E402
from testsuite.model import Rule, Suite, Verdict, standing_verdicts  # noqa: E402
from testsuite.verdicts.batch import (  # noqa: E402
    Batch,  # noqa: E402
    BatchKey,
    phrase_batches,
    shape_batches,
    shape_words,
    shared_phrases,
)
from testsuite.verdicts.suggest import Suggestion, suggest  # noqa: E402


@dataclass
class Result:
    """What one simulated way of working cost."""

    mode: str
    decisions: int = 0
    manual: int = 0
    accepted: int = 0
    rejected: int = 0
    resolved: int = 0
    against_oracle: int = 0
    batches_accepted: int = 0
    batches_rejected: int = 0
    shapes_accepted: int = 0
    shapes_rejected: int = 0
    items: int = 0
    seconds: float = 0.0
    rules: dict[tuple[str, str], Rule] = field(default_factory=dict, repr=False)
    trace: list[str] = field(default_factory=list, repr=False)

    @property
    def per_output(self) -> float:
        return self.decisions / self.resolved if self.resolved else 0.0

    def as_dict(self) -> dict[str, object]:
        return {"mode": self.mode, "decisions": self.decisions, "manual": self.manual,
                "accepted": self.accepted, "rejected": self.rejected,
                "resolved_outputs": self.resolved, "decisions_per_output":
                round(self.per_output, 4), "against_oracle": self.against_oracle,
                "batches_accepted": self.batches_accepted,
                "batches_rejected": self.batches_rejected,
                "shapes_accepted": self.shapes_accepted,
                "shapes_rejected": self.shapes_rejected, "items": self.items,
                "seconds": round(self.seconds, 1)}


def oracle_of(suite: Suite, systems: Sequence, pair: str, cache: RegexCache,
              phenomena: Sequence[str]) -> dict[str, dict[str, tuple[list[str], str]]]:
    """item → distinct output → (systems, the hidden rule's outcome), for items with rules."""
    wanted = {p.casefold() for p in phenomena}
    items: dict[str, dict[str, tuple[list[str], str]]] = {}
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


def per_item_floor(items: dict[str, dict[str, tuple[list[str], str]]]) -> tuple[int, int]:
    """Fewest decisions of any way of working that decides each item on its own, and the
    resolved outputs: one for an item with one distinct output, two when its outputs all get
    the same outcome (decide one, accept a pattern for the rest), three when they differ (a
    pass, a fail, then a pattern that separates them)."""
    decisions = resolved = 0
    for outputs in items.values():
        oracle = {o: outcome for o, (_, outcome) in outputs.items()
                  if outcome in ("pass", "fail")}
        if not oracle:
            continue
        resolved += sum(len(outputs[o][0]) for o in oracle)
        decisions += 1 if len(oracle) == 1 else 2 if len(set(oracle.values())) == 1 else 3
    return decisions, resolved


#: After a rejected batch across a phenomenon, the annotator decides by hand every output its
#: preview got wrong when they are at most this share of it (and the batch may be offered
#: again without them).
FIX_SHARE = 0.5


def offer_shapes(result: Result, pair: str, phenomenon: str, later: Sequence[str],
                 items: dict[str, dict[str, tuple[list[str], str]]],
                 finished: dict[str, tuple[list[str], list[str]]],
                 by_shape: dict[str, dict[str, str]], rejected: set[BatchKey],
                 kept: frozenset[str], sources: dict[str, str]) -> None:
    """Before the next item of a phenomenon: offer the batches learned from the shapes of the
    outputs of its finished items (`shape_batches`) over its items still to do, until none is
    left; after a rejection the annotator decides an output the preview got wrong."""
    while True:
        pending = {}
        for item_id in later:
            done = by_shape.get(item_id, {})
            open_ = {o: entry[0] for o, entry in items[item_id].items()
                     if entry[1] in ("pass", "fail") and o not in done}
            if open_:
                pending[item_id] = open_
        batches = shape_batches(pair, phenomenon, finished, pending, sources, rejected, kept)
        if not batches:
            return
        chosen = batches[0]
        result.decisions += 1
        wrong = [(i, d.output) for i, d in chosen.decides
                 if items[i][d.output][1] != d.outcome]
        result.trace.append(f"{'rejected' if wrong else 'accepted'} shape batch "
                            f"{chosen.verdict} {chosen.pattern} {chosen.source}: "
                            f"{len(chosen.decides)} outputs of "
                            f"{len({i for i, _ in chosen.decides})} items")
        if not wrong:
            result.accepted += 1
            result.shapes_accepted += 1
            for item_id, decided in chosen.decides:
                by_shape.setdefault(item_id, {})[decided.output] = decided.outcome
            continue
        result.rejected += 1
        result.shapes_rejected += 1
        # The annotator decides by hand what the preview got wrong: every such output when
        # they are few (at most one in FIX_SHARE), and the batch may then be offered again
        # without them; otherwise the first one, and the batch is not offered again.
        if len(wrong) > FIX_SHARE * len(chosen.decides):
            rejected.add(chosen.key)
            wrong = wrong[:1]
        for item_id, output in wrong:
            result.decisions += 1
            result.manual += 1
            result.trace.append(f"by hand {item_id}: {items[item_id][output][1]} {output}")
            by_shape.setdefault(item_id, {})[output] = items[item_id][output][1]


def simulate(mode: str, pair: str, items: dict[str, dict[str, tuple[list[str], str]]],
             phenomena: dict[str, str], cache: RegexCache,
             sources: dict[str, str] | None = None) -> Result:
    """Work every item's queue in one mode: ``none``, ``suggestions`` or ``batches``."""
    result = Result(mode)
    sources = sources or {}
    start = time.perf_counter()
    # Per phenomenon: (outputs judged pass, outputs judged fail) of each item finished.
    judged: dict[str, list[tuple[list[str], list[str]]]] = {}
    # Per phenomenon: item → (passes, fails) once finished; outputs decided by shape batches.
    finished: dict[str, dict[str, tuple[list[str], list[str]]]] = {}
    by_shape: dict[str, dict[str, str]] = {}
    rejected_shapes: set[BatchKey] = set()
    by_phenomenon: dict[str, list[str]] = {}
    for item_id in items:
        by_phenomenon.setdefault(phenomena[item_id], []).append(item_id)
    kept = {p: shape_words([list(items[i]) for i in ids]) for p, ids in by_phenomenon.items()}
    queue = [(p, i) for p, ids in by_phenomenon.items() for i in ids]
    for position, (phenomenon, item_id) in enumerate(queue):
        outputs = items[item_id]
        if mode == "phenomena":
            later = [i for p, i in queue[position:] if p == phenomenon]
            offer_shapes(result, pair, phenomenon, later, items, finished.setdefault(
                phenomenon, {}), by_shape, rejected_shapes, kept[phenomenon], sources)
        learned = shared_phrases(judged.get(phenomenon, [])) \
            if mode in ("batches", "phenomena") else {}
        rejected_batches: set[BatchKey] = set()
        oracle = {o: outcome for o, (_, outcome) in outputs.items()
                  if outcome in ("pass", "fail")}
        if not oracle:
            continue
        result.items += 1
        result.resolved += sum(len(outputs[o][0]) for o in oracle)
        # Outputs the hidden rule leaves undecided are not part of the simulation.
        systems = {o: tuple(outputs[o][0]) for o in oracle}
        rule = Rule(item_id, verdicts=tuple(  # the hidden rule: nothing decides anything
            Verdict(o, v, "oracle", "shape") for o, v in by_shape.get(item_id, {}).items()))
        rejected: set[tuple[str, str]] = set()
        tick = 0
        while True:
            judge = CompiledRule(rule, cache)
            pending = sorted((o for o in oracle if judge.judge(o).outcome.value == "warning"),
                             key=lambda o: (-len(systems[o]), o))
            if not pending:
                break
            chosen: Suggestion | Batch | None = None
            if mode in ("batches", "phenomena"):
                standing = standing_verdicts(rule.verdicts)
                batches = phrase_batches(pair, item_id, phenomenon,
                                         {o: systems[o] for o in pending}, standing, learned,
                                         rejected_batches)
                chosen = batches[0] if batches else None
            if chosen is None and mode != "none" and rule.verdicts:
                # One that decides a single output is no faster than deciding it by hand.
                offers = [s for s in suggest(pair, item_id, rule, systems, cache)
                          if len(s.decides) > 1 and (s.field, s.learned) not in rejected]
                chosen = offers[0] if offers else None
            if chosen is not None:
                result.decisions += 1
                decides = [d for _, d in chosen.decides] if isinstance(chosen, Batch) \
                    else list(chosen.decides)
                wrong = [d.output for d in decides if oracle.get(d.output) != d.outcome]
                result.trace.append(
                    f"{'rejected' if wrong else 'accepted'} "
                    f"{'batch' if isinstance(chosen, Batch) else 'suggestion'} {item_id}: "
                    f"{chosen.verdict if isinstance(chosen, Batch) else chosen.field} "
                    f"{chosen.pattern}: {len(decides)} outputs")
                if not wrong:
                    result.accepted += 1
                    result.batches_accepted += isinstance(chosen, Batch)
                    if isinstance(chosen, Batch):
                        rule = replace(rule, verdicts=(*rule.verdicts, *(
                            Verdict(d.output, d.outcome, "oracle", "batch") for d in decides)))
                    else:
                        rule = chosen.rule
                    continue
                result.rejected += 1
                result.batches_rejected += isinstance(chosen, Batch)
                if isinstance(chosen, Batch):
                    rejected_batches.add(chosen.key)
                else:
                    rejected.add((chosen.field, chosen.learned))
                output = wrong[0]  # the annotator saw it wrongly decided in the preview
                if output not in oracle:  # the hidden rule has no opinion: take the next
                    output = pending[0]
            else:
                output = pending[0]
            tick += 1
            result.decisions += 1
            result.manual += 1
            result.trace.append(f"by hand {item_id}: {oracle[output]} {output}")
            rule = replace(rule, verdicts=(*rule.verdicts, Verdict(
                output, oracle[output], "oracle", f"t{tick:05d}")))
        result.rules[(pair, item_id)] = rule
        final = CompiledRule(rule, cache)
        outcomes = {o: final.judge(o).outcome.value for o in oracle}
        judged.setdefault(phenomenon, []).append(
            ([o for o, v in outcomes.items() if v == "pass"],
             [o for o, v in outcomes.items() if v == "fail"]))
        finished.setdefault(phenomenon, {})[item_id] = judged[phenomenon][-1]
        result.against_oracle += sum(
            len(systems[o]) for o, expected in oracle.items()
            if final.judge(o).outcome.value != expected)
    result.seconds = time.perf_counter() - start
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    data = REPO.parent / "shared" / "data"
    parser.add_argument("--suite", type=Path,
                        default=data / "dfki-mt-testsuite" / "de-en" / "items.json",
                        help="DFKI items.json, or suite and rules YAML folder")
    parser.add_argument("--outputs", type=Path, nargs="+", default=[data / "wmt21" / "txt-ts"])
    parser.add_argument("--pair", default="de-en")
    parser.add_argument("--phenomenon", action="append", default=[])
    parser.add_argument("--mode", action="append",
                        choices=("none", "suggestions", "batches", "phenomena"))
    parser.add_argument("--json", action="store_true", help="one JSON object per mode")
    parser.add_argument("--trace", action="store_true", help="print every decision")
    args = parser.parse_args(argv)

    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite

    with tempfile.TemporaryDirectory() as tmp:
        suite_path = args.suite
        if suite_path.suffix == ".json":
            from testsuite.dfki import import_dfki

            import_dfki(suite_path, Path(tmp))
            suite_path = Path(tmp)
        suite = load_suite([suite_path])
        systems, _ = load_outputs(suite, args.outputs, pair=args.pair)
    cache = RegexCache()
    items = oracle_of(suite, systems, args.pair, cache, args.phenomenon)
    phenomena = {i: suite.items[(args.pair, i)].phenomenon for i in items}
    sources = {i: suite.items[(args.pair, i)].source for i in items}
    results = [simulate(mode, args.pair, items, phenomena, cache, sources)
               for mode in args.mode or ("none", "suggestions", "batches", "phenomena")]
    floor, resolved = per_item_floor(items)
    if args.json:
        print(json.dumps({"mode": "per-item floor", "decisions": floor,
                          "resolved_outputs": resolved,
                          "decisions_per_output": round(floor / resolved, 4)}))
    else:
        print(f"per-item floor: {floor} decisions for {resolved} resolved outputs = "
              f"{floor / resolved:.3f} per output (deciding each item on its own)")
    for result in results:
        if args.trace:
            print(f"# {result.mode}", *result.trace, sep="\n")
        if args.json:
            print(json.dumps(result.as_dict()))
        else:
            print(f"{result.mode:<12} {result.decisions:>6} decisions for {result.resolved} "
                  f"resolved outputs of {result.items} items = {result.per_output:.3f} per "
                  f"output ({result.manual} by hand, {result.accepted} accepted, "
                  f"{result.rejected} rejected"
                  + (f", of which across a phenomenon {result.shapes_accepted} accepted and "
                     f"{result.shapes_rejected} rejected" if result.mode == "phenomena" else "")
                  + f"); against the oracle: {result.against_oracle}"
                  f"  [{result.seconds:.1f} s]")
    return 1 if any(r.against_oracle for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
