"""Load and validate the rule data in ``rules/*.yaml``.

Two kinds of rule files exist, told apart by their top-level key:

* mapping files (``mappings:``) hold one API family each: CUDA name -> HIP name entries with a
  kind and a support status (schema ``hipport/schemas/mappings.schema.json``);
* the check catalogue (``checks:``) holds the findings hipport can report, each with a stable id
  such as ``HP1001`` (schema ``hipport/schemas/checks.schema.json``).

Files are read with PyYAML's *safe* loader only. Every file is validated against its JSON Schema
at load time; a bad entry raises :class:`RuleError` naming the file and the line of the entry.
The format is documented in ``docs/rules-format.md``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import string
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

from typing import TYPE_CHECKING

from . import __version__
from .alternation import trie_alternation
from .emit import atomic_write
from .resources import data_dir, schema_path

if TYPE_CHECKING:
    import yaml

# PyYAML and pathspec (about 20 ms to import) are imported where YAML is parsed and where path
# patterns are matched: rules read from the cache (load_rule_file) need neither.


def _safe_loader() -> type:
    """PyYAML's safe loader, libyaml's when PyYAML was built with it (much faster)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Length of the name prefixes that :attr:`RuleSet.candidate_pattern` scans for.
CANDIDATE_PREFIX_LENGTH = 4
KINDS = ("function", "type", "enum", "enumerator", "macro", "header", "namespace")
STATUSES = ("supported", "unsupported", "deprecated", "removed", "experimental")
VERSION_FIELDS = (
    "cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed",
    "hip_added", "hip_deprecated", "hip_changed", "hip_removed",
    "roc_added", "roc_deprecated", "roc_changed", "roc_removed",
)
#: Values of ``--target-libs``: HIP's portable libraries (hipBLAS...) or ROCm's own (rocBLAS...).
from .options import TARGET_LIBS  # noqa: E402  (one definition, light for the parser)


class RuleError(ValueError):
    """A rule file is malformed. ``path`` and ``line`` (1-based, or None) locate the problem."""

    def __init__(self, path: Path, line: int | None, message: str):
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Mapping:
    """One CUDA name and what hipport does with it.

    Attributes:
        cuda: the CUDA identifier or header name (``cudaMalloc``, ``cuda_runtime.h``).
        hip: the HIP replacement, or None when HIP has no equivalent.
        kind: one of :data:`KINDS`.
        status: one of :data:`STATUSES`.
        family: the API family id of the file it came from (``cuda_runtime``).
        section: the section of the API it belongs to (``Memory Management``), may be empty.
        note: a human note shown in reports, may be empty.
        versions: the published CUDA/HIP/ROC version fields (``{"cuda_removed": "12.0"}``).
        path, line: where the entry is defined (for error messages and ``hipport explain``).
        roc: the ROCm-library name used with ``--target-libs=roc`` (``rocblas_sgemm``), or None.
        roc_status: the status under ``--target-libs=roc`` when written in the data, else "".
        roc_library: the family's ROCm library (``rocBLAS``); "" when the family has no roc
            names, so ``--target-libs=roc`` keeps the HIP name.
        hip_lacks: the CUDA overloads HIP lacks, for a function HIP declares for fewer argument
            types than CUDA (field ``overloads``): each the parameter types as CUDA's headers
            spell them, comma-separated (``const float *``); empty for every other entry.
        overload_fix: what to write instead where an overload is missing ("" without one).
        report_unknown_type: report a call whose first argument's type hipport cannot read.
        absent_fix: for a header entry whose ``hip`` header the HIP 6.4 / ROCm 6.4 packages do
            not ship (field ``absent``), what to use instead (reported as HP2016); else "".
        representation: for a type whose CUDA and HIP definitions differ in kind (field
            ``representation``), (CUDA definition, HIP definition), each the C type followed by
            the header and line it comes from (``unsigned long long (cuda.h:258)``,
            ``void * (hip/driver_types.h:47)``); () for every other entry.
        compat_kept: ``hipport convert --compat`` leaves the name unmapped and reports its uses
            (HP1402): a compiler macro HIP's own headers test (field ``compat_kept``).
    """

    cuda: str
    hip: str | None
    kind: str
    status: str
    family: str
    section: str = ""
    note: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    path: str = ""
    line: int = 0
    roc: str | None = None
    roc_status: str = ""
    roc_library: str = ""
    hip_lacks: tuple[str, ...] = ()
    overload_fix: str = ""
    report_unknown_type: bool = False
    absent_fix: str = ""
    representation: tuple[str, ...] = ()
    compat_kept: bool = False

    def target(self, target_libs: str = "hip") -> tuple[str | None, str]:
        """(replacement name or None, status) for ``target_libs`` (one of :data:`TARGET_LIBS`).

        With ``roc`` in a family that has a ROCm library, the roc name and status apply: an
        entry without a roc name is ``unsupported`` there. Otherwise the HIP name and status.
        """
        if target_libs == "roc" and self.roc_library:
            return self.roc, self.roc_status or ("supported" if self.roc else "unsupported")
        return self.hip, self.status


@dataclass(frozen=True, slots=True)
class Family:
    """One mapping file's header: an API family (``cublas``) and where its facts come from.

    Attributes:
        id, title, source: the file's ``family``, ``title`` and ``source`` fields.
        roc_library: the ROCm library ``--target-libs=roc`` selects, or "".
        upstream: counts of the published HIPIFY table the file was generated from
            (``{"table": ..., "known": 1436, "mapped": 918}``), or an empty dict.
        path: the rule file.
        versions_of: the product whose releases the ``cuda_*`` version fields number: ``CUDA``,
            or ``cuDNN`` for the cuDNN table (file field ``versions_of``).
        cpp_namespace: the C++ namespace the family's names belong to (``cub``,
            ``cooperative_groups``), or "" for C APIs (file field ``cpp_namespace``).
    """

    id: str
    title: str
    source: str
    roc_library: str = ""
    upstream: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    versions_of: str = "CUDA"
    cpp_namespace: str = ""


