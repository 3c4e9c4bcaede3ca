"""Typographic equivalence: the profiles, matching under them, verdicts, lint, signatures."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.errors import TestsuiteError
from testsuite.loader import lint
from testsuite.matching import judge
from testsuite.model import Rule, Verdict
from testsuite.normalise import PROFILES, profile

TYPOGRAPHIC = PROFILES["typographic"]


@pytest.mark.parametrize(("raw", "expected"), [
    ("It doesn’t matter.", "It doesn't matter."),
    ("„Komm“, sagte sie.", '"Komm", sagte sie.'),
    ("‚so‘ and “so” and «so» and ‹so›", "'so' and \"so\" and \"so\" and 'so'"),
    ("1990–1995 — a dash − a minus", "1990-1995 - a dash - a minus"),
    ("10\u00a0km and 5\u202f%", "10 km and 5 %"),
    ("two  spaces\tand a tab", "two spaces and a tab"),
    ("soft\u00adhyphen and zero\u200bwidth", "softhyphen and zerowidth"),
    ("wait…", "wait..."),
    ("Cafe\u0301", "Café"),  # decomposed é composed (NFC)
    ("plain ASCII stays", "plain ASCII stays"),
])
def test_typographic_profile(raw: str, expected: str) -> None:
    assert TYPOGRAPHIC.apply(raw) == expected


def test_nfkc_folds_compatibility_characters_too() -> None:
    assert PROFILES["nfkc"].apply("ﬁne ＡＢＣ x²") == "fine ABC x2"
    assert TYPOGRAPHIC.apply("ﬁne") == "ﬁne"


@pytest.mark.parametrize("raw", ["It doesn’t  matter…", "„Komm“\u00a0–\u00a0jetzt", "Cafe\u0301"])
def test_offsets_point_back_into_the_raw_text(raw: str) -> None:
    normalised, origin = TYPOGRAPHIC.with_offsets(raw)
    assert normalised == TYPOGRAPHIC.apply(raw)
    assert len(origin) == len(normalised) + 1 and origin[-1] == len(raw)
    start = normalised.find("t")
    if start >= 0:
        assert raw[origin[start]] == "t"


def test_unknown_profile_is_refused() -> None:
    assert profile(None) is None and profile("none") is None
    with pytest.raises(TestsuiteError, match="unknown normalisation 'fancy' .*typographic"):
        profile("fancy")


RULE = Rule("1", positive_regex=r"doesn't", negative_regex=r"does not")


def test_matching_under_the_profile_and_not_by_default() -> None:
    output = "It doesn’t matter."
    assert judge(RULE, output).outcome == "warning"  # the published method: no match
    assert judge(RULE, output, normalise=TYPOGRAPHIC).outcome == "pass"
    assert judge(RULE, "   ", normalise=TYPOGRAPHIC).outcome == "missing"


def test_a_verdict_applies_to_outputs_equal_under_the_profile() -> None:
    rule = Rule("1", positive_regex="never", verdicts=(Verdict("„Ja“ – sagte er.", "pass"),))
    assert judge(rule, '"Ja" - sagte er.', normalise=TYPOGRAPHIC).reason == "verdict"
    assert judge(rule, '"Ja" - sagte er.').outcome == "warning"  # exact output only


def test_lint_flags_rule_parts_the_profile_makes_unmatchable(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(dedent("""\
        pair: en-de
        category: Punctuation
        items:
          - {id: "1", phenomenon: Quotation marks, source: 'He said "yes".'}
        """), encoding="utf-8")
    (tmp_path / "rules.yaml").write_text(dedent("""\
        pair: en-de
        rules:
          - item: "1"
            positive_regex: „ja“
            negative_tokens: ['"ja"']
        """), encoding="utf-8")
    assert not [p for p in lint([tmp_path]).problems if "folds away" in p.message]
    folded = [p for p in lint([tmp_path], TYPOGRAPHIC).problems if "folds away" in p.message]
    assert len(folded) == 1
    assert folded[0].item == "1" and folded[0].file == str(tmp_path / "rules.yaml")
    assert "positive_regex contains '„' (U+201E), '“' (U+201C)" in folded[0].message


def test_normalisation_is_signed_and_said_on_real_data(data: Path, dfki_dir: Path) -> None:
    runner = CliRunner()
    base = ["score", str(data / "wmt22" / "txt-ts"), "--pair", "de-en", "--suite",
            str(dfki_dir), "-q", "--table", "categories", "--format", "json"]
    import json

    plain = json.loads(runner.invoke(app, base).output)
    folded = json.loads(runner.invoke(app, [*base, "--normalise", "typographic"]).output)
    assert "norm" not in plain["options"]  # the published numbers keep their signature
    assert folded["options"]["norm"] == "typographic"
    assert any("typographic normalisation" in n["text"] for n in folded["notes"])
    # Fewer warnings, more items in the scores.
    assert sum(folded["coverage"]["warnings"].values()) < sum(
        plain["coverage"]["warnings"].values())
    assert folded["coverage"]["entered"] > plain["coverage"]["entered"]
