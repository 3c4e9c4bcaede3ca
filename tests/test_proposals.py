"""Proposals: provenance of the verdicts they record, revoking them, and what they offer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from testsuite.errors import TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.scoring import score
from testsuite.verdicts import VERDICTS_FILE, make_verdict, record_many
from testsuite.verdicts.store import revoke

SUITE = """
pair: de-en
category: Verb tense/aspect/mood
items:
  - {id: m1, phenomenon: Modal - pluperfect, source: Ich hatte lesen sollen.}
  - {id: m2, phenomenon: Modal - pluperfect, source: Du hattest lesen sollen.}
  - {id: m3, phenomenon: Modal - pluperfect, source: Er hatte lesen sollen.}
"""
RULES = """
pair: de-en
rules:
  - {item: m1, positive_regex: 'been supposed to read'}
  - {item: m2, positive_regex: 'been supposed to read'}
  - {item: m3, positive_regex: 'been supposed to read'}
"""
#: Per system: the outputs of m1, m2, m3.
OUTPUTS = {
    "A": ["I had been supposed to read.", "You should have read.", "He should have read."],
    "B": ["I should have read.", "You should have read.", "He had been supposed to read."],
    "C": ["I had to read.", "You had been supposed to read.", "He should have read."],
}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for folder, text in (("suites", SUITE), ("rules", RULES)):
        (tmp_path / folder / "de-en").mkdir(parents=True)
        (tmp_path / folder / "de-en" / "verbs.yaml").write_text(text.lstrip(), encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for system, lines in OUTPUTS.items():
        (outputs / f"{system}.tsv").write_text("".join(f"m{n}\t{o}\n" for n, o in
                                                        enumerate(lines, 1)), encoding="utf-8")
    return tmp_path


def judge(project: Path):
    suite = load_suite([project / "suites", project / "rules"])
    systems, _ = load_outputs(suite, [project / "outputs"], pair="de-en")
    return suite, evaluate(suite, systems)


def verdicts_file(project: Path) -> Path:
    return project / "rules" / "de-en" / VERDICTS_FILE


def test_verdicts_say_which_proposal_they_came_from(project):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m1", make_verdict("I had to read.", "fail", "bob")),
    ])
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries = {(r["item"], v["output"]): v for r in stored["rules"] for v in r["verdicts"]}
    assert entries[("m1", "I should have read.")]["proposal"] == "p-shape"
    assert "proposal" not in entries[("m1", "I had to read.")]
    suite, evaluation = judge(project)
    assert [v.proposal for v in suite.rules[("de-en", "m1")].verdicts] == ["p-shape", None]
    reasons = {(row.item, row.system): row.reason for row in evaluation.results.itertuples()}
    assert reasons[("m1", "B")] == "proposal"  # "I should have read."
    assert reasons[("m2", "A")] == reasons[("m2", "B")] == "proposal"
    assert reasons[("m1", "C")] == "verdict"  # by hand
    assert reasons[("m1", "A")] == "positive-regex"
    # The same output decided by hand as well: a person decided it.
    record_many(path, "de-en", [("m2", make_verdict("You should have read.", "fail", "cat"))])
    _, evaluation = judge(project)
    assert set(evaluation.results.query("item == 'm2' and system != 'C'").reason) == {"verdict"}


def test_scores_count_who_decided(project):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m3", make_verdict("He should have read.", "fail", "ann", proposal="p-shape")),
    ])
    suite, evaluation = judge(project)
    scores = score(evaluation, suite, "de-en")
    # m1's "I had to read." (C) is still a warning: only m2 and m3 enter, 6 outcomes, all
    # passes and fails: counted from the rows themselves.
    rows = evaluation.results.query("item in ['m2', 'm3']")
    expected = {"rule": int(rows.reason.isin(["positive-regex"]).sum()),
                "hand": int((rows.reason == "verdict").sum()),
                "proposal": int((rows.reason == "proposal").sum())}
    assert expected == {"rule": 2, "hand": 0, "proposal": 4}
    fields = scores.signature.fields
    assert {k: int(fields[f"by-{k}"]) for k in expected} == expected
    assert any("2 were decided by the rules, 0 by hand and 4 by proposals" in str(n)
               for n in scores.notes)


def test_revoke_takes_back_a_proposals_verdicts_together(project, tmp_path):
    path = verdicts_file(project)
    other = tmp_path / "elsewhere" / VERDICTS_FILE
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m1", make_verdict("I had to read.", "fail", "bob")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m3", make_verdict("He should have read.", "fail", "ann", proposal="p-other")),
    ])
    record_many(other, "de-en", [("m3", make_verdict("x", "pass", "ann", proposal="p-shape"))])
    before = path.read_text(encoding="utf-8")
    listed = revoke([path, other], "p-shape", dry_run=True)
    assert path.read_text(encoding="utf-8") == before  # a dry run writes nothing
    assert sorted((p.name, item, v.output) for p, item, v in listed) == [
        (VERDICTS_FILE, "m1", "I should have read."),
        (VERDICTS_FILE, "m2", "You should have read."), (VERDICTS_FILE, "m3", "x")]
    taken = revoke([path, other], "p-shape")
    assert len(taken) == 3
    suite, _ = judge(project)
    left = {(item, v.output, v.proposal) for (_, item), rule in suite.rules.items()
            for v in rule.verdicts}
    assert left == {("m1", "I had to read.", None), ("m3", "He should have read.", "p-other")}
    assert "m2" not in path.read_text(encoding="utf-8")  # its entry went with its verdict
    assert revoke([path, other], "p-shape") == []


def test_revoke_is_whole_or_refused(project, tmp_path):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape"))])
    broken = tmp_path / "broken" / VERDICTS_FILE
    broken.parent.mkdir()
    broken.write_text("just: text\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(TestsuiteError, match="not a verdicts file"):
        revoke([path, broken], "p-shape")
    assert path.read_text(encoding="utf-8") == before


def test_revoke_that_cannot_write_every_file_changes_none(project, tmp_path, monkeypatch):
    import errno
    import os

    path = verdicts_file(project)
    other = tmp_path / "elsewhere" / VERDICTS_FILE
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape"))])
    record_many(other, "de-en", [("m3", make_verdict("x", "pass", "ann", proposal="p-shape"))])
    before = {p: p.read_bytes() for p in (path, other)}
    synced = []

    def full_on_the_second(fd: int) -> None:  # the disk fills while the second is written
        synced.append(fd)
        if len(synced) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_on_the_second)
    with pytest.raises(TestsuiteError, match="the disk is full"):
        revoke([path, other], "p-shape")
    assert {p: p.read_bytes() for p in (path, other)} == before  # both verdicts still there
    assert sorted(p.name for p in path.parent.iterdir()) == [".testsuite", "verbs.yaml",
                                                              VERDICTS_FILE]  # nothing aside


def test_revoke_command(project):
    import json

    from typer.testing import CliRunner

    from testsuite.cli import app

    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape"))])
    suite = str(project / "suites"), str(project / "rules")
    args = ["revoke", "p-shape", "--suite", suite[0], "--suite", suite[1]]
    runner = CliRunner()
    listed = runner.invoke(app, [*args, "--dry-run"])
    assert listed.exit_code == 0, listed.output
    lines = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(d["item"], d["output"]) for d in lines] == [
        ("m1", "I should have read."), ("m2", "You should have read.")]
    assert "would take back 2 verdicts recorded from p-shape" in listed.stderr
    done = runner.invoke(app, args)
    assert done.exit_code == 0 and "took back 2 verdicts" in done.stderr
    again = runner.invoke(app, args)
    assert again.exit_code == 1 and "no verdict was recorded from proposal 'p-shape'" in \
        again.stderr


def test_revoke_lists_controls_and_bidi_overrides_as_escapes(project):
    """An output is data: its ESC and U+202E reach the terminal as JSON escapes, as in every
    other JSON line a command prints, and parse back as written."""
    import json

    from typer.testing import CliRunner

    from testsuite.cli import app

    hostile = "I should \x1b[31mhave\u202e read."
    record_many(verdicts_file(project), "de-en", [
        ("m1", make_verdict(hostile, "fail", "ann", proposal="p-x"))])
    listed = CliRunner().invoke(app, ["revoke", "p-x", "--dry-run", "--suite",
                                      str(project / "suites"), "--suite", str(project / "rules")])
    assert listed.exit_code == 0, listed.output
    assert "\x1b" not in listed.stdout and "\u202e" not in listed.stdout
    assert "\\u001b" in listed.stdout and "\\u202e" in listed.stdout
    assert json.loads(listed.stdout)["output"] == hostile


# --- learning --------------------------------------------------------------------------------

import difflib  # noqa: E402
from dataclasses import replace  # noqa: E402

from testsuite.verdicts.proposals import Decided, Phenomenon, Settings, tokens  # noqa: E402

#: The modal future I: "will have to" is right for "müssen" and wrong for "sollen".
FUTURE = {"i1": "Ich werde lesen müssen.", "i2": "Du wirst schlafen müssen.",
          "i3": "Ich werde lesen sollen.", "i4": "Er wird gehen sollen.",
          "i5": "Er wird gehen müssen.", "i6": "Wir werden warten sollen.",
          "i7": "Sie wird essen müssen.", "i8": "Du wirst schlafen sollen."}
SUBJECT = {"ich": "I", "du": "You", "er": "He", "wir": "We", "sie": "She"}
VERB = {"lesen": "read", "schlafen": "sleep", "gehen": "go", "warten": "wait", "essen": "eat"}


def future_outputs() -> dict[str, list[str]]:
    """Every item's outputs: "will have to", "'ll have to", "will be supposed to", "will"."""
    found = {}
    for item, source in FUTURE.items():
        words = source.rstrip(".").split()
        s, v = SUBJECT[words[0].lower()], VERB[words[2]]
        found[item] = [f"{s} will have to {v}.", f"{s}'ll have to {v}.",
                       f"{s} will be supposed to {v}.", f"{s} will {v}."]
    return found