@dataclass(frozen=True, slots=True)
class GroupMember:
    """A member function of a C++ class of a family (``members:`` of a mapping file) that HIP
    spells otherwise or lacks, as ``num_threads`` of the cooperative groups (see
    :mod:`hipport.group_members`).

    Attributes:
        cuda: the member's CUDA name (``num_threads``).
        of: the classes it is a member of (``thread_block``, ``grid_group``...).
        status: ``renamed`` (HIP has it as ``hip``, same meaning: rewritten), ``missing`` (HIP
            lacks it: an error finding) or ``differs`` (HIP's member of that name means
            something else: a warning finding).
        hip: the HIP member name for ``renamed``, else "".
        instead: what to write instead (``missing``, ``differs``), else "".
        note: the facts and the header lines they were checked against.
        family: the family id of the file; path, line: where the entry is defined.
        const_instead: for ``renamed``, what to write on an object declared const, where the
            HIP member is not a const member (reported as missing); "" when it is.
    """

    cuda: str
    of: tuple[str, ...]
    status: str
    hip: str = ""
    instead: str = ""
    note: str = ""
    family: str = ""
    path: str = ""
    line: int = 0
    const_instead: str = ""


@dataclass(frozen=True, slots=True)
class Check:
    """One entry of the check catalogue: a kind of finding with a stable id.

    ``message`` and ``fix`` are ``str.format`` templates; the fields each check may use are
    listed in :data:`CHECK_FIELDS` (verified at load time).
    """

    id: str
    name: str
    severity: str
    message: str
    fix: str
    explanation: str
    example: str
    instead: str
    path: str = ""
    line: int = 0

    def render(self, **fields: str) -> tuple[str, str]:
        """Return (message, fix) with ``fields`` filled in."""
        return self.message.format(**fields), self.fix.format(**fields)


@dataclass(frozen=True, slots=True)
class PtxEquivalent:
    """What to write in HIP for a PTX instruction (opcode prefix) or special register (``%laneid``).

    ``hip`` is None when there is no drop-in equivalent (the construct needs a human);
    ``note`` says more.
    """

    match: str
    hip: str | None = None
    note: str = ""
    path: str = ""
    line: int = 0

    def matches(self, opcode: str, operands: str) -> bool:
        """True when this entry applies to an instruction ``opcode`` with ``operands`` (text)."""
        if self.match.startswith("%"):
            return re.search(re.escape(self.match) + r"(?![A-Za-z0-9_])", operands) is not None
        return opcode == self.match or opcode.startswith(self.match + ".")


@dataclass(frozen=True, slots=True)
class CallRewrite:
    """A change to a CUDA call beyond renaming it (``rules/calls.yaml``).

    Either ``wrap`` (a template with ``{}``) replaces argument number ``argument`` (0-based),
    unless that argument's text starts with one of ``unless``; or, for a call with exactly
    ``arguments`` arguments, the function becomes ``hip`` instead of its usual mapping; or
    ``differs`` / ``narrower`` say how the HIP function's parameters differ from CUDA's (every
    call is reported, or with ``arguments`` only calls with that many arguments; a ``narrower``
    entry's ``positions`` name the narrower parameters, 0-based, and a call passing NULL,
    ``nullptr`` or 0 at all of them is not reported; a ``differs`` entry's ``positions`` name
    CUDA-only parameters HIP lacks, and a call passing NULL, ``nullptr`` or 0 at all of them has
    those arguments dropped instead of being reported; see :mod:`hipport.signatures`). A ``wrap``
    entry with ``unwrapped`` reports HP2010 (signature-differs) with that text for a call that
    has too few arguments written to wrap (a macro that expands to the argument list), once per
    call; under ``--target-libs roc`` a wrap entry of a family with a ROCm library is not applied.
    ``hip_template`` (a wrap entry's ``header.h:line``): HIP 6.4.3's C++ template overload that
    takes the argument as CUDA writes it, so ``convert --compat`` keeps such calls without a finding.
    """

    cuda: str
    argument: int | None = None
    wrap: str = ""
    unless: tuple[str, ...] = ()
    arguments: int | None = None
    hip: str | None = None
    note: str = ""
    path: str = ""
    line: int = 0
    differs: str = ""
    narrower: str = ""
    positions: tuple[int, ...] = ()
    unwrapped: str = ""
    hip_template: str = ""


@dataclass(frozen=True, slots=True)
class Construct:
    """A CUDA-only construct: ``name`` used as an identifier, a namespace or a header (``where``)
    raises the check called ``check``."""

    name: str
    check: str
    where: str = "identifier"
    path: str = ""
    line: int = 0


_MAPPING_FIELDS = frozenset({"name", "hip", "kind", "family", "note", "cuda_removed", "mapped", "since", "target",
                             "library"})
