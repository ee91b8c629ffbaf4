#!/usr/bin/env python3
"""The "no silent failure" check: port a CUDA tree, compile it for AMD, and find every compile
error that the migration report does not name.

    python scripts/no_silent_failure.py SRC [--out OUT] [--fix] [--target-libs hip|roc]
        [--exclude PATTERN ...] [-I DIR ...] [-D NAME[=VALUE] ...] [--arch gfx90a] [-j 2]
        [--program GLOB ...] [--json FILE] [--markdown FILE] [--no-baseline] [--timeout S]

1. ``hipport convert SRC -o OUT`` (OUT: ``--out``, else a temporary folder that is removed at
   the end), with ``--fix``, ``--target-libs``, ``--exclude`` passed through. SRC is never
   written to (hipport refuses an OUT inside SRC; so does this script).
2. Every translation unit of OUT that uses HIP is compiled for AMD (default ``gfx90a``) with the
   project toolchain (``hipport.toolchain.Toolchain.amd_compile_command``, compile only, plus
   ``-std=c++17`` as the tests compile ports, and ``-ferror-limit=0`` so that every error is
   read). A unit is a ``.hip`` file, or a ``.cpp``/``.cc``/
   ``.cxx`` file that includes a HIP header (``hip/...`` or a HIP/ROCm library header) directly or
   through the tree's own headers; a unit that another file ``#include``s is not compiled on its
   own (as its build would not). Include folders, in order: the unit's folder, every header folder
   of the tree above it (a child folder named ``Common``, ``common``, ``include``, ``inc`` of the
   unit's folder or of any folder up to OUT, nearest first), then the user's ``-I`` (a relative
   folder is taken relative to SRC, and its copy in OUT is used); ``-D`` as given.
3. clang's diagnostics are parsed (:func:`parse_diagnostics`): each ``error:`` / ``fatal error:``
   with its ``In file included from F:L:`` chain and the ``note:`` lines after it (instantiation
   ``requested here``, ``expanded from macro``, ``instantiated into assembly here``, candidates).
   An error is EXPLAINED when the report (``OUT/hipport-report.json``) has a finding, of any
   severity, on the error's line, or on a line of its include chain or of one of its notes, in a
   file of the tree (:func:`explain`); an error in code that a CUDA version test selects
   (``#if CUDART_VERSION >= ...`` with its HP1209 finding), or a name only such code declares, is
   explained by that finding (:func:`version_regions`). Output lines are mapped back to SRC lines (the converter
   may add lines, e.g. ``#include <hip/hip_runtime.h>``), since findings name SRC lines.
   A unit is ``ok`` (compiled), ``explained`` (every error explained), or ``unexplained``.
4. Baseline: an unexplained unit's original CUDA source is compiled with nvcc 12.4 for sm_90
   (``Toolchain.cuda_compile_command``, ``-c``, the same include folders in SRC). When that fails
   too, the unit is ``original-fails`` (the tree does not build here as CUDA either: a missing
   third-party header, an API newer than CUDA 12.4...), shown with nvcc's first error and not
   counted as a silent failure. ``--no-baseline`` skips this step.

A *program* is a folder that holds a translation unit (any C/C++/CUDA source) defining ``main``;
every unit belongs to the program of its nearest such folder (its own folder, else the closest
one above it); a unit with none belongs to a row of its own folder. Programs without a HIP unit
are not listed (counted in the summary).

"Uses only features HIP has": the program has no error-severity finding of an id in
:data:`MISSING_FEATURE_IDS` in its files (files under its folder, and the tree's headers its
units include, transitively, where the finding's name also occurs in the program's own files:
:func:`missing_features`). The summary gives the share of those programs that compile,
leaving out programs whose failure is ``original-fails``.

Exit status: 0 no unexplained failure; 1 at least one; 2 bad usage or input (a path that does
not exist, a conversion that failed, no toolchain), with a message naming the problem.
"""

from __future__ import annotations

import argparse
import bisect
import difflib
import fnmatch
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hipport.toolchain import Toolchain, ToolchainMissing  # noqa: E402

#: Finding ids that, at error severity, say the program needs something HIP does not have:
#: inline PTX (HP1001, HP1003), ``__reduce_*_sync`` (HP1109), dynamic parallelism (HP1202),
#: ``nvcuda::wmma`` (HP1205; rocWMMA is a separate library with another API), surface references
#: (HP1207), multi-device cooperative launches (HP1208), libcu++ (HP1204: ``cuda::barrier``,
#: ``cuda::pipeline``, ``cuda::std::``; ROCm 6.4 ships no such library), host runtime calls in device code
#: (HP1211: HIP has no device-side runtime API), a CUDA name with no HIP counterpart (HP2001), a
#: name CUDA itself removed (HP2002), NVIDIA's old cutil SDK library (HP2009), a ported header no
#: HIP/ROCm 6.4 package ships (HP2016: hipdnn.h), a CUDA library with no HIP/ROCm counterpart (HP3005). Left out on purpose: code fixes for features HIP has
#: (HP1102, HP1111-HP1113 lane masks and warp size, HP1213 ``register``, HP1215 and HP2006 vector
#: types, HP2010 calls whose HIP twin takes other arguments) and the build findings
#: HP3002/HP3003 (the build file, not the program's features).
MISSING_FEATURE_IDS: frozenset[str] = frozenset(
    {"HP1001", "HP1003", "HP1109", "HP1202", "HP1204", "HP1205", "HP1207", "HP1208", "HP1211", "HP2001", "HP2002",
     "HP2009", "HP2016", "HP3005"})

#: Suffixes of translation units (``discover.UNIT_SUFFIXES``) and of the sources scanned for
#: includes and ``main``.
UNIT_SUFFIXES = (".cu", ".hip", ".cpp", ".cc", ".cxx", ".c")
HIP_CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
SCANNED_SUFFIXES = UNIT_SUFFIXES + (".cuh", ".h", ".hpp", ".hxx", ".inl", ".inc", ".hh")
#: Child folder names taken as a tree's header folders.
HEADER_DIR_NAMES = ("Common", "common", "include", "inc")
#: Files that make a folder a project's root (program grouping).
BUILD_FILES = ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile")
#: Include paths that mean "this file uses HIP" (the HIP runtime and the HIP/ROCm libraries a
#: port includes).
HIP_INCLUDE = re.compile(
    r"^(hip/|hipblas|hipcub/|hipfft/|hiprand/|hipsparse/|hipsolver/|hipblaslt/|hipdnn|rocblas/|rocrand/|"
    r"rocsparse/|rocsolver/|rocprim/|rocfft/|rocthrust|rocwmma/|miopen/|rccl/|thrust/)")