def truth(item: str, output: str) -> str:
    """The verdict a linguist gives: the modal translated as the source has it."""
    must = FUTURE[item].endswith("müssen.")
    ok = ("have to" in output) if must else ("supposed to" in output)
    return "pass" if ok else "fail"


#: Settings under which a handful of decisions carry a proposal (the defaults need many).
EAGER = Settings(support=2, min_precision=0.9, prior=0.95, prior_weight=2)


def learner(settings: Settings = EAGER) -> Phenomenon:
    return Phenomenon("de-en", "Modal - future I", future_outputs(), FUTURE, settings)


def decided(*items: str, outputs: tuple[int, ...] = (0, 1, 2, 3)) -> dict[str, dict[str, str]]:
    every = future_outputs()
    return {i: {every[i][n]: truth(i, every[i][n]) for n in outputs} for i in items}


def pending_of(*items: str) -> dict[str, dict[str, tuple[str, ...]]]:
    return {i: {o: ("A",) for o in future_outputs()[i]} for i in items}


def test_a_template_carries_a_fail_to_items_whose_source_has_the_same_words():
    phenomenon = learner()
    # The items' own words (subject, verb) are the slots; "will", "have", "to" are the
    # phenomenon's.
    assert phenomenon.template("i3", "I will have to read.") == (
        r"^\w+ will have to \w+\.$", ("i", "read"))
    judged = {"i3": {"I will have to read.": "fail"}, "i4": {"He will have to go.": "fail"},
              "i1": {"I will have to read.": "pass"}, "i2": {"You will have to sleep.": "pass"}}
    found = [p for p in phenomenon.learn(judged, pending_of("i5", "i6", "i7", "i8"))
             if p.how == "template"]
    # The fail of i3 and i4 goes to the other items with "sollen", never to "müssen" ones,
    # and the passes of i1 and i2 are carried nowhere (a template never carries a pass).
    assert [(p.verdict, p.pattern, p.source, [(i, d.output) for i, d in p.decides])
            for p in found] == [
        ("fail", r"^\w+ will have to \w+\.$", r"(?i)(?=.*\bsollen\b)",
         [("i6", "We will have to wait."), ("i8", "You will have to sleep.")])]
    assert {(e.item, e.output) for e in found[0].evidence} == {
        ("i3", "I will have to read."), ("i4", "He will have to go.")}
    assert all(truth(i, d.output) == d.outcome for i, d in found[0].decides)


