#!/usr/bin/env python3
"""Import one of HIPIFY's published CUDA->HIP mapping tables into a hipport rules file.

HIPIFY (ROCm/HIPIFY) publishes, under ``docs/tables/``, one Markdown file per API
family.  Each file is a sequence of numbered sections (``## **1. Device Management**``),
each holding a table with the columns::

    CUDA | A | D | C | R | HIP | A | D | C | R | E

i.e. the CUDA name, the CUDA versions in which it was Added, Deprecated, Changed and
Removed, then the HIP name (empty when HIP has none) with the HIP versions Added,
Deprecated, Changed, Removed, and E when the HIP name is still experimental.  Some
files carry a second target block (``ROC``/``MIOPEN``) after the HIP columns; only the
first target block is read (HIP, or ROC/MIOPEN in the ``_by_ROC``/``_by_MIOPEN`` files).

This module turns such a table into the ``mappings:`` list of a ``rules/*.yaml`` file:
one YAML flow mapping per line, with the keys (in this order)::

    cuda, hip, kind, status, section, note,
    cuda_added, cuda_deprecated, cuda_changed, cuda_removed,
    hip_added, hip_deprecated, hip_changed, hip_removed

``status`` is derived from the version columns (see :func:`derive_status`).  ``kind`` is
``function`` in the API sections; in the data-type sections it is decided by looking the
CUDA name up in the real CUDA headers (see :class:`HeaderIndex`), and, for names those
headers no longer declare, by a documented heuristic (see :func:`heuristic_kind`) or,
where that heuristic is known to be wrong, by :data:`KIND_OVERRIDES`.  A typedef of an
enum (``typedef enum cudaError cudaError_t``) counts as ``enum``, like the enum itself.
Facts of HIPIFY's table found wrong against HIP's own headers are corrected through
:data:`HIP_FIXES` (each correction carries a ``note``).

The importer is family-agnostic: :func:`import_table` takes (table path, family id,
title) and returns the entries; :data:`FAMILIES` records, per family id, its table file,
title and the CUDA headers that declare its types, so the driver, device-function,
cuBLAS, ... tables can be imported the same way later.

Output is deterministic: entries keep the table's order (section by section, row by
row), key order is fixed, and scalars are quoted by a fixed rule, so the same inputs
give a byte-identical file.  A hand-curated tail of the output file (everything from
the first comment line inside ``mappings:``) and hand-written ``note`` fields on
generated entries are carried over when the file is regenerated (``--fresh`` drops them).

Usage (see tools/README.md)::

    python tools/import_hipify_tables.py \\
        /path/to/hipify-tables/CUDA_Runtime_API_functions_supported_by_HIP.md \\
        --family cuda_runtime --cuda-include /usr/local/cuda/include \\
        --output rules/cuda_runtime.yaml
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Iterable, Iterator

import yaml

# --------------------------------------------------------------------------- constants

KINDS = ("function", "type", "enum", "enumerator", "macro", "header")
STATUSES = ("supported", "unsupported", "deprecated", "removed", "experimental")

#: Order of keys in every emitted flow mapping.
KEY_ORDER = (
    "cuda", "hip", "kind", "status", "section", "note",
    "cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed",
    "hip_added", "hip_deprecated", "hip_changed", "hip_removed",
)

#: Commit of ROCm/HIPIFY the tables in shared/hipify-tables were copied from.
HIPIFY_COMMIT = "014177bc"


@dataclasses.dataclass(frozen=True)
class Family:
    """What the importer needs to know about one API family (one rules file)."""

    family_id: str
    title: str
    table: str  # file name under HIPIFY's docs/tables/
    headers: tuple[str, ...] = ()  # CUDA headers (relative to the include dir) to classify types
    output: str = ""  # default output path, relative to the repository root
    hip_title: str = "HIP equivalents"  # right-hand side of the file's first comment line


#: Families this importer knows.  Only ``cuda_runtime`` is generated today; the others
#: document how the same importer is meant to be pointed at the remaining tables.
FAMILIES: dict[str, Family] = {
    "cuda_runtime": Family(
        "cuda_runtime",
        "CUDA runtime API",
        "CUDA_Runtime_API_functions_supported_by_HIP.md",
        headers=(
            "driver_types.h", "cuda_runtime_api.h", "cuda_runtime.h", "vector_types.h",
            "surface_types.h", "texture_types.h", "library_types.h", "channel_descriptor.h",
            "cuda_device_runtime_api.h", "device_types.h", "math_constants.h",
            "cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h",
            "cuda_profiler_api.h",
        ),
        output="rules/cuda_runtime.yaml",
        hip_title="HIP runtime API",
    ),
    "cuda_driver": Family(
        "cuda_driver",
        "CUDA driver API",
        "CUDA_Driver_API_functions_supported_by_HIP.md",
        headers=("cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaProfiler.h"),
        output="rules/cuda_driver.yaml",
        hip_title="HIP runtime API",
    ),
    "cuda_device": Family(
        "cuda_device",
        "CUDA device functions",
        "CUDA_Device_API_supported_by_HIP.md",
        headers=("cuda_fp16.h", "cuda_bf16.h", "math_constants.h", "device_types.h"),
        output="rules/cuda_device.yaml",
    ),
    "cublas": Family(
        "cublas", "cuBLAS", "CUBLAS_API_supported_by_HIP.md",
        headers=("cublas_api.h", "cublas_v2.h", "library_types.h"), output="rules/cublas.yaml",
    ),
}

# ------------------------------------------------------------------------ table parsing

_SECTION_RE = re.compile(r"^##\s+\*\*\s*(?:\d+\.\s*)?(?P<title>.+?)\s*\*\*\s*$")
_CODE_RE = re.compile(r"^`(?P<name>[^`]*)`$")


@dataclasses.dataclass
class Row:
    """One row of a HIPIFY table, cells stripped of Markdown decoration."""

    section: str
    cuda: str
    cuda_versions: tuple[str, str, str, str]  # added, deprecated, changed, removed
    hip: str
    hip_versions: tuple[str, str, str, str]  # added, deprecated, changed, removed
    experimental: str
    line: int


def _cell(text: str) -> str:
    """Strip whitespace and one pair of enclosing backticks from a table cell."""
    text = text.strip()
    m = _CODE_RE.match(text)
    return m.group("name").strip() if m else text


def parse_table(path: str | os.PathLike) -> list[Row]:
    """Parse a HIPIFY Markdown table file into :class:`Row` objects, in file order.

    Header and alignment rows are skipped.  The section of a row is the title of the
    nearest preceding ``## **N. Title**`` heading, without its number (a trailing
    ``[DEPRECATED]``/``[REMOVED]`` stays part of the title).  Raises ``ValueError`` on a
    data row that does not have at least the 11 HIP-table columns, or that appears
    before any section heading.
    """
    rows: list[Row] = []
    section = None
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\r\n")
            m = _SECTION_RE.match(line)
            if m:
                section = m.group("title").strip()
                continue
            if not line.startswith("|"):
                continue
            cells = line.strip().strip("|").split("|")
            first = cells[0].strip()
            if first.startswith("**") or first.startswith(":-") or first.startswith("-"):
                continue  # column header or alignment row
            if len(cells) < 11:
                raise ValueError(f"{path}:{lineno}: expected >= 11 columns, got {len(cells)}")
            if section is None:
                raise ValueError(f"{path}:{lineno}: table row before any section heading")
            c = [_cell(x) for x in cells]
            rows.append(Row(
                section=section,
                cuda=c[0],
                cuda_versions=(c[1], c[2], c[3], c[4]),
                hip=c[5],
                hip_versions=(c[6], c[7], c[8], c[9]),
                experimental=c[10],
                line=lineno,
            ))
    return rows


# ------------------------------------------------------------------------------ status

def derive_status(row: Row) -> str:
    """Return the hipport ``status`` of a table row.

    * No HIP name: ``removed`` if CUDA removed the name (CUDA R set), else ``unsupported``.
    * HIP removed its name (HIP R set): ``unsupported`` (the ``hip`` field is dropped and
      the removed HIP name is mentioned in the note instead).
    * Otherwise: ``removed`` if CUDA R is set, else ``experimental`` if HIP E is set, else
      ``deprecated`` if CUDA D or HIP D is set, else ``supported``.
    """
    _ca, cuda_d, _cc, cuda_r = row.cuda_versions
    _ha, hip_d, _hc, hip_r = row.hip_versions
    if not row.hip:
        return "removed" if cuda_r else "unsupported"
    if hip_r:
        return "unsupported"
    if cuda_r:
        return "removed"
    if row.experimental:
        return "experimental"
    if cuda_d or hip_d:
        return "deprecated"
    return "supported"


# ------------------------------------------------------------------- header inspection

#: Macros that decorate declarations in CUDA headers and confuse a C parser; they are
#: blanked out (replaced by spaces, so byte offsets stay put) before parsing.
_DECORATOR_RE = re.compile(
    r"\b(?:__device_builtin__|__cudart_builtin__|__device_builtin_surface_type__|"
    r"__device_builtin_texture_type__|CUDARTAPI|CUDART_CB|CUDAAPI|CUDA_CB|__host__|"
    r"__device__|__forceinline__|__inline__|__managed__|__CUDA_DEPRECATED|"
    r"CUDART_DEPRECATED|__CUDART_API_PTDS|__CUDART_API_PTSZ)\b"
    r"|\b(?:__dv|__builtin_align__|__align__|__CUDA_ALIGN__)\s*\([^()]*\)"
)

_VECTOR_MACRO_RE = re.compile(r"^__cuda_builtin_vector_align\d+\(\s*(\w+)", re.M)


def blank_decorators(text: str) -> str:
    """Replace CUDA decoration macros by spaces, outside preprocessor directives.

    Line structure (and so line numbers) is preserved.  Directive lines, including
    their backslash continuations, are left alone so that ``#define __dv(v)`` etc.
    still parse as macro definitions.
    """
    out = []
    in_directive = False
    for line in text.split("\n"):
        if in_directive or line.lstrip().startswith("#"):
            out.append(line)
            in_directive = line.rstrip().endswith("\\")
            continue
        out.append(_DECORATOR_RE.sub(lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


#: Precedence when a name is declared in more than one way: a real C declaration wins
#: over a ``#define`` (CUDA keeps e.g. old enumerator names as macros aliasing new ones,
#: but the enum declaration is what a porter sees first).
_KIND_RANK = {"enum": 0, "enumerator": 1, "type": 2, "function": 3, "macro": 4}


class HeaderIndex:
    """Map C identifiers to their kind, as declared in a set of C/C++ headers.

    Headers are parsed with tree-sitter-cuda after blanking CUDA decoration macros.
    Recorded declarations:

    * ``enum X { ... }`` -> X is ``enum``; each member is ``enumerator``;
    * ``typedef enum [X] { ... } Y;`` and ``typedef enum X Y;`` -> Y is ``enum``;
    * ``struct``/``union`` tags (with or without a body) and other typedef names -> ``type``;
    * ``#define NAME`` and ``#define NAME(...)`` -> ``macro``;
    * function declarations -> ``function``.

    When a name has several declarations, the kind with the lowest :data:`_KIND_RANK`
    wins.  ``where`` records the header (and line) of the winning declaration.
    """

    def __init__(self) -> None:
        """Start an empty index; fill it with :meth:`from_headers`."""
        self.kinds: dict[str, str] = {}
        self.where: dict[str, str] = {}
        self.files: list[str] = []

    def _add(self, name: str, kind: str, where: str) -> None:
        """Record ``name`` as ``kind`` unless it already has a higher-ranked kind."""
        if not name or not re.fullmatch(r"[A-Za-z_]\w*", name):
            return
        old = self.kinds.get(name)
        if old is None or _KIND_RANK[kind] < _KIND_RANK[old]:
            self.kinds[name] = kind
            self.where[name] = where

    def get(self, name: str) -> str | None:
        """Return the kind of ``name``, or ``None`` if no parsed header declares it."""
        return self.kinds.get(name)

    @classmethod
    def from_headers(cls, include_dir: str | os.PathLike, headers: Iterable[str]) -> "HeaderIndex":
        """Build an index from ``headers`` (paths relative to ``include_dir``), in order.

        Missing headers are skipped (and left out of :attr:`files`).
        """
        import tree_sitter
        import tree_sitter_cuda

        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
        index = cls()
        for rel in headers:
            path = Path(include_dir, rel)
            if not path.is_file():
                continue
            index.files.append(rel)
            text = path.read_text(encoding="utf-8", errors="replace")
            tree = parser.parse(blank_decorators(text).encode("utf-8"))
            index._walk(tree.root_node, rel)
            # vector_types.h declares most vector structs through a macro.
            for m in _VECTOR_MACRO_RE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                index._add(m.group(1), "type", f"{rel}:{line}")
        return index

    def _walk(self, root, rel: str) -> None:
        """Record the declarations found in the syntax tree ``root`` of header ``rel``."""
        def text(node) -> str:
            """Source text of a node ('' for None)."""
            return node.text.decode("utf-8", "replace") if node is not None else ""

        def declarator_names(node) -> Iterator[str]:
            """Yield the name a declarator declares, digging through */[]/()/(...)."""
            while node is not None and node.type not in ("type_identifier", "identifier",
                                                         "primitive_type"):
                nxt = node.child_by_field_name("declarator")
                if nxt is None:  # e.g. parenthesized_declarator: (*name)
                    subs = [c for c in node.named_children
                            if c.type in ("type_identifier", "identifier")
                            or c.type.endswith("declarator")]
                    nxt = subs[0] if subs else None
                node = nxt
            if node is not None and node.type != "primitive_type":
                yield text(node)

        stack = [root]
        while stack:
            node = stack.pop()
            t = node.type
            where = f"{rel}:{node.start_point[0] + 1}"
            if t == "enum_specifier":
                name = node.child_by_field_name("name")
                body = node.child_by_field_name("body")
                if body is not None:
                    if name is not None:
                        self._add(text(name), "enum", where)
                    for e in body.named_children:
                        if e.type == "enumerator":
                            self._add(text(e.child_by_field_name("name")), "enumerator",
                                      f"{rel}:{e.start_point[0] + 1}")
            elif t in ("struct_specifier", "union_specifier", "class_specifier"):
                name = node.child_by_field_name("name")
                if name is not None and name.type == "type_identifier":
                    self._add(text(name), "type", where)
            elif t == "type_definition":
                typ = node.child_by_field_name("type")
                kind = "enum" if typ is not None and typ.type == "enum_specifier" else "type"
                for d in node.children_by_field_name("declarator"):
                    for n in declarator_names(d):
                        self._add(n, kind, where)
            elif t in ("preproc_def", "preproc_function_def"):
                self._add(text(node.child_by_field_name("name")), "macro", where)
            elif t == "declaration":
                for d in node.children_by_field_name("declarator"):
                    if d.type == "function_declarator" or (
                            d.type == "pointer_declarator"
                            and d.child_by_field_name("declarator") is not None
                            and d.child_by_field_name("declarator").type == "function_declarator"):
                        for n in declarator_names(d):
                            self._add(n, "function", where)
            stack.extend(reversed(node.children))


# --------------------------------------------------------------------- kind heuristics

_ALL_CAPS_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def is_data_section(section: str) -> bool:
    """True for sections listing types, enums, macros (``Data types used by ...``)."""
    s = section.lower()
    return "data type" in s or s.startswith("types") or " types" in s


#: Kinds fixed by hand for names that the CUDA 13 headers no longer declare and that
#: :func:`heuristic_kind` gets wrong; each was checked against the headers of the last
#: CUDA release that still had it (driver_types.h of CUDA 11/12).
KIND_OVERRIDES: dict[str, dict[str, str]] = {
    "cuda_runtime": {
        # `#define ... 0x01` / `0x02` flags of cudaLaunchCooperativeKernelMultiDevice.
        "cudaCooperativeLaunchMultiDeviceNoPreSync": "macro",
        "cudaCooperativeLaunchMultiDeviceNoPostSync": "macro",
        # `#define cudaDevicePropDontCare { ... }`, an initializer for cudaDeviceProp.
        "cudaDevicePropDontCare": "macro",
        # `enum cudaOutputMode { cudaKeyValuePair, cudaCSV }` (profiler output mode); its
        # `_t` typedef then follows from heuristic rule 2.
        "cudaOutputMode": "enum",
        "cudaKeyValuePair": "enumerator",
        "cudaCSV": "enumerator",
    },
}

#: Corrections to HIPIFY's facts, by family and CUDA name, found by checking the ``hip``
#: names against the headers of HIP 6.4 (Debian's libamdhip64-dev 6.4.3).  Each value
#: replaces fields of the generated entry; ``hip: None`` drops the HIP name, and a
#: ``note`` says what was corrected.
HIP_FIXES: dict[str, dict[str, dict[str, str | None]]] = {
    "cuda_runtime": {
        "cudaDevAttrMaxBlocksPerMultiprocessor": {
            "hip": "hipDeviceAttributeMaxBlocksPerMultiProcessor",
            "note": "The HIPIFY table spells the HIP name with a lowercase p; HIP declares "
                    "hipDeviceAttributeMaxBlocksPerMultiProcessor.",
        },
        "cudaErrorLossyQuery": {
            "hip": None, "status": "unsupported",
            "note": "HIPIFY names hipErrorLossyQuery (with no HIP version), but HIP 6.4 "
                    "does not declare it.",
        },
        "cudaGraphNodeTypeConditional": {
            "hip": None, "status": "unsupported",
            "note": "HIPIFY names hipGraphNodeTypeConditional (with no HIP version), but "
                    "HIP 6.4 has no conditional graph nodes.",
        },
    },
}

_CAMEL_RE = re.compile(r"[A-Z][A-Z0-9]*(?![a-z])|[A-Z]?[a-z][a-z0-9]*|\d+|_+")


def camel_tokens(name: str) -> list[str]:
    """Split an identifier into camel-case words.

    ``cudaDevAttrMaxX`` -> cuda, Dev, Attr, Max, X; an acronym with digits stays one
    word: ``cudaD3D10DeviceList`` -> cuda, D3D10, Device, List.
    """
    return _CAMEL_RE.findall(name)


def heuristic_kind(name: str, known: dict[str, str], current_enum: str | None,
                   next_name: str | None) -> str:
    """Guess the kind of a data-section name that the CUDA headers do not declare.

    ``known`` maps names already classified (from headers, or earlier rows) to kinds;
    ``current_enum`` is the nearest preceding table row classified ``enum`` with only
    ``enumerator`` rows since; ``next_name`` is the next row's CUDA name in the same
    section.  Table rows are sorted by name, so an enum directly precedes its members,
    whose names extend the enum's name.  Rules, first match wins:

    1. ALL_CAPS names (``CUDA_EGL_MAX_PLANES``) -> ``macro``;
    2. ``X_t`` where ``X`` is a known enum -> ``enum`` (``typedef enum X X_t``);
       other names ending in ``_t``, ``_st`` or ``_vN`` -> ``type``;
    3. a name extending ``current_enum`` (``cudaD3D10DeviceList`` ->
       ``cudaD3D10DeviceListAll``) -> ``enumerator``;
    4. a name sharing its first three or more camel-case words with a known
       enumerator (``cudaDevAttrCooperativeMultiDeviceLaunch`` next to
       ``cudaDevAttrCooperativeLaunch``) -> ``enumerator``;
    5. a ``cudaXxx`` name that is a proper prefix of the next row's name, ending at a
       camel-case word boundary -> ``enum`` (the enum of the enumerators that follow);
    6. anything else -> ``type`` (struct-like names such as ``cudaLaunchParams``,
       ``textureReference``, or the C++ template ``texture``).
    """
    if _ALL_CAPS_RE.match(name):
        return "macro"
    if name.endswith("_t") and known.get(name[:-2]) == "enum":
        return "enum"
    if re.search(r"(?:_t|_st|_v\d+)$", name):
        return "type"
    if current_enum and name.startswith(current_enum) and name != current_enum:
        return "enumerator"
    words = camel_tokens(name)
    for k in range(len(words) - 1, 2, -1):
        prefix = "".join(words[:k])
        if any(kind == "enumerator" and other != name and other.startswith(prefix)
               for other, kind in known.items()):
            return "enumerator"
    if (re.match(r"cuda[A-Z]", name) and next_name and next_name != name
            and next_name.startswith(name) and next_name[len(name)].isupper()):
        return "enum"
    return "type"


# ------------------------------------------------------------------------------ import

@dataclasses.dataclass
class ImportStats:
    """Counts of how kinds were decided, for the importer's report."""

    by_section: int = 0
    by_headers: int = 0
    by_heuristic: int = 0
    by_override: int = 0
    heuristic_names: list[str] = dataclasses.field(default_factory=list)
    override_names: list[str] = dataclasses.field(default_factory=list)
    odd_hip_names: list[str] = dataclasses.field(default_factory=list)
    fixed_names: list[str] = dataclasses.field(default_factory=list)


