"""Where lane and warp numbers go: what ``--fix``'s widening must see before it rewrites a unit.

Widening (:mod:`hipport.warp`) turns a unit's 32-lane warps into wavefront-wide ones: lane
numbers become ``threadIdx.x % warpSize`` (0-63 on gfx9), warp numbers ``threadIdx.x / warpSize``
(half as many on gfx9) and shuffle loops start at ``warpSize / 2``. That is right only while every
lane and warp number is used in a way whose meaning follows the width. A literal beside one
(``31 - lane``, ``lane < 16``), a global array indexed by warp numbers (``out[threadIdx.x / 32]``:
the host reads as many entries as CUDA has warps), a strided loop starting at the lane, or a
shuffle whose offset or segment is a literal keeps the 32-lane meaning: widening the rest of the
unit leaves code that is silently wrong on a 64-wide wavefront.

This module is a whitelist: :func:`unsafe_uses` follows each lane or warp number of a function
(a local initialised with one, an inline ``threadIdx.x % 32``/``& 31``/``/ 32``/``>> 5`` or the
same with ``warpSize``, a call named like ``lane_id()``/``warp_id()``, a loop variable bounded by
the warp count) up its expression and accepts only the uses that mean the same at widths 32 and
64 once widened:

* ``lane == 0`` (or ``!lane``) as the condition of an ``if``, alone or as a ``&&`` term (the
  branch's effects are then checked by :func:`unsafe_collective_uses`); a comparison with another
  lane or warp number, a warp count (``blockDim.x / 32``, rounded or not) or a shuffle loop's
  offset variable;
* ``1 << lane`` (a lane mask; :class:`hipport.warp._MaskFunction` widens it);
* ``lane % k`` and ``lane & (k - 1)`` for k = 2, 4, 8, 16 (the same value at any width);
* the source lane of ``__shfl_sync``, also as ``lane ^ k`` with k < 32 (the same source thread at
  any width);
* ``warp * warpSize`` and ``warp * warpSize + lane`` (the thread's index again);
* an index of a ``__shared__`` array: warp numbers always (a wavefront-wide block has fewer
  warps), lane numbers when the array has a slot per lane of the widest wavefront (32 slots,
  which --fix resizes to ``HIPPORT_WAVEFRONT_MAX``, a size written with ``warpSize`` or a
  warp-size constant, or at least 64);
* a local initialised with it (whose own uses are then followed), a ``return`` from a function
  named like ``lane_id``/``warp_id``, and the ``++``/``--`` of a loop variable.

Any other use (an index of global memory, arithmetic with a literal, an argument of another
function, an assignment) is *unsafe*. So is a shuffle whose lane, offset or width is a literal
that does not keep its meaning (``__shfl_sync(m, v, 31)``, ``__shfl_down_sync(m, v, 8)`` without a
width under 32, a width of 32). ``hipport.warp`` makes each unsafe use an item with no fix: the
unit is then not widened but runs as 32-lane logical warps (:mod:`hipport.warp32`, HP1116), which
keeps every 32-wide assumption true, or is left as written with its findings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

import tree_sitter

from .alternation import directive_matches
from .parse import file_nodes, nodes_of_kinds
from . import warp as _warp  # its walker, call-name patterns and definitions query (warp imports this module)

if TYPE_CHECKING:
    from .warp import _Scan

#: Shuffles: name -> (index of the lane/offset argument, index of the optional width argument).
_SHUFFLE_ARGUMENTS = {
    "__shfl_sync": (2, 3), "__shfl_up_sync": (2, 3), "__shfl_down_sync": (2, 3), "__shfl_xor_sync": (2, 3),
    "__shfl": (1, 2), "__shfl_up": (1, 2), "__shfl_down": (1, 2), "__shfl_xor": (1, 2),
}
_SOURCE_LANE_SHUFFLES = frozenset({"__shfl_sync", "__shfl"})
_XOR_SHUFFLES = frozenset({"__shfl_xor_sync", "__shfl_xor"})
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_SMALL_MODULI = frozenset({2, 4, 8, 16})
_TRANSPARENT = frozenset({"parenthesized_expression", "cast_expression"})


def _literal(text: str) -> int | None:
    """The value of an integer literal (``31``, ``0x1f``, ``16u``), else None."""
    text = text.strip().rstrip("uUlL")
    try:
        return int(text, 0)
    except ValueError:
        return None


def _strip(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type in _TRANSPARENT:
        inner = node.child_by_field_name("value") if node.type == "cast_expression" else (
            node.named_children[0] if node.named_child_count == 1 else None)
        if inner is None:
            break
        node = inner
    return node


class _Flow:
    """The lane and warp numbers of one function and the checks of their uses."""

    def __init__(self, scan: "_Scan", function: tree_sitter.Node):
        self.scan, self.function = scan, function
        self.scope = scan.locals_of(function)
        self.shared = self._shared_arrays()
        self.writes: list | None = None  # _local_writes, once

    def text(self, node) -> str:
        return self.scan.text(node)

    def kind(self, node: tree_sitter.Node | None) -> str | None:
        """'lane' or 'warp' for an expression holding a lane or warp number, else None."""
        node = _strip(node)
        if node is None:
            return None
        if node.type in ("call_expression", "identifier", "binary_expression"):
            return self.scan.index_kind(node)
        return None

    def _shared_arrays(self) -> dict[str, str]:
        """``__shared__`` arrays the function sees (its own, the file's): name -> size text
        (``""`` for ``extern __shared__ T s[]``; ``"2d"`` for more than one dimension)."""
        found: dict[str, str] = {}
        for owner, name, size in _file_shared_arrays(self.scan):
            if owner is None or owner == self.function.start_byte:
                found[name] = size
        return found

    def lane_slots(self, size: str) -> bool:
        """A ``__shared__`` array of ``size`` slots has one for every lane of the widest wavefront
        once --fix has run: 32 (resized to HIPPORT_WAVEFRONT_MAX), a size written with
        ``warpSize`` or a warp-size constant of the file, or a literal of at least 64."""
        if size == "32" or "HIPPORT_WAVEFRONT_MAX" in size:
            return True
        if re.search(r"(?<![A-Za-z0-9_])warpSize(?![A-Za-z0-9_])", size) and "/" not in size:
            return True
        if any(re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", size) for name in self.scan.constants) \
                and "/" not in size:
            return True
        value = _literal(size)
        return value is not None and value >= 64

    def offset_variable(self, node: tree_sitter.Node | None) -> bool:
        """``node`` names the variable of an enclosing ``for`` loop whose body shuffles (a
        reduction or scan offset)."""
        node = _strip(node)
        if node is None or node.type != "identifier":
            return False
        name = self.text(node)
        loop = node.parent
        while loop is not None and loop.start_byte >= self.function.start_byte:
            if loop.type == "for_statement":
                variable, _ = self.scan.loop_start(loop.child_by_field_name("initializer"))
                body = loop.child_by_field_name("body")
                if variable == name and body is not None and b"__shfl" in self.scan.ctx.text(body):
                    return True
            loop = loop.parent
        return False

    def is_thread_offset(self, node: tree_sitter.Node | None) -> bool:
        """``warp * warpSize`` (either order): the index of the warp's first thread."""
        node = _strip(node)
        if node is None or node.type != "binary_expression" or self.text(node.child_by_field_name("operator")) != "*":
            return False
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return (self.kind(left) == "warp" and self.scan.is_width(right, "32") and self.text(_strip(right)) != "32") or (
            self.kind(right) == "warp" and self.scan.is_width(left, "32") and self.text(_strip(left)) != "32")

    def comparable(self, other: tree_sitter.Node | None) -> bool:
        """What a lane or warp number may be compared with and keep its meaning when widened."""
        other = _strip(other)
        if other is None or other.type == "number_literal":
            return False  # literals: decided by the caller (only ``lane == 0`` in an if)
        return (self.kind(other) is not None or self.scan.is_warp_count(other) or self.offset_variable(other)
                or self._rounded_warp_count(other))

    def lane_zero_guard(self, node: tree_sitter.Node) -> bool:
        """``node`` runs only in the first lane of each warp: inside the branch of an ``if``
        whose condition is (a ``&&`` term) ``lane == 0`` or ``!lane``."""
        child, parent = node, node.parent
        while parent is not None and parent.start_byte >= self.function.start_byte:
            if parent.type == "if_statement" and parent.child_by_field_name("consequence") == child:
                if self._tests_lane_zero(parent.child_by_field_name("condition")):
                    return True
            child, parent = parent, parent.parent
        return False

    def _tests_lane_zero(self, condition: tree_sitter.Node | None) -> bool:
        terms = [condition]
        while terms:
            term = _strip(terms.pop())
            if term is None:
                continue
            if term.type == "condition_clause":
                terms.extend(term.named_children)
                continue
            if term.type == "binary_expression":
                operator = self.text(term.child_by_field_name("operator"))
                left, right = term.child_by_field_name("left"), term.child_by_field_name("right")
                if operator == "&&":
                    terms.extend([left, right])
                elif operator == "==" and (self.kind(left) == "lane" and self.text(_strip(right)) in ("0", "0u")
                                           or self.kind(right) == "lane" and self.text(_strip(left)) in ("0", "0u")):
                    return True
            elif term.type == "unary_expression" and self.text(term.child_by_field_name("operator")) == "!" and \
                    self.kind(term.child_by_field_name("argument")) == "lane":
                return True
        return False

    def through_locals(self, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
        """``node`` without parentheses and casts, or, for a local, the value it is initialised
        with, followed through up to 5 locals; None for a name whose value is not known."""
        node = _strip(node)
        for _ in range(5):
            if node is None or node.type != "identifier":
                return node
            node = _strip(self.scan.value_of(node))
        return None

    def is_block_warp_count(self, node: tree_sitter.Node | None) -> bool:
        """``blockDim.x / 32`` (``>> 5``, ``/ WARP_SIZE``), which --fix rewrites to the number of
        wavefronts of the block, or a local initialised with one; ``blockDim.x / warpSize`` is
        not (it is not rewritten)."""
        node = self.through_locals(node)
        if node is None or node.type != "binary_expression":
            return False
        operator = self.text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), _strip(node.child_by_field_name("right"))
        if not re.fullmatch(r"blockDim\.[xyz]", "".join(self.text(_strip(left)).split())) or right is None:
            return False
        return (operator == "/" and self.scan.is_width(right, "32") and self.text(right).strip() != "warpSize") or \
            (operator == ">>" and self.text(right).strip() == "5")

    def _rounded_warp_count(self, node: tree_sitter.Node) -> bool:
        """``(blockDim.x + warpSize - 1) / warpSize``, what --fix writes for the warp count."""
        text = "".join(self.text(node).split())
        return bool(re.fullmatch(r"\(?\(blockDim\.[xyz]\+warpSize-1\)/warpSize\)?", text))

    # -- the walk ---------------------------------------------------------------------------------
    def unsafe(self, node: tree_sitter.Node, kind: str) -> str | None:
        """Why the lane or warp number ``node`` is used in a way widening changes, or None."""
        child = node
        while True:
            parent = child.parent
            if parent is None:
                return "it leaves the function"
            kind_of = parent.type
            if kind_of in _TRANSPARENT:
                child = parent
                continue
            if kind_of == "init_declarator" and parent.child_by_field_name("value") == child:
                target = parent.child_by_field_name("declarator")
                declaration = parent.parent
                if target is None or target.type != "identifier" or declaration is None or \
                        declaration.type not in ("declaration", "condition_clause", "for_statement"):
                    return "it initialises something other than a local variable"
                name = self.text(target)
                if name in self.scope.twice:
                    return f"it initialises {name}, declared more than once in the function"
                if b"__shared__" in self.scan.ctx.text(declaration) or b"static" in self.scan.ctx.text(declaration).split(b"=")[0]:
                    return f"it initialises {name}, which is not a plain local"
                if (self.kind(target) is None) if kind != "count" else not self.is_block_warp_count(target):
                    return f"it initialises {name}, whose uses --fix cannot follow"
                return None  # the local's own uses are checked where they are
            if kind_of == "binary_expression":
                operator = self.text(parent.child_by_field_name("operator"))
                left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
                other = right if left == child else left
                if operator in ("&&", "||"):
                    return "its value is tested as a condition"
                if operator in _COMPARISONS:
                    value = _literal(self.text(_strip(other))) if _strip(other) is not None and \
                        _strip(other).type == "number_literal" else None
                    if value == 0 and operator == "==" and kind == "lane":
                        return None if self._if_condition(parent) else \
                            "its test against 0 is used as a value, not as the condition of an if"
                    if value is not None:
                        return "it is compared with a literal whose meaning is 32 lanes"
                    if self.comparable(other) or kind == "count" and self.scan.is_thread_index(other):
                        return None  # (threadIdx.x < blockDim.x / 32: the threads reading one slot per warp)
                    return "it is compared with a value whose meaning is 32 lanes"
                if kind == "count":
                    return ("it is used as a value, the number of 32-lane warps of the block, which --fix rewrites to "
                            "the number of wavefronts (half as many on a 64-wide wavefront)")
                if operator == "<<" and child == right and _literal(self.text(_strip(left))) == 1:
                    return None  # a lane mask: hipport.warp widens 1u << lane
                value = _literal(self.text(_strip(other))) if _strip(other) is not None and \
                    _strip(other).type == "number_literal" else None
                if operator == "%" and child == left and value in _SMALL_MODULI and kind == "lane":
                    return None  # (a warp's parity is not: warp 1 is threads 32-63 at 32, 64-127 widened)
                if operator == "&" and value is not None and value + 1 in _SMALL_MODULI and kind == "lane":
                    return None
                if operator == "^" and kind == "lane" and value is not None and 0 <= value < 32 and self._source_lane(parent):
                    return None
                if operator == "*" and kind == "warp" and self.is_thread_offset(parent):
                    child = parent
                    kind = "thread"
                    continue
                if operator == "+" and (kind == "thread" and self.kind(other) == "lane"
                                        or kind == "lane" and self.is_thread_offset(other)):
                    return None  # warp * warpSize + lane: the thread's index
                return "it is combined with a value whose meaning is 32 lanes"
            if kind_of == "unary_expression":
                if self.text(parent.child_by_field_name("operator")) == "!" and kind == "lane":
                    return None if self._if_condition(parent) else "its test against 0 is used as a value"
                return "it is negated or complemented"
            if kind_of == "update_expression":
                return None if self._loop_update(parent) else "it is incremented outside a loop's update"
            if kind_of == "argument_list":
                return self._argument(parent, child, kind)
            if kind_of == "subscript_argument_list" or kind_of == "subscript_expression":
                subscript = parent if kind_of == "subscript_expression" else parent.parent
                return self._index(subscript, child, kind)
            if kind_of in ("condition_clause", "if_statement", "while_statement", "do_statement"):
                return "its value is tested as a condition"
            if kind_of == "for_statement" and parent.child_by_field_name("condition") == child:
                return None
            if kind_of == "conditional_expression" and parent.child_by_field_name("condition") == child:
                return "its value is tested as a condition"
            if kind_of == "return_statement":
                name = self.scan.function_name(self.function).split("::")[-1]
                expected = _warp._LANE_CALL if kind == "lane" else _warp._WARP_CALL
                return None if expected.match(name) else "it is returned from a function not named as a lane or warp number"
            if kind_of == "assignment_expression":
                left = _strip(parent.child_by_field_name("left"))
                if parent.child_by_field_name("right") == child and left is not None and left.type != "identifier":
                    return "it is stored to memory, whose readers keep its 32-lane meaning"
                return "it is assigned, and --fix follows only initialised locals"
            return "it is used where --fix cannot follow its meaning"

    def _if_condition(self, node: tree_sitter.Node) -> bool:
        """``node`` is the condition of an ``if``, alone or as a term of ``&&`` (through
        parentheses): the test picks the threads that run the branch."""
        while node.parent is not None:
            parent = node.parent
            if parent.type in _TRANSPARENT or (parent.type == "binary_expression" and self.text(
                    parent.child_by_field_name("operator")) == "&&"):
                node = parent
                continue
            if parent.type == "condition_clause":
                return parent.parent is not None and parent.parent.type == "if_statement"
            return False
        return False

    def _source_lane(self, node: tree_sitter.Node) -> bool:
        """``node`` (through parentheses and casts) is the source-lane argument of ``__shfl_sync``."""
        while node.parent is not None and node.parent.type in _TRANSPARENT:
            node = node.parent
        arguments = node.parent
        if arguments is None or arguments.type != "argument_list" or arguments.parent is None:
            return False
        name = self.text(arguments.parent.child_by_field_name("function")).strip()
        named = [c for c in arguments.named_children if c.type != "comment"]
        return name in _SOURCE_LANE_SHUFFLES and len(named) > _SHUFFLE_ARGUMENTS[name][0] and \
            named[_SHUFFLE_ARGUMENTS[name][0]] == node

    def _loop_update(self, update: tree_sitter.Node) -> bool:
        parent = update.parent
        return parent is not None and parent.type == "for_statement" and parent.child_by_field_name("update") == update

    def _argument(self, arguments: tree_sitter.Node, child: tree_sitter.Node, kind: str) -> str | None:
        call = arguments.parent
        name = self.text(call.child_by_field_name("function")).strip() if call is not None else ""
        if name in _SOURCE_LANE_SHUFFLES and kind == "lane" and self._source_lane(child):
            return None  # the thread's own lane: the same source at any width
        return f"it is passed to {name or 'a call'}"

    def _index(self, subscript: tree_sitter.Node | None, child: tree_sitter.Node, kind: str) -> str | None:
        if subscript is None:
            return "it indexes an array"
        array = _strip(subscript.child_by_field_name("argument"))
        name = self.text(array) if array is not None and array.type == "identifier" else ""
        if child == subscript.child_by_field_name("argument"):
            return "it is subscripted"
        if kind == "count":
            return "it indexes an array with the number of 32-lane warps of the block, which --fix rewrites"
        size = self.shared.get(name)
        if size is None:
            return f"it indexes {name or 'an array'}, which is not a __shared__ array of the block"
        if size == "2d":
            return f"it indexes the two-dimensional __shared__ array {name}"
        if kind != "warp" and not self.lane_slots(size):
            return f"it indexes the __shared__ array {name}[{size}], which has no slot for every lane of a 64-wide wavefront"
        atomic = self._atomic_on(subscript)
        if atomic is not None and not self.lane_zero_guard(atomic):
            what = "lanes of a warp combine into its slot" if kind == "warp" else "threads of the same lane combine into its slot"
            return (f"{what} by {self.text(atomic.child_by_field_name('function')).strip()} (line "
                    f"{atomic.start_point[0] + 1}): a slot per 64-lane wavefront (or per lane 0-63) gathers other "
                    "threads than one per 32-lane warp")
        return None  # a wavefront-wide block has no more warps than a 32-lane one; lanes have their slots

    def _atomic_on(self, subscript: tree_sitter.Node) -> tree_sitter.Node | None:
        """The atomic call (``atomicAdd(&s[w], v)`` and any other ``atomic*``) whose address is
        the element ``subscript``, else None."""
        node = subscript
        while node.parent is not None and node.parent.type in _TRANSPARENT:
            node = node.parent
        address = node.parent
        if address is None or address.type != "pointer_expression" or self.text(address.child_by_field_name("operator")) != "&":
            return None
        while address.parent is not None and address.parent.type in _TRANSPARENT:
            address = address.parent
        arguments = address.parent
        if arguments is None or arguments.type != "argument_list" or arguments.parent is None:
            return None
        named = [c for c in arguments.named_children if c.type != "comment"]
        call = arguments.parent
        return call if named and named[0] == address and _call_name(self.scan, call).startswith("atomic") else None


def _file_shared_arrays(scan: "_Scan") -> list[tuple[int | None, str, str]]:
    """The file's one-dimensional and two-dimensional ``__shared__`` arrays, once per file (cached
    on ``scan``): (start byte of the function declaring it, None at file scope; name; size text,
    ``"2d"`` for more than one dimension)."""
    cached = getattr(scan, "_shared_arrays", None)
    if cached is not None:
        return cached
    found: list[tuple[int | None, str, str]] = []
    for match in re.finditer(rb"__shared__", scan.ctx.source):
        declaration = scan.ctx.node_at(match.start(), match.end())
        while declaration is not None and declaration.type not in ("declaration", "field_declaration"):
            declaration = declaration.parent
        if declaration is None:
            continue
        function = scan.function_of(declaration)
        owner = function.start_byte if function is not None else None
        for declarator in declaration.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is None or declarator.type != "array_declarator":
                continue
            inner, size = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("size")
            if inner is not None and inner.type == "array_declarator":
                while inner is not None and inner.type == "array_declarator":
                    inner = inner.child_by_field_name("declarator")
                if inner is not None:
                    found.append((owner, scan.text(inner), "2d"))
            elif inner is not None and inner.type == "identifier":
                found.append((owner, scan.text(inner), " ".join(scan.text(size).split()) if size is not None else ""))
    scan._shared_arrays = found
    return found


def _candidates(flow: _Flow) -> Iterator[tuple[tree_sitter.Node, str]]:
    """Every lane or warp number of the function, and every count of its block's 32-lane warps
    that --fix rewrites (:meth:`_Flow.is_block_warp_count`): (node, 'lane' | 'warp' | 'count'),
    outermost first."""
    scan, function = flow.scan, flow.function
    named: dict[str, str | None] = {}
    loop_variables = set()
    for node in _warp._descendants(function):
        if node.type == "for_statement":
            variable, _ = scan.loop_start(node.child_by_field_name("initializer"))
            if variable:
                loop_variables.add(variable)
    stack = [function]
    while stack:
        node = stack.pop()
        kind = None
        if node.type == "identifier":
            parent = node.parent
            if parent is not None and parent.type in ("init_declarator", "parameter_declaration", "declaration",
                                                       "array_declarator", "pointer_declarator",
                                                       "reference_declarator") and \
                    parent.child_by_field_name("declarator") == node:
                continue
            if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
                continue
            name = scan.text(node)
            if name in flow.scope.declared or name in loop_variables:
                if name not in named or name in loop_variables:
                    named[name] = flow.kind(node) or ("count" if flow.is_block_warp_count(node) else None)
                kind = named[name]
        elif node.type in ("binary_expression", "call_expression"):
            kind = flow.kind(node) or ("count" if flow.is_block_warp_count(node) else None)
        if kind is not None:
            yield node, kind
            continue  # its parts are not numbers of their own
        stack.extend(reversed(node.children))


def global_warp_indexes(scan: "_Scan", function: tree_sitter.Node) -> list[tuple[tree_sitter.Node, str]]:
    """The warp numbers of ``function`` (``threadIdx.x / warpSize`` and the like) that index memory
    other than the block's ``__shared__`` arrays, alone or in a sum or product
    (``out[blockIdx.x * (blockDim.x / warpSize) + wid]``): one entry per warp, so a 64-lane
    wavefront writes half as many entries as CUDA's 32-lane warps, and the host must size and
    read that memory for the device's warp size. Each as (warp number node, the array's text)."""
    flow = _Flow(scan, function)
    found = []
    for node, kind in _candidates(flow):
        if kind != "warp":
            continue
        child = node
        while child.parent is not None and (child.parent.type in _TRANSPARENT or (
                child.parent.type == "binary_expression"
                and scan.text(child.parent.child_by_field_name("operator")) in ("+", "-", "*"))):
            child = child.parent
        subscript = child.parent.parent if child.parent is not None and \
            child.parent.type == "subscript_argument_list" else child.parent
        if subscript is None or subscript.type != "subscript_expression" or \
                child == subscript.child_by_field_name("argument"):
            continue
        array = _strip(subscript.child_by_field_name("argument"))
        name = scan.text(array) if array is not None else ""
        if name not in flow.shared:
            found.append((node, name))
    return found


def _shuffle_literals(flow: _Flow) -> Iterator[tuple[tree_sitter.Node, str]]:
    """Shuffles of the function whose lane, offset or width is a literal that keeps a 32-lane
    meaning once the unit is widened."""
    scan = flow.scan
    for node in _warp._descendants(flow.function):
        if node.type != "call_expression":
            continue
        name = scan.text(node.child_by_field_name("function")).strip()
        arguments = node.child_by_field_name("arguments")
        named = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
        if name in shuffle_macros(scan):  # M(v, o) is the intrinsic with its mask written in M
            name, named = shuffle_macros(scan)[name], [None, *named]
        if name not in _SHUFFLE_ARGUMENTS:
            continue
        lane_index, width_index = _SHUFFLE_ARGUMENTS[name]
        width_node = _strip(named[width_index]) if len(named) > width_index else None
        width = _literal(scan.text(width_node)) if width_node is not None and width_node.type == "number_literal" else None
        if width is not None and width >= 32:
            yield width_node, f"its width {width} is a 32-lane segment"
            continue
        if len(named) <= lane_index:
            continue
        lane = _strip(named[lane_index])
        value = _literal(scan.text(lane)) if lane is not None and lane.type == "number_literal" else None
        if value is None:
            continue
        if name in _SOURCE_LANE_SHUFFLES:
            if value != 0 and width is None:
                yield lane, f"it reads lane {value} of the warp"
        elif name in _XOR_SHUFFLES:
            if value >= 32:
                yield lane, f"its lane mask {value} reaches past 32 lanes"
        elif width is None and value != 16:  # 16: an item of its own (hipport.warp, HP1104)
            yield lane, f"its literal offset {value} ends at the 32nd lane (no width under 32 is given)"


def unsafe(scan: "_Scan", function: tree_sitter.Node) -> list[tuple[tree_sitter.Node, str]]:
    """Every use in ``function`` that widening would make wrong on a 64-wide wavefront:
    :func:`unsafe_uses` then :func:`unsafe_collective_uses`, over one view of the function."""
    flow = _Flow(scan, function)
    return [*unsafe_uses(scan, function, flow), *unsafe_collective_uses(scan, function, flow)]


def unsafe_uses(scan: "_Scan", function: tree_sitter.Node, flow: "_Flow | None" = None) -> list[tuple[tree_sitter.Node, str]]:
    """The uses of lane and warp numbers in ``function`` that widening would make wrong on a
    64-wide wavefront (see the module docstring), each as (node, reason with its line); the
    shuffles whose literal lane, offset or width keeps a 32-lane meaning too.

    Args:
        scan: the file's :class:`hipport.warp._Scan` (its lane and warp recognisers).
        function: a ``function_definition`` node of that file.
        flow: the function's :class:`_Flow`, when the caller has one.
    """
    flow = flow or _Flow(scan, function)
    found = []
    for node, kind in _candidates(flow):
        reason = flow.unsafe(node, kind)
        if reason is not None:
            statement = node
            while statement.parent is not None and statement.type not in (
                    "expression_statement", "declaration", "return_statement", "if_statement", "for_statement",
                    "while_statement"):
                statement = statement.parent
            shown = " ".join(scan.text(statement).split())
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            what = "warp count" if kind == "count" else f"{kind} number"
            found.append((node, f"the {what} `{' '.join(scan.text(node).split())}` in `{shown}` "
                                f"(line {node.start_point[0] + 1}) keeps a 32-lane meaning: {reason}"))
    for node, reason in _shuffle_literals(flow):
        call = node.parent
        while call is not None and call.type != "call_expression":
            call = call.parent
        shown = " ".join(scan.text(call).split()) if call is not None else scan.text(node)
        found.append((node, f"the shuffle `{shown[:80]}` (line {node.start_point[0] + 1}) keeps a 32-lane meaning: "
                            f"{reason}"))
    return found


# -- warp-collective results ---------------------------------------------------------------------
#: Calls whose result in each lane depends on the other lanes of the warp, so on its width.
COLLECTIVE_CALLS = frozenset({
    *_SHUFFLE_ARGUMENTS, "__ballot_sync", "__ballot", "__any_sync", "__any", "__all_sync", "__all", "__activemask",
    "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
})
#: Calls whose result depends only on their arguments (a collective argument gives a collective result).
_PURE_CALLS = frozenset({
    "__popc", "__popcll", "__ffs", "__ffsll", "__clz", "__clzll", "__brev", "__brevll", "min", "max", "fminf",
    "fmaxf", "fmin", "fmax", "abs", "fabsf", "fabs", "__float_as_int", "__int_as_float", "__float_as_uint",
    "__uint_as_float", "__popcount", "sqrtf", "sqrt",
})
#: Atomics that combine the values of the warps, by the operation each applies (CUDA C++
#: Programming Guide, "Atomic Functions"; HIP keeps their meaning).
_COMBINING_ATOMICS = {"atomicAdd": "sum", "atomicMax": "max", "atomicMin": "min", "atomicOr": "or",
                      "atomicAnd": "and", "atomicXor": "xor"}
#: Compound assignments and binary operators that combine two values, by operation.
_COMBINING_OPERATORS = {"+": "sum", "|": "or", "&": "and", "^": "xor", "*": "product"}
#: Two-argument functions that combine two values, by operation.
_COMBINING_CALLS = {"max": "max", "fmaxf": "max", "fmax": "max", "min": "min", "fminf": "min", "fmin": "min"}
#: Votes, by the kind of whole-warp result each gives: ``any`` and ``all`` are 0 or 1 per warp, a
#: ballot is a bit mask whose bit positions are lanes.
_VOTE_KINDS = {"__any_sync": "any", "__any": "any", "__all_sync": "all", "__all": "all",
               "__ballot_sync": "mask", "__ballot": "mask"}


#: How a reason names each kind of whole-warp result.
_KIND_WORDS = {"sum": "a warp sum", "max": "a warp maximum", "min": "a warp minimum", "or": "a warp OR",
               "and": "a warp AND", "xor": "a warp XOR", "product": "a warp product",
               "any": "an any-vote (one 0 or 1 per warp)", "all": "an all-vote (one 0 or 1 per warp)",
               "mask": "a ballot (its bits are the lanes of one warp)"}


#: Shuffle reductions whose result is wrong in a partial wavefront: widened, a block whose size
#: is a multiple of 32 but not of 64 ends in a wavefront of 32 lanes, and a shuffle from a lane it
#: lacks reads 0 (ds_bpermute: "reading from inactive lanes returns 0"), which only an operation
#: with 0 as its identity (a sum, OR, XOR) ignores; these do not.
_NONZERO_IDENTITY = frozenset({"max", "min", "and", "product"})


def combine_problem(kind: str, operation: str) -> str | None:
    """Why combining one whole-warp result of ``kind`` per warp by ``operation`` gives another
    value for 64-lane wavefronts than for 32-lane warps, or None when it gives the same: the
    operation is the reduction's own and its identity is 0 (a warp sum summed over warps is the
    block's sum whatever the warp's width), or it is an OR/maximum of any-votes, an AND/minimum
    of all-votes. A sum of votes counts warps, a ballot's bits are lanes of one warp, and a
    maximum, minimum, AND or product reduction reads 0 from the lanes a partial last wavefront
    lacks."""
    if kind in _NONZERO_IDENTITY:
        return (f"once widened, {_KIND_WORDS[kind]} takes a 0 for every lane a partial last wavefront lacks (a block "
                "of 96 threads ends in a 32-lane wavefront, and ds_bpermute reads 0 from a lane that is not there)")
    if kind != "mask" and (kind == operation or (kind, operation) in {("any", "or"), ("any", "max"), ("all", "and"),
                                                                       ("all", "min")}):
        return None
    return f"it combines {_KIND_WORDS[kind]} by {operation}, so the total depends on how many lanes each warp has"


#: Calls whose first argument is a lane mask.
_MASK_CALLS = frozenset({"__syncwarp", "HIPPORT_SYNCWARP_MASK",  # hipport.syncwarp's __syncwarp(mask), --fix output
                         *(name for name in COLLECTIVE_CALLS if name.endswith("_sync"))})
_COLLECTIVE_WORDS = re.compile(rb"__shfl|__ballot|__any|__all|__activemask|__match_|__reduce_")


_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)((?:[^\n\\]|\\\r?\n|\\)*)", re.MULTILINE)
_TRANSPARENT_SHUFFLE = re.compile(
    r"^\(?\s*(__shfl_down_sync|__shfl_xor_sync)\s*\(\s*([A-Za-z_]\w*|0[xX][fF]{8}[uU]?[lL]{0,2}|~0[uU]?)\s*,"
    r"\s*\(?\s*(\w+)\s*\)?\s*,\s*\(?\s*(\w+)\s*\)?\s*\)\s*\)?$")