def test_a_template_of_mostly_slots_is_never_carried():
    """Little of the construction written out: "^\\w+ \\w+\\.$" or "^\\w+ will \\w+\\.$"
    leave more open than they say, so their fails are carried nowhere."""
    phenomenon = learner()
    for shape in ("{s} {v}.", "{s} will {v}."):
        judged = {i: {shape.format(s=s, v=v): "fail"} for i, s, v in (
            ("i3", "I", "read"), ("i4", "He", "go"), ("i6", "We", "wait"))}
        pending = {"i8": {shape.format(s="You", v="sleep"): ("A",)},
                   "i6": {shape.format(s="We", v="sleep"): ("B",)}}
        assert phenomenon.learn(judged, pending) == []


def test_a_template_decided_both_ways_in_one_frame_is_not_carried():
    judged = {"i3": {"I will have to read.": "fail"}, "i4": {"He will have to go.": "fail"},
              # a (wrong) pass in another item with "sollen": the fails' frame has a pass
              "i6": {"We will have to wait.": "pass"}}
    assert not [p for p in learner().learn(judged, pending_of("i8")) if p.how == "template"]


def test_a_variant_is_carried_where_its_change_kept_the_verdict():
    phenomenon = learner()
    assert phenomenon.changes("I will have to read.", "I'll have to read.") == (
        frozenset({"will", "'ll"}),)
    # In i1 and i2 "will" ↔ "'ll" kept the pass; in i5 and i7 "… will have to …" is decided.
    judged = {**decided("i1", "i2", outputs=(0, 1)), "i5": {"He will have to go.": "pass"},
              "i7": {"She will have to eat.": "pass"}}
    found = [p for p in phenomenon.learn(judged, pending_of("i5", "i7")) if p.how == "variant"]
    assert [(p.verdict, p.pattern, p.source, [(i, d.output) for i, d in p.decides])
            for p in found] == [("pass", "“'ll” ↔ “will”", r"(?i)(?=.*\bmüssen\b)",
                                 [("i5", "He'll have to go."), ("i7", "She'll have to eat.")])]
    assert all(truth(i, d.output) == d.outcome for i, d in found[0].decides)
    # Where the change went with another verdict in an item with the frame's words (here a
    # made-up one in i7), it is carried nowhere.
    judged["i7"] = {"She will have to eat.": "pass", "She'll have to eat.": "fail"}
    assert not [p for p in phenomenon.learn(judged, pending_of("i5", "i7"))
                if p.how == "variant"]