STATUS_ORDER = ("ok", "explained", "original-fails", "unexplained")

_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_MAIN_RE = re.compile(rb"(?:^|[\s;}])(?:int|void|auto)[\s*&]+main[ \t]*\(", re.M)
_COMMENT_RE = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_DIAG_RE = re.compile(r"^(?P<file>[^\s].*?):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<kind>fatal error|error|warning|note|remark): (?P<msg>.*)$")
_NOLOC_RE = re.compile(r"^(?:(?P<tool>[^\s:]+): )?(?P<kind>fatal error|error): (?P<msg>.*)$")
_INCLUDED_RE = re.compile(r"^In file included from (?P<file>.+?):(?P<line>\d+):$")
_SNIPPET_RE = re.compile(r"^\s*(\d+\s*)?\|")
_IGNORED_ERRORS = ("too many errors emitted",)
_UNDEFINED_DEVICE_SYMBOL = re.compile(r"lld: (?:error: )?undefined (?:hidden )?symbol")


# --------------------------------------------------------------------------- diagnostics
@dataclass
class Site:
    """A place a diagnostic points at: ``file`` as clang printed it, 1-based ``line``, and
    ``kind``: ``include`` (an ``In file included from`` line) or ``note`` (a note's location)."""

    file: str
    line: int
    kind: str
    message: str = ""


@dataclass
class Diagnostic:
    """One clang error. ``file``/``line``/``column`` are None for an error without a location
    (a driver error); ``chain`` holds its include chain (outermost first) and then its notes."""

    file: str | None
    line: int | None
    column: int | None
    message: str
    fatal: bool = False
    chain: list[Site] = field(default_factory=list)

    def key(self) -> tuple:
        return (self.file, self.line, self.column, self.message)


def parse_diagnostics(text: str) -> list[Diagnostic]:
    """Parse clang's (or nvcc's host-compiler-style) diagnostics into errors with their chains.

    Args:
        text: the compiler's standard error.

    Returns:
        The errors in order, duplicates (same file, line, column, message: HIP compiles host and
        device code separately and may print an error twice) left out. Warnings and their notes
        are dropped; ``In file included from`` lines are attached to the diagnostic that follows
        them. clang prints an include stack only when it differs from the last one it printed
        or skipped (a note's stack is not printed, but counts): an error printed without one, in
        a file whose stack an earlier error or warning showed, gets that file's last printed
        stack (Rodinia's mummergpu: the second and third "excess elements in scalar
        initializer" inside HIP's amd_hip_vector_types.h, after a note in the same file). A file
        with no stack ever printed is the main file, with an empty chain. ``note:`` lines are
        attached to the last error. clang prints a template's
        instantiation stack (``note: in instantiation of ... requested here``) only when it differs
        from the one printed last, so an error with no such note of its own, in the same file as
        the error printed just before it and at most :data:`SAME_INSTANTIATION_LINES` lines after
        it, is given that error's instantiation notes (a static assertion in a HIP template and the
        failed call on the next line share one). Source snippet lines
        (``  12 | code``) and ``N errors generated`` lines are skipped, as is clang's
        ``too many errors emitted`` line.
    """
    errors: list[Diagnostic] = []
    seen: set[tuple] = set()
    pending: list[Site] = []
    stacks: dict[str, list[Site]] = {}  # file -> the include stack last printed for it
    current: Diagnostic | None = None  # the error that notes attach to (None after a warning)
    printed: Diagnostic | None = None  # the error whose notes are being read (a duplicate: its first print)
    done: Diagnostic | None = None  # the error printed before it, notes complete
    first: dict[tuple, Diagnostic] = {}
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line or _SNIPPET_RE.match(line):
            continue
        inc = _INCLUDED_RE.match(line)
        if inc:
            pending.append(Site(inc["file"], int(inc["line"]), "include"))
            continue
        m = _DIAG_RE.match(line)
        if m:
            kind, msg = m["kind"], m["msg"]
            if kind != "note":
                if pending:
                    stacks[m["file"]] = list(pending)
                else:
                    pending = list(stacks.get(m["file"], ()))
            if kind == "note":
                if current is not None:
                    current.chain.append(Site(m["file"], int(m["line"]), "note", msg))
            elif kind in ("error", "fatal error") and not msg.startswith(_IGNORED_ERRORS):
                d = Diagnostic(m["file"], int(m["line"]), int(m["col"]) if m["col"] else None, msg,
                               fatal=kind == "fatal error", chain=list(pending))
                done = _finish(done, printed, current)
                printed = first.setdefault(d.key(), d)
                if d.key() in seen:
                    current = None
                else:
                    seen.add(d.key())
                    errors.append(d)
                    current = d
            else:
                _finish(done, printed, current)
                current = printed = done = None
            pending = []
            continue
        m = _NOLOC_RE.match(line)
        if m and not m["msg"].startswith(_IGNORED_ERRORS):
            d = Diagnostic(None, None, None, (f"{m['tool']}: " if m["tool"] else "") + m["msg"],
                           fatal=m["kind"] == "fatal error")
            if d.key() not in seen:
                seen.add(d.key())
                errors.append(d)
            _finish(done, printed, current)
            current = printed = done = None
            pending = []
    _finish(done, printed, current)
    return errors


#: How far after an error with an instantiation stack an error with none may be and still be
#: taken to be in the same instantiation (see :func:`parse_diagnostics`).
SAME_INSTANTIATION_LINES = 30


def _instantiation_notes(d: Diagnostic) -> list[Site]:
    return [site for site in d.chain if site.kind == "note" and site.message.startswith("in instantiation of")]


def _finish(done: Diagnostic | None, printed: Diagnostic | None, current: Diagnostic | None) -> Diagnostic | None:
    """The notes of ``printed`` are complete: when it was new (``current``), let it inherit the
    instantiation of ``done``, the error printed before it. Returns the error now done."""
    if printed is not None and printed is current:
        _inherit_instantiation(done, printed)
    return printed


def _inherit_instantiation(previous: Diagnostic | None, d: Diagnostic | None) -> None:
    """Give the error ``d``, whose notes are complete, the instantiation notes of ``previous``
    (the error printed just before it) when it has none and follows it closely in one file."""
    if (d is None or previous is None or previous is d or d.file != previous.file or d.line is None
            or previous.line is None or not 0 <= d.line - previous.line <= SAME_INSTANTIATION_LINES
            or _instantiation_notes(d)):
        return
    d.chain.extend(_instantiation_notes(previous))


