"""The `testsuite` command: a thin typer layer over the library.

Each command parses options, calls the library and prints. Heavy libraries (pandas, regex,
statsmodels, textual) are imported inside the commands so that `testsuite --help` is instant.
A `TestsuiteError` is printed as a list of problems (file:line (item …): message) with exit
status 1 — never a traceback.
"""

# Importing the command modules registers their commands; the help groups them in panels
# in the order of the job: suites, evaluate and score, resolve warnings, compare years.
from . import suites  # noqa: F401, I001
from . import evaluation  # noqa: F401
from . import decisions  # noqa: F401
from . import annotation  # noqa: F401
from . import comparison  # noqa: F401
from ._common import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point.

    SIGTERM (what ``kill`` and job schedulers send) is handled like Ctrl-C: the command
    stops with "interrupted" and status 130, after the writes under way have removed their
    temporary files (Python's default would end the process on the spot and leave them).
    """
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    app()