#: A paradigm of the modal present: each item differs from its siblings by one change of
#: the source (the subject with its verb's ending, or the verb).
MODAL = {f"{s}-{v}": f"{said} {v}." for s, said in (
    ("ich", "Ich muss"), ("du", "Du musst"), ("er", "Er muss"), ("wir", "Wir müssen"))
    for v in ("lesen", "schlafen")}


def modal_outputs(item: str) -> list[str]:
    """"must" (right) and "may" (wrong) with the item's subject and verb."""
    subject, verb = item.split("-")
    said = {"ich": "I", "du": "You", "er": "He", "wir": "We"}[subject]
    done = {"lesen": "read", "schlafen": "sleep"}[verb]
    return [f"{said} must {done}.", f"{said} may {done}."]


def test_a_siblings_verdict_is_carried_where_the_change_kept_it_and_never_changed_it():
    phenomenon = Phenomenon("de-en", "Modal - present", {i: modal_outputs(i) for i in MODAL},
                            MODAL, replace(EAGER, sibling_changes=1))
    # Siblings: sources that differ by one change.
    assert phenomenon.siblings["er-lesen"] == {
        "ich-lesen": (("er", "ich"),), "er-schlafen": (("lesen", "schlafen"),),
        "du-lesen": (("er muss", "du musst"),), "wir-lesen": (("er muss", "wir müssen"),)}
    judged = {i: {o: "pass" if " must " in o else "fail" for o in modal_outputs(i)}
              for i in MODAL if i not in ("er-schlafen", "wir-schlafen")}
    pending = {"er-schlafen": {"He must sleep.": ("A", "B"), "He may sleep.": ("C",)},
               "wir-schlafen": {"We must sleep.": ("A",)}}
    found = [p for p in phenomenon.learn(judged, pending) if p.how == "sibling"]
    # "lesen" → "schlafen" in the source with "read" → "sleep" in the output kept the pass of
    # "must" for "ich" and "du" and changed no verdict: the passes of "He must read." and
    # "We must read." go to their siblings' "must sleep".
    [carried] = [p for p in found if p.verdict == "pass"]
    assert carried.pattern == "source “lesen” ↔ “schlafen”; output “read” ↔ “sleep”"
    assert [(i, d.output) for i, d in carried.decides] == [
        ("er-schlafen", "He must sleep."), ("wir-schlafen", "We must sleep.")]
    assert {(e.item, e.output) for e in carried.evidence} == {
        ("er-lesen", "He must read."), ("wir-lesen", "We must read."),
        ("ich-lesen", "I must read."), ("ich-schlafen", "I must sleep."),
        ("du-lesen", "You must read."), ("du-schlafen", "You must sleep.")}
    assert carried.why.startswith("each is a sibling item's decided pass with “read” ↔ "
                                  "“sleep”, where the two sources differ by “lesen” ↔ "
                                  "“schlafen”: in 2 other pairs of sibling items")
    assert carried.precision is not None and carried.precision >= EAGER.min_precision
    # Off by default (`Settings.sibling_changes`): nothing is proposed from siblings.
    assert not [p for p in Phenomenon("de-en", "Modal - present", {
        i: modal_outputs(i) for i in MODAL}, MODAL, EAGER).learn(judged, pending)
        if p.how == "sibling"]
    # One counterexample — a pair of siblings whose verdicts that change did change ("You
    # must sleep." judged wrong where "You must read." was right) — and the pass is carried
    # nowhere, though the "ich" pair still kept it.
    judged["du-schlafen"]["You must sleep."] = "fail"
    found = [p for p in phenomenon.learn(judged, pending) if p.how == "sibling"]
    assert not [p for p in found if p.verdict == "pass"]
    assert ("er-schlafen", "He must sleep.") not in [
        (i, d.output) for p in phenomenon.learn(judged, pending) for i, d in p.decides]


