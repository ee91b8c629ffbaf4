"""Migrate the CUDA parts of a CMake file to HIP, driven by ``rules/build/cmake.yaml``.

The file is tokenized with :mod:`hipport.buildfiles.cmake_syntax`; only arguments (or command
names) that a rule matches are rewritten, and new commands are inserted on lines of their own
after the command they belong to, so comments, indentation and line endings stay as they were.
The migrated file builds for AMD (CMake's HIP language) or NVIDIA (CUDA language with HIP's
NVIDIA headers) through the platform module ``cmake/HipportPlatform.cmake`` that hipport writes
into OUT (:data:`hipport.cmake.PLATFORM_MODULE`), the same module the generated CMakeLists.txt
uses, with the same targets (``hip::host``, ``roc::hipblas``...) and commands
(``hipport_enable_gpu_language``, ``hipport_gpu_target``, ``hipport_gpu_sources``,
``hipport_find_libraries``).

Every construct a rule reports, and every CUDA construct hipport does not understand, stays in
place and becomes a finding with its line and column. What each rule does:
``docs/build-migration.md``.

Use :func:`scan_cmake` on every CMake file of a project first (the facts of one file, such as the
libraries it links, matter to the others: :class:`ProjectFacts`), then :func:`migrate_cmake`
on each.
"""

from __future__ import annotations

import posixpath
import re
from contextlib import contextmanager
from dataclasses import dataclass, field

from .cmake_syntax import Argument, CMakeSyntaxError, Command, LineIndex, parse_cmake
from .data import BuildRules, Library, NameRule
from .flags import TextEdit, Word, architecture_options, map_nvcc_flags, remove_words, split_words

#: Where hipport writes the platform module, relative to OUT (hipport.cmake.PLATFORM_MODULE).
PLATFORM_MODULE = "cmake/HipportPlatform.cmake"
#: The GPU language once ``hipport_enable_gpu_language()`` ran, and before (``<LANG>`` in rules).
GPU_LANGUAGE_VARIABLE = "${HIPPORT_GPU_LANGUAGE}"
_SCOPES = ("PRIVATE", "PUBLIC", "INTERFACE")
_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_VARIABLE_REF = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
_CUDA_TARGET = re.compile(r"(?<![A-Za-z0-9_:])CUDA::[A-Za-z0-9_]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CU_SUFFIX = re.compile(r"\.cu(?=;|\Z)")
_CU_REGEX = re.compile(r"\\\\\.cu\$")
_LANGUAGE_GENEX = re.compile(r"\$<(COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID):([^<>$]*)>")
#: Commands whose arguments are compile or link options (nvcc-only spellings are mapped there).
_OPTION_COMMANDS = frozenset({"target_compile_options", "add_compile_options", "target_link_options",
                              "add_link_options"})
#: Commands that name source files (a C++ file using HIP named there becomes a GPU source).
_SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources", "set", "list",
                              "cuda_add_executable", "cuda_add_library"})
_PROPERTY_SETTERS = frozenset({"set_target_properties", "set_source_files_properties", "set_tests_properties",
                               "set_directory_properties"})
_SEPARABLE_COMPILE = "$<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>"
_SEPARABLE_LINK = '"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>"'
#: Commands that assign a variable (a CUDA flags variable assigned there keeps a CUDA twin).
_ASSIGNMENTS = {"set": (), "string": ("APPEND", "PREPEND"), "list": ("APPEND", "PREPEND", "INSERT")}
#: Blanks and comments between two arguments.
_GAP = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")


@dataclass
class ProjectFacts:
    """What the CMake files of one project say, gathered by :func:`scan_cmake` before any is
    migrated.

    Attributes:
        top_level: the CMake file holding the top-level ``project()`` (path relative to SRC).
        libraries: the HIP library targets the project links (``roc::hipblas``), in first-use
            order; ``hip::host`` left out.
        finds_cuda: some file calls ``find_package(CUDA)`` or ``find_package(CUDAToolkit)``.
        enables_cuda: some ``project()`` or ``enable_language()`` enables CUDA.
        optional_cuda: some file calls ``check_language(CUDA)`` (CUDA is optional there).
        uses_cuda: some file holds a CUDA construct at all.
        nvcc_flag_lists: the FindCUDA option lists the project sets (``CUDA_NVCC_FLAGS``...).
        findcuda_separable: the project sets FindCUDA's ``CUDA_SEPARABLE_COMPILATION`` on.
        gpu_cxx_sources: C/C++ translation units (paths relative to SRC) that use CUDA/HIP,
            which the port compiles as GPU code.
    """

    top_level: str = "CMakeLists.txt"
    libraries: list[str] = field(default_factory=list)
    finds_cuda: bool = False
    enables_cuda: bool = False
    optional_cuda: bool = False
    uses_cuda: bool = False
    nvcc_flag_lists: list[str] = field(default_factory=list)
    findcuda_separable: bool = False
    gpu_cxx_sources: frozenset[str] = frozenset()

    def merge(self, other: "ProjectFacts") -> None:
        """Add the facts of another file (``top_level`` and ``gpu_cxx_sources`` excepted)."""
        self.libraries.extend(lib for lib in other.libraries if lib not in self.libraries)
        self.nvcc_flag_lists.extend(v for v in other.nvcc_flag_lists if v not in self.nvcc_flag_lists)
        for name in ("finds_cuda", "enables_cuda", "optional_cuda", "uses_cuda", "findcuda_separable"):
            setattr(self, name, getattr(self, name) or getattr(other, name))


@dataclass(frozen=True)
class BuildOptions:
    """How build files are migrated.

    Attributes:
        offload_archs: the AMD architectures (``gfx90a``...) that replace NVIDIA ones.
        target_libs: ``hip`` or ``roc`` (which library replaces a CUDA library).
        rename_cu: ``.cu`` file names become ``.hip`` (default); False when the sources keep
            their names (``convert --in-place`` without ``--rename-cu``).
    """

    offload_archs: tuple[str, ...]
    target_libs: str = "hip"
    rename_cu: bool = True


@dataclass
class Migration:
    """The result of migrating one build file: its new text and what to report.

    Attributes:
        text: the migrated file (equal to the input when nothing matched).
        notes: ``(check name, line, column, fields)`` for each finding, in file order.
        facts: what the file says about the project (from :func:`scan_cmake`).
    """

    text: str
    notes: list[tuple[str, int, int, dict[str, str]]] = field(default_factory=list)
    facts: ProjectFacts = field(default_factory=ProjectFacts)


def _truthy(value: str) -> bool:
    return value.upper() in _TRUE


