"""Property-based fuzzing of every reader and of the command line (#11).

Hypothesis throws random bytes, deep nesting, hostile names (paths, escape sequences,
markup, formulas) and random regexes at the readers (suite and rules YAML, outputs in every
form, DFKI JSON, saved runs spoiled or forged, CSV and XLSX sheets) and at the CLI in process
(export, import and agreement among the commands); spreadsheets written from hostile text
must hold no formula and read back exactly (#20). The properties are the README's
promise about bad input:

* the only exception a reader raises is `TestsuiteError` (a message with file, line, item);
* a command exits with 0, 1 or 2, and no exception escapes it (so no traceback);
* nothing is written outside the temporary folder the example works in.

The default run is short (``TESTSUITE_FUZZ_EXAMPLES`` examples per property, 25); set it
higher for a longer hunt, e.g. ``TESTSUITE_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from testsuite import files
from testsuite.cli import app
from testsuite.dfki import read_dfki, write_suite
from testsuite.errors import TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import lint, load_suite
from testsuite.matching import RegexCache
from testsuite.runs import load_run, save_run

EXAMPLES = int(os.environ.get("TESTSUITE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- strategies -----------------------------------------------------------------------------

HOSTILE = ["../../x", "/tmp/testsuite-fuzz-escape", "..", ".", "", " ", "de-en", "deen",
           "DE_EN", "[/]", "[bold]x", ":100:", "\x1b[31mred", "=1+1", "-1", "@x", "a|b",
           "$x^2$", "\\", "%", "<script>", "[x](javascript:y)", "a\nb", "\u202e", "null",
           "00123", "~", "{", "#"]
#: Text that becomes names: categories, phenomena, systems, ids, pairs.
names = st.sampled_from(HOSTILE) | st.text(
    st.characters(exclude_categories=("Cs",)), max_size=12)
scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | names)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(names, inner, max_size=3), max_leaves=10)
regexes = st.text(alphabet="ab()[]{}*+?|\\^$.-,0123456789:<>=!#PpLu ", max_size=16)
#: File names a user could give (one path component, not '.' or '..').
file_names = names.filter(lambda n: n.strip() not in ("", ".", "..") and "/" not in n
                          and "\0" not in n and len(n.encode("utf-8")) < 200)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def suite_text(draw: st.DrawFn) -> bytes:
    """A suite file: structured with random values, random text or bytes, or deep nesting."""
    kind = draw(st.sampled_from(["structured", "structured", "bytes", "text", "nested"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    if kind == "nested":
        depth = draw(st.integers(1, 200))
        return f"pair: de-en\ncategory: C\nitems: {nested(depth)}\n".encode()
    item = st.fixed_dictionaries(
        {"id": names | values, "phenomenon": names | values, "source": names | values},
        optional={"description": values, "notes": values, "extra": values})
    document = draw(st.fixed_dictionaries(
        {"pair": st.sampled_from(["de-en"]) | names | values, "category": names | values,
         "items": st.lists(item, max_size=4) | values},
        optional={"templates": values, "description": values}))
    return yaml.safe_dump(document, allow_unicode=True).encode("utf-8", "surrogatepass")


@st.composite
def rules_text(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(suite_text())
    rule = st.fixed_dictionaries(
        {"item": st.sampled_from(["a", "b"]) | names | values},
        optional={"positive_regex": regexes | values, "negative_regex": regexes | values,
                  "positive_tokens": st.lists(names, max_size=3) | values,
                  "negative_tokens": st.lists(names, max_size=3) | values,
                  "examples": values, "verdicts": values})
    document = {"pair": draw(st.sampled_from(["de-en"]) | names),
                "rules": draw(st.lists(rule, max_size=4) | values)}
    return yaml.safe_dump(document, allow_unicode=True).encode("utf-8", "surrogatepass")


lines = st.lists(names | st.text(max_size=30), max_size=6)
contents = (st.binary(max_size=200)
            | lines.map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")))

# --- the sandbox ----------------------------------------------------------------------------

SUITE = {"pair": "de-en", "category": "C", "items": [
    {"id": "a", "phenomenon": "P", "source": "Eins."},
    {"id": "b", "phenomenon": "Q", "source": "Zwei."}]}
RULES = {"pair": "de-en", "rules": [{"item": "a", "positive_regex": "one"},
                                    {"item": "b", "positive_regex": "two"}]}


@contextlib.contextmanager
def sandbox() -> Iterator[Path]:
    """A work folder inside a private outer folder; afterwards nothing may lie outside it.

    Every write through `files.write_bytes` is also checked to target the work folder.
    The compiled-regex cache is off (it lives in the user's cache folder by design).
    """
    outer = Path(tempfile.mkdtemp(prefix="testsuite-fuzz-"))
    work = outer / "work"
    work.mkdir()
    written: list[Path] = []
    real = files.write_bytes

    def spy(path: Path, *args: Any, **kwargs: Any) -> Path:
        written.append(Path(path))
        return real(path, *args, **kwargs)

    try:
        with mock.patch.dict(os.environ, {"TESTSUITE_CACHE_DIR": ""}), \
                mock.patch.object(files, "write_bytes", spy):
            yield work
        assert [p.name for p in outer.iterdir()] == ["work"], list(outer.iterdir())
        root = work.resolve()
        for path in written:
            target = path.resolve()
            assert target == root or root in target.parents, f"wrote {path} outside {work}"
        assert not Path("/tmp/testsuite-fuzz-escape").exists()
    finally:
        shutil.rmtree(outer, ignore_errors=True)


def project(work: Path, suite: dict[str, Any] | None = None) -> Path:
    folder = work / "suite"
    folder.mkdir(exist_ok=True)
    (folder / "s.yaml").write_text(yaml.safe_dump(suite or SUITE, allow_unicode=True),
                                   encoding="utf-8")
    (folder / "r.yaml").write_text(yaml.safe_dump(RULES), encoding="utf-8")
    return folder


def only_messages(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a reader; a `TestsuiteError` is a fine answer to bad input, nothing else is."""
    try:
        return call(*args, **kwargs)
    except TestsuiteError as exc:
        assert exc.problems and all(str(p) for p in exc.problems)
        return None


# --- the readers ----------------------------------------------------------------------------


@FUZZ
@given(suite=suite_text(), rules=rules_text(), output=contents)
def test_suite_and_rules_files(suite, rules, output):
    with sandbox() as work:
        (work / "s.yaml").write_bytes(suite)
        (work / "r.yaml").write_bytes(rules)
        only_messages(lint, [work])
        loaded = only_messages(load_suite, [work])
        if loaded is None:
            return
        (work / "Sys.txt").write_bytes(output)
        read = only_messages(load_outputs, loaded, [work / "Sys.txt"], pair=loaded.pairs[0])
        if read is not None:
            only_messages(evaluate, loaded, read[0], timeout=0.05, regex_cache=RegexCache())


@FUZZ
@given(form=st.sampled_from(["aligned", "tsv", "wmt", "ids"]), system=file_names,
       content=contents, source=contents, ids=contents,
       encoding=st.sampled_from(["utf-8", "latin-1", "utf-16", "cp1252", "no-such-codec"]))
def test_outputs_in_every_form(form, system, content, source, ids, encoding):
    with sandbox() as work:
        suite = load_suite([project(work)])
        outputs = work / "outputs"
        outputs.mkdir()
        kwargs: dict[str, Any] = {"encoding": encoding}
        if form == "aligned":
            (outputs / system).write_bytes(content)
        elif form == "tsv":
            (outputs / f"{system}.tsv").write_bytes(content)
        elif form == "ids":
            (outputs / system).write_bytes(content)
            (work / "order.ids").write_bytes(ids)
            kwargs["ids"] = work / "order.ids"
        else:
            outputs = work / "txt-ts"
            (outputs / "sources").mkdir(parents=True)
            (outputs / "system-outputs").mkdir()
            (outputs / "sources" / "newstest.de-en.src.de").write_bytes(source)
            (outputs / "system-outputs" / f"newstest.de-en.hyp.{system}.en").write_bytes(content)
        read = only_messages(load_outputs, suite, [outputs], pair="de-en", **kwargs)
        if read is not None:
            only_messages(evaluate, suite, read[0], located=read[1], regex_cache=RegexCache())


@FUZZ
@given(data=st.data())
def test_dfki_json(data):
    item = st.fixed_dictionaries({
        "id": st.sampled_from(["00001"]) | names | values,
        "langpair": st.sampled_from(["deen"]) | names | values,
        "category": st.sampled_from(["Ambiguity"]) | names | values,
        "phenomenon": names | values, "source_sentence": names | values,
        "positive_regex": regexes | values, "negative_regex": regexes | values,
        "positive_tokens": st.lists(names, max_size=2) | values,
        "negative_tokens": st.lists(names, max_size=2) | values})
    document = data.draw(st.fixed_dictionaries({"items": st.lists(item, max_size=3)}) | values)
    raw = data.draw(st.none() | st.binary(max_size=100))
    with sandbox() as work:
        path = work / "items.json"
        if raw is not None:
            path.write_bytes(raw)
        else:
            path.write_text(json.dumps(document), encoding="utf-8")
        suite = only_messages(read_dfki, path)
        if suite is not None:
            only_messages(write_suite, suite, work / "out")


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """A real saved run of the small suite, to be spoiled by each example."""
    root = tmp_path_factory.mktemp("run")
    suite = load_suite([project(root)])
    (root / "Sys.en").write_text("one\nthree\n", encoding="utf-8")
    systems, _ = load_outputs(suite, [root / "Sys.en"])
    save_run(root / "run", evaluate(suite, systems, regex_cache=RegexCache()), suite)
    return SUITE, root / "run"


@FUZZ
@given(file=st.sampled_from(["run.json", "items.jsonl", "outputs.jsonl", "outcomes.jsonl",
                             "manifest.json"]),
       records=st.lists(values, max_size=4), raw=st.none() | st.binary(max_size=100),
       signed=st.booleans())
def test_saved_runs(saved, file, records, raw, signed):
    """Spoiled files are refused by the manifest; signed anew (a forged run), every field is
    still checked."""
    from testsuite.runs import MANIFEST, RUN_FILES, _manifest

    suite_doc, run = saved
    with sandbox() as work:
        suite = load_suite([project(work, suite_doc)])
        copy = work / "run"
        shutil.copytree(run, copy)
        if raw is not None:
            (copy / file).write_bytes(raw)
        elif file == "run.json":
            (copy / file).write_text(json.dumps(records[0] if records else records))
        else:
            (copy / file).write_text("".join(json.dumps(r) + "\n" for r in records))
        if signed and file != MANIFEST:
            (copy / MANIFEST).write_bytes(_manifest({name: (copy / name).read_bytes()
                                                     for name in RUN_FILES}))
        loaded = only_messages(load_run, copy, suite)
        if loaded is not None:  # whatever was read is what a run may hold
            assert set(loaded.evaluation.results["outcome"]) <= {"pass", "fail", "warning",
                                                                 "missing"}


# --- spreadsheets (#20) ----------------------------------------------------------------------

#: Cell text: anything a system may output (lone surrogates cannot be in a file at all).
cell_text = st.sampled_from(HOSTILE + ["'=x", "''", "_x001B_", "a\x00b", "\r\n", "-"]) | st.text(
    st.characters(exclude_categories=("Cs",)), max_size=20)


@FUZZ
@given(suffix=st.sampled_from([".csv", ".xlsx"]),
       rows=st.lists(st.tuples(cell_text, cell_text, cell_text), min_size=1, max_size=5))
def test_sheets_round_trip_without_formulas(suffix, rows):
    """Whatever the outputs, ids and notes, a sheet holds no formula and reads back exactly."""
    import zipfile

    from testsuite.reports.escape import formula_like
    from testsuite.verdicts.sheets import read_sheet, write_sheet

    with sandbox() as work:
        path = work / f"sheet{suffix}"
        write_sheet(path, [{"pair": "de-en", "item": item, "output": output, "note": note,
                            "verdict": "pass"} for item, output, note in rows])
        if suffix == ".xlsx":
            part = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml")
            assert b"<f>" not in part and b"<f " not in part
        else:
            import csv
            import io

            for cells in csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"),
                                                newline="")):
                assert not any(formula_like(cell) for cell in cells), cells
        read = read_sheet(path)
        assert [(r.item, r.output) for r in read] == [(i.strip(), o) for i, o, _ in rows]


