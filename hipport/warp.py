"""Wavefront-size analysis: code that assumes 32-wide warps, and ``--fix``'s rewrites of it.

AMD CDNA/GCN GPUs (gfx90a, gfx942) run 64-wide wavefronts, RDNA GPUs (gfx1030, gfx1100) 32-wide
ones, and HIP's ``*_sync`` warp builtins take 64-bit lane masks (a ``static_assert`` since ROCm
6.2). ROCm 7 made ``warpSize`` a run-time value (HIP 6.4 declares it ``static constexpr int
warpSize = __AMDGCN_WAVEFRONT_SIZE``, amd_detail/amd_warp_functions.h:96; HIP 7 reads
``__builtin_amdgcn_wavefrontsize()``), so a port is right only when it holds at both widths and
uses ``warpSize`` at run time only. This pass reports:

* full 32-bit literal masks (``0xffffffff``) passed to the ``*_sync`` builtins: always widened to
  ``0xffffffffffffffffULL`` (otherwise the port does not compile) and reported (HP1101);
* masks and ballot results kept in 32-bit variables, and ballots counted with ``__popc``
  (HP1102); also named full-mask constants outside functions;
* the literals 32, 31, 0x1f and shifts by 5 in lane or warp arithmetic: next to ``threadIdx``,
  ``blockDim``, ``laneId``/``warpId``-like names or ``warpSize``, and ``< 32`` ending a shuffle
  loop (HP1103);
* shuffle loops that start at offset 16, and shuffles by a literal offset 16 (HP1104);
* ``#define WARP_SIZE 32``, ``constexpr int kWarpSize = 32`` and ``static_assert``s on a warp
  size of 32 (HP1105);
* one-dimensional ``__shared__`` arrays sized 32 or ``something / 32`` (HP1106);
* warp-synchronous last-warp code with no barrier (HP1110);
* 32-bit lane masks: ``1u << lane``, and ``__popc``/``__ffs`` of a lane mask (HP1112);
* ``warpSize`` (or a warp-size constant --fix would turn into it) used as a constant expression:
  array sizes, template arguments, ``static_assert``, ``constexpr`` initialisers, ``case``
  labels, enumerators, ``if constexpr`` (HP1113);
* ``__AMDGCN_WAVEFRONT_SIZE``, deprecated in ROCm 7 (HP1114).

``--fix`` (``fix=True``) is all or nothing per function. Every 32-wide assumption found in a
function is an *item* with the edits that fix it, or with none when no rewrite is known to be
right at widths 32 and 64. Units are unions: a warp-size constant joins every function that
uses it (one changed definition changes them all), a function joins the functions of the same
file it calls, and a file-scope declaration with an assumption (``constexpr int kWarps = kBlock /
kWarpSize;``) joins the functions that use its names. A call to a function named like a
wavefront helper (``lane_id``, ``warp_sum``) that is defined outside the converted tree is an
item with no fix: its width is decided there.

Across files (:func:`warp_tree`, a prepass of ``convert --fix`` over the whole tree, before any
file is decided): a warp-size constant or define of a header, and a device function of a
header, that other files of the tree use are *tree keys*. Every unit of any file that defines
or uses one joins it, so the header and all its users are rewritten together or not at all:
one item with no fix anywhere leaves every unit of every file joined to it, each with an
HP1111 naming the file and function that blocked it. The data still flows one way: the
prepass scans each file as this pass would and decides the keys; each file is then ported on
its own with those decisions (:class:`WarpTree`). A full-mask constant outside functions is a unit of its own
(widening it is right at both widths). A unit is
rewritten only when every item in it has a fix; the edits are then applied and each reported as
HP1107. Otherwise nothing in the unit is changed, its findings are reported as without --fix and
each of its functions gets an HP1111 error naming the first assumption --fix could not rewrite.

The rewrite rules (each one right at both widths, and never putting ``warpSize`` where a
constant expression is needed):

* a 32-bit variable holding a ballot, ``__activemask()``, a lane mask or a value derived from
  them becomes ``unsigned long long`` (a full-mask initialiser the 64-bit full mask), provided
  every use of it is one of: the mask argument of a ``*_sync`` builtin, ``&``/``|``/``^``/``~``
  with other lane masks, ``m - 1``, a test against 0 or a condition, an assignment to another
  such variable, ``__popc``/``__ffs`` (which become ``__popcll``/``__ffsll``); anything else
  (a store through a pointer, a return, an argument of another function) leaves the function;
* ``1 << lane``/``1u << lane`` used as a lane mask becomes ``1ull << lane``;
* ``threadIdx.x % 32``, ``/ 32``, ``& 31``, ``& 0x1f``, ``>> 5`` (also on a local copy of
  ``threadIdx.x``) become ``warpSize`` arithmetic; ``blockDim.x / 32`` (and ``>> 5``), the number
  of warps, becomes ``(blockDim.x + warpSize - 1) / warpSize``, which counts a partly filled last
  wavefront too; every other literal (``lane == 31``, ``threadIdx.x < 32``) leaves the function;
* a shuffle loop ``for (int o = 16; o > 0; o >>= 1)`` (``o /= 2``, ``o >= 1``) starts at
  ``warpSize / 2``; an up-sweep ``for (o = 1; o < 32; o <<= 1)`` ends at ``< warpSize``; a
  literal shuffle offset 16 leaves the function;
* a ``__shared__`` array of 32 slots indexed only by warp numbers keeps 32 slots (at most 32
  warps of a 1024-thread block at width 32, 16 at width 64); indexed by lane numbers too it gets
  ``HIPPORT_WAVEFRONT_MAX`` (64) slots; an ``n / 32`` array indexed by warp numbers keeps its size
  (the most warps any width gives); any other index leaves the function;
* ``#define WARP_SIZE 32`` in a ``.cu``/``.cpp`` file becomes ``#define WARP_SIZE warpSize`` when
  every use of it in the file is in device code and at run time, or sizes an array: there
  ``WARP_SIZE`` as a factor or term becomes ``HIPPORT_WAVEFRONT_MAX`` (64, the widest wavefront)
  and as a divisor ``HIPPORT_WAVEFRONT_MIN`` (32, which gives the most warps), both defined by
  --fix next to it; ``blockDim.x / WARP_SIZE`` becomes the rounded-up wavefront count. A
  ``constexpr``/``const`` warp-size constant keeps its definition and its uses are rewritten
  the same way (to ``warpSize`` at run time). Any other constant-expression use (template
  argument, ``static_assert``, ``constexpr`` initialiser, ``case`` label, ``#if``, another macro),
  a use in host code, a define in a header or a define with no use in its file (unless other
  files of the converted tree use it: then their uses decide, see above) leaves the constant and
  every function using it as written; so does a
  function using a warp-size name defined outside the tree;
* ``warpSize`` sizing an array follows the same rule (``HIPPORT_WAVEFRONT_MAX``/``_MIN``); any
  other constant-expression use of ``warpSize`` leaves the function.

Device code ("a use in host code" above; the tree's device functions) is what
:func:`hipport.device_context.function_kind` says: ``__global__``/``__device__`` written in a
function's specifiers, or a macro for them of the file or of a tree header it includes
(``#define LANE_FN __device__ __forceinline__``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Protocol

import tree_sitter

from .device_context import function_kind
from .edits import Edit
from .parse import LANGUAGE
from .project_macros import SpecifierMacros, TreeSources, specifier_macros


class WarpContext(Protocol):
    """What this pass needs of the file being analysed (``hipport.analyze._FileContext`` is one)."""

    path: str
    source: bytes
    root: tree_sitter.Node
    result: object  # has ``edits``: list[Edit]
    specifier_macros: SpecifierMacros  # macros for __device__ & co (hipport.project_macros)

    def node_at(self, start: int, end: int) -> tree_sitter.Node: ...

    def text(self, node: tree_sitter.Node) -> bytes: ...

    def report(self, check_name: str, node_or_point, name: str = "", **fields: str) -> None: ...


MASK_FUNCTIONS = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp",
})
BALLOT_FUNCTIONS = frozenset({"__ballot_sync", "__ballot", "__activemask"})
SHUFFLES = {"__shfl_sync": 2, "__shfl_up_sync": 2, "__shfl_down_sync": 2, "__shfl_xor_sync": 2,
            "__shfl": 1, "__shfl_up": 1, "__shfl_down": 1, "__shfl_xor": 1}
_CALLS = re.compile(rb"(__(?:shfl\w*_sync|ballot_sync|ballot|any_sync|all_sync|match_\w+_sync"
                    rb"|reduce_\w+_sync|syncwarp|activemask))\s*\(")
_FULL_MASK = re.compile(r"^(0[xX][fF]{8}[uU]?|4294967295[uU]?|~0[uU]?|0[xX][fF]{8}[uU][lL]{0,2})$")
WIDE_FULL_MASK = b"0xffffffffffffffffULL"
WIDE_TYPE = b"unsigned long long"
_NARROW_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint32_t", "std::uint32_t", "uint", "int32_t"})
_WIDE_TYPES = frozenset({"unsigned long long", "unsigned long long int", "uint64_t", "std::uint64_t", "auto",
                         "long long", "unsigned long", "lane_mask"})
_LANE_NAMES = re.compile(r"threadIdx|blockDim|lane|warp", re.IGNORECASE)
_LANE_LITERALS = re.compile(rb"(?<![A-Za-z0-9_.])(32|31|0[xX]1[fF]|5)(?![A-Za-z0-9_.])")
_LANE_OPERATORS = {"32": {"%", "/", "<", ">=", "*"}, "31": {"&", "==", "<=", ">"}, "0x1f": {"&"}, "5": {">>", "<<"}}
_LOOP_16 = re.compile(rb"(?<![A-Za-z0-9_.])16(?![A-Za-z0-9_.])")
_WARP_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:WARP|[Ww]arp)\w*)[ \t]+(\(?32[uU]?\)?)[ \t]*(?://.*|/\*.*)?$",
                          re.MULTILINE)
_WARP_CONSTANT = re.compile(rb"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*=\s*32[uU]?\s*;")
_WARP_ASSERT = re.compile(rb"static_assert\s*\([^;]*(?:WARP|[Ww]arp)[^;]*==\s*32\b[^;]*\)")
_WARP_SIZE_CORE = re.compile(rb"(?:WARP|[Ww]arp)_?(?:SIZE|[Ss]ize)")
_WARP_SIZE_WORD = re.compile(r"^\w*(?:WARP|[Ww]arp)_?(?:SIZE|[Ss]ize)\w*$")
_WORD = re.compile(rb"[A-Za-z0-9_]*")
_SHARED_32 = re.compile(rb"__shared__[^;{}]*?\b(\w+)\s*\[\s*(32|[A-Za-z_][\w.]*\s*/\s*32)\s*\]\s*(?:;|=)")
_WARPSIZE = re.compile(rb"(?<![A-Za-z0-9_])warpSize(?![A-Za-z0-9_])")
_AMDGCN_WAVEFRONT = re.compile(rb"(?<![A-Za-z0-9_])__AMDGCN_WAVEFRONT_SIZE(?![A-Za-z0-9_])")
_THREAD_INDEX = re.compile(r"^threadIdx\.[xyz]$")
_BLOCK_DIM = re.compile(r"^blockDim\.[xyz]$")
_LANE_CALL = re.compile(r"^(__lane_id|\w*lane_?id\w*|\w*[Ll]ane[Ii]d\w*)$")
_WARP_CALL = re.compile(r"^(\w*warp_?id\w*|\w*[Ww]arp[Ii]d\w*)$")
#: Functions named like wavefront helpers (lane_id, warp_sum, warpReduce): defined in another
#: file, their width is unknown here.
_WARP_HELPER = re.compile(r"(?:^|_)(?:lane|Lane|LANE|warp|Warp|WARP)|(?<=[a-z0-9])(?:Lane|Warp)")
_IDENT_BYTES = frozenset(bytes([b]) for b in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ONE_SHIFT = re.compile(rb"1[uU]?[ \t]*(<<)(?!=)")
_LANE_WORD = re.compile(r"(?:^|_)(?:lane|Lane|LANE)|(?<=[a-z0-9])Lane")
_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc")
#: --fix rewrites of (operator, literal) next to threadIdx: new operator and operand text.
_LANE_FIXES = {("%", "32"): ("%", "warpSize"), ("/", "32"): ("/", "warpSize"), ("&", "31"): ("&", "(warpSize - 1)"),
               ("&", "0x1f"): ("&", "(warpSize - 1)"), (">>", "5"): ("/", "warpSize")}
WAVEFRONT_MAX, WAVEFRONT_MIN = b"HIPPORT_WAVEFRONT_MAX", b"HIPPORT_WAVEFRONT_MIN"
_WAVEFRONT_BLOCK = (b"#ifndef HIPPORT_WAVEFRONT_MAX{nl}"
                    b"#define HIPPORT_WAVEFRONT_MAX 64 /* hipport --fix: the widest wavefront (gfx9); sizes per-lane arrays */{nl}"
                    b"#define HIPPORT_WAVEFRONT_MIN 32 /* hipport --fix: the narrowest; sizes per-wavefront arrays */{nl}"
                    b"#endif{nl}")
_CODE_SKIP = ("comment", "string_content", "string_literal", "char_literal", "raw_string_literal", "system_lib_string")


@dataclass
class _Fix:
    """One byte edit of --fix and how HP1107 names it."""

    start: int
    end: int
    text: bytes
    what: str
    at: tree_sitter.Node
    block: bool = False  # needs the HIPPORT_WAVEFRONT_* macros before ``start``
    silent: bool = False  # not reported (the macros inserted next to a warp-size define)


@dataclass
class _Item:
    """One 32-wide assumption: its finding (reported unless --fix rewrites its unit), and its fixes
    (None: no rewrite is right at both widths; ``reason`` says why)."""

    unit: object
    at: tree_sitter.Node | tuple[int, int]
    check: str | None
    name: str = ""
    fields: dict = field(default_factory=dict)
    fixes: list[_Fix] | None = field(default_factory=list)
    reason: str = ""
    label: str = ""  # how HP1111 names it outside a function
    standalone: bool = False  # right on its own at both widths (a full mask widened): never joins a function


def _strip(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _enclosing(node: tree_sitter.Node | None, types: tuple[str, ...]) -> tree_sitter.Node | None:
    while node is not None and node.type not in types:
        node = node.parent
    return node


def _first_argument(call: tree_sitter.Node) -> tree_sitter.Node | None:
    arguments = call.child_by_field_name("arguments")
    named = [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []
    return named[0] if named else None


def _arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    return [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []


# Query sources, compiled on first use (about 0.02 CPU s each): importing this module stays cheap
# for the commands that never analyse a source.
_DEFINITIONS = "(function_definition) @definition"
_CALL_NODES = "(call_expression) @call"
_DECLARATIONS = "[(declaration) (parameter_declaration)] @declaration"


@functools.cache
def _compiled(source: str) -> tree_sitter.Query:
    return tree_sitter.Query(LANGUAGE, source)


def _query(query: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The nodes the query source ``query`` captures under ``node``, in source order."""
    found = [n for nodes in tree_sitter.QueryCursor(_compiled(query)).captures(node).values() for n in nodes]
    return sorted(found, key=lambda n: n.start_byte)


