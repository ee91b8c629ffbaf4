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
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .group_members import _PREFILTER as _GROUP_PREFILTER
from .group_members import _group_of_object, _Scopes
from .handle_types import Declarations

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


def analyze_group_shuffles(ctx: "_FileContext") -> None:
    """Report (HP1217) each cooperative-groups shuffle of a vector, half or struct value in one file.

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`); findings
            go to ``ctx.result.findings``. Nothing is edited.
    """
    source = ctx.source
    if b"shfl" not in source or _GROUP_PREFILTER.search(source) is None:
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