def test_estimated_precision_is_the_held_out_record_with_a_prior():
    """The estimate, worked out by hand: every decided output of a held-out item is asked of
    the other items' decisions; (right + w·p) / (checked + w)."""
    phenomenon = learner(Settings(support=2, min_precision=0.0, prior=0.9, prior_weight=10))
    judged = decided("i3", "i4", "i6", outputs=(0,))  # three "sollen" items: all fail
    # Held out one at a time, each is predicted fail by the other two: 3 right of 3.
    assert phenomenon.record(judged)[("template", "fail")] == (3, 3)
    assert phenomenon.estimate(3, 3) == pytest.approx((3 + 10 * 0.9) / (3 + 10))
    # With two items, one held out leaves one: nothing predicted, the estimate is the prior.
    [found] = [p for p in phenomenon.learn(decided("i3", "i4", outputs=(0,)),
                                           pending_of("i6", "i8")) if p.how == "template"]
    assert (found.checked, found.right, found.precision) == (0, 0, pytest.approx(0.9))
    # A fourth "sollen" item that passed the template: held out, it is predicted wrong by
    # the three fails; each fail held out meets a pass in its frame: nothing predicted.
    judged["i8"] = {"You will have to sleep.": "pass"}
    assert phenomenon.record(judged)[("template", "fail")] == (0, 1)


def test_proposals_below_the_estimate_or_of_one_output_are_not_offered():
    judged = decided("i3", "i4", outputs=(0,))
    strict = learner(Settings(support=2, min_precision=0.99, prior=0.97, prior_weight=20))
    assert strict.learn(judged, pending_of("i6", "i8")) == []  # nothing held out yet: 0.97
    eager = learner()
    [found] = eager.learn(judged, pending_of("i6", "i8"))
    assert len(found.decides) == 2
    assert eager.learn(judged, pending_of("i6")) == []  # one output: no faster by proposal
    assert eager.learn(judged, pending_of("i6", "i8"), rejected={found.id}) == []


def test_the_id_is_stable_and_names_what_the_proposal_is():
    judged = decided("i3", "i4", outputs=(0,))
    first = learner().learn(judged, pending_of("i6", "i8"))[0]
    again = learner().learn({**judged, "i1": {"I will read.": "fail"}},
                            pending_of("i6", "i8"))[0]
    assert first.id == again.id and first.id.startswith("p-") and len(first.id) == 12
    assert first.within("i6").id != first.id  # another scope, another proposal


def test_preview_rows_group_one_construction_and_put_the_least_like_the_evidence_first():
    phenomenon = learner()
    judged = {"i3": {"I will have to read.": "fail"}, "i4": {"He will have to go.": "fail"}}
    [proposal] = phenomenon.learn(judged, pending_of("i6", "i8"))
    assert sorted((i, d.output) for i, d in proposal.decides) == [
        ("i6", "We will have to wait."), ("i8", "You will have to sleep.")]
    rows = phenomenon.rows(proposal)
    # One construction: one row, shown by the output least like the evidence.
    assert len(rows) == 1 and rows[0].items == 2 and len(rows[0].outputs) == 2
    likeness = {o: max(difflib.SequenceMatcher(a=tokens(o), b=tokens(e.output)).ratio()
                       for e in proposal.evidence) for o in ("We will have to wait.",
                                                             "You will have to sleep.")}
    assert rows[0].shown == min(likeness, key=lambda o: (likeness[o], o))
    # Rows of several constructions: the least like the evidence first.
    batch = replace(proposal, decides=(*proposal.decides, ("i6", Decided(
        "We will have to wait, they say.", ("A",), "fail"))))
    rows = phenomenon.rows(batch)
    assert [r.shown for r in rows][0] == "We will have to wait, they say." and len(rows) == 2
    assert rows[0].likeness <= rows[1].likeness


