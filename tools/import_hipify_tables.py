#!/usr/bin/env python3
"""Import HIPIFY's published CUDA->HIP mapping tables into hipport rules files.

HIPIFY (ROCm/HIPIFY, MIT) publishes, under ``docs/tables/``, one Markdown file per API
family.  Each file is a sequence of numbered sections (``## **1. Device Management**``),
each holding a table with the columns::

    CUDA | A | D | C | R | HIP | A | D | C | R | E

i.e. the CUDA name, the CUDA versions in which it was Added, Deprecated, Changed and
Removed, then the HIP name (empty when HIP has none) with the HIP versions Added,
Deprecated, Changed, Removed, and E when the HIP name is still experimental.  The
``_by_HIP_and_ROC`` / ``_by_HIP_and_MIOPEN`` files carry a second target block with the
same five version columns after the HIP columns: the ROCm library's own name (rocBLAS,
rocSPARSE, rocRAND, rocSOLVER, MIOpen).  Both blocks are read.

This module turns such a table into the ``mappings:`` list of a ``rules/*.yaml`` file:
one YAML flow mapping per line, with the keys (in this order)::

    cuda, hip, roc, kind, status, roc_status, section, note, overloads, representation,
    cuda_added, cuda_deprecated, cuda_changed, cuda_removed,
    hip_added, hip_deprecated, hip_changed, hip_removed,
    roc_added, roc_deprecated, roc_changed, roc_removed

``status`` is derived from the version columns (see :func:`derive_status`), and so is
``roc_status`` from the ROC block, written only where it is not simply ``supported`` (with a
``roc`` name) or ``unsupported`` (without). ``overloads`` (a flow mapping: the CUDA overloads HIP
lacks and what to write instead) and ``representation`` (how CUDA and HIP define a type whose
definitions differ in kind, :data:`_INTEGER_HANDLES`) come only from :data:`HIP_FIXES`.
``kind`` is ``function`` in the API sections;
in the data-type sections it is decided by looking the CUDA name up in the real CUDA
headers (see :class:`HeaderIndex`), and, for names those headers do not declare, by a
documented heuristic (see :func:`heuristic_kind`) or, where that heuristic is known to be
wrong, by :data:`KIND_OVERRIDES`.  A typedef of an enum (``typedef enum cudaError
cudaError_t``) counts as ``enum``, like the enum itself.  Facts of HIPIFY's table found
wrong against HIP's own headers are corrected through :data:`HIP_FIXES` (each correction
carries a ``note``); device functions that HIPIFY lists without a HIP name although HIP's
headers declare the same name are marked supported through :data:`HIP_DECLARED`; names
another rule file already reports are left out through :data:`LEFT_OUT` (each with its
reason, printed in the file's header comment).

:data:`FAMILIES` records, per family id, its table file, title, the sections it takes
(cuBLAS and cuBLASLt share one table), whether it reads the ROC block (``roc_library``) and
the CUDA headers that declare its types.  Every generated file records the counts of the
HIPIFY rows it was made from (``upstream: {table, known, mapped, mapped_roc}``).

Output is deterministic: entries keep the table's order (section by section, row by
row), key order is fixed, and scalars are quoted by a fixed rule, so the same inputs
give a byte-identical file.  A hand-curated tail of the output file (everything from
the first comment line inside ``mappings:``) and hand-written ``note`` fields on
generated entries are carried over when the file is regenerated (``--fresh`` drops them).

Usage (see tools/README.md)::

    python tools/import_hipify_tables.py /path/to/hipify-tables --family all
    python tools/import_hipify_tables.py \\
        /path/to/hipify-tables/CUDA_Runtime_API_functions_supported_by_HIP.md \\
        --family cuda_runtime --output rules/cuda_runtime.yaml
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

KINDS = ("function", "type", "enum", "enumerator", "macro", "header", "namespace")
STATUSES = ("supported", "unsupported", "deprecated", "removed", "experimental")

#: Order of keys in every emitted flow mapping.
KEY_ORDER = (
    "cuda", "hip", "roc", "kind", "status", "roc_status", "section", "note", "overloads", "representation",
    "cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed",
    "hip_added", "hip_deprecated", "hip_changed", "hip_removed",
    "roc_added", "roc_deprecated", "roc_changed", "roc_removed",
)

#: Commit of ROCm/HIPIFY the tables in shared/hipify-tables were copied from.
HIPIFY_COMMIT = "014177bc"

#: Where the CUDA headers that classify data types are looked for, in order: the first
#: folder holding a header wins.  CUDA 13 (``/usr/local/cuda``) has the runtime, driver,
#: device and cuComplex headers but not the math libraries'; those come from Debian's
#: nvidia-cuda-dev (CUDA 12.4), which scripts/install-toolchain.sh unpacks into .toolchain/.
_REPO = Path(__file__).resolve().parent.parent
DEFAULT_CUDA_INCLUDES = (
    "/usr/local/cuda/include",
    str(_REPO / ".toolchain/pkgs/trixie/nvidia-cuda-dev/usr/include"),
)


@dataclasses.dataclass(frozen=True)
class Family:
    """What the importer needs to know about one API family (one rules file)."""

    family_id: str
    title: str
    table: str  # file name under HIPIFY's docs/tables/
    headers: tuple[str, ...] = ()  # CUDA headers (relative to the include dir) to classify types
    output: str = ""  # default output path, relative to the repository root
    hip_title: str = "HIP equivalents"  # right-hand side of the file's first comment line
    roc_library: str = ""  # the ROCm library of the table's ROC/MIOPEN block ("" = not read)
    versions_of: str = "CUDA"  # the product whose releases the table's A/D/C/R columns number
    cpp_namespace: str = ""  # the C++ namespace the family's names are members of (cub)
    sections: tuple[str, ...] = ()  # only these sections of the table (empty: all)
    skip_sections: tuple[str, ...] = ()  # these sections belong to another family
    comment: tuple[str, ...] = ()  # more lines for the file's header comment
    #: ALL_CAPS data-type names the headers do not declare are classified by
    #: :func:`library_caps_kind` (enumerator or macro) rather than as ``macro``.
    caps_by_neighbours: bool = True


#: The families this importer generates, in the order ``--family all`` writes them.
FAMILIES: dict[str, Family] = {f.family_id: f for f in (
    Family(
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
        caps_by_neighbours=False,  # its few such names were checked by hand (KIND_OVERRIDES)
    ),
    Family(
        "cuda_driver",
        "CUDA driver API",
        "CUDA_Driver_API_functions_supported_by_HIP.md",
        headers=("cuda.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaProfiler.h",
                 "cudaTypedefs.h"),
        output="rules/cuda_driver.yaml",
        hip_title="HIP runtime API (module, context and driver-style calls)",
    ),
    Family(
        "cuda_device",
        "CUDA device functions and types",
        "CUDA_Device_API_supported_by_HIP.md",
        headers=("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h",
                 "cuda_fp8.hpp", "math_constants.h", "device_types.h"),
        output="rules/cuda_device.yaml",
        hip_title="HIP device functions (hip/hip_runtime.h, hip_fp16.h, hip_bf16.h)",
    ),
    Family(
        "cucomplex", "cuComplex", "cuComplex_API_supported_by_HIP.md",
        headers=("cuComplex.h",), output="rules/cucomplex.yaml",
        hip_title="hip/hip_complex.h",
    ),
    Family(
        "cublas", "cuBLAS", "CUBLAS_API_supported_by_HIP_and_ROC.md",
        headers=("cublas_api.h", "cublas_v2.h", "cublas.h", "library_types.h"),
        output="rules/cublas.yaml", hip_title="hipBLAS (roc: rocBLAS)", roc_library="rocBLAS",
        skip_sections=("CUBLASLt Data types", "BLASLt Function Reference"),
        comment=("# The table's cuBLASLt sections (HIPIFY maps them to hipBLASLt, with no rocBLAS name) are",
                 "# in rules/cublaslt.yaml; `upstream` counts the rows of the other sections."),
    ),
    Family(
        "cublaslt", "cuBLASLt", "CUBLAS_API_supported_by_HIP_and_ROC.md",
        headers=("cublasLt.h", "library_types.h"),
        output="rules/cublaslt.yaml", hip_title="hipBLASLt",
        sections=("CUBLASLt Data types", "BLASLt Function Reference"),
        comment=("# Only the table's sections \"CUBLASLt Data types\" and \"BLASLt Function Reference\"; HIPIFY",
                 "# gives them no ROC name (hipBLASLt is also ROCm's own library), so --target-libs=roc",
                 "# keeps the hipBLASLt names (no roc_library)."),
    ),
    Family(
        "curand", "cuRAND", "CURAND_API_supported_by_HIP_and_ROC.md",
        headers=("curand.h", "curand_kernel.h", "curand_discrete.h", "curand_mtgp32.h",
                 "curand_philox4x32_x.h", "curand_mrg32k3a.h", "curand_globals.h",
                 "curand_precalc.h", "curand_normal.h", "curand_poisson.h"),
        output="rules/curand.yaml", hip_title="hipRAND (roc: rocRAND)", roc_library="rocRAND",
    ),
    Family(
        "cufft", "cuFFT", "CUFFT_API_supported_by_HIP.md",
        headers=("cufft.h", "cufftXt.h", "cudalibxt.h", "library_types.h"),
        output="rules/cufft.yaml", hip_title="hipFFT",
        comment=("# HIPIFY publishes no rocFFT mapping, so this family has no roc_library: --target-libs=roc",
                 "# keeps the hipFFT names."),
    ),
    Family(
        "cusparse", "cuSPARSE", "CUSPARSE_API_supported_by_HIP_and_ROC.md",
        headers=("cusparse.h", "library_types.h"),
        output="rules/cusparse.yaml", hip_title="hipSPARSE (roc: rocSPARSE)",
        roc_library="rocSPARSE",
    ),
    Family(
        "cusolver", "cuSOLVER", "CUSOLVER_API_supported_by_HIP_and_ROC.md",
        headers=("cusolver_common.h", "cusolverDn.h", "cusolverSp.h", "cusolverRf.h",
                 "cusolverMg.h", "cusolverSp_LOWLEVEL_PREVIEW.h", "library_types.h"),
        output="rules/cusolver.yaml", hip_title="hipSOLVER (roc: rocSOLVER)",
        roc_library="rocSOLVER",
    ),
    Family(
        "cudnn", "cuDNN", "CUDNN_API_supported_by_HIP_and_MIOPEN.md",
        output="rules/cudnn.yaml", hip_title="hipDNN (roc: MIOpen)", roc_library="MIOpen", versions_of="cuDNN",
        comment=("# No cuDNN headers are available here, so the kinds of its data types come from the",
                 "# importer's heuristics (library_caps_kind: an ALL_CAPS name sharing its first two",
                 "# words with a neighbouring row is an enumerator, other ALL_CAPS names are macros)."),
    ),
    Family(
        "cub", "CUB", "CUB_API_supported_by_HIP.md",
        headers=("cccl/cub/util_macro.cuh", "cccl/cub/util_debug.cuh", "cccl/cub/util_arch.cuh",
                 "cccl/cub/util_type.cuh", "cccl/cub/util_namespace.cuh", "cccl/cub/util_ptx.cuh",
                 "cccl/cub/util_cpp_dialect.cuh", "cccl/cub/config.cuh"),
        output="rules/cub.yaml", hip_title="hipCUB", cpp_namespace="cub",
    ),
    Family(
        "nvrtc", "NVRTC (runtime compilation)", "CUDA_RTC_API_supported_by_HIP.md",
        headers=("nvrtc.h",), output="rules/nvrtc.yaml", hip_title="hipRTC (hip/hiprtc.h)",
    ),
)}

# ------------------------------------------------------------------------ table parsing

_SECTION_RE = re.compile(r"^##\s+\*\*\s*(?:\d+\.\s*)?(?P<title>.+?)\s*\*\*\s*$")
_CODE_RE = re.compile(r"^`(?P<name>[^`]*)`$")


@dataclasses.dataclass
class Row:
    """One row of a HIPIFY table, cells stripped of Markdown decoration.

    ``roc`` is None when the table has no second target block, else the ROC (or MIOPEN)
    name, '' when there is none.
    """

    section: str
    cuda: str
    cuda_versions: tuple[str, str, str, str]  # added, deprecated, changed, removed
    hip: str
    hip_versions: tuple[str, str, str, str]  # added, deprecated, changed, removed
    experimental: str
    line: int
    roc: str | None = None
    roc_versions: tuple[str, str, str, str] = ("", "", "", "")
    roc_experimental: str = ""


def _cell(text: str) -> str:
    """Strip whitespace and one pair of enclosing backticks from a table cell."""
    text = text.strip()
    m = _CODE_RE.match(text)
    return m.group("name").strip() if m else text


def parse_table(path: str | os.PathLike) -> list[Row]:
    """Parse a HIPIFY Markdown table file into :class:`Row` objects, in file order.

    Header and alignment rows are skipped.  The section of a row is the title of the
    nearest preceding ``## **N. Title**`` heading, without its number (a trailing
    ``[DEPRECATED]``/``[REMOVED]`` stays part of the title).  A row of 17 columns has a
    second target block (ROC/MIOPEN), read into ``roc``.  Raises ``ValueError`` on a data
    row that does not have 11 or 17 columns, or that appears before any section heading.
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
            if len(cells) not in (11, 17):
                raise ValueError(f"{path}:{lineno}: expected 11 or 17 columns, got {len(cells)}")
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
                roc=c[11] if len(c) == 17 else None,
                roc_versions=(c[12], c[13], c[14], c[15]) if len(c) == 17 else ("", "", "", ""),
                roc_experimental=c[16] if len(c) == 17 else "",
            ))
    return rows


