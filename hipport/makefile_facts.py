"""What a CUDA tree's Makefile says that a generated CMake build must keep: the programs it
links (their names and sources), its C++ standard and whether it asks for debug information.

Used where ``hipport convert`` generates a CMakeLists.txt for a tree whose build is a Makefile
(:func:`hipport.cmake.render_cmake`). The reading is deliberately small: variable assignments
(``=``, ``:=``, ``::=``, ``?=``, ``+=``) expanded with ``$(NAME)``/``${NAME}``, explicit rules and
their recipe lines, automatic variables ``$@``, ``$<`` and ``$^``; make functions
(``$(foreach ...)``...) expand to nothing and ``include``/conditionals are not followed. Whatever
it cannot read it leaves out: it never raises on a Makefile's contents.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

#: Makefile names GNU make looks for, in its order.
MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")
#: Compiler drivers whose command lines are read (basename, version suffix allowed).
_COMPILER = re.compile(r"^(?:nvcc|hipcc|[gc]\+\+|clang\+\+|g\+\+-\d+|clang\+\+-\d+)$")
_ASSIGN = re.compile(r"^(?:(?:override|export)\s+)*([A-Za-z_.][A-Za-z0-9_.-]*)\s*(::?=|:::=|\?=|\+=|=)(.*)$")
_RULE = re.compile(r"^([^:=#\t][^:=#]*?)\s*::?(?!=)(.*)$")
#: -std values -> the standard number CMake's CXX_STANDARD / HIP_STANDARD / CUDA_STANDARD takes.
_STANDARDS = {"98": "98", "03": "98", "11": "11", "0x": "11", "14": "14", "1y": "14", "17": "17", "1z": "17",
              "20": "20", "2a": "20", "23": "23", "2b": "23"}
_STD = re.compile(r"^--?std=(c|gnu)\+\+(\w+)$")
#: Debug options of nvcc and host compilers: -g (host), -G / --device-debug (device).
_HOST_DEBUG = {"-g", "--debug", "-ggdb", "-g3"}
_DEVICE_DEBUG = {"-G", "--device-debug"}


@dataclass(frozen=True, slots=True)
class MakefileProgram:
    """A program the Makefile links: ``name`` (the file name of its ``-o`` output) and the stems
    of its sources and objects (``main`` for ``build/main.o`` or ``src/main.cu``)."""

    name: str
    source_stems: frozenset[str]


@dataclass(frozen=True, slots=True)
class MakefileFacts:
    """What the Makefile says (see the module docstring).

    Attributes:
        path: the Makefile, relative to the tree (``Makefile``).
        programs: the programs it links, in file order.
        cxx_standard: ``14`` for ``-std=c++14`` (the first on a compile command), or None.
        gnu_extensions: that option names a ``gnu++`` standard (``-std=gnu++14``), not ``c++``.
        host_debug: a compile command has ``-g``.
        device_debug: a compile command has nvcc's ``-G`` (``--device-debug``).
    """

    path: str
    programs: tuple[MakefileProgram, ...] = ()
    cxx_standard: str | None = None
    gnu_extensions: bool = False
    host_debug: bool = False
    device_debug: bool = False

    def program_for(self, stem: str, executables: int) -> str | None:
        """The program name for the executable built from the main unit with file stem ``stem``:
        the program whose sources include that stem, else the only program when the tree has a
        single executable (``executables``), else None."""
        hits = [p.name for p in self.programs if stem in p.source_stems]
        if hits:
            return hits[0]
        if len(self.programs) == 1 and executables == 1:
            return self.programs[0].name
        return None


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined and comments removed (recipe lines keep their
    leading tab)."""
    lines, pending = [], ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        line, pending = pending + raw, ""
        if not line.startswith("\t"):
            line = re.sub(r"(?<!\\)#.*", "", line)
        lines.append(line.rstrip())
    if pending:
        lines.append(pending.rstrip())
    return lines


#: Variable references one Makefile may expand in all (``A = $(A) $(A)`` doubles at every level).
_EXPANSION_BUDGET = 20000