def _odd_hip_name(name: str) -> bool:
    """True for a HIP cell that is not a plain C identifier (spaces, ``*``, ``::``, ``<>``)."""
    return bool(name) and not re.fullmatch(r"[A-Za-z_]\w*", name)


def import_table(table_path: str | os.PathLike, family_id: str, title: str,
                 header_index: HeaderIndex | None = None,
                 stats: ImportStats | None = None) -> list[dict[str, str]]:
    """Read a HIPIFY table and return hipport mapping entries, in table order.

    ``family_id`` and ``title`` identify the rules file the entries are for (they are
    not stored per entry, but are used in messages).  ``header_index`` classifies
    names in data-type sections; without it every such name goes through
    :func:`heuristic_kind`.  If ``stats`` is given it is filled with classification
    counts and oddities.  Each entry is a dict whose keys follow :data:`KEY_ORDER`,
    with empty fields left out.
    """
    stats = stats if stats is not None else ImportStats()
    rows = parse_table(table_path)
    entries: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    current_enum: str | None = None  # name of the last enum seen in a data section
    known: dict[str, str] = dict(header_index.kinds) if header_index is not None else {}
    overrides = KIND_OVERRIDES.get(family_id, {})
    fixes = HIP_FIXES.get(family_id, {})
    for i, row in enumerate(rows):
        if not row.cuda:
            raise ValueError(f"{table_path}:{row.line}: empty CUDA name ({family_id})")
        if row.cuda in seen:
            raise ValueError(f"{table_path}:{row.line}: duplicate CUDA name {row.cuda!r} "
                             f"(first at line {seen[row.cuda]}) in {title}")
        seen[row.cuda] = row.line

        if is_data_section(row.section):
            kind = header_index.get(row.cuda) if header_index is not None else None
            if kind is not None and kind != "function":
                stats.by_headers += 1
            elif row.cuda in overrides:
                kind = overrides[row.cuda]
                stats.by_override += 1
                stats.override_names.append(f"{row.cuda}={kind}")
            else:
                nxt = rows[i + 1].cuda if i + 1 < len(rows) and rows[i + 1].section == row.section else None
                kind = heuristic_kind(row.cuda, known, current_enum, nxt)
                stats.by_heuristic += 1
                stats.heuristic_names.append(f"{row.cuda}={kind}")
            known[row.cuda] = kind
            if kind == "enum":
                current_enum = row.cuda
            elif kind != "enumerator":
                current_enum = None
        else:
            kind = "function"
            stats.by_section += 1

        status = derive_status(row)
        entry: dict[str, str] = {"cuda": row.cuda}
        hip_removed = bool(row.hip and row.hip_versions[3])
        if row.hip and not hip_removed:
            entry["hip"] = row.hip
        entry["kind"] = kind
        entry["status"] = status
        entry["section"] = row.section
        note = _auto_note(row, hip_removed)
        if note:
            entry["note"] = note
        fix = fixes.get(row.cuda)
        if fix:
            for key, val in fix.items():
                if val is None:
                    entry.pop(key, None)
                else:
                    entry[key] = val
            stats.fixed_names.append(row.cuda)
        if _odd_hip_name(row.hip):
            stats.odd_hip_names.append(f"{row.cuda} -> {row.hip}")
        for key, val in zip(("cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed"),
                            row.cuda_versions):
            if val:
                entry[key] = val
        for key, val in zip(("hip_added", "hip_deprecated", "hip_changed", "hip_removed"),
                            row.hip_versions):
            if val:
                entry[key] = val
        entries.append(entry)
    _note_folded_dimensions(entries)
    return entries


