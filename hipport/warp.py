"""Wavefront-size analysis: code that assumes 32-wide warps.

AMD CDNA/GCN GPUs run 64-wide wavefronts (RDNA runs 32 or 64), and HIP's ``*_sync`` warp
builtins take 64-bit lane masks (``static_assert`` since ROCm 6.2, so a 32-bit mask is a
compile error). This pass, one scan per idiom, reports:

* full 32-bit literal masks (``0xffffffff``) passed to ``__shfl*_sync``, ``__ballot_sync``,
  ``__any_sync``, ``__all_sync``, ``__match_*_sync``, ``__reduce_*_sync``: always widened to
  ``0xffffffffffffffffULL`` (otherwise the port does not compile) and reported (HP1101);
* masks and ballot results kept in 32-bit variables, and ballots counted with ``__popc``
  (HP1102); also named full-mask constants outside functions (``constexpr unsigned kFullMask =
  0xffffffff;`` in a header, ``#define FULL_MASK 0xffffffff``), which other files pass as masks;
* the literals 32, 31, 0x1f and shifts by 5 in lane or warp arithmetic, i.e. next to
  ``threadIdx``, ``laneId``/``warpId``-like names or ``warpSize`` (HP1103);
* shuffle reduction loops that start at offset 16 (HP1104);
* ``#define WARP_SIZE 32``, ``constexpr int kWarpSize = 32`` and ``static_assert``s on a warp
  size of 32 (HP1105);
* one-dimensional ``__shared__`` arrays sized 32 or ``something / 32`` (HP1106);
* warp-synchronous last-warp code, ``if (tid < 32) { s[tid] += s[tid + 16]; ... }`` with no
  barrier (HP1110).

With ``fix`` (``hipport convert --fix``) the safe rewrites are applied and reported as HP1107
instead: 32-bit ballot destinations and mask variables become ``unsigned long long`` (and a
full-mask initialiser or named full-mask constant the 64-bit full mask),
``__popc`` of a ballot becomes ``__popcll``, and ``threadIdx.x % 32``, ``/ 32``, ``& 31``,
``& 0x1f`` and ``>> 5`` become ``warpSize`` arithmetic -- only where the other operand is
exactly ``threadIdx.x``, ``.y`` or ``.z``, the one case that is provably lane arithmetic.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tree_sitter

from .edits import Edit

if TYPE_CHECKING:
    from .analyze import _FileContext

MASK_FUNCTIONS = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp",
})
BALLOT_FUNCTIONS = frozenset({"__ballot_sync", "__ballot", "__activemask"})
_CALLS = re.compile(rb"(?<![A-Za-z0-9_])(__shfl\w*_sync|__ballot_sync|__ballot|__any_sync|__all_sync|__match_\w+_sync"
                    rb"|__reduce_\w+_sync|__syncwarp|__activemask)\s*\(")
_FULL_MASK = re.compile(r"^(0[xX][fF]{8}[uU]?|4294967295[uU]?|~0[uU]?|0[xX][fF]{8}[uU][lL]{0,2})$")
WIDE_FULL_MASK = b"0xffffffffffffffffULL"
_NARROW_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint32_t", "std::uint32_t", "uint", "int32_t"})
_LANE_NAMES = re.compile(r"threadIdx|lane|warp", re.IGNORECASE)
_LANE_LITERALS = re.compile(rb"(?<![A-Za-z0-9_.])(32|31|0[xX]1[fF]|5)(?![A-Za-z0-9_.])")
_LANE_OPERATORS = {"32": {"%", "/", "<", ">=", "*"}, "31": {"&", "==", "<=", ">"}, "0x1f": {"&"}, "5": {">>", "<<"}}
_LOOP_16 = re.compile(rb"(?<![A-Za-z0-9_.])16(?![A-Za-z0-9_.])")
_WARP_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:WARP|[Ww]arp)\w*)[ \t]+\(?32[uU]?\)?[ \t]*(?://.*|/\*.*)?$",
                          re.MULTILINE)
_WARP_CONSTANT = re.compile(rb"\b(\w*(?:WARP|[Ww]arp)_?(?:SIZE|[Ss]ize)\w*)\s*=\s*32[uU]?\s*;")
_WARP_ASSERT = re.compile(rb"static_assert\s*\([^;]*(?:WARP|[Ww]arp)[^;]*==\s*32\b[^;]*\)")
_SHARED_32 = re.compile(rb"__shared__[^;{}]*?\b\w+\s*\[\s*(32|[A-Za-z_][\w.]*\s*/\s*32)\s*\]\s*(?:;|=)")


def _call_name(ctx: "_FileContext", call: tree_sitter.Node) -> str:
    function = call.child_by_field_name("function")
    return ctx.text(function).decode("ascii", "replace") if function is not None else ""


def _first_argument(call: tree_sitter.Node) -> tree_sitter.Node | None:
    arguments = call.child_by_field_name("arguments")
    named = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
    return named[0] if named else None


def _enclosing(node: tree_sitter.Node, types: tuple[str, ...]) -> tree_sitter.Node | None:
    while node is not None and node.type not in types:
        node = node.parent
    return node


def _declared_type(ctx: "_FileContext", name: str, scope: tree_sitter.Node | None) -> tuple[str, int, int] | None:
    """How a variable ``name`` is declared in ``scope``: (type text with blanks normalised,
    start and end byte of the type), or None."""
    if scope is None:
        return None
    pattern = re.compile(rb"(?:^|[;{(,]\s*)(?:const\s+)?([A-Za-z_][\w:]*(?:\s+(?:int|long|short))?)\s+"
                         + re.escape(name.encode()) + rb"\s*(?:=|;|,|\))", re.MULTILINE)
    match = pattern.search(ctx.text(scope))
    if match is None:
        return None
    return " ".join(match.group(1).decode().split()), scope.start_byte + match.start(1), scope.start_byte + match.end(1)


WIDE_TYPE = b"unsigned long long"
_THREAD_INDEX = re.compile(r"^threadIdx\.[xyz]$")
#: --fix rewrites of (operator, literal) next to threadIdx: new operator and operand text.
_LANE_FIXES = {("%", "32"): ("%", "warpSize"), ("/", "32"): ("/", "warpSize"), ("&", "31"): ("&", "(warpSize - 1)"),
               ("&", "0x1f"): ("&", "(warpSize - 1)"), (">>", "5"): ("/", "warpSize")}


class _Fixer:
    """Applies --fix rewrites once per byte range (a variable used by several calls is widened once)."""

    def __init__(self, ctx: "_FileContext", enabled: bool):
        self.ctx, self.enabled, self.done = ctx, enabled, set()

    def replace(self, start: int, end: int, text: bytes, at, what: str) -> bool:
        """Replace ``[start, end)`` with ``text`` and report it; False when fixing is off."""
        if not self.enabled:
            return False
        if (start, end) not in self.done:
            self.done.add((start, end))
            self.ctx.result.edits.append(Edit(start, end, text))
            self.ctx.report("warp-fixed", at, name=what,
                            expression=self.ctx.source[start:end].decode("utf-8", "replace"),
                            replacement=text.decode())
        return True


def analyze_warps(ctx: "_FileContext", fix: bool = False) -> None:
    """Run every wavefront-size check on one file (edits and findings go into ``ctx.result``).

    Args:
        ctx: the file being analysed.
        fix: apply the safe rewrites (see the module docstring) instead of only reporting them.
    """
    source = ctx.source
    fixer = _Fixer(ctx, fix)
    if b"_sync" in source or b"__ballot" in source or b"__activemask" in source:
        _masks_and_ballots(ctx, fixer)
    if b"ask" in source or b"ASK" in source:
        _mask_constants(ctx, fixer)
    if b"32" in source or b"31" in source or b"0x1" in source or b"0X1" in source or b">> 5" in source or b">>5" in source:
        _lane_literals(ctx, fixer)
    if b"16" in source and b"__shfl" in source:
        _shuffle_loops(ctx)
    for pattern, what in ((_WARP_DEFINE, "macro"), (_WARP_CONSTANT, "constant"), (_WARP_ASSERT, "static_assert")):
        for match in pattern.finditer(source):
            node = ctx.node_at(match.start(), match.start() + 1)
            if node.type in ("comment", "string_content", "string_literal"):
                continue
            ctx.report("warp-size-constant", node, name=match.group(1).decode() if what != "static_assert" else "static_assert",
                       what=what)
    if b"< 32" in source or b"<32" in source:
        _warp_synchronous(ctx)
    if b"__shared__" in source:
        for match in _SHARED_32.finditer(source):
            node = ctx.node_at(match.start(1), match.end(1))
            if node.type in ("comment", "string_content"):
                continue
            ctx.report("warp-shared-array", node, name=match.group(1).decode(), size=match.group(1).decode())


def _widen_full_mask_initializer(ctx: "_FileContext", fixer: _Fixer, name: str, type_end: int, at) -> None:
    """A widened mask variable initialised with the 32-bit full mask must select all 64 lanes too."""
    match = re.compile(rb"\s+" + re.escape(name.encode()) + rb"\s*=\s*([0-9A-Za-z~]+)\s*[;,]").match(ctx.source, type_end)
    if match and _FULL_MASK.match(match.group(1).decode()):
        fixer.replace(match.start(1), match.end(1), WIDE_FULL_MASK, at, f"the mask {name}")


def _masks_and_ballots(ctx: "_FileContext", fixer: _Fixer) -> None:
    for match in _CALLS.finditer(ctx.source):
        token = ctx.node_at(match.start(1), match.end(1))
        call = token.parent
        if token.type != "identifier" or call is None or call.type != "call_expression":
            continue
        name = match.group(1).decode()
        if name in MASK_FUNCTIONS:
            mask = _first_argument(call)
            if mask is not None:
                text = ctx.text(mask).decode("ascii", "replace").strip()
                if _FULL_MASK.match(text):
                    ctx.result.edits.append(Edit(mask.start_byte, mask.end_byte, WIDE_FULL_MASK))
                    ctx.report("warp-mask-widened", mask, name=name, mask=text)
                elif mask.type == "identifier":
                    scope = _enclosing(call, ("function_definition",))
                    declared = _declared_type(ctx, text, scope)
                    if declared is not None and declared[0] in _NARROW_TYPES:
                        if fixer.replace(declared[1], declared[2], WIDE_TYPE, mask, f"the mask {text}"):
                            _widen_full_mask_initializer(ctx, fixer, text, declared[2], mask)
                        else:
                            ctx.report("warp-32bit-mask", mask, name=name, what=f"the mask {text} is declared {declared[0]}")
        if name in BALLOT_FUNCTIONS:
            parent = call.parent
            if parent is not None and parent.type == "init_declarator":
                declaration = parent.parent
                type_node = declaration.child_by_field_name("type") if declaration is not None else None
                declared = " ".join(ctx.text(type_node).decode().split()) if type_node is not None else ""
                if declaration is not None and b"unsigned" in ctx.text(declaration).split(b"=")[0] and declared == "int":
                    declared = "unsigned int"
                if declared in _NARROW_TYPES:
                    if not fixer.replace(type_node.start_byte, type_node.end_byte, WIDE_TYPE, call, f"the result of {name}"):
                        ctx.report("warp-32bit-mask", call, name=name, what=f"its result is stored as {declared}")
            outer = _enclosing(call.parent, ("call_expression",)) if call.parent is not None else None
            if outer is not None and _call_name(ctx, outer) == "__popc":
                function = outer.child_by_field_name("function")
                if not fixer.replace(function.start_byte, function.end_byte, b"__popcll", call, f"the count of {name}"):
                    ctx.report("warp-32bit-mask", call, name=name, what="its result is counted with __popc (32 bits)")


_MASK_CONSTANT = re.compile(
    rb"(?<![\w])(?:static\s+)?(?:constexpr|const)\s+(?:static\s+)?(?:__device__\s+)?"
    rb"(unsigned\s+int|unsigned|uint32_t|std::uint32_t)\s+(\w*(?:[Mm]ask|MASK)\w*)\s*=\s*([0-9A-Za-z~]+)\s*;")
_MASK_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:[Mm]ask|MASK)\w*)[ \t]+\(?([0-9A-Za-z~]+)\)?[ \t]*(?://.*|/\*.*)?$",
                          re.MULTILINE)


def _mask_constants(ctx: "_FileContext", fixer: _Fixer) -> None:
    """Named full 32-bit masks outside functions: other files pass them to the *_sync builtins,
    where a 32-bit full mask selects half a wavefront and fails HIP's 64-bit static_assert."""
    for match in _MASK_CONSTANT.finditer(ctx.source):
        if not _FULL_MASK.match(match.group(3).decode()):
            continue
        node = ctx.node_at(match.start(2), match.end(2))
        if node.type in ("comment", "string_content", "string_literal") or _enclosing(node, ("function_definition",)):
            continue  # masks inside functions are judged where a call uses them
        name, declared = match.group(2).decode(), " ".join(match.group(1).decode().split())
        if fixer.replace(match.start(1), match.end(1), WIDE_TYPE, node, f"the mask {name}"):
            fixer.replace(match.start(3), match.end(3), WIDE_FULL_MASK, node, f"the mask {name}")
        else:
            ctx.report("warp-32bit-mask", node, name=name, what=f"the full mask {name} is declared {declared}")
    for match in _MASK_DEFINE.finditer(ctx.source):
        if not _FULL_MASK.match(match.group(2).decode()):
            continue
        node = ctx.node_at(match.start(1), match.end(1))
        name = match.group(1).decode()
        if not fixer.replace(match.start(2), match.end(2), WIDE_FULL_MASK, node, f"the mask {name}"):
            ctx.report("warp-32bit-mask", node, name=name, what=f"the macro {name} is the 32-bit full mask")


