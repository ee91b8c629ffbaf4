"""The console script's ``--version`` fast path prints exactly what the click group prints."""

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from hipport import __version__
from hipport.cli import main as cli_main


def test_fast_version_matches_click_output():
    via_click = CliRunner().invoke(cli_main, ["--version"])
    assert via_click.exit_code == 0
    fast = subprocess.run([sys.executable, "-m", "hipport.entry", "--version"],
                          capture_output=True, text=True, check=True)
    assert fast.stdout == via_click.output == f"hipport, version {__version__}\n"


def test_fast_version_does_not_import_the_pipeline():
    code = ("import sys; from hipport.entry import main; main(['--version']); "
            "print(sorted(m for m in sys.modules if m.startswith('hipport')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [f"hipport, version {__version__}", "['hipport', 'hipport.entry']"]


def test_other_commands_reach_the_click_group():
    env = dict(os.environ, COLUMNS="80")
    run = lambda argv: subprocess.run(argv, capture_output=True, text=True, env=env)
    fast = run([sys.executable, "-m", "hipport.entry", "--help"])
    direct = run([sys.executable, "-c", "from hipport.cli import main; main(prog_name='hipport')", "--help"])
    assert fast.returncode == direct.returncode == 0
    assert fast.stdout.startswith("Usage: hipport [OPTIONS] COMMAND [ARGS]...\n")
    assert fast.stdout == direct.stdout


_PIPELINE_PROBE = ("import sys\nfrom hipport.entry import main\n"  # what the console script runs
                   "try:\n    main(sys.argv[1:])\n"
                   "except SystemExit:\n    pass\n"
                   "sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith('hipport') or m in "
                   "('yaml', 'jinja2', 'tree_sitter', 'pathspec', 'multiprocessing'))))\n")


def _help_modules(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _PIPELINE_PROBE, *args], capture_output=True, text=True, check=True,
                         env=dict(os.environ, COLUMNS="80"))
    return eval(out.stderr)  # the repr of a list of module names written above


def test_help_does_not_import_the_pipeline():
    """``hipport --help`` and every ``hipport CMD --help`` build the click parser from
    hipport.options only: no stage module, no YAML, tree-sitter, pathspec or multiprocessing."""
    light = ["hipport", "hipport.cli", "hipport.entry", "hipport.options"]
    for command in ([], ["convert"], ["check"], ["explain"], ["counts"], ["build"], ["emulate"]):
        assert _help_modules(*command, "--help") == light, command


FIXTURES = Path(__file__).parent / "fixtures" / "help"


def test_help_text_unchanged_for_every_command():
    """The help of the group and of each subcommand, at 80 columns, is byte for byte what it
    was before the parser stopped importing the pipeline (tests/fixtures/help/*.txt were
    recorded from hipport 73426b5 with COLUMNS=80)."""
    env = dict(os.environ, COLUMNS="80")
    for name in ("main", "convert", "check", "explain", "counts", "build", "emulate"):
        args = [] if name == "main" else [name]
        out = subprocess.run([sys.executable, "-m", "hipport.entry", *args, "--help"], capture_output=True, text=True,
                             env=env, check=True)
        assert out.stdout == (FIXTURES / f"{name}.txt").read_text(), name
