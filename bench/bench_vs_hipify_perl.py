#!/usr/bin/env python3
"""Benchmark ``hipport convert`` against AMD's hipify-perl on one generated CUDA tree.

Steps (one run):

1. generate the tree with ``bench/generate_tree.py`` (reused when its ``MANIFEST.json`` matches
   the target lines, the seed and the generator's hash);
2. fetch hipify-perl (Debian sid package ``hipify-perl``) through a private apt view into
   ``build/bench/hipify-perl/`` unless it is cached there;
3. time ``hipport convert TREE -o OUT -q`` as a subprocess (the whole CLI: start-up, all rules,
   default jobs = one worker per core), ``--repeat`` times; best and median;
4. time hipify-perl over the same files the way a user runs it on a tree: it takes many files
   per call (``-inplace``, as AMD's ``hipconvertinplace-perl.sh`` does), so it runs on a fresh
   copy of the tree with as few calls as possible, serially and with ``--hipify-procs``
   processes in parallel (default 2); ``--hipify-per-file`` adds one call per file
   (``hipify-perl -quiet-warnings IN -o=OUT``), serial and parallel;
5. checks that every output really is a port (file counts, HIP headers and API names present,
   no CUDA call left) and prints a Markdown table with lines per second and the ratios.

Exit status: 0 when every run succeeded and passed the checks, 1 otherwise (missing the 20x
target is reported, not an error, unless ``--require-ratio`` is given).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate_tree  # noqa: E402  (sibling module)

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "build" / "bench"
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".h", ".hip")
TARGET_RATIO = 20.0
APT_SOURCES = """\
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
#: Longest argument list (characters) handed to one hipify-perl call.
MAX_ARG_CHARS = 100_000


class BenchError(RuntimeError):
    """A run failed or produced an output that is not a port."""


# --------------------------------------------------------------------------------------------
# Inputs: the tree and hipify-perl


def ensure_tree(tree: Path, lines: int, seed: int, regenerate: bool) -> dict:
    manifest_path = tree / generate_tree.MANIFEST
    if not regenerate and manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if (manifest.get("target_lines") == lines and manifest.get("seed") == seed
                and manifest.get("generator_sha256") == generate_tree.generator_digest()
                and len(source_files(tree)) == manifest.get("files")):
            print(f"reusing tree {tree} ({manifest['files']} files, {manifest['lines']} lines)")
            return manifest
    return generate_tree.generate(tree, lines, seed)


def source_files(root: Path) -> list[str]:
    """Source files under ``root`` (relative, sorted), without hipify-perl's ``.prehip`` backups."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(found)


def run_checked(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise BenchError(f"{' '.join(cmd[:6])}{' ...' if len(cmd) > 6 else ''} exited with "
                         f"{result.returncode}:\n{result.stderr[-3000:]}")
    return result


def ensure_hipify_perl(cache: Path) -> tuple[Path, str]:
    """Return (path of the hipify-perl script, Debian package version); download if needed."""
    script = cache / "pkg" / "usr" / "bin" / "hipify-perl"
    debs = sorted(cache.glob("hipify-perl_*_all.deb"))
    if script.is_file() and debs:
        return script, _deb_version(debs[-1])
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise BenchError("apt-get and dpkg are needed to fetch hipify-perl")
    print(f"fetching hipify-perl from Debian sid into {cache} ...")
    (cache / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (cache / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = cache / "sid.sources"
    sources.write_text(APT_SOURCES, encoding="utf-8")
    options = [f"-oDir::Etc::SourceList={sources}", "-oDir::Etc::SourceParts=/dev/null",
               f"-oDir::State::Lists={cache / 'lists'}", f"-oDir::Cache={cache / 'cache'}"]
    run_checked(["apt-get", *options, "update"])
    run_checked(["apt-get", *options, "download", "hipify-perl"], cwd=cache)
    debs = sorted(cache.glob("hipify-perl_*_all.deb"))
    if not debs:
        raise BenchError("apt-get download hipify-perl produced no .deb")
    shutil.rmtree(cache / "pkg", ignore_errors=True)
    run_checked(["dpkg", "-x", str(debs[-1]), str(cache / "pkg")])
    if not script.is_file():
        raise BenchError(f"{debs[-1].name} holds no usr/bin/hipify-perl")
    return script, _deb_version(debs[-1])


def _deb_version(deb: Path) -> str:
    try:
        return run_checked(["dpkg-deb", "-f", str(deb), "Version"]).stdout.strip()
    except (BenchError, OSError):
        return deb.name.split("_")[1]


# --------------------------------------------------------------------------------------------
# Runs


@dataclass
class Run:
    """One timed run: wall seconds, CPU seconds of the timed processes, and CPU seconds that
    *other* processes used on the machine meanwhile (a run that shared the CPUs is skewed)."""

    wall: float
    cpu: float
    others: float

    def others_share(self, ncpu: int) -> float:
        return self.others / (self.wall * ncpu) if self.wall > 0 else 0.0


def _machine_busy_seconds() -> float:
    """CPU seconds all CPUs spent busy since boot (from /proc/stat), or NaN where unavailable."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds of this process and of every child process it has waited for."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


