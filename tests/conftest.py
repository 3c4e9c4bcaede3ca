"""Shared fixtures. Tests that need the real data read ../shared/data and skip without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("TESTSUITE_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data() -> Path:
    """The shared real data (DFKI public suite, WMT21/22 outputs), or skip."""
    if not (DATA / "dfki-mt-testsuite").is_dir():
        message = f"real data not found at {DATA} (set TESTSUITE_DATA to its folder)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI must run the real-data tests")  # never skip in CI
        pytest.skip(message)
    return DATA


@pytest.fixture(scope="session")
def dfki_dir(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The DFKI public suite imported into our YAML format (both pairs), once per run."""
    from testsuite.dfki import import_dfki

    out = tmp_path_factory.mktemp("dfki")
    for pair in ("de-en", "en-de"):
        import_dfki(data / "dfki-mt-testsuite" / pair / "items.json", out)
    return out


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep the compiled-regex cache of the tests out of the user's cache folder."""
    os.environ["TESTSUITE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def dfki_suite(dfki_dir: Path):
    """The imported DFKI suite, loaded once per run. Shared: never change it in a test."""
    from testsuite.loader import load_suite

    return load_suite([dfki_dir])


@pytest.fixture(scope="session")
def wmt(data: Path, dfki_suite):
    """``wmt(year, pair)`` → the evaluation of that WMT pair-year with the DFKI suite.

    Each pair-year is read and judged once per test run and shared by every test that asks
    for it (read-only: copy before changing anything). ``year`` is ``"wmt21"`` or ``"wmt22"``.
    """
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs

    done: dict[tuple[str, str], object] = {}

    def get(year: str, pair: str):
        key = (year, pair)
        if key not in done:
            systems, located = load_outputs(dfki_suite, [data / year / "txt-ts"], pair=pair)
            done[key] = evaluate(dfki_suite, systems, located=located)
        return done[key]

    return get


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for ``-n auto``: one more than the cores, at least three.

    Many tests wait on a browser or a subprocess; an extra worker keeps the cores busy
    (on the 2-core CI machine: 3 workers, about a fifth faster than 2).
    """
    return max(3, (os.cpu_count() or 1) + 1)
