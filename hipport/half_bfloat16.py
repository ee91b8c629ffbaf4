"""Conversions between ``__half`` and ``__nv_bfloat16`` (HP1218).

CUDA 12.4 converts one 16-bit float type to the other with a cast (``static_cast<__half>(b)``:
cuda_fp16.hpp gives ``__half`` a constructor from ``__nv_bfloat16`` through its float
conversion). In HIP 6.4.3 ``__half`` (hip/amd_detail/amd_hip_fp16.h) has constructors from
every arithmetic type and ``__hip_bfloat16`` (hip/amd_detail/amd_hip_bf16.h) converts to several
of them, so the same cast is ambiguous for clang ("conversion from '__hip_bfloat16' to '__half'
is ambiguous"). HIP's explicit functions do it: ``__float2half(__bfloat162float(b))`` and
``__float2bfloat16(__half2float(h))``.

With ``convert --fix`` a cast of a value of one type to the other is rewritten to CUDA 12.4's
own definition of that conversion (cuda_bf16.h line 4269, ``__nv_bfloat16(const __half f)``:
``__float2bfloat16(__half2float(f))``; line 4792, ``__half::__half(const __nv_bfloat16 f)``:
``__float2half_rn(__bfloat162float(f))``; on sm_90 one ``cvt.rn`` instruction, the same value
since the conversion to float is exact and the one rounding is to nearest even), with HIP 6.4.3's
functions of those names (amd_hip_fp16.h lines 668 and 736, amd_hip_bf16.h lines 504 and 513,
all ``__host__ __device__``, rounding to nearest even)::

    static_cast<__half>(b)   ->  __float2half_rn(__bfloat162float(b))
    (__nv_bfloat16)h         ->  __float2bfloat16(__half2float(h))

and reported as HP2044 (info) in place of HP1218. The values are CUDA's for every number,
infinity and zero; only the payload bits of a NaN may differ (HIP keeps a quiet NaN's high
payload bits, CUDA's sm_80 and newer conversions give the canonical NaN), which is why it is a
``--fix`` rewrite. Without ``--fix`` the cast keeps its HP1218.

A call naming both types in its template arguments (``recast<__half, __nv_bfloat16>(...)``) of a
function template the file defines gets, under ``--fix``, each ``static_cast<T>(v)`` of the file's
function templates whose ``T`` is a template parameter renamed to ``hipport_convert<T>(v)``,
defined once before the first such template (:data:`CONVERT_BLOCK`): ``static_cast`` for every
pair of types except from one of ``__half`` and ``__hip_bfloat16`` to the other, which converts
through float as above (HP2044 at the call). A call of a template defined elsewhere keeps HP1218.

Reported (nothing is rewritten):

- without ``--fix``, a cast (``static_cast<T>(v)`` or ``(T)v``) to one of the two types of a
  value the file's declarations (:class:`hipport.handle_types.Declarations`) give the other type;
- a call with a template argument list that names both types (``convert<half,
  __nv_bfloat16>(n)``, a kernel launch ``cvt<__half, __nv_bfloat16><<<g, b>>>(...)``): a generic
  cast inside the template is instantiated with the pair, and clang's error there carries this
  call in its instantiation notes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .edits import Edit
from .handle_types import Declarations
from .port_definitions import file_newline, insert_once

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

#: CUDA's spellings of the two types (cuda_fp16.h, cuda_bf16.h).
HALF = frozenset({"__half", "half"})
BFLOAT16 = frozenset({"__nv_bfloat16", "nv_bfloat16"})
_PREFILTER = re.compile(rb"bfloat16")


def _kind(type_text: str) -> str | None:
    type_text = " ".join(type_text.replace("const", " ").split())
    return "half" if type_text in HALF else "bfloat16" if type_text in BFLOAT16 else None


#: CUDA 12.4's conversion to each type from the other, as (opening, closing) around the value.
_THROUGH_FLOAT = {"half": ("__float2half_rn(__bfloat162float(", "))"),
                  "bfloat16": ("__float2bfloat16(__half2float(", "))")}


def _rewrite_through_float(ctx: "_FileContext", cast: "tree_sitter.Node", value: "tree_sitter.Node",
                           target: str) -> str:
    """Replace the cast's text around ``value`` by CUDA's conversion through float; edits of other
    passes inside the replaced text (the rename of the type name) are dropped. Returns the
    rewritten form for the finding (with ``v`` for the value)."""
    opening, closing = _THROUGH_FLOAT[target]
    replaced = ((cast.start_byte, value.start_byte), (value.end_byte, cast.end_byte))
    ctx.result.edits[:] = [e for e in ctx.result.edits
                           if not any(start <= e.start and e.end <= end
                                      and not (e.start == e.end and e.start in (start, end))
                                      for start, end in replaced)]
    ctx.result.edits.append(Edit(cast.start_byte, value.start_byte, opening.encode()))
    ctx.result.edits.append(Edit(value.end_byte, cast.end_byte, closing.encode()))
    return f"{opening}{ctx.text(value).decode()}{closing}"


#: What --fix defines once in a file whose templates it rewrites (``{nl}``: the file's line ending).
CONVERT_BLOCK = (
    "#ifndef HIPPORT_CONVERT_DEFINED{nl}"
    "#define HIPPORT_CONVERT_DEFINED{nl}"
    "#include <type_traits>{nl}"
    "/* hipport (HP2044): static_cast<To>(value), except from one of __half and bfloat16 to the other, which goes{nl}"
    "   through float as CUDA 12.4's cuda_bf16.h defines it (the cast is ambiguous in HIP 6.4) */{nl}"
    "template <typename hipport_To, typename hipport_From> struct hipport_conversion {{nl}"
    "  template <typename hipport_Value> static __host__ __device__ hipport_To hipport_apply(hipport_Value &&hipport_value) {{nl}"
    "    return static_cast<hipport_To>(static_cast<hipport_Value &&>(hipport_value));{nl}"
    "  }{nl}"
    "};{nl}"
    "template <> struct hipport_conversion<__half, __hip_bfloat16> {{nl}"
    "  static __host__ __device__ __half hipport_apply(const __hip_bfloat16 &hipport_value) {{nl}"
    "    return __float2half_rn(__bfloat162float(hipport_value));{nl}"
    "  }{nl}"
    "};{nl}"
    "template <> struct hipport_conversion<__hip_bfloat16, __half> {{nl}"
    "  static __host__ __device__ __hip_bfloat16 hipport_apply(const __half &hipport_value) {{nl}"
    "    return __float2bfloat16(__half2float(hipport_value));{nl}"
    "  }{nl}"
    "};{nl}"
    "template <typename hipport_To, typename hipport_Value> __host__ __device__ inline hipport_To hipport_convert(hipport_Value &&hipport_value) {{nl}"
    "  return hipport_conversion<typename std::remove_cv<hipport_To>::type,{nl}"
    "                            typename std::remove_cv<typename std::remove_reference<hipport_Value>::type>::type>::hipport_apply({nl}"
    "      static_cast<hipport_Value &&>(hipport_value));{nl}"
    "}{nl}"
    "#endif{nl}")


def _function_templates(ctx: "_FileContext") -> list[tuple[str, "tree_sitter.Node", set[str]]]:
    """(function name, template_declaration, type parameter names) for each function template the
    file defines."""
    found = []
    stack = [ctx.root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "template_declaration":
            continue
        definition = next((c for c in node.named_children if c.type == "function_definition"), None)
        parameters = node.child_by_field_name("parameters")
        if definition is None or parameters is None:
            continue
        names = {ctx.text(p.named_children[-1]).decode() for p in parameters.named_children
                 if p.type == "type_parameter_declaration" and p.named_children
                 and p.named_children[-1].type == "type_identifier"}
        declarator = definition.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in ("identifier", "field_identifier", "qualified_identifier"):
            declarator = declarator.child_by_field_name("declarator")
        if declarator is not None and names:
            found.append((ctx.text(declarator).decode(), node, names))
    return found


def _convert_templates(ctx: "_FileContext", called: str) -> bool:
    """With --fix, for a call ``called<..., __half, ..., __nv_bfloat16, ...>`` of a function template
    the file defines: rename each ``static_cast<T>`` of the file's function templates whose ``T``
    is one of that template's type parameters to ``hipport_convert<T>`` (once per file) and define
    it before the first one (:data:`CONVERT_BLOCK`). Returns False, editing nothing, when the file
    does not define ``called`` as a function template (the cast is elsewhere: HP1218 stays)."""
    templates = _function_templates(ctx)
    if not any(name == called for name, _, _ in templates):
        return False
    if any(edit.text.startswith(b"#ifndef HIPPORT_CONVERT_DEFINED") for edit in ctx.result.edits):
        return True  # an earlier call of this file did it
    first = None
    for _, template, names in templates:
        stack = [template]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            if node.type != "template_function" or ctx.text(node.child_by_field_name("name")) != b"static_cast":
                continue
            arguments = node.child_by_field_name("arguments")
            types = [a for a in arguments.named_children if a.type == "type_descriptor"]
            if len(types) != 1 or ctx.text(types[0]).decode().strip() not in names:
                continue
            cast = node.child_by_field_name("name")
            ctx.result.edits.append(Edit(cast.start_byte, cast.end_byte, b"hipport_convert"))
            first = first or template
    if first is not None:
        insert_once(ctx, first, CONVERT_BLOCK.replace("{nl}", file_newline(ctx)))
    return True


def _advice(target: str) -> str:
    if target == "half":
        return "Convert through float with HIP's functions: __float2half(__bfloat162float(v))"
    return "Convert through float with HIP's functions: __float2bfloat16(__half2float(v))"


def analyze_half_bfloat16(ctx: "_FileContext", fix: bool = False) -> None:
    """Report (HP1218) each conversion between the half and bfloat16 types hipport can see in one
    file; with ``fix``, rewrite the casts through float instead (HP2044).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after the
            identifier renames; findings go to ``ctx.result.findings``, edits (only with ``fix``)
            to ``ctx.result.edits``.
        fix: ``convert --fix``.
    """
    if _PREFILTER.search(ctx.source) is None:
        return
    declarations: Declarations | None = None
    stack = [ctx.root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        target_text = value = None
        if node.type == "cast_expression":
            target_text, value = ctx.text(node.child_by_field_name("type")).decode(), node.child_by_field_name("value")
        elif node.type == "call_expression":
            function = node.child_by_field_name("function")
            if function is not None and function.type == "template_function":
                name = function.child_by_field_name("name")
                arguments = function.child_by_field_name("arguments")
                kinds = [_kind(ctx.text(a).decode()) for a in arguments.named_children if a.type == "type_descriptor"]
                if ctx.text(name) == b"static_cast":
                    call_arguments = node.child_by_field_name("arguments").named_children
                    if arguments.named_children and call_arguments:
                        target_text, value = ctx.text(arguments.named_children[0]).decode(), call_arguments[0]
                elif "half" in kinds and "bfloat16" in kinds and fix and _convert_templates(ctx, ctx.text(name).decode()):
                    ctx.report("half-bfloat16-converted", node, name=ctx.text(name).decode(),
                               what="template arguments " + ctx.text(arguments).decode(),
                               rewritten="hipport_convert<T>(v) in place of static_cast<T>(v) in the file's templates "
                                         "(T a template parameter), which converts between the two through float")
                    continue
                elif "half" in kinds and "bfloat16" in kinds:
                    ctx.report("half-bfloat16-conversion", node, name=ctx.text(name).decode(),
                               what="template arguments " + ctx.text(arguments).decode(),
                               advice="Where the template casts one type to the other, convert through float: "
                               "__float2half(__bfloat162float(v)) or __float2bfloat16(__half2float(v))")
                    continue
        if value is None:
            continue
        target = _kind(target_text)
        if target is None:
            continue
        if declarations is None:
            declarations = Declarations(ctx)
        inner = value
        while inner.type == "parenthesized_expression" and inner.named_children:
            inner = inner.named_children[0]
        depth = 0
        while inner.type == "subscript_expression":
            inner, depth = inner.child_by_field_name("argument"), depth + 1
        if inner.type != "identifier":
            continue
        entries = declarations.of(inner.text, inner)
        if len(entries) != 1:
            continue
        ((type_text, declared_depth),) = entries
        source = _kind(type_text)
        if declared_depth == depth and source is not None and source != target and fix:
            rewritten = _rewrite_through_float(ctx, node, value, target)
            ctx.report("half-bfloat16-converted", node, name=target_text.strip(),
                       what=f"cast of {ctx.text(value).decode()}, a {type_text}", rewritten=rewritten)
        elif declared_depth == depth and source is not None and source != target:
            ctx.report("half-bfloat16-conversion", node, name=target_text.strip(),
                       what=f"cast of {ctx.text(value).decode()}, a {type_text}", advice=_advice(target))