def collective_macros(source: bytes) -> dict[str, int]:
    """The function-like macros of ``source`` whose body holds a warp collective (a shuffle, a
    vote, ``__activemask``...), but not hipport's own: name -> 1-based line of the ``#define``."""
    found = {}
    for match in directive_matches(_MACRO, source):
        name = match.group(1).decode()
        if has_collectives(match.group(3)) and not name.lower().startswith("hipport_"):
            found[name] = source.count(b"\n", 0, match.start()) + 1
    return found


def shuffle_macros(scan: "_Scan") -> dict[str, str]:
    """The transparent shuffle macros of the file: ``#define M(a, b) __shfl_down_sync(MASK,
    (a), (b))`` (or ``__shfl_xor_sync``; a full mask or a named one), whose call ``M(v, o)`` is
    that shuffle of ``v`` by ``o``: name -> the intrinsic; cached on ``scan``."""
    cached = getattr(scan, "_shuffle_macros", None)
    if cached is None:
        cached = {}
        for match in directive_matches(_MACRO, scan.ctx.source):
            parameters = [p.strip() for p in match.group(2).decode().split(",")]
            body = " ".join(re.sub(r"\\\r?\n", " ", match.group(3).decode("utf-8", "replace")).split())
            shape = _TRANSPARENT_SHUFFLE.match(body)
            if shape is not None and len(parameters) == 2 and [shape.group(3), shape.group(4)] == parameters:
                cached[match.group(1).decode()] = shape.group(1)
        scan._shuffle_macros = cached
    return cached


