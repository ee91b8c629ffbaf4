"""Migrate the simple nvcc patterns of a Makefile to HIP; report the rest.

Converted (rules from ``rules/build/nvcc_flags.yaml``, ``libraries.yaml``):

* the compiler: ``NVCC := nvcc`` or ``$(CUDA_PATH)/bin/nvcc`` becomes
  ``hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS`` (the variable keeps its name), and so does a literal
  ``nvcc`` starting a recipe command. HIP up to 6.4 declares the warp ``*_sync`` functions
  (``__shfl_sync``...) only under that macro (``hip/amd_detail/amd_warp_sync_functions.h:30`` of
  HIP 6.4.3, ``#ifdef HIP_ENABLE_WARP_SYNC_BUILTINS``), so every hipcc compile of the port gets
  it, once: a Makefile that already names the macro in its code gets nothing added;
* nvcc options, wherever they certainly go to nvcc: on nvcc command lines, in variables those
  command lines use (transitively: ``ALL_CCFLAGS += $(NVCCFLAGS)``) and in variables named like
  nvcc option lists (``NVCCFLAGS``, ``GENCODE_FLAGS``...); the first architecture option of a
  line or variable becomes ``--offload-arch=`` options for the configured AMD architectures;
* ``.cu`` file names and patterns (``%.cu``, ``*.cu``, ``$(SRCS:.cu=.o)``) become ``.hip``;
* ``-l`` options of CUDA libraries (``-lcublas`` -> ``-lhipblas``).

Reported and kept (HP3008): uses of the CUDA installation (``$(CUDA_PATH)/lib64``), and any line
still naming ``nvcc``, ``-gencode`` or an ``sm_``/``compute_`` architecture after the conversion
(computed architecture lists, ``$(shell nvcc ...)``). Comments are never changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cmake_syntax import LineIndex
from .cmakefile import BuildOptions, Migration, internal_failure
from .data import BuildRules
from .flags import TextEdit, Word, map_nvcc_flags, split_words

_ASSIGNMENT = re.compile(r"[ \t]*(?:(?:override|export|private)[ \t]+)*([A-Za-z0-9_.-]+)[ \t]*(::=|:::=|:=|\?=|\+=|!=|=)")
_REFERENCE = re.compile(r"\$[({]([A-Za-z0-9_.-]+)[)}]")
_CU_NAME = re.compile(r"(?<=[A-Za-z0-9_%*):}\-])\.cu(?![A-Za-z0-9_.])")
_LEFTOVER = re.compile(r"(?<![A-Za-z0-9_])(?:nvcc|-gencode|--generate-code|(?:sm|compute)_[0-9]+[a-z]?)(?![A-Za-z0-9_])")
_ADDPREFIX_HOST = re.compile(r"\$\(addprefix[ \t]+(?:-Xcompiler|--compiler-options)[ \t]*,(.*)\)")
#: Added after hipcc: declares the warp ``*_sync`` builtins on HIP <= 6.4 (see the module docstring).
WARP_SYNC_DEFINE = "-DHIP_ENABLE_WARP_SYNC_BUILTINS"
_WARP_SYNC_NAMED = re.compile(r"(?:(?<=-D)|(?<![A-Za-z0-9_]))HIP_ENABLE_WARP_SYNC_BUILTINS(?![A-Za-z0-9_])")
_SHELL_SEPARATORS = frozenset({";", "&&", "||", "|"})
#: Make's recipe prefixes before a command (@ silent, - ignore errors, + always run).
_RECIPE_PREFIX = re.compile(r"[@+-]*")


@dataclass
class _Line:
    """A logical line (backslash-newline continuations joined): offsets of its text in the
    file, the end of its code (before a comment), whether it is a recipe line."""

    start: int
    end: int
    code_end: int
    recipe: bool


def _logical_lines(text: str) -> list[_Line]:
    lines, i = [], 0
    while i < len(text):
        j = i
        while True:
            newline = text.find("\n", j)
            if newline < 0:
                newline = len(text)
                break
            backslashes = len(text[j:newline]) - len(text[j:newline].rstrip("\r").rstrip("\\"))
            if text[j:newline].rstrip("\r").endswith("\\") and backslashes % 2 == 1:
                j = newline + 1
                continue
            break
        recipe = text.startswith("\t", i)
        code_end = newline
        k, quote = i, ""
        while k < newline:
            c = text[k]
            if c == "\\":
                k += 2
                continue
            if recipe and c in "'\"" and (not quote or quote == c):
                quote = "" if quote else c  # a shell comment cannot start inside quotes
            elif c == "#" and not quote and (not recipe or text[k - 1] in " \t;"):
                code_end = k  # make comment; in a recipe, a shell comment
                break
            k += 1
        lines.append(_Line(i, newline, code_end, recipe))
        i = newline + 1
    return lines


class _MakefileMigration:
    def __init__(self, text: str, path: str, rules: BuildRules, options: BuildOptions):
        self.text, self.path, self.rules, self.options = text, path, rules, options
        self.index = LineIndex(text)
        self.lines = _logical_lines(text)
        self.edits: list[TextEdit] = []
        self.notes: list[tuple[str, int, int, dict[str, str]]] = []
        self.reported_lines: set[int] = set()
        self.at = 0  # offset of the line being migrated (where an internal error is reported)
        self._words: dict[tuple[int, int], list[Word]] = {}  # (start, end) -> split_words' answer

    def note(self, check: str, offset: int, **fields: str) -> None:
        line, column = self.index.position(offset)
        self.notes.append((check, line, column, fields))

    def edit(self, start: int, end: int, new: str) -> None:
        if not any(e.start < end and start < e.end for e in self.edits):
            self.edits.append(TextEdit(start, end, new))

    def is_nvcc(self, word: str, compilers: set[str]) -> bool:
        ref = _REFERENCE.fullmatch(word)
        return word == "nvcc" or word.endswith("/nvcc") or (ref is not None and ref.group(1) in compilers)

    def assignments(self) -> list[tuple[_Line, str, int]]:
        """(line, variable, offset where the value starts) of every variable assignment."""
        found = []
        for line in self.lines:
            self.at = line.start
            if line.recipe:
                continue
            match = _ASSIGNMENT.match(self.text, line.start, line.code_end)
            if match and not self.text.startswith(("ifeq", "ifneq", "ifdef", "ifndef"), line.start):
                found.append((line, match.group(1), match.end()))
        return found

    def words(self, start: int, end: int) -> list[Word]:
        """The words of ``text[start:end]`` (a new list each call; each span is split once: the
        passes over a Makefile split most lines two or three times)."""
        found = self._words.get((start, end))
        if found is None:
            # backslash-newline continuations separate words like blanks
            segment = self.text[start:end].replace("\\\r\n", "   ").replace("\\\n", "  ")
            found = self._words[(start, end)] = split_words(segment, start)
        return list(found)

    def commands(self, line: _Line, compilers: set[str]) -> list[tuple[Word, list[Word]]]:
        """The nvcc invocations of a recipe line: (the compiler word, its arguments)."""
        words = self.words(line.start + 1, line.code_end)  # a shell comment is no command
        found, i = [], 0
        while i < len(words):
            word = words[i]
            text = word.text
            prefix = _RECIPE_PREFIX.match(text).end() if i == 0 else 0
            if prefix:
                word = Word(text[prefix:], word.start + prefix, word.end)
            if self.is_nvcc(word.text, compilers):
                j = i + 1
                while j < len(words) and words[j].text not in _SHELL_SEPARATORS:
                    j += 1
                found.append((word, words[i + 1:j]))
                i = j
                continue
            i += 1
        return found

    def compiler(self) -> str:
        """What replaces nvcc: hipcc and the warp-sync define, unless the Makefile's code
        (comments aside) already names ``HIP_ENABLE_WARP_SYNC_BUILTINS``."""
        if any(_WARP_SYNC_NAMED.search(self.text, line.start, line.code_end) for line in self.lines):
            return self.rules.make_compiler
        return f"{self.rules.make_compiler} {WARP_SYNC_DEFINE}"

    def run(self) -> Migration:
        assignments = self.assignments()
        hipcc = self.compiler()
        compilers = {name for line, name, value in assignments
                     if (ws := self.words(value, line.code_end)) and self.is_nvcc(ws[0].text, set())}
        flag_vars = set(self.rules.make_flag_variables)
        for line in self.lines:
            self.at = line.start
            if line.recipe:
                for _, args in self.commands(line, compilers):
                    flag_vars.update(m.group(1) for w in args for m in _REFERENCE.finditer(w.text))
        for name, line in ((n, l) for l, n, _ in assignments if n in compilers):
            flag_vars.update(m.group(1) for m in _REFERENCE.finditer(self.text, line.start, line.code_end))
        values = {}
        for line, name, value in assignments:
            values.setdefault(name, []).append((line, value))
        flag_vars -= self.rules.make_cuda_path_variables
        changed = True
        while changed:  # variables used by nvcc variables hold nvcc options too
            changed = False
            for name in list(flag_vars):
                for line, value in values.get(name, []):
                    for ref in _REFERENCE.finditer(self.text, value, line.code_end):
                        if ref.group(1) not in flag_vars | compilers | self.rules.make_cuda_path_variables:
                            flag_vars.add(ref.group(1))
                            changed = True
        arch_done: dict[str, list[bool]] = {}
        handled_lines: set[int] = set()
        for line, name, value in assignments:
            self.at = line.start
            words = self.words(value, line.code_end)
            if name in compilers:
                handled_lines.add(line.start)
                # an assignment of the compiler variable may be empty (NVCC := in one branch of
                # an ifeq) or name another compiler there (NVCC := g++): only nvcc is replaced
                if words and self.is_nvcc(words[0].text, set()):
                    self.edit(words[0].start, words[0].end, hipcc)
                self.map(words, True, arch_done.setdefault(name, [False]))
            elif name in flag_vars:
                handled_lines.add(line.start)
                self.map(words, True, arch_done.setdefault(name, [False]))
            elif name in self.rules.make_cuda_path_variables:
                self.note("makefile-kept", line.start, construct=self.text[line.start:line.code_end].strip(),
                          note="the CUDA installation folder", advice="point it at ROCm (ROCM_PATH, /opt/rocm) "
                                                                      "or remove it where only CUDA needed it")
                handled_lines.add(line.start)
        for line in self.lines:
            self.at = line.start
            if line.recipe:
                commands = self.commands(line, compilers)
                for compiler, args in commands:
                    if compiler.text == "nvcc" or compiler.text.endswith("/nvcc"):
                        self.edit(compiler.start, compiler.end, hipcc)
                    self.map([compiler, *args], True, [False])
                if commands:
                    handled_lines.add(line.start)
            if line.start not in handled_lines:
                self.map(self.words(line.start, line.code_end), False, [False])
            self.cuda_paths(line)
            for match in _CU_NAME.finditer(self.text, line.start, line.code_end) if self.options.rename_cu else ():
                self.edit(match.start(), match.end(), ".hip")
        self.leftovers()
        out, position = [], 0
        for e in sorted(self.edits, key=lambda e: (e.start, e.end)):
            out.append(self.text[position:e.start])
            out.append(e.text)
            position = e.end
        out.append(self.text[position:])
        self.notes.sort(key=lambda n: (n[1], n[2], n[0]))
        return Migration("".join(out), self.notes)

    def map(self, words: list[Word], certain: bool, arch_done: list[bool]) -> None:
        if not words:
            return
        if certain:
            words = self.computed_options(words)
        result = map_nvcc_flags(self.text, words, self.rules, self.options.offload_archs, certain=certain,
                                arch_mode="flags", joiner=" ", target_libs=self.options.target_libs,
                                arch_done=arch_done)
        for e in result.edits:
            self.edit(e.start, e.end, e.text)
        for n in result.notes:
            self.note(n.check, n.offset, **n.fields)
            self.reported_lines.add(self.index.position(n.offset)[0])

    def computed_options(self, words: list[Word]) -> list[Word]:
        """Make functions among nvcc options: ``$(addprefix -Xcompiler ,$(CCFLAGS))`` becomes
        ``$(CCFLAGS)`` (clang takes host options directly); another function holding an nvcc
        option is reported. Returns the words left for :func:`map_nvcc_flags`."""
        rest = []
        for word in words:
            match = _ADDPREFIX_HOST.fullmatch(word.text)
            if match:
                self.edit(word.start, word.end, match.group(1).strip())
                self.note("build-migrated", word.start, construct=word.text, replacement=match.group(1).strip(),
                          note="clang takes host-compiler options directly")
                continue
            if word.text.startswith("$(") and not _REFERENCE.fullmatch(word.text):
                inner = {t for t in re.split(r"[\s,()]+", word.text) if t}
                # clang takes -Xlinker <option> as nvcc does (one option per -Xlinker)
                nvcc_only = sorted(t for t in inner if (r := self.rules.flags.get(t.split("=", 1)[0])) is not None
                                   and not r.ambiguous and r.action not in ("keep", "arch") and t != "-Xlinker")
                if nvcc_only:
                    self.note("makefile-kept", word.start, construct=word.text,
                              note=f"a make function computing nvcc options ({', '.join(nvcc_only)})",
                              advice="rewrite it with the clang options (nvcc_flags.yaml lists them), or drop it")
                    self.reported_lines.add(self.index.position(word.start)[0])
                    continue
            rest.append(word)
        return rest

    def cuda_paths(self, line: _Line) -> None:
        """Report words that use the CUDA installation (``-L$(CUDA_PATH)/lib64``)."""
        for word in self.words(line.start + (1 if line.recipe else 0), line.code_end):
            names = {m.group(1) for m in _REFERENCE.finditer(word.text)}
            if names & self.rules.make_cuda_path_variables or "/usr/local/cuda" in word.text:
                if self.is_nvcc(word.text, set()) or any(e.start <= word.start and word.end <= e.end for e in self.edits):
                    continue
                if _ASSIGNMENT.match(self.text, line.start, line.code_end) and \
                        _ASSIGNMENT.match(self.text, line.start, line.code_end).group(1) in self.rules.make_cuda_path_variables:
                    continue
                self.note("makefile-kept", word.start, construct=word.text, note="a path into the CUDA installation",
                          advice="use the ROCm folders instead (ROCM_PATH, /opt/rocm), or remove it")
                self.reported_lines.add(self.index.position(word.start)[0])

    def leftovers(self) -> None:
        """Report lines that still name nvcc or NVIDIA architectures outside the edits."""
        for line in self.lines:
            self.at = line.start
            for match in _LEFTOVER.finditer(self.text, line.start, line.code_end):
                if any(e.start <= match.start() < max(e.end, e.start + 1) for e in self.edits):
                    continue
                number = self.index.position(match.start())[0]
                if number in self.reported_lines:
                    continue
                self.reported_lines.add(number)
                self.note("makefile-kept", match.start(), construct=self.text[line.start:line.code_end].strip(),
                          note=f"{match.group()} here was not converted (a computed list, a shell command or a "
                               "form hipport does not read)",
                          advice="convert this line by hand: hipcc for nvcc, --offload-arch=gfx... for architectures")


def migrate_makefile(text: str, path: str, rules: BuildRules, options: BuildOptions) -> Migration:
    """Migrate one Makefile's text (``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``).

    Args:
        text: the file's content (decoded; undecodable bytes as surrogate escapes).
        path: its path relative to SRC (for messages only).
        rules: the build rules.
        options: the AMD architectures and ``--target-libs``.

    Returns:
        The migrated text and the findings' notes (line, column, check, fields). A file whose
        migration fails inside hipport comes back unchanged with one ``build-file-syntax`` note
        at the line being migrated.
    """
    migration = _MakefileMigration(text, path, rules, options)
    try:
        return migration.run()
    except Exception as error:  # noqa: BLE001 - one build file must never stop the conversion
        return internal_failure(text, migration.index, migration.at, error)