#: Seconds to wait for an idle machine before each timed run (set from --wait-idle).
WAIT_IDLE = 0.0
IDLE_SHARE = 0.10


def wait_for_idle(limit: float) -> None:
    """Wait (up to ``limit`` seconds) until other processes use under 10% of the CPUs for 2 s."""
    deadline = time.monotonic() + limit
    ncpu = _nproc()
    while True:
        busy = _machine_busy_seconds()
        time.sleep(2.0)
        share = (_machine_busy_seconds() - busy) / (2.0 * ncpu)
        if share < IDLE_SHARE or share != share:
            return
        if time.monotonic() >= deadline:
            print(f"  (machine still {100 * share:.0f}% busy after waiting {limit:.0f} s; timing anyway)")
            return


class Meter:
    """``with Meter() as m: ...`` then ``m.run`` holds the :class:`Run`."""

    def __enter__(self) -> "Meter":
        if WAIT_IDLE > 0:
            wait_for_idle(WAIT_IDLE)
        self._busy, self._cpu, self._start = _machine_busy_seconds(), _own_cpu(), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        wall = time.perf_counter() - self._start
        cpu = _own_cpu() - self._cpu
        others = max(0.0, _machine_busy_seconds() - self._busy - cpu)
        self.run = Run(wall, cpu, others)


@dataclass
class Timing:
    tool: str
    mode: str
    files: int
    lines: int
    run: Run
    runs: list[Run] = field(default_factory=list)

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.run.wall if self.run.wall > 0 else float("inf")