def select_rows(rows: list[Row], family: Family) -> list[Row]:
    """The rows of ``family``: its ``sections`` if it names some, minus its ``skip_sections``."""
    unknown = set(family.sections + family.skip_sections) - {r.section for r in rows}
    if unknown:
        raise ValueError(f"{family.family_id}: no section {sorted(unknown)} in {family.table}")
    return [r for r in rows
            if (not family.sections or r.section in family.sections)
            and r.section not in family.skip_sections]


def upstream_counts(rows: list[Row], table: str) -> dict[str, object]:
    """HIPIFY's own counts for ``rows``: rows, rows with a HIP name, rows with a ROC name
    (``mapped_roc`` only when the table has the ROC block)."""
    counts: dict[str, object] = {"table": table, "known": len(rows),
                                 "mapped": sum(1 for r in rows if r.hip)}
    if rows and rows[0].roc is not None:
        counts["mapped_roc"] = sum(1 for r in rows if r.roc)
    return counts


# ------------------------------------------------------------------------------ status

def _target_status(name: str, cuda_versions: tuple[str, str, str, str],
                   versions: tuple[str, str, str, str], experimental: str) -> str:
    """The status rule of :func:`derive_status` for one target block (HIP or ROC)."""
    _ca, cuda_d, _cc, cuda_r = cuda_versions
    _ta, target_d, _tc, target_r = versions
    if not name:
        return "removed" if cuda_r else "unsupported"
    if target_r:
        return "unsupported"
    if cuda_r:
        return "removed"
    if experimental:
        return "experimental"
    if cuda_d or target_d:
        return "deprecated"
    return "supported"


def derive_status(row: Row) -> str:
    """Return the hipport ``status`` of a table row.

    * No HIP name: ``removed`` if CUDA removed the name (CUDA R set), else ``unsupported``.
    * HIP removed its name (HIP R set): ``unsupported`` (the ``hip`` field is dropped and
      the removed HIP name is mentioned in the note instead).
    * Otherwise: ``removed`` if CUDA R is set, else ``experimental`` if HIP E is set, else
      ``deprecated`` if CUDA D or HIP D is set, else ``supported``.
    """
    return _target_status(row.hip, row.cuda_versions, row.hip_versions, row.experimental)


def derive_roc_status(row: Row) -> str:
    """The status under ``--target-libs=roc``: :func:`derive_status`'s rule on the ROC block."""
    return _target_status(row.roc or "", row.cuda_versions, row.roc_versions, row.roc_experimental)


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
    def from_headers(cls, include_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                     headers: Iterable[str]) -> "HeaderIndex":
        """Build an index from ``headers`` (paths relative to an include folder), in order.

        ``include_dirs`` is one folder or a sequence of them; each header is read from the
        first folder that has it.  Missing headers are skipped (and left out of
        :attr:`files`).
        """
        import tree_sitter
        import tree_sitter_cuda

        dirs = [include_dirs] if isinstance(include_dirs, (str, os.PathLike)) else list(include_dirs)
        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
        index = cls()
        for rel in headers:
            path = next((Path(d, rel) for d in dirs if Path(d, rel).is_file()), None)
            if path is None:
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

_ALL_CAPS_RE = re.compile(r"^_*[A-Z](?:[A-Z0-9_]|(?<=\d)x(?=\d))*$")  # 8x128 counts as caps


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
    # CUB 2.3.2 (CUDA 12.4's, .toolchain/cuda/include-cub) #defines these; CCCL's cub of CUDA 13
    # no longer has them, and the ALL_CAPS heuristic took them for enumerators (util_arch.cuh:84-87,
    # util_compiler.cuh:47-63 and 78, util_cpp_dialect.cuh:60-68 and 113-114, util_deprecated.cuh:49,
    # util_macro.cuh:95-110, util_namespace.cuh:212, util_ptx.cuh:71-72, util_type.cuh:609,
    # detail/detect_cuda_runtime.cuh:71 and 85), or tests as a macro the user defines
    # (CUB_IGNORE_DEPRECATED_DIALECT: `#ifndef` at util_cpp_dialect.cuh:144).
    "cub": dict.fromkeys((
        "CUB_COMP_DEPR_IMPL0", "CUB_COMP_DEPR_IMPL1", "CUB_DEFINE_VECTOR_TYPE", "CUB_DEVICE_COMPILER",
        "CUB_DEVICE_COMPILER_CLANG", "CUB_DEVICE_COMPILER_GCC", "CUB_DEVICE_COMPILER_MSVC",
        "CUB_DEVICE_COMPILER_NVCC", "CUB_DEVICE_COMPILER_UNKNOWN", "CUB_HOST_COMPILER",
        "CUB_HOST_COMPILER_CLANG", "CUB_HOST_COMPILER_GCC", "CUB_HOST_COMPILER_MSVC",
        "CUB_HOST_COMPILER_UNKNOWN", "CUB_IGNORE_DEPRECATED_API", "CUB_IGNORE_DEPRECATED_COMPILER",
        "CUB_IGNORE_DEPRECATED_CPP_11", "CUB_IGNORE_DEPRECATED_CPP_DIALECT",
        "CUB_IGNORE_DEPRECATED_DIALECT", "CUB_INCLUDE_DEVICE_CODE",
        "CUB_INCLUDE_HOST_CODE", "CUB_IS_DEVICE_CODE", "CUB_IS_HOST_CODE", "CUB_MSVC_VERSION",
        "CUB_MSVC_VERSION_FULL", "CUB_NAMESPACE_END", "CUB_QUOTIENT_CEILING", "CUB_QUOTIENT_FLOOR",
        "CUB_ROUND_DOWN_NEAREST", "CUB_ROUND_UP_NEAREST", "CUB_RUNTIME_ENABLED", "CUB_RUNTIME_FUNCTION",
        "_CUB_ASM_PTR_", "_CUB_ASM_PTR_SIZE_"), "macro"),
    # Enums that cuSPARSE 10/11 declared (`typedef enum {...} cusparseAlgMode_t;` ...) and
    # their members; CUDA 12.4's cusparse.h has none of them.
    "cusparse": {
        **dict.fromkeys(("cusparseAlgMode_t", "cusparseHybPartition_t", "cusparseSideMode_t"),
                        "enum"),
        **dict.fromkeys(("CUSPARSE_ALG0", "CUSPARSE_ALG1", "CUSPARSE_COOMV_ALG",
                         "CUSPARSE_CSRMM_ALG1", "CUSPARSE_MM_ALG_DEFAULT",
                         "CUSPARSE_MV_ALG_DEFAULT"), "enumerator"),
    },
}

def _hip_declares(pairs: Iterable[tuple[str, str]], header: str = "hip/hip_runtime_api.h",
                  why: str = "") -> dict[str, dict[str, str | None]]:
    """:data:`HIP_FIXES` entries for CUDA names HIPIFY's table (ROCm 6.3 era) lists with no HIP
    name although HIP 6.4.3's ``header`` declares the counterpart (the status is then derived
    as for any mapped row)."""
    return {cuda: {"hip": hip, "note": f"HIPIFY's table lists no HIP name; HIP 6.4.3's {header} "
                                       f"declares {hip}{why}."}
            for cuda, hip in pairs}