@FUZZ
@given(suffix=st.sampled_from([".csv", ".xlsx"]), data=st.data())
def test_sheets_of_any_bytes_are_read_or_refused(suffix, data):
    """Random bytes, random text, or a real XLSX with some bytes changed."""
    import io

    import openpyxl

    from testsuite.verdicts.sheets import read_sheet

    kind = data.draw(st.sampled_from(["bytes", "text", "spoiled"]))
    if kind == "bytes":
        content = data.draw(st.binary(max_size=400))
    elif kind == "text":
        content = data.draw(st.text(max_size=400)).encode("utf-8", "surrogatepass")
    else:
        workbook = openpyxl.Workbook()
        workbook.active.append(["item", "output", "verdict"])
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        workbook.active.append(["a", ILLEGAL_CHARACTERS_RE.sub("", data.draw(cell_text)),
                                "pass"])
        buffer = io.BytesIO()
        workbook.save(buffer)
        raw = bytearray(buffer.getvalue())
        # Positions drawn independently of the length: the workbook's size varies with the
        # time openpyxl stamps into it, and Hypothesis needs the same draws on a replay.
        for _ in range(data.draw(st.integers(1, 8))):
            where = data.draw(st.floats(0, 1, exclude_max=True))
            raw[int(where * len(raw))] = data.draw(st.integers(0, 255))
        content = bytes(raw)
    with sandbox() as work:
        path = work / f"sheet{suffix}"
        path.write_bytes(content)
        only_messages(read_sheet, path)