# --------------------------------------------------------------------------- report and line maps
def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def line_map(src_bytes: bytes, out_bytes: bytes) -> list[int | None] | None:
    """Map each line of a ported file to the SRC line it came from.

    Args:
        src_bytes / out_bytes: the original and the ported file's content.

    Returns:
        None when both have the same number of lines (the identity: renames never add lines);
        otherwise a list, index = output line - 1, value = 1-based SRC line, or None for a line
        the converter added. Computed with difflib on whole lines; inside a changed block of
        another length, lines are paired by similarity (:func:`_pair`).
    """
    a, b = _lines(src_bytes), _lines(out_bytes)
    if len(a) == len(b):
        return None
    result: list[int | None] = [None] * len(b)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(j2 - j1):
                result[j1 + k] = i1 + k + 1
        elif tag == "replace":
            for k, i in enumerate(_pair(a[i1:i2], b[j1:j2])):
                result[j1 + k] = None if i is None else i1 + i + 1
    return result


def _pair(a: list[bytes], b: list[bytes]) -> list[int | None]:
    """For each line of ``b``, the index of the line of ``a`` it came from (or None): lines are
    paired in order, each with its most similar counterpart, so that when ``b`` has more lines
    the surplus (lines the converter added) pairs with nothing, and when it has fewer each
    ``b`` line takes its closest ``a`` line."""
    ratio = lambda x, y: difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()  # noqa: E731
    out: list[int | None] = [None] * len(b)
    if len(b) >= len(a):
        j = 0
        for i, line in enumerate(a):
            best = max(range(j, len(b) - (len(a) - i) + 1), key=lambda k: ratio(line, b[k]))
            out[best], j = i, best + 1
    else:
        i = 0
        for k, line in enumerate(b):
            best = max(range(i, len(a) - (len(b) - k) + 1), key=lambda x: ratio(a[x], line))
            out[k], i = best, best + 1
    return out


class Report:
    """The findings of ``hipport-report.json``, indexed by SRC file and line, and the mapping of
    OUT files back to SRC files and lines.

    Args:
        src: the SRC given to ``hipport convert`` (file or folder).
        out: its OUT folder (holding ``hipport-report.json``).

    Raises:
        OSError / ValueError: the report is missing or not valid JSON.
    """

    def __init__(self, src: Path, out: Path) -> None:
        self.src = src.resolve()
        self.out = out.resolve()
        self.src_root = self.src if self.src.is_dir() else self.src.parent
        data = json.loads((self.out / "hipport-report.json").read_text(encoding="utf-8"))
        self.findings: list[dict] = data.get("findings", [])
        self.by_line: dict[tuple[str, int], list[dict]] = {}
        for f in self.findings:
            self.by_line.setdefault((f["path"], int(f["line"])), []).append(f)
        self.out_to_src: dict[str, str] = {f["output"]: f["path"] for f in data.get("files", [])}
        self._maps: dict[str, list[int | None] | None] = {}
        self.version_regions: list[VersionRegion] = version_regions(self.src_root, self.findings)

    def rel_out(self, file: str | os.PathLike) -> str | None:
        """The OUT-relative POSIX path of ``file`` (as clang printed it), or None outside OUT."""
        p = Path(file)
        try:
            return p.resolve().relative_to(self.out).as_posix()
        except (ValueError, OSError):
            return None

    def src_site(self, out_rel: str, line: int) -> tuple[str, int] | None:
        """The (SRC path as the report names it, SRC line) of an OUT file's line, or None when
        the file is not in the report or the line was added by the converter."""
        src_rel = self.out_to_src.get(out_rel)
        if src_rel is None:
            return None
        if out_rel not in self._maps:
            try:
                self._maps[out_rel] = line_map((self.src_root / src_rel).read_bytes(), (self.out / out_rel).read_bytes())
            except OSError:
                self._maps[out_rel] = None
        m = self._maps[out_rel]
        if m is None:
            return src_rel, line
        if 1 <= line <= len(m) and m[line - 1] is not None:
            return src_rel, m[line - 1]
        return None

    def findings_at(self, file: str, line: int) -> list[dict]:
        """The findings on the SRC line behind ``file:line`` (a path clang printed)."""
        rel = self.rel_out(file)
        if rel is None:
            return []
        site = self.src_site(rel, line)
        return self.by_line.get(site, []) if site else []


def explain(diag: Diagnostic, report: Report, closure: "set[str] | None" = None) -> list[dict]:
    """The findings that explain a compile error: those on its own line, else those on the lines
    of its include chain and notes (every site in a file of the tree), else the finding of a
    CUDA version test whose ``#if`` governs the error (:func:`version_regions`): the error's line,
    or a line of its chain, lies in that conditional, or the error says a name is undeclared
    (``use of undeclared identifier 'X'``, ``unknown type name 'X'``...) that the tree declares
    only where such a test decides (its groups, or tree files it ``#include`` there), in a
    file the unit reads: ``closure`` (OUT-relative paths of the files the unit includes,
    transitively, itself included; None: any file of the tree), so that a version test in another
    program of the tree explains nothing here.
    Empty: unexplained."""
    if diag.file is None:
        return []
    own = report.findings_at(diag.file, diag.line)
    if own:
        return own
    found: list[dict] = []
    for site in diag.chain:
        for f in report.findings_at(site.file, site.line):
            if f not in found:
                found.append(f)
    if found or not report.version_regions:
        return found
    sites = [(diag.file, diag.line), *((c.file, c.line) for c in diag.chain)]
    for file, line in sites:
        rel = report.rel_out(file)
        site = report.src_site(rel, line) if rel else None
        if site is None:
            continue
        for region in report.version_regions:
            if region.path == site[0] and region.first <= site[1] <= region.last:
                return [region.finding]
    missing = _UNDECLARED_RE.search(diag.message)
    if missing:
        read = None if closure is None else {report.out_to_src[rel] for rel in closure if rel in report.out_to_src}
        for region in report.version_regions:
            if missing.group(1) in region.names and (read is None or region.path in read):
                return [region.finding]
    return found


# --------------------------------------------------------------------------- version tests
#: Findings that say a preprocessor test on a CUDA version or architecture macro takes another
#: branch in a HIP build (HP1209 cuda-version-macro: ``#if CUDART_VERSION >= 2020``,
#: ``#if __CUDA_ARCH__ >= 700``): code of that conditional, and names only it declares, are the
#: finding's consequences.
VERSION_TEST_IDS = frozenset({"HP1209"})
_UNDECLARED_RE = re.compile(
    r"(?:use of undeclared identifier|unknown type name|no template named|no member named|"
    r"use of undeclared label|no type named) '([A-Za-z_][A-Za-z0-9_]*)'")
_DIRECTIVE_RE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")