def _descendants(node: tree_sitter.Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


class _Locals:
    """The variables declared in one function: name -> (type node, declarator node, value node)."""

    def __init__(self, ctx: WarpContext, function: tree_sitter.Node):
        self.declared: dict[str, tuple[tree_sitter.Node | None, tree_sitter.Node, tree_sitter.Node | None]] = {}
        self.twice: set[str] = set()  # declared more than once (in nested scopes): not followed
        for node in _query(_DECLARATIONS, function):
            type_node = node.child_by_field_name("type")
            for declarator in node.children_by_field_name("declarator"):
                value = None
                if declarator.type == "init_declarator":
                    value = declarator.child_by_field_name("value")
                    name_node = declarator.child_by_field_name("declarator")
                else:
                    name_node = declarator
                if name_node is not None and name_node.type == "identifier":
                    name = ctx.text(name_node).decode()
                    if name in self.declared:
                        self.twice.add(name)
                    self.declared.setdefault(name, (type_node, name_node, value))

    def type_text(self, ctx: WarpContext, name: str) -> str:
        entry = self.declared.get(name)
        if entry is None or entry[0] is None:
            return ""
        declaration = entry[0].parent
        text = " ".join(ctx.text(entry[0]).decode().split())
        if text == "int" and declaration is not None and b"unsigned" in ctx.text(declaration).split(b"=")[0]:
            return "unsigned int"
        return text



def _union_root(parent: dict, key):
    """The root of ``key``'s set in the union-find forest ``parent`` (child -> parent; a key not
    seen yet becomes its own root), halving the path on the way."""
    parent.setdefault(key, key)
    while parent[key] != key:
        parent[key] = parent[parent[key]]
        key = parent[key]
    return key

class _Scan:
    """Collects the items of one file, then reports or fixes them unit by unit."""

    def __init__(self, ctx: WarpContext, fix: bool, tree: "WarpTree | None" = None):
        self.ctx, self.fix, self.tree = ctx, fix, tree
        self.items: list[_Item] = []
        self.links: list[tuple[object, object]] = []
        self._locals: dict[int, _Locals] = {}
        self.constants: dict[str, object] = {}  # warp-size constant name -> its unit

    # -- helpers ---------------------------------------------------------------------------------
    def text(self, node: tree_sitter.Node | None) -> str:
        return self.ctx.text(node).decode("utf-8", "replace") if node is not None else ""

    def function_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        return _enclosing(node, ("function_definition",))

    def unit_of(self, node: tree_sitter.Node) -> object:
        function = self.function_of(node)
        return function.start_byte if function is not None else ("file", node.start_byte)

    def locals_of(self, function: tree_sitter.Node | None) -> _Locals | None:
        if function is None:
            return None
        if function.start_byte not in self._locals:
            self._locals[function.start_byte] = _Locals(self.ctx, function)
        return self._locals[function.start_byte]

    def function_name(self, function: tree_sitter.Node) -> str:
        declarator = function.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in ("identifier", "field_identifier", "qualified_identifier",
                                                                 "operator_name", "destructor_name", "template_function"):
            declarator = declarator.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "template_function":
            declarator = declarator.child_by_field_name("name")
        return self.text(declarator) or "this function"

    def is_device(self, function: tree_sitter.Node) -> bool:
        """``function`` runs on the GPU: ``__global__``/``__device__`` in its specifiers, or a
        macro for them (:func:`hipport.device_context.function_kind`)."""
        return function_kind(self.ctx, function) is not None

    def add(self, item: _Item) -> _Item:
        self.items.append(item)
        return item

    def fix_of(self, start: int, end: int, text: bytes, what: str, at, block: bool = False) -> _Fix:
        return _Fix(start, end, text, what, at, block)

    def is_code(self, node: tree_sitter.Node) -> bool:
        return node.type not in _CODE_SKIP and node.type != "preproc_arg"

    def value_of(self, node: tree_sitter.Node, depth: int = 0) -> tree_sitter.Node | None:
        """The initialiser of a local variable named by ``node`` (an identifier), else None."""
        node = _strip(node)
        if node is None or node.type != "identifier" or depth > 4:
            return None
        scope = self.locals_of(self.function_of(node))
        entry = scope.declared.get(self.text(node)) if scope is not None else None
        return entry[2] if entry is not None else None

    def is_thread_index(self, node: tree_sitter.Node | None, depth: int = 0) -> bool:
        node = _strip(node)
        if node is None:
            return False
        if node.type == "field_expression":
            return bool(_THREAD_INDEX.match("".join(self.text(node).split())))
        value = self.value_of(node) if depth < 4 else None
        return value is not None and self.is_thread_index(value, depth + 1)

    def is_width(self, node: tree_sitter.Node | None, literal: str) -> bool:
        """``node`` is ``literal`` (32, or 31/0x1f for the lane bits), or the same written with
        ``warpSize`` or a warp-size constant of this file (``warpSize - 1`` for 31)."""
        node = _strip(node)
        if node is None:
            return False
        text = "".join(self.text(node).split()).strip("()")
        widths = ["warpSize", *self.constants]
        if literal == "32":
            return text == "32" or text in widths
        return text.lower() == literal or text in [f"{w}-1" for w in widths]

    def index_kind(self, node: tree_sitter.Node | None, depth: int = 0) -> str | None:
        """'lane', 'warp' or None for an index expression (lane or warp number of the thread)."""
        node = _strip(node)
        if node is None or depth > 4:
            return None
        if node.type == "call_expression":
            name = self.text(node.child_by_field_name("function"))
            if _LANE_CALL.match(name):
                return "lane"
            if _WARP_CALL.match(name):
                return "warp"
            return None
        if node.type == "binary_expression":
            operator = self.text(node.child_by_field_name("operator"))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if not self.is_thread_index(left):
                return None
            if operator == "%" and self.is_width(right, "32") or operator == "&" and (
                    self.is_width(right, "31") or self.is_width(right, "0x1f")):
                return "lane"
            if operator == "/" and self.is_width(right, "32") or operator == ">>" and self.text(right).strip() == "5":
                return "warp"
            return None
        if node.type == "identifier":
            value = self.value_of(node)
            kind = self.index_kind(value, depth + 1) if value is not None else None
            return kind or ("warp" if self.loop_bounded_by_warps(node) else None)
        return None

    def is_warp_count(self, node: tree_sitter.Node | None, depth: int = 0) -> bool:
        """``blockDim.x / 32``, ``/ warpSize``, the rounded-up form, ``N / 32``, or a local set to one."""
        node = _strip(node)
        if node is None or depth > 4:
            return False
        if node.type == "identifier":
            value = self.value_of(node)
            return value is not None and self.is_warp_count(value, depth + 1)
        if node.type != "binary_expression" or self.text(node.child_by_field_name("operator")) not in ("/", ">>"):
            return False
        right = node.child_by_field_name("right")
        return self.is_width(right, "32") or self.text(right).strip() == "5"

    def loop_bounded_by_warps(self, identifier: tree_sitter.Node) -> bool:
        """``identifier`` is the variable of an enclosing ``for (w = 0; w < <warp count>; ...)``."""
        name = self.text(identifier)
        loop = _enclosing(identifier, ("for_statement",))
        while loop is not None:
            condition = _strip(loop.child_by_field_name("condition"))
            if (condition is not None and condition.type == "binary_expression"
                    and self.text(condition.child_by_field_name("operator")) == "<"
                    and self.text(condition.child_by_field_name("left")).strip() == name):
                return self.is_warp_count(condition.child_by_field_name("right"))
            loop = _enclosing(loop.parent, ("for_statement",))
        return False

    # -- checks ----------------------------------------------------------------------------------
    def run(self) -> None:
        ctx, source = self.ctx, self.ctx.source
        self.warp_constants()
        if b"_sync" in source or b"__ballot" in source or b"__activemask" in source or b"<<" in source:
            self.masks_and_ballots()
        if b"ask" in source or b"ASK" in source:
            self.mask_constants()
        if b"32" in source or b"31" in source or b"0x1" in source or b"0X1" in source or b">> 5" in source or b">>5" in source:
            self.lane_literals()
        if b"__shfl" in source:
            self.shuffle_loops()
        if b"< 32" in source or b"<32" in source:
            self.warp_synchronous()
        if b"__shared__" in source:
            self.shared_arrays()
        if b"warpSize" in source:
            self.warp_size_constant_expressions()
        if self.items:  # only a file with a 32-wide assumption needs its call graph
            self.call_links()
            self.file_scope_links()
        for match in _AMDGCN_WAVEFRONT.finditer(source) if b"__AMDGCN_WAVEFRONT_SIZE" in source else ():
            node = ctx.node_at(match.start(), match.end())
            if node.type not in _CODE_SKIP:
                ctx.report("wavefront-size-macro", node, name="__AMDGCN_WAVEFRONT_SIZE")

    def call_links(self) -> None:
        """A function and the functions of this file it calls are fixed together or not at all:
        a rewritten caller must not combine its 64-wide lane arithmetic with a callee left at 32."""
        definitions: dict[str, list[tree_sitter.Node]] = {}
        calls: list[tuple[tree_sitter.Node, str]] = []
        for node in _query(_DEFINITIONS, self.ctx.root):
            definitions.setdefault(self.function_name(node).split("::")[-1], []).append(node)
        for node in _query(_CALL_NODES, self.ctx.root):
            function = node.child_by_field_name("function")
            if function is not None and function.type in ("identifier", "qualified_identifier", "template_function"):
                calls.append((node, self.text(function).split("<")[0].split("::")[-1].strip()))
        if self.tree is not None:  # functions of this header other files call: one fate across the tree
            for name, same in definitions.items():
                if self.tree.functions.get(name) == self.ctx.path:
                    for node in same:
                        self.links.append((node.start_byte, ("tree", "function", name)))
        for same in definitions.values():  # overloads and specializations share their fate
            for other in same[1:]:
                self.links.append((same[0].start_byte, other.start_byte))
        for call, name in calls:
            caller = self.function_of(call)
            for callee in definitions.get(name, ()):
                if caller is not None and callee.start_byte != caller.start_byte:
                    self.links.append((caller.start_byte, callee.start_byte))
            shared = self.tree.functions.get(name) if self.tree is not None else None
            if caller is not None and name not in definitions and shared is not None and shared != self.ctx.path:
                # an item with nothing to rewrite: the caller is reported when the helper is left
                self.add(_Item(caller.start_byte, call, None, name, {}, []))
                self.links.append((caller.start_byte, ("tree", "function", name)))
                continue
            if caller is not None and name not in definitions and not name.startswith("__") and _WARP_HELPER.search(name):
                self.add(_Item(caller.start_byte, call, None, name, {}, None,
                               f"it calls {name} (line {call.start_point[0] + 1}), defined in another file: --fix "
                               "cannot tell which wavefront width that function assumes"))

    def file_scope_links(self) -> None:
        """A function that uses a name declared by a file-scope declaration holding a 32-wide
        assumption (``constexpr int kWarps = kBlock / kWarpSize;``) is fixed with it or not at all."""
        declared: dict[str, object] = {}
        for item in self.items:
            if (not (isinstance(item.unit, tuple) and item.unit[0] == "file") or not hasattr(item.at, "start_byte")
                    or item.standalone):
                continue
            top = item.at
            while top.parent is not None and top.parent.type not in ("translation_unit", "declaration_list"):
                top = top.parent
            if top.type != "declaration":
                continue
            for declarator in top.children_by_field_name("declarator"):
                name_node = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
                if name_node is not None and name_node.type == "identifier":
                    declared[self.text(name_node)] = item.unit
        if not declared:
            return
        pattern = re.compile(rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(n.encode()) for n in declared) + rb")(?![A-Za-z0-9_])")
        for match in pattern.finditer(self.ctx.source):
            token = self.ctx.node_at(match.start(), match.end())
            function = self.function_of(token) if token.type == "identifier" else None
            if function is not None:
                self.links.append((function.start_byte, declared[match.group(1).decode()]))

    # Masks and ballots ------------------------------------------------------------------------
    def masks_and_ballots(self) -> None:
        ctx = self.ctx
        calls: list[tuple[str, tree_sitter.Node]] = []
        for match in _CALLS.finditer(ctx.source):
            if match.start() and ctx.source[match.start() - 1:match.start()] in _IDENT_BYTES:
                continue
            token = ctx.node_at(match.start(1), match.end(1))
            call = token.parent
            if token.type != "identifier" or call is None or call.type != "call_expression":
                continue
            calls.append((match.group(1).decode(), call))
        functions: dict[int, tree_sitter.Node] = {}
        for name, call in calls:
            mask = _first_argument(call) if name in MASK_FUNCTIONS else None
            if mask is not None and _FULL_MASK.match(self.text(mask).strip()):
                ctx.result.edits.append(Edit(mask.start_byte, mask.end_byte, WIDE_FULL_MASK))
                ctx.report("warp-mask-widened", mask, name=name, mask=self.text(mask).strip())
            function = self.function_of(call)
            if function is not None:
                functions[function.start_byte] = function
        for match in _ONE_SHIFT.finditer(ctx.source) if b"<<" in ctx.source else ():  # 1 << lane, 1u << lane
            if match.start() and ctx.source[match.start() - 1:match.start()] in _IDENT_BYTES | {b"."}:
                continue
            node = ctx.node_at(match.start(1), match.end(1))
            function = self.function_of(node)
            if node.type == "<<" and function is not None:
                functions.setdefault(function.start_byte, function)
        for function in functions.values():
            _MaskFunction(self, function).run()

    def mask_constants(self) -> None:
        """Named full 32-bit masks outside functions: other files pass them to the *_sync builtins,
        where a 32-bit full mask selects half a wavefront and fails HIP's 64-bit static_assert.
        Widening a full mask is right at both widths, so each is a unit of its own."""
        ctx = self.ctx
        for match in _MASK_CONSTANT.finditer(ctx.source):
            if not _FULL_MASK.match(match.group(3).decode()):
                continue
            node = ctx.node_at(match.start(2), match.end(2))
            if not self.is_code(node) or self.function_of(node) is not None:
                continue  # masks inside functions are judged where a call uses them
            name, declared = match.group(2).decode(), " ".join(match.group(1).decode().split())
            self.add(_Item(("file", match.start()), node, "warp-32bit-mask", name,
                           {"what": f"the full mask {name} is declared {declared}"},
                           [self.fix_of(match.start(1), match.end(1), WIDE_TYPE, f"the mask {name}", node),
                            self.fix_of(match.start(3), match.end(3), WIDE_FULL_MASK, f"the mask {name}", node)],
                           standalone=True))
        for match in _MASK_DEFINE.finditer(ctx.source):
            if not _FULL_MASK.match(match.group(2).decode()):
                continue
            node = ctx.node_at(match.start(1), match.end(1))
            name = match.group(1).decode()
            self.add(_Item(("file", match.start()), node, "warp-32bit-mask", name,
                           {"what": f"the macro {name} is the 32-bit full mask"},
                           [self.fix_of(match.start(2), match.end(2), WIDE_FULL_MASK, f"the mask {name}", node)],
                           standalone=True))

    # Warp-size constants ----------------------------------------------------------------------
    def warp_constants(self) -> None:
        ctx, source = self.ctx, self.ctx.source
        defined: dict[str, tuple[str, re.Match, tree_sitter.Node]] = {}
        scans = ((_WARP_DEFINE, "macro"), (_WARP_CONSTANT, "constant")) if (
            (b"arp" in source or b"ARP" in source) and _WARP_SIZE_CORE.search(source)) else ()
        for pattern, what in scans:
            for match in pattern.finditer(source):
                if not _WARP_SIZE_WORD.match(match.group(1).decode()) and what == "constant":
                    continue
                node = ctx.node_at(match.start(1), match.end(1))
                if node.type in ("comment", "string_content", "string_literal"):
                    continue
                defined.setdefault(match.group(1).decode(), (what, match, node))
        tree = self.tree.constants if self.tree is not None else {}
        for name, (what, match, node) in defined.items():
            shared = tree.get(name)
            self.constants[name] = ("tree", "constant", name) if shared is not None and shared[1] == ctx.path \
                else ("constant", name)
        # Warp-size constants a header of the tree defines (WarpTree): their uses here are
        # rewritten with every other use in the tree, or none is.
        for name, (what, path) in tree.items():
            if name not in defined and path != ctx.path and name.encode() in source:
                self.constants[name] = ("tree", "constant", name)
                self.warp_constant(name, what, None, None)
        for name, (what, match, node) in defined.items():
            self.warp_constant(name, what, match, node)
        for match in _WARP_ASSERT.finditer(source):
            node = ctx.node_at(match.start(), match.start() + 1)
            if node.type in ("comment", "string_content", "string_literal"):
                continue
            named = [n for n in self.constants if re.search(rb"\b" + re.escape(n.encode()) + rb"\b", match.group())]
            unit = self.constants[named[0]] if named else self.unit_of(node)
            self.add(_Item(unit, node, "warp-size-constant", "static_assert", {"what": "static_assert"}, None,
                           "a static_assert on a warp size of 32 is false on 64-wide wavefronts"))
        # Warp-size names defined elsewhere: --fix cannot know what they will be.
        seen: set[int] = set()
        for core in _WARP_SIZE_CORE.finditer(source) if scans else ():
            start = core.start()
            while start > 0 and source[start - 1:start] in _IDENT_BYTES:
                start -= 1
            match = _WORD.match(source, start)
            if start in seen:
                continue
            seen.add(start)
            name = match.group().decode()
            if name in self.constants or name == "warpSize" or name.lower() in ("warpsize",):
                continue
            node = ctx.node_at(match.start(), match.end())
            if node.type not in ("identifier", "type_identifier") or node.parent is None:
                continue
            parent = node.parent
            if parent.type in ("init_declarator", "function_declarator", "parameter_declaration", "field_declaration",
                               "preproc_def", "enumerator") and parent.child_by_field_name(
                    "declarator" if parent.type != "enumerator" and parent.type != "preproc_def" else "name") == node:
                continue  # a declaration of it here, with another value
            if parent.type == "field_expression":
                continue  # prop.warpSize and friends
            self.add(_Item(self.unit_of(node), node, None, name, {}, None,
                           f"{name} (line {node.start_point[0] + 1}) is a warp-size constant that --fix cannot rewrite "
                           "here (not `= 32` in this file)"))

    def warp_constant(self, name: str, what: str, match: re.Match | None, node: tree_sitter.Node | None) -> None:
        """The definition of the warp-size constant ``name`` (``match``/``node``; None when a
        header of the tree defines it and this file only uses it) and its uses in this file."""
        ctx, source = self.ctx, self.ctx.source
        unit = self.constants[name]
        shared = unit[0] == "tree"
        definition = None
        if match is not None:
            definition = _Item(unit, node, "warp-size-constant", name, {"what": what}, label=f"the definition of {name}")
            self.add(definition)
        is_macro = what == "macro"
        uses, needs_block = [], False
        for use in re.finditer(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])", source):
            if match is not None and match.start() <= use.start() < match.end():
                continue
            token = ctx.node_at(use.start(), use.end())
            if token.type in _CODE_SKIP:
                continue
            if token.type == "preproc_arg" or self._in_preproc_condition(token):
                self.add(_Item(("file", use.start()), token, None, name, {}, None,
                               f"{name} is used in a preprocessor line (line {token.start_point[0] + 1})"))
                self.links.append((("file", use.start()), unit))
                continue
            uses.append(token)
        if definition is not None and not uses and not shared:
            definition.fixes = None
            definition.reason = f"{name} is not used in this file: the files that use it decide what it must be"
            return
        if definition is not None and ctx.path.lower().endswith(_HEADER_SUFFIXES) and not shared:
            definition.fixes = None
            definition.reason = f"{name} is defined in a header: the files that include it use it too"
        for token in uses:
            item_unit = self.unit_of(token)
            self.links.append((item_unit, unit))
            item = self.add(_Item(item_unit, token, None, name))
            function = self.function_of(token)
            context = self.constant_context(token)
            line = token.start_point[0] + 1
            if context == "an array size":
                replacement = self.array_size_bound(token)
                if replacement is None:
                    item.fixes, item.reason = None, f"{name} sizes an array in an expression --fix cannot bound (line {line})"
                else:
                    needs_block = True
                    item.fixes = [self.fix_of(token.start_byte, token.end_byte, replacement,
                                              f"the array size {name}", token, block=not is_macro or definition is None)]
                continue
            if context is not None:
                item.fixes, item.reason = None, f"{name} is used as {context} (line {line})"
                continue
            if function is None:
                item.fixes, item.reason = None, f"{name} is used outside a function (line {line})"
                continue
            if not self.is_device(function):
                item.fixes, item.reason = None, f"{name} is used in host code, which has no warpSize (line {line})"
                continue
            binary = token.parent
            if (binary is not None and binary.type == "binary_expression" and self.text(binary.child_by_field_name("operator")) == "/"
                    and binary.child_by_field_name("right") == token
                    and _BLOCK_DIM.match("".join(self.text(binary.child_by_field_name("left")).split()))):
                left = self.text(binary.child_by_field_name("left"))
                width = name if is_macro else "warpSize"
                item.fixes = [self.fix_of(binary.start_byte, binary.end_byte,
                                          f"({left} + {width} - 1) / {width}".encode(), "the wavefront count", token)]
            elif not is_macro:
                item.fixes = [self.fix_of(token.start_byte, token.end_byte, b"warpSize", "the warp size", token)]
        if is_macro and definition is not None and definition.fixes is not None:
            end = source.find(b"\n", match.end())
            end = len(source) if end < 0 else end + 1
            definition.fixes = [self.fix_of(match.start(2), match.end(2), b"warpSize", f"the macro {name}", node)]
            if needs_block:
                newline = b"\r\n" if source[end - 2:end] == b"\r\n" else b"\n"
                prefix = b"" if source[end - 1:end] == b"\n" else newline
                definition.fixes.append(_Fix(end, end, prefix + _WAVEFRONT_BLOCK.replace(b"{nl}", newline),
                                             "the wavefront bounds", node, silent=True))

    def _in_preproc_condition(self, token: tree_sitter.Node) -> bool:
        directive = _enclosing(token, ("preproc_if", "preproc_elif"))
        condition = directive.child_by_field_name("condition") if directive is not None else None
        return condition is not None and condition.start_byte <= token.start_byte < condition.end_byte

    def constant_context(self, token: tree_sitter.Node) -> str | None:
        """Where a use needs a constant expression ('an array size', 'a template argument', ...), or None."""
        node, child = token.parent, token
        while node is not None:
            kind = node.type
            if kind == "array_declarator":
                size = node.child_by_field_name("size")
                if size is not None and size.start_byte <= token.start_byte < size.end_byte:
                    return "an array size"
            elif kind == "template_argument_list":
                return "a template argument"
            elif kind == "static_assert_declaration":
                return "a static_assert"
            elif kind == "case_statement":
                value = node.child_by_field_name("value")
                if value is not None and value.start_byte <= token.start_byte < value.end_byte:
                    return "a case label"
                return None
            elif kind == "enumerator":
                return "an enumerator value"
            elif kind == "bitfield_clause":
                return "a bit-field width"
            elif kind == "init_declarator":
                declaration = node.parent
                if declaration is not None and any(c.type == "type_qualifier" and self.text(c) == "constexpr"
                                                   for c in declaration.children):
                    return "a constexpr initialiser"
            elif kind == "condition_clause" and node.parent is not None and node.parent.type == "if_statement" and any(
                    c.type == "constexpr" for c in node.parent.children):
                return "an if constexpr condition"
            elif kind in ("preproc_if", "preproc_elif") and self._in_preproc_condition(token):
                return "a #if condition"
            elif kind in ("compound_statement", "function_definition", "translation_unit", "lambda_expression",
                          "expression_statement", "return_statement", "for_statement", "while_statement",
                          "if_statement", "do_statement", "field_declaration_list", "argument_list"):
                return None
            child, node = node, node.parent
        return None

    def array_size_bound(self, token: tree_sitter.Node) -> bytes | None:
        """The compile-time stand-in for a width ``token`` inside an array size: the maximum
        where the size grows with the width (a term or factor), the minimum where it shrinks
        (a divisor), None for any other place."""
        node, role = token, "grows"
        while True:
            parent = node.parent
            if parent is None:
                return None
            if parent.type == "array_declarator":
                return WAVEFRONT_MAX if role == "grows" else WAVEFRONT_MIN
            if parent.type == "parenthesized_expression":
                node = parent
                continue
            if parent.type != "binary_expression":
                return None
            operator = self.text(parent.child_by_field_name("operator"))
            is_right = parent.child_by_field_name("right") == node
            if operator in ("+", "*") or operator == "-" and not is_right:
                pass
            elif operator == "/" and not is_right:
                pass
            elif operator == "/" and is_right:
                role = "shrinks" if role == "grows" else "grows"
            else:
                return None
            node = parent

    # Lane arithmetic --------------------------------------------------------------------------
    def lane_literals(self) -> None:
        ctx = self.ctx
        for match in _LANE_LITERALS.finditer(ctx.source):
            node = ctx.node_at(match.start(1), match.end(1))
            binary = node.parent
            if node.type != "number_literal" or binary is None or binary.type != "binary_expression":
                continue
            operator = binary.child_by_field_name("operator")
            literal = match.group(1).decode().lower()
            operator_text = self.text(operator)
            if operator is None or operator_text not in _LANE_OPERATORS.get(literal, ()):
                continue
            left, right = binary.child_by_field_name("left"), binary.child_by_field_name("right")
            other = right if left is not None and left.start_byte == node.start_byte else left
            other_text = self.text(other)
            if not _LANE_NAMES.search(other_text) and not self.is_thread_index(other):
                continue
            if (not re.search(r"threadIdx|lane|warp", other_text, re.IGNORECASE) and not self.is_thread_index(other)
                    and operator_text not in ("/", ">>")):
                continue  # blockDim only counts warps: blockDim.x / 32
            item = self.add(_Item(self.unit_of(node), node, "warp-size-literal", literal,
                                  {"expression": " ".join(self.text(binary).split())}, None))
            on_left = left is not None and other is not None and other.start_byte == left.start_byte
            rewrite = _LANE_FIXES.get((operator_text, literal))
            if rewrite and on_left and self.is_thread_index(other):
                new_operator, operand = rewrite
                item.fixes = [self.fix_of(operator.start_byte, node.end_byte, f"{new_operator} {operand}".encode(),
                                          "lane arithmetic", node)]
            elif (operator_text, literal) in (("/", "32"), (">>", "5")) and on_left and _BLOCK_DIM.match(
                    "".join(other_text.split())):
                item.fixes = [self.fix_of(binary.start_byte, binary.end_byte,
                                          f"({other_text} + warpSize - 1) / warpSize".encode(), "the wavefront count", node)]
            else:
                item.reason = f"{item.fields['expression']} (line {node.start_point[0] + 1}) has no rewrite known to be right at both widths"

    def shuffle_loops(self) -> None:
        ctx = self.ctx
        for match in re.finditer(rb"\bfor\s*\(", ctx.source):
            loop = ctx.node_at(match.start(), match.start() + 3).parent
            if loop is None or loop.type != "for_statement":
                continue
            body = loop.child_by_field_name("body")
            if body is None or b"__shfl" not in ctx.text(body):
                continue
            initializer = loop.child_by_field_name("initializer")
            condition = _strip(loop.child_by_field_name("condition"))
            update = loop.child_by_field_name("update")
            variable, start = self.loop_start(initializer)
            head = " ".join(self.ctx.source[loop.start_byte:body.start_byte].decode("utf-8", "replace").split())
            if start is not None and self.text(start) == "16":
                item = self.add(_Item(self.unit_of(start), start, "warp-shuffle-loop", "16", {"loop": head}, None))
                if self.halves(variable, condition, update):
                    item.fixes = [self.fix_of(start.start_byte, start.end_byte, b"warpSize / 2", "the shuffle loop", start)]
                else:
                    item.reason = f"the shuffle loop `{head}` (line {start.start_point[0] + 1}) is not a plain halving loop"
            elif (start is not None and self.text(start) == "1" and condition is not None
                  and condition.type == "binary_expression" and self.text(condition.child_by_field_name("operator")) == "<"
                  and self.text(condition.child_by_field_name("left")).strip() == variable
                  and self.text(condition.child_by_field_name("right")).strip() == "32"):
                bound = condition.child_by_field_name("right")
                item = self.add(_Item(self.unit_of(bound), bound, "warp-size-literal", "32",
                                      {"expression": " ".join(self.text(condition).split())}, None))
                if self.doubles(variable, update):
                    item.fixes = [self.fix_of(bound.start_byte, bound.end_byte, b"warpSize", "the shuffle loop", bound)]
                else:
                    item.reason = f"the shuffle loop `{head}` (line {bound.start_point[0] + 1}) is not a plain doubling loop"
        for name, index in SHUFFLES.items():
            for match in re.finditer(rb"(?<![A-Za-z0-9_])" + name.encode() + rb"\s*\(", ctx.source):
                token = ctx.node_at(match.start(), match.start() + len(name))
                call = token.parent
                if token.type != "identifier" or call is None or call.type != "call_expression":
                    continue
                arguments = _arguments(call)
                if len(arguments) > index and self.text(arguments[index]).strip() == "16":
                    offset = arguments[index]
                    self.add(_Item(self.unit_of(offset), offset, "warp-shuffle-loop", "16",
                                   {"loop": " ".join(self.text(call).split())}, None,
                                   f"the shuffle `{' '.join(self.text(call).split())}` (line {offset.start_point[0] + 1}) "
                                   "has a literal offset"))

    def loop_start(self, initializer) -> tuple[str, tree_sitter.Node | None]:
        if initializer is None:
            return "", None
        if initializer.type == "declaration":
            declarators = initializer.children_by_field_name("declarator")
            if len(declarators) == 1 and declarators[0].type == "init_declarator":
                return (self.text(declarators[0].child_by_field_name("declarator")),
                        _strip(declarators[0].child_by_field_name("value")))
        if initializer.type == "assignment_expression" and self.text(initializer.child_by_field_name("operator")) == "=":
            return self.text(initializer.child_by_field_name("left")).strip(), _strip(initializer.child_by_field_name("right"))
        return "", None

    def halves(self, variable: str, condition, update) -> bool:
        if not variable or condition is None or update is None:
            return False
        condition_text = "".join(self.text(condition).split())
        update_text = "".join(self.text(update).split())
        return (condition_text in (f"{variable}>0", f"{variable}>=1", f"0<{variable}", variable)
                and update_text in (f"{variable}>>=1", f"{variable}/=2", f"{variable}={variable}/2", f"{variable}={variable}>>1"))

    def doubles(self, variable: str, update) -> bool:
        update_text = "".join(self.text(update).split()) if update is not None else ""
        return bool(variable) and update_text in (f"{variable}<<=1", f"{variable}*=2", f"{variable}={variable}*2",
                                                  f"{variable}={variable}<<1")

    def warp_synchronous(self) -> None:
        """``if (tid < 32) { s[tid] += s[tid + 16]; ... }`` with no barrier inside (HP1110)."""
        ctx = self.ctx
        for match in _LAST_WARP.finditer(ctx.source):
            node = ctx.node_at(match.start(), match.start() + 2)
            statement = node.parent if node.type == "if" else None
            if statement is None or statement.type != "if_statement":
                continue
            body = statement.child_by_field_name("consequence")
            text = ctx.text(body) if body is not None else b""
            if re.search(rb"\+\s*16\s*\]", text) and b"__syncwarp" not in text and b"__syncthreads" not in text:
                self.add(_Item(self.unit_of(statement), statement, "warp-synchronous", match.group(1).decode(),
                               {"condition": f"{match.group(1).decode()} < 32"}, None,
                               f"the warp-synchronous code under `if ({match.group(1).decode()} < 32)` "
                               f"(line {statement.start_point[0] + 1}) needs a rewrite by hand"))

    def shared_arrays(self) -> None:
        ctx = self.ctx
        for match in _SHARED_32.finditer(ctx.source):
            size = ctx.node_at(match.start(2), match.end(2))
            if size.type in ("comment", "string_content"):
                continue
            name, size_text = match.group(1).decode(), match.group(2).decode()
            item = self.add(_Item(self.unit_of(size), size, "warp-shared-array", size_text, {"size": size_text}, None))
            function = self.function_of(size)
            if function is None:
                item.reason = f"the __shared__ array {name} is declared outside a function"
                continue
            kinds = set()
            for node in _descendants(function):
                if node.type == "subscript_expression" and self.text(node.child_by_field_name("argument")) == name:
                    indices = node.child_by_field_name("indices")
                    index = _strip(indices.named_children[0]) if indices is not None and indices.named_children else None
                    kind = self.index_kind(index)
                    if kind is None:
                        item.reason = (f"the __shared__ array {name} is indexed by `{self.text(index)}` "
                                       f"(line {node.start_point[0] + 1}), neither a lane nor a warp number")
                        break
                    kinds.add(kind)
            else:
                if size_text == "32" and "lane" in kinds:
                    item.fixes = [self.fix_of(size.start_byte, size.end_byte, WAVEFRONT_MAX, f"the __shared__ array {name}",
                                              size, block=True)]
                elif "lane" in kinds:
                    item.reason = f"the __shared__ array {name} [{size_text}] is indexed by lane numbers"
                else:
                    item.fixes = []  # per-warp slots: 32, or n / 32, is the most any width needs

    def warp_size_constant_expressions(self) -> None:
        ctx = self.ctx
        for match in _WARPSIZE.finditer(ctx.source):
            token = ctx.node_at(match.start(), match.end())
            if token.type not in ("identifier", "type_identifier") or (
                    token.parent is not None and token.parent.type == "field_expression"):
                continue
            context = self.constant_context(token)
            if context is None:
                continue
            item = self.add(_Item(self.unit_of(token), token, "warpsize-constexpr", "warpSize", {"context": context}, None))
            replacement = self.array_size_bound(token) if context == "an array size" else None
            if replacement is not None:
                item.fixes = [self.fix_of(token.start_byte, token.end_byte, replacement, "the array size warpSize", token,
                                          block=True)]
            else:
                item.reason = f"warpSize is used as {context} (line {token.start_point[0] + 1})"

    # Decide and emit --------------------------------------------------------------------------
    def groups(self) -> list[tuple[list[_Item], set[tuple]]]:
        """The units of this file joined by their links: (items, tree keys) per group, where a
        tree key (``("tree", "constant" | "function", name)``) is a name shared with other files."""
        parent: dict[object, object] = {}

        def find(key):
            return _union_root(parent, key)

        for item in self.items:
            find(item.unit)
        for a, b in self.links:
            parent[find(a)] = find(b)
        groups: dict[object, list[_Item]] = {}
        for item in self.items:
            groups.setdefault(find(item.unit), []).append(item)
        keys: dict[object, set[tuple]] = {}
        for key in list(parent):
            if isinstance(key, tuple) and key and key[0] == "tree":
                keys.setdefault(find(key), set()).add(key)
        return [(items, keys.get(root, set())) for root, items in groups.items()]

    def blocker(self, items: list[_Item]) -> tuple[str, int, str] | None:
        """The first item of a group with no rewrite: (where, line, reason), or None."""
        item = next((i for i in items if i.fixes is None), None)
        if item is None:
            return None
        at = item.at if hasattr(item.at, "start_byte") else None
        function = self.function_of(at) if at is not None else None
        line = (at.start_point[0] if at is not None else self.ctx.source.count(b"\n", 0, item.at[0])) + 1
        where = self.function_name(function) if function is not None else (item.label or f"the file-scope code at line {line}")
        return where, line, item.reason

    def resolve(self) -> None:
        block_at: int | None = None
        newline = b"\r\n" if b"\r\n" in self.ctx.source else b"\n"
        blocked = self.tree.blocked if self.tree is not None and self.tree.blocked is not None else {}
        for items, keys in self.groups():
            fixable = all(item.fixes is not None for item in items)
            shared_reason = next((blocked[key] for key in sorted(keys) if key in blocked), None)
            if shared_reason is not None:
                fixable = False
            if self.fix and fixable:
                done = set()
                for item in items:
                    for edit in item.fixes:
                        if (edit.start, edit.end) in done:
                            continue
                        done.add((edit.start, edit.end))
                        self.ctx.result.edits.append(Edit(edit.start, edit.end, edit.text))
                        if edit.block:
                            offset = self._block_offset(edit.at)
                            block_at = offset if block_at is None else min(block_at, offset)
                        if edit.silent:
                            continue
                        function = self.function_of(edit.at)
                        self.ctx.report("warp-fixed", edit.at, name=edit.what,
                                        expression=self.ctx.source[edit.start:edit.end].decode("utf-8", "replace"),
                                        replacement=edit.text.decode(),
                                        function=self.function_name(function) if function is not None else "its file scope")
                continue
            for item in items:
                if item.check is not None:
                    self.ctx.report(item.check, item.at, name=item.name, **item.fields)
            if self.fix:
                blocker = next((item for item in items if item.fixes is None), None)
                reported = set()
                for item in items:
                    function = self.function_of(item.at) if hasattr(item.at, "start_byte") else None
                    key = function.start_byte if function is not None else item.unit
                    if key in reported or (function is None and item.check is None and item is not blocker):
                        continue
                    reported.add(key)
                    own = next((other for other in items if other.fixes is None and function is not None
                                and hasattr(other.at, "start_byte")
                                and function.start_byte <= other.at.start_byte < function.end_byte), None)
                    reason = own.reason if own is not None else (blocker.reason if blocker is not None else shared_reason)
                    where = (self.function_name(function) if function is not None
                             else item.label or f"the file-scope code at line {item.at.start_point[0] + 1}")
                    at = function.child_by_field_name("declarator") if function is not None else item.at
                    self.ctx.report("warp-fix-skipped", at, name=where, reason=reason)
        if block_at is not None:
            self.ctx.result.edits.append(Edit(block_at, block_at, _WAVEFRONT_BLOCK.replace(b"{nl}", newline)))

    def _block_offset(self, node: tree_sitter.Node) -> int:
        """Line start of the top-level (or namespace-level) declaration holding ``node``."""
        top = node
        while top.parent is not None and top.parent.type not in ("translation_unit", "declaration_list"):
            top = top.parent
        return self.ctx.source.rfind(b"\n", 0, top.start_byte) + 1


