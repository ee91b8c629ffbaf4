"""Definitions the port inserts once per file, and device functions it defines (HP2042).

Two parts:

* :func:`insert_once` puts a block of definitions (``#define`` lines, inline functions) into a
  ported file once, at the line start of the file-scope declaration holding a given use: a child
  of the translation unit, or of the include guard that wraps the whole file (so the block lands
  after the guard's ``#define`` and after the includes above that declaration, and a header and
  the file including it can both hold it behind its own ``#ifndef``). :mod:`hipport.grid_constant`
  and :func:`analyze_port_definitions` use it.

* :func:`analyze_port_definitions` ports calls of CUDA device functions that HIP 6.4.3 does not
  declare but whose meaning a few lines of HIP reproduce exactly (``rules/definitions/device_functions.yaml``:
  ``__dp4a``, ``__dp2a_lo``, ``__dp2a_hi``...). The identifier mapping of ``rules/cuda_device.yaml``
  renames each such name to one the port defines (``__dp4a`` -> ``hipport_dp4a``); this module
  inserts the definitions before the first use and reports an info finding (HP2042) at each use.
  The definitions are CUDA's own functions where the port is compiled as HIP on NVIDIA
  (``__HIP_PLATFORM_NVIDIA__``, which ``hip/hip_common.h`` defines under nvcc; ported files include
  HIP before their code) and the data file's AMD definitions elsewhere::

      #ifndef HIPPORT_DP4A_DEFINED
      #define HIPPORT_DP4A_DEFINED
      #if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */
      #define hipport_dp4a __dp4a
      ...
      #else /* hipport (HP2042): HIP 6.4.3 lacks __dp4a, __dp2a_lo, __dp2a_hi */
      static inline __host__ __device__ int hipport_dp4a(int a, int b, int c) { ... }
      ...
      #endif
      #endif

A file that declares one of the CUDA names itself (a fallback ``__device__ int __dp4a(...)`` for
older GPUs) gets no definitions for that entry: its own declaration is renamed with its calls,
so the calls keep reaching it.
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .edits import Edit
from .resources import data_dir, load_yaml_file
from .rules import RuleError

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

PORT_DEFINITIONS_FILE = Path("definitions") / "device_functions.yaml"
_MACRO_BODIES = ("preproc_arg",)


@dataclass(frozen=True)
class PortDefinition:
    """One entry of ``rules/definitions/device_functions.yaml``.

    Attributes:
        names: CUDA name -> the name the port calls and defines (``__dp4a`` -> ``hipport_dp4a``).
        guard: the macro that keeps the block to one copy per translation unit.
        what: what the AMD definitions do, for the HP2042 message.
        nvidia: the definitions under ``__HIP_PLATFORM_NVIDIA__`` (lines, no trailing newline).
        amd: the definitions elsewhere (lines, no trailing newline).
    """

    names: dict[str, str]
    guard: str
    what: str
    nvidia: str
    amd: str

    def block(self, newline: str) -> str:
        """The text inserted into a file whose line ending is ``newline`` ("\\n" or "\\r\\n")."""
        lacks = ", ".join(self.names)
        lines = [f"#ifndef {self.guard}", f"#define {self.guard}",
                 "#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */",
                 *self.nvidia.splitlines(),
                 f"#else /* hipport (HP2042): HIP 6.4.3 lacks {lacks} */",
                 *self.amd.splitlines(),
                 "#endif", "#endif"]
        return newline.join(lines) + newline


@lru_cache(maxsize=1)
def port_definitions() -> tuple[PortDefinition, ...]:
    """The entries of ``rules/definitions/device_functions.yaml``, in file order.

    Raises:
        RuleError: the file lacks the ``definitions:`` list, or an entry lacks one of ``names``
            (a mapping of CUDA name to port name), ``guard``, ``what``, ``nvidia``, ``amd``.
    """
    path = data_dir("rules") / PORT_DEFINITIONS_FILE
    data = load_yaml_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("definitions"), list):
        raise RuleError(path, 1, "expected a 'definitions:' list")
    entries = []
    for number, entry in enumerate(data["definitions"], 1):
        fields = ("names", "guard", "what", "nvidia", "amd")
        if not isinstance(entry, dict) or any(key not in entry for key in fields) \
                or not isinstance(entry["names"], dict):
            raise RuleError(path, 1, f"definition {number}: expected keys {', '.join(fields)} (names a mapping)")
        entries.append(PortDefinition({str(k): str(v) for k, v in entry["names"].items()}, str(entry["guard"]),
                                      str(entry["what"]), str(entry["nvidia"]).rstrip("\n"),
                                      str(entry["amd"]).rstrip("\n")))
    return tuple(entries)


def definition_offset(ctx: "_FileContext", node: "tree_sitter.Node") -> int:
    """Byte offset of the line start of the declaration at file scope that holds ``node``: a
    child of the translation unit, or of the include guard that wraps the whole file (so
    definitions placed there land after the guard's ``#define`` and the includes before the
    declaration)."""
    from .analyze import _include_guard

    guard = _include_guard(ctx)
    top = node
    while top.parent is not None and top.parent.type != "translation_unit" \
            and not (guard is not None and top.parent.start_byte == guard.start_byte
                     and top.parent.end_byte == guard.end_byte):
        top = top.parent
    return ctx.source.rfind(b"\n", 0, top.start_byte) + 1


def file_newline(ctx: "_FileContext") -> str:
    """The file's line ending: "\\r\\n" when the file holds one, else "\\n"."""
    return "\r\n" if b"\r\n" in ctx.source else "\n"


