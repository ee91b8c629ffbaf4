"""Member functions of the cooperative groups that HIP spells otherwise or lacks.

CUDA 12 gave the group classes members that HIP 6.4.3's ``hip/amd_detail/
amd_hip_cooperative_groups.h`` does not declare: ``num_threads()`` on every group (HIP has
``size()``, same number), ``thread_block::dim_threads()`` (HIP: ``group_dim()``), the split
``barrier_arrive``/``barrier_wait`` barrier, the grid's block queries (``block_rank``,
``num_blocks``...) and ``thread_group::get_type``. The rules match free names only, so such a
call would be ported as written and fail to compile. The facts are the ``members:`` entries of
``rules/cooperative_groups.yaml`` (:class:`hipport.rules.GroupMember`).

A call ``obj.member(...)`` or ``obj->member(...)`` is handled when ``obj`` is a cooperative
group, read from the code around it:

- ``obj`` is a call that makes a group (``cg::this_grid().block_rank()``);
- or the last declaration of ``obj`` before the call whose scope (block, loop, lambda) holds
  the call, in the enclosing function (its parameters and lambdas included), declares a group: a type ``thread_block``, ``thread_group``,
  ``grid_group``, ``multi_grid_group``, ``thread_block_tile<...>``, ``coalesced_group`` or
  ``cluster_group`` qualified by ``cooperative_groups::`` or an alias of it (``namespace cg =
  cooperative_groups;``), or unqualified where the file has ``using namespace`` of it; or
  ``auto`` with such a group-making call as initialiser (``auto b = cg::this_thread_block();``,
  ``auto t = cg::tiled_partition<32>(b);``).

Declarations are found in the text as well as in the syntax tree, since tree-sitter reads
``cg::thread_block_tile<32> t = ...;`` inside a function body as a comparison. A member of the
same name of any other object (a project's ``pool.num_threads()``) is never touched, nor a call
inside a ``#define`` body.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .alternation import contains_any
from .edits import Edit

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext
    from .rules import GroupMember

_GROUP_TYPE = (rb"(?P<type>thread_block_tile\s*<[^;{}()]*?>|(?:thread_block|thread_group|grid_group|multi_grid_group"
               rb"|coalesced_group|cluster_group)\b)")
_QUALIFIER = rb"(?:(?:::\s*)?(?P<scope>[A-Za-z_]\w*)\s*::\s*)?"
#: The functions that make a group, and the class of what they return (CUDA 12.4
#: cooperative_groups.h; tiled_partition(parent, n) without a template size is a thread_group).
_MAKERS = {b"this_thread_block": "thread_block", b"this_grid": "grid_group", b"this_multi_grid": "multi_grid_group",
           b"coalesced_threads": "coalesced_group", b"binary_partition": "coalesced_group",
           b"this_cluster": "cluster_group"}
_MAKER = re.compile(_QUALIFIER + rb"(?P<maker>this_thread_block|this_grid|this_multi_grid|coalesced_threads"
                    rb"|binary_partition|this_cluster|tiled_partition)\s*(?P<template><)?")
_ALIAS = re.compile(rb"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::\s*)?cooperative_groups\s*;")
_USING = re.compile(rb"\busing\s+namespace\s+(?:::\s*)?([A-Za-z_]\w*)\s*;")
_PREFILTER = (b"thread_block", b"thread_group", b"grid_group", b"coalesced", b"tiled_partition", b"this_grid",
              b"cluster_group")
_DECLARATOR_PARENTS = frozenset({"init_declarator", "declaration", "parameter_declaration", "optional_parameter_declaration",
                                 "reference_declarator", "pointer_declarator", "array_declarator", "for_range_loop"})


class _Scopes:
    """Which qualifiers name ``cooperative_groups`` in one file."""

    def __init__(self, source: bytes):
        self.names = {b"cooperative_groups"} | {m.group(1) for m in _ALIAS.finditer(source)}
        self.unqualified = any(m.group(1) in self.names for m in _USING.finditer(source))

    def accepts(self, scope: bytes | None) -> bool:
        return scope in self.names if scope else self.unqualified


def _group_of_type(match: re.Match) -> str:
    kind = match.group("type").decode()
    return "thread_block_tile" if kind.startswith("thread_block_tile") else kind


def _group_of_maker(match: re.Match) -> str:
    maker = match.group("maker")
    if maker == b"tiled_partition":
        return "thread_block_tile" if match.group("template") else "thread_group"
    return _MAKERS[maker]


_SCOPES = frozenset({"compound_statement", "for_statement", "for_range_loop", "function_definition",
                     "lambda_expression", "catch_clause"})


def _enclosing_function(node: "tree_sitter.Node") -> "tree_sitter.Node | None":
    """The function definition around ``node`` (through any lambdas, whose bodies see its names)."""
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node


def _scope_of(ctx: "_FileContext", start: int) -> "tree_sitter.Node | None":
    """The innermost block, loop, lambda or function whose scope a declaration at byte ``start`` is in."""
    node = ctx.node_at(start, start + 1)
    while node is not None and node.type not in _SCOPES:
        node = node.parent
    return node


_CONST_BEFORE = re.compile(rb"\bconst\s*$")


def _declared_group(ctx: "_FileContext", scopes: _Scopes, name: bytes,
                    call: "tree_sitter.Node") -> tuple[str, bool] | None:
    """(group class, declared const) of the variable ``name`` at ``call``, or None when its
    last declaration before the call in the enclosing function is not a cooperative group (or
    there is none)."""
    function = _enclosing_function(call)
    if function is None:
        return None
    source = ctx.source
    lo, hi = function.start_byte, call.start_byte
    groups: dict[int, tuple[str, bool]] = {}
    typed = re.compile(_QUALIFIER + _GROUP_TYPE + rb"(?:\s*(?:const\b|volatile\b|&|\*))*\s*(?P<name>"
                       + re.escape(name) + rb")\s*(?=[=;,)({\[])")
    for match in typed.finditer(source, lo, hi):
        if scopes.accepts(match.group("scope")):
            const = (b"const" in source[match.end("type"):match.start("name")]
                     or _CONST_BEFORE.search(source, max(lo, match.start() - 16), match.start()) is not None)
            groups[match.start("name")] = (_group_of_type(match), const)
    automatic = re.compile(rb"\bauto\s*(?P<const>const\b\s*)?[&*]*\s*(?P<name>" + re.escape(name) + rb")\s*(?:=\s*|\{\s*)")
    for match in automatic.finditer(source, lo, hi):
        maker = _MAKER.match(source, match.end())
        if maker is not None and scopes.accepts(maker.group("scope")):
            const = bool(match.group("const")) or _CONST_BEFORE.search(
                source, max(lo, match.start() - 16), match.start()) is not None
            groups[match.start("name")] = (_group_of_maker(maker), const)
    declared = [*groups, *_tree_declarations(ctx, function, name, hi)]
    for start in sorted(declared, reverse=True):  # the nearest declaration whose scope holds the call
        scope = _scope_of(ctx, start)
        if scope is not None and scope.start_byte <= call.start_byte and call.end_byte <= scope.end_byte:
            return groups.get(start)
    return None


def _tree_declarations(ctx: "_FileContext", function: "tree_sitter.Node", name: bytes, before: int) -> list[int]:
    """Start bytes of the identifiers ``name`` that the syntax tree shows declared (a
    declarator of a declaration, parameter or range-for) in ``function`` before byte ``before``."""
    starts = []
    stack = [function]
    source = ctx.source
    while stack:
        node = stack.pop()
        if node.start_byte >= before:
            continue
        if node.type == "identifier":
            parent = node.parent
            if (parent is not None and parent.type in _DECLARATOR_PARENTS
                    and source[node.start_byte:node.end_byte] == name):
                field = parent.child_by_field_name("declarator")
                if parent.type in ("reference_declarator", "pointer_declarator") or (
                        field is not None and field.start_byte == node.start_byte):
                    starts.append(node.start_byte)
            continue
        stack.extend(node.children)
    return starts


def _group_of_object(ctx: "_FileContext", scopes: _Scopes, obj: "tree_sitter.Node",
                     call: "tree_sitter.Node") -> tuple[str, bool] | None:
    """(cooperative-group class, declared const) of the object expression ``obj``, or None."""
    text = ctx.text(obj)
    if obj.type == "identifier":
        return _declared_group(ctx, scopes, text, call)
    if obj.type == "call_expression":
        maker = _MAKER.match(text)
        if maker is not None and scopes.accepts(maker.group("scope")):
            return _group_of_maker(maker), False
    if obj.type == "parenthesized_expression" and obj.named_child_count == 1:
        return _group_of_object(ctx, scopes, obj.named_children[0], call)
    if obj.type == "pointer_expression":  # (*p).num_threads()
        argument = obj.child_by_field_name("argument")
        return _group_of_object(ctx, scopes, argument, call) if argument is not None else None
    return None


def analyze_group_members(ctx: "_FileContext") -> None:
    """Rename or report the cooperative-groups member calls of one file.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); edits go
            to ``ctx.result.edits`` (a ``renamed`` member's name replaced by the HIP one),
            findings to ``ctx.result.findings``: HP2020 group-member-missing at the call of a
            member HIP lacks, HP2021 group-member-differs at the call of one HIP has with
            another meaning.
    """
    table = ctx.rules.members
    source = ctx.source
    if not table or not contains_any(source, _PREFILTER):
        return
    names = re.compile(rb"(?:\.|->)\s*(" + b"|".join(re.escape(n.encode()) for n in sorted(table)) + rb")\s*\(")
    scopes = _Scopes(source)
    for match in names.finditer(source):
        start, end = match.span(1)
        field = ctx.node_at(start, end)
        if field.type != "field_identifier" or (field.start_byte, field.end_byte) != (start, end):
            continue
        expression = field.parent
        call = expression.parent if expression is not None else None
        if (expression is None or expression.type != "field_expression" or call is None
                or call.type != "call_expression" or call.child_by_field_name("function") != expression):
            continue
        obj = expression.child_by_field_name("argument")
        found = _group_of_object(ctx, scopes, obj, call) if obj is not None else None
        if found is None:
            continue
        group, const = found
        entry: GroupMember | None = next((m for m in table[match.group(1).decode()] if group in m.of), None)
        if entry is None:
            continue
        ctx.result.uses_cuda = True
        if entry.status == "renamed" and const and entry.const_instead:
            ctx.report("group-member-missing", call, name=entry.cuda, group=group, note=entry.note,
                       instead=entry.const_instead)
        elif entry.status == "renamed":
            ctx.result.edits.append(Edit(start, end, entry.hip.encode()))
            ctx.result.references_rewritten += 1
        else:
            check = "group-member-missing" if entry.status == "missing" else "group-member-differs"
            ctx.report(check, call, name=entry.cuda, group=group, note=entry.note, instead=entry.instead)