_MASK_CONSTANT = re.compile(
    rb"(?<![\w])(?:static\s+)?(?:constexpr|const)\s+(?:static\s+)?(?:__device__\s+)?"
    rb"(unsigned\s+int|unsigned|uint32_t|std::uint32_t)\s+(\w*(?:[Mm]ask|MASK)\w*)\s*=\s*([0-9A-Za-z~]+)\s*;")
_MASK_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:[Mm]ask|MASK)\w*)[ \t]+\(?([0-9A-Za-z~]+)\)?[ \t]*(?://.*|/\*.*)?$",
                          re.MULTILINE)
_LAST_WARP = re.compile(rb"\bif\s*\(\s*([A-Za-z_][\w.]*)\s*<\s*32\s*\)")


class _MaskFunction:
    """The lane masks of one function: which 32-bit variables hold one, the items they give, and
    whether every use of them survives widening to 64 bits."""

    def __init__(self, scan: _Scan, function: tree_sitter.Node):
        self.scan, self.ctx, self.function = scan, scan.ctx, function
        self.unit = function.start_byte
        self.scope = scan.locals_of(function)
        self.masks: set[str] = set()

    def text(self, node) -> str:
        return self.scan.text(node)

    def call_name(self, call: tree_sitter.Node) -> str:
        return self.text(call.child_by_field_name("function")).strip()

    def is_lane_shift(self, node) -> bool:
        node = _strip(node)
        if node is None or node.type != "binary_expression" or self.text(node.child_by_field_name("operator")) != "<<":
            return False
        left, right = _strip(node.child_by_field_name("left")), _strip(node.child_by_field_name("right"))
        if left is None or left.type != "number_literal" or self.text(left).lower() not in ("1", "1u"):
            return False
        if right is None:
            return False
        if self.scan.index_kind(right) == "lane":
            return True
        if right.type == "identifier" and _LANE_WORD.search(self.text(right)):
            return True
        return right.type == "call_expression" and bool(_LANE_CALL.match(self.call_name(right)))

    def is_mask_operand(self, node) -> bool:
        node = _strip(node)
        if node is None:
            return False
        if node.type == "identifier":
            return self.text(node) in self.masks or self.scan.locals_of(self.function).type_text(self.ctx, self.text(node)) \
                in _WIDE_TYPES
        if node.type == "call_expression":
            name = self.call_name(node)
            return name in BALLOT_FUNCTIONS or name.startswith("__lanemask_")
        if node.type == "unary_expression" and self.text(node.child_by_field_name("operator")) == "~":
            return self.is_mask_operand(node.child_by_field_name("argument"))
        if node.type == "binary_expression":
            operator = self.text(node.child_by_field_name("operator"))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator == "<<":
                return self.is_lane_shift(node)
            if operator == "-" and self.text(right).strip().lower() in ("1", "1u", "1ull"):
                return self.is_mask_operand(left)
            if operator in ("&", "|", "^"):
                return self.is_mask_operand(left) and self.is_mask_operand(right)
        return False

    def narrow(self, name: str) -> bool:
        return self.scope.type_text(self.ctx, name) in _NARROW_TYPES

    def run(self) -> None:
        # 1. The 32-bit variables that hold lane masks (to a fixed point).
        assignments = []
        for node in _descendants(self.function):
            if node.type == "init_declarator":
                assignments.append((node.child_by_field_name("declarator"), node.child_by_field_name("value")))
            elif node.type == "assignment_expression":
                assignments.append((node.child_by_field_name("left"), node.child_by_field_name("right")))
            elif node.type == "call_expression" and self.call_name(node) in MASK_FUNCTIONS:
                mask = _strip(_first_argument(node))
                if mask is not None and mask.type == "identifier" and self.narrow(self.text(mask)):
                    self.masks.add(self.text(mask))
        changed = True
        while changed:
            changed = False
            for target, value in assignments:
                if target is None or value is None or target.type != "identifier":
                    continue
                name = self.text(target)
                if name not in self.masks and self.narrow(name) and self.is_mask_operand(value):
                    self.masks.add(name)
                    changed = True
        # 2. Items: ballots stored or counted in 32 bits, masks passed from 32-bit variables,
        #    lane shifts, __popc of masks; and the uses that block widening.
        blocked: list[str] = []
        fixes: list[_Fix] = []
        for name in sorted(self.masks):
            type_node, declarator, value = self.scope.declared[name] if name in self.scope.declared else (None, None, None)
            if type_node is None:
                blocked.append(f"the mask {name} is not declared in this function")
                continue
            if name in self.scope.twice:
                blocked.append(f"the mask {name} is declared more than once in "
                               f"{self.scan.function_name(self.function)}, and --fix does not follow C++ scopes")
                continue
            if type_node.parent is not None and type_node.parent.type == "parameter_declaration" and self.declared_elsewhere():
                blocked.append(f"the mask parameter {name} of {self.scan.function_name(self.function)} is declared "
                               "elsewhere too (a prototype must change with it)")
            fixes.append(self.scan.fix_of(type_node.start_byte, type_node.end_byte, WIDE_TYPE, f"the mask {name}", declarator))
            if value is not None and _FULL_MASK.match(self.text(value).strip()):
                fixes.append(self.scan.fix_of(value.start_byte, value.end_byte, WIDE_FULL_MASK, f"the mask {name}", declarator))
        for node in _descendants(self.function):
            if node.type == "identifier" and self.text(node) in self.masks:
                parent = node.parent
                if parent is not None and parent.type in ("init_declarator", "parameter_declaration", "declaration") and \
                        parent.child_by_field_name("declarator") == node:
                    continue
                self.check_use(node, blocked, fixes)
            elif node.type == "call_expression":
                name = self.call_name(node)
                if name in BALLOT_FUNCTIONS:
                    self.ballot(node, name, blocked, fixes)
                if name in MASK_FUNCTIONS:
                    mask = _strip(_first_argument(node))
                    if mask is not None and mask.type == "identifier" and self.text(mask) in self.masks:
                        declared = self.scope.type_text(self.ctx, self.text(mask))
                        self.scan.add(_Item(self.unit, mask, "warp-32bit-mask", name,
                                            {"what": f"the mask {self.text(mask)} is declared {declared}"}))
                elif name in ("__popc", "__ffs"):
                    argument = _first_argument(node)
                    if argument is not None and not any(d.type == "call_expression" and self.call_name(d) in BALLOT_FUNCTIONS
                                                        for d in _descendants(argument)) and self.is_mask_operand(argument):
                        self.scan.add(_Item(self.unit, node, "warp-lane-mask", name,
                                            {"expression": " ".join(self.text(node).split()),
                                             "what": f"{name} counts only the low 32 bits of a lane mask"}))
            elif node.type == "binary_expression" and self.is_lane_shift(node):
                one = _strip(node.child_by_field_name("left"))
                self.scan.add(_Item(self.unit, one, "warp-lane-mask", self.text(one),
                                    {"expression": " ".join(self.text(node).split()),
                                     "what": "a lane mask built from a 32-bit 1"}))
                self.check_use(node, blocked, fixes)
                fixes.append(self.scan.fix_of(one.start_byte, one.end_byte, b"1ull", "the lane mask", one))
        if self.masks or fixes or blocked:
            self.scan.add(_Item(self.unit, self.function, None, "", {}, None if blocked else fixes,
                                blocked[0] if blocked else ""))

    def declared_elsewhere(self) -> bool:
        """Another declaration of this function (a prototype) is in the file."""
        name = self.scan.function_name(self.function).split("::")[-1]
        for match in re.finditer(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"\s*\(", self.ctx.source):
            token = self.ctx.node_at(match.start(), match.start() + len(name))
            declarator = token.parent
            if (declarator is not None and declarator.type == "function_declarator"
                    and not (self.function.start_byte <= token.start_byte < self.function.end_byte)):
                return True
        return False

    def ballot(self, call, name, blocked, fixes) -> None:
        parent = call.parent
        if parent is not None and parent.type == "init_declarator":
            declared = self.scope.type_text(self.ctx, self.text(parent.child_by_field_name("declarator")))
            if declared in _NARROW_TYPES:
                self.scan.add(_Item(self.unit, call, "warp-32bit-mask", name, {"what": f"its result is stored as {declared}"}))
        elif parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("right") == call:
            left = parent.child_by_field_name("left")
            declared = self.scope.type_text(self.ctx, self.text(left)) if left.type == "identifier" else ""
            if declared in _NARROW_TYPES:
                self.scan.add(_Item(self.unit, call, "warp-32bit-mask", name, {"what": f"its result is stored as {declared}"}))
        outer = _enclosing(call.parent, ("call_expression",)) if call.parent is not None else None
        if outer is not None and self.call_name(outer) == "__popc":
            self.scan.add(_Item(self.unit, call, "warp-32bit-mask", name, {"what": "its result is counted with __popc (32 bits)"}))
        self.check_use(call, blocked, fixes)

    def check_use(self, node, blocked: list[str], fixes: list[_Fix]) -> None:
        """Walk from a mask value to where it ends up; a place that does not survive widening to
        64 bits goes to ``blocked`` (with its line), __popc/__ffs there to ``fixes``."""
        start = node
        while True:
            parent = node.parent
            if parent is None:
                break
            kind = parent.type
            if kind == "parenthesized_expression":
                node = parent
                continue
            if kind == "binary_expression":
                operator = self.text(parent.child_by_field_name("operator"))
                left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
                other = right if left == node else left
                if operator in ("&", "|", "^") and self.is_mask_operand(other):
                    node = parent
                    continue
                if operator == "-" and left == node and self.text(right).strip().lower() in ("1", "1u", "1ull"):
                    node = parent
                    continue
                if operator in ("==", "!=") and self.text(other).strip() in ("0", "0u", "0ULL", "0ull"):
                    return
                if operator in ("&&", "||"):
                    return
                break
            if kind == "unary_expression":
                if self.text(parent.child_by_field_name("operator")) == "~":
                    node = parent
                    continue
                if self.text(parent.child_by_field_name("operator")) == "!":
                    return
                break
            if kind == "argument_list":
                call = parent.parent
                name = self.call_name(call) if call is not None else ""
                arguments = _arguments(call) if call is not None else []
                if name in MASK_FUNCTIONS and arguments and arguments[0] == node:
                    return
                if name in ("__popc", "__ffs"):
                    function = call.child_by_field_name("function")
                    fixes.append(self.scan.fix_of(function.start_byte, function.end_byte, f"{name}ll".encode(),
                                                  f"the count of a lane mask", call))
                    return
                if name in ("__popcll", "__ffsll"):
                    return
                break
            if kind == "init_declarator":
                target = self.text(parent.child_by_field_name("declarator"))
                if target in self.masks or self.scope.type_text(self.ctx, target) in _WIDE_TYPES:
                    return
                break
            if kind == "assignment_expression":
                left = parent.child_by_field_name("left")
                if left == node:
                    return
                target = self.text(left).strip()
                if left.type == "identifier" and (target in self.masks or self.scope.type_text(self.ctx, target) in _WIDE_TYPES):
                    return
                break
            if kind in ("condition_clause", "if_statement", "while_statement"):
                return
            if kind == "conditional_expression" and parent.child_by_field_name("condition") == node:
                return
            break
        statement = _enclosing(start, ("expression_statement", "declaration", "return_statement", "if_statement",
                                       "for_statement", "while_statement")) or start
        blocked.append(f"the lane mask `{self.text(start)}` is used in `{' '.join(self.text(statement).split())[:80]}` "
                       f"(line {start.start_point[0] + 1}), which --fix cannot widen to 64 bits")