def has_collectives(source: bytes) -> bool:
    """``source`` (a file or a function, as bytes) names a warp collective: a shuffle, a vote,
    ``__activemask``, a match or a ``__reduce_*_sync`` (a cheap test before parsing its uses)."""
    return _COLLECTIVE_WORDS.search(source) is not None


def _call_name(scan: "_Scan", call: tree_sitter.Node) -> str:
    """The name a call calls: ``warp_sum`` for ``warp_sum(v)``, ``ns::warp_sum<T>(v)`` and, for a
    member function, ``w.sum(v)`` or ``p->sum(v)`` (``sum``)."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "template_function":
        function = function.child_by_field_name("name")
    if function is not None and function.type == "field_expression":
        function = function.child_by_field_name("field")
        if function is not None and function.type == "template_method":
            function = function.child_by_field_name("name")
    return scan.text(function).split("::")[-1].strip() if function is not None else ""


def _tree_collectives(scan: "_Scan") -> dict[str, str | None]:
    """The functions of the tree's headers this file is compiled with that return a
    warp-collective result (:attr:`hipport.warp.WarpTree.collectives`): name -> the kind of
    whole-warp result (:meth:`_Collective.whole_functions`), None for another collective result.
    Empty outside a tree or in the header defining them (its own definitions count there)."""
    tree = getattr(scan, "tree", None)
    if tree is None or not getattr(tree, "collectives", None):
        return {}
    path = scan.ctx.path
    found: dict[str, str | None] = {}
    for (name, home), kind in sorted(tree.collectives.items()):
        if home != path and name not in found and tree.function_home(path, name) == home:
            found[name] = kind
    return found


def calls_tree_collectives(scan: "_Scan") -> bool:
    """The file names a function of a tree header that returns a warp-collective result
    (:func:`_tree_collectives`): its uses are followed as a collective's, though the file names
    no shuffle or vote of its own."""
    return any(re.search(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"\s*[(<]", scan.ctx.source)
               for name in _tree_collectives(scan))


def returned_collectives(scan: "_Scan") -> dict[str, str | None]:
    """The functions of the file that return a warp-collective result (:func:`collective_functions`),
    each with the kind of whole-warp result it returns (:meth:`_Collective.whole_functions`: 'sum',
    'max', 'mask', ...) or None for any other collective result (a scan, a broadcast): what the
    tree prepass records of a header for the files calling its functions."""
    functions = collective_functions(scan)
    if not functions:
        return {}
    whole = _whole_functions(scan, functions)
    return {name: whole.get(name) for name in sorted(functions)}


def collective_functions(scan: "_Scan") -> frozenset[str]:
    """The functions of the file that return a warp-collective result (``warp_reduce`` returning
    a shuffle's), found to a fixed point, and those of the tree's headers the file is compiled
    with (:func:`_tree_collectives`); cached on ``scan``."""
    cached = getattr(scan, "_collective_functions", None)
    if cached is not None:
        return cached
    found_outside = set(_tree_collectives(scan))
    definitions = file_nodes(scan.ctx, "function_definition") \
        if _COLLECTIVE_WORDS.search(scan.ctx.source) or found_outside else []
    found: set[str] = set(found_outside)
    changed = True
    while changed:
        changed = False
        for function in definitions:
            name = scan.function_name(function).split("::")[-1]
            if name in found:
                continue
            flow = _Flow(scan, function)
            held = _collective_locals(flow, frozenset(found))
            for node in nodes_of_kinds(function, ("return_statement",)):
                if any(_is_source(flow, part, held, frozenset(found)) for part in _warp._descendants(node)):
                    found.add(name)
                    changed = True
                    break
    scan._collective_functions = frozenset(found)
    return scan._collective_functions


def _is_source(flow: _Flow, node: tree_sitter.Node, held: set[str], functions: frozenset[str]) -> bool:
    """``node`` is a warp-collective value of its own: a collective call, a call of a function
    returning one, or a read of a local holding one."""
    if node.type == "call_expression":
        name = _call_name(flow.scan, node)
        if name in _SHUFFLE_ARGUMENTS:  # a shuffle of a literal gives that literal in every lane
            arguments = [a for a in (node.child_by_field_name("arguments").named_children
                                     if node.child_by_field_name("arguments") is not None else []) if a.type != "comment"]
            value = _strip(arguments[1] if name.endswith("_sync") and len(arguments) > 1 else
                           arguments[0] if arguments else None)
            if value is not None and value.type in ("number_literal", "true", "false", "char_literal"):
                return False
        return name in COLLECTIVE_CALLS or name in functions or name in shuffle_macros(flow.scan)
    if node.type == "identifier" and flow.text(node) in held:
        parent = node.parent
        if parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
            return False
        if parent is not None and parent.type in ("init_declarator", "parameter_declaration", "declaration") and \
                parent.child_by_field_name("declarator") == node:
            return False
        return True
    return False


def _local_writes(flow: _Flow) -> list[tuple[str, tree_sitter.Node, tree_sitter.Node]]:
    """The function's writes to its locals and parameters: (name, value, the ``init_declarator``
    or ``assignment_expression``), in source order; cached on ``flow``."""
    if flow.writes is None:
        flow.writes = []
        for node in nodes_of_kinds(flow.function, ("init_declarator", "assignment_expression")):
            if node.type == "init_declarator":
                target, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
            else:
                target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            if target is not None and value is not None and target.type == "identifier" and \
                    flow.text(target) in flow.scope.declared:
                flow.writes.append((flow.text(target), value, node))
    return flow.writes


def _collective_locals(flow: _Flow, functions: frozenset[str]) -> set[str]:
    """The locals (and parameters) of the function that hold a warp-collective value somewhere:
    written from a collective call, a function returning one, or another such local."""
    held: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value, _ in _local_writes(flow):
            if name not in held and any(_is_source(flow, part, held, functions) for part in _warp._descendants(value)):
                held.add(name)
                changed = True
    return held


class _Collective:
    """Where the warp-collective values of one function go (:func:`unsafe_collective_uses`)."""

    def __init__(self, flow: _Flow):
        self.flow, self.scan = flow, flow.scan
        self.functions = collective_functions(flow.scan)
        self.held = _collective_locals(flow, self.functions)
        self.slots: set[str] = set()  # __shared__ arrays holding one result per warp
        self.slot_kinds: dict[str, set[str]] = {}  # slot array -> the kinds of result stored in it
        self.kinds: dict[str, str] = {}  # whole-warp local -> its kind (see _write_form)
        self._votes: set[str] = set()
        self.aggregates = self._aggregates()
        self._votes = {name for name in self.aggregates if self._forms.get(name) == {"vote"} and self.kinds[name] == "mask"}
        if self._votes:  # a local counting a ballot local (``c = __ballot_sync(..); v = __popc(c)``)
            self.aggregates = self._aggregates()

    # -- whole-warp results ------------------------------------------------------------------------
    def _full_loop(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The enclosing ``for`` loop of ``node`` when it halves an offset from 16 (or
        ``warpSize / 2``, or a warp-size constant over 2) down to 1: a whole-warp reduction."""
        loop = node.parent
        while loop is not None and loop.type != "for_statement":
            loop = loop.parent
        if loop is None:
            return None
        variable, start = self.scan.loop_start(loop.child_by_field_name("initializer"))
        start_text = "".join(self.text(start).split()) if start is not None else ""
        widths = ["warpSize", *self.scan.constants]
        if start_text != "16" and start_text not in [f"{w}/2" for w in widths] + [f"({w})/2" for w in widths]:
            return None
        if not self.scan.halves(variable, _strip(loop.child_by_field_name("condition")), loop.child_by_field_name("update")):
            return None
        return loop

    def _write_form(self, target: str, value: tree_sitter.Node, write: tree_sitter.Node) -> tuple[str, str | None]:
        """How a write of a collective value to the local ``target`` makes it, and the kind of
        whole-warp result it leaves: ('loop', operation) for a step of a whole-warp shuffle
        reduction of ``target`` itself by one combining operation (``v += __shfl_xor_sync(m, v,
        o)`` gives 'sum', ``v = max(v, __shfl_down_sync(m, v, o))`` 'max'); ('vote', kind) for a
        ballot ('mask'), an any ('any'), an all ('all') or the population count of a ballot (a
        count of lanes: 'sum'); ('call', kind) for a function returning a whole-warp result of
        per-thread arguments; ('partial', None) for anything else (a scan, a segment, a
        permutation, a loop whose step combines by no one operation)."""
        stripped = _strip(value)
        loop = self._full_loop(write)
        if loop is not None:
            variable, _ = self.scan.loop_start(loop.child_by_field_name("initializer"))
            shuffles = [n for n in _warp._descendants(value) if n.type == "call_expression" and (
                _call_name(self.scan, n) in _SHUFFLE_ARGUMENTS or _call_name(self.scan, n) in shuffle_macros(self.scan))]
            if shuffles and all(self._shuffles_self(call, target, variable) for call in shuffles):
                operation = self._loop_operation(target, write, shuffles)
                return ("loop", operation) if operation is not None else ("partial", None)
        if stripped is not None and stripped.type == "call_expression":
            name = _call_name(self.scan, stripped)
            if name in ("__popc", "__popcll"):
                inner = _strip(stripped.child_by_field_name("arguments").named_children[0]) \
                    if stripped.child_by_field_name("arguments").named_children else None
                if inner is not None and inner.type == "call_expression" and _call_name(self.scan, inner) in (
                        "__ballot_sync", "__ballot"):
                    return "vote", "sum"
                if inner is not None and inner.type == "identifier" and self.text(inner) in self._votes:
                    return "vote", "sum"  # the population count of a ballot held in a local
            if name in _VOTE_KINDS:
                return "vote", _VOTE_KINDS[name]
            whole = self.whole_functions()
            if name in whole and not any(
                    _is_source(self.flow, part, self.held, self.functions)
                    for part in _warp._descendants(stripped.child_by_field_name("arguments"))):
                return "call", whole[name]
        return "partial", None

    def _loop_operation(self, target: str, write: tree_sitter.Node, shuffles: list[tree_sitter.Node]) -> str | None:
        """The operation by which the reduction step ``write`` combines ``target`` with one of
        its ``shuffles``: ``target op= shuffle``, ``target = target op shuffle`` (either order)
        or ``target = max(target, shuffle)`` (and min, fmaxf, ...); None for any other step."""
        if write.type != "assignment_expression" or len(shuffles) != 1:
            return None
        operator = self.text(write.child_by_field_name("operator"))
        right = _strip(write.child_by_field_name("right"))
        if operator != "=":
            return _COMBINING_OPERATORS.get(operator[:-1]) if right == shuffles[0] else None
        if right is None:
            return None
        if right.type == "binary_expression":
            operation = _COMBINING_OPERATORS.get(self.text(right.child_by_field_name("operator")))
            operands = [_strip(right.child_by_field_name("left")), _strip(right.child_by_field_name("right"))]
        elif right.type == "call_expression":
            operation = _COMBINING_CALLS.get(_call_name(self.scan, right))
            operands = [_strip(c) for c in right.child_by_field_name("arguments").named_children if c.type != "comment"]
        else:
            return None
        if operation is None or len(operands) != 2 or shuffles[0] not in operands:
            return None
        other = operands[1] if operands[0] == shuffles[0] else operands[0]
        return operation if other is not None and other.type == "identifier" and self.text(other) == target else None

    def _shuffles_self(self, call: tree_sitter.Node, target: str, variable: str) -> bool:
        """``call`` shuffles ``target`` by the loop's offset ``variable`` across the whole warp."""
        name = _call_name(self.scan, call)
        arguments = [c for c in call.child_by_field_name("arguments").named_children if c.type != "comment"]
        if name in shuffle_macros(self.scan):  # M(v, o): the intrinsic's value and offset, no mask
            return len(arguments) == 2 and self.text(_strip(arguments[0])) == target and \
                self.text(_strip(arguments[1])) == variable
        lane_index, width_index = _SHUFFLE_ARGUMENTS[name]
        return (name not in _SOURCE_LANE_SHUFFLES and len(arguments) == lane_index + 1
                and self.text(_strip(arguments[lane_index - 1])) == target
                and self.text(_strip(arguments[lane_index])) == variable and name not in ("__shfl_up_sync", "__shfl_up"))

    def whole_functions(self) -> dict[str, str]:
        """The functions returning a whole-warp result of their parameters (:func:`_whole_functions`)."""
        return _whole_functions(self.scan, self.functions)

    def _aggregates(self) -> set[str]:
        """The collective locals that hold a whole-warp result: every collective write of them is
        of one form, 'loop', 'vote' or 'call', and of one kind (:meth:`_write_form`), which
        :attr:`kinds` keeps. Per-thread writes (its input) may come before; a per-thread write or
        an increment after the first collective write replaces or changes the result, so the
        local is no whole-warp result."""
        forms: dict[str, set[str]] = {}
        kinds: dict[str, set[str | None]] = {}
        first_collective: dict[str, int] = {}
        for target, value, node in _local_writes(self.flow):
            if target not in self.held:
                continue
            if any(_is_source(self.flow, part, self.held, self.functions) for part in _warp._descendants(value)):
                form, kind = self._write_form(target, value, node)
                if form == "loop":  # one reduction: a second one would reduce the results again
                    form = f"loop@{self._full_loop(node).start_byte}"
                elif node.type == "assignment_expression" and self.text(node.child_by_field_name("operator")) != "=":
                    form = "partial"  # accumulates whole-warp results: one per warp at 32, at 64 fewer
                forms.setdefault(target, set()).add(form)
                kinds.setdefault(target, set()).add(kind)
                first_collective.setdefault(target, node.start_byte)
            elif target in first_collective:
                forms[target].add("partial")  # a per-thread value replaces the whole-warp result
        for node in _warp._descendants(self.flow.function):
            if node.type == "update_expression":
                argument = _strip(node.child_by_field_name("argument"))
                name = self.text(argument) if argument is not None and argument.type == "identifier" else ""
                if name in first_collective and node.start_byte > first_collective[name]:
                    forms[name].add("partial")  # ``v++`` after the reduction: one more per warp
        self._forms = {name: {form.split("@")[0] for form in found} for name, found in forms.items()}
        whole = {name for name, found in forms.items()
                 if len(found) == 1 and "partial" not in found and len(kinds[name]) == 1 and None not in kinds[name]}
        self.kinds = {name: next(iter(kinds[name])) for name in whole}
        return whole

    def kind_of(self, value: tree_sitter.Node) -> str | None:
        """The kind of whole-warp result ``value`` is as it stands, through parentheses and casts:
        a local holding one (:attr:`kinds`), a vote, or a call of a function returning one; None
        for anything else, a value computed from one included (``v > 200``, ``c * c``)."""
        stripped = _strip(value)
        if stripped is None:
            return None
        if stripped.type == "identifier":
            name = self.text(stripped)
            return self.kinds.get(name) if name in self.aggregates else None
        if stripped.type == "call_expression":
            form, kind = self._write_form("", stripped, stripped)
            return kind if form in ("vote", "call") else None
        return None

    def text(self, node) -> str:
        return self.flow.text(node)

    def lane_zero_guard(self, node: tree_sitter.Node) -> bool:
        return self.flow.lane_zero_guard(node)

    def unsafe(self, node: tree_sitter.Node) -> str | None:
        """Why the collective value ``node`` reaches a place whose result depends on the warp's
        width once widened, or None."""
        child = node
        while True:
            parent = child.parent
            if parent is None:
                return "it leaves the function"
            kind = parent.type
            if kind in _TRANSPARENT or kind in ("binary_expression", "unary_expression"):
                child = parent
                continue
            if kind == "conditional_expression":
                if parent.child_by_field_name("condition") == child:
                    return "the code branches on it"
                child = parent
                continue
            if kind == "update_expression":
                return None
            if kind == "argument_list":
                call = parent.parent
                name = _call_name(self.scan, call) if call is not None else ""
                if name in COLLECTIVE_CALLS or name in self.functions or name in shuffle_macros(self.scan):
                    return None  # the call's result is followed on its own
                named = [c for c in parent.named_children if c.type != "comment"]
                if name in _MASK_CALLS and named and named[0] == child:
                    return None  # a lane mask (``__syncwarp(__activemask())``): hipport.warp widens masks
                if name in _PURE_CALLS:
                    child = call
                    continue
                named = [c for c in parent.named_children if c.type != "comment"]
                if name in _COMBINING_ATOMICS and len(named) > 1 and named[1] == child:
                    if not self.lane_zero_guard(call):
                        return "it is combined atomically by every lane, not by the first lane of each warp"
                    kind = self.kind_of(child)
                    if kind is None:
                        return "the first lane of each warp combines a value that is not a whole-warp result " \
                               "as the reduction left it"
                    problem = combine_problem(kind, _COMBINING_ATOMICS[name])
                    return f"the first lane of each warp gives it to {name}: {problem}" if problem else None
                return f"it is passed to {name or 'a call'}"
            if kind == "init_declarator" and parent.child_by_field_name("value") == child:
                target = parent.child_by_field_name("declarator")
                return None if target is not None and target.type == "identifier" else "it initialises an array or object"
            if kind == "assignment_expression" and parent.child_by_field_name("right") == child:
                left = _strip(parent.child_by_field_name("left"))
                if left is not None and left.type == "identifier" and self.text(left) in self.flow.scope.declared:
                    return None
                if left is not None and left.type == "subscript_expression":
                    array = _strip(left.child_by_field_name("argument"))
                    name = self.text(array) if array is not None and array.type == "identifier" else ""
                    indices = left.child_by_field_name("indices")
                    index = indices.named_children[0] if indices is not None and indices.named_children else None
                    if name in self.flow.shared and self.flow.shared[name] != "2d" and \
                            self.flow.kind(index) == "warp" and self.lane_zero_guard(parent):
                        self.slots.add(name)
                        kind = self.kind_of(child)
                        if kind is None:
                            return "the first lane of each warp stores a value that is not a whole-warp result " \
                                   "as the reduction left it"
                        self.slot_kinds.setdefault(name, set()).add(kind)
                        problem = combine_problem(kind, kind) if kind in _NONZERO_IDENTITY else None
                        return f"the first lane of each warp stores it in a per-warp slot: {problem}" if problem else None
                return "it is stored to memory other than a per-warp __shared__ slot written by the warp's first lane"
            if kind in ("subscript_argument_list", "subscript_expression"):
                return "it indexes memory"
            if kind == "return_statement":
                return None  # the function returns a collective value: its callers are checked
            if kind == "expression_statement":
                return None
            if kind in ("condition_clause", "if_statement", "while_statement", "do_statement", "for_statement",
                        "switch_statement"):
                return "the code branches on it"
            return "it is used where --fix cannot follow it"

    def slot_read(self, node: tree_sitter.Node) -> str | None:
        """A read of a per-warp slot array is right at both widths only as a fold over every
        warp: ``for (w = 0; w < <warp count>; ++w) t += s[w];`` into a local."""
        indices = node.child_by_field_name("indices")
        index = _strip(indices.named_children[0]) if indices is not None and indices.named_children else None
        name = self.text(index) if index is not None and index.type == "identifier" else ""
        loop = node.parent
        while loop is not None and loop.type != "for_statement":
            loop = loop.parent
        variable, start = self.scan.loop_start(loop.child_by_field_name("initializer")) if loop is not None else ("", None)
        condition = _strip(loop.child_by_field_name("condition")) if loop is not None else None
        if not (name and variable == name and start is not None and self.text(start) == "0" and condition is not None
                and condition.type == "binary_expression"
                and self.text(condition.child_by_field_name("operator")) == "<"
                and self.text(condition.child_by_field_name("left")).strip() == name
                and (self.scan.is_warp_count(condition.child_by_field_name("right"))
                     or self.flow._rounded_warp_count(condition.child_by_field_name("right")))):
            return "it is read other than by a loop over every warp of the block"
        bound = _strip(condition.child_by_field_name("right"))
        if not self._follows_the_width(bound):
            return (f"the loop reading the slots is bounded by `{' '.join(self.text(bound).split())}`, a count of "
                    "32-lane warps that --fix does not rewrite (widened, it reads slots no wavefront wrote)")
        operation = self._fold_operation(node)
        if operation is None:
            return "it is read other than into a local folding every warp's slot by one operation " \
                   "(t += s[w], t = max(t, s[w]), ...)"
        array = self.text(_strip(node.child_by_field_name("argument")))
        problems = sorted(filter(None, (combine_problem(kind, operation) for kind in self.slot_kinds.get(array, ()))))
        return f"the slots are folded by {operation}: {problems[0]}" if problems else None

    def _follows_the_width(self, count: tree_sitter.Node | None) -> bool:
        """The warp count ``count`` (a slot loop's bound) counts wavefronts once widened: it divides
        by ``warpSize``, or divides ``blockDim`` by 32 (which --fix rewrites to the wavefront
        count), directly or through a local; ``kBlock / 32`` or ``BLOCK / 32`` keeps counting
        32-lane warps."""
        count = self.flow.through_locals(count)
        if count is None:
            return False
        text = "".join(self.text(count).split())
        return "warpSize" in text or "blockDim." in text

    def _fold_operation(self, node: tree_sitter.Node) -> str | None:
        """The operation by which the slot read ``node`` is folded into a local ``t``: ``t op= s[w]``,
        ``t = t op s[w]`` (either order) or ``t = max(t, s[w])`` (and min, fmaxf, ...); None when
        it is read any other way."""
        child = node
        while child.parent is not None and child.parent.type in _TRANSPARENT:
            child = child.parent
        parent = child.parent
        if parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("right") == child:
            operator = self.text(parent.child_by_field_name("operator"))
            return self._local_fold(parent, _COMBINING_OPERATORS.get(operator[:-1]) if operator != "=" else None, None)
        if parent is not None and parent.type == "binary_expression":
            operation = _COMBINING_OPERATORS.get(self.text(parent.child_by_field_name("operator")))
            operands = [parent.child_by_field_name("left"), parent.child_by_field_name("right")]
        elif parent is not None and parent.type == "argument_list" and parent.parent is not None:
            operation = _COMBINING_CALLS.get(_call_name(self.scan, parent.parent))
            operands = [c for c in parent.named_children if c.type != "comment"]
            parent = parent.parent
        else:
            return None
        if operation is None or len(operands) != 2:
            return None
        other = _strip(operands[1] if operands[0] == child else operands[0])
        while parent.parent is not None and parent.parent.type in _TRANSPARENT:
            parent = parent.parent
        write = parent.parent
        if write is None or write.type != "assignment_expression" or write.child_by_field_name("right") != parent or \
                self.text(write.child_by_field_name("operator")) != "=":
            return None
        return self._local_fold(write, operation, other)

    def _local_fold(self, write: tree_sitter.Node, operation: str | None, other: tree_sitter.Node | None) -> str | None:
        """``operation`` when ``write`` assigns a local of the function and ``other`` (the second
        operand of a ``t = t op s[w]`` fold, None for ``t op= s[w]``) is that local."""
        left = _strip(write.child_by_field_name("left"))
        if operation is None or left is None or left.type != "identifier" or self.text(left) not in self.flow.scope.declared:
            return None
        if other is not None and (other.type != "identifier" or self.text(other) != self.text(left)):
            return None
        return operation