def _flag_words(args: list[Argument]) -> list[Word]:
    """The words of option arguments: each unquoted argument split at ``;``, each quoted one at
    blanks and ``;``; bracket arguments are left out."""
    words: list[Word] = []
    for arg in args:
        if arg.kind == "bracket":
            continue
        separators = ";" if arg.kind == "unquoted" else " \t;"
        words.extend(split_words(arg.content, arg.content_start, separators))
    return words


class _CMakeMigration:
    """One pass over one file; see :func:`migrate_cmake`."""

    def __init__(self, text: str, path: str, rules: BuildRules, options: BuildOptions, facts: ProjectFacts | None):
        self.text, self.path, self.rules, self.options = text, path, rules, options
        self.scanning = facts is None
        self.facts = facts or ProjectFacts()
        self.found = ProjectFacts()  # what this file says (returned as Migration.facts)
        self.lines = LineIndex(text)
        self.edits: list[TextEdit] = []
        self.notes: list[tuple[str, int, int, dict[str, str]]] = []
        self.inserts: dict[int, list[str]] = {}  # command end -> lines to insert after it
        self.folder = posixpath.dirname(path)
        self.is_top = path == self.facts.top_level
        self.lang_known = not self.is_top  # HIPPORT_GPU_LANGUAGE is set (below the enable)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.gpu_sources_done: set[str] = set()
        self.handled: set[int] = set()  # offsets of arguments already dealt with
        # spans of the text kept as written for NVIDIA builds (their HIP twins are written
        # next to them): no later rule edits them
        self.kept: list[tuple[int, int]] = []
        # edits of the CUDA form of the command being twinned (its architecture options removed)
        self.cuda_form_edits: list[TextEdit] = []
        # spans of option commands whose options are clang's (HIP twins, conditions mapped in place)
        self.hip_spans: list[tuple[int, int]] = []
        self.at = 0  # offset of the command being migrated (where an internal error is reported)

    # ------------------------------------------------------------------ helpers
    def note(self, check: str, offset: int, **fields: str) -> None:
        line, column = self.lines.position(offset)
        self.notes.append((check, line, column, fields))

    def edit(self, start: int, end: int, new: str) -> None:
        """Record an edit unless it overlaps one already recorded (the first decision wins) or
        a span kept for NVIDIA builds."""
        if any(e.start < end and start < e.end for e in self.edits):
            return
        if any(s < end and start < e for s, e in self.kept):
            return
        self.edits.append(TextEdit(start, end, new))

    @contextmanager
    def captured(self):
        """Collect the edits and notes made inside the ``with`` block apart (yields
        ``(edits, notes)``, filled when the block ends) instead of applying them: they make the
        HIP twin of a CUDA construct that stays as written."""
        saved = self.edits, self.notes
        self.edits, self.notes = [], []
        box: tuple[list[TextEdit], list] = ([], [])
        try:
            yield box
        finally:
            box[0].extend(self.edits)
            box[1].extend(self.notes)
            self.edits, self.notes = saved

    def rendered(self, start: int, end: int, edits: list[TextEdit]) -> str:
        """``text[start:end]`` with the edits inside it applied."""
        pieces, position = [], start
        for e in sorted(edits, key=lambda e: (e.start, e.end)):
            if e.start < start or e.end > end:
                continue
            pieces.append(self.text[position:e.start])
            pieces.append(e.text)
            position = max(position, e.end)
        pieces.append(self.text[position:end])
        return "".join(pieces)

    def follows(self, offset: int, text: str) -> bool:
        """True when ``text`` comes right after ``offset`` (blanks and comments skipped): the
        HIP twin written by an earlier conversion."""
        at = _GAP.match(self.text, offset).end()
        return self.text.startswith(text, at)

    def keep_cuda_form(self, start: int, end: int, edits: list[TextEdit]) -> None:
        """Keep ``text[start:end]`` for NVIDIA builds: apply ``edits`` there (its architecture
        options removed), then let no other rule edit it."""
        for e in edits:
            self.edit(e.start, e.end, e.text)
        self.kept.append((start, end))

    def insert_after(self, command: Command, *lines: str) -> None:
        """Insert ``lines`` (commands) after ``command``, each on a line of its own with the
        command's indentation; a line the file holds already (a port converted again) is not
        inserted twice."""
        self.inserts.setdefault(command.end, []).extend(line for line in lines if line not in self.text)

    def lang(self, replacement: str) -> str:
        return replacement.replace("<LANG>", GPU_LANGUAGE_VARIABLE if self.lang_known else "HIP")

    def arch_value(self) -> str:
        return '"${HIPPORT_OFFLOAD_ARCHS}"' if self.lang_known else '"' + ";".join(self.options.offload_archs) + '"'

    def remove_arg(self, args: tuple[Argument, ...], index: int) -> None:
        """Remove ``args[index]`` with the blank run before it (or after it, for the first)."""
        arg = args[index]
        start, end = arg.start, arg.end
        if index > 0 and re.fullmatch(r"[ \t\r\n]*", self.text[args[index - 1].end:start]):
            start = args[index - 1].end
        elif index + 1 < len(args) and re.fullmatch(r"[ \t]*", self.text[end:args[index + 1].start]):
            end = args[index + 1].start
        self.edit(start, end, "")

    def apply_flag_result(self, result) -> None:
        for e in result.edits:
            self.edit(e.start, e.end, e.text)
        for n in result.notes:
            self.note(n.check, n.offset, **n.fields)

    def map_flags(self, words: list[Word], *, certain: bool, joiner: str) -> None:
        if words:
            self.apply_flag_result(map_nvcc_flags(self.text, words, self.rules, self.options.offload_archs,
                                                  certain=certain, arch_mode="remove", joiner=joiner,
                                                  target_libs=self.options.target_libs))

    def library_name(self, library: Library, offset: int, written: str) -> str | None:
        """The CMake name that replaces a CUDA library reference, or None (reported) when the
        chosen --target-libs has no replacement."""
        target = library.replacement(self.options.target_libs)
        if target is None or not target.cmake_name:
            self.note("cuda-library-unavailable", offset, construct=written, library=library.name,
                      note=library.note or f"no HIP library replaces {library.name}")
            return None
        if target.target and target.target != "hip::host" and target.target not in self.found.libraries:
            self.found.libraries.append(target.target)
        return target.cmake_name

    # ------------------------------------------------------------------ the pass
    def run(self) -> Migration:
        commands = parse_cmake(self.text)
        # a file migrated before (converting a port again) already includes the module
        self.has_include = any(c.lower == "include" and any("HipportPlatform.cmake" in a.text for a in c.args)
                               for c in commands)
        self.has_enable = any(c.lower == "hipport_enable_gpu_language" for c in commands)
        if self.has_enable:
            self.found.enables_cuda = self.found.uses_cuda = True
        for command in commands:
            self.at = command.start
            self.command(command)
        self.at = 0
        if self.scanning:  # scan_cmake keeps only the facts: the text and notes are not put together
            return Migration(self.text, [], self.found)
        text = self.text
        pieces, position = [], 0
        inserts = []
        for end, lines in self.inserts.items():
            at = self._line_end(end)
            indent = next(c.indent for c in commands if c.end == end)
            inserts.append(TextEdit(at, at, "".join(self.newline + indent + line for line in lines)))
        for e in sorted(self.edits + inserts, key=lambda e: (e.start, e.end)):
            pieces.append(text[position:e.start])
            pieces.append(e.text)
            position = max(position, e.end)
        pieces.append(text[position:])
        self.notes.sort(key=lambda n: (n[1], n[2], n[0]))
        return Migration("".join(pieces), self.notes, self.found)

    def _line_end(self, offset: int) -> int:
        """Where to insert after a command ending at ``offset``: after a comment on its line."""
        i = offset
        while i < len(self.text) and self.text[i] in " \t":
            i += 1
        if i < len(self.text) and self.text[i] == "#":
            if re.match(r"#\[(=*)\[", self.text[i:]):
                close = "]" + re.match(r"#\[(=*)\[", self.text[i:]).group(1) + "]"
                return self.text.index(close, i) + len(close)
            end = self.text.find("\n", i)
            end = len(self.text) if end < 0 else end
            return end - 1 if end > 0 and self.text[end - 1] == "\r" else end
        return offset

    def command(self, cmd: Command) -> None:
        """Apply the rules to one command; an assignment of a CUDA flags variable
        (``set(CMAKE_CUDA_FLAGS ...)``, ``list(APPEND CUDA_NVCC_FLAGS ...)``) stays for NVIDIA
        builds and gets its HIP twin on a line of its own after it."""
        if not self.twinned_assignment(cmd):
            self.rules_of(cmd)
            return
        self.cuda_form_edits = []
        with self.captured() as (edits, notes):
            self.rules_of(cmd)
        twin = self.rendered(cmd.start, cmd.end, edits)
        cuda_edits, self.cuda_form_edits = self.cuda_form_edits, []
        if twin == self.text[cmd.start:cmd.end]:
            return
        if not self.follows(self._line_end(cmd.end), twin):
            self.notes.extend(notes)
            if not _appends_nothing(twin):
                self.insert_after(cmd, twin)
        self.keep_cuda_form(cmd.start, cmd.end, cuda_edits)

    def twinned_assignment(self, cmd: Command) -> bool:
        """True for set/string(APPEND)/list(APPEND) of a CUDA variable that NVIDIA builds read
        and whose HIP form is another variable: the flags (CMAKE_CUDA_FLAGS*, FindCUDA's
        CUDA_NVCC_FLAGS*), and renamed CMAKE_CUDA_ settings whose name does not follow the GPU
        language (CMAKE_CUDA_VISIBILITY_PRESET; CMAKE_CUDA_STANDARD above project())."""
        modes = _ASSIGNMENTS.get(cmd.lower)
        if modes is None or not cmd.args:
            return False
        index = 0
        if modes:
            if len(cmd.args) < 2 or cmd.args[0].value not in modes:
                return False
            index = 1
        variable = cmd.args[index]
        if variable.kind == "bracket" or self.rules.library_for_variable(variable.value) is not None:
            return False
        rule = self.rules.variable(variable.value)
        if rule is None:
            return False
        if rule.action in ("flags", "flags-list"):
            return True
        return (rule.action == "rename" and variable.value.startswith("CMAKE_CUDA_")
                and GPU_LANGUAGE_VARIABLE not in self.lang(rule.replacement))

    def rules_of(self, cmd: Command) -> None:
        name = cmd.lower
        args = cmd.args
        rule = self.rules.commands.get(name)
        if rule is not None:
            handler = getattr(self, "cmd_" + rule.action.replace("-", "_"))
            if handler(cmd, rule) is False:
                return
        if name in _PROPERTY_SETTERS or name in ("set_property", "get_target_property", "get_source_file_property",
                                                  "get_property", "get_test_property"):
            self.properties(cmd)
        if name in ("set", "string", "list"):
            self.variable_assignment(cmd)
        if name in _OPTION_COMMANDS:
            self.option_command(cmd)
        if name in ("target_link_libraries", "link_libraries"):
            self.link_names(cmd)
        for index, arg in enumerate(args):
            if arg.start in self.handled or arg.kind == "bracket":
                continue
            self.argument(cmd, index, arg)
        if name in ("add_executable", "add_library", "target_sources", "cuda_add_executable", "cuda_add_library"):
            self.gpu_target(cmd)
        if name in _SOURCE_COMMANDS:
            self.gpu_cxx_sources(cmd)

    # ------------------------------------------------------------------ command rules
    def cmd_project(self, cmd: Command, rule: NameRule):
        args = cmd.args
        language_args = []
        keyword = None
        for index, arg in enumerate(args[1:], 1):
            if arg.value in ("VERSION", "DESCRIPTION", "HOMEPAGE_URL", "LANGUAGES"):
                keyword = arg.value
                continue
            if keyword in (None, "LANGUAGES") and arg.kind == "unquoted":
                language_args.append(index)
            keyword = None if keyword in ("VERSION", "DESCRIPTION", "HOMEPAGE_URL") else keyword
        cuda = [i for i in language_args if args[i].value == "CUDA"]
        if cuda:
            self.found.enables_cuda = self.found.uses_cuda = True
            others = [i for i in language_args if args[i].value not in ("CUDA", "NONE")]
            if others:
                for i in cuda:
                    self.remove_arg(args, i)
                written = "CUDA"
            else:
                self.edit(args[cuda[0]].start, args[cuda[0]].end, "CXX")
                written = "CXX"
            self.handled.update(args[i].start for i in cuda)
        lines = []
        if self.is_top and (self.facts.uses_cuda or cuda) and not self.has_include:
            module = posixpath.relpath(PLATFORM_MODULE, self.folder or ".")
            lines.append(f"include(${{CMAKE_CURRENT_SOURCE_DIR}}/{module})")
        enable = cuda or (self.is_top and self.facts.uses_cuda and not self.facts.enables_cuda
                          and not self.facts.optional_cuda and not self.has_enable)
        if enable:
            lines.append("hipport_enable_gpu_language()")
            lines.extend(self.finds_after_enable())
            self.lang_known = True
        if lines:
            self.insert_after(cmd, *lines)
        if cuda:
            self.note("build-migrated", cmd.start, construct="project(... CUDA)",
                      replacement=("project(... CXX)" if written == "CXX" else "project(...)")
                      + " + hipport_enable_gpu_language()",
                      note="HIP on AMD, CUDA on NVIDIA, chosen by cmake/HipportPlatform.cmake")
        elif enable:
            self.note("build-migrated", cmd.start, construct="project()",
                      replacement="project() + hipport_enable_gpu_language()",
                      note="the project uses CUDA without enabling CMake's CUDA language (FindCUDA or CUDAToolkit): "
                           "the port compiles its GPU sources with the GPU language of cmake/HipportPlatform.cmake")

    def libraries(self) -> list[str]:
        """The project's library targets, in the order of ``libraries.yaml``."""
        return sorted(self.facts.libraries, key=self.rules.target_order)

    def finds_after_enable(self) -> list[str]:
        if self.facts.libraries and not self.facts.finds_cuda:
            return [f"hipport_find_libraries({' '.join(self.libraries())})"]
        return []

    def cmd_enable_language(self, cmd: Command, rule: NameRule):
        args = cmd.args
        cuda = [i for i, a in enumerate(args) if a.value == "CUDA" and a.kind == "unquoted"]
        if not cuda:
            return None
        self.found.enables_cuda = self.found.uses_cuda = True
        others = [i for i, a in enumerate(args) if i not in cuda and a.value != "OPTIONAL"]
        self.lang_known = True
        extra = self.finds_after_enable()
        if not others:
            self.replace_command(cmd, "hipport_enable_gpu_language", [])
            if extra:
                self.insert_after(cmd, *extra)
        else:
            for i in cuda:
                self.remove_arg(args, i)
            self.insert_after(cmd, "hipport_enable_gpu_language()", *extra)
        self.note("build-migrated", cmd.start, construct="enable_language(CUDA)",
                  replacement="hipport_enable_gpu_language()",
                  note="HIP on AMD, CUDA on NVIDIA, chosen by cmake/HipportPlatform.cmake")
        return False

    def cmd_report_language(self, cmd: Command, rule: NameRule):
        if any(a.value == "CUDA" for a in cmd.args):
            self.found.optional_cuda = True
            self.note("cmake-cuda-kept", cmd.start, construct=f"{cmd.name}(CUDA)", note=rule.note, advice=rule.fix)
        return None

    def cmd_find_package(self, cmd: Command, rule: NameRule):
        if not cmd.args or cmd.args[0].value not in rule.extra["packages"]:
            return None
        self.found.finds_cuda = self.found.uses_cuda = True
        # hip::host (made by hipport_enable_gpu_language) stands for the CUDA runtime the call found
        libraries = (["hip::host"] if self.lang_known else []) + self.libraries()
        written = f"find_package({' '.join(a.text for a in cmd.args)})"
        self.replace_command(cmd, "hipport_find_libraries", list(libraries))
        if cmd.args[0].value == "CUDA":  # what FindCUDA set, for NVIDIA builds
            self.insert_after(cmd, "hipport_findcuda()")
        self.note("build-migrated", cmd.start, construct=written,
                  replacement=f"hipport_find_libraries({' '.join(libraries)})",
                  note="HIP's runtime comes with the GPU language; hipport_find_libraries finds the HIP libraries "
                       "the project links (their CMake packages on AMD)"
                       + ("; hipport_findcuda() sets what FindCUDA set for NVIDIA builds" if cmd.args[0].value == "CUDA"
                          else ""))
        return False

    def replace_command(self, cmd: Command, name: str, new_args: list[str]) -> None:
        """Rename ``cmd`` and replace its arguments, keeping comments inside its parentheses."""
        self.edit(cmd.start, cmd.start + len(cmd.name), name)
        args = cmd.args
        for i, arg in enumerate(args):
            self.handled.add(arg.start)
            if i < len(new_args):
                self.edit(arg.start, arg.end, new_args[i])
            else:
                start = args[i - 1].end if i > 0 else cmd.open + 1
                self.edit(start if "#" not in self.text[start:arg.start] else arg.start, arg.end, "")
        if len(new_args) > len(args):
            rest = " ".join(new_args[len(args):])
            at = args[-1].end if args else cmd.open + 1
            self.edit(at, at, (" " if args else "") + rest)

    def cmd_findcuda_target(self, cmd: Command, rule: NameRule):
        self.found.uses_cuda = True
        args = cmd.args
        if not args:
            return None
        self.edit(cmd.start, cmd.start + len(cmd.name), rule.replacement)
        target = args[0].text
        options_at = next((i for i, a in enumerate(args) if a.value == "OPTIONS" and a.kind == "unquoted"), None)
        option_lists: dict[str, list[str]] = {}
        nvcc_options = ""  # the OPTIONS as written, for NVIDIA builds (architectures left out)
        if options_at is not None:
            words = _flag_words(list(args[options_at + 1:]))
            dropped = {k for span in architecture_options(words, self.rules, certain=True) for k in span}
            kept = [w.text for k, w in enumerate(words) if k not in dropped]
            nvcc_options = " OPTIONS " + " ".join(kept) if kept else ""
            config = ""
            groups: dict[str, list[Argument]] = {}
            for arg in args[options_at + 1:]:
                if arg.kind == "unquoted" and arg.value in ("DEBUG", "RELEASE", "MINSIZEREL", "RELWITHDEBINFO"):
                    config = {"DEBUG": "Debug", "RELEASE": "Release", "MINSIZEREL": "MinSizeRel",
                              "RELWITHDEBINFO": "RelWithDebInfo"}[arg.value]
                    continue
                groups.setdefault(config, []).append(arg)
            for config, group in groups.items():
                option_lists[config] = self.mapped_options(group)
            for i in range(len(args) - 1, options_at - 1, -1):
                self.handled.add(args[i].start)
            start = args[options_at - 1].end if options_at > 0 else args[options_at].start
            if "#" in self.text[start:args[-1].end]:
                for i in range(options_at, len(args)):
                    self.remove_arg(args, i)
            else:
                self.edit(start, args[-1].end, "")
        compile_options = []
        for config, options in option_lists.items():
            if options:
                compile_options.append(self.genex_options(options, config))
        for name in self.facts.nvcc_flag_lists:
            var_rule = self.rules.variable(name)
            replacement = var_rule.replacement if var_rule else name
            config = var_rule.extra.get("config", "") if var_rule else ""
            compile_options.append(self.genex_options(["${" + replacement + "}"], config))
        lines = [f"hipport_findcuda_target({target}{nvcc_options})"]  # FindCUDA's nvcc options, NVIDIA only
        if compile_options:
            lines.append(f"target_compile_options({target} PRIVATE {' '.join(compile_options)})")
        if self.facts.findcuda_separable:  # the property for NVIDIA builds, -fgpu-rdc for AMD ones
            lines.extend([f"set_target_properties({target} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)",
                          f"target_compile_options({target} PRIVATE {_SEPARABLE_COMPILE})",
                          f"target_link_options({target} PUBLIC {_SEPARABLE_LINK})"])
        lines.append(f"target_link_libraries({target} hip::host)")
        self.insert_after(cmd, *lines)
        self.note("build-migrated", cmd.start, construct=cmd.name, replacement=rule.replacement,
                  note="FindCUDA's options stay for nvcc (hipport_findcuda_target, NVIDIA builds) and became "
                       "target_compile_options for HIP sources; its runtime became hip::host" + ("; CUDA_SEPARABLE_COMPILATION became -fgpu-rdc" if self.facts.findcuda_separable else ""))
        return None

    def genex_options(self, options: list[str], config: str) -> str:
        condition = "$<COMPILE_LANGUAGE:HIP>"
        if config:
            condition = f"$<AND:{condition},$<CONFIG:{config}>>"
        body = ";".join(options)
        text = f"$<{condition}:{body}>"
        return f'"{text}"' if (";" in body or " " in body or "${" in body) else text

    def mapped_options(self, args: list[Argument]) -> list[str]:
        """The clang options for nvcc options given as arguments (notes point at the originals)."""
        words = _flag_words(args)
        result = map_nvcc_flags(self.text, words, self.rules, self.options.offload_archs, certain=True,
                                arch_mode="remove", joiner="\0", target_libs=self.options.target_libs)
        for n in result.notes:
            self.note(n.check, n.offset, **n.fields)
        replaced = {(e.start, e.end): e.text for e in result.edits}
        removed = [(e.start, e.end) for e in result.edits if e.text == ""]
        options = []
        for word in words:
            if (word.start, word.end) in replaced:
                if replaced[(word.start, word.end)]:
                    options.extend(replaced[(word.start, word.end)].split("\0"))
                continue
            if any(s <= word.start and word.end <= e for s, e in removed):
                continue
            options.append(word.text)
        return options

    def cmd_rename(self, cmd: Command, rule: NameRule):
        self.found.uses_cuda = True
        self.edit(cmd.start, cmd.start + len(cmd.name), rule.replacement)
        self.note("build-migrated", cmd.start, construct=cmd.name, replacement=rule.replacement, note=rule.note)
        return None

    def cmd_link_library(self, cmd: Command, rule: NameRule):
        self.found.uses_cuda = True
        library = self.rules.library(rule.extra["library"])
        name = self.library_name(library, cmd.start, cmd.name)
        if name is None or not cmd.args:
            return False
        target = cmd.args[0].text
        self.replace_command(cmd, "target_link_libraries", [target, name])
        self.note("build-migrated", cmd.start, construct=cmd.name,
                  replacement=f"target_link_libraries({target} {name})", note=f"links {library.name}'s replacement")
        return False

    def cmd_report(self, cmd: Command, rule: NameRule):
        self.found.uses_cuda = True
        self.note("findcuda-command-kept", cmd.start, construct=cmd.name, note=rule.note, advice=rule.fix)
        return False

    # ------------------------------------------------------------------ properties
    def properties(self, cmd: Command) -> None:
        """Property names and values of the property commands."""
        args, name = cmd.args, cmd.lower
        pairs: list[tuple[int, list[int]]] = []  # (name index, value indexes)
        targets: list[str] = []
        if name in _PROPERTY_SETTERS:
            at = next((i for i, a in enumerate(args) if a.value == "PROPERTIES"), None)
            if at is None:
                return
            targets = [a.text for a in args[:at]]
            pairs = [(i, [i + 1] if i + 1 < len(args) else []) for i in range(at + 1, len(args), 2)]
        elif name == "set_property":
            at = next((i for i, a in enumerate(args) if a.value == "PROPERTY"), None)
            if at is None or at + 1 >= len(args):
                return
            if args and args[0].value == "TARGET":
                targets = [a.text for a in args[1:at] if a.value not in ("APPEND", "APPEND_STRING")]
            pairs = [(at + 1, list(range(at + 2, len(args))))]
        elif name in ("get_target_property", "get_source_file_property", "get_test_property"):
            if len(args) >= 3:
                pairs = [(2, [])]
        elif name == "get_property":
            at = next((i for i, a in enumerate(args) if a.value == "PROPERTY"), None)
            if at is not None and at + 1 < len(args):
                pairs = [(at + 1, [])]
        for key_index, value_indexes in pairs:
            key = args[key_index]
            self.handled.add(key.start)
            language = self.rules.languages.get(key.value)
            if language is not None and language.action == "gpu-language":
                for v in value_indexes:
                    if args[v].value == "CUDA":
                        self.found.uses_cuda = True
                        self.edit(args[v].start, args[v].end, self.lang("<LANG>"))
                        self.handled.add(args[v].start)
                continue
            rule = self.rules.property(key.value)
            if rule is None:
                continue
            self.found.uses_cuda = True
            if rule.action == "rename":
                self.edit(key.start, key.end, self.lang(rule.replacement))
            elif rule.action == "architectures":
                self.edit(key.start, key.end, rule.replacement)
                if value_indexes:
                    written = " ".join(args[v].text for v in value_indexes)
                    self.edit(args[value_indexes[0]].start, args[value_indexes[0]].end, self.arch_value())
                    for v in value_indexes[1:]:
                        self.remove_arg(args, v)
                    self.handled.update(args[v].start for v in value_indexes)
                    self.note("cuda-arch-replaced", key.start, construct=f"{key.value} {written}",
                              archs=";".join(self.options.offload_archs))
            elif rule.action == "separable":
                values = [args[v].value for v in value_indexes]
                if len(values) == 1 and _truthy(values[0]) and targets:
                    for target in targets:
                        self.insert_after(cmd, f"target_compile_options({target} PRIVATE {_SEPARABLE_COMPILE})",
                                          f"target_link_options({target} PUBLIC {_SEPARABLE_LINK})")
                    self.note("build-migrated", key.start, construct=f"{key.value} {values[0]}",
                              replacement="-fgpu-rdc (compile) and -fgpu-rdc --hip-link (link)",
                              note="the property stays for NVIDIA builds; AMD builds get clang's relocatable device code")
                elif values and not all(v.upper() in ("OFF", "FALSE", "NO", "N", "0") for v in values):
                    self.note("cmake-cuda-kept", key.start, construct=f"{key.value} {' '.join(values)}",
                              note="separable compilation switched by a value hipport cannot read",
                              advice="add target_compile_options(<target> PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>) "
                                     "and target_link_options(<target> PUBLIC \"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>\") where it is on")
            elif rule.action == "report":
                self.note("cmake-cuda-kept", key.start, construct=key.value, note=rule.note, advice=rule.fix)

    # ------------------------------------------------------------------ variables
    def variable_assignment(self, cmd: Command) -> None:
        """set/string(APPEND)/list(APPEND) of a flags or architectures variable: map its values."""
        args, name = cmd.args, cmd.lower
        if name == "set" and args:
            var_index, values = 0, list(range(1, len(args)))
            for i in range(1, len(args)):
                if args[i].value in ("CACHE", "PARENT_SCOPE") and args[i].kind == "unquoted":
                    values = list(range(1, i))
                    break
        elif name == "string" and len(args) >= 2 and args[0].value in ("APPEND", "PREPEND"):
            var_index, values = 1, list(range(2, len(args)))
        elif name == "list" and len(args) >= 2 and args[0].value in ("APPEND", "PREPEND", "INSERT"):
            var_index = 1
            values = list(range(3 if args[0].value == "INSERT" else 2, len(args)))
        else:
            return
        variable = args[var_index].value
        library = self.rules.library_for_variable(variable)
        rule = self.rules.variable(variable) if library is None else None
        if rule is None:
            return
        self.found.uses_cuda = True
        value_args = [args[i] for i in values]
        if rule.action in ("flags", "flags-list"):
            if rule.action == "flags-list" and variable not in self.found.nvcc_flag_lists:
                self.found.nvcc_flag_lists.append(variable)
            words = _flag_words(value_args)
            self.map_flags(words, certain=True, joiner=" " if rule.action == "flags" else ";")
            # the CUDA form (kept for NVIDIA builds) loses only its architecture options
            self.cuda_form_edits.extend(remove_words(self.text, words,
                                                     architecture_options(words, self.rules, certain=True)))
        elif rule.action == "architectures" and name == "set" and value_args:
            written = " ".join(a.text for a in value_args)
            self.edit(value_args[0].start, value_args[0].end, self.arch_value())
            for i in values[1:]:
                self.remove_arg(args, i)
            self.handled.update(a.start for a in value_args)
            self.note("cuda-arch-replaced", args[var_index].start, construct=f"{variable} {written}",
                      archs=";".join(self.options.offload_archs))
        elif rule.action == "separable" and name == "set":
            if len(value_args) == 1 and _truthy(value_args[0].value):
                self.insert_after(cmd, f"add_compile_options({_SEPARABLE_COMPILE})",
                                  f"add_link_options({_SEPARABLE_LINK})")
                self.note("build-migrated", args[var_index].start, construct=f"{variable} {value_args[0].value}",
                          replacement="add_compile_options(-fgpu-rdc) and add_link_options(-fgpu-rdc --hip-link) for HIP",
                          note="the variable stays for NVIDIA builds; AMD builds get clang's relocatable device code")
            self.handled.add(args[var_index].start)
        elif rule.action == "findcuda-separable" and name == "set":
            if len(value_args) == 1 and _truthy(value_args[0].value):
                self.found.findcuda_separable = True
                self.note("build-migrated", args[var_index].start, construct=f"{variable} {value_args[0].value}",
                          replacement="-fgpu-rdc on the targets of cuda_add_executable/cuda_add_library", note=rule.note)
            self.handled.add(args[var_index].start)

    def option_command(self, cmd: Command) -> None:
        """target_compile_options and friends: an option list inside a CUDA language condition
        (``$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>``) stays for NVIDIA builds (less its
        architecture options) and gets its HIP twin right after it
        (``$<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>``), options mapped; outside such a
        condition only nvcc-only spellings are mapped, and an argument holding one becomes such
        a pair.

        CMake joins the arguments into one ``;``-list before it evaluates generator
        expressions, so ``$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --use_fast_math>`` written
        unquoted (two arguments) is one expression: the arguments are looked at joined."""
        args = [a for a in cmd.args if a.kind != "bracket"]
        joined, segments, position = [], [], 0
        for arg in args:
            segments.append((position, position + len(arg.content), arg))
            joined.append(arg.content)
            position += len(arg.content) + 1
        virtual = ";".join(joined)
        covered = _genex_regions(virtual)
        for start, end in covered:
            body = _cuda_condition_body(virtual, start, end)
            if body is None:
                continue
            pieces = []  # (arg, source start, source end) of the region in each argument
            for seg_start, seg_end, arg in segments:
                lo, hi = max(start, seg_start), min(end, seg_end)
                if lo < hi:
                    pieces.append((arg, arg.content_start + lo - seg_start, arg.content_start + hi - seg_start))
            words = []
            for seg_start, seg_end, arg in segments:
                lo, hi = max(body[0], seg_start), min(body[1], seg_end)
                if lo < hi:
                    words.extend(split_words(virtual[lo:hi], arg.content_start + lo - seg_start,
                                             ";" if arg.kind == "unquoted" else " \t;"))
            self.option_twin(cmd, pieces, words)
        plain = [arg for seg_start, seg_end, arg in segments
                 if not any(s < seg_end and seg_start < e for s, e in covered)]
        for arg in plain:
            self.plain_option(cmd, arg)

    def option_twin(self, cmd: Command, pieces: list[tuple[Argument, int, int]], words: list[Word]) -> None:
        """One option list in a CUDA language condition (``pieces``: where it lies in each
        argument; ``words``: its options): kept, less its architecture options, with the HIP
        twin written after it (not when the twin holds no option, nor when an earlier
        conversion wrote it)."""
        first, last = pieces[0][0], pieces[-1][0]
        whole = pieces[0][1] == first.content_start and pieces[-1][2] == last.content_start + len(last.content)
        if not whole and first is not last:
            # a condition starting or ending inside arguments it shares with other text: mapped
            # in place (HIP only), as hipport cannot split it
            self.hip_spans.append((pieces[0][1], pieces[-1][2]))
            self.map_flags(words, certain=True, joiner=";")
            return
        start, end = (first.start, last.end) if whole else (pieces[0][1], pieces[0][2])
        self.hip_spans.append((start, end))
        with self.captured() as (edits, notes):
            self.map_flags(words, certain=True, joiner=";")
            for arg, piece_start, piece_end in pieces:
                self.argument(cmd, -1, Argument("unquoted", self.text[piece_start:piece_end], piece_start, piece_end))
        twin = self.rendered(start, end, edits)
        cuda_edits = remove_words(self.text, words, architecture_options(words, self.rules, certain=True))
        if whole:
            self.handled.update(arg.start for arg, _, _ in pieces)
        self.keep_cuda_form(start, end, cuda_edits)
        if self.follows(end, twin) or (not whole and self.text.startswith(";" + twin, end)):
            return
        self.notes.extend(notes)
        if re.search(r">:>\"?\Z", twin):  # nothing left for HIP
            return
        if not whole:
            self.edits.append(TextEdit(end, end, ";" + twin))
            return
        line_start = self.text.rfind("\n", 0, start) + 1
        rest_end = self.text.find("\n", end)
        rest = self.text[end:len(self.text) if rest_end < 0 else rest_end].strip()
        if not self.text[line_start:start].strip() and (not rest or rest.startswith("#")):
            at = self._line_end(end)
            self.edits.append(TextEdit(at, at, self.newline + self.text[line_start:start] + twin))
        else:
            self.edits.append(TextEdit(end, end, " " + twin))

    def plain_option(self, cmd: Command, arg: Argument) -> None:
        """An option argument outside any generator expression: only nvcc-only spellings are
        mapped; an argument holding one becomes ``$<$<COMPILE_LANGUAGE:CUDA>:as written>``
        (NVIDIA builds) followed by ``$<$<COMPILE_LANGUAGE:HIP>:mapped>`` (AMD builds), since
        only GPU sources can have taken an nvcc option."""
        words = _flag_words([arg])
        with self.captured() as (edits, notes):
            self.map_flags(words, certain=False, joiner=" " if arg.kind == "unquoted" else ";")
        self.notes.extend(notes)
        if not edits:
            return
        language = "LINK_LANGUAGE" if "link" in cmd.lower else "COMPILE_LANGUAGE"
        cuda_edits = remove_words(self.text, words, architecture_options(words, self.rules, certain=False))
        quote = '"' if arg.kind == "quoted" else ""
        content = slice(arg.content_start, arg.content_start + len(arg.content))
        kept = self.rendered(content.start, content.stop, cuda_edits)
        mapped = self.rendered(content.start, content.stop, edits)
        new = f"{quote}$<$<{language}:CUDA>:{kept}>{quote}" if kept.strip(" ;") else ""
        if mapped.strip(" ;"):
            new += (" " if new else "") + f"{quote}$<$<{language}:HIP>:{mapped}>{quote}"
        self.handled.add(arg.start)
        if new:
            self.edit(arg.start, arg.end, new)
        else:
            self.remove_arg(cmd.args, cmd.args.index(arg))

    def link_names(self, cmd: Command) -> None:
        """Bare CUDA library names and -l options in target_link_libraries/link_libraries."""
        args = cmd.args
        first = 1 if cmd.lower == "target_link_libraries" else 0
        for arg in args[first:]:
            if arg.kind != "unquoted" or arg.value in _SCOPES:
                continue
            value = arg.value
            lib = value[2:] if value.startswith("-l") else value
            library = self.rules.library_for_lib(lib)
            if library is None or "${" in value:
                continue
            self.found.uses_cuda = True
            self.handled.add(arg.start)
            replacement = self.library_name(library, arg.start, value)
            if replacement is not None:
                self.edit(arg.start, arg.end, replacement)

    def argument(self, cmd: Command, index: int, arg: Argument) -> None:
        """The generic rules, for any argument: variables, CUDA:: targets, language generator
        expressions, .cu file names."""
        content, base = arg.content, arg.content_start
        in_message = cmd.lower == "message"
        # a whole argument naming a variable (set(CMAKE_CUDA_FLAGS ...), if(CUDA_FOUND))
        if arg.kind == "unquoted" and _IDENTIFIER.match(content):
            if self.rules.library_for_variable(content) is None:
                rule = self.rules.variable(content)
                if rule is not None:
                    self.variable_use(rule, content, base, base + len(content), in_message)
                    return
        for match in _VARIABLE_REF.finditer(content):
            name = match.group(1)
            library = self.rules.library_for_variable(name)
            if library is not None:
                self.found.uses_cuda = True
                replacement = self.library_name(library, base + match.start(), match.group())
                if replacement is not None:
                    self.edit(base + match.start(), base + match.end(), replacement)
                continue
            rule = self.rules.variable(name)
            if rule is not None:
                self.variable_use(rule, name, base + match.start(1), base + match.end(1), in_message)
        # CUDA:: names in a quoted sentence ("CUDA::cublas is a target") are text, not targets
        targets = _CUDA_TARGET.finditer(content) if arg.kind == "unquoted" or not re.search(r"\s", content) else ()
        for match in targets:
            self.found.uses_cuda = True
            library = self.rules.library_for_target(match.group())
            if library is None:
                self.note("cmake-cuda-kept", base + match.start(), construct=match.group(),
                          note="a CUDA toolkit target hipport does not know",
                          advice="link the HIP library that replaces it (rules/build/libraries.yaml lists them)")
                continue
            replacement = self.library_name(library, base + match.start(), match.group())
            if replacement is not None:
                self.edit(base + match.start(), base + match.end(), replacement)
        self.language_genexes(cmd, arg)
        if not in_message and (arg.kind == "unquoted" or not re.search(r"\s", content)):
            for pattern, new in ((_CU_SUFFIX, ".hip"), (_CU_REGEX, r"\\.hip$")):
                for match in pattern.finditer(content):
                    self.found.uses_cuda = True
                    if self.options.rename_cu:
                        self.edit(base + match.start(), base + match.end(), new)

    def variable_use(self, rule: NameRule, name: str, start: int, end: int, in_message: bool) -> None:
        """A variable name (``source[start:end]``) a rule matches: renamed or reported (a
        reported or kept name alone, such as a test of CMAKE_CUDA_COMPILER, does not make the
        project a CUDA one)."""
        if rule.action in ("rename", "flags", "flags-list", "architectures"):
            self.found.uses_cuda = True
            self.edit(start, end, self.lang(rule.replacement))
        elif rule.action == "report" and not in_message:
            self.note("cmake-cuda-kept", start, construct=name, note=rule.note, advice=rule.fix)

    def language_genexes(self, cmd: Command, arg: Argument) -> None:
        """$<COMPILE_LANGUAGE:CUDA> and friends: HIP where the options they guard are clang's
        (a HIP twin), the GPU language elsewhere (``$<NOT:...>``, ``$<OR:...>``, definitions)."""
        content, base = arg.content, arg.content_start
        options = cmd.lower in _OPTION_COMMANDS
        for match in _LANGUAGE_GENEX.finditer(content):
            rule = self.rules.languages.get(match.group(1))
            items = match.group(2).split(",")
            if "CUDA" not in items or rule is None:
                continue
            self.found.uses_cuda = True
            ids = rule.extra.get("compiler_ids", {})
            at = base + match.start()
            hip = options and any(s <= at < e for s, e in self.hip_spans)
            language = "HIP" if hip else self.lang("<LANG>")
            new_items = [language if item == "CUDA" else ids.get(item, item) for item in items]
            self.edit(base + match.start(2), base + match.end(2), ",".join(new_items))

    # ------------------------------------------------------------------ GPU targets and sources
    def gpu_target(self, cmd: Command) -> None:
        """hipport_gpu_target(<target>) after a target whose sources may be .hip files (NVIDIA
        builds compile them as CUDA)."""
        args = cmd.args
        if not args or not self.facts.uses_cuda:
            return
        if any(a.value in ("ALIAS", "IMPORTED", "INTERFACE") for a in args[1:] if a.kind == "unquoted"):
            return
        sources = args[1:]
        if not any(_CU_SUFFIX.search(a.content) or "${" in a.content for a in sources if a.kind != "bracket"):
            return
        self.insert_after(cmd, f"hipport_gpu_target({args[0].text})")

    def gpu_cxx_sources(self, cmd: Command) -> None:
        """hipport_gpu_sources(<file>) after the first command naming a C++ file that uses HIP."""
        if not self.facts.gpu_cxx_sources:
            return
        found = []
        for arg in cmd.args:
            if arg.kind == "bracket":
                continue
            value = arg.value
            for prefix in ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/", "${PROJECT_SOURCE_DIR}/",
                           "${CMAKE_SOURCE_DIR}/"):
                if value.startswith(prefix):
                    value = value[len(prefix):]
                    if prefix in ("${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/") and not self.is_top:
                        value = ""
                    break
            if not value or "$" in value or ";" in value:
                continue
            path = posixpath.normpath(posixpath.join(self.folder, value))
            if path in self.facts.gpu_cxx_sources and path not in self.gpu_sources_done:
                self.gpu_sources_done.add(path)
                found.append(arg.text)
        if found:
            self.insert_after(cmd, f"hipport_gpu_sources({' '.join(found)})")


