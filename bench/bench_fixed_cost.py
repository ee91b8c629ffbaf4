"""Fixed cost of one hipport process (issue 12, point 2: fit for a pre-commit hook).

Times ``hipport --version``, ``hipport --help``, ``hipport check --help`` and ``hipport check
FILE`` on one ~200-line CUDA file (default ``corpus/stream_events/stream_events.cu``, 205 lines)
and prints a table: command, CPU seconds (user + sys of the child, as ``/usr/bin/time`` reports
them; the minimum of ``--repeat`` runs), target, met/missed. Each command runs once first
(untimed) so the rule-table cache (``hipport.rulecache``, ``hipport.rules.load_rule_file``) and
Python's bytecode are in place, as they are for a hook that has run before;
``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment for that reason.

Usage: ``.venv/bin/python bench/bench_fixed_cost.py [--repeat N] [--hipport EXE] [--file F]``;
exits 1 when a target is missed and ``--require`` is given.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: CPU-second targets of issue 12, point 2.
TARGETS = {"--version": 0.08, "--help": 0.08, "check --help": 0.08, "check FILE": 0.25}


def cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one run of ``argv`` (its output discarded); raises
    ``RuntimeError`` when it exits with a status above 1 (1 is ``check``'s "findings")."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def hipport_executable(arg: str | None = None) -> str:
    """The hipport to time: ``arg``, else ``.venv/bin/hipport`` of this checkout, else ``hipport`` on PATH."""
    return arg or (str(ROOT / ".venv" / "bin" / "hipport") if (ROOT / ".venv" / "bin" / "hipport").exists()
                   else shutil.which("hipport"))


def measure(exe: str, file: Path, repeat: int) -> list[tuple[str, float, float]]:
    """(command name, CPU seconds: the minimum of ``repeat`` runs after one untimed run, target)
    for each command of :data:`TARGETS`, ``check FILE`` on ``file``; raises ``RuntimeError``
    as :func:`cpu_seconds`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = {"--version": ["--version"], "--help": ["--help"], "check --help": ["check", "--help"],
                "check FILE": ["check", str(file)]}
    found = []
    for name, tail in commands.items():
        cpu_seconds([exe, *tail], env)  # warm-up: cache and bytecode
        found.append((name, min(cpu_seconds([exe, *tail], env) for _ in range(repeat)), TARGETS[name]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command (default 5; the minimum is shown)")
    parser.add_argument("--hipport", default=None, help="hipport executable (default .venv/bin/hipport, else PATH)")
    parser.add_argument("--file", type=Path, default=ROOT / "corpus" / "stream_events" / "stream_events.cu")
    parser.add_argument("--require", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    exe = hipport_executable(args.hipport)
    lines = len(args.file.read_bytes().splitlines())
    print(f"hipport fixed cost: CPU s (user+sys), min of {args.repeat}; check FILE = {args.file.name} ({lines} lines)")
    print(f"| command | CPU s | target | |\n| --- | ---: | ---: | --- |")
    missed = 0
    for name, best, target in measure(exe, args.file, args.repeat):
        met = best <= target
        missed += not met
        print(f"| `hipport {name}` | {best:.3f} | {target:.2f} | {'met' if met else 'missed'} |")
    return 1 if missed and args.require else 0


if __name__ == "__main__":
    sys.exit(main())