def analyze_warps(ctx: WarpContext, fix: bool = False, tree: WarpTree | None = None) -> None:
    """Run every wavefront-size check on one file (edits and findings go into ``ctx.result``).

    Args:
        ctx: the file being analysed (see :class:`WarpContext`).
        fix: apply ``--fix``'s rewrites, all or nothing per function (see the module docstring),
            instead of only reporting the assumptions.
        tree: what :func:`warp_tree` found across the tree (the warp-size constants and device
            functions of its headers, and which of them --fix must leave); None: this file is
            decided on its own, and names from other files are never rewritten.
    """
    scan = _Scan(ctx, fix, tree)
    scan.run()
    scan.resolve()


@dataclass
class WarpTree:
    """The warp-size names a tree shares between files, and the tree-wide --fix decision on them.

    Attributes:
        constants: warp-size constant name -> (``"macro"`` or ``"constant"``, the header that
            defines it as 32): ``#define WARP_SIZE 32``, ``constexpr int kWarpSize = 32;``.
        functions: device function name -> the header that defines it (``lane_id``, ``warp_sum``).
        blocked: tree key (``("tree", "constant" | "function", name)``) -> why --fix must leave
            every unit that uses it, in any file; a key not in it is rewritten with all its
            users. None while the tree is being collected.
    """

    constants: dict[str, tuple[str, str]]
    functions: dict[str, str]
    blocked: dict[tuple, str] | None = None