def insert_once(ctx: "_FileContext", first_use: "tree_sitter.Node", block: str) -> None:
    """Insert ``block`` (text ending in the file's line ending) before the file-scope declaration
    holding ``first_use`` (see :func:`definition_offset`); the edit goes to ``ctx.result.edits``.
    Call it once per block and file."""
    offset = definition_offset(ctx, first_use)
    ctx.result.edits.append(Edit(offset, offset, block.encode()))


def _declares(ctx: "_FileContext", name: bytes) -> bool:
    """The file declares ``name`` itself: a function declarator or a ``#define`` of it."""
    if re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + rb"\b", ctx.source, re.MULTILINE):
        return True
    for match in re.finditer(rb"(?<![A-Za-z0-9_$])" + re.escape(name) + rb"(?![A-Za-z0-9_$])", ctx.source):
        node = ctx.node_at(match.start(), match.end())
        if node.type == "identifier" and node.parent is not None and node.parent.type == "function_declarator":
            return True
    return False


def analyze_port_definitions(ctx: "_FileContext") -> None:
    """Define, once in the file, each device function of ``rules/definitions/device_functions.yaml`` the file
    uses, and report HP2042 at each use (see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after
            :func:`hipport.analyze._rewrite_identifiers` has renamed the names (through the
            mappings of ``rules/cuda_device.yaml``). An entry whose names the rules do not map to
            the entry's names (``--rules`` replaced them) is skipped: its calls are not renamed.
            Edits go to ``ctx.result.edits``, findings to ``ctx.result.findings``.
    """
    for entry in port_definitions():
        if not any(name.encode() in ctx.source for name in entry.names):
            continue
        if any((mapping := ctx.rules.identifiers.get(cuda)) is None or mapping.hip != hip
               for cuda, hip in entry.names.items()):
            continue
        if any(_declares(ctx, cuda.encode()) for cuda in entry.names):
            continue
        pattern = re.compile(rb"(?<![A-Za-z0-9_$])(?:" + b"|".join(re.escape(n.encode()) for n in entry.names)
                             + rb")(?![A-Za-z0-9_$])")
        first: "tree_sitter.Node | None" = None
        for match in pattern.finditer(ctx.source):
            node = ctx.node_at(match.start(), match.end())
            if node.type in _MACRO_BODIES:
                if not ctx.in_macro_code(node, match.start()):
                    continue
            elif node.type != "identifier" or (node.start_byte, node.end_byte) != match.span():
                continue  # a comment, a string, part of another token
            first = first or node
            cuda = match.group().decode()
            ctx.report("port-defined", ctx.point(match.start()), name=cuda, hip=entry.names[cuda],
                       what=entry.what)
        if first is not None:
            insert_once(ctx, first, entry.block(file_newline(ctx)))