def best_and_median(runs: list[Run]) -> tuple[Run, Run]:
    """The fastest run and the median run (the lower middle one for an even count)."""
    ordered = sorted(runs, key=lambda r: r.wall)
    return ordered[0], ordered[(len(ordered) - 1) // 2]


def time_hipport(hipport: list[str], tree: Path, out: Path, repeat: int) -> tuple[list[Run], dict]:
    """Returns (one Run per repetition, the last run's JSON report).

    hipport runs with ``PYTHONDONTWRITEBYTECODE`` removed from its environment, as in
    ``bench_fixed_cost.py``: an installed hipport has its modules' bytecode (pip compiles it), and
    a process that compiles every module each time spends about 0.17 CPU s on that alone. The
    first repetition writes the bytecode where it is missing; the table takes the least CPU."""
    runs: list[Run] = []
    report: dict = {}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for i in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        with Meter() as meter:
            run_checked([*hipport, "convert", str(tree), "-o", str(out), "-q"], env=env)
        runs.append(meter.run)
        try:
            report = json.loads((out / "hipport-report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise BenchError(f"hipport wrote no readable report: {error}") from None
        print(f"  hipport run {i + 1}/{repeat}: {meter.run.wall:.3f} s, {meter.run.cpu:.2f} CPU s, "
              f"others {meter.run.others:.2f} CPU s (in-process conversion "
              f"{report.get('totals', {}).get('seconds', float('nan')):.3f} s)")
    return runs, report


def _balanced_bins(tree: Path, files: list[str], procs: int) -> list[list[str]]:
    """Split ``files`` into ``procs`` lists of about equal bytes (largest first)."""
    bins: list[list[str]] = [[] for _ in range(procs)]
    loads = [0] * procs
    for rel in sorted(files, key=lambda r: (-(tree / r).stat().st_size, r)):
        i = loads.index(min(loads))
        bins[i].append(rel)
        loads[i] += (tree / rel).stat().st_size
    return [sorted(b) for b in bins if b]


def _chunks(files: list[str]) -> list[list[str]]:
    chunks: list[list[str]] = [[]]
    size = 0
    for rel in files:
        if chunks[-1] and size + len(rel) + 1 > MAX_ARG_CHARS:
            chunks.append([])
            size = 0
        chunks[-1].append(rel)
        size += len(rel) + 1
    return chunks


def time_hipify_inplace(perl_script: Path, tree: Path, work: Path, files: list[str], procs: int) -> tuple[Run, int]:
    """hipify-perl -inplace on a fresh copy of the tree (the copy is not timed), ``procs``
    processes, each given its share of the files (balanced by bytes) in as few calls as the
    argument-length limit allows. Returns (the run, number of hipify-perl calls)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(tree, work)
    plan = [_chunks(b) for b in _balanced_bins(tree, files, procs)]

    def worker(chunks: list[list[str]]) -> None:
        for chunk in chunks:
            run_checked(["perl", str(perl_script), "-inplace", "-quiet-warnings", *chunk], cwd=work)

    with Meter() as meter, ThreadPoolExecutor(max_workers=procs) as pool:
        for future in [pool.submit(worker, chunks) for chunks in plan]:
            future.result()
    return meter.run, sum(len(c) for c in plan)


def time_hipify_per_file(perl_script: Path, tree: Path, work: Path, files: list[str], procs: int) -> tuple[Run, int]:
    """One ``hipify-perl -quiet-warnings IN -o=OUT`` call per file, ``procs`` at a time."""
    shutil.rmtree(work, ignore_errors=True)
    for rel in files:  # output folders made before the clock starts
        (work / rel).parent.mkdir(parents=True, exist_ok=True)

    def one(rel: str) -> None:
        out_rel = rel[:-3] + ".hip" if rel.endswith(".cu") else rel
        run_checked(["perl", str(perl_script), "-quiet-warnings", str(tree / rel), f"-o={work / out_rel}"])

    with Meter() as meter, ThreadPoolExecutor(max_workers=procs) as pool:
        list(pool.map(one, files))
    return meter.run, len(files)


# --------------------------------------------------------------------------------------------
# Sanity checks


_CUDA_CALL = re.compile(rb"\b(cuda[A-Z]\w*)\s*\(")
#: CUDA runtime functions both tools map (supported in rules/cuda_runtime.yaml); a call to one of
#: them left in code means the port missed it. User names such as ``cudaCheck_`` do not count.
_MAPPED_FUNCTIONS = frozenset(
    name.encode() for name in generate_tree.load_runtime_names(REPO / "rules" / "cuda_runtime.yaml").functions)
# Comments and string/character literals: a CUDA name there is not a call (and hipport keeps it).
_NON_CODE = re.compile(rb"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.DOTALL)


def _code_calls(data: bytes) -> int:
    """Calls of mapped CUDA runtime functions (``cudaX(``) in code, not in comments or literals."""
    return sum(name in _MAPPED_FUNCTIONS for name in _CUDA_CALL.findall(_NON_CODE.sub(b" ", data)))
_CUDA_HEADER = re.compile(rb"#\s*include\s*<(?:cuda|cuda_runtime|cuda_runtime_api|device_launch_parameters)\.h>")


@dataclass
class OutputCheck:
    name: str
    files: int = 0
    hip_runtime: int = 0
    hip_malloc: int = 0
    hip_launch: int = 0
    chevron: int = 0
    cuda_calls_left: int = 0
    problems: list[str] = field(default_factory=list)


def expected_from_input(tree: Path, files: list[str]) -> dict:
    needs_header = calls = 0
    for rel in files:
        data = (tree / rel).read_bytes()
        if rel.endswith(".cu") or _CUDA_HEADER.search(data):
            needs_header += 1
        calls += _code_calls(data)
    return {"files": len(files), "needs_hip_header": needs_header, "cuda_calls": calls}


def check_output(name: str, out: Path, expected: dict) -> OutputCheck:
    check = OutputCheck(name)
    for rel in source_files(out):
        data = (out / rel).read_bytes()
        check.files += 1
        check.hip_runtime += b"hip/hip_runtime" in data
        check.hip_malloc += b"hipMalloc" in data
        check.hip_launch += b"hipLaunchKernelGGL" in data
        check.chevron += b"<<<" in data
        check.cuda_calls_left += _code_calls(data)
    if check.files != expected["files"]:
        check.problems.append(f"{check.files} source files in the output, {expected['files']} in the input")
    if check.hip_runtime < 0.9 * expected["needs_hip_header"]:
        check.problems.append(f"only {check.hip_runtime} files include a HIP runtime header "
                              f"({expected['needs_hip_header']} need one)")
    if check.hip_malloc == 0:
        check.problems.append("no file mentions hipMalloc")
    if check.cuda_calls_left > 0.05 * expected["cuda_calls"]:
        check.problems.append(f"{check.cuda_calls_left} CUDA calls left unconverted "
                              f"(of {expected['cuda_calls']} in the input)")
    return check


# --------------------------------------------------------------------------------------------
# Report


def machine_info(hipport_python: str | None, perl_script: Path | None, deb_version: str | None) -> list[tuple[str, str]]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = [
        ("date (UTC)", dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M")),
        ("nproc", str(_nproc())),
        ("CPU", model),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python (benchmark)", platform.python_version()),
    ]
    if hipport_python:
        info.append(("Python (hipport)", hipport_python))
    info.append(("hipport source", _git_state()))
    if perl_script is not None:
        version = subprocess.run(["perl", str(perl_script), "-version"], capture_output=True, text=True)
        reported = (version.stdout + version.stderr).strip().splitlines()
        perl = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True).stdout.strip()
        info.append(("hipify-perl", f"Debian {deb_version} (prints '{reported[-1] if reported else '?'}'), perl {perl}"))
    return info


def _git_state() -> str:
    """The commit of the checkout and whether hipport's own files differ from it."""
    try:
        head = run_checked(["git", "-C", str(REPO), "log", "-1", "--format=%h %cd", "--date=format:%Y-%m-%d %H:%M"]).stdout.strip()
        dirty = run_checked(["git", "-C", str(REPO), "status", "--porcelain", "--", "hipport", "rules", "pyproject.toml"]).stdout
    except (BenchError, OSError):
        return "unknown (not a git checkout)"
    changed = len(dirty.splitlines())
    return f"git {head}" + (f" + uncommitted changes in {changed} file(s) under hipport/, rules/" if changed else "")


def _nproc() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _loadavg() -> str:
    """The 1/5/15-minute load averages: other work on the machine skews every figure."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _hipport_command(arg: str | None) -> tuple[list[str], str | None]:
    """The hipport command and the version of the Python it runs on."""
    if arg:
        exe = arg
    elif (REPO / ".venv" / "bin" / "hipport").is_file():
        exe = str(REPO / ".venv" / "bin" / "hipport")
    else:
        exe = shutil.which("hipport") or ""
    if not exe:
        raise BenchError("hipport not found: pass --hipport or install it")
    python = None
    try:
        first = Path(exe).read_text(errors="replace").splitlines()[0]
        if first.startswith("#!"):
            python = subprocess.run([*first[2:].split(), "-c", "import platform; print(platform.python_version())"],
                                    capture_output=True, text=True).stdout.strip() or None
    except (OSError, IndexError):
        pass
    return [exe], python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark hipport against hipify-perl on a generated tree.")
    parser.add_argument("--lines", type=int, default=generate_tree.DEFAULT_LINES,
                        help=f"lines of the generated tree (default {generate_tree.DEFAULT_LINES})")
    parser.add_argument("--seed", type=int, default=generate_tree.DEFAULT_SEED, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="hipport runs (best and median are shown; default 3)")
    parser.add_argument("--skip-hipify-perl", action="store_true", help="time hipport only")
    parser.add_argument("--hipify-procs", type=int, default=2,
                        help="parallel hipify-perl processes of the parallel modes (default 2)")
    parser.add_argument("--hipify-repeat", type=int, default=1,
                        help="runs of each hipify-perl mode (the fastest is shown; default 1)")
    parser.add_argument("--hipify-per-file", action="store_true",
                        help="also time one hipify-perl call per file (serial and parallel)")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                        help="before each timed run, wait up to SECONDS for other processes to use under "
                             "10%% of the CPUs (for shared machines; default 0: do not wait)")
    parser.add_argument("--tree", type=Path, help="tree folder (default build/bench/tree-LINES)")
    parser.add_argument("--regenerate", action="store_true", help="regenerate the tree even if it matches")
    parser.add_argument("--hipport", help="hipport executable (default .venv/bin/hipport, else PATH)")
    parser.add_argument("--require-ratio", type=float, default=None,
                        help="exit 1 unless hipport (median) reaches this multiple of every hipify-perl mode")
    parser.add_argument("--json", type=Path, default=WORK / "last-run.json", help="where to save the results")
    args = parser.parse_args(argv)
    if min(args.repeat, args.lines, args.hipify_procs, args.hipify_repeat) < 1:
        parser.error("--repeat, --lines, --hipify-procs and --hipify-repeat must be positive")

    global WAIT_IDLE
    WAIT_IDLE = args.wait_idle
    try:
        return _run(args)
    except BenchError as error:
        print(f"\nFAILED: {error}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    load_start = _loadavg()
    tree = args.tree or WORK / f"tree-{args.lines}"
    if args.tree is not None and not (args.tree / generate_tree.MANIFEST).is_file():
        # A tree of real code (a fetched CUDA project): measured as it is, never generated into.
        if not args.tree.is_dir():
            raise BenchError(f"--tree {args.tree}: not a folder")
        manifest = {"seed": None, "file_lines_min": None, "file_lines_max": None, "real_tree": True}
        print(f"measuring the tree {tree} as it is (no {generate_tree.MANIFEST}: not a generated tree)")
    else:
        manifest = ensure_tree(tree, args.lines, args.seed, args.regenerate)
    files = source_files(tree)
    lines = sum((tree / rel).read_bytes().count(b"\n") for rel in files)
    expected = expected_from_input(tree, files)
    hipport, hipport_python = _hipport_command(args.hipport)

    perl_script = deb_version = None
    if not args.skip_hipify_perl:
        if shutil.which("perl") is None:
            raise BenchError("perl is needed to run hipify-perl")
        perl_script, deb_version = ensure_hipify_perl(WORK / "hipify-perl")

    timings: list[Timing] = []
    checks: list[OutputCheck] = []
    ncpu = _nproc()

    print(f"timing hipport convert ({args.repeat} runs) ...")
    hipport_out = WORK / "out-hipport"
    runs, report = time_hipport(hipport, tree, hipport_out, args.repeat)
    totals = report.get("totals", {})
    best, median = best_and_median(runs)
    timings.append(Timing("hipport", f"`hipport convert -q`, default jobs, best of {args.repeat}",
                          len(files), lines, best, runs))
    timings.append(Timing("hipport", f"`hipport convert -q`, default jobs, median of {args.repeat}",
                          len(files), lines, median, runs))
    checks.append(check_output("hipport", hipport_out, expected))

    if perl_script is not None:
        modes = [("inplace", 1), ("inplace", args.hipify_procs)]
        if args.hipify_per_file:
            modes += [("per-file", 1), ("per-file", args.hipify_procs)]
        for kind, procs in dict.fromkeys(modes):
            label = f"{kind}-{procs}p"
            out = WORK / f"out-hipify-perl-{label}"
            print(f"timing hipify-perl, {kind}, {procs} process(es), {args.hipify_repeat} run(s) ...")
            perl_runs = []
            for _ in range(args.hipify_repeat):
                if kind == "inplace":
                    run, calls = time_hipify_inplace(perl_script, tree, out, files, procs)
                    mode = f"`-inplace`, many files per call ({calls} calls), {procs} proc{'s' if procs > 1 else ''}"
                else:
                    run, calls = time_hipify_per_file(perl_script, tree, out, files, procs)
                    mode = f"one call per file ({calls} calls), {procs} proc{'s' if procs > 1 else ''}"
                perl_runs.append(run)
                print(f"  {run.wall:.3f} s, {run.cpu:.2f} CPU s, others {run.others:.2f} CPU s")
            if args.hipify_repeat > 1:
                mode += f", best of {args.hipify_repeat}"
            timings.append(Timing("hipify-perl", mode, len(files), lines, best_and_median(perl_runs)[0], perl_runs))
            checks.append(check_output(f"hipify-perl {label}", out, expected))

    # ---- print
    hipport_median = timings[1]
    print()
    where = tree.relative_to(REPO) if tree.is_relative_to(REPO) else tree
    about = ("a tree of real code, measured as it is" if manifest.get("real_tree") else
             f"seed {manifest.get('seed')}, sizes {manifest.get('file_lines_min')}..{manifest.get('file_lines_max')} lines")
    print(f"## hipport vs hipify-perl: {len(files)} files, {lines:,} lines (tree {where}, {about})")
    print()
    rows = []
    for t in timings:
        ratio = "" if t.tool == "hipport" else f"{hipport_median.lines_per_second / t.lines_per_second:.1f}x"
        rows.append([t.tool, t.mode, str(t.files), f"{t.lines:,}", f"{t.run.wall:.2f}",
                     f"{t.lines_per_second:,.0f}", ratio, f"{t.run.cpu:.2f}", f"{100 * t.run.others_share(ncpu):.0f}%"])
    print(markdown_table(["tool", "mode", "files", "lines", "seconds", "lines/s", "hipport (median) / this",
                          "CPU s", "other load"], rows))
    print()
    print(f"CPU s: user + system time of the timed processes (all workers). other load: CPU time other "
          f"processes used meanwhile, as a share of the {ncpu} CPUs over the run.")
    hip_runs = ", ".join(f"{r.wall:.3f}" for r in runs)
    print(f"hipport runs (s): {hip_runs}; in-process conversion of the last run (report): "
          f"{totals.get('seconds', 'n/a')} s; {totals.get('references_rewritten', '?')} references rewritten, "
          f"{totals.get('kernel_launches', '?')} launches, {totals.get('parse_error_regions', '?')} parse-error regions")
    ratios = [(t.mode, hipport_median.lines_per_second / t.lines_per_second,
               timings[0].lines_per_second / t.lines_per_second, t.run.cpu / hipport_median.run.cpu)
              for t in timings if t.tool == "hipify-perl"]
    for mode, median_ratio, best_ratio, cpu_ratio in ratios:
        verdict = "meets" if median_ratio >= TARGET_RATIO else "MISSES"
        print(f"- vs hipify-perl {mode}: {median_ratio:.1f}x (hipport median), {best_ratio:.1f}x (best); "
              f"CPU time {cpu_ratio:.1f}x: {verdict} the {TARGET_RATIO:.0f}x target")
    skewed = [t for t in timings if t.run.others_share(ncpu) > 0.10]
    if skewed:
        print(f"WARNING: other processes used more than 10% of the machine during {len(skewed)} of the "
              f"{len(timings)} rows; wall-clock figures are skewed (compare the CPU s column, or rerun on an idle machine)")
    print()
    print("### Sanity checks (source files in each output)")
    print()
    print(f"input: {expected['files']} files, {expected['needs_hip_header']} need a HIP runtime header "
          f"(.cu or a CUDA runtime include), {expected['cuda_calls']} calls of mapped CUDA runtime functions in code (outside comments and literals)")
    print()
    check_rows = [[c.name, str(c.files), str(c.hip_runtime), str(c.hip_malloc), str(c.hip_launch), str(c.chevron),
                   str(c.cuda_calls_left), "ok" if not c.problems else "FAILED: " + "; ".join(c.problems)]
                  for c in checks]
    print(markdown_table(["output", "files", "with hip/hip_runtime*", "with hipMalloc", "with hipLaunchKernelGGL",
                          "with <<<", "CUDA calls left in code", "status"], check_rows))
    print()
    print("### Machine")
    print()
    info = machine_info(hipport_python, perl_script, deb_version)
    info.append(("load average at start / end", f"{load_start} / {_loadavg()}"))
    print(markdown_table(["", ""], [[k, v] for k, v in info]))

    failed = [c for c in checks if c.problems]
    result = {
        "manifest": manifest, "files": len(files), "lines": lines, "expected": expected,
        "timings": [{"tool": t.tool, "mode": t.mode, "seconds": t.run.wall, "cpu_seconds": t.run.cpu,
                     "other_cpu_seconds": t.run.others, "runs": [r.__dict__ for r in t.runs],
                     "lines_per_second": t.lines_per_second} for t in timings],
        "checks": [c.__dict__ for c in checks], "machine": dict(info),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if failed:
        print(f"\nFAILED: {', '.join(c.name for c in failed)} did not produce a valid port", file=sys.stderr)
        return 1
    if args.require_ratio is not None and any(r < args.require_ratio for _, r, _, _ in ratios):
        print(f"\nFAILED: hipport is below {args.require_ratio}x of hipify-perl", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