#: The 30 scalar and vector element types of CUDA 12.4's ``__ldg``/``__ldcs``/``__ldcg``/``__ldca``
#: overloads (sm_32_intrinsics.h), bfloat16 (cuda_bf16.h) and half (cuda_fp16.h) aside.
_LOAD_TYPES = ("long", "unsigned long", "char", "signed char", "short", "int", "long long", "char2", "char4",
               "short2", "short4", "int2", "int4", "longlong2", "unsigned char", "unsigned short", "unsigned int",
               "unsigned long long", "uchar2", "uchar4", "ushort2", "ushort4", "uint2", "uint4", "ulonglong2",
               "float", "double", "float2", "float4", "double2")
_BF16_TYPES = ("__nv_bfloat162", "__nv_bfloat16")


def _overloads(fix: str, *hip_lacks: str, unknown_type: str = "") -> dict[str, dict[str, object]]:
    """The ``overloads`` field of a :data:`HIP_FIXES` entry: the CUDA overloads HIP 6.4.3 lacks
    (parameter types as in tests/fixtures/device_overloads/cuda-12.4.yaml), what to write
    instead, and whether a call with an argument of unreadable type is reported."""
    value: dict[str, object] = {"hip_lacks": list(hip_lacks), "fix": fix}
    if unknown_type:
        value["unknown_type"] = unknown_type
    return {"overloads": value}


def _bf16_only(name: str, arity: int, fix: str) -> tuple[str, dict[str, dict[str, object]]]:
    """A half-precision function HIP 6.4.3 declares for __half(2) but not for CUDA's bfloat16."""
    type_ = "__nv_bfloat162" if "2" in name.removeprefix("__h") else "__nv_bfloat16"
    return name, _overloads(fix, ", ".join([type_] * arity))


#: Device functions HIP 6.4.3 declares for fewer argument types than CUDA 12.4 (found by
#: tests/test_device_mappings_compile.py, which compiles every CUDA overload for gfx90a and checks
#: these lists are exact). HIP's headers: hip/amd_detail/amd_hip_fp16.h:1079-1098 (``__ldcs``,
#: ``__ldcg``, ``__ldca`` for __half and __half2 only), hip/amd_detail/hip_ldg.h (``__ldg``, no
#: ushort4 or bfloat16), amd_hip_atomic.h (no vector, half or bfloat16 ``atomicAdd``, no signed
#: 64-bit bitwise atomics, no 16-bit ``atomicCAS``), amd_hip_bf16.h (no saturating, NaN-propagating
#: or unordered-compare bfloat16 functions), clang's __clang_hip_math.h (``sincos``/``sincospi``
#: for double only; no ``fma`` with a rounding mode).
_MISSING_OVERLOADS: dict[str, dict[str, object]] = {
    **{name: _overloads(
        f"HIP has {name} only for __half and __half2 (a plain load there); for other types write "
        + ("__builtin_nontemporal_load(p), clang's streaming load" if name == "__ldcs" else "*p (or __ldg(p))"),
        *(f"const {t} *" for t in _LOAD_TYPES + _BF16_TYPES), unknown_type="report")
       for name in ("__ldcs", "__ldcg", "__ldca")},
    "__ldg": _overloads("Write *p: HIP's __ldg is a plain load (hip/amd_detail/hip_ldg.h)",
                        *(f"const {t} *" for t in ("ushort4",) + _BF16_TYPES)),
    "atomicAdd": _overloads(
        "Add the components one by one (atomicAdd on float); for __half2 HIP has unsafeAtomicAdd(__half2 *, "
        "__half2) (amd_hip_fp16.h), for __half and bfloat16 an atomicCAS loop on the aligned 32-bit word",
        *(f"{t} *, {t}" for t in ("float2", "float4", "__half2", "__half") + _BF16_TYPES)),
    "atomicAdd_system": _overloads("Add the components one by one with atomicAdd_system on float",
                                   *(f"{t} *, {t}" for t in ("float2", "float4"))),
    **{name: _overloads(f"Cast to unsigned long long: HIP has {name}(unsigned long long *, unsigned long long), "
                        "the same bits", "long long *, long long")
       for name in ("atomicAnd", "atomicOr", "atomicXor", "atomicAnd_system", "atomicOr_system",
                    "atomicXor_system")},
    "atomicCAS": _overloads("CAS the aligned 32-bit word that holds the value (atomicCAS on unsigned int)",
                            "unsigned short *, unsigned short, unsigned short"),
    "fma": _overloads("Write __fma_rn(a, b, c) for round-to-nearest; HIP has no fma with another rounding mode",
                      "double, double, double, enum cudaRoundMode"),
    "sincos": _overloads("Call sincosf for float arguments", "float, float *, float *"),
    "sincospi": _overloads("Call sincospif for float arguments", "float, float *, float *"),
    **{name: _overloads(f"HIP has {name} only for __hip_bfloat162; for __half2 apply __hmax/__hmin to "
                        "__low2half and __high2half and join them with __halves2half2", "__half2, __half2")
       for name in ("__hmax2", "__hmin2")},
    **dict(_bf16_only(name, 3 if "fma" in name else 2,
                      "HIP declares it for __half only: compute in float (__bfloat162float / __float22bfloat162_rn)"
                      + (", clamping to [0, 1] with __saturatef" if "sat" in name else
                         ", where a NaN operand gives NaN" if "nan" in name else
                         ", where an unordered comparison is also true for NaN operands"))
           for name in ("__hadd_sat", "__hsub_sat", "__hmul_sat", "__hfma_sat", "__hadd2_sat", "__hsub2_sat",
                        "__hmul2_sat", "__hfma2_sat", "__hmax_nan", "__hmin_nan", "__hequ2", "__hneu2",
                        "__hgeu2", "__hgtu2", "__hleu2", "__hltu2")),
}


def _representation(cuda: str, hip: str) -> dict[str, dict[str, str]]:
    """The ``representation`` field of a :data:`HIP_FIXES` entry: how CUDA's header and HIP's
    define a type whose definitions differ in kind (each the C type, then the header and line)."""
    return {"representation": {"cuda": cuda, "hip": hip}}


_DEVICEPTR = _representation("unsigned long long (cuda.h:258, 64-bit builds)", "void * (hip/driver_types.h:47)")
_TEXTURE = "struct __hip_texture * (hip/texture_types.h:71)"
_SURFACE = "struct __hip_surface * (hip/surface_types.h:41)"
#: CUDA handles that are integers in CUDA 12.4's headers and pointers in HIP 6.4.3's: integer
#: arithmetic, bit operations and integer casts on them do not compile after the rename
#: (hipport/handle_types.py, HP1216). Checked against .toolchain/cuda/include and
#: .toolchain/pkgs/sid/libamdhip64-dev/usr/include/hip (tests/test_handle_types.py).
_INTEGER_HANDLES: dict[str, dict[str, dict[str, dict[str, str]]]] = {
    "cuda_driver": {
        "CUdeviceptr": _DEVICEPTR,
        "CUdeviceptr_v2": _DEVICEPTR,
        "CUtexObject": _representation("unsigned long long (cuda.h:278-279)", _TEXTURE),
        "CUtexObject_v1": _representation("unsigned long long (cuda.h:278)", _TEXTURE),
        "CUsurfObject": _representation("unsigned long long (cuda.h:280-281)", _SURFACE),
    },
    "cuda_runtime": {
        "cudaTextureObject_t": _representation("unsigned long long (texture_types.h:174)", _TEXTURE),
        "cudaSurfaceObject_t": _representation("unsigned long long (surface_types.h:105)", _SURFACE),
    },
}


#: cuRAND device functions whose curand_kernel.h overloads for curandStateTest_t (a test generator
#: outside cuRAND's documented device API) hipRAND 6.4.3 lacks: hiprand/hiprand_kernel_rocm.h has no
#: such state (found by tests/test_device_mappings_compile.py).
_CURAND_TEST_STATE: dict[str, dict[str, object]] = {
    name: _overloads("hipRAND has no counterpart of curandStateTest_t: use a documented generator state "
                     "(curandState, curandStatePhilox4_32_10_t)", signature)
    for name, signature in (("curand", "curandStateTest_t *"),
                            ("curand_init", "unsigned long long, unsigned long long, unsigned long long, "
                                            "curandStateTest_t *"),
                            ("curand_uniform", "curandStateTest_t *"),
                            ("curand_uniform_double", "curandStateTest_t *"))
}