@dataclass
class VersionRegion:
    """A conditional (``#if`` ... ``#endif``, lines ``first``-``last`` of SRC file ``path``, all its
    groups) one of whose controlling lines (``#if``/``#elif``) carries ``finding`` (a
    :data:`VERSION_TEST_IDS` finding). ``names``: the identifiers in its groups and in the tree's
    files that its groups ``#include`` (directly; quoted includes, resolved next to the file)."""

    path: str
    first: int
    last: int
    finding: dict
    names: frozenset[str]


def version_regions(src_root: Path, findings: list[dict]) -> list[VersionRegion]:
    """The conditionals of the tree that a CUDA version test governs (see :class:`VersionRegion`).

    Args:
        src_root: the converted SRC folder; findings name files relative to it.
        findings: the report's findings (``path``, ``line``, ``rule_id``).

    Unreadable files are skipped. Comments are not removed: a directive inside a block comment
    is rare in the trees checked and would at worst widen a region."""
    lines_with: dict[str, dict[int, dict]] = {}
    for f in findings:
        if f.get("rule_id") in VERSION_TEST_IDS:
            lines_with.setdefault(f["path"], {}).setdefault(int(f["line"]), f)
    regions: list[VersionRegion] = []
    for path, marked in sorted(lines_with.items()):
        try:
            text = (src_root / path).read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            continue
        stack: list[tuple[int, dict | None]] = []  # (#if line, finding on a controlling line)
        for n, raw in enumerate(text, 1):
            m = _DIRECTIVE_RE.match(raw)
            if not m:
                continue
            kind = m.group(1)
            if kind.startswith("if"):
                stack.append((n, marked.get(n)))
            elif kind.startswith("elif") and stack:
                start, found = stack[-1]
                stack[-1] = (start, found or marked.get(n))
            elif kind == "endif" and stack:
                start, found = stack.pop()
                if found is not None:
                    body = "\n".join(text[start - 1:n])
                    names = set(_IDENT_RE.findall(body))
                    for inc in re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', body, re.M):
                        try:
                            names |= set(_IDENT_RE.findall(
                                (src_root / path).parent.joinpath(inc).read_text(encoding="utf-8", errors="replace")))
                        except OSError:
                            pass
                    regions.append(VersionRegion(path, start, n, found, frozenset(names)))
    return regions


# --------------------------------------------------------------------------- the tree
def _strip_comments(data: bytes) -> bytes:
    return _COMMENT_RE.sub(b" ", data)


def defines_main(data: bytes) -> bool:
    """Whether a source file defines (or declares at file scope) ``main``: ``int main(``,
    ``void main(``, ``auto main(`` outside comments."""
    return bool(_MAIN_RE.search(_strip_comments(data)))


def header_dirs(folder: Path, root: Path) -> list[Path]:
    """The tree's header folders seen from ``folder``: children named in HEADER_DIR_NAMES of
    ``folder`` and of each folder above it up to ``root`` (inclusive), nearest first."""
    dirs: list[Path] = []
    d = folder
    while True:
        for name in HEADER_DIR_NAMES:
            c = d / name
            if c.is_dir() and c not in dirs:
                dirs.append(c)
        if d == root or root not in d.parents:
            break
        d = d.parent
    return dirs


@dataclass
class TreeScan:
    """Includes and ``main`` of every source file of a tree (paths relative to ``root``)."""

    root: Path
    includes: dict[str, list[tuple[str, str]]]  # file -> [(delimiter, include path)]
    mains: set[str]
    _program_dirs: set[str] | None = None

    @classmethod
    def scan(cls, root: Path) -> "TreeScan":
        includes: dict[str, list[tuple[str, str]]] = {}
        mains: set[str] = set()
        for p in sorted(root.rglob("*")):
            if not p.is_file() or p.suffix.lower() not in SCANNED_SUFFIXES:
                continue
            rel = p.relative_to(root).as_posix()
            try:
                data = p.read_bytes()
            except OSError:
                continue
            code = _strip_comments(data)
            includes[rel] = [(m.group(1).decode(), m.group(2).decode("latin-1").strip())
                             for m in _INCLUDE_RE.finditer(code)]
            if p.suffix.lower() in UNIT_SUFFIXES and defines_main(data):
                mains.add(rel)
        return cls(root, includes, mains)

    def resolve(self, including: str, delim: str, name: str, extra: Sequence[Path]) -> str | None:
        """The tree file (relative path) an include names, or None (a system or missing header)."""
        here = (self.root / including).parent
        candidates = ([here] if delim == '"' else []) + list(header_dirs(here, self.root)) + list(extra)
        for d in candidates:
            p = d / name
            try:
                rel = p.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                continue
            if rel in self.includes:
                return rel
        return None

    def closure(self, unit: str, extra: Sequence[Path]) -> tuple[set[str], bool]:
        """(tree files ``unit`` includes transitively, itself included; whether any of them
        includes a HIP header)."""
        seen, todo, hip = {unit}, [unit], False
        while todo:
            f = todo.pop()
            for delim, name in self.includes.get(f, []):
                if HIP_INCLUDE.match(name):
                    hip = True
                r = self.resolve(f, delim, name, extra)
                if r is not None and r not in seen:
                    seen.add(r)
                    todo.append(r)
        return seen, hip

    def included_units(self, extra: Sequence[Path]) -> set[str]:
        """Translation-unit files (by suffix) that another file of the tree includes."""
        out = set()
        for f, incs in self.includes.items():
            for delim, name in incs:
                r = self.resolve(f, delim, name, extra)
                if r is not None and r != f and Path(r).suffix.lower() in UNIT_SUFFIXES:
                    out.add(r)
        return out

    def program_dirs(self) -> set[str]:
        """The program folders (relative, ``.`` for the root): for each file defining ``main``,
        the nearest folder at or above it that holds a build file (BUILD_FILES) and is not the
        tree's root, else the file's own folder. So ``proj/app/main.cu`` and ``proj/src/*.cu``
        of a project built by ``proj/CMakeLists.txt`` are one program, ``proj``."""
        if getattr(self, "_program_dirs", None) is None:
            dirs = set()
            for m in self.mains:
                own = Path(m).parent
                d, found = own, None
                while d != Path("."):
                    if any((self.root / d / b).is_file() for b in BUILD_FILES):
                        found = d
                        break
                    d = d.parent
                dirs.add((found or own).as_posix())
            self._program_dirs = dirs
        return self._program_dirs

    def program_of(self, unit: str) -> str:
        """The program folder of a unit: the nearest program folder at or above it, else (a unit
        of no program) the unit's own folder."""
        dirs = self.program_dirs()
        d = Path(unit).parent
        while True:
            if d.as_posix() in dirs:
                return d.as_posix()
            if d == Path("."):
                return Path(unit).parent.as_posix()
            d = d.parent


