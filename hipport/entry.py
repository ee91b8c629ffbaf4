"""The ``hipport`` console script: answers ``hipport --version`` without importing the pipeline.

Importing ``hipport.cli`` loads every stage (parser, rules, CMake, reports), about 0.3 CPU s on
the 2-core machine of issue 12; ``--version`` needs none of it. Every other command line goes to
``hipport.cli.main`` unchanged. The answer is click's own ``version_option`` text
(``hipport, version X``), and ``tests/test_entry.py`` pins that both paths print the same bytes.
"""

from __future__ import annotations

import sys

from . import __version__

VERSION_FLAGS = ("--version",)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; ``argv`` is the argument list without the program name.

    ``argv`` defaults to ``sys.argv[1:]``. A lone ``--version`` prints the version and returns
    (exit status 0); anything else is handed to the click group ``hipport.cli.main``, which
    raises ``SystemExit`` with its exit status as click does.
    """
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 1 and args[0] in VERSION_FLAGS:
        sys.stdout.write(f"hipport, version {__version__}\n")
        return
    from .cli import main as cli_main  # the whole pipeline: only for real commands

    cli_main(args=args, prog_name="hipport")


if __name__ == "__main__":
    main()