#: The checks hipport's analysis reports, with the template fields each one is given.
CHECK_FIELDS: dict[str, frozenset[str]] = {
    "parse-error": frozenset({"name", "count"}),
    "not-utf8": frozenset({"name", "bad_line"}),
    "unsupported-encoding": frozenset({"name", "encoding"}),
    "cmake-unlistable": frozenset({"name", "output"}),
    "output-edited": frozenset({"name", "output"}),
    "stale-output-kept": frozenset({"name", "output"}),
    "inline-ptx": frozenset({"name", "statement", "instructions", "equivalents"}),
    "inline-ptx-manual": frozenset({"name", "statement", "instructions", "equivalents"}),
    "launch-kept": frozenset({"name", "reason"}),
    "warp-mask-widened": frozenset({"name", "mask"}),
    "managed-memory": frozenset({"name"}),
    "dynamic-parallelism": frozenset({"name", "function"}),
    "nanosleep": frozenset({"name"}),
    "cub-warp-block-size": frozenset({"name", "via", "instead"}),
    "thrust-include-added": frozenset({"name", "header", "line"}),
    "libcudacxx": frozenset({"name"}),
    "wmma": frozenset({"name"}),
    "fp8": frozenset({"name"}),
    "surface-reference": frozenset({"name"}),
    "cooperative-multi-device": frozenset({"name"}),
    "warp-synchronous": frozenset({"name", "condition"}),
    "cuda-version-macro": frozenset({"name"}),
    "cuda-version-defined": frozenset({"name", "value", "release"}),
    "grid-constant": frozenset({"name", "macro", "where"}),
    "port-defined": frozenset({"name", "hip", "what"}),
    "port-defined-overload": frozenset({"name", "signatures", "what"}),
    "surface-layer-face": frozenset({"name", "layer_face", "where", "data", "ockl", "hip_form"}),
    "surface-boundary-mode": frozenset({"name", "mode", "reason", "advice"}),
    "surface-boundary-dropped": frozenset({"name", "mode", "action", "where", "effect"}),
    "image-api-gfx94x": frozenset({"name"}),
    "signature-differs": frozenset({"name", "hip", "what"}),
    "signature-narrower": frozenset({"name", "hip", "what"}),
    "missing-overload": frozenset({"name", "type", "lacks", "fix"}),
    "header-absent": frozenset({"name", "hip", "note", "fix"}),
    "elaborated-typedef": frozenset({"name", "keyword", "hip", "what", "form", "advice"}),
    "host-api-in-device-code": frozenset({"name", "hip", "function", "kind", "origin", "advice"}),
    "host-api-in-host-device-code": frozenset({"name", "hip", "function", "kind", "origin", "advice"}),
    "register-keyword": frozenset({"name", "where"}),
    "register-removed": frozenset({"name", "where"}),
    "half-bfloat16-conversion": frozenset({"name", "what", "advice"}),
    "half-bfloat16-converted": frozenset({"name", "what", "rewritten"}),
    "group-shuffle-type": frozenset({"name", "group", "type", "value", "advice"}),
    "group-shuffle-components": frozenset({"name", "group", "type", "value"}),
    "integer-handle": frozenset({"name", "operation", "cuda_definition", "hip", "hip_definition", "advice"}),
    "integer-handle-fixed": frozenset({"name", "operation", "rewritten", "cuda_definition", "hip", "hip_definition"}),
    "warp-32bit-mask": frozenset({"name", "what"}),
    "warp-size-literal": frozenset({"name", "expression"}),
    "warp-shuffle-loop": frozenset({"name", "loop"}),
    "warp-size-constant": frozenset({"name", "what"}),
    "warp-shared-array": frozenset({"name", "size"}),
    "warp-fixed": frozenset({"name", "expression", "replacement", "function"}),
    "warp-fix-skipped": frozenset({"name", "reason"}),
    "warp-logical-fixed": frozenset({"name", "reason"}),
    "warp-macro-function": frozenset({"name", "collectives"}),
    "warp-lane-mask": frozenset({"name", "expression", "what"}),
    "warpsize-constexpr": frozenset({"name", "context"}),
    "wavefront-size-macro": frozenset({"name"}),
    "macro-cuda-name": frozenset({"name", "macro", "status", "hip"}),
    "syncwarp": frozenset({"name"}),
    "syncwarp-fixed": frozenset({"name", "note"}),
    "warp-reduce": frozenset({"name"}),
    "unknown-cuda-name": frozenset({"name", "closest"}),
    "vector-operator-guarded": frozenset({"name", "vector", "where", "result"}),
    "vector-operator-ambiguous": frozenset({"name", "vector", "where", "result"}),
    "mapped-overload-collision": frozenset({"name", "params", "first", "types", "action"}),
    "cutil-api": frozenset({"name", "what"}),
    "group-member-missing": frozenset({"name", "group", "note", "instead"}),
    "group-member-differs": frozenset({"name", "group", "note", "instead"}),
    "unported-case-label": frozenset({"name", "family", "removed"}),
    "context-create-params": frozenset({"name", "params"}),
    "struct-member-spelling": frozenset({"name", "hip", "struct", "header"}),
    "initialised-vla": frozenset({"name", "size"}),
    "unsupported-api": _MAPPING_FIELDS,
    "removed-api": _MAPPING_FIELDS,
    "deprecated-api": _MAPPING_FIELDS,
    "experimental-api": _MAPPING_FIELDS,
    # build files (hipport.buildfiles)
    "cmake-cuda-kept": frozenset({"name", "construct", "note", "advice"}),
    "findcuda-command-kept": frozenset({"name", "construct", "note", "advice"}),
    "nvcc-flag-kept": frozenset({"name", "construct", "note", "advice"}),
    "nvcc-flag-removed": frozenset({"name", "construct", "note"}),
    "nvcc-flag-dropped": frozenset({"name", "construct", "note"}),
    "cuda-library-unavailable": frozenset({"name", "construct", "library", "note"}),
    "build-migrated": frozenset({"name", "construct", "replacement", "note"}),
    "cuda-arch-replaced": frozenset({"name", "construct", "archs"}),
    "makefile-kept": frozenset({"name", "construct", "note", "advice"}),
    "build-file-syntax": frozenset({"name", "problem"}),
}


def _check_templates(check: Check, path: Path) -> None:
    """Raise RuleError unless every template field of ``check`` is one it will be given."""
    allowed = CHECK_FIELDS[check.name]
    for label, template in (("message", check.message), ("fix", check.fix)):
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
        except ValueError as error:
            raise RuleError(path, check.line, f"check {check.id} {label}: bad template ({error})") from None
        for field_name in fields:
            if field_name not in allowed:
                raise RuleError(path, check.line, f"check {check.id} {label}: unknown field {{{field_name}}}; "
                                                  f"known: {', '.join(sorted(allowed))}")


@dataclass(frozen=True)
class Suppression:
    """One entry of a user rule file's ``suppressions:`` (``--rules FILE``; schema
    ``hipport/schemas/suppressions.schema.json``): findings of a check left out of every report.

    Attributes:
        check: the check's id (``HP2008``) or name (``unknown-cuda-name``), as written.
        check_id: the check's id (filled in by :func:`load_rules` from the catalogue).
        names: only findings about these CUDA names (``Finding.name``); empty: any name.
        paths: only findings in files matching one of these gitignore-style patterns, relative
            to the folder of the rule file (as a ``.gitignore``'s are); empty: every file.
        reason: why the project accepts these findings (free text, optional).
        path, line: where the entry is written.
    """

    check: str
    check_id: str = ""
    names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    reason: str = ""
    path: str = ""
    line: int = 0

    @cached_property
    def _spec(self):
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(self.paths)

    def covers(self, finding, file: Path) -> bool:
        """True when ``finding`` is of this check, about one of :attr:`names` (if any), in a file
        matching one of :attr:`paths` (if any).

        Args:
            finding: a :class:`hipport.findings.Finding`.
            file: the absolute, resolved path of the finding's file.
        """
        if finding.rule_id != self.check_id:
            return False
        if self.names and finding.name not in self.names:
            return False
        if not self.paths:
            return True
        try:
            inside = file.relative_to(Path(self.path).resolve().parent)
        except ValueError:
            return False  # a file outside the rule file's folder
        return self._spec.match_file(inside.as_posix())