# --------------------------------------------------------------------------- compiling
@dataclass
class ErrorResult:
    """One compile error, as shown in the results: ``file`` relative to OUT (or as printed when
    outside it), its line, message, ported source line, and the findings that explain it."""

    file: str | None
    line: int | None
    message: str
    source_line: str = ""
    explained_by: list[str] = field(default_factory=list)  # "HP2001 path:line"


@dataclass
class UnitResult:
    """The result of one translation unit (``unit`` relative to OUT)."""

    unit: str
    status: str  # ok | explained | unexplained | original-fails
    seconds: float = 0.0
    errors: list[ErrorResult] = field(default_factory=list)
    first_unexplained: ErrorResult | None = None
    baseline_error: str | None = None
    command: list[str] = field(default_factory=list)
    rdc: bool = False  # compiled with -fgpu-rdc (device code defined in other units)


@dataclass
class ProgramResult:
    """The units of one program and what its files' findings say."""

    program: str
    units: list[UnitResult]
    missing_feature_findings: list[str]  # "HP1001 path:line"

    @property
    def status(self) -> str:
        return max((u.status for u in self.units), key=STATUS_ORDER.index, default="ok")

    @property
    def only_hip_features(self) -> bool:
        return not self.missing_feature_findings


def _source_line(out: Path, rel: str | None, line: int | None) -> str:
    if rel is None or line is None:
        return ""
    try:
        lines = (out / rel).read_bytes().split(b"\n")
    except OSError:
        return ""
    return lines[line - 1].decode("utf-8", "replace").strip() if 0 < line <= len(lines) else ""


def _display(report: Report, file: str | None) -> str | None:
    if file is None:
        return None
    return report.rel_out(file) or file


def classify(stderr: str, report: Report, unit: str,
             closure: "set[str] | None" = None) -> tuple[str, list[ErrorResult], ErrorResult | None]:
    """Status (``explained``/``unexplained``) and error results of a failed compile's stderr
    (``closure``: the OUT-relative files the unit reads, see :func:`explain`).

    An error with no finding of its own is a *consequence* of an earlier explained error of the
    same unit when its message quotes a name (not a C++ keyword) that the earlier error quoted or
    that stands on the earlier error's line: clang's recovery, e.g. ``unknown type name
    'cudaLaunchAttribute'; did you mean 'hipLaunchAttributeID'?`` (explained) and then ``member
    reference base type 'hipLaunchAttributeID' is not a structure or union`` on each use.
    Its ``explained_by`` reads ``consequence of <finding>``. Likewise an error on a later line of
    a call (or any parenthesised expression) that is still open there, when an explained error
    stands on the line that opened it: clang's recovery from the call's first line (``use of
    undeclared identifier 'cublasLtMatrixLayoutInit'; did you mean 'hipblasLtMatrixLayoutCreate'?``)
    continues with errors on its argument lines (``cannot initialize a parameter of type ...``),
    see :func:`open_paren_lines`.

    A compile that failed without any parsable error (killed, crashed) is ``unexplained`` with
    the last line of its output as message."""
    diags = parse_diagnostics(stderr)
    results: list[ErrorResult] = []
    first: ErrorResult | None = None
    explained_names: dict[str, str] = {}  # name -> the explaining finding of an earlier error
    explained_lines: dict[tuple[str, int], str] = {}  # (OUT file, line) of an explained error -> its finding
    for d in diags:
        found = explain(d, report, closure)
        rel = _display(report, d.file)
        e = ErrorResult(rel, d.line, d.message, _source_line(report.out, report.rel_out(d.file) if d.file else None, d.line),
                        [f"{f['rule_id']} {f['path']}:{f['line']}" for f in found])
        if found:
            for name in _quoted_names(d.message) | set(_IDENT_RE.findall(e.source_line)):
                explained_names.setdefault(name, e.explained_by[0])
            if d.file is not None and d.line is not None:
                explained_lines.setdefault((d.file, d.line), e.explained_by[0])
        else:
            cause = next((explained_names[n] for n in sorted(_quoted_names(d.message)) if n in explained_names), None)
            if cause is None and d.file is not None and d.line is not None:
                opened = open_paren_lines(_file_lines(report.out, report.rel_out(d.file)), d.line)
                cause = next((explained_lines[(d.file, k)] for k in opened if (d.file, k) in explained_lines), None)
            if cause:
                e.explained_by = [f"consequence of {cause}"]
        results.append(e)
        if not e.explained_by and first is None:
            first = e
    if not diags:
        tail = [l for l in stderr.strip().splitlines() if l.strip()]
        first = ErrorResult(unit, None, tail[-1] if tail else "compiler failed without a message")
        results.append(first)
    return ("unexplained" if first else "explained"), results, first


_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: String and character literals and // comments: their parentheses do not count.
_NOT_CODE_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//.*')
#: How far back :func:`open_paren_lines` looks for the line that opened a call.
OPEN_CALL_LOOKBACK = 40


def _file_lines(out: Path, rel: str | None) -> list[str]:
    """The lines of OUT file ``rel`` (empty when it is outside OUT or unreadable)."""
    if rel is None:
        return []
    try:
        return (out / rel).read_bytes().decode("utf-8", "replace").split("\n")
    except OSError:
        return []


def open_paren_lines(lines: Sequence[str], line: int) -> list[int]:
    """The 1-based lines before ``line`` that opened a parenthesis still open where ``line``
    starts, innermost first: for line 3 of ``f(a,\n  g(b,\n     c));`` that is [2, 1]. The
    walk back stops at a line that ends an earlier statement or block (``;``, ``{`` or ``}``
    with no parenthesis of it still open) or after :data:`OPEN_CALL_LOOKBACK` lines; literals and
    // comments are left out of the count (/* */ comments are not, a rare miscount that can only
    stop the walk early or name one more line)."""
    found: list[int] = []
    depth = 0  # parentheses opened minus closed from the walked line to the end of line - 1
    peak = 0  # the largest depth of the lines walked so far
    for k in range(line - 1, max(0, line - 1 - OPEN_CALL_LOOKBACK), -1):
        if k > len(lines):
            continue
        code = _NOT_CODE_RE.sub("", lines[k - 1])
        depth += code.count("(") - code.count(")")
        if depth > peak:
            found.append(k)
            peak = depth
        elif depth <= 0 and any(c in code for c in ";{}"):
            break
    return found
_NOT_NAMES = frozenset("""auto bool char char16_t char32_t const double float int long short signed unsigned void
    volatile struct class union enum typename template operator size_t std""".split())