#: Corrections to HIPIFY's facts, by family and CUDA name, found by checking the ``hip`` and
#: ``roc`` names against the headers of HIP 6.4 (Debian's libamdhip64-dev 6.4.3), of the ROCm
#: 6.4 libraries (Debian sid's -dev packages) and of ROCm/hipDNN (``--hip-include``), and by
#: looking up the HIP counterparts of names HIPIFY's table (ROCm 6.3 era) leaves unmapped.
#: Each value replaces fields of the generated entry; ``hip: None`` drops the HIP name, a
#: ``hip`` given without ``status`` gets the status the row would have with that name, likewise
#: ``roc`` (``None`` drops the ROC name, and with either name its versions) without
#: ``roc_status``, and a ``note`` says what was corrected; ``cuda_added`` ... ``cuda_removed``
#: (``None`` clears one) replace the table's CUDA versions before the statuses are derived.  Besides wrong names, the fixes cover facts the headers contradict (a ROC name of
#: the opposite meaning, as cuSPARSE's order enumerators had).
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
        **_hip_declares([(f"cudaEvent{w}{f}", f"hipEvent{w}{f}")
                         for w in ("Record", "Wait") for f in ("Default", "External")],
                        why=", with the same value"),
        **_hip_declares([(f"cudaExternalSemaphoreHandleType{t}", f"hipExternalSemaphoreHandleType{t}")
                         for t in ("D3D11Fence", "NvSciSync", "KeyedMutex", "KeyedMutexKmt",
                                   "TimelineSemaphoreFd", "TimelineSemaphoreWin32")]
                        + [("cudaExternalMemoryHandleTypeNvSciBuf", "hipExternalMemoryHandleTypeNvSciBuf"),
                           ("cudaMemoryTypeUnregistered", "hipMemoryTypeUnregistered")],
                        why=", with the same value"),
        **_hip_declares([("cudaExternalMemoryMipmappedArrayDesc", "hipExternalMemoryMipmappedArrayDesc"),
                         ("cudaExternalMemoryGetMappedMipmappedArray",
                          "hipExternalMemoryGetMappedMipmappedArray"),
                         ("cudaErrorInvalidChannelDescriptor", "hipErrorInvalidChannelDescriptor"),
                         ("cudaErrorInvalidTexture", "hipErrorInvalidTexture")]),
    },
    "cuda_driver": {
        "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR": {
            "hip": "hipDeviceAttributeMaxBlocksPerMultiProcessor",
            "note": "The HIPIFY table spells the HIP name with a lowercase p; HIP declares "
                    "hipDeviceAttributeMaxBlocksPerMultiProcessor.",
        },
        "CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID": {
            "hip": "hipDeviceAttributeMultiGpuBoardGroupID",
            "note": "The HIPIFY table spells the HIP name ...GroupId; HIP declares "
                    "hipDeviceAttributeMultiGpuBoardGroupID.",
        },
        "CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES": {
            "hip": None, "status": "unsupported",
            "note": "HIPIFY names hipGraphDebugDotFlagsRuntimeTypes (with no HIP version), but "
                    "HIP 6.4 does not declare it.",
        },
        **_hip_declares([(f"CU_EVENT_{w.upper()}_{f.upper()}", f"hipEvent{w}{f}")
                         for w in ("Record", "Wait") for f in ("Default", "External")]
                        + [(f"CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_{c}", f"hipExternalSemaphoreHandleType{h}")
                           for c, h in (("D3D11_FENCE", "D3D11Fence"), ("NVSCISYNC", "NvSciSync"),
                                        ("D3D11_KEYED_MUTEX", "KeyedMutex"),
                                        ("D3D11_KEYED_MUTEX_KMT", "KeyedMutexKmt"),
                                        ("TIMELINE_SEMAPHORE_FD", "TimelineSemaphoreFd"),
                                        ("TIMELINE_SEMAPHORE_WIN32", "TimelineSemaphoreWin32"))]
                        + [("CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF", "hipExternalMemoryHandleTypeNvSciBuf")],
                        why=", with the same value"),
        **_hip_declares([("CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC", "hipExternalMemoryMipmappedArrayDesc"),
                         ("CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_st",
                          "hipExternalMemoryMipmappedArrayDesc_st"),
                         ("CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC_v1", "hipExternalMemoryMipmappedArrayDesc"),
                         ("cuExternalMemoryGetMappedMipmappedArray",
                          "hipExternalMemoryGetMappedMipmappedArray")]),
        # cuda.h becomes hip/hip_runtime.h, which does not include hip/hiprtc.h: HIPIFY's HIPRTC_JIT_*
        # and hiprtcJITInputType are #defines of that header (hiprtc.h:68-143) for the hipJit*
        # names of hip/linker_types.h, which hip/hip_runtime_api.h:36 includes.
        **{cuda: {
            "hip": hip,
            "note": f"HIPIFY gives {rtc}, a #define of hip/hiprtc.h (not included by hip/hip_runtime.h) "
                    f"for {hip}, which hip/linker_types.h declares (HIP 6.4.3).",
        } for cuda, rtc, hip in (
            *((f"CU_JIT_{c}", f"HIPRTC_JIT_{r or c}", f"hipJitOption{h}") for c, r, h in (
                ("MAX_REGISTERS", "", "MaxRegisters"), ("THREADS_PER_BLOCK", "", "ThreadsPerBlock"),
                ("WALL_TIME", "", "WallTime"), ("INFO_LOG_BUFFER", "", "InfoLogBuffer"),
                ("INFO_LOG_BUFFER_SIZE_BYTES", "", "InfoLogBufferSizeBytes"),
                ("ERROR_LOG_BUFFER", "", "ErrorLogBuffer"),
                ("ERROR_LOG_BUFFER_SIZE_BYTES", "", "ErrorLogBufferSizeBytes"),
                ("OPTIMIZATION_LEVEL", "", "OptimizationLevel"),
                ("TARGET_FROM_CUCONTEXT", "TARGET_FROM_HIPCONTEXT", "TargetFromContext"),
                ("TARGET", "", "Target"), ("FALLBACK_STRATEGY", "", "FallbackStrategy"),
                ("GENERATE_DEBUG_INFO", "", "GenerateDebugInfo"), ("LOG_VERBOSE", "", "LogVerbose"),
                ("GENERATE_LINE_INFO", "", "GenerateLineInfo"), ("CACHE_MODE", "", "CacheMode"),
                ("NEW_SM3X_OPT", "", "Sm3xOpt"), ("FAST_COMPILE", "", "FastCompile"),
                ("NUM_OPTIONS", "", "NumOptions"))),
            *((f"CU_JIT_INPUT_{c}", f"HIPRTC_JIT_INPUT_{c}", f"hipJitInput{h}") for c, h in (
                ("CUBIN", "Cubin"), ("PTX", "Ptx"), ("FATBINARY", "FatBinary"), ("OBJECT", "Object"),
                ("LIBRARY", "Library"), ("NVVM", "Nvvm"))),
            ("CU_JIT_NUM_INPUT_TYPES", "HIPRTC_JIT_NUM_LEGACY_INPUT_TYPES", "hipJitNumLegacyInputTypes"),
            ("CUjitInputType", "hiprtcJITInputType", "hipJitInputType"),
            ("CUjitInputType_enum", "hiprtcJITInputType", "hipJitInputType"))},
        **_hip_declares([(f"CU_JIT_{c}", f"hipJitOption{h}") for c, h in (
            ("GLOBAL_SYMBOL_NAMES", "GlobalSymbolNames"), ("GLOBAL_SYMBOL_ADDRESSES", "GlobalSymbolAddresses"),
            ("GLOBAL_SYMBOL_COUNT", "GlobalSymbolCount"), ("LTO", "Lto"), ("FTZ", "Ftz"),
            ("PREC_DIV", "PrecDiv"), ("PREC_SQRT", "PrecSqrt"), ("FMA", "Fma"),
            ("POSITION_INDEPENDENT_CODE", "PositionIndependentCode"), ("MIN_CTA_PER_SM", "MinCTAPerSM"),
            ("MAX_THREADS_PER_BLOCK", "MaxThreadsPerBlock"),
            ("OVERRIDE_DIRECTIVE_VALUES", "OverrideDirectiveValues"))]
                        + [(f"CU_JIT_CACHE_OPTION_{c}", f"hipJitCacheOption{h}")
                           for c, h in (("NONE", "None"), ("CG", "CG"), ("CA", "CA"))]
                        + [("CUjit_cacheMode", "hipJitCacheMode"), ("CUjit_cacheMode_enum", "hipJitCacheMode"),
                           ("CU_PREFER_PTX", "hipJitPreferPTX"), ("CU_PREFER_BINARY", "hipJitPreferBinary"),
                           ("CUjit_fallback", "hipJitFallback"), ("CUjit_fallback_enum", "hipJitFallback")],
                        header="hip/linker_types.h (included by hip/hip_runtime_api.h)"),
        **{cuda: {
            "hip": hip,
            "note": f"HIPIFY gives {rtc} of hip/hiprtc.h, which hip/hip_runtime.h does not include"
                    f"{' and which returns hiprtcResult' if cuda.startswith('cu') else ''}; "
                    f"hip/hip_runtime_api.h (HIP 6.4.3) declares {hip}"
                    f"{' with the same arguments, returning hipError_t' if cuda.startswith('cu') else ''}.",
        } for cuda, rtc, hip in (
            *((f"cuLink{f}{v}", f"hiprtcLink{f}", f"hipLink{f}")
              for f in ("Create", "AddData", "AddFile") for v in ("", "_v2")),
            ("cuLinkComplete", "hiprtcLinkComplete", "hipLinkComplete"),
            ("cuLinkDestroy", "hiprtcLinkDestroy", "hipLinkDestroy"),
            ("CUlinkState", "hiprtcLinkState", "hipLinkState_t"),
            ("CUlinkState_st", "ihiprtcLinkState", "ihipLinkState_t"))},
        **{cuda: {
            "cuda_deprecated": "12.4", "cuda_removed": None,
            "note": f"HIPIFY has it removed in CUDA 12.4, but cuda.h declares it __CUDA_DEPRECATED in "
                    f"CUDA 12.4 (cuda.h:{line}) and still in CUDA 13.0.",
        } for cuda, line in (("cuCtxGetSharedMemConfig", 6800), ("cuCtxSetSharedMemConfig", 6855),
                             ("cuFuncSetSharedMemConfig", 17611))},
        "CUoccupancyB2DSize": {
            "hip": None, "status": "unsupported",
            "note": "HIPIFY maps this callback type to void*, but HIP 6.4 has no block-size to "
                    "shared-memory callback: hipModuleOccupancyMaxPotentialBlockSize takes none.",
        },
    },
    "cuda_device": {
        **_MISSING_OVERLOADS,
        "__nv_bfloat16": {
            "hip": "__hip_bfloat16",
            "note": "HIPIFY maps this to hip_bfloat16 (hip/hip_bfloat16.h, a different struct); "
                    "hip/hip_bf16.h, which cuda_bf16.h maps to, declares __hip_bfloat16, the type "
                    "its bfloat16 functions take (HIP 6.4.3).",
        },
        **{cuda: {
            "hip": hip, "status": "supported",
            "note": f"HIPIFY lists no HIP name; HIP 6.4.3's hip/hip_bf16.h declares {hip}.",
        } for cuda, hip in (("__nv_bfloat162", "__hip_bfloat162"),
                            ("__nv_bfloat16_raw", "__hip_bfloat16_raw"),
                            ("__nv_bfloat162_raw", "__hip_bfloat162_raw"),
                            ("nv_bfloat162", "__hip_bfloat162"))},
        "__float2bfloat16_rn": {
            "hip": "__float2bfloat16", "status": "supported",
            "note": "HIPIFY lists no HIP name. CUDA's __float2bfloat16_rn and __float2bfloat16 both round "
                    "to nearest even (cuda_bf16.h); HIP 6.4.3's __float2bfloat16 does too "
                    "(hip/amd_detail/amd_hip_bf16.h, float_2_bfloatraw: round to nearest, ties to even, "
                    "NaN kept NaN).",
        },
        "__float2bfloat162_rn": {
            "hip": "__bfloat162bfloat162", "status": "supported",
            "note": "HIPIFY lists no HIP name. CUDA's __float2bfloat162_rn(float a) puts a, rounded to "
                    "nearest even, in both halves (cuda_bf16.h); HIP 6.4.3 has no such function, but "
                    "__bfloat162bfloat162(__hip_bfloat16) does the same with its argument converted by "
                    "__float2bfloat16 (round to nearest even), which rules/calls.yaml adds.",
        },
    },
    "cudnn": {
        cuda: {"note": f"HIPIFY names {hip}, but the last hipdnn.h of ROCm/hipDNN (2019, archived) "
                       "does not declare it."}
        for cuda, hip in (("CUDNN_ACTIVATION_SWISH", "HIPDNN_ACTIVATION_SWISH"),
                          ("CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H",
                           "HIPDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H"),
                          ("cudnnGetReduceTensorDescriptor", "hipdnnGetReduceTensorDescriptor"))
    },
    "curand": {
        cuda: {
            "roc": roc,
            "note": f"HIPIFY gives the engine type {engine}; {header} declares the typedef {roc} "
                    "for it (rocRAND 6.4.3).",
        } for cuda, roc, engine, header in (
            ("curandStateMRG32k3a", "rocrand_state_mrg32k3a", "rocrand_device::mrg32k3a_engine",
             "rocrand/rocrand_mrg32k3a.h"),
            ("curandStateMtgp32", "rocrand_state_mtgp32", "rocrand_device::mtgp32_engine",
             "rocrand/rocrand_mtgp32.h"),
            ("curandStatePhilox4_32_10", "rocrand_state_philox4x32_10",
             "rocrand_device::philox4x32_10_engine", "rocrand/rocrand_philox4x32_10.h"),
            ("curandStateScrambledSobol32", "rocrand_state_scrambled_sobol32",
             "rocrand_device::scrambled_sobol32_engine<false>",
             "rocrand/rocrand_scrambled_sobol32.h"),
            ("curandStateScrambledSobol64", "rocrand_state_scrambled_sobol64",
             "rocrand_device::scrambled_sobol64_engine<false>",
             "rocrand/rocrand_scrambled_sobol64.h"),
            ("curandStateSobol32", "rocrand_state_sobol32", "rocrand_device::sobol32_engine<false>",
             "rocrand/rocrand_sobol32.h"),
            ("curandStateSobol64", "rocrand_state_sobol64", "rocrand_device::sobol64_engine<false>",
             "rocrand/rocrand_sobol64.h"),
        )
    } | {
        cuda: {
            "roc": "rocrand_state_xorwow",
            "note": "HIPIFY lists no ROC name; cuRAND's default state (curandState) is the XORWOW "
                    "generator's, and rocrand/rocrand_xorwow.h declares the typedef "
                    "rocrand_state_xorwow for it (rocRAND 6.4.3).",
        } for cuda in ("curandState", "curandState_t", "curandStateXORWOW", "curandStateXORWOW_t")
    } | _CURAND_TEST_STATE,
    "cub": {
        **{cuda: {
            "hip": hip,
            "note": f"HIPIFY {why}; hipcub/backend/rocprim/util_macro.hpp:{line} (hipCUB 6.4, "
                    f"included by hipcub/util_macro.hpp) defines {hip}({args}) as CUB defines {cuda}.",
        } for cuda, hip, args, line, why in (
            ("CUB_MAX", "HIPCUB_MAX", "a, b", 66, "keeps CUB_MAX, which hipCUB 6.4 does not define"),
            ("CUB_MIN", "HIPCUB_MIN", "a, b", 71, "keeps CUB_MIN, which hipCUB 6.4 does not define"),
            ("CUB_QUOTIENT_FLOOR", "HIPCUB_QUOTIENT_FLOOR", "x, y", 76, "lists no HIP name"),
            ("CUB_QUOTIENT_CEILING", "HIPCUB_QUOTIENT_CEILING", "x, y", 81, "lists no HIP name"),
            ("CUB_ROUND_UP_NEAREST", "HIPCUB_ROUND_UP_NEAREST", "x, y", 86, "lists no HIP name"),
            ("CUB_ROUND_DOWN_NEAREST", "HIPCUB_ROUND_DOWN_NEAREST", "x, y", 91, "lists no HIP name"))},
        "CubVector": {
            "hip": "CubVector",
            "note": "HIPIFY lists no HIP name; hipcub/backend/rocprim/util_type.hpp:433 (hipCUB 6.4, "
                    "included by hipcub/util_type.hpp) declares hipcub::CubVector<T, vec_elements>, "
                    "an alias template (no struct to specialise), so cub::CubVector becomes "
                    "hipcub::CubVector.",
        },
    },
    "cublas": {
        "CUBLAS_STATUS_ALLOC_FAILED": {
            "roc": "rocblas_status_memory_error",
            "note": "HIPIFY gives rocblas_status_not_implemented; rocblas/internal/rocblas-types.h:210 "
                    "(rocBLAS 6.4) declares rocblas_status_memory_error, 'Failed internal memory "
                    "allocation, copy or dealloc'.",
        },
        "CUBLAS_STATUS_NOT_SUPPORTED": {
            "roc": "rocblas_status_not_implemented",
            "note": "HIPIFY gives rocblas_status_perf_degraded ('Performance degraded due to low "
                    "device memory'); rocblas/internal/rocblas-types.h:207 (rocBLAS 6.4) declares "
                    "rocblas_status_not_implemented, 'Function is not implemented', the meaning "
                    "hipblas-common.h:46 gives HIPBLAS_STATUS_NOT_SUPPORTED.",
        },
        "CUBLAS_STATUS_EXECUTION_FAILED": {
            "roc": None,
            "note": "HIPIFY gives rocblas_status_memory_error, CUBLAS_STATUS_ALLOC_FAILED's "
                    "counterpart (two cases of one switch would collide); rocBLAS 6.4's "
                    "rocblas_status (rocblas/internal/rocblas-types.h:203) has no status for a GPU "
                    "program that failed to execute.",
        },
        "CUBLAS_STATUS_MAPPING_ERROR": {
            "roc": None,
            "note": "HIPIFY gives rocblas_status_invalid_size, 'Invalid size argument' "
                    "(rocblas/internal/rocblas-types.h:209), not a failed access to GPU memory "
                    "(hipblas-common.h:43); rocBLAS 6.4's only memory status, "
                    "rocblas_status_memory_error, is CUBLAS_STATUS_ALLOC_FAILED's.",
        },
        # CUDA 12's ILP64 functions (int64_t sizes, cublas_api.h) whose 32-bit form HIPIFY maps
        # to hipblasX: hipBLAS 6.4's hipblas/hipblas.h declares hipblasX_64 with the same
        # arguments, their sizes int64_t (found by looking up each unmapped *_64 row's
        # 32-bit HIP name + "_64" there; tests/test_rule_families.py checks each is declared).
        **_hip_declares([
            ("cublasChemm_64", "hipblasChemm_v2_64"), ("cublasChemm_v2_64", "hipblasChemm_v2_64"),
            ("cublasCsymm_64", "hipblasCsymm_v2_64"), ("cublasCsymm_v2_64", "hipblasCsymm_v2_64"),
            ("cublasCsyr2k_64", "hipblasCsyr2k_v2_64"), ("cublasCsyr2k_v2_64", "hipblasCsyr2k_v2_64"),
            ("cublasCsyrk_64", "hipblasCsyrk_v2_64"), ("cublasCsyrk_v2_64", "hipblasCsyrk_v2_64"),
            ("cublasCsyrkx_64", "hipblasCsyrkx_v2_64"), ("cublasCtrmm_64", "hipblasCtrmm_v2_64"),
            ("cublasCtrmm_v2_64", "hipblasCtrmm_v2_64"), ("cublasCtrsm_64", "hipblasCtrsm_v2_64"),
            ("cublasCtrsm_v2_64", "hipblasCtrsm_v2_64"), ("cublasDsymm_64", "hipblasDsymm_64"),
            ("cublasDsymm_v2_64", "hipblasDsymm_64"), ("cublasDsyr2k_64", "hipblasDsyr2k_64"),
            ("cublasDsyr2k_v2_64", "hipblasDsyr2k_64"), ("cublasDsyrk_64", "hipblasDsyrk_64"),
            ("cublasDsyrk_v2_64", "hipblasDsyrk_64"), ("cublasDsyrkx_64", "hipblasDsyrkx_64"),
            ("cublasDtrmm_64", "hipblasDtrmm_64"), ("cublasDtrmm_v2_64", "hipblasDtrmm_64"),
            ("cublasDtrsm_64", "hipblasDtrsm_64"), ("cublasDtrsm_v2_64", "hipblasDtrsm_64"),
            ("cublasSsymm_64", "hipblasSsymm_64"), ("cublasSsymm_v2_64", "hipblasSsymm_64"),
            ("cublasSsyr2k_64", "hipblasSsyr2k_64"), ("cublasSsyr2k_v2_64", "hipblasSsyr2k_64"),
            ("cublasSsyrk_64", "hipblasSsyrk_64"), ("cublasSsyrk_v2_64", "hipblasSsyrk_64"),
            ("cublasSsyrkx_64", "hipblasSsyrkx_64"), ("cublasStrmm_64", "hipblasStrmm_64"),
            ("cublasStrmm_v2_64", "hipblasStrmm_64"), ("cublasStrsm_64", "hipblasStrsm_64"),
            ("cublasStrsm_v2_64", "hipblasStrsm_64"), ("cublasZhemm_64", "hipblasZhemm_v2_64"),
            ("cublasZhemm_v2_64", "hipblasZhemm_v2_64"), ("cublasZsymm_64", "hipblasZsymm_v2_64"),
            ("cublasZsymm_v2_64", "hipblasZsymm_v2_64"), ("cublasZsyr2k_64", "hipblasZsyr2k_v2_64"),
            ("cublasZsyr2k_v2_64", "hipblasZsyr2k_v2_64"), ("cublasZsyrk_64", "hipblasZsyrk_v2_64"),
            ("cublasZsyrk_v2_64", "hipblasZsyrk_v2_64"), ("cublasZsyrkx_64", "hipblasZsyrkx_v2_64"),
            ("cublasZtrmm_64", "hipblasZtrmm_v2_64"), ("cublasZtrmm_v2_64", "hipblasZtrmm_v2_64"),
            ("cublasZtrsm_64", "hipblasZtrsm_v2_64"), ("cublasZtrsm_v2_64", "hipblasZtrsm_v2_64"),
            ("cublasCdgmm_64", "hipblasCdgmm_v2_64"), ("cublasCgeam_64", "hipblasCgeam_v2_64"),
            ("cublasCtrsmBatched_64", "hipblasCtrsmBatched_v2_64"), ("cublasDdgmm_64", "hipblasDdgmm_64"),
            ("cublasDgeam_64", "hipblasDgeam_64"), ("cublasDtrsmBatched_64", "hipblasDtrsmBatched_64"),
            ("cublasGemmBatchedEx_64", "hipblasGemmBatchedEx_v2_64"),
            ("cublasGemmEx_64", "hipblasGemmEx_v2_64"),
            ("cublasGemmStridedBatchedEx_64", "hipblasGemmStridedBatchedEx_v2_64"),
            ("cublasSdgmm_64", "hipblasSdgmm_64"), ("cublasSgeam_64", "hipblasSgeam_64"),
            ("cublasStrsmBatched_64", "hipblasStrsmBatched_64"), ("cublasZdgmm_64", "hipblasZdgmm_v2_64"),
            ("cublasZgeam_64", "hipblasZgeam_v2_64"),
            ("cublasZtrsmBatched_64", "hipblasZtrsmBatched_v2_64"),
        ], header="hipblas/hipblas.h", why=", the int64_t-size form of its 32-bit counterpart"),
        "cublasGetStatusString": {
            "hip": "hipblasStatusToString",
            "note": "HIPIFY's table lists no HIP name; hipBLAS 6.4's hipblas/hipblas.h:35871 "
                    "declares const char* hipblasStatusToString(hipblasStatus_t).",
        },
    },
    "cublaslt": {
        # cuBLASLt's *Init functions fill a descriptor the caller allocates (a *Opaque_t variable,
        # cublasLt.h); hipBLASLt 6.4 has none (hipblaslt/hipblaslt.h declares only the *Create /
        # *Destroy pairs, which allocate the descriptor). The note goes into HP2001's message.
        **{cuda: {
            "note": f"hipBLASLt has no {cuda[len('cublasLt'):]}, which fills a descriptor in the caller's memory: "
                    f"declare a {handle} and create it with {create}({arguments}) "
                    f"(hipblaslt/hipblaslt.h:{line}), then release it with {create[:-len('Create')]}Destroy",
        } for cuda, handle, create, arguments, line in (
            ("cublasLtMatrixLayoutInit", "hipblasLtMatrixLayout_t", "hipblasLtMatrixLayoutCreate",
             "&desc, type, rows, cols, ld", 469),
            ("cublasLtMatmulDescInit", "hipblasLtMatmulDesc_t", "hipblasLtMatmulDescCreate",
             "&desc, computeType, scaleType", 573),
            ("cublasLtMatmulPreferenceInit", "hipblasLtMatmulPreference_t", "hipblasLtMatmulPreferenceCreate",
             "&desc", 674),
            ("cublasLtMatrixTransformDescInit", "hipblasLtMatrixTransformDesc_t",
             "hipblasLtMatrixTransformDescCreate", "&desc, scaleType", 896))},
        "cublasLtMatmulAlgoInit": {
            "note": "hipBLASLt has no MatmulAlgoInit (no algorithm ids to build one from): take a "
                    "hipblasLtMatmulAlgo_t from hipblasLtMatmulAlgoGetHeuristic's results "
                    "(hipblaslt/hipblaslt.h:801), or pass NULL to hipblasLtMatmul for its own choice",
        },
    },
    "cufft": {
        **{cuda: {
            "hip": "hip" + cuda[2:],
            "note": f"HIPIFY's table lists no HIP name; hipfft/hipfftXt.h (hipFFT 6.4) declares "
                    f"hip{cuda[2:]} with the same arguments.",
        } for cuda in (
            "cufftXtMakePlanMany", "cufftXtGetSizeMany", "cufftXtExec", "cufftXtSetGPUs",
            "cufftXtMalloc", "cufftXtMemcpy", "cufftXtFree", "cufftXtExecDescriptor",
            "cufftXtExecDescriptorC2C", "cufftXtExecDescriptorR2C", "cufftXtExecDescriptorC2R",
            "cufftXtExecDescriptorZ2Z", "cufftXtExecDescriptorD2Z", "cufftXtExecDescriptorZ2D")},
        **{cuda: {
            "hip": "hip" + cuda[2:],
            "note": f"HIPIFY's table lists no HIP name; {header} (hipFFT 6.4) declares hip{cuda[2:]}, "
                    f"{what}.",
        } for cuda, header, what in (
            *((name, "hipfft/hipfftXt.h", "without cufftXt.h's two distributed formats (cuFFTMp's)")
              for name in ("cufftXtSubFormat", "cufftXtSubFormat_t")),
            *((name, "hipfft/hiplibxt.h", "with the same enumerators and values")
              for name in ("cufftXtCopyType", "cufftXtCopyType_t")))},
        **{cuda: {
            "hip": "HIP" + cuda[2:],
            "note": f"HIPIFY's table lists no HIP name; {header} (hipFFT 6.4) declares HIP{cuda[2:]}, "
                    "with the same value.",
        } for cuda, header in (
            *((f"CUFFT_XT_FORMAT_{f}", "hipfft/hipfftXt.h")
              for f in ("INPUT", "OUTPUT", "INPLACE", "INPLACE_SHUFFLED", "1D_INPUT_SHUFFLED")),
            *((f"CUFFT_COPY_{c}", "hipfft/hiplibxt.h")
              for c in ("HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE", "UNDEFINED")))},
        "CUFFT_FORMAT_UNDEFINED": {
            "hip": "HIPFFT_FORMAT_UNDEFINED",
            "note": "HIPIFY's table lists no HIP name; hipfft/hipfftXt.h (hipFFT 6.4) declares "
                    "HIPFFT_FORMAT_UNDEFINED, the last hipfftXtSubFormat (0x05; cufftXt.h's is 0x07, "
                    "after two distributed formats hipFFT lacks).",
        },
    },
    "cusolver": {
        "cusolverSpScsrlsvqr": {
            "hip": "hipsolverSpScsrlsvqr",
            "note": "HIPIFY's table lists no HIP name; hipsolver/internal/hipsolver-sparse.h:79 "
                    "(hipSOLVER 6.4) declares hipsolverSpScsrlsvqr with the same arguments, its "
                    "tolerance a double where cuSOLVER's is a float.",
        },
        "cusolverSpDcsrlsvqr": {
            "hip": "hipsolverSpDcsrlsvqr",
            "note": "HIPIFY's table lists no HIP name; hipsolver/internal/hipsolver-sparse.h:92 "
                    "(hipSOLVER 6.4) declares hipsolverSpDcsrlsvqr with the same arguments.",
        },
        **{cuda: {
            "roc": None,
            "note": f"HIPIFY gives rocblas_status_not_implemented, as for three other statuses (cases "
                    f"of one switch would collide); {why}",
        } for cuda, why in (
            ("CUSOLVER_STATUS_EXECUTION_FAILED",
             "rocBLAS 6.4's rocblas_status (rocblas/internal/rocblas-types.h:203) has no status for "
             "a GPU program that failed to execute."),
            ("CUSOLVER_STATUS_MAPPING_ERROR",
             "rocBLAS 6.4's only memory status, rocblas_status_memory_error "
             "(rocblas/internal/rocblas-types.h:210), is CUSOLVER_STATUS_ALLOC_FAILED's."),
            ("CUSOLVER_STATUS_ZERO_PIVOT",
             "rocBLAS 6.4's rocblas_status (rocblas/internal/rocblas-types.h:203) has no zero-pivot "
             "status (rocsolver_sgetrf reports the first zero pivot through its info argument, "
             "rocsolver/rocsolver-functions.h:5723)."),
        )},
    },
    "cusparse": {
        "CUSPARSE_ORDER_COL": {
            "roc": "rocsparse_order_column",
            "note": "HIPIFY gives rocsparse_order_row, the other layout: cusparse.h (CUDA 12.4) "
                    "declares CUSPARSE_ORDER_COL column-major, and rocsparse/rocsparse-types.h:540 "
                    "(rocSPARSE 6.4) declares rocsparse_order_column column-major.",
        },
        "CUSPARSE_ORDER_ROW": {
            "roc": "rocsparse_order_row",
            "note": "HIPIFY gives rocsparse_order_column, the other layout: cusparse.h (CUDA 12.4) "
                    "declares CUSPARSE_ORDER_ROW row-major, and rocsparse/rocsparse-types.h:539 "
                    "(rocSPARSE 6.4) declares rocsparse_order_row row-major.",
        },
        **{cuda: {
            "roc": roc,
            "note": f"HIPIFY gives the matrix descriptor {wrong}; rocsparse_create_mat_info "
                    "(cusparseCreateCsrsv2Info's ROC name) makes a rocsparse_mat_info "
                    "(rocsparse/rocsparse-types.h:103), like the other *Info_t types.",
        } for cuda, roc, wrong in (("csrsv2Info", "_rocsparse_mat_info", "_rocsparse_mat_descr"),
                                   ("csrsv2Info_t", "rocsparse_mat_info", "rocsparse_mat_descr"))},
    },
}