class _TreeContext:
    """A :class:`WarpContext` for the tree pass: findings and edits are dropped."""

    def __init__(self, path: str, source: bytes, root: tree_sitter.Node, tree: TreeSources | None = None,
                 macros: SpecifierMacros | None = None):
        self.path, self.source, self.root = path, source, root
        self.result = type("_Result", (), {})()
        self.result.edits = []
        self._tree = tree
        self._macros = macros

    @property
    def specifier_macros(self) -> SpecifierMacros:
        if self._macros is None:
            self._macros = specifier_macros(self.path, self.source, self._tree)
        return self._macros

    def node_at(self, start: int, end: int) -> tree_sitter.Node:
        return self.root.descendant_for_byte_range(start, end)

    def text(self, node: tree_sitter.Node) -> bytes:
        return self.source[node.start_byte:node.end_byte]

    def report(self, check_name: str, node_or_point, name: str = "", **fields: str) -> None:
        pass


def _describe(key: tuple) -> str:
    return f"the warp-size constant {key[2]}" if key[1] == "constant" else f"the function {key[2]}"


def warp_tree(sources, parser) -> WarpTree | None:
    """The prepass of --fix over a whole tree: the warp-size constants and device functions its
    headers define, and which of them every file using them can rewrite.

    A warp-size constant of a header, and a device function of a header called from other files,
    join the units (functions, file-scope declarations) of every file that uses them: --fix
    rewrites them all, in every file, or none of them. Each file is scanned as
    :func:`analyze_warps` would scan it; a group of units with an assumption no rewrite is
    known for (or that no other file may change: a name two headers define) blocks every tree
    name it touches, and through them every group of any file touching those names.

    Args:
        sources: ``(path relative to the tree, file content)`` pairs of the tree's C, C++ and
            CUDA files (headers and sources, a UTF-8 byte-order mark already removed).
        parser: a parser from :func:`hipport.parse.new_parser`.

    Returns:
        The :class:`WarpTree` with ``blocked`` decided, or None when no header defines a
        warp-size constant or a device function (each file is then decided on its own).
    """
    sources = list(sources)
    files = TreeSources(dict(sources))
    constants: dict[str, tuple[str, str]] = {}
    functions: dict[str, str] = {}
    twice: set[str] = set()
    parsed: dict[str, tree_sitter.Node] = {}
    for path, source in sources:
        if not path.lower().endswith(_HEADER_SUFFIXES):
            continue
        macros = specifier_macros(path, source, files)
        device = b"__device__" in source or any(name in source for name in macros.device_names)
        if not (device or _WARP_SIZE_CORE.search(source)):
            continue
        root = parser.parse(source).root_node
        parsed[path] = root
        ctx = _TreeContext(path, source, root, files, macros)
        scan = _Scan(ctx, True)
        for pattern, what in ((_WARP_DEFINE, "macro"), (_WARP_CONSTANT, "constant")):
            for match in pattern.finditer(source):
                name = match.group(1).decode()
                if what == "constant" and not _WARP_SIZE_WORD.match(name):
                    continue
                node = ctx.node_at(match.start(1), match.end(1))
                if node.type in ("comment", "string_content", "string_literal") or scan.function_of(node) is not None:
                    continue
                if name in constants and constants[name][1] != path:
                    twice.add(name)
                constants.setdefault(name, (what, path))
        for node in _query(_DEFINITIONS, root) if device else ():
            if scan.is_device(node):
                name = scan.function_name(node).split("::")[-1]
                if name in functions and functions[name] != path:
                    twice.add(name)
                functions.setdefault(name, path)
    # Only names another file of the tree uses are shared: a header used by no other file here
    # keeps the rule of a lone header (the files including it, elsewhere, decide).
    def used_elsewhere(name: str, home: str) -> bool:
        word = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])")
        return any(path != home and name.encode() in source and word.search(source) for path, source in sources)

    constants = {name: entry for name, entry in constants.items() if used_elsewhere(name, entry[1])}
    functions = {name: home for name, home in functions.items() if used_elsewhere(name, home)}
    if not constants and not functions:
        return None
    tree = WarpTree(constants, functions)
    names = [n.encode() for n in (*constants, *functions)]
    # Every file using one of the names: its groups, each with the tree keys it touches.
    groups: list[tuple[str, set[tuple], tuple[str, int, str] | None]] = []
    for path, source in sources:
        if not any(n in source for n in names):
            continue
        root = parsed.get(path) or parser.parse(source).root_node
        ctx = _TreeContext(path, source, root, files)
        scan = _Scan(ctx, True, tree)
        scan.run()
        for items, keys in scan.groups():
            if keys:
                groups.append((path, keys, scan.blocker(items)))
    parent: dict[tuple, tuple] = {}

    def find(key):
        return _union_root(parent, key)

    for _, keys, _ in groups:
        first, *rest = sorted(keys)
        for key in rest:
            parent[find(key)] = find(first)
    reasons: dict[tuple, str] = {}
    for name in sorted(twice):
        for kind in ("constant", "function"):
            key = ("tree", kind, name)
            reasons.setdefault(find(key), f"{_describe(key)} is defined in more than one header, so --fix cannot tell "
                                          "which definition a file uses")
    for path, keys, blocker in sorted(groups, key=lambda g: (g[0], g[2][1] if g[2] else 0)):
        if blocker is not None:
            where, line, reason = blocker
            shared = sorted(keys)[0]
            reasons.setdefault(find(shared), f"it shares {_describe(shared)} with {path}, where --fix left {where} "
                                             f"(line {line}) as written: {reason}")
    tree.blocked = {key: reasons[find(key)] for key in list(parent) if find(key) in reasons}
    return tree
