"""`python -m testsuite` runs the command-line interface."""

from .cli import main

main()