# --- the command line -----------------------------------------------------------------------

#: Option values: mostly good ones, so that the commands get past their options.
NUMBERS = st.sampled_from(["0.05", "1", "3", "0.5", "0.01", "2"] * 3 + [
    "0", "-1", "1.5", "nan", "inf", "-inf", "1e300", "x", "", "١", "0x10", "1_0"])
FORMATS = st.sampled_from(["terminal", "csv", "json", "markdown", "latex", "html", "x"])


@st.composite
def command(draw: st.DrawFn) -> tuple[list[str], dict[str, Any]]:
    """A command line with random values; SUITE, OUT, RUN, JSON and W/ are filled in later."""
    name = draw(names)
    which = draw(st.sampled_from(["lint", "expand", "evaluate", "score", "item-analysis",
                                  "import-dfki", "export-dfki", "sources", "verdict",
                                  "pending", "compare", "export", "import", "agreement"]))
    suite = ["--suite", "SUITE"]
    lines = {
        "lint": ["lint", "SUITE"],
        "expand": ["expand", "SUITE"],
        "evaluate": ["evaluate", "OUT", *suite, "-q", "--timeout", draw(NUMBERS), "--out",
                     "W/" + draw(file_names) + draw(st.sampled_from([".csv", ".jsonl", ""])),
                     *draw(st.sampled_from([[], ["--save", "W/saved"], ["--normalise", name],
                                            ["--encoding", name], ["--pair", name]]))],
        "score": ["score", "OUT", *suite, "-q", draw(st.sampled_from(["--alpha", "--seed"])),
                  draw(NUMBERS), "--format", draw(FORMATS),
                  *draw(st.sampled_from([[], ["--category", name], ["--system", name]])),
                  *draw(st.sampled_from([[], ["--out", "W/report"]]))],
        "item-analysis": ["item-analysis", "OUT", *suite, "-q", "--show", draw(NUMBERS),
                          "--out", "W/analysis.csv"],
        "import-dfki": ["import-dfki", "JSON", "--out", "W/dfki"],
        "export-dfki": ["export-dfki", *suite, "--out", "W/" + draw(file_names),
                        *draw(st.sampled_from([[], ["--pair", name]]))],
        "sources": ["sources", *suite, "--pair", draw(names), "--out", "W/" + draw(file_names)],
        "verdict": ["verdict", draw(st.sampled_from(["a", "b"]) | names),
                    draw(st.sampled_from(["pass", "fail"]) | names), "--output", draw(names),
                    *suite, *draw(st.sampled_from([[], ["--note", name]]))],
        "pending": ["pending", "OUT", *suite, "--order",
                    draw(st.sampled_from(["impact", "suite"]) | names)],
        "compare": ["compare", "RUN", "RUN", *suite, "--regressions", draw(NUMBERS),
                    "--format", draw(FORMATS),
                    *draw(st.sampled_from([[], ["--map", name], ["--system", name]]))],
        "export": ["export", draw(st.sampled_from(["OUT", "RUN"])), *suite, "--out",
                   "W/" + draw(file_names) + draw(st.sampled_from([".csv", ".xlsx"]))],
        "import": ["import", "SHEET", *suite, "--annotator", name,
                   *draw(st.sampled_from([[], ["--dry-run"], ["OUT"], ["--disagree"]]))],
        "agreement": ["agreement", *suite, "--second", name,
                      *draw(st.sampled_from([["--first", "x"], ["--sample", draw(NUMBERS),
                                                               "--seed", draw(NUMBERS),
                                                               "--out", "W/s.csv"]]))],
    }
    # Mostly outputs that the rules judge (one per item), with hostile text in them.
    two_lines = st.tuples(names, names).map(
        lambda t: f"one {t[0]}\ntwo {t[1]}\n".encode("utf-8", "surrogatepass"))
    sheet = st.lists(st.tuples(st.sampled_from(["a", "b"]) | names, cell_text,
                               st.sampled_from(["pass", "fail"]) | names), max_size=3).map(
        lambda rows: ("\ufeffitem,output,verdict\n" + "".join(
            ",".join('"' + c.replace('"', '""') + '"' for c in row) + "\n" for row in rows)
        ).encode("utf-8", "surrogatepass"))
    inputs = {"sheet": draw(sheet | contents),
              "system": draw(file_names), "output": draw(two_lines | two_lines | contents),
              "category": draw(names), "phenomenon": draw(names),
              "dfki": draw(st.fixed_dictionaries({"items": st.lists(st.fixed_dictionaries({
                  "id": names, "langpair": names, "category": names, "phenomenon": names,
                  "source_sentence": names, "positive_regex": regexes,
                  "negative_regex": regexes, "positive_tokens": st.lists(names, max_size=2),
                  "negative_tokens": values}), max_size=2)}))}
    return lines[which], inputs


@FUZZ
@given(call=command())
def test_command_line(saved, call):
    line, inputs = call
    suite_doc, run = saved
    with sandbox() as work:
        # Hostile category and phenomenon names in the suite (quoted by the YAML dumper).
        document = json.loads(json.dumps(SUITE))
        document["category"] = inputs["category"]
        document["items"][1]["phenomenon"] = inputs["phenomenon"]
        suite = project(work, document)
        outputs = work / "outputs"
        outputs.mkdir()
        (outputs / inputs["system"]).write_bytes(inputs["output"])
        (work / "items.json").write_text(json.dumps(inputs["dfki"]), encoding="utf-8")
        shutil.copytree(run, work / "run")
        (work / "sheet.csv").write_bytes(inputs["sheet"])
        fill = {"SUITE": suite, "OUT": outputs, "RUN": work / "run", "JSON": work / "items.json",
                "SHEET": work / "sheet.csv"}
        args = [str(fill[a]) if a in fill else str(work / a[2:]) if a.startswith("W/") else a
                for a in line]
        result = CliRunner().invoke(app, args)
        assert result.exit_code in (0, 1, 2), (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            (args, result.exception)
        assert "Traceback" not in result.output
