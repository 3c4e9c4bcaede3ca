"""The baseline: the plain script a user could write in an afternoon instead of `testsuite`.

It reads the DFKI items.json, the WMT source and hypothesis files of one pair-year, locates
each item by its (white-space normalised) source sentence, judges every output with `re`
as SPEC.md says (no time limit, no verdicts), applies the fairness rule, and prints the
accuracy per category and phenomenon, the micro- and both macro-averages, and the first
performance cluster of each row by a one-tailed two-proportion Z-test (closed form).

It is deliberately simple and fast; `bench/bench_commands.py` times `testsuite` against it,
each as a fresh process, on the same machine in the same run.

Usage::

    python bench/plain_score.py ../shared/data/dfki-mt-testsuite/de-en/items.json \
        ../shared/data/wmt21/txt-ts de-en
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path


def norm(text: str) -> str:
    return " ".join(text.split())


def judge(item: dict, output: str) -> str:
    if not output.strip():
        return "missing"
    pos = item["pos"] is not None and item["pos"].search(output) is not None
    neg = item["neg"] is not None and item["neg"].search(output) is not None
    if not (pos or neg):
        pos = any(t.strip() and t.strip() in output for t in item["positive_tokens"])
        neg = any(t.strip() and t.strip() in output for t in item["negative_tokens"])
    if pos and not neg:
        return "pass"
    if neg and not pos:
        return "fail"
    return "warning"


def first_cluster(passes: dict[str, int], n: int) -> set[str]:
    best = max(passes.values())
    leaders = [s for s, x in passes.items() if x == best]
    cluster = set(leaders)
    for system, x in passes.items():
        if x == best:
            continue
        pooled = (best + x) / (2 * n)
        if pooled in (0, 1):
            cluster.add(system)
            continue
        z = (best - x) / n / math.sqrt(pooled * (1 - pooled) * 2 / n)
        if 0.5 * math.erfc(z / math.sqrt(2)) >= 0.05:
            cluster.add(system)
    return cluster


def main() -> None:
    items_json, txt_ts, pair = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    items = json.loads(items_json.read_text(encoding="utf-8"))["items"]
    for item in items:  # compile each rule's patterns once
        for key, name in (("pos", "positive_regex"), ("neg", "negative_regex")):
            item[key] = re.compile(item[name]) if item[name] else None
    source = next((txt_ts / "sources").glob(f"*.{pair}.src.*"))
    lines = source.read_text(encoding="utf-8").split("\n")
    where: dict[str, int] = {}
    for number, line in enumerate(lines):
        where.setdefault(norm(line), number)
    located = {i["id"]: where[norm(i["source_sentence"])] for i in items
               if norm(i["source_sentence"]) in where}
    outcomes: dict[str, dict[str, str]] = {}
    for hyp in sorted((txt_ts / "system-outputs").glob(f"*.{pair}.hyp.*")):
        system = hyp.name.split(".hyp.")[1].rsplit(".", 1)[0]
        hyp_lines = hyp.read_text(encoding="utf-8").split("\n")
        judged = {i["id"]: judge(i, hyp_lines[located[i["id"]]]) for i in items
                  if i["id"] in located}
        values = list(judged.values())
        if values.count("missing") > len(values) / 2:
            continue
        outputs = [hyp_lines[located[i]].strip() for i in judged]
        if max(outputs.count(o) for o in set(outputs)) > len(outputs) / 2:
            continue  # a placeholder such as ####
        outcomes[system] = judged
    systems = sorted(outcomes)
    entered = [i for i in items if i["id"] in located
               and all(outcomes[s][i["id"]] in ("pass", "fail") for s in systems)]
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in entered:
        rows[(item["category"], "")].append(item)
        rows[(item["category"], item["phenomenon"])].append(item)
    table = {}
    for key, members in rows.items():
        passes = {s: sum(outcomes[s][i["id"]] == "pass" for i in members) for s in systems}
        table[key] = ({s: x / len(members) for s, x in passes.items()},
                      first_cluster(passes, len(members)))
    passes = {s: sum(outcomes[s][i["id"]] == "pass" for i in entered) for s in systems}
    table[("micro", "")] = ({s: x / len(entered) for s, x in passes.items()},
                            first_cluster(passes, len(entered)))
    for label, kind in (("category macro", False), ("phenomenon macro", True)):
        groups = [k for k in rows if bool(k[1]) == kind]
        macro = {s: sum(table[g][0][s] for g in groups) / len(groups) for s in systems}
        read = {s: round(macro[s] * len(entered)) for s in systems}
        table[(label, "")] = (macro, first_cluster(read, len(entered)))
    print("\t".join(["row", *systems]))
    for (category, phenomenon), (accuracy, cluster) in table.items():
        cells = [f"{'*' if s in cluster else ''}{100 * accuracy[s]:.1f}" for s in systems]
        print("\t".join([f"{category} / {phenomenon}" if phenomenon else category, *cells]))


if __name__ == "__main__":
    main()