@dataclass(frozen=True)
class RuleSet:
    """All loaded rules.

    Attributes:
        identifiers: CUDA identifier -> Mapping (every kind except ``header`` and ``namespace``).
        namespaces: CUDA namespace, possibly qualified (``cub``, ``thrust::cuda``) -> Mapping.
        calls: CUDA function name -> its :class:`CallRewrite` entries.
        headers: CUDA header name as written in ``#include`` -> Mapping.
        checks: check id (``HP1001``) -> Check.
        checks_by_name: check name (``inline-ptx``) -> Check.
        files: the rule files that were loaded.
        families: family id -> :class:`Family` (one per mapping file).
        target_libs: ``hip`` or ``roc`` (:data:`TARGET_LIBS`): which library names the
            edits use (``--target-libs``).
        repeats: entries for a name another family's file already defines to the same effect
            (kept out of the tables above; counted with their own family).
        members: member-function name -> its :class:`GroupMember` entries (``members:``).
        suppressions: the ``suppressions:`` of the user's rule files (``--rules``), in load order.
        user_files: the user's rule files that were loaded (``--rules``), after :attr:`files`.
    """

    identifiers: dict[str, Mapping]
    headers: dict[str, Mapping]
    checks: dict[str, Check]
    checks_by_name: dict[str, Check]
    files: tuple[Path, ...]
    ptx: tuple[PtxEquivalent, ...] = ()
    constructs: dict[tuple[str, str], Construct] = field(default_factory=dict)
    families: dict[str, Family] = field(default_factory=dict)
    target_libs: str = "hip"
    namespaces: dict[str, Mapping] = field(default_factory=dict)
    calls: dict[str, tuple[CallRewrite, ...]] = field(default_factory=dict)
    repeats: tuple[Mapping, ...] = ()
    members: dict[str, tuple[GroupMember, ...]] = field(default_factory=dict)
    suppressions: tuple[Suppression, ...] = ()
    user_files: tuple[Path, ...] = ()

    def suppressed(self, finding, file: Path) -> bool:
        """True when a user suppression (:attr:`suppressions`) covers ``finding`` (a
        :class:`hipport.findings.Finding`) in ``file`` (its absolute, resolved path)."""
        return any(s.covers(finding, file) for s in self.suppressions)

    def target(self, mapping: Mapping) -> tuple[str | None, str]:
        """(replacement or None, status) of ``mapping`` under this rule set's ``target_libs``."""
        return mapping.target(self.target_libs)

    def namespaced(self, mapping: Mapping) -> bool:
        """True when ``mapping``'s family is a C++ namespace's (``cpp_namespace``), so a scope
        written before the name (``cg::this_cluster``) is that namespace or an alias of it."""
        family = self.families.get(mapping.family)
        return bool(family and family.cpp_namespace)

    def ptx_equivalent(self, opcode: str, operands: str) -> PtxEquivalent | None:
        """The first PTX entry that applies to this instruction (special registers first)."""
        return next((entry for entry in self.ptx if entry.matches(opcode, operands)), None)

    @cached_property
    def compat_kept(self) -> frozenset[str]:
        """The names ``convert --compat`` leaves unmapped (HP1402): those with an entry, in any
        family's file (a repeat included: ``__CUDACC__`` is also in the driver API's table),
        marked ``compat_kept`` (rules/cuda_macros.yaml)."""
        return frozenset(m.cuda for m in (*self.identifiers.values(), *self.repeats) if m.compat_kept)

    def compat_as_written(self, name: str) -> bool:
        """True when every argument rewrite (``wrap``) of call ``name`` in rules/calls.yaml has a
        ``hip_template``: HIP's C++ template overload takes the arguments as CUDA writes them,
        so ``convert --compat`` needs no edit of such a call."""
        wraps = [c for c in self.calls.get(name, ()) if c.wrap]
        return bool(wraps) and all(c.hip_template for c in wraps)

    @cached_property
    def candidate_pattern(self) -> re.Pattern[bytes]:
        """A compiled regex matching every run of word characters that starts like an
        identifier rule.

        Built from the distinct first :data:`CANDIDATE_PREFIX_LENGTH` characters of the rule
        names (``cuda``, ``CUDA``, ``text``...), so one scan of a file finds every rule name in
        it without a per-file regex. It has no look-behind (which would stop the regex engine
        from skipping ahead to the prefixes' first characters, doubling the scan time), so a
        match may start inside a longer word: the caller checks the byte before it, and looks
        the match up in :attr:`identifier_edits`.
        """
        names = [*self.scanned_identifiers, *(name for where, name in self.constructs if where != "header"),
                 *(name.rsplit("::", 1)[-1] for name in self.namespaces)]
        prefixes = {name[:CANDIDATE_PREFIX_LENGTH].encode("ascii") for name in names}
        # a trie, not a flat alternation of the ~240 prefixes: the same matches, nine times faster
        return re.compile(trie_alternation(prefixes) + rb"[A-Za-z0-9_]*")

    @cached_property
    def missing_overloads(self) -> dict[str, Mapping]:
        """CUDA function name -> its entry, for the functions HIP declares for fewer argument
        types than CUDA (entries with ``hip_lacks``; see :mod:`hipport.overloads`)."""
        return {name: m for name, m in self.identifiers.items() if m.hip_lacks}

    @cached_property
    def scanned_identifiers(self) -> dict[str, Mapping]:
        """The identifier entries the analysis must look for: all but those HIP keeps unchanged
        and fully supports (``__shfl_down``, ``sqrtf``, ``atomicAdd``), which need neither an
        edit nor a finding; leaving them out keeps common words such as ``max`` out of the scan."""
        return {name: m for name, m in self.identifiers.items()
                if m.target(self.target_libs) != (name, "supported") or name in self.calls}

    @cached_property
    def identifier_edits(self) -> dict[bytes, tuple[Mapping | None, bytes | None, Construct | None]]:
        """CUDA name (bytes) -> (mapping or None, HIP name as bytes or None when nothing is
        renamed, construct or None): the analyzer's hot-loop table, so no name is decoded or
        encoded per occurrence."""
        table: dict[bytes, tuple] = {}
        for name, m in self.scanned_identifiers.items():
            replacement = m.target(self.target_libs)[0]
            table[name.encode("ascii")] = (
                m, replacement.encode("ascii") if replacement is not None and replacement != name else None, None)
        for (where, name), construct in self.constructs.items():
            if where != "header":
                mapping, hip, _ = table.get(name.encode("ascii"), (None, None, None))
                table[name.encode("ascii")] = (mapping, hip, construct)
        return table

    @cached_property
    def namespace_edits(self) -> dict[bytes, tuple[tuple[bytes, Mapping, bytes | None], ...]]:
        """Last component of a namespace entry (bytes) -> (the scope that must precede it, e.g.
        ``b"thrust"`` or ``b""``; the mapping; the replacement of that component or None)."""
        table: dict[bytes, list] = {}
        for name, mapping in self.namespaces.items():
            scope, _, last = name.rpartition("::")
            replacement = mapping.target(self.target_libs)[0]
            new_last = replacement.rpartition("::")[2].encode("ascii") if replacement else None
            table.setdefault(last.encode("ascii"), []).append(
                (scope.encode("ascii"), mapping, new_last if new_last != last.encode("ascii") else None))
        return {key: tuple(value) for key, value in table.items()}

    def check(self, name: str) -> Check:
        """Return the check called ``name``; KeyError names the missing check."""
        try:
            return self.checks_by_name[name]
        except KeyError:
            raise KeyError(f"check {name!r} is not defined in rules/checks.yaml") from None