_DIMENSION_WORDS = ("Width", "Height", "Depth", "Pitch")


def _note_folded_dimensions(entries: list[dict[str, str]]) -> None:
    """Add a note where several per-dimension CUDA enumerators share one HIP name.

    HIPIFY maps e.g. both ``cudaDevAttrMaxSurface2DWidth`` and ``...Height`` to
    ``hipDeviceAttributeMaxSurface2D``, a single attribute for all dimensions, so a
    plain rename changes what the query returns.  Entries that already have a note
    are left alone.
    """
    groups: dict[str, list[dict[str, str]]] = {}
    for e in entries:
        if e.get("hip") and e["kind"] == "enumerator":
            groups.setdefault(e["hip"], []).append(e)
    for hip, group in groups.items():
        if len(group) < 2 or not all(
                any(w in e["cuda"] for w in _DIMENSION_WORDS) for e in group):
            continue
        for e in group:
            e.setdefault("note", f"HIP has one attribute, {hip}, for all dimensions; "
                                 "the per-dimension CUDA query has no exact equivalent.")


def _auto_note(row: Row, hip_removed: bool) -> str:
    """Return the generated note for a row, or '' (most rows need none)."""
    if hip_removed:
        return f"HIP removed {row.hip} in {row.hip_versions[3]}; no HIP equivalent remains."
    if _odd_hip_name(row.hip):
        return f"HIPIFY maps this to the expression {row.hip}, not to a named HIP API."
    return ""  # a removal is already stated by the removed-api finding (rules/checks.yaml)


