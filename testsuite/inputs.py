"""From what a user names on the command line to an evaluation.

`InputSpec` is the one description of a command's inputs (system outputs, pair, WMT source,
id list, suite, encoding, regex time limit), shared by every command and the triage UI;
`load_evaluation` turns it into the suite and an `Evaluation`. `load_outputs` reads the
outputs of each system, whatever their form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .cache import PickleCache, cache_dir, file_stamp
from .errors import Problem, TestsuiteError
from .files import check_encoding
from .matching import DEFAULT_TIMEOUT
from .model import Suite, pair_code
from .outputs import advice
from .outputs.model import Located, SystemOutputs
from .outputs.readers import (
    REPEATED,
    discover,
    read_aligned,
    read_ids,
    read_tsv,
    read_wmt,
    wmt_pair,
)
from .values import choice

if TYPE_CHECKING:
    from .evaluate import Evaluation
    from .matching import RegexCache


@dataclass(frozen=True)
class InputSpec:
    """What to evaluate: the inputs every evaluating command takes.

    Attributes:
        outputs: System output files and folders (aligned text, WMT hypotheses or a whole
            ``txt-ts`` folder, TSV keyed by item).
        pair: Language pair; by default from WMT file names or the suite.
        source: WMT source file the hypotheses translate.
        ids: Item ids of aligned text files (default: the order of `testsuite sources`).
        suite: Suite and rules files or folders; empty for the bundled suites.
        encoding: Encoding of the output files.
        timeout: Per-match regex time limit in seconds.
        normalise: Typographic normalisation of outputs before matching (``typographic``,
            ``nfkc``; see `testsuite.normalise`), or None: the published method.
        repeated: For an item whose source occurs several times in a WMT source: use the
            ``first`` occurrence's output (the published method), the ``last``, or require
            that they ``agree`` (see `outputs.readers.read_wmt`).
    """

    outputs: tuple[Path, ...]
    pair: str | None = None
    source: Path | None = None
    ids: Path | None = None
    suite: tuple[Path, ...] = ()
    encoding: str = "utf-8"
    timeout: float = DEFAULT_TIMEOUT
    normalise: str | None = None
    repeated: str = "first"

    def __post_init__(self) -> None:
        # Checked for every kind of output, not only where a WMT source is read, so that a
        # misspelt policy is refused at once rather than ignored.
        choice(self.repeated, REPEATED, "repeated")

    def suite_paths(self) -> list[Path]:
        """The suite to load: the named paths, or the bundled suites."""
        from .bundled import bundled_suite_paths

        return list(self.suite) or bundled_suite_paths()


#: Evaluations kept in the cache folder (the oldest half is removed beyond this).
MAX_EVALUATIONS = 40
_CACHE = PickleCache("evaluation", MAX_EVALUATIONS)


def _evaluation_key(spec: InputSpec, suite: Suite) -> Path | None:
    """Cache file of the evaluation of `spec` with `suite`, or None when not cacheable.

    Keyed by the suite's content, every option that changes an outcome, and the path, size
    and times of every input file (as build tools decide what changed), so that running
    `score`, then `report`, then `plot` on the same outputs judges them once.
    """
    if cache_dir() is None or suite.key is None:
        return None
    try:
        hyps, sources = discover(list(spec.outputs), pair_code(spec.pair) if spec.pair else None)
    except TestsuiteError:
        return None  # load_outputs reports it
    return _CACHE.file(suite.key, spec.pair, spec.encoding, spec.timeout, spec.normalise,
                       spec.repeated, *(file_stamp(p) for p in (*hyps, *sources)),
                       *(file_stamp(p) for p in (spec.source, spec.ids) if p is not None))


def load_evaluation(spec: InputSpec, progress: Callable[[int], None] | None = None,
                    total: Callable[[int], None] | None = None,
                    regex_cache: RegexCache | None = None) -> tuple[Suite, Evaluation]:
    """Load the suite and the outputs a spec names, and judge every output.

    Args:
        spec: What to evaluate.
        progress: Called with the number of outputs judged since the last call.
        total: Called once with the number of outputs to judge, before judging.
        regex_cache: Compiled patterns to judge with (default: the persistent cache); pass
            one to reuse it afterwards (the HTML report highlights matches with it).

    Returns:
        The suite and the evaluation.
    """
    from .evaluate import Evaluation, evaluate
    from .loader import load_suite
    from .normalise import profile
    from .runs import is_run, load_run
    from .values import seconds

    seconds(spec.timeout)  # refused before anything is read
    normalise = profile(spec.normalise)
    runs = [p for p in spec.outputs if is_run(p)]
    if runs:
        if len(spec.outputs) > 1:
            raise TestsuiteError(Problem(
                "a saved run is read on its own (to compare runs, use `testsuite compare "
                "RUN RUN…`)", file=str(runs[0])))
        run = load_run(runs[0], load_suite(list(spec.suite)) if spec.suite else None,
                       timeout=spec.timeout, normalise=spec.normalise,
                       renormalise=spec.normalise is not None, cache=True)
        if spec.pair and pair_code(spec.pair) not in run.evaluation.pairs:
            raise TestsuiteError(Problem(f"the run has no {pair_code(spec.pair)} outputs (it "
                                         f"has: {', '.join(run.evaluation.pairs)})",
                                         file=str(runs[0])))
        run.evaluation.notes = [run.note]
        return run.suite, run.evaluation
    suite = load_suite(spec.suite_paths())
    key = _evaluation_key(spec, suite)
    cached = _CACHE.read(key)
    if isinstance(cached, Evaluation):
        if total is not None:
            total(len(cached.columns["item"]))
        if progress is not None:
            progress(len(cached.columns["item"]))
        return suite, cached
    systems, located = load_outputs(suite, list(spec.outputs), pair=spec.pair,
                                    source=spec.source, ids=spec.ids, encoding=spec.encoding,
                                    suite_paths=list(spec.suite), repeated=spec.repeated)
    if total is not None:
        total(sum(len(s.outputs) for s in systems))
    evaluation = evaluate(suite, systems, timeout=spec.timeout, located=located,
                          progress=progress, normalise=normalise, regex_cache=regex_cache)
    if key is not None:
        _CACHE.write(key, evaluation.cacheable())
    return suite, evaluation


def load_systems(spec: InputSpec) -> tuple[Suite, list[SystemOutputs]]:
    """The suite and the outputs of each system that a spec names, without judging them.

    For checking a decision against what the systems produced (`testsuite verdict`,
    `testsuite import`): read as `load_evaluation` reads them, a saved run included (with
    the suite it was saved with, unless the spec names one).
    """
    from .loader import load_suite
    from .runs import is_run

    if any(is_run(p) for p in spec.outputs):
        suite, evaluation = load_evaluation(spec)
        columns = evaluation.columns
        by_system: dict[tuple[str, str], dict[str, str]] = {}
        for pair, system, item, output in zip(columns["pair"], columns["system"],
                                              columns["item"], columns["output"], strict=True):
            by_system.setdefault((pair, system), {})[item] = output
        return suite, [SystemOutputs(system, pair, outputs, str(spec.outputs[0]))
                       for (pair, system), outputs in by_system.items()]
    suite = load_suite(spec.suite_paths())
    systems, _ = load_outputs(suite, list(spec.outputs), pair=spec.pair, source=spec.source,
                              ids=spec.ids, encoding=spec.encoding,
                              suite_paths=list(spec.suite), repeated=spec.repeated)
    return suite, systems


def load_outputs(
    suite: Suite,
    paths: Sequence[Path],
    *,
    pair: str | None = None,
    source: Path | None = None,
    ids: Path | None = None,
    encoding: str = "utf-8",
    suite_paths: Sequence[Path] | None = None,
    repeated: str = "first",
) -> tuple[list[SystemOutputs], dict[str, Located]]:
    """Read every system's outputs from files and folders.

    * ``*.tsv`` files hold ``item<TAB>output`` (or ``system<TAB>item<TAB>output``) lines.
    * With a WMT source file (`source`, or ``sources/`` inside a ``txt-ts`` folder), other
      files are WMT hypotheses line-aligned with it; the items are located by their source.
    * Otherwise a file has one output per line, aligned with `testsuite sources` (or `ids`).

    Args:
        suite: The suite evaluated.
        paths: Files and folders of system outputs.
        pair: Language pair; by default taken from WMT file names or the suite.
        source: WMT source file the hypotheses translate.
        ids: Id list for aligned text (default: the suite order of `testsuite sources`).
        encoding: Encoding of the output files.
        suite_paths: Where the suite was loaded from (to say so when nothing fits it).
        repeated: Which occurrence of a repeated WMT source is used (see `InputSpec`).

    Returns:
        The outputs of each system, and where the items were located for WMT inputs.

    Raises:
        TestsuiteError: for unreadable or misaligned files, and for the natural mistakes of
            `testsuite.outputs.advice` (the wrong suite, a missing WMT source, a results file
            given as outputs, a pair the files do not have), each with the fix.
    """
    pair = pair_code(pair) if pair else None
    check_encoding(encoding)
    hyps, sources = discover(paths, pair)
    if source is not None:
        if not source.is_file():
            raise TestsuiteError(Problem("no such WMT source file", file=str(source)))
        sources = [source]
    if not hyps:
        raise advice.missing_pair(paths, pair) if pair else advice.nothing_found(paths, None)
    advice.check_not_outputs(hyps)
    by_pair: dict[str, list[Path]] = {}
    for hyp in hyps:
        named = wmt_pair(hyp)
        hyp_pair = pair or (pair_code(named) if named else _default_pair(suite))
        by_pair.setdefault(hyp_pair, []).append(hyp)

    systems: list[SystemOutputs] = []
    located: dict[str, Located] = {}
    for hyp_pair, files in by_pair.items():
        items = suite.items_of(hyp_pair)
        if not items:
            raise TestsuiteError(f"the outputs are {hyp_pair} but the suite has no {hyp_pair} "
                                 f"items (it has: {', '.join(suite.pairs)})")
        tsv = [f for f in files if f.suffix == ".tsv"]
        text = [f for f in files if f.suffix != ".tsv"]
        known = {item.id for item in items}
        try:
            keyed = [s for file in tsv for s in read_tsv(file, hyp_pair, known, encoding)]
        except TestsuiteError as error:
            raise advice.other_pair(error, suite, hyp_pair) from None
        systems.extend(_merge(keyed))
        if not text:
            continue
        wmt_source = _source_for(sources, hyp_pair)
        if wmt_source is not None:
            located[hyp_pair], read = read_wmt(items, wmt_source, text, hyp_pair, encoding,
                                               repeated)
            if not located[hyp_pair].lines:
                raise advice.nothing_located(wmt_source, hyp_pair, len(items), suite_paths,
                                             encoding)
            systems.extend(read)
        else:
            advice.wmt_hypotheses_without_source(text, hyp_pair)
            order = read_ids(ids) if ids else [item.id for item in items]
            unknown = [i for i in order if i not in known]
            if unknown:
                raise TestsuiteError(Problem(f"{len(unknown)} ids are not {hyp_pair} items of the "
                                             f"suite, e.g. {unknown[0]!r}", file=str(ids)))
            for file in text:
                try:
                    systems.append(read_aligned(file, order, hyp_pair, encoding=encoding))
                except TestsuiteError as error:
                    raise advice.aligned_other_pair(error, file, suite, hyp_pair,
                                                    ids is None, encoding) from None
    _check_unique(systems)
    return systems, located


def _merge(parts: Sequence[SystemOutputs]) -> list[SystemOutputs]:
    """Join keyed outputs of one system spread over several TSV files (one per category)."""
    merged: dict[str, SystemOutputs] = {}
    problems = []
    for part in parts:
        whole = merged.get(part.system)
        if whole is None:
            merged[part.system] = SystemOutputs(part.system, part.pair, dict(part.outputs),
                                                part.file)
            continue
        twice = whole.outputs.keys() & part.outputs.keys()
        if twice:
            problems.append(Problem(f"{part.system} has a second output for {len(twice)} items "
                                    f"already in {whole.file}, e.g. {min(twice)!r}",
                                    file=part.file))
        whole.outputs.update(part.outputs)
        whole.file = str(Path(whole.file or "").parent) if whole.file else part.file
    if problems:
        raise TestsuiteError(problems)
    return list(merged.values())


def _default_pair(suite: Suite) -> str:
    if len(suite.pairs) == 1:
        return suite.pairs[0]
    raise TestsuiteError("which language pair are the outputs? The file names do not say and the "
                         f"suite has several ({', '.join(suite.pairs)}): pass --pair")


def _source_for(sources: Sequence[Path], pair: str) -> Path | None:
    matching = [s for s in sources if wmt_pair(s) in (None, pair)]
    if len(matching) > 1:
        raise TestsuiteError(f"several WMT source files for {pair}: "
                             f"{', '.join(map(str, matching))}; pass one with --source")
    return matching[0] if matching else None


def _check_unique(systems: Sequence[SystemOutputs]) -> None:
    seen: dict[tuple[str, str], str | None] = {}
    problems = []
    for system in systems:
        key = (system.pair, system.system)
        if key in seen:
            problems.append(Problem(f"two sets of {system.pair} outputs are named "
                                    f"{system.system!r} (the other is {seen[key]}); rename one "
                                    "file", file=system.file))
        seen[key] = system.file
    if problems:
        raise TestsuiteError(problems)