def _quoted_names(message: str) -> set[str]:
    """Identifiers quoted in a clang message (``'hipLaunchAttributeID'``, ``'f<int>'`` gives
    ``f``), less C++ keywords and built-in type names."""
    names = set()
    for quoted in re.findall(r"'([^']+)'", message):
        names |= {n for n in _IDENT_RE.findall(quoted) if n not in _NOT_NAMES}
    return names


def _include_flags(dirs: Iterable[Path], defines: Sequence[str]) -> list[str]:
    flags: list[str] = []
    for d in dirs:
        flags += ["-I", str(d)]
    for d in defines:
        flags.append(f"-D{d}")
    return flags


@dataclass
class Options:
    """What to check: see the module docstring for each option's meaning."""

    src: Path
    out: Path | None = None
    fix: bool = False
    target_libs: str = "hip"
    exclude: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    arch: str = "gfx90a"
    jobs: int = 2
    programs: tuple[str, ...] = ()
    baseline: bool = True
    timeout: float = 600
    std: str = "c++17"
    time_limit: float = 0  # seconds after which no new compile starts (0: none); results are then partial
    shuffle: int | None = None  # compile programs in this seed's random order (results stay sorted)
    stream: Path | None = None  # write each unit's result to this JSON-lines file as it finishes
    opt: str = ""  # an optimisation flag placed after the toolchain's -O2 (e.g. "-O0"); "" keeps -O2


class CheckError(Exception):
    """Bad input or a failed step before compiling (exit 2): the message says what."""


def convert(options: Options, out: Path) -> None:
    """Run ``hipport convert`` (the installed CLI, through this interpreter) into ``out``.

    Raises:
        CheckError: SRC does not exist, OUT lies inside SRC, or the conversion failed.
    """
    src = options.src
    if not src.exists():
        raise CheckError(f"{src}: no such file or folder")
    if src.is_dir() and (out.resolve() == src.resolve() or src.resolve() in out.resolve().parents):
        raise CheckError(f"{out}: the output folder must not be inside the source tree {src}")
    cmd = [sys.executable, "-c", "import sys; from hipport.cli import main; sys.exit(main())",
           "convert", str(src), "-o", str(out), "-q", "-j", str(max(1, options.jobs)),
           "--target-libs", options.target_libs]
    if options.fix:
        cmd.append("--fix")
    for pattern in options.exclude:
        cmd += ["--exclude", pattern]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0 or not (out / "hipport-report.json").is_file():
        raise CheckError(f"hipport convert {src} failed (exit {done.returncode}):\n{(done.stderr or done.stdout).strip()}")


def _user_dirs(options: Options, root: Path, src_root: Path) -> list[Path]:
    """User -I folders for the tree ``root`` (OUT or SRC): relative ones and ones inside SRC are
    taken in ``root``."""
    dirs = []
    for inc in options.includes:
        p = Path(inc)
        if not p.is_absolute():
            dirs.append(root / p)
            continue
        try:
            dirs.append(root / p.resolve().relative_to(src_root.resolve()))
        except ValueError:
            dirs.append(p)
    return dirs


def run_check(options: Options, toolchain: Toolchain | None = None, log=None) -> dict:
    """Convert, compile and classify; return the JSON-ready results (see ``--json``).

    Args:
        options: what to check.
        toolchain: the loaded toolchain (default ``Toolchain.load()``).
        log: a callable taking one line of progress, or None.

    Raises:
        CheckError: bad input, conversion failed, or the toolchain is missing.
    """
    if not options.src.exists():
        raise CheckError(f"{options.src}: no such file or folder")
    if toolchain is None:
        try:
            toolchain = Toolchain.load()
        except ToolchainMissing as exc:
            raise CheckError(str(exc)) from None
    started = time.time()
    tmp = None
    out = options.out
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="hipport-nsf-")
        out = Path(tmp.name) / "out"
    try:
        convert(options, out)
        return _check_converted(options, out, toolchain, log, started)
    finally:
        if tmp is not None:
            tmp.cleanup()


