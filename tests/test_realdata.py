"""The engine on what users run it on: the DFKI public suite and all WMT21/22 de↔en systems.

Expected outcomes below were written by reading each item's rule in
`dfki-mt-testsuite/<pair>/items.json` and the system's output line, and applying SPEC.md by
hand (which regex or token matches); they were not produced by running the engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testsuite.evaluate import Evaluation, evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite

CAMPAIGNS = {"wmt21": "newstest2021", "wmt22": "generaltest2022"}

# Systems per campaign and pair, from the file names in txt-ts/system-outputs.
SYSTEMS = {
    ("wmt21", "de-en"): 19,
    ("wmt21", "en-de"): 20,
    ("wmt22", "de-en"): 9,
    ("wmt22", "en-de"): 9,
}
# Items whose source sentence is in that year's source file (white space and Unicode
# normalised). Cross-checked with a separate throw-away script; an exact-string search finds
# fewer (2664, 2043, 2681, 2084) because of trailing spaces and embedded newlines.
LOCATED = {
    ("wmt21", "de-en"): (2748, 19),
    ("wmt21", "en-de"): (2165, 159),
    ("wmt22", "de-en"): (2767, 0),
    ("wmt22", "en-de"): (2212, 112),
}
# Systems whose test-suite lines are all placeholders (see data/README.md).
NOT_TRANSLATED = {
    ("wmt21", "de-en"): {"UF": "####"},
    ("wmt21", "en-de"): {"UF": "####", "WeChat-AI": "NO TRANSLATION AVAILABLE"},
    ("wmt22", "de-en"): {},
    ("wmt22", "en-de"): {},
}


@pytest.fixture(scope="module")
def evaluations(data: Path, dfki_dir: Path) -> dict[tuple[str, str], Evaluation]:
    suite = load_suite([dfki_dir])
    result = {}
    for campaign in CAMPAIGNS:
        for pair in ("de-en", "en-de"):
            systems, located = load_outputs(suite, [data / campaign / "txt-ts"], pair=pair)
            result[(campaign, pair)] = evaluate(suite, systems, located=located)
    return result


@pytest.mark.parametrize("key", list(SYSTEMS))
def test_every_system_is_read_and_located(evaluations, key):
    evaluation = evaluations[key]
    located = evaluation.located[key[1]]
    assert (len(located.lines), len(located.not_found)) == LOCATED[key]
    excluded = {e.system: e.placeholder for e in evaluation.excluded}
    assert excluded == NOT_TRANSLATED[key]
    assert len(evaluation.systems) + len(excluded) == SYSTEMS[key]
    results = evaluation.results
    # Every translating system has one outcome per located item, none left out.
    counts = results.groupby("system", observed=True).size()
    assert set(counts) == {len(located.lines)}
    assert set(results["system"].unique()).isdisjoint(excluded)


def test_non_translating_systems_are_named_with_their_placeholder(evaluations):
    wechat = next(e for e in evaluations[("wmt21", "en-de")].excluded if e.system == "WeChat-AI")
    assert (wechat.count, wechat.total) == (2165, 2165)
    assert "NO TRANSLATION AVAILABLE" in str(wechat)


def test_identical_outputs_are_reported(evaluations):
    # VolcTrans-AT and VolcTrans-GLAT (WMT21 de-en) differ in their files but give the same
    # output for every suite item; Online-B is close to both but differs on 12 items.
    assert evaluations[("wmt21", "de-en")].identical == [("VolcTrans-AT", "VolcTrans-GLAT")]
    for key in SYSTEMS:
        if key != ("wmt21", "de-en"):
            assert evaluations[key].identical == []


def test_bom_of_promt_files_is_not_part_of_the_first_output(data: Path):
    # The PROMT files of WMT22 start with a UTF-8 BOM.
    from testsuite.outputs import read_lines

    path = data / "wmt22/txt-ts/system-outputs/generaltest2022.de-en.hyp.PROMT.en"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert not read_lines(path)[0].startswith("\ufeff")


# (campaign, pair, system, item, output as read by hand, outcome, reason)
HAND_CHECKED = [
    # de-en
    ("wmt21", "de-en", "Borderline", "00001001", "Then she talks about her husband.", "pass",
     "positive-regex"),
    ("wmt21", "de-en", "Manifold", "00551001", "Are you coming then", "warning", "both-regexes"),
    ("wmt21", "de-en", "NVIDIA-NeMo", "00160010", "Lena came home last week with a blue letter.",
     "fail", "negative-regex"),
    ("wmt21", "de-en", "VolcTrans-AT", "00367005", "You should know.", "fail", "negative-regex"),
    ("wmt21", "de-en", "VolcTrans-AT", "00007002", "The brake flew past her head.", "fail",
     "negative-regex"),
    ("wmt22", "de-en", "PROMT", "00246006", "You should have slept.", "fail", "negative-token"),
    ("wmt22", "de-en", "Lan-Bridge", "00235006", "She should have been sleeping.", "fail",
     "negative-token"),
    ("wmt22", "de-en", "PROMT", "00545008",
     "There was a pen on the floor that I had broken out of anger.", "warning", "no-match"),
    ("wmt22", "de-en", "Online-B", "00037003", "Get on!", "warning", "no-match"),
    ("wmt21", "de-en", "Manifold", "00273004", "You would have liked to think.", "warning",
     "no-match"),
    ("wmt21", "de-en", "P3AI", "00709005", "They don't want to know.", "pass", "positive-regex"),
    ("wmt22", "de-en", "Online-W", "00708005", "You don't want to know.", "pass",
     "positive-regex"),
    ("wmt22", "de-en", "Lan-Bridge", "00710002", "I don't have to say it.", "pass",
     "positive-regex"),
    ("wmt21", "de-en", "P3AI", "00042006", "You would have gifted Lisa a DVD.", "pass",
     "positive-token"),
    ("wmt22", "de-en", "Online-A", "00655001", "What Peter broke was the vase.", "pass",
     "positive-token"),
    # en-de
    ("wmt22", "en-de", "Lan-Bridge", "00680014", "Lisa brachte dieses Thema zweimal auf.",
     "warning", "both-regexes"),
    ("wmt21", "en-de", "Facebook-AI", "00270005",
     "John wird mich auswählen und Bill wird dich auswählen.", "warning", "both-regexes"),
    ("wmt22", "en-de", "OpenNMT", "00713010",
     "Sind Sie schon einmal von einem Elefanten getreten worden?", "warning", "both-tokens"),
    ("wmt22", "en-de", "OpenNMT", "00500006", "Sie würde sich anziehen.", "warning",
     "both-tokens"),
    ("wmt21", "en-de", "nuclear_trans", "00275008",
     "Diese Frau drehte meinen Kopf vollständig um.", "fail", "negative-regex"),
    ("wmt21", "en-de", "VolcTrans-AT", "00001002", "Einige Fledermäuse sind aus Holz gefertigt.",
     "fail", "negative-regex"),
    ("wmt21", "en-de", "UEdin", "00275009", "Er hat meine Bücher gekniffen.", "fail",
     "negative-regex"),
    ("wmt22", "en-de", "OpenNMT", "00634006", "Ich habe Klavier gespielt.", "fail",
     "negative-token"),
    ("wmt21", "en-de", "UEdin", "00011006", "Der Gärtner bewässerte die Tulpen flach.", "fail",
     "negative-token"),
    ("wmt22", "en-de", "Online-A", "00354007", "Sie sind seit 1984 verheiratet.", "warning",
     "no-match"),
    ("wmt22", "en-de", "OpenNMT", "00630004", "Sie haben einen Brief geschrieben.", "warning",
     "no-match"),
    ("wmt22", "en-de", "JDExploreAcademy", "00301001", "Er wäre gerannt.", "warning",
     "no-match"),
    ("wmt21", "en-de", "eTranslation", "00200010", "Mary benutzt den Computer nicht.", "pass",
     "positive-regex"),
    ("wmt21", "en-de", "UEdin", "00200001", "Es ist keine Wette.", "pass", "positive-regex"),
    ("wmt22", "en-de", "OpenNMT", "00393002", "Sie werden es sagen.", "pass", "positive-regex"),
    ("wmt21", "en-de", "BUPT_rush", "00674004", "Ich schreibe einen Brief.", "pass",
     "positive-token"),
    ("wmt21", "en-de", "eTranslation", "00238004", "Du hast John den Ball übergeben.", "pass",
     "positive-token"),
]


@pytest.mark.parametrize(("campaign", "pair", "system", "item", "output", "outcome", "reason"),
                         HAND_CHECKED, ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in HAND_CHECKED])
def test_outcomes_checked_by_hand(evaluations, campaign, pair, system, item, output, outcome,
                                  reason):
    results = evaluations[(campaign, pair)].results
    row = results[(results["system"] == system) & (results["item"] == item)]
    assert len(row) == 1
    assert row["output"].iloc[0] == output
    assert (row["outcome"].iloc[0], row["reason"].iloc[0]) == (outcome, reason)


def test_hand_checked_sample_covers_outcomes_and_directions():
    assert len(HAND_CHECKED) >= 30
    for pair in ("de-en", "en-de"):
        assert {c[5] for c in HAND_CHECKED if c[1] == pair} == {"pass", "fail", "warning"}


def test_regex_module_agrees_with_re_on_every_dfki_rule(evaluations, data):
    """The DFKI rules were written for Python's `re`; `regex` (VERSION0) must agree on them."""
    import json
    import re

    results = pd_concat(evaluations)
    outputs_by_item = results.groupby(["pair", "item"], observed=True)["output"].unique()
    disagreements = []
    for pair in ("de-en", "en-de"):
        items = json.loads((data / "dfki-mt-testsuite" / pair / "items.json").read_text())
        for entry in items["items"]:
            key = (pair, entry["id"])
            if key not in outputs_by_item.index:
                continue
            for field in ("positive_regex", "negative_regex"):
                pattern = entry[field]
                if not pattern:
                    continue
                import regex

                ours, theirs = regex.compile(pattern), re.compile(pattern)
                for output in outputs_by_item[key]:
                    if (ours.search(output) is None) != (theirs.search(output) is None):
                        disagreements.append((key, field, output))
    assert disagreements == []


def pd_concat(evaluations):
    import pandas as pd

    return pd.concat([e.results for e in evaluations.values()], ignore_index=True)