@lru_cache(maxsize=None)
def _validator(name: str) -> Callable[[Any], Any]:
    """The schema ``name`` compiled to a Python function by fastjsonschema (about 15 times
    faster than an interpreting validator on the runtime table, which matters at start-up),
    imported here: rules read from the rule cache are not validated again."""
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema_path(name).read_text(encoding="utf-8")))


def _load_yaml_with_lines(path: Path, text: str) -> tuple[Any, yaml.Node | None]:
    """Parse ``text`` (the content of ``path``) with the safe loader, returning (data, node tree
    for line lookups)."""
    import yaml

    loader = _safe_loader()(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise RuleError(path, line, f"invalid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()
    _refuse_duplicate_keys(path, node)
    return data, node


def _refuse_duplicate_keys(path: Path, node: yaml.Node | None) -> None:
    """YAML lets a later key silently replace an earlier one; in rule data that is a mistake."""
    import yaml  # loaded already: the node comes from it

    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in current.value:
                if key_node.value in seen:
                    raise RuleError(path, key_node.start_mark.line + 1, f"key {key_node.value!r} appears twice")
                seen.add(key_node.value)
                stack.append(value_node)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _line_of(node: yaml.Node | None, path: Iterable[Any]) -> int | None:
    """Follow a path of keys and indexes through the YAML node tree; return the deepest line."""
    import yaml  # loaded already: the node comes from it

    line = node.start_mark.line + 1 if node is not None else None
    for key in path:
        if isinstance(node, yaml.SequenceNode) and str(key).isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
        elif isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == key:
                    node = value_node
                    break
            else:
                break
        else:
            break
        line = node.start_mark.line + 1
    return line


def _validate(path: Path, data: Any, node: yaml.Node | None, schema: str) -> None:
    import fastjsonschema

    try:
        _validator(schema)(data)
    except fastjsonschema.JsonSchemaValueException as error:
        keys = list(error.path[1:])  # error.path starts with the root name "data"
        where = "/".join(str(k) for k in keys) or "(top level)"
        message = error.message.removeprefix(error.name).strip()
        if isinstance(error.value, (str, int, float)):
            message = f"{error.value!r} {message}"
        raise RuleError(path, _line_of(node, keys), f"{where}: {message}") from None


def _parse_rule_file(path: Path, raw: bytes) -> RuleFileContent:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    data, node = _load_yaml_with_lines(path, text)
    if not isinstance(data, dict):
        raise RuleError(path, 1, "a rule file must be a mapping with 'mappings:', 'checks:', 'ptx:', 'constructs:' or 'calls:'")
    if "checks" in data:
        _validate(path, data, node, "checks")
        checks = [Check(**entry, path=str(path), line=_line_of(node, ["checks", i]) or 0)
                  for i, entry in enumerate(data["checks"])]
        return RuleFileContent(checks=checks)
    if "constructs" in data:
        _validate(path, data, node, "constructs")
        return RuleFileContent(constructs=[Construct(**entry, path=str(path), line=_line_of(node, ["constructs", i]) or 0)
                                           for i, entry in enumerate(data["constructs"])])
    if "calls" in data:
        _validate(path, data, node, "calls")
        return RuleFileContent(calls=[
            CallRewrite(**{**entry, "unless": tuple(entry.get("unless", ())), "positions": tuple(entry.get("positions", ()))},
                        path=str(path),
                        line=_line_of(node, ["calls", i]) or 0)
            for i, entry in enumerate(data["calls"])])
    if "ptx" in data:
        _validate(path, data, node, "ptx")
        return RuleFileContent(ptx=[PtxEquivalent(**entry, path=str(path), line=_line_of(node, ["ptx", i]) or 0)
                                    for i, entry in enumerate(data["ptx"])])
    return _parse_mappings(path, data, node)


def _parse_mappings(path: Path, data: dict, node: yaml.Node | None) -> RuleFileContent:
    """The content of a mapping file (``mappings:``, validated by the mappings schema)."""
    _validate(path, data, node, "mappings")
    family = data["family"]
    roc_library = data.get("roc_library", "")
    mappings = []
    for index, entry in enumerate(data["mappings"]):
        line = _line_of(node, ["mappings", index]) or 0
        if ("roc" in entry or "roc_status" in entry) and not roc_library:
            raise RuleError(path, line, f"{entry['cuda']}: a roc name needs the file's 'roc_library'")
        if entry.get("roc_status") == "unsupported" and "roc" in entry:
            raise RuleError(path, line, f"{entry['cuda']}: roc_status unsupported with a roc name")
        if "absent" in entry and (entry["kind"] != "header" or not entry.get("hip")):
            raise RuleError(path, line, f"{entry['cuda']}: 'absent' belongs to a header entry with a hip name")
        mappings.append(Mapping(
            cuda=entry["cuda"], hip=entry.get("hip"), kind=entry["kind"], status=entry["status"],
            family=family, section=entry.get("section", ""), note=entry.get("note", ""),
            versions={k: entry[k] for k in VERSION_FIELDS if k in entry},
            path=str(path), line=line, roc=entry.get("roc"), roc_status=entry.get("roc_status", ""),
            roc_library=roc_library, **_overload_fields(entry.get("overloads")),
            absent_fix=entry.get("absent", {}).get("fix", ""),
            representation=(entry["representation"]["cuda"], entry["representation"]["hip"])
            if "representation" in entry else (),
            compat_kept=entry.get("compat_kept", False),
        ))
    info = Family(family, data["title"], data["source"], roc_library, data.get("upstream", {}), str(path),
                  data.get("versions_of", "CUDA"), data.get("cpp_namespace", ""))
    members = []
    seen: dict[tuple[str, str], int] = {}
    for index, entry in enumerate(data.get("members", ())):
        line = _line_of(node, ["members", index]) or 0
        renamed = entry["status"] == "renamed"
        if renamed != ("hip" in entry) or renamed == ("instead" in entry) or (not renamed and "const_instead" in entry):
            raise RuleError(path, line, f"member {entry['cuda']}: status renamed needs 'hip' (and no 'instead'); "
                                        "missing and differs need 'instead' (and no 'hip' or 'const_instead')")
        for group in entry["of"]:
            if (entry["cuda"], group) in seen:
                raise RuleError(path, line, f"member {group}::{entry['cuda']} is already listed at line "
                                            f"{seen[entry['cuda'], group]}")
            seen[entry["cuda"], group] = line
        members.append(GroupMember(entry["cuda"], tuple(entry["of"]), entry["status"], entry.get("hip", ""),
                                   entry.get("instead", ""), entry["note"], family, str(path), line,
                                   entry.get("const_instead", "")))
    return RuleFileContent(mappings=mappings, family=info, members=members)


def _overload_fields(overloads: dict | None) -> dict[str, Any]:
    """The :class:`Mapping` fields of an entry's ``overloads`` (see the mappings schema)."""
    if not overloads:
        return {}
    return {"hip_lacks": tuple(overloads["hip_lacks"]), "overload_fix": overloads["fix"],
            "report_unknown_type": overloads.get("unknown_type") == "report"}


def _cache_dir() -> Path | None:
    """Where validated rule files are cached: ``$HIPPORT_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/hipport`` or ``~/.cache/hipport``; None when ``HIPPORT_NO_CACHE`` is set."""
    if os.environ.get("HIPPORT_NO_CACHE"):
        return None
    if os.environ.get("HIPPORT_CACHE_DIR"):
        return Path(os.environ["HIPPORT_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hipport"


@lru_cache(maxsize=1)
def _schema_bytes() -> bytes:
    """The bytes of the rule files' schemas, as :func:`_cache_key` hashes them (read once per
    process, not once per rule file)."""
    return b"".join(schema_path(name).read_bytes() for name in ("mappings", "checks", "ptx", "constructs", "calls"))


def _cache_key(raw: bytes) -> str:
    digest = hashlib.sha256(raw)
    digest.update(__version__.encode())
    digest.update(_schema_bytes())
    return digest.hexdigest()


def _from_cache(path: Path, cached: dict) -> RuleFileContent:
    where = str(path)
    family = cached["family"]
    # positional, in Mapping's field order (cuda ... versions, path, line, roc, roc_status, roc_library,
    # hip_lacks, overload_fix, report_unknown_type, absent_fix, representation, compat_kept): the
    # ~9,400 mappings are made in about half the time keyword arguments take
    return RuleFileContent(
        [Mapping(*fields[:8], where, fields[8], fields[9], fields[10], fields[11], tuple(fields[12]), fields[13],
                 fields[14], fields[15], tuple(fields[16]), fields[17])
         for fields in cached["mappings"]],
        [Check(*fields, path=where, line=line) for *fields, line in cached["checks"]],
        [PtxEquivalent(*fields, path=where, line=line) for *fields, line in cached["ptx"]],
        [Construct(*fields, path=where, line=line) for *fields, line in cached["constructs"]],
        Family(*family[:5], path=where, versions_of=family[5], cpp_namespace=family[6]) if family else None,
        [CallRewrite(c[0], c[1], c[2], tuple(c[3]), *c[4:7], path=where, line=c[7], differs=c[8], narrower=c[9],
                     positions=tuple(c[10]), unwrapped=c[11], hip_template=c[12])
         for c in cached["calls"]],
        [GroupMember(m[0], tuple(m[1]), *m[2:7], path=where, line=m[7], const_instead=m[8]) for m in cached["members"]],
    )


def _to_cache(content: RuleFileContent) -> dict:
    return {
        "mappings": [[m.cuda, m.hip, m.kind, m.status, m.family, m.section, m.note, m.versions, m.line,
                      m.roc, m.roc_status, m.roc_library, list(m.hip_lacks), m.overload_fix, m.report_unknown_type,
                      m.absent_fix, list(m.representation), m.compat_kept]
                     for m in content.mappings],
        "family": ([content.family.id, content.family.title, content.family.source, content.family.roc_library,
                    content.family.upstream, content.family.versions_of, content.family.cpp_namespace]
                   if content.family else None),
        "checks": [[c.id, c.name, c.severity, c.message, c.fix, c.explanation, c.example, c.instead, c.line]
                   for c in content.checks],
        "ptx": [[p.match, p.hip, p.note, p.line] for p in content.ptx],
        "constructs": [[c.name, c.check, c.where, c.line] for c in content.constructs],
        "calls": [[c.cuda, c.argument, c.wrap, list(c.unless), c.arguments, c.hip, c.note, c.line, c.differs, c.narrower,
                   list(c.positions), c.unwrapped, c.hip_template]
                  for c in content.calls],
        "members": [[m.cuda, list(m.of), m.status, m.hip, m.instead, m.note, m.family, m.line, m.const_instead]
                    for m in content.members],
    }


@dataclass
class RuleFileContent:
    """The entries of one rule file: one of the lists is filled."""

    mappings: list[Mapping] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    ptx: list[PtxEquivalent] = field(default_factory=list)
    constructs: list[Construct] = field(default_factory=list)
    family: Family | None = None
    calls: list[CallRewrite] = field(default_factory=list)
    members: list[GroupMember] = field(default_factory=list)


def load_rule_file(path: Path) -> RuleFileContent:
    """Load and validate one rule file.

    A file that validated before is read from the cache (:func:`_cache_dir`), keyed by the
    SHA-256 of its bytes, of the schemas and of hipport's version, so an edited file is always
    validated again. Parsing and validating the YAML costs about 0.15 s per 1,000 entries; the
    cache about a tenth of that. A cache that cannot be read or written is ignored.

    Args:
        path: a ``.yaml`` file holding ``mappings:``, ``checks:``, ``ptx:``, ``constructs:`` or ``calls:``.

    Returns:
        The file's entries.

    Raises:
        RuleError: unreadable YAML, a schema violation (with the entry's line), or a duplicate
            name or key inside the file.
        OSError: the file cannot be read.
    """
    raw = path.read_bytes()
    cache = _cache_dir()
    cache_file = cache / f"rules-{_cache_key(raw)}.json" if cache else None
    if cache_file is not None:
        try:
            return _from_cache(path, json.loads(cache_file.read_bytes()))
        except (OSError, ValueError, TypeError, KeyError):
            pass
    content = _parse_rule_file(path, raw)
    if cache_file is not None:
        try:
            atomic_write(cache_file, json.dumps(_to_cache(content)).encode())
        except OSError:
            pass
    return content


#: Top-level keys of a user rule file (``--rules FILE``): a mapping file's, and ``suppressions``.
USER_RULE_KEYS = ("family", "title", "source", "mappings", "members", "roc_library", "cpp_namespace", "suppressions")


@dataclass
class UserRuleFile:
    """What a user rule file (``--rules FILE``) holds: mapping-file content (or None) and
    suppressions (their ``check_id`` not yet resolved)."""

    path: Path
    content: RuleFileContent | None
    suppressions: list[Suppression] = field(default_factory=list)


def load_user_rule_file(path: Path) -> UserRuleFile:
    """Load and validate a user's rule file (``--rules FILE``, ``rules = [...]`` in
    ``[tool.hipport]``).

    The file is YAML (read with the safe loader) holding a mapping file's keys (``family``,
    ``title``, ``source``, ``mappings``, validated by the same schema as the shipped
    ``rules/*.yaml``, :file:`hipport/schemas/mappings.schema.json`), ``suppressions:``
    (:file:`hipport/schemas/suppressions.schema.json`), or both. See docs/rules-format.md.

    Raises:
        RuleError: not UTF-8, invalid YAML, a key twice, a key no user rule file has, or a
            schema violation; the message starts ``FILE:LINE:``.
        OSError: the file cannot be read.
    """
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    data, node = _load_yaml_with_lines(path, text)
    if not isinstance(data, dict) or not data:
        raise RuleError(path, 1, "a user rule file is a mapping holding 'mappings:' (with 'family:', 'title:' and "
                                 "'source:') and/or 'suppressions:'")
    for key in data:
        if key not in USER_RULE_KEYS:
            raise RuleError(path, _key_line(node, key),
                            f"{key!r}: a user rule file holds mappings and suppressions only "
                            f"(known keys: {', '.join(USER_RULE_KEYS)})")
    suppressions = []
    if "suppressions" in data:
        _validate(path, {"suppressions": data["suppressions"]}, node, "suppressions")
        for index, entry in enumerate(data["suppressions"]):
            line = _line_of(node, ["suppressions", index]) or 0
            for pattern in entry.get("paths", ()):
                import pathspec

                try:
                    pathspec.GitIgnoreSpec.from_lines([pattern])
                except (ValueError, re.error) as error:  # pathspec's pattern error; a bad [range] is re's
                    raise RuleError(path, line, f"suppressions/{index}/paths: {pattern!r} is not a gitignore-style "
                                                f"pattern ({error})") from None
            suppressions.append(Suppression(entry["check"], names=tuple(entry.get("names", ())),
                                            paths=tuple(entry.get("paths", ())), reason=entry.get("reason", ""),
                                            path=str(path), line=line))
    rest = {key: value for key, value in data.items() if key != "suppressions"}
    content = _parse_mappings(path, rest, node) if rest else None
    return UserRuleFile(path, content, suppressions)


def _key_line(node: yaml.Node | None, key: str) -> int | None:
    """The line of the top-level key ``key`` (not of its value)."""
    import yaml  # loaded already: the node comes from it

    if isinstance(node, yaml.MappingNode):
        for key_node, _value in node.value:
            if key_node.value == key:
                return key_node.start_mark.line + 1
    return None


def load_rules(paths: Iterable[Path] | None = None, target_libs: str = "hip",
               user_paths: Iterable[Path] = ()) -> RuleSet:
    """Load every rule file and index the entries.

    Args:
        paths: rule files to load; default: every ``*.yaml`` in the shipped ``rules/`` folder,
            in sorted order.
        target_libs: ``hip`` (hipBLAS, hipSPARSE... : portable across AMD and NVIDIA) or
            ``roc`` (rocBLAS, rocSPARSE, MIOpen... : AMD only); see :meth:`Mapping.target`.

    Raises:
        RuleError: any file is invalid, or a CUDA name / check id is defined twice (the message
            names both places). A CUDA name that two families' tables both list (HIPIFY's runtime
            and driver tables share the ``CUstream_st``-style structs) is accepted when both
            entries have the same effect (:func:`_same_effect`); the first file, in load order,
            keeps it.
        user_paths: the user's rule files (``--rules``, :func:`load_user_rule_file`), loaded
            after ``paths``: a user mapping replaces the shipped entry of the same CUDA name (the
            user wins) or adds a name; two user files may not define one name. Their
            suppressions must name checks of the catalogue.

    Raises (also): RuleError for a user file as for :func:`load_user_rule_file`, a user family
        id that is already defined, a name two user files define, or a suppression naming a
        check that does not exist.
    """
    files = tuple(sorted(data_dir("rules").glob("*.yaml"))) if paths is None else tuple(paths)
    identifiers: dict[str, Mapping] = {}
    headers: dict[str, Mapping] = {}
    checks: dict[str, Check] = {}
    checks_by_name: dict[str, Check] = {}
    ptx: list[PtxEquivalent] = []
    constructs: dict[tuple[str, str], Construct] = {}
    families: dict[str, Family] = {}
    namespaces: dict[str, Mapping] = {}
    calls: dict[str, list[CallRewrite]] = {}
    repeats: list[Mapping] = []
    members: dict[str, list[GroupMember]] = {}
    if target_libs not in TARGET_LIBS:
        raise ValueError(f"target_libs must be one of {', '.join(TARGET_LIBS)}, not {target_libs!r}")
    for path in files:
        content = load_rule_file(path)
        if content.family is not None:
            if content.family.id in families:
                raise RuleError(path, None, f"family {content.family.id!r} is already defined in {families[content.family.id].path}")
            families[content.family.id] = content.family
        mappings, file_checks = content.mappings, content.checks
        ptx.extend(content.ptx)
        for construct in content.constructs:
            key = (construct.where, construct.name)
            if key in constructs:
                first = constructs[key]
                raise RuleError(path, construct.line, f"{construct.name!r} is already listed at {first.path}:{first.line}")
            constructs[key] = construct
        for call in content.calls:
            calls.setdefault(call.cuda, []).append(call)
        for member in content.members:
            members.setdefault(member.cuda, []).append(member)
        for mapping in mappings:
            table = headers if mapping.kind == "header" else namespaces if mapping.kind == "namespace" else identifiers
            previous = table.get(mapping.cuda)
            if previous is not None:
                if previous.path != mapping.path and _same_effect(previous, mapping):
                    repeats.append(mapping)  # the same name in another family's table, to the same effect
                    continue
                raise RuleError(
                    path, mapping.line,
                    f"{mapping.cuda!r} is already defined at {previous.path}:{previous.line}"
                    + ("" if previous.path == mapping.path else " with another hip/roc name, kind or status"),
                )
            table[mapping.cuda] = mapping
        for check in file_checks:
            for key, index in ((check.id, checks), (check.name, checks_by_name)):
                if key in index:
                    first = index[key]
                    raise RuleError(path, check.line, f"check {key!r} is already defined at {first.path}:{first.line}")
                index[key] = check
            if check.name in CHECK_FIELDS:
                _check_templates(check, path)
    user_files = tuple(user_paths)
    suppressions: list[Suppression] = []
    user_defined: dict[tuple[int, str], Mapping] = {}
    for path in user_files:
        user = load_user_rule_file(path)
        for entry in user.suppressions:
            check = checks.get(entry.check) or checks_by_name.get(entry.check)
            if check is None:
                close = difflib.get_close_matches(entry.check, [*checks, *checks_by_name], n=1)
                raise RuleError(path, entry.line, f"suppressions: {entry.check!r} is not a hipport check"
                                + (f" (did you mean {close[0]!r}?)" if close else ""))
            suppressions.append(replace(entry, check_id=check.id))
        if user.content is None:
            continue
        family = user.content.family
        if family.id in families:
            raise RuleError(path, 1, f"family {family.id!r} is already defined in {families[family.id].path}; "
                                     "give your file a family id of its own")
        families[family.id] = family
        for member in user.content.members:
            members.setdefault(member.cuda, []).append(member)
        for mapping in user.content.mappings:
            table = headers if mapping.kind == "header" else namespaces if mapping.kind == "namespace" else identifiers
            key = (id(table), mapping.cuda)
            if key in user_defined:
                first = user_defined[key]
                raise RuleError(path, mapping.line, f"{mapping.cuda!r} is already defined at {first.path}:{first.line}")
            user_defined[key] = table[mapping.cuda] = mapping  # the user's entry wins over the shipped one
    missing = sorted(set(CHECK_FIELDS) - set(checks_by_name))
    if (paths is None or checks) and missing:
        raise RuleError(data_dir("rules") / "checks.yaml", None, f"checks missing from the catalogue: {', '.join(missing)}")
    if checks:
        for construct in constructs.values():
            if construct.check not in checks_by_name:
                raise RuleError(Path(construct.path), construct.line,
                                f"{construct.name!r} names the check {construct.check!r}, which rules/checks.yaml lacks")
    return RuleSet(identifiers, headers, checks, checks_by_name, files, tuple(ptx), constructs, families, target_libs,
                   namespaces, {name: tuple(entries) for name, entries in calls.items()}, tuple(repeats),
                   {name: tuple(entries) for name, entries in members.items()}, tuple(suppressions), user_files)


def _same_effect(first: Mapping, second: Mapping) -> bool:
    """True when two entries for one CUDA name do the same thing under every ``--target-libs``
    (kind, and replacement and status for hip and for roc); versions, section and note may
    differ."""
    return first.kind == second.kind and all(first.target(t) == second.target(t) for t in TARGET_LIBS)


@lru_cache(maxsize=2)
def default_rules(target_libs: str = "hip") -> RuleSet:
    """The shipped rules, loaded once per process and target (see :func:`load_rules`)."""
    return load_rules(target_libs=target_libs)


def rules_for(target_libs: str = "hip", user_paths: Iterable[Path] = ()) -> RuleSet:
    """The shipped rules plus the user's rule files (``--rules``); :func:`default_rules` when
    there are none. Raises as :func:`load_rules`."""
    user_paths = tuple(user_paths)
    return load_rules(target_libs=target_libs, user_paths=user_paths) if user_paths else default_rules(target_libs)
