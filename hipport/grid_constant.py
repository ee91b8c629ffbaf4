"""``__grid_constant__`` kernel parameters (HP1221): ported to a macro the port defines.

CUDA 11.7 added ``__grid_constant__``, a qualifier of a ``const`` by-value parameter of a
``__global__`` function: CUDA 12.4's ``crt/host_defines.h`` (line 216) defines it as
``__location__(grid_constant)``, and the CUDA C++ Programming Guide says that taking the address
of such a parameter gives the address of the kernel argument itself, in the parameter space that
the whole grid shares, instead of the address of a per-thread copy. HIP 6.4.3 does not define it
(no header under ``hip/`` names it, nor clang 19's ``__clang_hip_*.h``), so a port that keeps it
does not compile for AMD ("unknown type name '__grid_constant__'").

The port writes ``HIPPORT_GRID_CONSTANT`` in its place (the ``rules/cuda_macros.yaml`` mapping
renames it in ``#define`` bodies; tree-sitter-cuda parses it in code as a type qualifier
keyword, which this module renames) and defines the macro once in the file, before the file-scope
declaration that holds the first use (inside an include guard that wraps the whole file), where a
file that includes HIP before its code, as ported files do, knows ``__HIP_PLATFORM_NVIDIA__``
(``hip/hip_common.h`` defines it under nvcc)::

    #ifndef HIPPORT_GRID_CONSTANT
    #if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */
    #define HIPPORT_GRID_CONSTANT __grid_constant__
    #else /* hipport (HP1221): HIP on AMD has no __grid_constant__ */
    #define HIPPORT_GRID_CONSTANT
    #endif
    #endif

On NVIDIA the meaning is kept. On AMD the parameter is an ordinary ``const`` parameter passed by
value: what it holds is the same, but taking its address (``&p``, a pointer or reference to it or
to one of its members) yields the address of a copy, not of the kernel argument shared by the
grid; each use is reported (HP1221) so that code comparing or publishing such addresses is looked
at.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .edits import Edit
from .port_definitions import file_newline, insert_once

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

CUDA_NAME = "__grid_constant__"
#: The definitions the port inserts (``{macro}``: the mapping's HIP name; ``{nl}``: the file's
#: line ending).
DEFINITION_BLOCK = ("#ifndef {macro}{nl}"
                    "#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */{nl}"
                    "#define {macro} __grid_constant__{nl}"
                    "#else /* hipport (HP1221): HIP on AMD has no __grid_constant__ */{nl}"
                    "#define {macro}{nl}"
                    "#endif{nl}"
                    "#endif{nl}")
_NAME = re.compile(rb"(?<![A-Za-z0-9_$])__grid_constant__(?![A-Za-z0-9_$])")
_MACRO_BODIES = ("preproc_arg",)


def _parameter_name(node: "tree_sitter.Node") -> str:
    """The name a ``parameter_declaration`` around ``node`` declares, or "" when there is none."""
    parameter = node.parent
    while parameter is not None and parameter.type not in ("parameter_declaration", "optional_parameter_declaration"):
        parameter = parameter.parent
    if parameter is None:
        return ""
    declarator = parameter.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "identifier":
        declarator = declarator.child_by_field_name("declarator") or (
            declarator.named_children[0] if declarator.named_children else None)
    return declarator.text.decode("utf-8", "replace") if declarator is not None else ""


def analyze_grid_constant(ctx: "_FileContext") -> None:
    """Rename each ``__grid_constant__`` of the file's code, define its replacement once, and
    report HP1221 at each use (see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after
            :func:`hipport.analyze._rewrite_identifiers` (which renames the name in ``#define``
            bodies through the mapping). Edits go to ``ctx.result.edits``, findings to
            ``ctx.result.findings``. Nothing is done when the rules have no mapping for the name
            (``--rules`` may not remove it, but a rule set built without ``cuda_macros`` may).
    """
    if b"__grid_constant__" not in ctx.source:
        return
    mapping = ctx.rules.identifiers.get(CUDA_NAME)
    if mapping is None or not mapping.hip:
        return
    macro = mapping.hip
    first: "tree_sitter.Node | None" = None
    for match in _NAME.finditer(ctx.source):
        node = ctx.node_at(match.start(), match.end())
        if node.type == CUDA_NAME:  # the qualifier keyword of tree-sitter-cuda, in code
            ctx.result.edits.append(Edit(match.start(), match.end(), macro.encode()))
            parameter = _parameter_name(node)
            where = f"parameter {parameter}" if parameter else "this declaration"
        elif node.type in _MACRO_BODIES and ctx.in_macro_code(node, match.start()):
            where = "the parameters this macro qualifies"
        else:
            continue  # a comment, a string, an #error line
        if first is None:
            first = node
        ctx.report("grid-constant", ctx.point(match.start()), name=CUDA_NAME, macro=macro, where=where)
    if first is not None:
        insert_once(ctx, first, DEFINITION_BLOCK.format(macro=macro, nl=file_newline(ctx)))