def _whole_functions(scan: "_Scan", functions: frozenset[str]) -> dict[str, str]:
    """The functions of the file that return a whole-warp result of their parameters (a
    ``warp_reduce``: every ``return`` gives a local holding one reduction's result), each with
    the kind of its result (:meth:`_Collective._write_form`), and those of the tree's headers
    the file is compiled with (:func:`_tree_collectives`); cached on the scan. ``functions``:
    :func:`collective_functions`."""
    cached = getattr(scan, "_whole_functions", None)
    if cached is not None:
        return cached
    scan._whole_functions = {}  # while computing: a call of one is no whole-warp result (a fixed point is not sought)
    kinds_of: dict[str, set[str | None]] = {}  # every definition of a name (overloads) must return one kind
    for function in file_nodes(scan.ctx, "function_definition"):
        name = scan.function_name(function).split("::")[-1]
        if name not in functions:
            continue
        other = _Collective(_Flow(scan, function))
        returns = [_strip(n.named_children[0]) for n in _warp._descendants(function)
                   if n.type == "return_statement" and n.named_children]
        if returns and all(r is not None and r.type == "identifier" and other.text(r) in other.aggregates
                           for r in returns):
            kinds_of.setdefault(name, set()).update(other.kinds[other.text(r)] for r in returns)
        else:
            kinds_of.setdefault(name, set()).add(None)
    found = {name: kind for name, kind in _tree_collectives(scan).items() if kind is not None and name not in kinds_of}
    found.update({name: next(iter(kinds)) for name, kinds in kinds_of.items() if len(kinds) == 1 and None not in kinds})
    scan._whole_functions = found
    return scan._whole_functions


