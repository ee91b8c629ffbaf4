"""Cooperative-groups shuffles of values that are not integers or floating point (HP1217).

CUDA 12.4's ``thread_block_tile`` and ``coalesced_group`` shuffles (``shfl``, ``shfl_up``,
``shfl_down``, ``shfl_xor``) take any trivially copyable type (cooperative_groups/details/
helpers.h moves a larger value as 32-bit words). HIP 6.4.3's take integral and floating-point
types only: each starts with ``static_assert(is_valid_type<T>::value, "Neither an integer or float
type.")`` (hip/amd_detail/amd_hip_cooperative_groups.h:411-459 for ``coalesced_group`` and
682-699 for ``thread_block_tile``; ``is_valid_type`` is ``std::is_integral || std::is_floating_point``,
hip/amd_detail/hip_cooperative_groups_helper.h:78-80). A shuffle of a ``uint4``, a ``__half2`` or a
struct therefore stops the HIP compile inside HIP's header, with the call only in an
"instantiation requested here" note.

Reported at the call ``g.shfl*(v, ...)`` when ``g`` is a ``thread_block_tile`` or
``coalesced_group`` (read as :mod:`hipport.group_members` reads group objects) and the type of
``v`` is known from the file's declarations (:class:`hipport.handle_types.Declarations`: a
variable of the enclosing function or file scope, an array element, a member of a struct of the
file) to be a CUDA vector type (``uint4``, ``float2`` ...), a half or bfloat16 type, or a struct,
class or union the file defines. An ``int``, ``float``, a typedef or a type hipport cannot see is
not reported.

With ``convert --fix`` a shuffle of a CUDA vector type (``uint4``, ``float2``, ``int3`` ...) is
rewritten to a function the port defines once in the file (:func:`hipport.port_definitions.insert_once`)
and reported as HP2045 (info) in place of HP1217::

    tile.shfl_xor(v, 1)   ->  hipport_shfl_xor(tile, v, 1)

On AMD the function shuffles each component from the same source lane (the lane depends only on
the group, the lane argument and the width, never on the value) and builds the vector again,
which is what CUDA's shuffle of the whole value as 32-bit words gives; the arguments are
evaluated once, as in the call. In C++ every HIP vector type is ``HIP_vector_type<T, N>``
(amd_hip_vector_types.h line 1157, ``__MAKE_VECTOR_TYPE__``), so one template per shuffle covers
them all. Where the port is compiled as HIP on NVIDIA it calls the group's own shuffle. Half,
bfloat16 and struct values keep HP1217.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import contains_any
from .group_members import _PREFILTER as _GROUP_PREFILTER
from .group_members import _group_of_object, _Scopes
from .edits import Edit
from .handle_types import Declarations
from .port_definitions import file_newline, insert_once

if TYPE_CHECKING:
    from .analyze import _FileContext

#: The shuffles HIP 6.4.3 restricts to integral and floating-point types, and the group classes
#: that have them (amd_hip_cooperative_groups.h:411-459, 682-699).
SHUFFLES = frozenset({"shfl", "shfl_up", "shfl_down", "shfl_xor"})
GROUPS = frozenset({"thread_block_tile", "coalesced_group"})
_VECTOR = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])$")
_HALF = frozenset({"__half", "__half2", "half", "half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16",
                   "nv_bfloat162", "__half_raw", "__half2_raw"})
_CALL = re.compile(rb"(?:\.|->)\s*(shfl(?:_up|_down|_xor)?)\s*\(")
_RECORDS = frozenset({"struct_specifier", "class_specifier", "union_specifier"})
#: The definitions --fix inserts before the first rewritten shuffle (``{nl}``: the file's line ending).
SHUFFLE_BLOCK = (
    "#ifndef HIPPORT_GROUP_SHUFFLES_DEFINED{nl}"
    "#define HIPPORT_GROUP_SHUFFLES_DEFINED{nl}"
    "#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: the group's own shuffle, any type */{nl}"
    "#define HIPPORT_GROUP_SHUFFLE(op) \\{nl}"
    "  template <typename hipport_Group, typename hipport_T, typename... hipport_Args> \\{nl}"
    "  __device__ inline hipport_T hipport_##op(const hipport_Group &hipport_group, const hipport_T &hipport_value, hipport_Args... hipport_args) { \\{nl}"
    "    return hipport_group.op(hipport_value, hipport_args...); \\{nl}"
    "  }{nl}"
    "#else /* hipport (HP2045): HIP 6.4.3's group shuffles take integers and floating point only: "
    "one shuffle per component, from the same lane */{nl}"
    "#define HIPPORT_GROUP_SHUFFLE(op) \\{nl}"
    "  template <typename hipport_Group, typename hipport_T, unsigned int hipport_N, typename... hipport_Args> \\{nl}"
    "  __device__ inline HIP_vector_type<hipport_T, hipport_N> hipport_##op(const hipport_Group &hipport_group, const HIP_vector_type<hipport_T, hipport_N> &hipport_value, \\{nl}"
    "                                                      hipport_Args... hipport_args) { \\{nl}"
    "    HIP_vector_type<hipport_T, hipport_N> hipport_result = hipport_value; \\{nl}"
    "    for (unsigned int hipport_i = 0; hipport_i < hipport_N; ++hipport_i) hipport_result.data[hipport_i] = hipport_group.op(static_cast<hipport_T>(hipport_value.data[hipport_i]), hipport_args...); \\{nl}"
    "    return hipport_result; \\{nl}"
    "  }{nl}"
    "#endif{nl}"
    "HIPPORT_GROUP_SHUFFLE(shfl){nl}"
    "HIPPORT_GROUP_SHUFFLE(shfl_up){nl}"
    "HIPPORT_GROUP_SHUFFLE(shfl_down){nl}"
    "HIPPORT_GROUP_SHUFFLE(shfl_xor){nl}"
    "#undef HIPPORT_GROUP_SHUFFLE{nl}"
    "#endif{nl}")


def _records(ctx: "_FileContext") -> set[str]:
    """Names of the structs, classes and unions the file defines (with a body), typedef names of
    such a body included."""
    names: set[str] = set()
    stack = [ctx.root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type in _RECORDS and node.child_by_field_name("body") is not None:
            name = node.child_by_field_name("name")
            if name is not None:
                names.add(ctx.text(name).decode())
            parent = node.parent
            if parent is not None and parent.type == "type_definition":
                for declarator in parent.children_by_field_name("declarator"):
                    if declarator.type == "type_identifier":
                        names.add(ctx.text(declarator).decode())
    return names


def _value_type(declarations: Declarations, node) -> str | None:
    """The declared type of expression ``node`` (a variable, an element of an array or pointer
    variable, a member), or None when the declarations do not say one type."""
    depth = 0
    while True:
        if node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        elif node.type == "subscript_expression":
            node, depth = node.child_by_field_name("argument"), depth + 1
        else:
            break
    if node.type == "identifier":
        entries = declarations.of(node.text, node)
    elif node.type == "field_expression":
        field = node.child_by_field_name("field")
        entries = declarations.field(field.text) if field is not None else set()
    else:
        return None
    if len(entries) != 1:
        return None
    ((type_text, declared_depth),) = entries
    return type_text.replace("struct ", "").replace("class ", "").strip() if declared_depth == depth else None


def analyze_group_shuffles(ctx: "_FileContext", fix: bool = False) -> None:
    """Report (HP1217) each cooperative-groups shuffle of a vector, half or struct value in one
    file; with ``fix``, rewrite those of vector values instead (HP2045, see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``, edits (only with ``fix``) to ``ctx.result.edits``.
        fix: ``convert --fix``.
    """
    first_rewritten = None
    source = ctx.source
    if b"shfl" not in source or not contains_any(source, _GROUP_PREFILTER):
        return
    scopes = _Scopes(source)
    declarations: Declarations | None = None
    records: set[str] | None = None
    for match in _CALL.finditer(source):
        start, end = match.span(1)
        field = ctx.node_at(start, end)
        expression = field.parent
        call = expression.parent if expression is not None else None
        if (field.type != "field_identifier" or expression.type != "field_expression" or call is None
                or call.type != "call_expression" or call.child_by_field_name("function") != expression):
            continue
        arguments = call.child_by_field_name("arguments")
        obj = expression.child_by_field_name("argument")
        if arguments is None or not arguments.named_children or obj is None:
            continue
        found = _group_of_object(ctx, scopes, obj, call)
        if found is None or found[0] not in GROUPS:
            continue
        if declarations is None:
            declarations, records = Declarations(ctx), _records(ctx)
        value = arguments.named_children[0]
        type_text = _value_type(declarations, value)
        if type_text is None:
            continue
        vector = _VECTOR.match(type_text)
        if vector and fix:
            shuffle = match.group(1).decode()
            _rewrite_shuffle(ctx, call, expression, obj, arguments, shuffle)
            first_rewritten = first_rewritten or call
            ctx.report("group-shuffle-components", call, name=shuffle, group=found[0], type=type_text,
                       value=ctx.text(value).decode())
            continue
        if vector:
            count = int(vector.group(1))
            shown, group, shuffle = ctx.text(value).decode(), ctx.text(obj).decode(), match.group(1).decode()
            advice = "Shuffle each component: " + "; ".join(
                f"{shown}.{c} = {group}.{shuffle}({shown}.{c}, ...)" for c in "xyzw"[:count])
        elif type_text in _HALF:
            advice = "Shuffle the value as float (__half2float/__float2half), or its bits as an unsigned short/int"
        elif type_text in records:
            advice = "Shuffle each member of the struct (or its bytes as 32-bit words) and build the value again"
        else:
            continue
        ctx.report("group-shuffle-type", call, name=match.group(1).decode(), group=found[0], type=type_text,
                   value=ctx.text(value).decode(), advice=advice)
    if first_rewritten is not None:
        insert_once(ctx, first_rewritten, SHUFFLE_BLOCK.replace("{nl}", file_newline(ctx)))


def _rewrite_shuffle(ctx: "_FileContext", call, expression, obj, arguments, shuffle: str) -> None:
    """``g.shfl_xor(v, m)`` -> ``hipport_shfl_xor(g, v, m)`` (``p->shfl(v, l)`` ->
    ``hipport_shfl(*(p), v, l)``): an insertion before the group object and a replacement of the
    text from its end to the argument list's ``(``, so edits inside the arguments still apply."""
    through_pointer = ctx.text(expression)[obj.end_byte - expression.start_byte:].lstrip().startswith(b"->")
    opening = f"hipport_{shuffle}(" + ("*(" if through_pointer else "")
    ctx.result.edits.append(Edit(obj.start_byte, obj.start_byte, opening.encode()))
    ctx.result.edits.append(Edit(obj.end_byte, arguments.start_byte + 1, b"), " if through_pointer else b", "))