#: Device functions HIPIFY's table lists with no HIP name although HIP 6.4.3's headers
#: (Debian's libamdhip64-dev 6.4.3), or the HIP math header of clang 19 that compiles them,
#: declare the very same name: by family, then by where (as the note names it), the names.  They are written as supported with ``hip`` equal to the
#: CUDA name and a note; ``upstream`` keeps HIPIFY's counts.  Found by looking every
#: unsupported device name up in the HIP headers (``--hip-include`` reports the candidates).
HIP_DECLARED: dict[str, dict[str, tuple[str, ...]]] = {
    "cuda_device": {
        "HIP 6.4.3's hip/amd_detail/amd_hip_bf16.h (included by hip/hip_bf16.h)": (
            "__bfloat1622float2", "__bfloat162bfloat162", "__bfloat162float",
            "__bfloat16_as_short", "__bfloat16_as_ushort", "__double2bfloat16",
            "__float22bfloat162_rn", "__float2bfloat16", "__halves2bfloat162",
            "__high2bfloat16", "__high2bfloat162", "__highs2bfloat162", "__low2bfloat16",
            "__low2bfloat162", "__lows2bfloat162", "__short_as_bfloat16",
            "__ushort_as_bfloat16",
        ),
        "HIP 6.4.3's hip/amd_detail/amd_hip_bf16.h, for __hip_bfloat162 only (no __half2 overload),": (
            "__hmax2", "__hmin2",
        ),
        "HIP 6.4.3's hip/amd_detail/amd_warp_sync_functions.h (64-bit masks; declared only when "
        "HIP_ENABLE_WARP_SYNC_BUILTINS is defined)": (
            "__shfl_down_sync", "__shfl_sync", "__shfl_up_sync", "__shfl_xor_sync",
        ),
        "HIP 6.4.3's hip/amd_detail/amd_hip_fp16.h (included by hip/hip_fp16.h)": ("make_half2",),
        "clang 19's __clang_hip_math.h (which clang includes in every HIP compile, like the "
        "math functions HIPIFY maps to themselves)": (
            "__finite", "__finitef", "__isinf", "__isinff", "__isnan", "__isnanf", "__signbit",
            "__signbitf",
        ),
    },
}