# ------------------------------------------------------------------------------ output

_PLAIN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ ./+()-]*")


def yaml_scalar(value: str) -> str:
    """Render a string as a YAML scalar that is safe inside a flow mapping.

    Plain when it contains no flow/indicator characters and YAML would read it back as
    the same string (so ``1.5.0`` stays plain but ``11.3``, ``yes``, ``null`` are quoted);
    single-quoted otherwise.
    """
    if (_PLAIN_RE.fullmatch(value) and not value.endswith(" ")
            and yaml.safe_load(value) == value):
        return value
    return "'" + value.replace("'", "''") + "'"


def render_entry(entry: dict[str, str]) -> str:
    """Render one entry as a single ``  - {key: value, ...}`` line in :data:`KEY_ORDER`."""
    unknown = set(entry) - set(KEY_ORDER)
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)} in {entry}")
    parts = [f"{k}: {yaml_scalar(entry[k])}" for k in KEY_ORDER if entry.get(k)]
    return "  - {" + ", ".join(parts) + "}"


def render_rules(family: Family, entries: list[dict[str, str]], tail: str = "") -> str:
    """Render a complete rules file: header comment, metadata, mappings, hand tail."""
    src = f"docs/tables/{family.table}"
    lines = [
        f"# {family.title} -> {family.hip_title}.",
        f"# Facts from HIPIFY's published table {src}",
        f"# (ROCm/HIPIFY commit {HIPIFY_COMMIT}); generated by tools/import_hipify_tables.py, then curated by hand.",
        f"family: {family.family_id}",
        f"title: {yaml_scalar(family.title)}",
        f"source: HIPIFY {src} (ROCm/HIPIFY {HIPIFY_COMMIT})",
        "mappings:",
    ]
    lines += [render_entry(e) for e in entries]
    text = "\n".join(lines) + "\n"
    if tail:
        text += tail if tail.endswith("\n") else tail + "\n"
    return text