# --- from the command line -------------------------------------------------------------------


@pytest.fixture()
def paradigm(tmp_path: Path) -> Path:
    """A paradigm large enough for the default settings to carry a proposal: the items with
    rules judge A right ("hatte … müssen") and B wrong (the preterite, "musste"); the last
    eight items have no rule, so their outputs are pending."""
    from testsuite.verdicts.proposals import DEFAULT

    ruled = next(n for n in range(1, 500) if (n + DEFAULT.prior_weight * DEFAULT.prior)
                 / (n + DEFAULT.prior_weight) >= DEFAULT.min_precision) + 2
    count = ruled + 8
    words = [f"{a}{b}" for a in "bdfgklmnprstwz" for b in ("alen", "ohren", "iften", "usen",
                                                          "eben", "anken")]
    items = [{"id": f"p{n:03d}", "phenomenon": "Modal pluperfect",
              "source": f"I had had to do {words[n]}."} for n in range(count)]
    rules = [{"item": f"p{n:03d}", "positive_regex": "hatte .*müssen",
              "negative_regex": "musste"} for n in range(ruled)]
    for name, data in {"suites/en-de/verbs.yaml": {"pair": "en-de", "category": "Verbs",
                                                   "items": items},
                       "rules/en-de/verbs.yaml": {"pair": "en-de", "rules": rules}}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    (tmp_path / "outputs").mkdir()
    for system, text in (("A", "Ich hatte {} müssen."), ("B", "Ich musste {}.")):
        (tmp_path / "outputs" / f"{system}.tsv").write_text(
            "".join(f"p{n:03d}\t{text.format(words[n])}\n" for n in range(count)),
            encoding="utf-8")
    return tmp_path


def test_suggest_lists_proposals_and_records_one_by_its_id(paradigm: Path) -> None:
    import json

    from typer.testing import CliRunner

    from testsuite.cli import app

    runner = CliRunner()
    base = [str(paradigm / "outputs"), "--suite", str(paradigm / "suites"), "--suite",
            str(paradigm / "rules")]
    listed = runner.invoke(app, ["suggest", *base])
    assert listed.exit_code == 0, listed.output
    [found] = [json.loads(line) for line in listed.stdout.splitlines()]
    # What it decides, why, what it was learned from, its estimate, its id.
    assert (found["verdict"], found["how"], found["pattern"]) == (
        "fail", "template", r"^Ich musste \w+\.$")
    assert len(found["decides"]) == 8 and all(d["output"].startswith("Ich musste ")
                                             for d in found["decides"])
    ruled = len(found["evidence"])
    assert found["held_out"] == {"checked": ruled, "right": ruled}
    assert found["precision"] >= 0.99 and found["id"].startswith("p-")
    assert "1 proposal (--accept ID records one)" in listed.stderr
    # Kept to one item: the same proposal on that item, under its own id.
    one = runner.invoke(app, ["suggest", *base, "--item", found["decides"][0]["item"]])
    [within] = [json.loads(line) for line in one.stdout.splitlines()]
    assert within["scope"] == f"item {found['decides'][0]['item']}" and \
        within["id"] != found["id"] and len(within["decides"]) == 1
    # An id not listed now records nothing.
    wrong = runner.invoke(app, ["suggest", *base, "--accept", "p-0000000000"])
    assert wrong.exit_code == 1 and "nothing was recorded" in wrong.stderr
    assert not (paradigm / "rules" / "en-de" / VERDICTS_FILE).exists()
    # The id as listed records its verdicts, each saying so; revoke takes them back.
    done = runner.invoke(app, ["suggest", *base, "--accept", found["id"], "--annotator", "ann"])
    assert done.exit_code == 0 and "1 proposal recorded" in done.stderr
    stored = yaml.safe_load((paradigm / "rules" / "en-de" / VERDICTS_FILE).read_text(
        encoding="utf-8"))
    recorded = [v for r in stored["rules"] for v in r["verdicts"]]
    assert len(recorded) == 8 and {(v["proposal"], v["verdict"], v["annotator"])
                                   for v in recorded} == {(found["id"], "fail", "ann")}
    gone = runner.invoke(app, ["revoke", found["id"], "--suite", str(paradigm / "suites"),
                               "--suite", str(paradigm / "rules")])
    assert gone.exit_code == 0 and "took back 8 verdicts" in gone.stderr