def _lane_literals(ctx: "_FileContext", fixer: _Fixer) -> None:
    for match in _LANE_LITERALS.finditer(ctx.source):
        node = ctx.node_at(match.start(1), match.end(1))
        binary = node.parent
        if node.type != "number_literal" or binary is None or binary.type != "binary_expression":
            continue
        operator = binary.child_by_field_name("operator")
        literal = match.group(1).decode().lower()
        if operator is None or ctx.text(operator).decode() not in _LANE_OPERATORS.get(literal, ()):
            continue
        left, right = binary.child_by_field_name("left"), binary.child_by_field_name("right")
        other = right if left is not None and left.start_byte == node.start_byte else left
        other_text = ctx.text(other).decode("utf-8", "replace") if other is not None else ""
        if not _LANE_NAMES.search(other_text):
            continue
        operator_text = ctx.text(operator).decode()
        rewrite = _LANE_FIXES.get((operator_text, literal))
        if rewrite and left is not None and other.start_byte == left.start_byte and _THREAD_INDEX.match(other_text.strip()):
            new_operator, operand = rewrite
            replacement = f"{new_operator} {operand}".encode()
            if fixer.replace(operator.start_byte, node.end_byte, replacement, node, "lane arithmetic"):
                continue
        ctx.report("warp-size-literal", node, name=literal,
                   expression=" ".join(ctx.text(binary).decode("utf-8", "replace").split()))