def unsafe_collective_uses(scan: "_Scan", function: tree_sitter.Node,
                           flow: "_Flow | None" = None) -> list[tuple[tree_sitter.Node, str]]:
    """The places in ``function`` where widening would change what the program computes through
    a warp-collective result (a shuffle's, a vote's, or a function returning one), each as
    (node, reason with its line).

    A collective result means "over my warp": widened, the warp is a whole wavefront (64 lanes on
    gfx9), so such a value is right only where the program combines it the same way at any
    width. Accepted: arithmetic and pure functions of it, locals holding it, further
    collectives, a ``return`` (the callers are checked), and, in the first lane of each warp
    (``if (lane == 0)``), a combining atomic (``atomicAdd`` & co.) or a store to a ``__shared__``
    slot indexed by the warp number whose slots are then read only by a loop over every warp
    into a local (``for (w = 0; w < blockDim.x / 32; ++w) t += s[w]``). Anything else (a store
    per thread, an index, a branch on it, a second reduction over the slots) is unsafe; so is a
    write to memory or a call under an ``if`` on a lane or warp number that does not carry such a
    result (``if (lane == 0) atomicAdd(count, 1)`` counts the warps).
    """
    text = scan.ctx.source[function.start_byte:function.end_byte]
    if not _COLLECTIVE_WORDS.search(text) and not collective_functions(scan) and \
            not any(name.encode() in text for name in shuffle_macros(scan)):
        return []
    flow = flow or _Flow(scan, function)
    collective = _Collective(flow)
    found: list[tuple[tree_sitter.Node, str]] = []

    def add(node: tree_sitter.Node, what: str, reason: str) -> None:
        found.append((node, f"{what} (line {node.start_point[0] + 1}) makes the result depend on the warp's width: "
                            f"{reason}"))

    sources = [node for node in _warp._descendants(function) if _is_source(flow, node, collective.held, collective.functions)]
    for node in sources:
        reason = collective.unsafe(node)
        if reason is not None:
            shown = " ".join(scan.text(node).split())
            add(node, f"the warp-collective value `{shown[:60]}`", reason)
    if collective.slots:
        for node in _warp._descendants(function):
            if node.type != "subscript_expression":
                continue
            array = _strip(node.child_by_field_name("argument"))
            if array is None or array.type != "identifier" or scan.text(array) not in collective.slots:
                continue
            parent = node.parent
            if parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
                continue
            reason = collective.slot_read(node)
            if reason is not None:
                add(node, f"the per-warp slot `{' '.join(scan.text(node).split())}`", reason)
    for node in _warp._descendants(function):  # effects chosen by a lane or warp number that carry no collective result
        if node.type != "if_statement":
            continue
        condition = node.child_by_field_name("condition")
        if condition is None or not any(flow.kind(part) is not None for part in _warp._descendants(condition)
                                        if part.type in ("identifier", "binary_expression", "call_expression")):
            continue
        for branch in (node.child_by_field_name("consequence"), node.child_by_field_name("alternative")):
            for effect in _warp._descendants(branch) if branch is not None else ():
                if effect.type == "assignment_expression":
                    left = _strip(effect.child_by_field_name("left"))
                    if left is not None and left.type == "identifier" and scan.text(left) in flow.scope.declared:
                        continue
                    value = effect.child_by_field_name("right")
                elif effect.type == "call_expression" and _call_name(scan, effect) not in _PURE_CALLS | COLLECTIVE_CALLS \
                        and _call_name(scan, effect) not in collective.functions:
                    value = effect.child_by_field_name("arguments")
                else:
                    continue
                if value is None or not any(_is_source(flow, part, collective.held, collective.functions)
                                            for part in _warp._descendants(value)):
                    add(effect, f"`{' '.join(scan.text(effect).split())[:60]}`",
                        "it runs in the threads an if on a lane or warp number picks, and carries no warp-collective result")
    return found