class _Expander:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.budget = _EXPANSION_BUDGET

    def assign(self, name: str, op: str, value: str) -> None:
        value = value.strip()
        if op in (":=", "::=", ":::="):
            self.values[name] = self.expand(value)
        elif op == "?=":
            self.values.setdefault(name, value)
        elif op == "+=":
            self.values[name] = (self.values.get(name, "") + " " + value).strip()
        else:
            self.values[name] = value

    def expand(self, text: str, auto: dict[str, str] | None = None, depth: int = 0) -> str:
        if "$" not in text:
            return text
        self.budget -= 1
        if depth > 20 or self.budget < 0:
            return ""
        out, i = [], 0
        while i < len(text):
            char = text[i]
            if char != "$" or i + 1 >= len(text):
                out.append(char)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
            elif nxt in "({":
                close = ")" if nxt == "(" else "}"
                level, j = 1, i + 2
                while j < len(text) and level:
                    level += {nxt: 1, close: -1}.get(text[j], 0)
                    j += 1
                inner = text[i + 2:j - 1]
                if re.fullmatch(r"[A-Za-z_.][A-Za-z0-9_.-]*", inner):
                    out.append(self.expand(self.values.get(inner, ""), auto, depth + 1))
                elif inner in ("@", "<", "^", "+"):
                    out.append((auto or {}).get(inner, ""))
                i = j  # a make function: nothing
            else:
                out.append((auto or {}).get(nxt, "") if nxt in "@<^+" else self.expand(self.values.get(nxt, ""),
                                                                                       auto, depth + 1))
                i += 2
        return "".join(out)


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _stem(word: str) -> str:
    return posixpath.splitext(posixpath.basename(word))[0]


def read_makefile_facts(tree: Path) -> MakefileFacts | None:
    """The facts of the Makefile at the top of ``tree`` (the first of :data:`MAKEFILE_NAMES`),
    or None when there is none or it cannot be read as text. Never raises on its contents."""
    path = next((tree / name for name in MAKEFILE_NAMES if (tree / name).is_file()), None)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    make = _Expander()
    rules: list[tuple[list[str], list[str], list[str]]] = []  # targets, prerequisites, recipe lines
    phony: set[str] = set()
    for line in _logical_lines(text):
        if line.startswith("\t"):
            if rules:
                rules[-1][2].append(line[1:])
            continue
        stripped = line.strip()
        if not stripped:
            continue
        assign = _ASSIGN.match(stripped)
        if assign:
            make.assign(assign.group(1), assign.group(2), assign.group(3))
            continue
        rule = _RULE.match(stripped)
        if rule:
            targets = _words(make.expand(rule.group(1)))
            rest = rule.group(2)
            recipe = []
            if ";" in rest:
                rest, inline = rest.split(";", 1)
                recipe.append(inline)
            prerequisites = _words(make.expand(rest.split("|")[0]))
            if ".PHONY" in targets:
                phony.update(prerequisites)
            rules.append((targets, prerequisites, recipe))
    programs: list[MakefileProgram] = []
    standard, gnu, host_debug, device_debug = None, False, False, False
    for targets, prerequisites, recipe in rules:
        for target in targets:
            auto = {"@": target, "<": prerequisites[0] if prerequisites else "", "^": " ".join(prerequisites),
                    "+": " ".join(prerequisites)}
            for command in recipe:
                words = _words(make.expand(command, auto))
                while words and words[0] in ("@", "-", "+", "@-", "-@"):
                    words = words[1:]
                if words:
                    words[0] = words[0].lstrip("@-+")
                if not words or not _COMPILER.match(posixpath.basename(words[0])):
                    continue
                compiles = "-c" in words or "--compile" in words or "-dc" in words
                for index, word in enumerate(words):
                    std = _STD.match(word) or (word in ("-std", "--std") and index + 1 < len(words)
                                               and re.fullmatch(r"(c|gnu)\+\+(\w+)", words[index + 1]))
                    if std and standard is None and std.group(2) in _STANDARDS:
                        standard, gnu = _STANDARDS[std.group(2)], std.group(1) == "gnu"
                    host_debug = host_debug or word in _HOST_DEBUG
                    device_debug = device_debug or word in _DEVICE_DEBUG
                if compiles or "%" in target or target.startswith(".") or target in phony:
                    continue
                output = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--output-file")), None)
                output = output or next((w[2:] for w in words if w.startswith("-o") and len(w) > 2), None)
                if output is None:
                    continue
                name = posixpath.basename(output)
                stems = {_stem(w) for w in [*prerequisites, *words[1:]]
                         if w.endswith((".cu", ".cpp", ".cc", ".cxx", ".c", ".o"))}
                if name and all(p.name != name for p in programs):
                    programs.append(MakefileProgram(name, frozenset(stems)))
    return MakefileFacts(path.name, tuple(programs), standard, gnu, host_debug, device_debug)