def split_existing(path: str | os.PathLike) -> tuple[dict[str, str], str]:
    """Read an existing rules file: return (hand notes by CUDA name, hand-curated tail).

    The tail is everything from the first comment line after ``mappings:``; the
    generator never writes comments inside the list, so such a line marks where hand
    curation starts.  Notes are taken from the generated part only.
    """
    p = Path(path)
    if not p.is_file():
        return {}, ""
    text = p.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    try:
        start = next(i for i, l in enumerate(lines) if l.rstrip() == "mappings:") + 1
    except StopIteration:
        return {}, ""
    cut = next((i for i in range(start, len(lines)) if lines[i].lstrip().startswith("#")),
               len(lines))
    generated = yaml.safe_load("".join(lines[:cut])) or {}
    notes = {m["cuda"]: m["note"] for m in generated.get("mappings") or [] if m.get("note")}
    return notes, "".join(lines[cut:])


_HIP_DEPRECATED_RE = re.compile(
    r"\bHIP_DEPRECATED\s*\((?:[^()]|\([^()]*\))*\)\s*[^;{(]*?\b(\w+)\s*\(")


def check_hip_names(mappings: list[dict], hip_include: str | os.PathLike) -> dict[str, list[str]]:
    """Check the ``hip`` names of ``mappings`` against installed HIP headers.

    ``hip_include`` is the include root that holds ``hip/`` (e.g. ``/opt/rocm/include``
    or an unpacked libamdhip64-dev's ``usr/include``).  Returns three lists of
    ``"cuda -> hip"`` strings: ``missing`` (an identifier no HIP header contains),
    ``deprecated`` (a function HIP marks ``HIP_DEPRECATED`` while the entry's status is
    not ``deprecated``/``removed``), and ``missing_headers`` (``kind: header`` entries
    whose file does not exist under ``hip_include``).
    """
    root = Path(hip_include)
    idents: set[str] = set()
    deprecated: set[str] = set()
    for f in sorted(root.joinpath("hip").rglob("*")):
        if f.suffix not in (".h", ".hpp", ".inc") or not f.is_file():
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        idents.update(re.findall(r"\b[A-Za-z_]\w*\b", text))
        deprecated.update(m.group(1) for m in _HIP_DEPRECATED_RE.finditer(text))
    out: dict[str, list[str]] = {"missing": [], "deprecated": [], "missing_headers": []}
    for m in mappings:
        hip = m.get("hip")
        if not hip:
            continue
        if m.get("kind") == "header":
            if not root.joinpath(hip).is_file():
                out["missing_headers"].append(f"{m['cuda']} -> {hip}")
            continue
        if not _odd_hip_name(hip) and hip not in idents:
            out["missing"].append(f"{m['cuda']} -> {hip}")
        if hip in deprecated and m.get("status") not in ("deprecated", "removed"):
            out["deprecated"].append(f"{m['cuda']} -> {hip}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring and tools/README.md."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="path to a HIPIFY docs/tables/*.md file")
    ap.add_argument("--family", default="cuda_runtime", choices=sorted(FAMILIES),
                    help="family id (default: cuda_runtime)")
    ap.add_argument("--title", help="override the family title")
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include",
                    help="CUDA include directory used to classify data-type names")
    ap.add_argument("--no-headers", action="store_true",
                    help="do not read CUDA headers; classify data types by heuristic only")
    ap.add_argument("--output", help="rules file to write (default: the family's)")
    ap.add_argument("--fresh", action="store_true",
                    help="ignore the existing output (drop hand notes and the hand tail)")
    ap.add_argument("--report", action="store_true", help="print classification details")
    ap.add_argument("--hip-include",
                    help="include root holding hip/ (e.g. /opt/rocm/include); if given, "
                         "the written hip names are checked against those headers")
    args = ap.parse_args(argv)

    family = FAMILIES[args.family]
    if args.title:
        family = dataclasses.replace(family, title=args.title)
    output = Path(args.output or Path(__file__).resolve().parent.parent / family.output)

    index = None
    if family.headers and not args.no_headers:
        index = HeaderIndex.from_headers(args.cuda_include, family.headers)
        if not index.files:
            raise SystemExit(f"none of {family.family_id}'s headers found under "
                             f"{args.cuda_include}; pass --cuda-include, or --no-headers "
                             "to classify data types by heuristic alone")
    stats = ImportStats()
    entries = import_table(args.table, family.family_id, family.title, index, stats)

    notes, tail = ({}, "") if args.fresh else split_existing(output)
    for e in entries:
        if "note" not in e and e["cuda"] in notes:
            e["note"] = notes[e["cuda"]]
            # keep KEY_ORDER: render_entry orders keys itself
    text = render_rules(family, entries, tail)

    data = yaml.safe_load(text)
    names = [m["cuda"] for m in data["mappings"]]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise SystemExit(f"duplicate cuda names after merging the hand tail: {dups}")

    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")

    print(f"{output}: {len(entries)} generated entries, {len(data['mappings'])} in total",
          file=sys.stderr)
    print(f"kind from section: {stats.by_section}, from CUDA headers: {stats.by_headers}, "
          f"by hand override: {stats.by_override}, by heuristic: {stats.by_heuristic}"
          + (f" (headers parsed: {', '.join(index.files)})" if index else " (no headers)"),
          file=sys.stderr)
    if args.hip_include:
        for what, items in check_hip_names(data["mappings"], args.hip_include).items():
            print(f"HIP check, {what}: {len(items)}", file=sys.stderr)
            for n in items:
                print(f"  {n}", file=sys.stderr)
    if args.report:
        for n in stats.fixed_names:
            print(f"  HIP fix applied: {n}", file=sys.stderr)
        for n in stats.heuristic_names:
            print(f"  heuristic: {n}", file=sys.stderr)
        for n in stats.override_names:
            print(f"  override: {n}", file=sys.stderr)
        for n in stats.odd_hip_names:
            print(f"  odd HIP name: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
