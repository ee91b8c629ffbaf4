"""Build files (CMake, Makefiles) migrated from CUDA to HIP.

Stages, one module each: :mod:`.data` loads the rules of ``rules/build/``;
:mod:`.cmake_syntax` tokenizes CMake; :mod:`.flags` maps nvcc options; :mod:`.cmakefile` and
:mod:`.makefile` migrate one file's text. :func:`migrate_build_files` runs them over the build
files of a tree (CMake files are scanned first, since one file's facts, such as the libraries
the project links, shape another's migration) and turns their notes into findings.

The format of the rules and what each rule does: ``docs/build-migration.md``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from ..discover import build_file_kind
from ..findings import Finding
from ..rules import RuleSet
from .cmake_syntax import LineIndex
from .cmakefile import (PLATFORM_MODULE, BuildOptions, Migration, ProjectFacts, has_project_command, internal_failure,
                        migrate_cmake, scan_cmake)
from .data import BuildRules, default_build_rules, load_build_rules
from .makefile import migrate_makefile

__all__ = ["BuildFile", "BuildOptions", "BuildRules", "MigratedBuildFile", "PLATFORM_MODULE", "build_file_kind",
           "default_build_rules", "load_build_rules", "migrate_build_files", "migrate_cmake", "migrate_makefile"]

#: Byte-order marks of UTF-16/32 text: such files are copied, not migrated.
_WIDE_BOMS = (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00", b"\xfe\xff", b"\xff\xfe")


@dataclass(frozen=True)
class BuildFile:
    """A build file of the tree: its path relative to SRC (``/``) and its bytes."""

    rel: str
    data: bytes


@dataclass
class MigratedBuildFile:
    """What :func:`migrate_build_files` made of one build file.

    Attributes:
        rel: its path relative to SRC.
        output: the bytes to write into OUT (the input's bytes when nothing changed, or when the
            file is UTF-16/32).
        findings: its findings, sorted (not yet filtered by suppressions).
        changed: the output differs from the input.
        includes_platform_module: the output includes ``cmake/HipportPlatform.cmake`` (OUT
            must then hold it).
    """

    rel: str
    output: bytes
    findings: list[Finding] = field(default_factory=list)
    changed: bool = False
    includes_platform_module: bool = False


def _project_roots(cmake_files: list[BuildFile], texts: dict[str, str]) -> list[str]:
    """The folders (relative to SRC, "" for SRC itself) whose ``CMakeLists.txt`` calls
    ``project()``: each starts a project (a tree may hold several, or nest them)."""
    return sorted(posixpath.dirname(f.rel) for f in cmake_files
                  if posixpath.basename(f.rel) == "CMakeLists.txt" and has_project_command(texts[f.rel]))


def _project_of(rel: str, roots: list[str]) -> str:
    """The deepest project folder holding ``rel`` ("" when none does)."""
    folder = posixpath.dirname(rel)
    owners = [r for r in roots if r == "" or folder == r or folder.startswith(r + "/")]
    return max(owners, key=len) if owners else ""


def _is_platform_module(data: bytes) -> bool:
    """True for hipport's own cmake/HipportPlatform.cmake (converting a port again)."""
    return data.startswith(b"# HipportPlatform.cmake: written by hipport")


def _findings(rules: RuleSet, rel: str, migration: Migration) -> list[Finding]:
    findings = []
    for check_name, line, column, fields in migration.notes:
        check = rules.check(check_name)
        message, fix = check.render(name="", **fields)
        findings.append(Finding(rel, line, column, check.id, check.name, check.severity, message, fix,
                                fields.get("construct", "")))
    return sorted(findings, key=Finding.sort_key)


def migrate_build_files(files: list[BuildFile], rules: RuleSet, options: BuildOptions,
                        gpu_cxx_sources: frozenset[str] = frozenset(),
                        build_rules: BuildRules | None = None) -> list[MigratedBuildFile]:
    """Migrate the CMake files and Makefiles of one tree.

    Args:
        files: the build files (see :func:`build_file_kind`), paths relative to SRC.
        rules: the loaded rules (for the check catalogue).
        options: the AMD architectures and ``--target-libs``.
        gpu_cxx_sources: C/C++ translation units of the tree (paths relative to SRC) that use
            CUDA: a migrated CMake file compiles them as GPU code.
        build_rules: the build rules (default: the shipped ``rules/build/``).

    Returns:
        One result per file, in the order given. A file hipport cannot read or migrate (invalid
        CMake, or a failure inside hipport) comes back unchanged with its ``build-file-syntax``
        finding (HP3009) at the line concerned; the other files are migrated as usual.

    Raises:
        hipport.rules.RuleError: the build rules are invalid.
    """
    build_rules = build_rules or default_build_rules()
    texts = {f.rel: f.data.decode("utf-8", "surrogateescape") for f in files
             if not f.data.startswith(_WIDE_BOMS) and not _is_platform_module(f.data)}
    cmake_files = [f for f in files if build_file_kind(f.rel) == "cmake" and f.rel in texts]
    roots = _project_roots(cmake_files, texts)
    facts = {root: ProjectFacts(top_level=posixpath.join(root, "CMakeLists.txt"), gpu_cxx_sources=gpu_cxx_sources)
             for root in [*roots, ""]}
    for f in cmake_files:
        facts[_project_of(f.rel, roots)].merge(scan_cmake(texts[f.rel], f.rel, build_rules, options))
    results = []
    for f in files:
        if f.rel not in texts:
            results.append(MigratedBuildFile(f.rel, f.data))
            continue
        text = texts[f.rel]
        try:
            if build_file_kind(f.rel) == "cmake":
                migration = migrate_cmake(text, f.rel, build_rules, options, facts[_project_of(f.rel, roots)])
            else:
                migration = migrate_makefile(text, f.rel, build_rules, options)
        except Exception as error:  # noqa: BLE001 - the migrations catch their own; this is the last guard
            migration = internal_failure(text, LineIndex(text), 0, error)
        if any(note[0] == "build-file-syntax" for note in migration.notes):
            migration = Migration(text, [n for n in migration.notes if n[0] == "build-file-syntax"])
        output = migration.text.encode("utf-8", "surrogateescape")
        results.append(MigratedBuildFile(
            f.rel, output, _findings(rules, f.rel, migration), output != f.data,
            build_file_kind(f.rel) == "cmake" and PLATFORM_MODULE in migration.text))
    return results
