"""Simulation: how many human decisions the triage needs, with and without help.

Usage::

    python bench/triage_sim.py [--suite ../shared/data/dfki-mt-testsuite/de-en/items.json]
                               [--outputs ../shared/data/wmt21/txt-ts] [--pair de-en]
                               [--phenomenon NAME …] [--json]

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
  the same way.

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
    phrase_batches,
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
    items: int = 0
    seconds: float = 0.0
    rules: dict[tuple[str, str], Rule] = field(default_factory=dict, repr=False)

    @property
    def per_output(self) -> float:
        return self.decisions / self.resolved if self.resolved else 0.0

    def as_dict(self) -> dict[str, object]:
        return {"mode": self.mode, "decisions": self.decisions, "manual": self.manual,
                "accepted": self.accepted, "rejected": self.rejected,
                "resolved_outputs": self.resolved, "decisions_per_output":
                round(self.per_output, 4), "against_oracle": self.against_oracle,
                "batches_accepted": self.batches_accepted,
                "batches_rejected": self.batches_rejected, "items": self.items,
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


def simulate(mode: str, pair: str, items: dict[str, dict[str, tuple[list[str], str]]],
             phenomena: dict[str, str], cache: RegexCache) -> Result:
    """Work every item's queue in one mode: ``none``, ``suggestions`` or ``batches``."""
    result = Result(mode)
    start = time.perf_counter()
    # Per phenomenon: (outputs judged pass, outputs judged fail) of each item finished.
    judged: dict[str, list[tuple[list[str], list[str]]]] = {}
    for item_id, outputs in items.items():
        phenomenon = phenomena[item_id]
        learned = shared_phrases(judged.get(phenomenon, [])) if mode == "batches" else {}
        rejected_batches: set[tuple[str, str, str]] = set()
        oracle = {o: outcome for o, (_, outcome) in outputs.items()
                  if outcome in ("pass", "fail")}
        if not oracle:
            continue
        result.items += 1
        result.resolved += sum(len(outputs[o][0]) for o in oracle)
        # Outputs the hidden rule leaves undecided are not part of the simulation.
        systems = {o: tuple(outputs[o][0]) for o in oracle}
        rule = Rule(item_id)  # the hidden rule: nothing decides anything
        rejected: set[tuple[str, str]] = set()
        tick = 0
        while True:
            judge = CompiledRule(rule, cache)
            pending = sorted((o for o in oracle if judge.judge(o).outcome.value == "warning"),
                             key=lambda o: (-len(systems[o]), o))
            if not pending:
                break
            chosen: Suggestion | Batch | None = None
            if mode == "batches":
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
            rule = replace(rule, verdicts=(*rule.verdicts, Verdict(
                output, oracle[output], "oracle", f"t{tick:05d}")))
        result.rules[(pair, item_id)] = rule
        final = CompiledRule(rule, cache)
        outcomes = {o: final.judge(o).outcome.value for o in oracle}
        judged.setdefault(phenomenon, []).append(
            ([o for o, v in outcomes.items() if v == "pass"],
             [o for o, v in outcomes.items() if v == "fail"]))
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
    parser.add_argument("--mode", action="append", choices=("none", "suggestions", "batches"))
    parser.add_argument("--json", action="store_true", help="one JSON object per mode")
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
    results = [simulate(mode, args.pair, items, phenomena, cache)
               for mode in args.mode or ("none", "suggestions", "batches")]
    floor, resolved = per_item_floor(items)
    if args.json:
        print(json.dumps({"mode": "per-item floor", "decisions": floor,
                          "resolved_outputs": resolved,
                          "decisions_per_output": round(floor / resolved, 4)}))
    else:
        print(f"per-item floor: {floor} decisions for {resolved} resolved outputs = "
              f"{floor / resolved:.3f} per output (deciding each item on its own)")
    for result in results:
        if args.json:
            print(json.dumps(result.as_dict()))
        else:
            print(f"{result.mode:<12} {result.decisions:>6} decisions for {result.resolved} "
                  f"resolved outputs of {result.items} items = {result.per_output:.3f} per "
                  f"output ({result.manual} by hand, {result.accepted} accepted, "
                  f"{result.rejected} rejected); against the oracle: {result.against_oracle}"
                  f"  [{result.seconds:.1f} s]")
    return 1 if any(r.against_oracle for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