def _check_converted(options: Options, out: Path, toolchain: Toolchain, log, started: float) -> dict:
    report = Report(options.src, out)
    src_root = report.src_root
    out = report.out
    scan = TreeScan.scan(out)
    user_out = _user_dirs(options, out, src_root)
    included = scan.included_units(user_out)
    units: list[str] = []
    closures: dict[str, set[str]] = {}
    for rel in sorted(scan.includes):
        suffix = Path(rel).suffix.lower()
        if suffix not in (".hip",) + HIP_CXX_SUFFIXES or rel in included:
            continue
        closure, hip = scan.closure(rel, user_out)
        if suffix != ".hip" and not hip:
            continue
        units.append(rel)
        closures[rel] = closure
    by_program: dict[str, list[str]] = {}
    for u in units:
        by_program.setdefault(scan.program_of(u), []).append(u)
    if options.programs:
        by_program = {p: us for p, us in by_program.items() if any(fnmatch.fnmatch(p, g) for g in options.programs)}
    all_programs = {scan.program_of(m) for m in scan.mains}
    objdir = Path(tempfile.mkdtemp(prefix="hipport-nsf-obj-"))

    def compile_unit(job: tuple[int, str]) -> UnitResult:
        n, unit = job
        folder = (out / unit).parent
        dirs = [folder, *header_dirs(folder, out), *user_out]
        # -ferror-limit=0: clang stops after 20 errors by default, and an unexplained error
        # after the 20th would go unseen
        flags = [f"-std={options.std}", "-ferror-limit=0", *([options.opt] if options.opt else []),
                 *_include_flags(dirs, options.defines)]
        t0 = time.time()
        rdc = False
        while True:
            cmd = toolchain.amd_compile_command(out / unit, objdir / f"{n}.o", [options.arch],
                                                flags + (["-fgpu-rdc"] if rdc else []))
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=options.timeout, errors="replace")
                rc, stderr = done.returncode, done.stderr
            except subprocess.TimeoutExpired:
                rc, stderr = -1, f"error: timed out after {options.timeout:.0f} s"
            (objdir / f"{n}.o").unlink(missing_ok=True)
            # Device functions defined in another unit: the project builds with relocatable
            # device code (nvcc -rdc=true, clang -fgpu-rdc); compile it that way.
            if rc != 0 and not rdc and _UNDEFINED_DEVICE_SYMBOL.search(stderr):
                rdc = True
                continue
            break
        result = UnitResult(unit, "ok", round(time.time() - t0, 2), command=cmd, rdc=rdc)
        if rc == 0:
            return result
        result.status, result.errors, result.first_unexplained = classify(stderr, report, unit, closures[unit])
        if result.status == "unexplained" and options.baseline:
            result.baseline_error = baseline(unit, n, rdc)
            if result.baseline_error is not None:
                result.status = "original-fails"
        return result

    def baseline(unit: str, n: int, rdc: bool) -> str | None:
        """nvcc's first error on the original unit, or None when it compiles."""
        src_rel = report.out_to_src.get(unit)
        if src_rel is None:
            return None
        src_file = src_root / src_rel
        folder = src_file.parent
        dirs = [folder, *header_dirs(folder, src_root), *_user_dirs(options, src_root, src_root)]
        flags = [f"-std={options.std}", *(["-rdc=true"] if rdc else []), *_include_flags(dirs, options.defines)]
        cmd = toolchain.cuda_compile_command(src_file, objdir / f"{n}.cuda.o", "sm_90", link=False, extra_flags=flags)
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=options.timeout, errors="replace")
        except subprocess.TimeoutExpired:
            return f"nvcc timed out after {options.timeout:.0f} s"
        (objdir / f"{n}.cuda.o").unlink(missing_ok=True)
        if done.returncode == 0:
            return None
        for line in done.stderr.splitlines():
            if "error" in line:
                return line.strip().replace(str(src_root) + "/", "")
        tail = done.stderr.strip().splitlines()
        return tail[-1] if tail else f"nvcc exit {done.returncode}"

    by_program = dict(sorted(by_program.items()))
    order = list(by_program)
    if options.shuffle is not None:  # a fair sample when --time-limit stops the run early
        random.Random(options.shuffle).shuffle(order)
    jobs = [(n, u) for n, u in enumerate(u for p in order for u in by_program[p])]
    results: dict[str, UnitResult] = {}
    deadline = started + options.time_limit if options.time_limit else None
    stream = open(options.stream, "w", encoding="utf-8") if options.stream else None
    try:
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            pending: set = set()
            queue = list(jobs)
            k = 0
            while queue or pending:
                while queue and len(pending) < max(1, options.jobs) and not (deadline and time.time() > deadline):
                    pending.add(pool.submit(compile_unit, queue.pop(0)))
                if not pending:
                    break  # time limit reached: the remaining units are not compiled
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    r = fut.result()
                    results[r.unit] = r
                    k += 1
                    if stream:
                        stream.write(json.dumps(_unit_json(r)) + "\n")
                        stream.flush()
                    if log:
                        log(f"[{k}/{len(jobs)}] {r.status:14} {r.seconds:6.1f}s {r.unit}")
    finally:
        if stream:
            stream.close()
        shutil.rmtree(objdir, ignore_errors=True)
    not_compiled = [u for _, u in jobs if u not in results]
    programs: list[ProgramResult] = []
    for prog, us in by_program.items():
        if any(u not in results for u in us):
            continue
        files: set[str] = set()
        for u in us:
            files |= closures[u]
        programs.append(ProgramResult(prog, [results[u] for u in us], missing_features(report, prog, files)))
    return _results_json(options, out, programs, len(all_programs), time.time() - started, not_compiled)


def missing_features(report: Report, program: str, files: set[str]) -> list[str]:
    """The error findings of MISSING_FEATURE_IDS that make ``program`` one that needs something
    HIP lacks, as ``"HP2001 path:line"``.

    Counted: such findings in files under the program's folder, and in the tree's headers outside
    it that its units include (``files``, OUT paths) when the finding's CUDA name also occurs in
    the program's own files: a shared header such as cuda-samples' helper_cuda.h holds NPP and
    nvJPEG code in ``#ifdef`` branches that a program not using those libraries never compiles.
    """
    prefix = "" if program == "." else program + "/"
    shared = {report.out_to_src.get(f, f) for f in files if not f.startswith(prefix)}
    own_text: str | None = None
    found = []
    for f in report.findings:
        if f["severity"] != "error" or f["rule_id"] not in MISSING_FEATURE_IDS:
            continue
        if _out_of(report, f["path"]).startswith(prefix):
            found.append(f"{f['rule_id']} {f['path']}:{f['line']}")
        elif f["path"] in shared:
            if own_text is None:
                own_text = "\n".join(
                    (report.out / o).read_text(encoding="utf-8", errors="replace") for o in sorted(files)
                    if o.startswith(prefix) and (report.out / o).is_file())
            name = f.get("name") or ""
            if name and re.search(rf"\b{re.escape(name)}\b", own_text):
                found.append(f"{f['rule_id']} {f['path']}:{f['line']}")
    return found


def _out_of(report: Report, src_path: str) -> str:
    """The OUT path of a SRC path named by the report (cached reverse map)."""
    rev = getattr(report, "_src_to_out", None)
    if rev is None:
        rev = {s: o for o, s in report.out_to_src.items()}
        report._src_to_out = rev  # type: ignore[attr-defined]
    return rev.get(src_path, src_path)


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        return head.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _results_json(options: Options, out: Path, programs: list[ProgramResult], mains: int, seconds: float,
                  not_compiled: Sequence[str] = ()) -> dict:
    status_count = {s: sum(p.status == s for p in programs) for s in STATUS_ORDER}
    only = [p for p in programs if p.only_hip_features]
    only_eligible = [p for p in only if p.status != "original-fails"]
    only_ok = sum(p.status == "ok" for p in only_eligible)
    units = [u for p in programs for u in p.units]
    summary = {
        "programs": len(programs),
        "programs_without_hip_units": max(0, mains - len(programs)) if not (options.programs or not_compiled) else None,
        "units": len(units),
        "units_ok": sum(u.status == "ok" for u in units),
        "programs_ok": status_count["ok"],
        "programs_failed_explained": status_count["explained"],
        "programs_original_fails": status_count["original-fails"],
        "programs_unexplained": status_count["unexplained"],
        "programs_only_hip_features": len(only),
        "programs_only_hip_features_buildable": len(only_eligible),
        "programs_only_hip_features_ok": only_ok,
        "only_hip_features_ok_percent": round(100.0 * only_ok / len(only_eligible), 1) if only_eligible else None,
        "seconds": round(seconds, 1),
        # --time-limit reached: units never compiled; their programs are left out of every count
        "partial": bool(not_compiled),
        "units_not_compiled": len(not_compiled),
    }
    return {
        "tool": "scripts/no_silent_failure.py",
        "hipport_commit": _git_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "source": str(options.src),
        "output": str(out) if options.out else None,
        "options": {"fix": options.fix, "target_libs": options.target_libs, "arch": options.arch,
                    "exclude": list(options.exclude), "includes": list(options.includes),
                    "defines": list(options.defines), "std": options.std, "opt": options.opt or "-O2", "baseline": options.baseline,
                    "programs": list(options.programs), "time_limit": options.time_limit,
                    "shuffle": options.shuffle},
        "missing_feature_ids": sorted(MISSING_FEATURE_IDS),
        "summary": summary,
        "programs": [{"program": p.program, "status": p.status, "only_hip_features": p.only_hip_features,
                      "missing_feature_findings": p.missing_feature_findings,
                      "units": [_unit_json(u) for u in p.units]} for p in programs],
    }