#: Names of a table that this family's file leaves out, with the reason (printed in the
#: file's header comment): another rule file reports them already, so a mapping here would
#: double the finding or conflict with the entry there.
LEFT_OUT: dict[str, dict[str, str]] = {
    "cuda_device": {name: "check fp8 (HP1206, rules/constructs.yaml) reports it"
                    for name in ("__nv_fp8_e4m3", "__nv_fp8_e5m2", "__nv_fp8_storage_t",
                                 "__nv_fp8x2_e4m3", "__nv_fp8x2_e5m2", "__nv_fp8x4_e4m3",
                                 "__nv_fp8x4_e5m2")},
    "cudnn": {name: "declared in library_types.h; rules/cuda_runtime.yaml has it"
              for name in ("libraryPropertyType", "libraryPropertyType_t")},
}

_CAMEL_RE = re.compile(r"[A-Z][A-Z0-9]*(?![a-z])|[A-Z]?[a-z][a-z0-9]*|\d+|_+")


for _family, _entries in _INTEGER_HANDLES.items():
    for _name, _fields in _entries.items():
        HIP_FIXES.setdefault(_family, {}).setdefault(_name, {}).update(_fields)


def camel_tokens(name: str) -> list[str]:
    """Split an identifier into camel-case words.

    ``cudaDevAttrMaxX`` -> cuda, Dev, Attr, Max, X; an acronym with digits stays one
    word: ``cudaD3D10DeviceList`` -> cuda, D3D10, Device, List.
    """
    return _CAMEL_RE.findall(name)


