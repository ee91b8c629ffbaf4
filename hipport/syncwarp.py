"""``__syncwarp`` with ``convert --fix``: rewritten to what HIP 7.0 defines it as (HP1115).

HIP 6.x does not declare ``__syncwarp`` (HIP 6.4.3's ``hip/amd_detail/amd_warp_sync_functions.h``
has the ``*_sync`` shuffles, votes and matches but no ``__syncwarp``), so a port calling it does not
compile there (HP1108 without ``--fix``). HIP 7.0 adds it in the same header
(ROCm/clr ``hipamd/include/hip/amd_detail/amd_warp_sync_functions.h``)::

    __device__ inline void __syncwarp() {
      __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
      __builtin_amdgcn_wave_barrier();
      __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
    }
    template <typename MaskT> __device__ inline void __syncwarp(MaskT mask) {
      static_assert(... sizeof(MaskT) == 8, "The mask must be a 64-bit integer. ...");
      __hip_check_mask(mask);
      return __syncwarp();
    }

``--fix`` renames the call to a macro that it defines once in the file, before the first
function that calls it (``#ifndef``-guarded, so a header and its includer may both have it): on
AMD it is that body, as one expression, so it compiles with HIP 6 and HIP 7 alike and holds at
every wavefront width (the fences and the wave barrier are of the wavefront, whatever its width);
where the port is compiled as HIP on NVIDIA (nvcc, ``hipport build --platform nvidia``) it is
CUDA's own ``__syncwarp``, mask included::

    __syncwarp();      ->  HIPPORT_SYNCWARP();
    __syncwarp(mask);  ->  HIPPORT_SYNCWARP_MASK(mask);

    #if defined(__HIP_PLATFORM_NVIDIA__)  (hip/hip_common.h defines it under nvcc; the port includes HIP first)
    #define HIPPORT_SYNCWARP() __syncwarp()
    #define HIPPORT_SYNCWARP_MASK(mask) __syncwarp(mask)
    #else
    #define HIPPORT_SYNCWARP() (__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"),
                                __builtin_amdgcn_wave_barrier(),
                                __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))
    #define HIPPORT_SYNCWARP_MASK(mask) ((void)(mask), HIPPORT_SYNCWARP())
    #endif

On AMD the mask is still evaluated (its side effects stay) but not checked: the three calls order
the memory of every lane of the wavefront, a superset of the lanes any mask names, and a CUDA
mask (``0xffffffff``, 32 lanes) would fail HIP 7's ``__hip_check_mask`` on a 64-wide wavefront
whose 64 lanes all call it. Only the name is edited, so the wavefront pass (:mod:`hipport.warp`)
may still widen the mask; that is right either way (CUDA's ``__syncwarp`` takes the low 32 bits).

Rewritten only where the result is sure to compile: a call of ``__syncwarp`` written in the code
(not in a macro body) of a ``__global__`` or ``__device__`` function (a ``__host__ __device__``
function is compiled for the host too, where the AMD builtins do not exist), in a file that does
not declare or define ``__syncwarp`` itself (a project's own fallback keeps being called).
Everything else keeps its HP1108 warning.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tree_sitter

from .device_context import function_kind
from .edits import Edit
from .port_definitions import shield_from_macros

if TYPE_CHECKING:
    from .analyze import _FileContext

#: What HIP 7.0's ``__syncwarp()`` does, as one expression (the module docstring cites the header).
HIP7_SYNCWARP_BODY = (b'__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
                      b'__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront")')
SYNCWARP_MACRO, SYNCWARP_MASK_MACRO = b"HIPPORT_SYNCWARP", b"HIPPORT_SYNCWARP_MASK"
#: The definitions --fix inserts (``{nl}``: the file's line ending).
SYNCWARP_BLOCK = (b"#ifndef HIPPORT_SYNCWARP{nl}"
                  b"#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */{nl}"
                  b"#define HIPPORT_SYNCWARP() __syncwarp(){nl}"
                  b"#define HIPPORT_SYNCWARP_MASK(mask) __syncwarp(mask){nl}"
                  b"#else /* hipport --fix: __syncwarp as HIP 7.0 defines it (amd_warp_sync_functions.h); HIP 6 has none */{nl}"
                  b"#define HIPPORT_SYNCWARP() (" + HIP7_SYNCWARP_BODY + b"){nl}"
                  b"#define HIPPORT_SYNCWARP_MASK(mask) ((void)(mask), HIPPORT_SYNCWARP()){nl}"
                  b"#endif{nl}"
                  b"#endif{nl}")

_SYNCWARP = re.compile(rb"(?<![A-Za-z0-9_$])__syncwarp(?![A-Za-z0-9_$])")
_OWN_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+__syncwarp\b", re.MULTILINE)
_DEVICE_KINDS = ("__global__", "__device__")


def _declares_syncwarp(ctx: "_FileContext") -> bool:
    """The file defines ``__syncwarp`` itself: a macro, or a function declarator of that name."""
    if _OWN_MACRO.search(ctx.source):
        return True
    for match in _SYNCWARP.finditer(ctx.source):
        node = ctx.node_at(match.start(), match.end())
        parent = node.parent
        if node.type == "identifier" and parent is not None and parent.type == "function_declarator":
            return True
    return False


def _enclosing_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    return parent


def _declaration_line_start(source: bytes, function: tree_sitter.Node) -> int:
    """Byte offset of the start of the line where the top-level (or namespace-level) declaration
    holding ``function`` begins (a template's ``template <...>`` line, a class's head)."""
    top = function
    while top.parent is not None and top.parent.type not in ("translation_unit", "declaration_list"):
        top = top.parent
    return source.rfind(b"\n", 0, top.start_byte) + 1


def analyze_syncwarp(ctx: "_FileContext", fix: bool) -> None:
    """With ``fix``, rewrite each ``__syncwarp()`` / ``__syncwarp(mask)`` call of device code to
    HIP 7.0's definition of it and report HP1115 in place of its HP1108.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); the
            rewrites go to ``ctx.result.edits`` (two edits per call with a mask, around the mask's
            text, so an edit of the mask itself by :mod:`hipport.warp` still applies), findings to
            ``ctx.result.findings``, whose HP1108 for the same call (reported from
            ``rules/constructs.yaml``) is removed.
        fix: ``convert --fix``; without it nothing is done (HP1108 stays).
    """
    if not fix or b"__syncwarp" not in ctx.source or _declares_syncwarp(ctx):
        return
    rewritten: set[tuple[int, int]] = set()
    first_function: tree_sitter.Node | None = None
    for match in _SYNCWARP.finditer(ctx.source):
        name = ctx.node_at(match.start(), match.end())
        call = name.parent
        if name.type != "identifier" or call is None or call.type != "call_expression" \
                or call.child_by_field_name("function") != name:
            continue
        function = _enclosing_function(call)
        if function is None or function_kind(ctx, function) not in _DEVICE_KINDS:
            continue
        arguments = call.child_by_field_name("arguments")
        values = [child for child in arguments.named_children if child.type != "comment"]
        if len(values) > 1:
            continue
        if values:
            ctx.result.edits.append(Edit(name.start_byte, name.end_byte, SYNCWARP_MASK_MACRO))
            form = f"__syncwarp({ctx.text(values[0]).decode('utf-8', 'replace')})"
            note = " (its mask evaluated, not checked: the fences order every lane of the wavefront)"
        else:
            ctx.result.edits.append(Edit(name.start_byte, name.end_byte, SYNCWARP_MACRO))
            form, note = "__syncwarp()", ""
        if first_function is None:
            first_function = function
        rewritten.add((name.start_point[0] + 1, name.start_point[1] + 1))
        ctx.report("syncwarp-fixed", call, name=form, note=note)
    if first_function is not None:
        offset = _declaration_line_start(ctx.source, first_function)
        newline = b"\r\n" if b"\r\n" in ctx.source[:ctx.source.find(b"\n") + 1] else b"\n"
        ctx.result.edits.append(Edit(offset, offset, shield_from_macros(ctx.source, offset,
                                                                      SYNCWARP_BLOCK.replace(b"{nl}", newline))))
    if rewritten:
        reported = ctx.rules.check("syncwarp").id
        ctx.result.findings[:] = [f for f in ctx.result.findings
                                  if not (f.rule_id == reported and (f.line, f.column) in rewritten)]