def _unit_json(u: UnitResult) -> dict:
    d = asdict(u)
    d.pop("command")
    return d


# --------------------------------------------------------------------------- output
def _first_problem(p: dict) -> str:
    for u in p["units"]:
        e = u.get("first_unexplained")
        if e and u["status"] == "unexplained":
            loc = f"{e['file']}:{e['line']}" if e["line"] else (e["file"] or u["unit"])
            return f"{loc}: {e['message']}" + (f"  | {e['source_line']}" if e["source_line"] else "")
    for u in p["units"]:
        if u["status"] == "original-fails":
            return f"original fails with nvcc: {u['baseline_error']}"
    for u in p["units"]:
        if u["status"] == "explained":
            return "explained by " + ", ".join(sorted({x.split()[0] for e in u["errors"] for x in e["explained_by"]}))
    return ""


def format_table(results: dict) -> str:
    """The text table: one row per program, then the summary."""
    rows = [("program", "TUs", "ok", "explained", "UNEXPLAINED", "first unexplained error / note")]
    for p in results["programs"]:
        us = p["units"]
        rows.append((p["program"], str(len(us)), str(sum(u["status"] == "ok" for u in us)),
                     str(sum(u["status"] == "explained" for u in us)),
                     str(sum(u["status"] == "unexplained" for u in us)), _first_problem(p)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(5)) + "  " + r[5] for r in rows]
    s = results["summary"]
    pct = "n/a" if s["only_hip_features_ok_percent"] is None else f"{s['only_hip_features_ok_percent']}%"
    lines += ["",
              f"programs: {s['programs']} ({s['units']} translation units, {s['units_ok']} compiled for "
              f"{results['options']['arch']}); compiled: {s['programs_ok']}, failed explained: "
              f"{s['programs_failed_explained']}, original fails with nvcc too: {s['programs_original_fails']}, "
              f"failed UNEXPLAINED: {s['programs_unexplained']}",
              f"using only features HIP has: {s['programs_only_hip_features']} "
              f"({s['programs_only_hip_features_buildable']} whose original builds here); compiled: "
              f"{s['programs_only_hip_features_ok']} ({pct}); {s['seconds']} s"]
    if s["partial"]:
        lines.append(f"PARTIAL: the time limit left {s['units_not_compiled']} units uncompiled; their programs are not counted")
    return "\n".join(lines)


def format_markdown(results: dict) -> str:
    """A Markdown table of the failing programs (with their findings or UNEXPLAINED) and the
    summary line, as docs/trials.md shows them."""
    s = results["summary"]
    pct = "n/a" if s["only_hip_features_ok_percent"] is None else f"{s['only_hip_features_ok_percent']}%"
    out = [f"| programs | compiled for {results['options']['arch']} | failed, explained | original fails with nvcc 12.4 | "
           f"failed, UNEXPLAINED | use only HIP features | of those compiled |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
           f"| {s['programs']} | {s['programs_ok']} | {s['programs_failed_explained']} | {s['programs_original_fails']} | "
           f"{s['programs_unexplained']} | {s['programs_only_hip_features']} | {s['programs_only_hip_features_ok']}"
           f" of {s['programs_only_hip_features_buildable']} ({pct}) |", "",
           "| program | status | findings / first unexplained error |", "| --- | --- | --- |"]
    for p in results["programs"]:
        if p["status"] == "ok":
            continue
        if p["status"] == "explained":
            ids = sorted({x for u in p["units"] for e in u["errors"] for x in e["explained_by"]})
            text = ", ".join(ids[:6]) + (f" (+{len(ids) - 6})" if len(ids) > 6 else "")
        else:
            text = _first_problem(p)
        text = text.replace("|", "\\|")
        out.append(f"| {p['program']} | {p['status']} | {text} |")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path, help="CUDA file or folder (never written to)")
    parser.add_argument("--out", type=Path, help="where to convert to (default: a temporary folder, removed)")
    parser.add_argument("--fix", action="store_true", help="pass --fix to hipport convert")
    parser.add_argument("--target-libs", choices=("hip", "roc"), default="hip")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATTERN")
    parser.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    parser.add_argument("--arch", default="gfx90a", help="AMD offload architecture (default gfx90a)")
    parser.add_argument("--std", default="c++17", help="C++ standard for the compiles (default c++17)")
    parser.add_argument("--opt", default="", metavar="-ON",
                        help="optimisation flag after the toolchain's -O2 (default: none, i.e. -O2)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel compiles (default 2)")
    parser.add_argument("--program", dest="programs", action="append", default=[], metavar="GLOB",
                        help="only programs whose folder (relative to SRC) matches; repeatable")
    parser.add_argument("--no-baseline", action="store_true", help="do not compile failing units' originals with nvcc")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per compile (default 600)")
    parser.add_argument("--time-limit", type=float, default=0, metavar="S",
                        help="start no compile after S seconds; programs not finished are left out (partial)")
    parser.add_argument("--shuffle", type=int, metavar="SEED",
                        help="compile programs in a random order (seeded): with --time-limit, a fair sample")
    parser.add_argument("--stream", type=Path, metavar="FILE", help="append each unit's result to FILE (JSON lines)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the Markdown table")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each unit as it compiles")
    args = parser.parse_args(argv)
    options = Options(src=args.src, out=args.out, fix=args.fix, target_libs=args.target_libs,
                      exclude=tuple(args.exclude), includes=tuple(args.includes), defines=tuple(args.defines),
                      arch=args.arch, jobs=args.jobs, programs=tuple(args.programs), baseline=not args.no_baseline,
                      timeout=args.timeout, std=args.std, opt=args.opt,
                      time_limit=args.time_limit, stream=args.stream,
                      shuffle=args.shuffle)
    try:
        results = run_check(options, log=(lambda s: print(s, file=sys.stderr, flush=True)) if args.verbose else None)
    except CheckError as exc:
        print(f"no_silent_failure: {exc}", file=sys.stderr)
        return 2
    print(format_table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(format_markdown(results) + "\n", encoding="utf-8")
    return 1 if results["summary"]["programs_unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())