def library_caps_kind(name: str, neighbours: Iterable[str]) -> str:
    """Kind of an ALL_CAPS data-type name that the CUDA headers here do not declare (all of
    cuDNN's, and names newer or older CUDA releases dropped from the library headers).

    The table is sorted by name, so the enumerators of one enum sit together and share
    their leading words (``CUDNN_DATA_FLOAT``, ``CUDNN_DATA_HALF``): a name of three or more
    underscore-separated words that shares its first two with the row before or after it is
    an ``enumerator``; anything else (``CUDNN_MAJOR``, ``CUDNN_DIM_MAX``) a ``macro``.
    """
    def words_of(n: str) -> list[str]:
        return n.lstrip("_").split("_")

    words = words_of(name)
    if len(words) > 2 and any(words_of(n)[:2] == words[:2] and len(words_of(n)) > 2
                              for n in neighbours):
        return "enumerator"
    return "macro"


def heuristic_kind(name: str, known: dict[str, str], current_enum: str | None,
                   next_name: str | None) -> str:
    """Guess the kind of a data-section name that the CUDA headers do not declare.

    ``known`` maps names already classified (from headers, or earlier rows) to kinds;
    ``current_enum`` is the nearest preceding table row classified ``enum`` with only
    ``enumerator`` rows since; ``next_name`` is the next row's CUDA name in the same
    section.  Table rows are sorted by name, so an enum directly precedes its members,
    whose names extend the enum's name.  Rules, first match wins:

    1. ALL_CAPS names (``CUDA_EGL_MAX_PLANES``, ``__CUDACC__``) -> ``macro``;
    1a. the driver API's enum idiom ``typedef enum CUfoo_enum {...} CUfoo``: a name ending
       in ``_enum``, or one whose next row is itself plus ``_enum`` -> ``enum``;
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
    if name.endswith("_enum") or (next_name == name + "_enum"):
        return "enum"
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
    declared_names: list[str] = dataclasses.field(default_factory=list)
    left_out: list[str] = dataclasses.field(default_factory=list)
    upstream: dict[str, object] = dataclasses.field(default_factory=dict)
    header_files: list[str] = dataclasses.field(default_factory=list)


def _odd_hip_name(name: str) -> bool:
    """True for a HIP cell that is not a plain C identifier (spaces, ``*``, ``::``, ``<>``)."""
    return bool(name) and not re.fullmatch(r"[A-Za-z_]\w*", name)


def import_table(table_path: str | os.PathLike, family_id: str, title: str,
                 header_index: HeaderIndex | None = None,
                 stats: ImportStats | None = None) -> list[dict[str, str]]:
    """Read a HIPIFY table and return hipport mapping entries, in table order.

    ``family_id`` and ``title`` identify the rules file the entries are for (they are
    not stored per entry, but are used in messages).  For a family of :data:`FAMILIES`
    only its sections are read (:func:`select_rows`), the ROC block is read when it has a
    ``roc_library``, and :data:`LEFT_OUT` names are skipped.  ``header_index`` classifies
    names in data-type sections; without it every such name goes through
    :func:`heuristic_kind`.  If ``stats`` is given it is filled with classification
    counts, oddities and HIPIFY's counts of the rows read (``stats.upstream``).  Each entry
    is a dict whose keys follow :data:`KEY_ORDER`, with empty fields left out.
    """
    stats = stats if stats is not None else ImportStats()
    family = FAMILIES.get(family_id)
    rows = parse_table(table_path)
    if family is not None:
        rows = select_rows(rows, family)
    with_roc = bool(family and family.roc_library)
    stats.upstream = upstream_counts(rows, Path(table_path).name)
    entries: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    current_enum: str | None = None  # name of the last enum seen in a data section
    known: dict[str, str] = dict(header_index.kinds) if header_index is not None else {}
    overrides = KIND_OVERRIDES.get(family_id, {})
    fixes = HIP_FIXES.get(family_id, {})
    left_out = LEFT_OUT.get(family_id, {})
    declared = {name: header for header, names in HIP_DECLARED.get(family_id, {}).items()
                for name in names}
    caps_by_neighbours = family is not None and family.caps_by_neighbours
    for i, row in enumerate(rows):
        if not row.cuda:
            raise ValueError(f"{table_path}:{row.line}: empty CUDA name ({family_id})")
        if row.cuda in seen:
            raise ValueError(f"{table_path}:{row.line}: duplicate CUDA name {row.cuda!r} "
                             f"(first at line {seen[row.cuda]}) in {title}")
        seen[row.cuda] = row.line
        if row.roc and not with_roc:
            raise ValueError(f"{table_path}:{row.line}: {row.cuda} has a ROC name, but family "
                             f"{family_id} reads no ROC block")

        if is_data_section(row.section):
            kind = header_index.get(row.cuda) if header_index is not None else None
            if kind is not None and kind != "function":
                stats.by_headers += 1
            elif row.cuda in overrides:
                kind = overrides[row.cuda]
                stats.by_override += 1
                stats.override_names.append(f"{row.cuda}={kind}")
            else:
                same = [r.cuda for r in rows[max(i - 1, 0):i + 2] if r.section == row.section]
                if caps_by_neighbours and _ALL_CAPS_RE.match(row.cuda):
                    kind = library_caps_kind(row.cuda, [n for n in same if n != row.cuda])
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
        if row.cuda in left_out:
            stats.left_out.append(f"{row.cuda}: {left_out[row.cuda]}")
            continue
        fix = fixes.get(row.cuda)
        if fix and any(k.startswith("cuda_") for k in fix):  # CUDA versions the headers contradict
            row = dataclasses.replace(row, cuda_versions=tuple(
                (fix.get(f"cuda_{k}", v) or "") if f"cuda_{k}" in fix else v
                for k, v in zip(("added", "deprecated", "changed", "removed"), row.cuda_versions)))

        hip_name = row.hip
        declared_note = ""
        if not hip_name and row.cuda in declared:
            hip_name = row.cuda  # HIP declares the very same name (see HIP_DECLARED)
            declared_note = (f"Declared in {declared[row.cuda]} although HIPIFY's table lists "
                             "no HIP name.")
            stats.declared_names.append(row.cuda)
        status = derive_status(dataclasses.replace(row, hip=hip_name))
        entry: dict[str, str] = {"cuda": row.cuda}
        hip_removed = bool(hip_name and row.hip_versions[3])
        if hip_name and not hip_removed:
            entry["hip"] = hip_name
        roc_removed = False
        if with_roc:
            roc_removed = bool(row.roc and row.roc_versions[3])
            if row.roc and not roc_removed:
                entry["roc"] = row.roc
            roc_status = derive_roc_status(row)
            if roc_status != ("supported" if "roc" in entry else "unsupported"):
                entry["roc_status"] = roc_status
        entry["kind"] = kind
        entry["status"] = status
        entry["section"] = row.section
        note = " ".join(n for n in (_auto_note(row, hip_removed), declared_note,
                                    _roc_note(row, roc_removed)) if n)
        if note:
            entry["note"] = note
        if fix:
            for key, val in fix.items():
                if key.startswith("cuda_"):
                    continue  # applied to the row above
                if val is None:
                    entry.pop(key, None)
                else:
                    entry[key] = val
            if fix.get("hip") and "status" not in fix:  # a HIP name given where HIPIFY has none
                entry["status"] = derive_status(dataclasses.replace(row, hip=fix["hip"]))
            if with_roc and "roc" in fix and "roc_status" not in fix:  # a ROC name given or dropped
                roc_status = derive_roc_status(dataclasses.replace(row, roc=fix["roc"] or ""))
                entry.pop("roc_status", None)
                if roc_status != ("supported" if fix["roc"] else "unsupported"):
                    entry["roc_status"] = roc_status
            stats.fixed_names.append(row.cuda)
        if _odd_hip_name(row.hip):
            stats.odd_hip_names.append(f"{row.cuda} -> {row.hip}")
        if with_roc and _odd_hip_name(row.roc or ""):
            stats.odd_hip_names.append(f"{row.cuda} -> roc {row.roc}")
        for prefix, versions in (("cuda", row.cuda_versions), ("hip", row.hip_versions),
                                 ("roc", row.roc_versions if with_roc else ("", "", "", ""))):
            if fix and prefix in fix and fix[prefix] is None:
                continue  # the versions were those of the name the fix dropped
            for key, val in zip(("added", "deprecated", "changed", "removed"), versions):
                if val:
                    entry[f"{prefix}_{key}"] = val
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


def _roc_note(row: Row, roc_removed: bool) -> str:
    """The generated note about the ROC name of a row, or ''."""
    if roc_removed:
        return f"ROCm removed {row.roc} in {row.roc_versions[3]}; --target-libs=roc has no equivalent."
    return ""


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
    parts = [f"{k}: {_flow_value(entry[k])}" for k in KEY_ORDER if entry.get(k)]
    return "  - {" + ", ".join(parts) + "}"


def _flow_value(value) -> str:
    """A scalar (:func:`yaml_scalar`), a list or a mapping (``overloads``) as YAML flow text."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow_value(v) for v in value) + "]"
    return yaml_scalar(value)


