"""Reading system outputs as users have them, including the broken files they have."""

from __future__ import annotations

from pathlib import Path

import pytest

from testsuite.errors import TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.model import Item, Rule, Suite
from testsuite.outputs import SystemOutputs, read_aligned, read_lines, read_tsv, system_name
from testsuite.outputs.checks import identical_systems, not_translated

SOURCES = [
    ("gap-1", "Lena bestellte eine Suppe und ihr Bruder einen Salat."),
    ("sluice-1", "Jemand hat angerufen, aber ich weiß nicht, wer."),
    ("idiom-1", "Er hat mir einen Bären aufgebunden."),
]


@pytest.fixture()
def suite() -> Suite:
    suite = Suite()
    for item_id, source in SOURCES:
        suite.items[("de-en", item_id)] = Item(item_id, "de-en", "Cat", "Phen", source)
    suite.rules[("de-en", "gap-1")] = Rule("gap-1", positive_regex="brother (ordered )?a salad",
                                           negative_regex=r"brother\.")
    suite.rules[("de-en", "sluice-1")] = Rule("sluice-1", positive_regex=r"\bwho\b")
    suite.rules[("de-en", "idiom-1")] = Rule("idiom-1", positive_regex="pull(ed|ing) my leg",
                                             negative_regex="bear")
    return suite


GOOD = ["Lena ordered a soup and her brother a salad.", "Someone called, but I don't know who.",
        "He was pulling my leg."]


def test_crlf_bom_and_final_newline(tmp_path):
    path = tmp_path / "sys.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(GOOD).encode() + b"\r\n")
    assert read_lines(path) == GOOD


def test_unicode_line_separators_inside_an_output_do_not_split_it(tmp_path):
    path = tmp_path / "sys.txt"
    path.write_text("one\u2028still one\nsecond\x85line\nthird\n", encoding="utf-8")
    assert read_lines(path) == ["one\u2028still one", "second\x85line", "third"]