def _shuffle_loops(ctx: "_FileContext") -> None:
    for match in _LOOP_16.finditer(ctx.source):
        node = ctx.node_at(match.start(), match.end())
        loop = _enclosing(node, ("for_statement", "compound_statement", "function_definition"))
        if node.type != "number_literal" or loop is None or loop.type != "for_statement":
            continue
        initializer = loop.child_by_field_name("initializer")
        body = loop.child_by_field_name("body")
        if initializer is None or body is None or not (initializer.start_byte <= node.start_byte < initializer.end_byte):
            continue
        if b"__shfl" in ctx.text(body):
            ctx.report("warp-shuffle-loop", node, name="16",
                       loop=" ".join(ctx.text(loop).decode("utf-8", "replace").split("{")[0].split()))


_LAST_WARP = re.compile(rb"\bif\s*\(\s*([A-Za-z_][\w.]*)\s*<\s*32\s*\)")


def _warp_synchronous(ctx: "_FileContext") -> None:
    """``if (tid < 32) { s[tid] += s[tid + 16]; ... }`` with no barrier inside (HP1110)."""
    for match in _LAST_WARP.finditer(ctx.source):
        node = ctx.node_at(match.start(), match.start() + 2)
        statement = node.parent if node.type == "if" else None
        if statement is None or statement.type != "if_statement":
            continue
        body = statement.child_by_field_name("consequence")
        text = ctx.text(body) if body is not None else b""
        if re.search(rb"\+\s*16\s*\]", text) and b"__syncwarp" not in text and b"__syncthreads" not in text:
            ctx.report("warp-synchronous", statement, name=match.group(1).decode(),
                       condition=f"{match.group(1).decode()} < 32")
