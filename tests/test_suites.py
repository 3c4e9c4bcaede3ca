"""The shipped suites are data tested like code: schema, ids, regexes, examples, coverage."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import example_coverage, lint, load_suite

REPO = Path(__file__).resolve().parent.parent
SUITE_FILES = sorted((REPO / "suites").rglob("*.yaml")) + sorted((REPO / "rules").rglob("*.yaml"))
PAIRS = ("de-en", "en-de")
ELLIPSIS = ("Gapping", "Pseudogapping", "Right node raising", "Sluicing", "Stripping",
            "VP-ellipsis")
# The DFKI taxonomy (de-en), and for en-de the same minus Composition (a German compounding
# category) with LDD renamed as in the DFKI en-de suite.
CATEGORIES = {
    "de-en": {"Ambiguity", "Composition", "Coordination & ellipsis", "False friends",
              "Function word", "LDD & interrogatives", "MWE", "Named entity & terminology",
              "Negation", "Non-verbal agreement", "Punctuation", "Subordination",
              "Verb tense/aspect/mood", "Verb valency"},
    "en-de": {"Ambiguity", "Coordination & ellipsis", "False friends", "Function word",
              "Long distance dependency & interrogative", "MWE",
              "Named entity & terminology", "Negation", "Non-verbal agreement", "Punctuation",
              "Subordination", "Verb tense/aspect/mood", "Verb valency"},
}


@pytest.fixture(scope="module")
def shipped():
    return lint([REPO / "suites", REPO / "rules"])


@pytest.mark.parametrize("path", SUITE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_file_is_clean(shipped, path):
    problems = [str(p) for p in shipped.problems if p.file == str(path)]
    assert problems == []


def test_nothing_else_is_wrong(shipped):
    assert [str(p) for p in shipped.problems] == []


def test_lint_command_passes_on_the_shipped_suites():
    result = CliRunner().invoke(app, ["lint", str(REPO / "suites"), str(REPO / "rules")])
    assert result.exit_code == 0, result.output
    assert ", 0 problems" in result.output


@pytest.mark.parametrize("pair", PAIRS)
def test_coverage(shipped, pair):
    items = shipped.suite.items_of(pair)
    assert {i.category for i in items} == CATEGORIES[pair]
    per_phenomenon = Counter((i.category, i.phenomenon) for i in items)
    thin = {k: n for k, n in per_phenomenon.items() if n < 5}
    assert thin == {}, "phenomena with fewer than 5 items"
    assert per_phenomenon[("MWE", "Idiom")] >= 30
    for phenomenon in ELLIPSIS:
        assert per_phenomenon[("Coordination & ellipsis", phenomenon)] >= 10, phenomenon
    phenomena = {p for _, p in per_phenomenon}
    if pair == "en-de":
        assert {"Middle voice", "Resultative predicates"} <= phenomena


@pytest.mark.parametrize("pair", PAIRS)
def test_every_rule_has_two_examples_of_each_kind(shipped, pair):
    # pass and reworded (must pass), fail and near_miss (must fail): the bundled suites
    # prove each rule both ways (issue 24); `lint` checks that each example is judged right.
    rows = [row for row in example_coverage(shipped.suite, minimum=2) if row.pair == pair]
    assert rows, f"no rules for {pair}"
    short = {item.id: lacking for row in rows for item, _, lacking in row.short}
    assert short == {}


@pytest.mark.parametrize("pair", PAIRS)
def test_sample_outputs_show_every_outcome_in_every_category(pair):
    suite = load_suite([REPO / "suites", REPO / "rules"])
    systems, _ = load_outputs(suite, [REPO / "samples" / pair], pair=pair)
    results = evaluate(suite, systems).results
    assert {s.system for s in systems} == {"Sample-A", "Sample-B", "Sample-C"}
    # every item has an output of every sample system
    assert len(results) == 3 * len(suite.items_of(pair))
    outcomes = results.groupby("category", observed=True)["outcome"].agg(
        lambda o: set(o.astype(str)))
    for category, seen in outcomes.items():
        assert {"pass", "fail", "warning"} <= seen, category


def _heldout():
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("suite_heldout",
                                                  REPO / "bench" / "suite_heldout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("pair", PAIRS)
def test_the_readme_states_what_the_rules_do_on_the_unseen_held_out_sets(pair):
    """The README's figures on the unseen sets are those of the rules as shipped: a rule
    changed since must be measured again (and an unseen set is never one to fix rules on)."""
    heldout = _heldout()
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    for name in heldout.UNSEEN:
        rows = heldout.read_rows(REPO / "bench" / "heldout" / name, pair)
        per_item = Counter(row.item for row in rows)
        assert len(per_item) == (373 if pair == "de-en" else 361)
        assert set(per_item.values()) == {5}
        seen = heldout.read_sets(REPO / "bench" / "heldout", heldout.SEEN, pair)
        for shown, measured in ((name, rows),
                                (heldout.new_only_name(name), heldout.new_only(rows, seen))):
            numbers = heldout.summary(heldout.judged(measured,
                                                     [REPO / "suites", REPO / "rules"]))
            row = heldout.table_row(pair, heldout.SHIPPED, shown, numbers)
            stated = [line for line in readme
                      if line.startswith(f"| {pair} | {heldout.SHIPPED} | {shown} |")]
            assert stated == [row]


def test_new_only_leaves_out_the_outputs_a_seen_set_holds_for_the_same_item():
    """A wording the rules were fixed on is not new, even in another set; the same words
    for another item or another pair are."""
    heldout = _heldout()
    row = heldout.Row("a.tsv", 2, "de-en", "idiom-01", "correct", "strong", "You are kidding.")
    same = heldout.Row("b.tsv", 9, "de-en", "idiom-01", "correct", "paraphrase",
                       "You are kidding.")
    other_item = heldout.Row("b.tsv", 9, "de-en", "idiom-02", "correct", "strong",
                             "You are kidding.")
    other_pair = heldout.Row("b.tsv", 9, "en-de", "idiom-01", "correct", "strong",
                             "You are kidding.")
    reworded = heldout.Row("a.tsv", 3, "de-en", "idiom-01", "correct", "literal",
                           "You are kidding me.")
    assert heldout.new_only([row, reworded], [same]) == [reworded]
    assert heldout.new_only([row, reworded], [other_item, other_pair]) == [row, reworded]