def test_invalid_utf8_names_file_line_and_fix(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("fine\nHe was pulling my leg, naïve.\n".encode("latin-1"))
    with pytest.raises(TestsuiteError) as caught:
        read_lines(path)
    problem = caught.value.problems[0]
    assert (problem.file, problem.line) == (str(path), 2)
    assert "not valid UTF-8 (byte 0xef at column 26)" in problem.message
    assert "--encoding" in problem.message
    assert read_lines(path, "latin-1")[1].endswith("naïve.")


def test_aligned_text_with_wrong_line_count(tmp_path):
    path = tmp_path / "sys.txt"
    path.write_text("\n".join(GOOD[:2]) + "\n", encoding="utf-8")
    with pytest.raises(TestsuiteError, match=r"has 2 lines but the de-en sources have 3"):
        read_aligned(path, [i for i, _ in SOURCES], "de-en")


def test_aligned_text_keeps_empty_lines_as_missing(tmp_path, suite):
    path = tmp_path / "my-system.txt"
    path.write_text(f"{GOOD[0]}\n\n{GOOD[2]}\n", encoding="utf-8")
    systems, _ = load_outputs(suite, [path])
    evaluation = evaluate(suite, systems)
    assert evaluation.results["system"].unique().tolist() == ["my-system"]
    assert evaluation.results["outcome"].tolist() == ["pass", "missing", "pass"]


@pytest.mark.parametrize(("name", "system"), [
    ("newstest2021.de-en.hyp.Online-A.en", "Online-A"),
    ("generaltest2022.en-de.hyp.JDExploreAcademy.de", "JDExploreAcademy"),
    ("newstest2021.en-de.hyp.nuclear_trans.de", "nuclear_trans"),
    ("newstest2021.de-en.hyp.VolcTrans-GLAT.en", "VolcTrans-GLAT"),
    ("my-system.txt", "my-system"),
])
def test_system_names_from_file_names(name, system):
    assert system_name(Path(name)) == system


def wmt_folder(tmp_path: Path, systems: dict[str, list[str]]) -> Path:
    """A small txt-ts folder: the suite's sources shuffled among news lines."""
    root = tmp_path / "txt-ts"
    (root / "sources").mkdir(parents=True)
    (root / "system-outputs").mkdir()
    source = ["Die Börse schloss gestern fester.", "  " + SOURCES[1][1] + " ",
              "Der Regen hörte nicht auf.", SOURCES[0][1].replace(" ", "\u00a0", 1),
              "Ein Satz, der nicht zur Suite gehört."]
    (root / "sources" / "newstest2030.de-en.src.de").write_text("\n".join(source) + "\n")
    for name, lines in systems.items():
        path = root / "system-outputs" / f"newstest2030.de-en.hyp.{name}.en"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_wmt_items_located_by_normalised_source(tmp_path, suite):
    lines = ["Stocks closed higher.", GOOD[1], "The rain did not stop.", GOOD[0], "Other."]
    root = wmt_folder(tmp_path, {"Good": lines, "Copy": lines})
    systems, located = load_outputs(suite, [root])
    loc = located["de-en"]
    # whitespace around the sluicing source and a no-break space in the gapping one
    assert loc.lines == {"gap-1": 3, "sluice-1": 1}
    assert loc.not_found == ["idiom-1"]
    evaluation = evaluate(suite, systems, located=located)
    assert evaluation.identical == [("Copy", "Good")]
    assert set(evaluation.results["outcome"]) == {"pass"}


def test_wmt_hypothesis_with_wrong_line_count(tmp_path, suite):
    root = wmt_folder(tmp_path, {"Short": ["one", "two"]})
    with pytest.raises(TestsuiteError) as caught:
        load_outputs(suite, [root])
    problem = caught.value.problems[0]
    assert problem.file.endswith("newstest2030.de-en.hyp.Short.en")
    assert "has 2 lines but the source newstest2030.de-en.src.de has 5" in problem.message


def test_wmt_lines_are_decoded_as_every_file_is(tmp_path, suite):
    """The lines taken from a WMT hypothesis file get the messages of `read_lines`: a lone
    surrogate from UTF-7 is refused at its line (it used to reach the JSON writer and end in
    a traceback), and a bad byte after a byte-order mark is named at the column an editor
    shows."""
    lines = ["Stocks closed higher.", GOOD[1], "The rain did not stop.", GOOD[0], "Other."]
    root = wmt_folder(tmp_path, {"Seven": lines})
    source = root / "sources" / "newstest2030.de-en.src.de"
    source.write_bytes(source.read_text(encoding="utf-8").encode("utf-7"))
    hyp = root / "system-outputs" / "newstest2030.de-en.hyp.Seven.en"
    encoded = [line.encode("utf-7") for line in lines]
    encoded[3] += b" +2AA-"  # U+D800 alone
    hyp.write_bytes(b"\n".join(encoded) + b"\n")
    with pytest.raises(TestsuiteError, match=r"hyp.Seven.en:4: holds a lone surrogate "
                       r"\(U\+D800\)"):
        load_outputs(suite, [root], encoding="utf-7")
    source.write_bytes(source.read_text(encoding="utf-7").encode("utf-8"))
    hyp.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    hyp.write_bytes(hyp.read_bytes().replace(GOOD[1].encode(), b"ab\xffc"))
    with pytest.raises(TestsuiteError, match=r"hyp.Seven.en:2: line 2 is not valid UTF-8 "
                       r"\(byte 0xff at column 3\)"):
        load_outputs(suite, [root])


@pytest.mark.parametrize("placeholder", ["####", "NO TRANSLATION AVAILABLE", ""])
def test_system_that_did_not_translate_is_left_out(tmp_path, suite, placeholder):
    lines = [placeholder] * 5
    good = ["Stocks closed higher.", GOOD[1], "The rain did not stop.", GOOD[0], "Other."]
    root = wmt_folder(tmp_path, {"Lazy": lines, "Good": good})
    systems, located = load_outputs(suite, [root])
    evaluation = evaluate(suite, systems, located=located)
    assert [e.system for e in evaluation.excluded] == ["Lazy"]
    assert evaluation.systems == ["Good"]
    assert "Lazy" not in set(evaluation.results["system"])
    assert str(evaluation.excluded[0]).startswith("Lazy: 2 of 2 outputs are")


def test_a_few_repeated_outputs_do_not_make_a_system_non_translating():
    outputs = {f"i{n}": "You should know." for n in range(10)}
    outputs.update({f"j{n}": f"Sentence {n}." for n in range(40)})
    assert not_translated(SystemOutputs("Real", "de-en", outputs)) is None
    outputs.update({f"k{n}": "####" for n in range(60)})
    assert not_translated(SystemOutputs("Half", "de-en", outputs)).placeholder == "####"


def test_identical_systems_ignore_surrounding_white_space():
    a = SystemOutputs("A", "de-en", {"1": "x", "2": "y"})
    b = SystemOutputs("B", "de-en", {"1": "x ", "2": "y"})
    c = SystemOutputs("C", "de-en", {"1": "x", "2": "z"})
    assert identical_systems([a, b, c]) == [("A", "B")]


def test_tsv_reports_unknown_items_and_bad_lines_with_line_numbers(tmp_path):
    path = tmp_path / "outputs.tsv"
    path.write_text("Sys\tgap-1\tfine\nSys\tnope\tx\njust one field\nSys\tgap-1\tagain\n")
    with pytest.raises(TestsuiteError) as caught:
        read_tsv(path, "de-en", known={"gap-1"})
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (2, "unknown de-en item 'nope'"),
        (3, "expected 2 or 3 tab-separated fields, found 1"),
        (4, "second output of Sys for this item"),
    ]


def test_two_files_with_the_same_system_name(tmp_path, suite):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "sys.txt").write_text("\n".join(GOOD) + "\n")
    with pytest.raises(TestsuiteError, match="two sets of de-en outputs are named 'sys'"):
        load_outputs(suite, [tmp_path / "a", tmp_path / "b"])


def test_outputs_of_a_pair_the_suite_lacks(tmp_path, suite):
    path = tmp_path / "newstest2021.en-de.hyp.X.de"
    path.write_text("a\n")
    with pytest.raises(TestsuiteError, match="the outputs are en-de but the suite has no en-de"):
        load_outputs(suite, [path])


def test_keyed_outputs_of_a_system_may_span_several_files(tmp_path, suite):
    (tmp_path / "ce.tsv").write_text(f"A\tgap-1\t{GOOD[0]}\nB\tgap-1\tHer brother.\n")
    (tmp_path / "mwe.tsv").write_text(f"A\tidiom-1\t{GOOD[2]}\nA\tsluice-1\t{GOOD[1]}\n")
    systems, _ = load_outputs(suite, [tmp_path], pair="de-en")
    assert {s.system: sorted(s.outputs) for s in systems} == {
        "A": ["gap-1", "idiom-1", "sluice-1"], "B": ["gap-1"]}
    (tmp_path / "again.tsv").write_text("A\tgap-1\tagain\n")
    with pytest.raises(TestsuiteError, match="A has a second output for 1 items already in"):
        load_outputs(suite, [tmp_path], pair="de-en")
