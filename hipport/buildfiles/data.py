"""Load and validate the build-file migration rules in ``rules/build/``.

Three files, each validated against its JSON Schema (``hipport/schemas/``) and then checked for
what a schema cannot say (a name defined twice, a rule that lacks the field its action needs);
every problem raises :class:`hipport.rules.RuleError` with the file and the entry's line:

* ``libraries.yaml`` (schema ``libraries``): one entry per CUDA library, how CUDA builds name it
  and the HIP/ROCm library that replaces it for ``--target-libs=hip`` and ``roc``;
* ``nvcc_flags.yaml`` (schema ``nvcc_flags``): nvcc options and their clang counterparts;
* ``cmake.yaml`` (schema ``cmake_rules``): CUDA commands, variables, properties and language
  words of CMake files.

These files live in a subfolder so that :func:`hipport.rules.load_rules` (``rules/*.yaml``)
does not read them. The format is documented in ``docs/build-migration.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..resources import data_dir
from ..rules import TARGET_LIBS, RuleError, _line_of, _load_yaml_with_lines, _validate

#: The rule files of ``rules/build/`` and the schema (``hipport/schemas/<name>.schema.json``) of each.
BUILD_RULE_FILES = {"libraries.yaml": "libraries", "nvcc_flags.yaml": "nvcc_flags", "cmake.yaml": "cmake_rules"}


@dataclass(frozen=True, slots=True)
class LibraryTarget:
    """A HIP or ROCm library as a ported build links it.

    Attributes:
        library: display name (``hipBLAS``).
        package: ``find_package()`` name (``hipblas``), or "" when it ships no CMake package.
        target: the imported target its package defines (``roc::hipblas``), or "".
        lib: the name for ``-l`` (``hipblas``), or "" for a header-only library.
        headers: its main headers (``hipblas/hipblas.h``).
        debian: the Debian package and version the names were checked against.
    """

    library: str
    package: str = ""
    target: str = ""
    lib: str = ""
    headers: tuple[str, ...] = ()
    debian: str = ""

    @property
    def cmake_name(self) -> str:
        """What a CMake file links: the imported target, else the ``-l`` name."""
        return self.target or self.lib


@dataclass(frozen=True, slots=True)
class Library:
    """A CUDA library and its replacements (one entry of ``libraries.yaml``).

    Attributes:
        id: the entry's id (``cublas``).
        name: display name (``cuBLAS``).
        cuda_targets: FindCUDAToolkit imported targets (``CUDA::cublas``).
        cuda_variables: FindCUDA result variables (``CUDA_CUBLAS_LIBRARIES``).
        cuda_libs: names for ``-l`` (``cublas``).
        cuda_headers: its headers (``cublas_v2.h``).
        hip, roc: the replacement for ``--target-libs=hip`` / ``roc``; None when there is none
            (a missing ``roc`` means ``hip`` serves both).
        note: a sentence shown in findings.
        path, line: where the entry is defined.
    """

    id: str
    name: str
    cuda_targets: tuple[str, ...] = ()
    cuda_variables: tuple[str, ...] = ()
    cuda_libs: tuple[str, ...] = ()
    cuda_headers: tuple[str, ...] = ()
    hip: LibraryTarget | None = None
    roc: LibraryTarget | None = None
    note: str = ""
    path: str = ""
    line: int = 0

    def replacement(self, target_libs: str = "hip") -> LibraryTarget | None:
        """The library a port built with ``--target-libs=target_libs`` links, or None."""
        if target_libs == "roc" and self.roc is not None:
            return self.roc
        return self.hip


@dataclass(frozen=True, slots=True)
class FlagRule:
    """One nvcc option (``nvcc_flags.yaml``): its spellings and what clang gets instead.

    Attributes:
        spellings: ``--use_fast_math``, ``-use_fast_math``.
        takes_value: the option takes a value (``-arch=sm_80`` or ``-arch sm_80``).
        action: ``map``, ``remove``, ``drop``, ``arch`` or ``host`` (see the file's header).
        hip: the clang options for ``map``; ``{value}`` stands for the option's value.
        values: value -> clang options, for options whose meaning depends on the value.
        ambiguous: host compilers know the spelling too: only mapped in certain nvcc contexts.
        note: shown in findings.
    """

    spellings: tuple[str, ...]
    takes_value: bool = False
    action: str = "map"
    hip: tuple[str, ...] = ()
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ambiguous: bool = False
    note: str = ""
    path: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class NameRule:
    """A CMake command, variable, property or language word (``cmake.yaml``).

    Attributes:
        name: as matched (commands in lower case); with ``prefix``, every name starting with it.
        action: what the migration does (see ``docs/build-migration.md``).
        replacement: the new name; ``<LANG>`` is the GPU language (see the file's header).
        note, fix: shown in findings.
        extra: the action's other fields (``packages``, ``keywords``, ``library``, ``config``,
            ``compiler_ids``).
    """

    name: str
    action: str
    replacement: str = ""
    prefix: bool = False
    note: str = ""
    fix: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    line: int = 0


@dataclass(frozen=True)
class BuildRules:
    """Everything in ``rules/build/``, indexed for the migrations.

    Attributes:
        libraries: every library entry, in file order.
        flags: nvcc spelling -> :class:`FlagRule`.
        keep_flags, keep_prefixes: options clang takes as they are (exact / joined value).
        commands: lower-case command name -> rule.
        variables, properties: exact name -> rule; ``*_prefixes``: prefix rules, longest first.
        languages: ``LANGUAGE`` / ``COMPILE_LANGUAGE``... -> rule.
        make_compiler: what replaces nvcc in Makefiles (``hipcc``).
        make_flag_variables: Makefile variables holding nvcc options by convention (``NVCCFLAGS``).
        make_cuda_path_variables: Makefile variables naming the CUDA installation (``CUDA_PATH``).
        files: the files loaded.
    """

    libraries: tuple[Library, ...]
    flags: dict[str, FlagRule]
    keep_flags: frozenset[str]
    keep_prefixes: tuple[str, ...]
    commands: dict[str, NameRule]
    variables: dict[str, NameRule]
    variable_prefixes: tuple[NameRule, ...]
    properties: dict[str, NameRule]
    property_prefixes: tuple[NameRule, ...]
    languages: dict[str, NameRule]
    make_compiler: str = "hipcc"
    make_flag_variables: frozenset[str] = frozenset()
    make_cuda_path_variables: frozenset[str] = frozenset()
    files: tuple[Path, ...] = ()
    _by_target: dict[str, Library] = field(default_factory=dict, repr=False)
    _by_variable: dict[str, Library] = field(default_factory=dict, repr=False)
    _by_lib: dict[str, Library] = field(default_factory=dict, repr=False)
    _by_id: dict[str, Library] = field(default_factory=dict, repr=False)

    def library_for_target(self, name: str) -> Library | None:
        """The library whose CUDA imported target is ``name`` (``CUDA::cublas``)."""
        return self._by_target.get(name)

    def library_for_variable(self, name: str) -> Library | None:
        """The library a FindCUDA result variable (``CUDA_CUBLAS_LIBRARIES``) names."""
        return self._by_variable.get(name)

    def library_for_lib(self, name: str) -> Library | None:
        """The library linked as ``-l<name>`` (``cublas``)."""
        return self._by_lib.get(name)

    def library(self, library_id: str) -> Library:
        """The library entry ``library_id`` (``cublas``); KeyError when there is none."""
        return self._by_id[library_id]

    def target_order(self, target: str) -> int:
        """The position of the library whose replacement is ``target`` in ``libraries.yaml``
        (for a stable, readable order of library lists; unknown targets last)."""
        for index, library in enumerate(self.libraries):
            if any(r is not None and r.target == target for r in (library.hip, library.roc)):
                return index
        return len(self.libraries)

    def variable(self, name: str) -> NameRule | None:
        """The rule for the CMake variable ``name``: an exact entry, else the longest prefix."""
        return self.variables.get(name) or next((r for r in self.variable_prefixes if name.startswith(r.name)), None)

    def property(self, name: str) -> NameRule | None:
        """The rule for the property ``name``: an exact entry, else the longest prefix."""
        return self.properties.get(name) or next((r for r in self.property_prefixes if name.startswith(r.name)), None)


def _load(path: Path, schema: str) -> tuple[Any, Any]:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    data, node = _load_yaml_with_lines(path, text)
    _validate(path, data, node, schema)
    return data, node


def load_rule_data(path: Path, schema: str) -> Any:
    """The content of the build-rule file ``path``, read with the safe loader and validated
    against the JSON Schema ``schema`` (``libraries``, ``nvcc_flags``, ``cmake_rules``).

    Raises:
        RuleError: invalid YAML or a schema violation, with the file and line.
        OSError: the file cannot be read.
    """
    return _load(path, schema)[0]


def _target(entry: dict | None) -> LibraryTarget | None:
    if entry is None:
        return None
    return LibraryTarget(entry["library"], entry.get("package", ""), entry.get("target", ""), entry.get("lib", ""),
                         tuple(entry.get("headers", ())), entry.get("debian", ""))


def _libraries(path: Path) -> tuple[list[Library], dict[str, dict[str, Library]]]:
    data, node = _load(path, "libraries")
    libraries, indexes = [], {"target": {}, "variable": {}, "lib": {}, "id": {}}
    for i, entry in enumerate(data["libraries"]):
        line = _line_of(node, ["libraries", i]) or 0
        library = Library(
            entry["id"], entry["name"], tuple(entry.get("cuda_targets", ())), tuple(entry.get("cuda_variables", ())),
            tuple(entry.get("cuda_libs", ())), tuple(entry.get("cuda_headers", ())), _target(entry.get("hip")),
            _target(entry.get("roc")), entry.get("note", ""), str(path), line)
        for kind, names in (("id", [library.id]), ("target", library.cuda_targets),
                            ("variable", library.cuda_variables), ("lib", library.cuda_libs)):
            for name in names:
                if name in indexes[kind]:
                    first = indexes[kind][name]
                    raise RuleError(path, line, f"{name!r} is already listed at {first.path}:{first.line}")
                indexes[kind][name] = library
        libraries.append(library)
    return libraries, indexes


def _flags(path: Path) -> tuple[dict[str, FlagRule], frozenset[str], tuple[str, ...], dict]:
    data, node = _load(path, "nvcc_flags")
    flags: dict[str, FlagRule] = {}
    for i, entry in enumerate(data["flags"]):
        line = _line_of(node, ["flags", i]) or 0
        action = entry.get("action", "map")
        takes_value = entry.get("value", "none") == "required"
        rule = FlagRule(tuple(entry["nvcc"]), takes_value, action, tuple(entry.get("hip", ())),
                        {k: tuple(v) for k, v in entry.get("values", {}).items()}, entry.get("ambiguous", False),
                        entry.get("note", ""), str(path), line)
        if action == "map" and not (rule.hip or rule.values):
            raise RuleError(path, line, f"{rule.spellings[0]}: action map needs 'hip' or 'values'")
        if (rule.values or any("{value}" in h for h in rule.hip)) and not takes_value:
            raise RuleError(path, line, f"{rule.spellings[0]}: 'values' and '{{value}}' need 'value: required'")
        if action in ("arch", "host") and not takes_value:
            raise RuleError(path, line, f"{rule.spellings[0]}: action {action} needs 'value: required'")
        for spelling in rule.spellings:
            if spelling in flags:
                first = flags[spelling]
                raise RuleError(path, line, f"{spelling!r} is already listed at {first.path}:{first.line}")
            flags[spelling] = rule
    return flags, frozenset(data["keep"]), tuple(sorted(data["keep_prefixes"], key=len, reverse=True)), data["makefile"]


#: Fields each command action needs besides ``name`` and ``action``.
_COMMAND_NEEDS = {"find-package": ("packages",), "findcuda-target": ("replacement", "keywords"),
                  "rename": ("replacement",), "link-library": ("library",), "report": ("note", "fix"),
                  "report-language": ("note", "fix")}
#: Fields each variable/property action needs.
_NAMED_NEEDS = {"rename": ("replacement",), "flags": ("replacement",), "flags-list": ("replacement",),
                "architectures": ("replacement",), "report": ("note", "fix")}
_NAME_FIELDS = {"name", "action", "replacement", "prefix", "note", "fix"}


def _named(path: Path, node: Any, section: str, entries: list[dict], needs: dict) -> list[NameRule]:
    rules, seen = [], {}
    for i, entry in enumerate(entries):
        line = _line_of(node, [section, i]) or 0
        missing = [f for f in needs.get(entry["action"], ()) if f not in entry]
        if missing:
            raise RuleError(path, line, f"{section}/{i} ({entry['name']}): action {entry['action']} needs "
                                        f"{', '.join(missing)}")
        key = (entry["name"], entry.get("prefix", False))
        if key in seen:
            raise RuleError(path, line, f"{entry['name']!r} is already listed at {path}:{seen[key]}")
        seen[key] = line
        rules.append(NameRule(entry["name"], entry["action"], entry.get("replacement", ""), entry.get("prefix", False),
                              entry.get("note", ""), entry.get("fix", ""),
                              {k: v for k, v in entry.items() if k not in _NAME_FIELDS}, str(path), line))
    return rules


def load_build_rules(folder: Path | None = None) -> BuildRules:
    """Load and validate ``libraries.yaml``, ``nvcc_flags.yaml`` and ``cmake.yaml``.

    Args:
        folder: the folder holding the three files; default: the shipped ``rules/build``.

    Raises:
        RuleError: a file is missing, not YAML, breaks its schema, defines a name twice, or a
            rule lacks what its action needs (a command linking a library that
            ``libraries.yaml`` lacks too); the message names the file and line.
    """
    folder = folder or data_dir("rules") / "build"
    for name in BUILD_RULE_FILES:
        if not (folder / name).is_file():
            raise RuleError(folder / name, None, "build rule file missing")
    libraries, indexes = _libraries(folder / "libraries.yaml")
    flags, keep, keep_prefixes, makefile = _flags(folder / "nvcc_flags.yaml")
    cmake_path = folder / "cmake.yaml"
    data, node = _load(cmake_path, "cmake_rules")
    commands = _named(cmake_path, node, "commands", data["commands"], _COMMAND_NEEDS)
    for rule in commands:
        if rule.action == "link-library" and rule.extra["library"] not in indexes["id"]:
            raise RuleError(cmake_path, rule.line, f"{rule.name}: library {rule.extra['library']!r} is not in libraries.yaml")
    variables = _named(cmake_path, node, "variables", data["variables"], _NAMED_NEEDS)
    properties = _named(cmake_path, node, "properties", data["properties"], _NAMED_NEEDS)
    languages = _named(cmake_path, node, "languages", data["languages"], {})

    def prefixes(rules: list[NameRule]) -> tuple[NameRule, ...]:
        return tuple(sorted((r for r in rules if r.prefix), key=lambda r: -len(r.name)))

    return BuildRules(
        tuple(libraries), flags, keep, keep_prefixes, {r.name: r for r in commands},
        {r.name: r for r in variables if not r.prefix}, prefixes(variables),
        {r.name: r for r in properties if not r.prefix}, prefixes(properties), {r.name: r for r in languages},
        makefile["compiler"], frozenset(makefile["flag_variables"]), frozenset(makefile["cuda_path_variables"]),
        tuple(folder / name for name in BUILD_RULE_FILES), indexes["target"], indexes["variable"], indexes["lib"],
        indexes["id"])


@lru_cache(maxsize=1)
def default_build_rules() -> BuildRules:
    """The shipped build rules, loaded once per process (see :func:`load_build_rules`) and kept
    between processes in the rule-table cache (:mod:`hipport.rulecache`), keyed by the bytes of
    the three rule files and their schemas.

    Raises:
        RuleError, OSError: as :func:`load_build_rules` (an invalid file is never cached).
    """
    from ..resources import schema_path
    from ..rulecache import cached_table

    folder = data_dir("rules") / "build"
    sources = [*(folder / name for name in BUILD_RULE_FILES),
               *(schema_path(schema) for schema in BUILD_RULE_FILES.values())]
    return cached_table("build-rules", sources, load_build_rules, BuildRules)


__all__ = ["BUILD_RULE_FILES", "BuildRules", "FlagRule", "Library", "LibraryTarget", "NameRule", "TARGET_LIBS",
           "default_build_rules", "load_build_rules"]