def _appends_nothing(text: str) -> bool:
    """True for a ``string()``/``list()`` command appending, prepending or inserting nothing but
    blanks (a HIP twin whose options were all removed)."""
    commands = parse_cmake(text)
    if len(commands) != 1 or commands[0].lower not in ("string", "list"):
        return False
    args = commands[0].args
    if len(args) < 2 or args[0].value not in ("APPEND", "PREPEND", "INSERT"):
        return False
    values = args[3:] if args[0].value == "INSERT" else args[2:]
    return all(not a.value.strip(" \t;") for a in values)


def _genex_regions(text: str) -> list[tuple[int, int]]:
    """(start, end) of the outermost generator expressions ``$<...>`` of ``text`` (an
    unterminated one runs to the end)."""
    regions, i = [], 0
    while True:
        start = text.find("$<", i)
        if start < 0:
            return regions
        depth, j = 0, start
        while j < len(text):
            if text.startswith("$<", j):
                depth += 1
                j += 2
                continue
            if text[j] == ">":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        regions.append((start, min(j + 1, len(text))))
        i = j + 1


_CUDA_LANGUAGE_TEST = re.compile(r"\$<(?:COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID):"
                                 r"[^<>$]*\bCUDA\b[^<>$]*>")


def _cuda_condition_body(text: str, start: int, end: int) -> tuple[int, int] | None:
    """(start, end) of the option list of the generator expression ``text[start:end]`` when
    its condition holds only for CUDA: ``$<$<COMPILE_LANGUAGE:CUDA>:...>``,
    ``$<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:X>>:...>`` (not under NOT or OR); else None."""
    if not text.startswith("$<$<", start) or end > len(text) or text[end - 1] != ">":
        return None  # not a condition, or an unterminated generator expression
    depth, i = 0, start + 2
    while i < end:  # the condition: one generator expression
        if text.startswith("$<", i):
            depth += 1
            i += 2
            continue
        if text[i] == ">":
            depth -= 1
            if depth == 0:
                break
        i += 1
    condition = text[start + 2:i + 1]
    if not text.startswith(":", i + 1) or not _CUDA_LANGUAGE_TEST.search(condition):
        return None
    if not (_CUDA_LANGUAGE_TEST.fullmatch(condition) or condition.startswith("$<AND:")) or \
            re.search(r"\$<(?:NOT|OR):", condition):
        return None
    return i + 2, end - 1


