"""Precise mode (``--precise``): a second look at each file through libclang.

The tree-sitter analysis sees the source as written: a CUDA call inside a macro body is rewritten
and reported where the macro is defined, and the type of a lane mask is guessed from its
declaration's text. Precise mode parses each file as CUDA with clang (macros expanded, headers
read, types resolved) and adds:

* every CUDA runtime name reached through a macro, reported at the macro's use site (HP1301);
* the ballot and lane-mask checks (HP1102) decided with the real types: a mask or ballot result
  whose type is 4 bytes wide, whatever typedef or macro spelled it.

It needs the ``libclang`` Python bindings (``pip install 'hipport[precise]'``; Debian's
``libclang-19.so`` with its resource headers is used when present, as it matches the clang-19
toolchain) and CUDA headers (``--cuda-path``, else ``$CUDA_PATH``, the toolchain of
``scripts/install-toolchain.sh``, or ``/usr/local/cuda``). Compile flags come from
``compile_commands.json`` (``--compile-commands``) and ``-I``/``-D`` options. When something is
missing, :func:`open_session` raises :class:`PreciseUnavailable` saying what, and hipport falls
back to the tree-sitter analysis.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from .findings import Finding
from .rules import RuleSet
from .warp import BALLOT_FUNCTIONS, MASK_FUNCTIONS

#: Debian's libclang and resource directory matching the clang-19 toolchain (preferred when present).
SYSTEM_LIBCLANG = Path("/usr/lib/llvm-19/lib/libclang-19.so.1")
SYSTEM_RESOURCE_DIR = Path("/usr/lib/llvm-19/lib/clang/19")
#: Flags kept from compile_commands.json entries (others, such as nvcc's -arch, are dropped).
_KEPT_PREFIXES = ("-I", "-D", "-U", "-isystem", "-std=", "-include")


class PreciseUnavailable(RuntimeError):
    """Precise mode cannot run here; the message says what is missing."""


@dataclass(frozen=True)
class PreciseOptions:
    """What precise mode parses with: compile_commands.json (a file or its folder), extra
    include folders and macro definitions (``NAME`` or ``NAME=VALUE``), and the CUDA path."""

    compile_commands: Path | None = None
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    cuda_path: Path | None = None


@dataclass
class PreciseSession:
    """A loaded libclang with the base arguments for every file."""

    cindex: object
    index: object
    base_args: list[str]
    per_file_args: dict[str, list[str]] = field(default_factory=dict)


def _find_cuda_path(explicit: Path | None) -> Path:
    from .toolchain import default_toolchain_dir

    candidates = [explicit] if explicit else []
    if os.environ.get("CUDA_PATH"):
        candidates.append(Path(os.environ["CUDA_PATH"]))
    candidates += [default_toolchain_dir() / "cuda", Path("/usr/local/cuda")]
    for candidate in candidates:
        if candidate is not None and (candidate / "include" / "cuda_runtime.h").is_file():
            return candidate
    raise PreciseUnavailable("no CUDA headers found (give --cuda-path, set CUDA_PATH, or run scripts/install-toolchain.sh)")


def _compile_commands(path: Path | None) -> dict[str, list[str]]:
    """Map absolute source path -> kept flags, from a compile_commands.json file or folder."""
    if path is None:
        return {}
    file = path / "compile_commands.json" if path.is_dir() else path
    try:
        entries = json.loads(file.read_text())
    except (OSError, ValueError) as error:
        raise PreciseUnavailable(f"{file}: cannot read the compilation database ({error})") from None
    result = {}
    for entry in entries:
        words = entry.get("arguments") or shlex.split(entry.get("command", ""))
        kept, take_next = [], False
        for word in words[1:]:
            if take_next:
                kept.append(word)
                take_next = False
            elif word in ("-I", "-D", "-isystem", "-include", "-U"):
                kept.append(word)
                take_next = True
            elif word.startswith(_KEPT_PREFIXES):
                kept.append(word)
        directory = Path(entry.get("directory", "."))
        source = Path(entry["file"])
        result[str((directory / source).resolve())] = [
            f"-I{(directory / w[2:]).resolve()}" if w.startswith("-I") and not Path(w[2:]).is_absolute() else w
            for w in kept
        ]
    return result


def open_session(options: PreciseOptions) -> PreciseSession:
    """Load libclang and prepare the compile arguments.

    Raises:
        PreciseUnavailable: the libclang bindings or library, or CUDA headers, are missing, or
            the compilation database cannot be read.
    """
    try:
        from clang import cindex
    except ImportError:
        raise PreciseUnavailable("the libclang Python bindings are not installed (pip install 'hipport[precise]')") from None
    if SYSTEM_LIBCLANG.is_file() and not cindex.Config.loaded:
        cindex.Config.set_library_file(str(SYSTEM_LIBCLANG))
    try:
        index = cindex.Index.create()
    except Exception as error:  # cindex raises LibclangError (an Exception) when the library is unusable
        raise PreciseUnavailable(f"libclang could not be loaded ({error})") from None
    cuda = _find_cuda_path(options.cuda_path)
    args = ["-x", "cuda", "--cuda-host-only", "-nocudalib", f"--cuda-path={cuda}", "-Wno-unknown-cuda-version",
            "-std=c++17"]
    if SYSTEM_RESOURCE_DIR.is_dir() and cindex.Config.library_file == str(SYSTEM_LIBCLANG):
        args += ["-resource-dir", str(SYSTEM_RESOURCE_DIR)]
    if (cuda / "include-libcu++").is_dir():
        args += ["-isystem", str(cuda / "include-libcu++")]
    args += [f"-I{d}" for d in options.include_dirs] + [f"-D{d}" for d in options.defines]
    return PreciseSession(cindex, index, args, _compile_commands(options.compile_commands))


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _text_at(lines: list[bytes], line: int, column: int, length: int) -> bytes:
    """``length`` bytes of the source at 1-based ``line`` and ``column`` (``lines``: the file split once)."""
    if not 1 <= line <= len(lines):
        return b""
    return lines[line - 1][column - 1:column - 1 + length]


def _macro_at(lines: list[bytes], line: int, column: int) -> str:
    match = _WORD.match(_text_at(lines, line, column, 200))
    return match.group().decode("ascii", "replace") if match else "?"


def _before_conversions(cindex, cursor):
    """The expression as written: implicit conversions (to CUDA's 32-bit mask parameter) peeled off."""
    while cursor.kind == cindex.CursorKind.UNEXPOSED_EXPR:
        children = list(cursor.get_children())
        if len(children) != 1:
            break
        cursor = children[0]
    return cursor


def analyze_precise(session: PreciseSession, path: Path, rel: str, source: bytes, rules: RuleSet) -> list[Finding]:
    """Parse ``path`` with libclang and return the precise findings (HP1301, HP1102).

    Args:
        session: from :func:`open_session`.
        path: the file on disk; ``rel`` its path in reports; ``source`` its bytes.

    Raises:
        PreciseUnavailable: libclang could not parse the file at all.
    """
    cindex = session.cindex
    args = session.base_args + session.per_file_args.get(str(path.resolve()), [])
    try:
        unit = session.index.parse(str(path), args=args,
                                   options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    except cindex.TranslationUnitLoadError as error:
        raise PreciseUnavailable(f"{path}: libclang could not parse it ({error})") from None
    findings: list[Finding] = []
    seen: set[tuple] = set()
    wanted = (cindex.CursorKind.CALL_EXPR, cindex.CursorKind.DECL_REF_EXPR, cindex.CursorKind.VAR_DECL)
    main_file = str(path)
    lines = source.split(b"\n")

    def report(check_name: str, line: int, column: int, name: str, **fields: str) -> None:
        key = (check_name, line, column, name)
        if key in seen:
            return
        seen.add(key)
        check = rules.check(check_name)
        message, fix = check.render(name=name, **fields)
        findings.append(Finding(rel, line, column, check.id, check.name, check.severity, message, fix, name))

    stack = [unit.cursor]
    while stack:
        cursor = stack.pop()
        for child in cursor.get_children():
            location = child.location
            if location.file is None or location.file.name != main_file:
                continue
            stack.append(child)
            if child.kind not in wanted:
                continue
            name = child.spelling
            if child.kind == cindex.CursorKind.DECL_REF_EXPR and name in rules.identifiers:
                written = _text_at(lines, location.line, location.column, len(name))
                if written != name.encode():
                    mapping = rules.identifiers[name]
                    report("macro-cuda-name", location.line, location.column, name,
                           macro=_macro_at(lines, location.line, location.column), status=mapping.status,
                           hip=mapping.hip or "no HIP equivalent")
            if child.kind == cindex.CursorKind.CALL_EXPR and name in MASK_FUNCTIONS:
                arguments = list(child.get_arguments())
                mask = _before_conversions(cindex, arguments[0]) if arguments else None
                if mask is not None and mask.type.get_canonical().get_size() == 4:
                    written = _text_at(lines, mask.location.line, mask.location.column, 10)
                    if not written.lower().startswith(b"0xffffffff"):  # literal full masks are widened anyway
                        report("warp-32bit-mask", mask.location.line, mask.location.column, name,
                               what=f"the mask has the 32-bit type {mask.type.spelling}")
            if child.kind == cindex.CursorKind.VAR_DECL and child.type.get_canonical().get_size() == 4:
                for inner in child.get_children():
                    call = inner
                    while call.kind != cindex.CursorKind.CALL_EXPR and list(call.get_children()):
                        call = list(call.get_children())[0]
                    if call.kind == cindex.CursorKind.CALL_EXPR and call.spelling in BALLOT_FUNCTIONS:
                        report("warp-32bit-mask", call.location.line, call.location.column, call.spelling,
                               what=f"its result is stored as {child.type.spelling} (32 bits)")
    return sorted(findings, key=Finding.sort_key)


def merge(tree_sitter_findings: list[Finding], precise_findings: list[Finding]) -> list[Finding]:
    """The precise findings replace the tree-sitter guesses of the 32-bit mask check (HP1102)."""
    kept = [f for f in tree_sitter_findings if f.rule_name != "warp-32bit-mask"]
    return sorted(kept + precise_findings, key=Finding.sort_key)


_sessions: dict[PreciseOptions, PreciseSession] = {}


def session_for(options: PreciseOptions) -> PreciseSession:
    """One session per process and options (libclang objects do not travel between processes).

    Raises:
        PreciseUnavailable: see :func:`open_session`.
    """
    if options not in _sessions:
        _sessions[options] = open_session(options)
    return _sessions[options]
