"""The console script's ``--version`` fast path prints exactly what the click group prints."""

import os
import subprocess
import sys

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