def render_upstream(counts: dict[str, object]) -> str:
    """The ``upstream:`` line of a rules file (keys in the schema's order)."""
    parts = [f"{k}: {yaml_scalar(counts[k]) if isinstance(counts[k], str) else counts[k]}"
             for k in ("table", "known", "mapped", "mapped_roc") if k in counts]
    return "upstream: {" + ", ".join(parts) + "}"


def render_rules(family: Family, entries: list[dict[str, str]], tail: str = "",
                 upstream: dict[str, object] | None = None,
                 left_out: Iterable[str] = ()) -> str:
    """Render a complete rules file: header comment, metadata, mappings, hand tail."""
    src = f"docs/tables/{family.table}"
    lines = [
        f"# {family.title} -> {family.hip_title}.",
        f"# Facts from HIPIFY's published table {src}",
        f"# (ROCm/HIPIFY commit {HIPIFY_COMMIT}); generated by tools/import_hipify_tables.py, then curated by hand.",
        *family.comment,
    ]
    left_out = list(left_out)
    if left_out:
        lines.append("# Left out of this file (counted in `upstream`):")
        lines += [f"#   {item}" for item in left_out]
    lines += [
        f"family: {family.family_id}",
        f"title: {yaml_scalar(family.title)}",
        f"source: HIPIFY {src} (ROCm/HIPIFY {HIPIFY_COMMIT}, MIT licence)",
    ]
    if family.roc_library:
        lines.append(f"roc_library: {family.roc_library}")
    if family.versions_of != "CUDA":
        lines.append(f"versions_of: {family.versions_of}")
    if family.cpp_namespace:
        lines.append(f"cpp_namespace: {family.cpp_namespace}")
    if upstream:
        lines.append(render_upstream(upstream))
    lines.append("mappings:")
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


def check_hip_names(mappings: list[dict],
                    hip_include: str | os.PathLike | Iterable[str | os.PathLike]) -> dict[str, list[str]]:
    """Check the ``hip`` and ``roc`` names of ``mappings`` against installed headers.

    ``hip_include`` is an include root (or a sequence of them) holding ``hip/`` and the
    libraries' folders (``/opt/rocm/include``, or unpacked Debian -dev packages'
    ``usr/include``); every ``.h``/``.hpp``/``.inc``/``.cuh`` file below is read.  Returns
    lists of ``"cuda -> name"`` strings: ``missing`` / ``missing_roc`` (an identifier no
    header contains), ``deprecated`` (a function HIP marks ``HIP_DEPRECATED`` while the
    entry's status is not ``deprecated``/``removed``), and ``missing_headers`` /
    ``missing_roc_headers`` (``kind: header`` entries whose file exists under no root).
    Names that are not plain identifiers (``thrust::hip``) are checked by their last part.
    """
    roots = ([Path(hip_include)] if isinstance(hip_include, (str, os.PathLike))
             else [Path(r) for r in hip_include])
    idents: set[str] = set()
    deprecated: set[str] = set()
    for root in roots:
        for f in sorted(root.rglob("*")):
            if f.suffix not in (".h", ".hpp", ".inc", ".cuh") or not f.is_file():
                continue
            text = f.read_text(encoding="utf-8", errors="replace")
            idents.update(re.findall(r"\b[A-Za-z_]\w*\b", text))
            deprecated.update(m.group(1) for m in _HIP_DEPRECATED_RE.finditer(text))
    out: dict[str, list[str]] = {"missing": [], "missing_roc": [], "deprecated": [],
                                 "missing_headers": [], "missing_roc_headers": []}
    for m in mappings:
        for field, missing, missing_headers in (("hip", "missing", "missing_headers"),
                                                ("roc", "missing_roc", "missing_roc_headers")):
            name = m.get(field)
            if not name:
                continue
            if m.get("kind") == "header":
                if not any(root.joinpath(name).is_file() for root in roots):
                    out[missing_headers].append(f"{m['cuda']} -> {name}")
                continue
            last = name.rsplit("::", 1)[-1]
            if not _odd_hip_name(last) and last not in idents:
                out[missing].append(f"{m['cuda']} -> {name}")
            if (field == "hip" and name in deprecated
                    and m.get("status") not in ("deprecated", "removed")):
                out["deprecated"].append(f"{m['cuda']} -> {name}")
    return out


def generate(family: Family, table: str | os.PathLike, output: Path,
             cuda_includes: Iterable[str | os.PathLike] | None, fresh: bool = False,
             stats: ImportStats | None = None) -> str:
    """Import ``table`` for ``family`` and return the text of its rules file.

    ``cuda_includes`` are the folders to read the family's CUDA headers from (None: classify
    data types by heuristic alone).  The hand-written tail and notes of ``output`` are kept
    unless ``fresh``.  Raises SystemExit when none of the family's headers is found, or when
    the hand tail repeats a generated name.
    """
    stats = stats if stats is not None else ImportStats()
    index = None
    if family.headers and cuda_includes is not None:
        index = HeaderIndex.from_headers(list(cuda_includes), family.headers)
        if not index.files:
            raise SystemExit(f"none of {family.family_id}'s headers found under "
                             f"{', '.join(map(str, cuda_includes))}; pass --cuda-include, or "
                             "--no-headers to classify data types by heuristic alone")
    entries = import_table(table, family.family_id, family.title, index, stats)
    notes, tail = ({}, "") if fresh else split_existing(output)
    for e in entries:
        if "note" not in e and e["cuda"] in notes:
            e["note"] = notes[e["cuda"]]
    text = render_rules(family, entries, tail, stats.upstream, stats.left_out)
    data = yaml.safe_load(text)
    names = [m["cuda"] for m in data["mappings"]]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise SystemExit(f"{output}: duplicate cuda names after merging the hand tail: {dups}")
    stats.header_files = index.files if index is not None else []
    return text


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring and tools/README.md."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="a HIPIFY docs/tables/*.md file, or the folder holding them "
                                  "(each family then reads its own table)")
    ap.add_argument("--family", action="append", choices=[*FAMILIES, "all"],
                    help="family id, repeatable; 'all' for every family (default: cuda_runtime)")
    ap.add_argument("--title", help="override the family title (one family only)")
    ap.add_argument("--cuda-include", action="append",
                    help="CUDA include folder used to classify data-type names, repeatable, "
                         "first match wins (default: " + ", ".join(DEFAULT_CUDA_INCLUDES) + ")")
    ap.add_argument("--no-headers", action="store_true",
                    help="do not read CUDA headers; classify data types by heuristic only")
    ap.add_argument("--output", help="rules file to write (one family only; default: the family's)")
    ap.add_argument("--fresh", action="store_true",
                    help="ignore the existing output (drop hand notes and the hand tail)")
    ap.add_argument("--report", action="store_true", help="print classification details")
    ap.add_argument("--hip-include", action="append",
                    help="include root holding hip/ and the ROCm libraries' folders (e.g. "
                         "/opt/rocm/include), repeatable; if given, the written hip and roc "
                         "names and headers are checked against those headers")
    args = ap.parse_args(argv)

    ids = args.family or ["cuda_runtime"]
    ids = list(FAMILIES) if "all" in ids else list(dict.fromkeys(ids))
    if (args.output or args.title) and len(ids) > 1:
        ap.error("--output and --title take one family")
    if len(ids) > 1 and not Path(args.table).is_dir():
        ap.error("several families read several tables: give the folder holding them")
    includes = None if args.no_headers else (args.cuda_include or list(DEFAULT_CUDA_INCLUDES))
    for family_id in ids:
        family = FAMILIES[family_id]
        if args.title:
            family = dataclasses.replace(family, title=args.title)
        table = Path(args.table, family.table) if Path(args.table).is_dir() else Path(args.table)
        output = Path(args.output or _REPO / family.output)
        stats = ImportStats()
        text = generate(family, table, output, includes, args.fresh, stats)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        data = yaml.safe_load(text)
        print(f"{output}: {len(data['mappings'])} entries; HIPIFY {stats.upstream}; "
              f"{len(stats.left_out)} left out, {len(stats.declared_names)} declared by HIP, "
              f"{len(stats.fixed_names)} fixed", file=sys.stderr)
        print(f"  kind from section: {stats.by_section}, from CUDA headers: {stats.by_headers}, "
              f"by hand override: {stats.by_override}, by heuristic: {stats.by_heuristic}"
              + (f" (headers parsed: {', '.join(stats.header_files)})" if stats.header_files
                 else " (no headers)"),
              file=sys.stderr)
        if args.hip_include:
            for what, items in check_hip_names(data["mappings"], args.hip_include).items():
                print(f"  HIP check, {what}: {len(items)}", file=sys.stderr)
                for n in items:
                    print(f"    {n}", file=sys.stderr)
        if args.report:
            for n in stats.fixed_names:
                print(f"    HIP fix applied: {n}", file=sys.stderr)
            for n in stats.declared_names:
                print(f"    declared by HIP: {n}", file=sys.stderr)
            for n in stats.heuristic_names:
                print(f"    heuristic: {n}", file=sys.stderr)
            for n in stats.override_names:
                print(f"    override: {n}", file=sys.stderr)
            for n in stats.odd_hip_names:
                print(f"    odd HIP name: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