def scan_cmake(text: str, path: str, rules: BuildRules, options: BuildOptions) -> ProjectFacts:
    """What one CMake file says about the project (libraries, FindCUDA settings...).

    Args:
        text: the file's content.
        path: its path relative to SRC (``/`` separators).
        rules, options: as for :func:`migrate_cmake`.

    Returns:
        The file's facts; merge them with :meth:`ProjectFacts.merge`. A file CMake could not
        read says nothing.
    """
    try:
        return _CMakeMigration(text, path, rules, options, None).run().facts
    except Exception:  # noqa: BLE001 - migrate_cmake reports the same file's problem (HP3009)
        return ProjectFacts()


#: The first words of the CMakeLists.txt hipport generates (templates/CMakeLists.txt.j2).
GENERATED_CMAKE_MARK = "# Generated by hipport "


def has_project_command(text: str) -> bool:
    """True when ``text`` (a CMake file) calls ``project()`` (False when it cannot be read)."""
    try:
        return any(c.lower == "project" for c in parse_cmake(text))
    except CMakeSyntaxError:
        return False


def migrate_cmake(text: str, path: str, rules: BuildRules, options: BuildOptions, facts: ProjectFacts) -> Migration:
    """Migrate one CMake file's text.

    Args:
        text: the file's content (decoded; undecodable bytes as surrogate escapes).
        path: its path relative to SRC, ``/`` separators (``src/CMakeLists.txt``); include paths
            to the platform module and source paths are resolved from its folder.
        rules: the build rules (:func:`hipport.buildfiles.data.default_build_rules`).
        options: the AMD architectures and ``--target-libs``.
        facts: the project's facts (:func:`scan_cmake` of every CMake file, merged).

    Returns:
        The migrated text and the findings' notes. A CMakeLists.txt that hipport generated (it
        starts with :data:`GENERATED_CMAKE_MARK`) comes back unchanged. A file that is not valid CMake, or one whose
        migration fails inside hipport, comes back unchanged with one ``build-file-syntax`` note
        at the offending line (for an internal failure: the command being migrated).
    """
    if text.startswith(GENERATED_CMAKE_MARK):
        return Migration(text)  # hipport's own generated build (a second --in-place run): already HIP
    migration = _CMakeMigration(text, path, rules, options, facts)
    try:
        return migration.run()
    except CMakeSyntaxError as error:
        return Migration(text, [("build-file-syntax", error.line, error.column, {"problem": error.message})])
    except Exception as error:  # noqa: BLE001 - one build file must never stop the conversion
        return internal_failure(text, migration.lines, migration.at, error)


def internal_failure(text: str, lines: LineIndex, offset: int, error: Exception) -> Migration:
    """The result for a build file whose migration raised ``error`` (a hipport bug) while at
    ``offset`` of ``text``: the text unchanged and one ``build-file-syntax`` note there."""
    line, column = lines.position(min(max(offset, 0), len(text)))
    problem = f"hipport failed on this line with {type(error).__name__}: {error}; please report it"
    return Migration(text, [("build-file-syntax", line, column, {"problem": problem})])
