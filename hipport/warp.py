"""Wavefront-size analysis: code that assumes 32-wide warps, and ``--fix``'s rewrites of it.

AMD CDNA/GCN GPUs (gfx90a, gfx942) run 64-wide wavefronts, RDNA GPUs (gfx1030, gfx1100) 32-wide
ones, and HIP's ``*_sync`` warp builtins take 64-bit lane masks (a ``static_assert`` since ROCm
6.2). ROCm 7 made ``warpSize`` a run-time value (HIP 6.4 declares it ``static constexpr int
warpSize = __AMDGCN_WAVEFRONT_SIZE``, amd_detail/amd_warp_functions.h:96; HIP 7 reads
``__builtin_amdgcn_wavefrontsize()``), so a port is right only when it holds at both widths and
uses ``warpSize`` at run time only. This pass reports:

* full 32-bit literal masks (``0xffffffff``, also cast to a 32-bit unsigned type: ``uint32_t(-1)``,
  ``(unsigned)~0``) passed to the ``*_sync`` builtins, at calls and in macro bodies: always widened
  to ``hipport_wave_lanes()``, the 64-bit mask of the lanes the calling thread's wavefront has
  (otherwise the port does not compile, or traps in a partial wavefront: :data:`WAVE_LANES`), and
  reported (HP1101); another
  32-bit mask in a macro body is reported there (HP1102, :meth:`_Scan.macro_masks`);
* masks and ballot results kept in 32-bit variables, and ballots counted with ``__popc``
  (HP1102); also named full-mask constants outside functions; and every ``*_sync`` call whose
  mask argument is 32-bit, at the call (where HIP's ``static_assert`` on the mask type fails),
  naming where the mask got its type: a literal, a cast, a local, a macro, variable, typedef or
  class member of the file or of a file of the tree it sees (:func:`mask_names`), or an
  expression of them (:class:`_MaskWidth`); one such finding a line;
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
file is decided): a warp-size constant or define of a header, and a device function or kernel
of a header, that other files of the tree use are *tree keys*. Every unit of any file that defines
or uses one joins it, so the header and all its users are rewritten together or not at all:
one item with no fix anywhere leaves every unit of every file joined to it, each with an
HP1111 naming the file and function that blocked it. The data still flows one way: the
prepass scans each file as this pass would and decides the keys; each file is then ported on
its own with those decisions (:class:`WarpTree`). A full-mask constant outside functions is a unit of its own
(widening it is right at both widths). A unit is
rewritten only when every item in it has a fix and widening keeps what it computes (every use of
a lane or warp number and of a warp-collective result is one :mod:`hipport.lane_flow` accepts;
each other use is an item with no fix); the edits are then applied and each reported as
HP1107. Otherwise the unit runs as 32-lane logical warps (:mod:`hipport.warp32`, HP1116 at each
of its device functions; decided once for a unit joined across files by tree keys carrying warp
content) where that is shown right; else nothing in the unit is changed, its findings are
reported as without --fix and each of its functions gets an HP1111 error naming the first
assumption --fix could not rewrite (and why logical warps were declined).

The rewrite rules (each one right at both widths, and never putting ``warpSize`` where a
constant expression is needed):

* a 32-bit variable holding a ballot, ``__activemask()``, a lane mask or a value derived from
  them becomes ``unsigned long long`` (a full-mask initialiser the 64-bit full mask), provided
  every use of it is one of: the mask argument of a ``*_sync`` builtin, ``&``/``|``/``^``/``~``
  with other lane masks, ``m - 1``, a test against 0 or a condition, an assignment to another
  such variable, ``__popc``/``__ffs`` (which become ``__popcll``/``__ffsll``); anything else
  (a store through a pointer, a return, an argument of another function) leaves the function;
* a ``*_sync`` call whose mask is 32-bit needs no edit of its own when every 32-bit part of the
  mask is widened anyway: such a local of the function, or a full mask named like a mask
  (widened where it is defined, on its own); any other 32-bit part (``#define HALF 0xffffu``,
  a struct member, a typedef) leaves the function as written;
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
from typing import Iterator, Protocol

import tree_sitter

from .alternation import WORD_BYTES, directive_matches, literal_matches
from .device_context import function_kind
from .edits import Edit
from .port_definitions import shield_from_macros
from .parse import LANGUAGE, START_BYTE, code_only, compiled_query, file_nodes, nodes_of_kinds
from .project_macros import SpecifierMacros, TreeSources, specifier_macros
from . import lane_flow, warp32


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
#: A full 32-bit mask written as a cast to a 32-bit unsigned type (blanks collapsed): ``(unsigned)-1``,
#: ``uint32_t(-1)``, ``static_cast<uint32_t>(~0)``; the same value as ``0xffffffff``.
_FULL_MASK_CAST = re.compile(
    r"^(?:\(\s?(?P<a>{t})\s?\)\s?(?:{v}|\(\s?{v}\s?\))|(?P<b>{t})\s?\(\s?{v}\s?\)"
    r"|static_cast\s?<\s?(?P<c>{t})\s?>\s?\(\s?{v}\s?\))$".format(
        t=r"unsigned|unsigned int|uint32_t|std::uint32_t|uint",
        v=r"(?:-\s?1|~\s?0[uU]?|0[xX][fF]{8}[uU]?|4294967295[uU]?)"))
#: The widened full mask where a constant expression needs it (a ``const``/``constexpr`` mask).
WIDE_FULL_MASK = b"0xffffffffffffffffULL"
#: CUDA's full mask (every lane of the warp) as the port writes it at a call, in a macro body and
#: in a local: the lanes of the calling thread's wavefront that its block has. A block whose
#: size is a multiple of 32 but not of 64 (32, 96 threads) ends in a 32-lane wavefront on gfx9,
#: and HIP's mask check (``__hip_check_mask``/``__hip_do_sync``, HIP 6.4
#: hip/amd_detail/amd_warp_sync_functions.h: ``MASK == __ballot(true)``, a trap unless
#: ``NDEBUG``) traps on ``0xffffffffffffffffULL`` there. Defined by :data:`_WAVE_LANES_BLOCK`.
WAVE_LANES = b"hipport_wave_lanes()"
_WAVE_LANES_BLOCK = (
    b"#ifndef HIPPORT_WAVE_LANES{nl}"
    b"#define HIPPORT_WAVE_LANES{nl}"
    b"/* hipport (HP1101): CUDA's full warp mask 0xffffffff as the lanes of this thread's wavefront{nl}"
    b"   that the block has: all of them, but in a last wavefront the block fills in part (a block of{nl}"
    b"   32 or 96 threads on a 64-lane gfx9), where HIP traps on a mask naming absent lanes. */{nl}"
    b"#if defined(__HIP_PLATFORM_AMD__) || (defined(__clang__) && defined(__HIP__)){nl}"
    b"__device__ inline unsigned long long hipport_wave_lanes() {{nl}"
    b"  unsigned int hipport_threads = blockDim.x * blockDim.y * blockDim.z;{nl}"
    b"  unsigned int hipport_first = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)){nl}"
    b"      / warpSize * warpSize;{nl}"
    b"  unsigned int hipport_lanes = hipport_threads - hipport_first;{nl}"
    b"  return hipport_lanes >= 64u ? ~0ull : (1ull << hipport_lanes) - 1ull;{nl}"
    b"}{nl}"
    b"#else{nl}"
    b"#define hipport_wave_lanes() 0xffffffffu{nl}"
    b"#endif{nl}"
    b"#endif{nl}")


def _is_full_mask(text: str) -> bool:
    """``text`` (a mask argument or initialiser as written) is a full 32-bit lane mask: a literal
    (``0xffffffff``, ``~0u``) or such a value cast to a 32-bit unsigned type (``uint32_t(-1)``)."""
    text = " ".join(text.split())
    return bool(_FULL_MASK.match(text) or _FULL_MASK_CAST.match(text))
WIDE_TYPE = b"unsigned long long"
_NARROW_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint32_t", "std::uint32_t", "uint", "int32_t"})
_WIDE_TYPES = frozenset({"unsigned long long", "unsigned long long int", "uint64_t", "std::uint64_t", "auto",
                         "long long", "unsigned long", "lane_mask"})
_LANE_NAMES = re.compile(r"threadIdx|blockDim|lane|warp", re.IGNORECASE)
#: 32, 31, 0x1f and 5 as whole numbers; each look-behind follows its literal, so that the scan
#: skips to the literals' first bytes (a leading look-behind is tried at every byte: 4 times slower).
_LANE_LITERALS = re.compile(rb"(3[12](?<![A-Za-z0-9_.]3[12])|0[xX]1[fF](?<![A-Za-z0-9_.]0[xX]1[fF])|5(?<![A-Za-z0-9_.]5))"
                            rb"(?![A-Za-z0-9_.])")
_LANE_OPERATORS = {"32": {"%", "/", "<", ">=", "*"}, "31": {"&", "==", "<=", ">"}, "0x1f": {"&"}, "5": {">>", "<<"}}
_LOOP_16 = re.compile(rb"(?<![A-Za-z0-9_.])16(?![A-Za-z0-9_.])")
_WARP_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:WARP|[Ww]arp)\w*)[ \t]+(\(?32[uU]?\)?)[ \t]*(?://.*|/\*.*)?\r?$",
                          re.MULTILINE)
_WARP_CONSTANT = re.compile(rb"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)\s*=\s*32[uU]?\s*;")
_ASSIGNED_32 = re.compile(rb"=\s*32[uU]?\s*;")
_BLANK_BYTES = frozenset(b" \t\n\r\f\v")  # \s of a bytes pattern
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
#: A cooperative-groups tile of a fixed size (``thread_block_tile<32>``, ``tiled_partition<32>``).
_TILE = re.compile(rb"\b(?:thread_block_tile|tiled_partition)\s*<\s*\d+\s*>")
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
    once_per_line: bool = False  # not reported on a line that has another HP1102 (a mask at its call)
    external: bool = False  # a warp helper or warp-size name defined outside the tree: logical warps decline too
    audit: bool = False  # a use of a lane or warp number widening would change (hipport.lane_flow): counts only
    #                      in a group with another item (it blocks widening, it is not an assumption of its own)


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
_FILE_DECLARATIONS = "[(declaration) (field_declaration)] @declaration"
_TYPE_NAMES = "[(type_definition) (alias_declaration)] @definition"


def _warp_constant_matches(source: bytes) -> Iterator[re.Match]:
    """What ``_WARP_CONSTANT.finditer(source)`` yields, found from the ``= 32;`` of each match.

    ``_WARP_CONSTANT`` starts with a look-behind and a name, so its own scan tries every byte
    (0.34 CPU s on a 5 MB file); here ``= 32;`` is found first and the pattern is tried once, at
    the start of the run of name characters before it: the only place a match ending there can
    start (a shorter name would leave a name character before the ``=``, a longer one a name
    character before the name). Matches never overlap (each holds one ``=`` and ends at its
    ``;``), so they come in the same order."""
    for assigned in _ASSIGNED_32.finditer(source):
        end = assigned.start()
        while end > 0 and source[end - 1] in _BLANK_BYTES:
            end -= 1
        start = end
        while start > 0 and source[start - 1] in WORD_BYTES:
            start -= 1
        if start == end:
            continue
        match = _WARP_CONSTANT.match(source, start)
        if match is not None and match.end() == assigned.end():
            yield match


def _warp_definitions(source: bytes) -> Iterator[tuple[re.Match, str]]:
    """``#define WARP_SIZE 32`` lines (:data:`_WARP_DEFINE`, ``"macro"``), then ``name = 32;``
    (:data:`_WARP_CONSTANT`, ``"constant"``), each in source order."""
    for match in directive_matches(_WARP_DEFINE, source):
        yield match, "macro"
    for match in _warp_constant_matches(source):
        yield match, "constant"


def _warp_size_cores(source: bytes) -> Iterator[re.Match]:
    """What ``_WARP_SIZE_CORE.finditer(source)`` yields, tried only where ``arp`` or ``ARP`` is
    (the second to fourth bytes of every match): the pattern starts with a group, which Python's
    regex engine tries at every byte (0.8 CPU s on a 50 MB file)."""
    return literal_matches(_WARP_SIZE_CORE, source, (b"arp", b"ARP"), 1)


def _query(query: str, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The nodes the query source ``query`` captures under ``node``, in source order."""
    found = [n for nodes in tree_sitter.QueryCursor(compiled_query(query)).captures(node).values() for n in nodes]
    return sorted(found, key=START_BYTE)


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



def _without_template_arguments(name: str) -> str:
    """``WarpOps<32>::reduce`` -> ``WarpOps::reduce``, ``f<A<B>>`` -> ``f``: a callee's name
    without its template arguments (nested ones too)."""
    while True:
        stripped = re.sub(r"<[^<>]*>", "", name)
        if stripped == name:
            return name
        name = stripped


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

    def __init__(self, ctx: WarpContext, fix: bool, tree: "WarpTree | None" = None, masks: "MaskNames | None" = None):
        self.ctx, self.fix, self.tree, self.masks = ctx, fix, tree, masks
        self.items: list[_Item] = []
        self.links: list[tuple[object, object]] = []
        self._locals: dict[int, _Locals] = {}
        self.constants: dict[str, object] = {}  # warp-size constant name -> its unit
        self._definitions: dict[str, list[MaskDefinition]] | None = None

    # -- helpers ---------------------------------------------------------------------------------
    def text(self, node: tree_sitter.Node | None) -> str:
        return self.ctx.text(node).decode("utf-8", "replace") if node is not None else ""

    def function_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        return _enclosing(node, ("function_definition",))

    def unit_of(self, node: tree_sitter.Node) -> object:
        function = self.function_of(node)
        return function.start_byte if function is not None else ("file", node.start_byte)

    def code(self) -> bytes:
        """The file with comments and literals blanked (:func:`hipport.parse.code_only`), made
        once for the passes that search it for words of code."""
        if not hasattr(self, "_code"):
            self._code = code_only(self.ctx.source)
        return self._code

    def locals_of(self, function: tree_sitter.Node | None) -> _Locals | None:
        if function is None:
            return None
        if function.start_byte not in self._locals:
            self._locals[function.start_byte] = _Locals(self.ctx, function)
        return self._locals[function.start_byte]

    def own_definitions(self) -> dict[str, list[MaskDefinition]]:
        """The macros, variables outside functions and class members of this file, by name."""
        if self._definitions is None:
            self._definitions = _mask_definitions(self.ctx.path, self.ctx.source, self.ctx.root)
        return self._definitions

    def definitions_of(self, name: str, kinds: tuple[str, ...] | None = None) -> list[MaskDefinition]:
        """The definitions of ``name`` (of the ``kinds`` given) in this file, else in the files of
        the tree it sees (:class:`MaskNames`)."""
        own = [d for d in self.own_definitions().get(name, ()) if kinds is None or d.kind in kinds]
        if own or self.masks is None:
            return own
        return [d for d in self.masks.lookup(self.ctx.path, name) if kinds is None or d.kind in kinds]

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
        at = item.at if hasattr(item.at, "start_byte") else None
        function = self.function_of(at) if at is not None else None
        if function is not None and warp32.is_own_helper(self, function):
            return item  # hipport's own logical-warp helpers (a second --fix of its output): not the code's
        self.items.append(item)
        return item

    def fix_of(self, start: int, end: int, text: bytes, what: str, at, block: bool = False) -> _Fix:
        return _Fix(start, end, text, what, at, block)

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
        self.macro_defined: dict[str, tuple[str, int]] = {}
        self.macro_logical: tuple[list[Edit], set[str], list[int]] = ([], set(), [])
        if b"define" in source and lane_flow.has_collectives(source) and (b"__device__" in source or b"__global__" in source):
            self.macro_functions()
        self.warp_constants()
        if b"_sync" in source or b"__ballot" in source or b"__activemask" in source or b"<<" in source:
            self.masks_and_ballots()
        if b"_sync" in source and b"define" in source:
            self.macro_masks()
        if b"ask" in source or b"ASK" in source:
            self.mask_constants()
        if b"32" in source or b"31" in source or b"0x1" in source or b"0X1" in source or b">> 5" in source or b">>5" in source:
            self.lane_literals()
        self.macro_loops: set[int] = set()  # halving loops stepped by a shuffle macro (warp_macro_calls)
        self.macro_uses: list[tuple[tree_sitter.Node, tree_sitter.Node, str]] = []
        if b"define" in source and lane_flow.has_collectives(source):
            self.warp_macro_calls()
        if b"__shfl" in source:
            self.shuffle_loops()
        if b"< 32" in source or b"<32" in source:
            self.warp_synchronous()
        if b"__shared__" in source:
            self.shared_arrays()
        if b"warpSize" in source:
            self.warp_size_constant_expressions()
        if warp32.HELPER_PREFIX.encode() in source:
            self.logical_already()
        collectives = lane_flow.has_collectives(source) or lane_flow.calls_tree_collectives(self)
        if self.fix and (self.items or collectives):
            self.lane_flow()
            self.unseen_partners()
        elif collectives and not self.fix:
            self.width_dependent_collectives()
        if self.items or (self.tree is not None and (self.tree.blocked is None or self.tree.logical)):
            # only a file with a 32-wide assumption needs its call graph, or, in a tree, a file
            # whose functions may run as 32-lane logical warps with a header's (the tree pass,
            # while blocked is None, and the files of a tree with logical keys): its functions
            # calling the header's must be rewritten (or declined) with them
            self.call_links()
            self.file_scope_links()
        for match in _AMDGCN_WAVEFRONT.finditer(source) if b"__AMDGCN_WAVEFRONT_SIZE" in source else ():
            node = ctx.node_at(match.start(), match.end())
            if node.type not in _CODE_SKIP:
                ctx.report("wavefront-size-macro", node, name="__AMDGCN_WAVEFRONT_SIZE")

    def macro_functions(self) -> None:
        """Kernels and device functions defined by a macro (``#define DEFINE_K(NAME, T)
        __global__ void NAME(...) {...}``) whose body calls warp collectives: the parser sees
        macro text, so no use of a collective there is followed. The port reports each such
        macro (HP1118); --fix runs its body's collectives as 32-lane logical warps (HP1116),
        or leaves it as written with HP1111 where logical warps are declined
        (:func:`hipport.warp32.macro_body_blocker`). Sets ``macro_defined`` (function name the
        bodies define -> (macro, line)) and ``macro_logical`` (edits, helpers used, the
        offset before which the helpers go), which :meth:`resolve` joins with the functions'."""
        source = self.ctx.source
        code = self.code()
        host_reads = self.host_reads() if self.fix else []
        for match in directive_matches(warp32._DEFINE, code):
            body = match.group(2)
            if b"{" not in body or not _MACRO_FUNCTION.search(body):
                continue
            collectives = sorted({word.decode() for word in _COLLECTIVE_CALL.findall(body)})
            if not collectives:
                continue
            name, line = match.group(1).decode(), source.count(b"\n", 0, match.start()) + 1
            for defined in _MACRO_DEFINED_NAME.finditer(body):
                self.macro_defined.setdefault(defined.group(1).decode(), (name, line))
            node = self.ctx.node_at(match.start(1), match.end(1))
            if not self.fix:
                self.ctx.report("warp-macro-function", node, name=name, collectives=", ".join(collectives))
                continue
            reason = warp32.blocker(self, [], host_reads) or warp32.macro_body_blocker(code, match.start(2), match.end(2))
            if reason is not None:
                self.ctx.report("warp-fix-skipped", node, name=f"the macro {name}",
                                reason=f"its device code calls warp collectives ({', '.join(collectives)}), which "
                                       f"--fix does not follow through macro bodies; nor can it run as 32-lane "
                                       f"logical warps: {reason}")
                continue
            edits, used = warp32.macro_body_edits(code, match.start(2), match.end(2))
            offset = warp32.block_offset(source, node)
            self.macro_logical[0].extend(edits)
            self.macro_logical[1].update(used)
            self.macro_logical[2].append(offset)
            self.ctx.report("warp-logical-fixed", node, name=f"the code the macro {name} defines",
                            reason="its collectives are macro text, whose uses --fix does not follow")

    def host_sized_warp_outputs(self, function: tree_sitter.Node) -> list[tuple[tree_sitter.Node, str]]:
        """In a device function that names ``warpSize``: each warp number indexing memory outside
        the block (:func:`hipport.lane_flow.global_warp_indexes`) while no host code of its
        program reads the device's warp size (:meth:`host_reads`), so the host sizes and reads
        that per-warp output for CUDA's 32 lanes: (node, reason)."""
        if not self.is_device(function) or b"warpSize" not in self.ctx.text(function) or self.host_reads():
            return []
        return [(node, f"the warp number `{' '.join(self.text(node).split())}` (line {node.start_point[0] + 1}) "
                       f"indexes {array or 'memory'}, outside the block, with an entry per warp of warpSize lanes: "
                       "a 64-lane wavefront writes half as many entries as CUDA's 32-lane warps, and no host code "
                       "of the program reads the device's warp size to size or read them")
                for node, array in lane_flow.global_warp_indexes(self, function)]

    def lane_flow(self) -> None:
        """--fix: each use of a lane or warp number (and each shuffle with a literal lane, offset
        or width) whose meaning widening would change is an item with no fix
        (:func:`hipport.lane_flow.unsafe_uses`), so a unit holding one is not widened. A
        per-warp output a host sizes for 32 lanes (:meth:`host_sized_warp_outputs`) is an item
        of its own, so even a function written with ``warpSize`` runs as 32-lane logical warps;
        where those are declined, the function (right for any width on its device side) is left
        as written with HP1117, as without --fix."""
        for function in file_nodes(self.ctx, "function_definition"):
            if warp32.is_own_helper(self, function):
                continue
            if not self.is_device(function) and not warp32.device_lambdas(self, function) and \
                    not self._device_only_words(function, []):
                continue  # host code: a loop up to n / 32 there counts no warps of a block
            outputs = self.host_sized_warp_outputs(function)
            if outputs and warp32.blocker(self, [function], self.host_reads()) is None:
                for node, reason in outputs:
                    self.add(_Item(function.start_byte, node, None, "", {}, None, reason))
            else:  # written for any width on the device side: left so, with the warning
                for node, reason in outputs:
                    self.ctx.report("warp-width-dependent", node, name=self.function_name(function), reason=reason)
            for node, reason in lane_flow.unsafe(self, function):
                self.add(_Item(function.start_byte, node, None, "", {}, None, reason, audit=True))
            tile = _TILE.search(self.ctx.text(function))
            if tile is not None:  # cg::thread_block_tile<32>: its shuffles stay 32 lanes wide
                at = self.ctx.node_at(function.start_byte + tile.start(), function.start_byte + tile.end())
                self.add(_Item(function.start_byte, at, None, "", {}, None,
                               f"it uses a cooperative-groups tile (`{tile.group(0).decode()}`, line {at.start_point[0] + 1}), "
                               "whose shuffles and thread_rank() stay 32 lanes wide while widened warp numbers would "
                               "count 64", audit=True))

    def unseen_partners(self) -> None:
        """--fix: a device function whose partner across a call is code --fix does not see keeps
        CUDA's 32 lanes (an audit item with no rewrite, so it is not widened: its group runs as
        32-lane logical warps, which hold whatever the unseen side assumes, or is left with its
        findings).

        * Its callers are not seen: a functor's ``operator()`` (called through its objects), a
          function whose name is used other than in a call (a function-pointer or template
          argument, ``map_k<lead_of>``), or one no code of the file or of the tree calls (an
          ``extern`` function called from another ``.cu``), while it returns a warp-collective
          result or has 32-wide assumptions of its own.
        * It has 32-wide assumptions and calls code it does not see: a parameter, a local or a
          template parameter (a lambda, a functor, a function pointer), or a function only
          declared in the file (defined in another ``.cu``).
        """
        assumed = {self.function_of(item.at).start_byte for item in self.items
                   if hasattr(item.at, "start_byte") and self.function_of(item.at) is not None}
        returning = lane_flow.collective_functions(self)
        code = self.code()
        for function in file_nodes(self.ctx, "function_definition"):
            kind = function_kind(self.ctx, function)
            if kind is None:  # host code: its __device__ lambdas run in kernels it does not follow
                for lambda_ in warp32.device_lambdas(self, function) if b"__device__" in self.ctx.text(function) else ():
                    if lane_flow.has_collectives(code[lambda_.start_byte:lambda_.end_byte]) or any(
                            lambda_.start_byte <= item.at.start_byte < lambda_.end_byte
                            for item in self.items if hasattr(item.at, "start_byte")):
                        self.add(_Item(function.start_byte, lambda_, None, "", {}, None,
                                       f"it holds a __device__ lambda (line {lambda_.start_point[0] + 1}) with warp "
                                       "code, called by kernels --fix does not follow", audit=True))
                continue
            if warp32.is_own_helper(self, function):
                continue
            name = self.function_name(function).split("::")[-1].split("<")[0].strip()
            if kind != "__global__" and (function.start_byte in assumed or name in returning):
                why = self._unseen_callers(function, name, code)
                if why is not None:
                    self.add(_Item(function.start_byte, function.child_by_field_name("declarator") or function, None,
                                   name, {}, None, why + ", so --fix does not see its callers and its warp logic keeps "
                                   "CUDA's 32 lanes", audit=True))
            if function.start_byte in assumed:
                for call, callee, what in self._unseen_callees(function):
                    self.add(_Item(function.start_byte, call, None, callee, {}, None,
                                   f"it calls {callee} (line {call.start_point[0] + 1}), {what}: --fix does not see "
                                   "the code it runs, so its lane arithmetic keeps CUDA's 32 lanes", audit=True))

    def _unseen_callers(self, function: tree_sitter.Node, name: str, code: bytes) -> str | None:
        """Why the callers of the device function ``function`` (named ``name``) are not all seen,
        or None (:meth:`unseen_partners`, :meth:`width_dependent_collectives`). ``code``: the
        file with comments and literals blanked (:func:`hipport.parse.code_only`)."""
        if name.startswith("operator"):
            return f"it is the {name} of a function object, called through objects that are not followed"
        if self.tree is not None and self.ctx.path in self.tree.functions.get(name, ()):
            return None  # a header's function other files call: decided across the tree
        calls = 0
        for start, end in self._name_uses(code).get(name, ()):
            node = self.ctx.node_at(start, end)
            use = node.parent
            if use is not None and use.type in ("qualified_identifier", "template_function") and \
                    use.child_by_field_name("name") == node:
                node, use = use, use.parent
            if use is not None and use.type in ("function_declarator", "destructor_name", "operator_name"):
                continue  # its definition or a declaration
            if use is not None and use.type == "field_expression" and use.child_by_field_name("field") == node:
                node, use = use, use.parent
            if use is not None and use.type == "call_expression" and use.child_by_field_name("function") == node:
                caller = self.function_of(use)
                if caller is None or caller.start_byte != function.start_byte:
                    calls += 1
                continue
            if node.type == "identifier":
                scope = self.locals_of(self.function_of(node))
                if scope is not None and name in scope.declared:
                    continue  # a local or parameter of the same name
            if node.type in ("identifier", "type_identifier", "qualified_identifier", "template_function"):
                return (f"its name is used other than in a call (line {node.start_point[0] + 1}), as a function "
                        "pointer or template argument")
        if calls == 0:
            return ("no code of its file calls it (an extern function called from another file, or a header's "
                    "function with no caller here)")
        return None

    def _name_uses(self, code: bytes) -> dict[str, list[tuple[int, int]]]:
        """Where each name of a function defined in the file occurs in ``code`` (the file with
        comments and literals blanked): name -> (start, end) byte spans; found in one pass over
        the file and kept, so following every function's callers stays linear in its size."""
        if not hasattr(self, "_uses_by_name"):
            names = {self.function_name(node).split("::")[-1].split("<")[0].strip()
                     for node in file_nodes(self.ctx, "function_definition")}
            wanted = {name.encode() for name in names}
            self._uses_by_name: dict[str, list[tuple[int, int]]] = {}
            for match in _IDENTIFIER_WORD.finditer(code):
                if match.group() in wanted:
                    self._uses_by_name.setdefault(match.group().decode(), []).append((match.start(), match.end()))
        return self._uses_by_name

    def _unseen_callees(self, function: tree_sitter.Node) -> list[tuple[tree_sitter.Node, str, str]]:
        """The calls of ``function`` to code --fix does not see: (call, callee name, what it is)."""
        scope = self.locals_of(function)
        declared = scope.declared if scope is not None else {}
        template_parameters: set[str] = set()
        parent = function.parent
        while parent is not None:
            if parent.type == "template_declaration":
                parameters = parent.child_by_field_name("parameters")
                for parameter in parameters.named_children if parameters is not None else ():
                    declarator = parameter.child_by_field_name("declarator") \
                        if parameter.type in ("parameter_declaration", "optional_parameter_declaration") else None
                    for part in _descendants(declarator) if declarator is not None else ():
                        if part.type == "identifier":  # template <int (*F)(int)>: F; never a type parameter
                            template_parameters.add(self.text(part))
            parent = parent.parent
        found = []
        for call in _query(_CALL_NODES, function):
            callee = call.child_by_field_name("function")
            if callee is None or callee.type != "identifier":
                continue
            name = self.text(callee)
            if name in declared and name not in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
                found.append((call, name, "a lambda, function object or function pointer it was given"))
            elif name in template_parameters:
                found.append((call, name, "a function given as a template argument"))
            elif self._declared_elsewhere(name):
                found.append((call, name, "declared in this file and defined in another"))
            elif name in self.macro_defined:
                macro, line = self.macro_defined[name]
                found.append((call, name, f"defined by the macro {macro} (line {line}), whose collectives run as "
                                          "32-lane logical warps"))
        return found

    def _declared_elsewhere(self, name: str) -> bool:
        """``name`` is a function this file declares (a prototype) and does not define, and no
        header of the tree shares with it (:attr:`WarpTree.functions`)."""
        if not hasattr(self, "_prototypes"):
            defined = {self.function_name(node).split("::")[-1] for node in file_nodes(self.ctx, "function_definition")}
            prototypes = set()
            for node in _query("(declaration declarator: (function_declarator declarator: (identifier) @name))",
                               self.ctx.root):
                if self.function_of(node) is None:
                    prototypes.add(self.text(node))
            self._prototypes = prototypes - defined
        return name in self._prototypes and not (self.tree is not None and self.tree.function_home(self.ctx.path, name))

    def width_dependent_collectives(self) -> None:
        """The port without --fix: a device function with warp collectives and none of the 32-wide
        assumptions this pass reports (no literal 32, no shuffle loop from 16, no warp-size
        constant), whose collective results are used in a way that gives other results on a
        64-lane wavefront than on a 32-lane warp (:func:`hipport.lane_flow.unsafe`: a broadcast
        from lane 0 stored per thread, a vote as a branch, a neighbour shuffle): HP1117 at each
        such use. A function with an assumption of its own is reported by that finding; one that
        names ``warpSize`` was written for a width chosen at run time and is not reported."""
        assumed = set()
        for item in self.items:
            # a widened full mask, or a use that only blocks --fix (no finding of its own), reports nothing
            if hasattr(item.at, "start_byte") and not item.standalone and item.check is not None:
                function = self.function_of(item.at)
                if function is not None:
                    assumed.add(function.start_byte)
        returning = lane_flow.collective_functions(self)
        for function in file_nodes(self.ctx, "function_definition"):
            if warp32.is_own_helper(self, function):
                continue
            text = self.ctx.text(function)
            if _WARPSIZE.search(text):  # written for a width known at run time, but not its host's side
                for node, reason in self.host_sized_warp_outputs(function):
                    self.ctx.report("warp-width-dependent", node, name=self.function_name(function), reason=reason)
                continue
            if function.start_byte in assumed:
                continue
            if not self.is_device(function) and not self._device_only_words(function, warp32.device_lambdas(self, function)):
                continue  # host code (device code whose specifiers the parser did not read is followed)
            if not lane_flow.has_collectives(text) and not any(
                    re.search(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"\s*[(<]", text) for name in returning):
                continue  # no collective of its own, and no call of a function returning one
            for node, reason in lane_flow.unsafe(self, function):
                self.ctx.report("warp-width-dependent", node, name=self.function_name(function), reason=reason)
        code = self.code()
        for function in file_nodes(self.ctx, "function_definition"):
            if function.start_byte in assumed or warp32.is_own_helper(self, function):
                continue
            kind = function_kind(self.ctx, function)
            if kind is None:  # host code: its __device__ lambdas run in kernels that are not followed
                for lambda_ in warp32.device_lambdas(self, function) if b"__device__" in self.ctx.text(function) else ():
                    body = code[lambda_.start_byte:lambda_.end_byte]
                    if lane_flow.has_collectives(body) and not _WARPSIZE.search(body):
                        self.ctx.report("warp-width-dependent", lambda_,
                                        name=f"the __device__ lambda of {self.function_name(function)}",
                                        reason="it calls warp collectives and runs in the kernels it is passed to, "
                                               "which are not followed")
                continue
            name = self.function_name(function).split("::")[-1].split("<")[0].strip()
            if kind == "__global__" or name not in returning or _WARPSIZE.search(self.ctx.text(function)):
                continue
            why = self._unseen_callers(function, name, code)
            if why is not None:
                self.ctx.report("warp-width-dependent", function.child_by_field_name("declarator") or function,
                                name=self.function_name(function),
                                reason=f"it returns a warp-collective result to callers that are not seen: {why}")
        for function, call, reason in self.macro_uses:
            if function.start_byte not in assumed and not _WARPSIZE.search(self.ctx.text(function)):
                self.ctx.report("warp-width-dependent", call, name=self.function_name(function), reason=reason)

    def logical_already(self) -> None:
        """A function calling hipport's logical-warp helpers (``--fix`` output fixed again) runs as
        32-lane logical warps already: an item with no widening, so its unit stays logical."""
        foreign = {name for name, _line in warp32.foreign_helper_definitions(self)}  # the code's own
        for match in re.finditer(rb"(?<![A-Za-z0-9_])" + warp32.HELPER_PREFIX.encode() + rb"\w+", self.ctx.source):
            node = self.ctx.node_at(match.start(), match.end())
            function = self.function_of(node)
            if (node.type != "identifier" or node.parent is None or node.parent.type != "call_expression"
                    or self.text(node) not in warp32.RENAMES.values() or self.text(node) in foreign
                    or function is None or warp32.is_own_helper(self, function)):
                continue
            self.add(_Item(function.start_byte, node, None, self.text(node), {}, None,
                           f"it runs as 32-lane logical warps already ({self.text(node)}, line {node.start_point[0] + 1})"))

    def call_links(self) -> None:
        """A function and the functions of this file it calls are fixed together or not at all:
        a rewritten caller must not combine its 64-wide lane arithmetic with a callee left at 32."""
        definitions: dict[str, list[tree_sitter.Node]] = {}
        calls: list[tuple[tree_sitter.Node, str]] = []
        for node in file_nodes(self.ctx, "function_definition"):
            definitions.setdefault(self.function_name(node).split("::")[-1], []).append(node)
        source = self.ctx.source
        names: dict[bytes, str] = {}  # a callee's text -> its name (most calls share a callee)
        for node in file_nodes(self.ctx, "call_expression"):
            function = node.child_by_field_name("function")
            if function is None:
                continue
            kind = function.type
            if kind in ("identifier", "qualified_identifier", "template_function"):
                text = source[function.start_byte:function.end_byte]
                name = names.get(text)
                if name is None:
                    name = names[text] = _without_template_arguments(
                        text.decode("utf-8", "replace")).split("::")[-1].strip()
                calls.append((node, name))
            elif kind == "field_expression":  # w.sum(v), p->sum(v)
                member = lane_flow._call_name(self, node)
                if member in definitions:  # by name: every class's member of that name shares the fate
                    calls.append((node, member))
        if self.tree is not None:  # functions of this header other files call: one fate across the tree
            for name, same in definitions.items():
                if self.ctx.path in self.tree.functions.get(name, ()):
                    for node in same:
                        self.links.append((node.start_byte, ("tree", "function", name, self.ctx.path)))
        for same in definitions.values():  # overloads and specializations share their fate
            for other in same[1:]:
                self.links.append((same[0].start_byte, other.start_byte))
        # name -> (the header of the tree defining it (function_home), whether a call of it links nothing)
        homes: dict[str, tuple[str | None, bool]] = {}
        for call, name in calls:
            known = homes.get(name)
            if known is None:
                shared = self.tree.function_home(self.ctx.path, name) if self.tree is not None else None
                known = homes[name] = (shared, name not in definitions and shared is None and (
                    name.startswith("__") or not _WARP_HELPER.search(name)))
            shared, links_nothing = known
            if links_nothing:
                continue  # (the tests below): its caller need not be looked up
            caller = self.function_of(call)
            for callee in definitions.get(name, ()):
                if caller is not None and callee.start_byte != caller.start_byte:
                    # one link joins the caller to all: the definitions of a name are linked together above
                    self.links.append((caller.start_byte, callee.start_byte))
                    break
            if caller is not None and name not in definitions and shared is not None and shared != self.ctx.path:
                # an item with nothing to rewrite: the caller is reported when the helper is left
                self.add(_Item(caller.start_byte, call, None, name, {}, []))
                self.links.append((caller.start_byte, ("tree", "function", name, shared)))
                continue
            if caller is not None and name not in definitions and not name.startswith("__") and _WARP_HELPER.search(name) \
                    and self.is_device(caller) and name not in self.type_and_macro_names():
                # host code calls no warp helper; WarpShare() builds an object of the file's struct,
                # LAST_LANE(v) calls the file's macro
                self.add(_Item(caller.start_byte, call, None, name, {}, None,
                               f"it calls {name} (line {call.start_point[0] + 1}), defined in another file: --fix "
                               "cannot tell which wavefront width that function assumes", external=True))

    def type_and_macro_names(self) -> frozenset[str]:
        """The names of the file's structs, classes and macros (a call of one is no function's)."""
        if not hasattr(self, "_type_and_macro_names"):
            self._type_and_macro_names = frozenset(match.group(1).decode() for match in _TYPE_OR_MACRO_NAME.finditer(
                self.ctx.source))
        return self._type_and_macro_names

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
            if mask is not None and (_is_full_mask(self.text(mask)) or self.widened_mask_constant(mask, call)):
                ctx.result.edits.append(Edit(mask.start_byte, mask.end_byte, WAVE_LANES))
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

    def widened_mask_constant(self, mask: tree_sitter.Node, call: tree_sitter.Node) -> bool:
        """--fix: the mask argument ``mask`` of ``call`` names a full-mask constant outside
        functions that --fix widens where it is defined (``constexpr unsigned kFullMask =
        0xffffffff;``, :func:`_named_full_masks`, used only as masks), not a local of the calling
        function. Its definition becomes ``0xffffffffffffffffULL`` (a constant expression cannot
        call a function), which names absent lanes in a partial wavefront, where HIP's mask check
        traps; the call passes ``hipport_wave_lanes()`` instead, as for a literal full mask."""
        mask = _strip(mask)
        if not self.fix or mask is None or mask.type != "identifier":
            return False
        name = self.text(mask)
        scope = self.locals_of(self.function_of(call))
        if scope is not None and name in scope.declared:
            return False
        definitions = self.definitions_of(name)
        return bool(definitions) and all(d.kind == "variable" and d.widened for d in definitions)

    def macro_masks(self) -> None:
        """The masks of ``*_sync`` calls written in macro bodies (``#define SHFL(v, o)
        __shfl_xor_sync(uint32_t(-1), v, o)``), which clang reports inside HIP's header with a
        note at the macro: a full 32-bit mask (a literal or a cast of one) is widened in the body
        as at a call (HP1101); any other mask of 32 bits (a literal, a cast, a macro of the file or
        of a header it sees) is reported there (HP1102; no fix: the body's users decide its
        width). The body is parsed as the statements of a function, its line splices blanked."""
        ctx, source = self.ctx, self.ctx.source
        bodies: dict[int, tree_sitter.Node] = {}
        for match in _CALLS.finditer(source):
            if match.group(1) == b"__syncwarp" or (match.start() and source[match.start() - 1:match.start()] in _IDENT_BYTES):
                continue
            node = ctx.node_at(match.start(1), match.end(1))
            if node.type == "preproc_arg" and node.parent is not None and \
                    node.parent.type in ("preproc_def", "preproc_function_def"):
                bodies[node.start_byte] = node
        width = _MaskWidth(self, None, set())
        for body in bodies.values():
            parameters = body.parent.child_by_field_name("parameters")
            names = {ctx.text(p).decode() for p in parameters.named_children if p.type == "identifier"} \
                if parameters is not None else set()
            text = re.sub(rb"\\\r?\n", lambda splice: b" " * len(splice.group()), ctx.text(body))
            prefix = b"void __hipport_macro() {\n"
            tree = _expression_parser().parse(prefix + text + b"\n;}")
            for call in _descendants(tree.root_node):
                function = call.child_by_field_name("function") if call.type == "call_expression" else None
                if function is None or function.type != "identifier" or call.has_error:
                    continue
                name = function.text.decode()
                mask = _strip(_first_argument(call)) if name in MASK_FUNCTIONS and name != "__syncwarp" else None
                if mask is None:
                    continue
                start = body.start_byte + mask.start_byte - len(prefix)
                end = body.start_byte + mask.end_byte - len(prefix)
                row = body.start_point[0] + source.count(b"\n", body.start_byte, start)
                point = (row, start - (source.rfind(b"\n", 0, start) + 1))
                written = " ".join(source[start:end].decode("utf-8", "replace").split())
                if _is_full_mask(written):
                    ctx.result.edits.append(Edit(start, end, WAVE_LANES))
                    ctx.report("warp-mask-widened", point, name=name, mask=written)
                    continue
                if any(node.type == "identifier" and node.text.decode() in names for node in _descendants(mask)):
                    continue  # a macro parameter: the mask's type is the argument's, judged where it is used
                found = width.of(mask, in_macro=True)
                if found is None or found.bits != 32 or (self.fix and all(part.widened == "always" for part in found.leaves)):
                    continue  # --fix widens every part where it is defined (a full mask named like one)
                leaf = found.leaves[0]
                if len(found.leaves) == 1 and leaf.text == written:
                    what = f"the mask `{written}`{f' ({leaf.where})' if leaf.where else ''} is a 32-bit {_spelled(leaf.type)}"
                else:
                    what = (f"the mask `{written}` is a 32-bit {_spelled(found.type)}, from `{leaf.text}`"
                            f"{f' ({leaf.where})' if leaf.where else ''}")
                ctx.report("warp-32bit-mask", point, name=name, what=what + " (in a macro body)")

    def mask_constants(self) -> None:
        """Named full 32-bit masks outside functions: other files pass them to the *_sync builtins,
        where a 32-bit full mask selects half a wavefront and fails HIP's 64-bit static_assert.
        Widening a full mask is right at both widths, so each is a unit of its own."""
        used = self.masks.value_used if self.masks is not None else frozenset()
        for kind, match, node in _named_full_masks(self.ctx.source, self.ctx.root, used):
            if kind == "constant":
                name, declared = match.group(2).decode(), " ".join(match.group(1).decode().split())
                self.add(_Item(("file", match.start()), node, "warp-32bit-mask", name,
                               {"what": f"the full mask {name} is declared {declared}"},
                               [self.fix_of(match.start(1), match.end(1), WIDE_TYPE, f"the mask {name}", node),
                                self.fix_of(match.start(3), match.end(3), WIDE_FULL_MASK, f"the mask {name}", node)],
                               standalone=True))
            else:
                name = match.group(1).decode()
                self.add(_Item(("file", match.start()), node, "warp-32bit-mask", name,
                               {"what": f"the macro {name} is the 32-bit full mask"},
                               [self.fix_of(match.start(2), match.end(2), WAVE_LANES, f"the mask {name}", node)],
                               standalone=True))

    # Warp-size constants ----------------------------------------------------------------------
    def warp_constants(self) -> None:
        ctx, source = self.ctx, self.ctx.source
        defined: dict[str, tuple[str, re.Match, tree_sitter.Node]] = {}
        scans = next(_warp_size_cores(source), None) is not None
        for match, what in _warp_definitions(source) if scans else ():
            if not _WARP_SIZE_WORD.match(match.group(1).decode()) and what == "constant":
                continue
            node = ctx.node_at(match.start(1), match.end(1))
            if node.type in ("comment", "string_content", "string_literal"):
                continue
            defined.setdefault(match.group(1).decode(), (what, match, node))
        tree = self.tree.visible_constants(ctx.path) if self.tree is not None else {}
        for name, (what, match, node) in defined.items():
            own = self.tree is not None and ctx.path in [home for _what, home in self.tree.constants.get(name, ())]
            self.constants[name] = ("tree", "constant", name, ctx.path) if own else ("constant", name)
        # Warp-size constants a header compiled with this file defines (WarpTree): their uses
        # here are rewritten with every other use in the tree, or none is.
        for name, (what, path) in tree.items():
            if name not in defined and path != ctx.path and name.encode() in source:
                self.constants[name] = ("tree", "constant", name, path)
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
        for core in _warp_size_cores(source) if scans else ():
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
            scope = self.locals_of(self.function_of(node))
            value = scope is not None and name in scope.declared  # a parameter or local: a run-time value
            self.add(_Item(self.unit_of(node), node, None, name, {}, None,
                           f"{name} (line {node.start_point[0] + 1}) is a warp-size constant that --fix cannot rewrite "
                           "here (not `= 32` in this file)", external=not value))

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
        if name == "warpSize" and definition is not None:
            # The code declares its own warpSize = 32 (bsw in HeCBench): it hides HIP's, so its
            # uses are 32 at every wavefront width and no rewrite of them can reach HIP's.
            definition.fixes = None
            definition.reason = (f"the code declares its own warpSize = 32 (line {node.start_point[0] + 1}), which "
                                 "hides HIP's warpSize: its uses stay 32 on 64-wide wavefronts (rename it, or "
                                 "delete it to use HIP's)")
            for token in uses:
                item_unit = self.unit_of(token)
                self.links.append((item_unit, unit))
                self.add(_Item(item_unit, token, None, name, {}, None, definition.reason))
            return
        if definition is not None and not uses and not shared:
            definition.fixes = None
            definition.reason = f"{name} is not used in this file: the files that use it decide what it must be"
            definition.external = True  # decided where it is used: logical warps too
            return
        if definition is not None and ctx.path.lower().endswith(_HEADER_SUFFIXES) and not shared:
            definition.fixes = None
            definition.reason = f"{name} is defined in a header: the files that include it use it too"
            definition.external = True  # decided where it is used: logical warps too
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
            if context == "a constexpr initialiser":
                declarator = _enclosing(token, ("init_declarator",))
                written = " ".join(self.text(declarator).split()) if declarator is not None else name
                item.fixes, item.reason = None, (
                    f"{name} is used as {context} (line {line}: `{written}`), and --fix has no rewrite for a "
                    "compile-time constant derived from the warp size (warpSize is a run-time value in ROCm 7)")
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
            rows = self.second_dimension() if re.fullmatch(r"(threadIdx|blockDim)\.x", "".join(other_text.split())) else None
            if rows is not None and (rewrite or operator_text in ("/", ">>")):
                item.reason = (f"{item.fields['expression']} (line {node.start_point[0] + 1}) numbers lanes or warps along "
                               f"x only, and the file's blocks have a second dimension ({rows}): a 64-lane wavefront "
                               "spans rows where blockDim.x is under 64, so widening it would not give the lane")
            elif rewrite and on_left and self.is_thread_index(other):
                new_operator, operand = rewrite
                item.fixes = [self.fix_of(operator.start_byte, node.end_byte, f"{new_operator} {operand}".encode(),
                                          "lane arithmetic", node)]
            elif (operator_text, literal) in (("/", "32"), (">>", "5")) and on_left and _BLOCK_DIM.match(
                    "".join(other_text.split())):
                item.fixes = [self.fix_of(binary.start_byte, binary.end_byte,
                                          f"({other_text} + warpSize - 1) / warpSize".encode(), "the wavefront count", node)]
            else:
                item.reason = f"{item.fields['expression']} (line {node.start_point[0] + 1}) has no rewrite known to be right at both widths"

    def warp_macro_calls(self) -> None:
        """Calls of the file's function-like macros whose body holds a warp collective
        (``#define SHFL_DOWN(v, o) __shfl_down_sync(FULL_MASK, (v), (o))``). A transparent
        shuffle macro (:func:`hipport.lane_flow.shuffle_macros`) called as the step ``v +=
        M(v, o)`` of a halving loop is a shuffle reduction like ``__shfl_down_sync`` itself (the
        loop is checked by :meth:`shuffle_loops`, its result by :mod:`hipport.lane_flow`). Any
        other call hides what the collective's result becomes: with --fix it keeps its unit from
        being widened (an item with no rewrite; the logical warps decline such macros too, so
        HP1111 reports it), and the port reports it as HP1117 where the function has no other
        32-wide assumption (:meth:`width_dependent_collectives`)."""
        macros = lane_flow.collective_macros(self.ctx.source)
        if not macros:
            return
        transparent = lane_flow.shuffle_macros(self)
        pattern = re.compile(rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(m.encode()) for m in macros) + rb")\s*\(")
        for match in pattern.finditer(self.ctx.source):
            node = self.ctx.node_at(match.start(1), match.end(1))
            call = node.parent
            if node.type != "identifier" or call is None or call.type != "call_expression" or \
                    call.child_by_field_name("function") != node:
                continue
            function = self.function_of(call)
            if function is None or warp32.is_own_helper(self, function):
                continue
            name = match.group(1).decode()
            loop = self._macro_reduction_loop(call) if name in transparent else None
            if loop is not None:
                self.macro_loops.add(loop.start_byte)
                continue
            reason = (f"the call `{' '.join(self.text(call).split())}` (line {call.start_point[0] + 1}) of the macro "
                      f"{name} (line {macros[name]}) hides a warp collective: hipport follows a collective's result "
                      "through a macro only where the macro is one shuffle of its two parameters (M(v, o): "
                      "__shfl_down_sync or __shfl_xor_sync) and the call is the step v += M(v, o) of a halving loop")
            self.macro_uses.append((function, call, reason))
            if self.fix:
                self.add(_Item(function.start_byte, call, None, "", {}, None, reason, audit=True))

    def _macro_reduction_loop(self, call: tree_sitter.Node) -> tree_sitter.Node | None:
        """The halving ``for`` loop of which ``call`` (``M(v, o)``) is the step ``v += M(v, o)``
        (or ``v = v + M(v, o)``), ``o`` its variable; else None."""
        arguments = [c for c in call.child_by_field_name("arguments").named_children if c.type != "comment"]
        parent = call.parent
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if len(arguments) != 2 or parent is None or parent.type != "assignment_expression" or \
                self.text(parent.child_by_field_name("operator")) != "+=":
            return None
        target = self.text(parent.child_by_field_name("left")).strip()
        loop = _enclosing(call, ("for_statement",))
        if loop is None or self.text(_strip(arguments[0])) != target:
            return None
        variable, _start = self.loop_start(loop.child_by_field_name("initializer"))
        if variable is None or self.text(_strip(arguments[1])) != variable or not self.halves(
                variable, _strip(loop.child_by_field_name("condition")), loop.child_by_field_name("update")):
            return None
        return loop

    def second_dimension(self) -> str | None:
        """Where the file's code first uses a second or third block dimension (``threadIdx.y``,
        ``blockDim.z``, ...): ``"threadIdx.y at line 7"``; else a launch, in this file or another
        of its program (:attr:`WarpTree.two_dimensional_launches`), of a kernel this file defines
        with a block of two or three dimensions (``"main.cu:12 launches k with a block dim3
        block(32, 4)"``); None for one-dimensional code; cached."""
        if not hasattr(self, "_second_dimension"):
            self._second_dimension = None
            for match in re.finditer(rb"\b(threadIdx|blockDim)\s*\.\s*[yz]\b", self.ctx.source):
                node = self.ctx.node_at(match.start(), match.end())
                if node.type not in _CODE_SKIP and not warp32.inside_wave_lanes_helper(self, node):
                    line = self.ctx.source.count(b"\n", 0, match.start()) + 1
                    self._second_dimension = f"{''.join(match.group(0).decode().split())} at line {line}"
                    break
            if self._second_dimension is None and b"__global__" in self.ctx.source:
                launches = two_dimensional_launches(self.ctx.path, self.ctx.source, self.ctx.root) \
                    if b"<<<" in self.ctx.source else []
                if self.tree is not None:
                    launches += self.tree.two_dimensional_launches.get(self.ctx.path, [])
                for name, where in launches:
                    if re.search(rb"__global__[^;{}]*\b" + re.escape(name.encode()) + rb"\s*(?:<[^;{}]*>\s*)?\(",
                                 self.ctx.source):
                        self._second_dimension = where
                        break
        return self._second_dimension

    def shuffle_loops(self) -> None:
        ctx = self.ctx
        for match in re.finditer(rb"\bfor\s*\(", ctx.source):
            loop = ctx.node_at(match.start(), match.start() + 3).parent
            if loop is None or loop.type != "for_statement":
                continue
            body = loop.child_by_field_name("body")
            if body is None or (b"__shfl" not in ctx.text(body) and loop.start_byte not in self.macro_loops):
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
        tree key (``("tree", "constant" | "function", name, header)``) is a name shared with other files."""
        return [(items, keys) for items, keys, _ in self.components()]

    def components(self, with_keys: frozenset = frozenset()) -> list[tuple[list[_Item], set[tuple], list[int]]]:
        """Like :meth:`groups`, with the start bytes of every function of each group (those
        with items and those tied to them by calls), in source order; also the groups with no
        item that hold one of the tree keys ``with_keys``."""
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
        functions: dict[object, list[int]] = {}
        for key in list(parent):
            if isinstance(key, tuple) and key and key[0] == "tree":
                keys.setdefault(find(key), set()).add(key)
            elif isinstance(key, int):
                functions.setdefault(find(key), []).append(key)
        for root in list(groups):
            # no assumption, only uses whose meaning the width changes (a broadcast from lane 0
            # stored per thread, a vote as a branch): kept as written those give other results
            # on a 64-lane wavefront, so --fix decides the unit like any other (logical warps)
            if all(item.audit for item in groups[root]) and (not self.fix or self.names_warp_size(groups[root])):
                if keys.get(root):
                    groups[root] = []
                else:
                    del groups[root]
        for root, found in keys.items():
            if root not in groups and found & with_keys:
                groups[root] = []
        # the assumptions first: a group's blocker is named by one of them when it has one
        return [(sorted(items, key=lambda item: item.audit), keys.get(root, set()), sorted(functions.get(root, ())))
                for root, items in groups.items()]

    def names_warp_size(self, items: list[_Item]) -> bool:
        """Some function holding one of ``items`` names ``warpSize``: code written for a
        wavefront width chosen at run time, whose uses of collectives its author decided (only
        code that names no width and assumes CUDA's 32 lanes is run as logical warps for them)."""
        for item in items:
            function = self.function_of(item.at) if hasattr(item.at, "start_byte") else None
            if function is not None and _WARPSIZE.search(self.ctx.text(function)):
                return True
        return False

    def function_nodes(self, starts: list[int]) -> list[tree_sitter.Node]:
        """The function definitions of this file starting at the bytes ``starts``."""
        if not hasattr(self, "_function_nodes"):
            self._function_nodes = {node.start_byte: node for node in file_nodes(self.ctx, "function_definition")}
        return [self._function_nodes[start] for start in starts if start in self._function_nodes]

    def host_reads(self) -> list[str]:
        """``path:line`` of this file's and (through the tree) other files' reads of the
        device's warp size (:func:`hipport.warp32.host_warp_size_reads`)."""
        if not hasattr(self, "_host_reads"):
            own = [f"{self.ctx.path}:{line}" for line in warp32.host_warp_size_reads(self.ctx.source, self.ctx.root)]
            shared = self.tree.host_reads.get(self.ctx.path, ()) if self.tree is not None else ()
            self._host_reads = own + [read for read in shared if read not in own]
        return self._host_reads

    def logical_blocker(self, items: list[_Item], starts: list[int]) -> str | None:
        """Why a group (its items, its function start bytes) cannot run as 32-lane logical warps
        (:mod:`hipport.warp32`), or None."""
        external = next((item for item in items if item.external), None)
        if external is not None:
            return external.reason
        return warp32.blocker(self, self.function_nodes(starts), self.host_reads())

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
        pending: list[_Item] = []  # the findings of the units left as written, emitted last
        newline = b"\r\n" if b"\r\n" in self.ctx.source else b"\n"
        blocked = self.tree.blocked if self.tree is not None and self.tree.blocked is not None else {}
        logical_keys = self.tree.logical if self.tree is not None else frozenset()
        logical_blocked = self.tree.logical_blocked if self.tree is not None else {}
        logical_edits: list[Edit] = list(self.macro_logical[0])  # the macro-defined functions' (macro_functions)
        logical_used: set[str] = set(self.macro_logical[1])
        logical_at: int | None = min(self.macro_logical[2], default=None)
        for items, keys, starts in self.components(logical_keys if self.fix else frozenset()):
            fixable = all(item.fixes is not None for item in items)
            shared_reason = next((blocked[key] for key in sorted(keys) if key in blocked), None)
            if shared_reason is not None:
                fixable = False
            if self.fix and not items and not fixable and not (keys & logical_keys):
                continue
            if self.fix and fixable and items:
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
            if self.fix and not fixable:
                if keys & (self.tree.warp_keys if self.tree is not None else frozenset()):
                    # decided across the tree (warp_tree), the same in every file of the group
                    logical_reason = next((logical_blocked[key] for key in sorted(keys) if key in logical_blocked), None)
                    if logical_reason is None and not keys & logical_keys:
                        logical_reason = self.logical_blocker(items, starts) or "the tree pass did not decide it"
                else:
                    logical_reason = self.logical_blocker(items, starts)
                if logical_reason is None:
                    functions = self.function_nodes(starts)
                    found, used = warp32.edits(self, functions)
                    logical_edits.extend(found)
                    logical_used |= used
                    first_item = next((i for i in items if i.fixes is None), None)
                    first = first_item.reason if first_item is not None else (shared_reason or "")
                    for function in functions:
                        if not self.is_device(function):
                            lambdas = warp32.device_lambdas(self, function)
                            for lambda_ in lambdas:
                                if any(lambda_.start_byte <= edit.start < lambda_.end_byte for edit in found):
                                    offset = warp32.block_offset(self.ctx.source, function)
                                    logical_at = offset if logical_at is None else min(logical_at, offset)
                                    self.ctx.report("warp-logical-fixed", lambda_,
                                                    name=f"the __device__ lambda of {self.function_name(function)}",
                                                    reason=self.reason_in(function, items, first_item) or first)
                            # an assumption in code that is no device function or lambda to the
                            # parser (specifiers it could not read) was not rewritten: it keeps its
                            # finding, with HP1111 saying why
                            inside = [item for item in items if hasattr(item.at, "start_byte")
                                      and function.start_byte <= item.at.start_byte < function.end_byte
                                      and not any(l.start_byte <= item.at.start_byte < l.end_byte for l in lambdas)]
                            if inside and self._device_only_words(function, lambdas):
                                pending.extend(item for item in inside if item.check is not None)
                                self.ctx.report("warp-fix-skipped", function.child_by_field_name("declarator") or function,
                                                name=self.function_name(function),
                                                reason="it holds warp code but is not seen as device code (no __global__ "
                                                       "or __device__ the parser reads), so --fix cannot run it as "
                                                       "32-lane logical warps")
                            continue
                        if warp32.is_own_helper(self, function):
                            continue
                        why = self.reason_in(function, items, first_item) or first
                        if any(function.start_byte <= edit.start < function.end_byte for edit in found):
                            offset = warp32.block_offset(self.ctx.source, function)
                            logical_at = offset if logical_at is None else min(logical_at, offset)
                        self.ctx.report("warp-logical-fixed", function.child_by_field_name("declarator"),
                                        name=self.function_name(function), reason=why)
                    continue
            else:
                logical_reason = None
            pending.extend(item for item in items if item.check is not None)
            if self.fix:
                blocker = next((item for item in items if item.fixes is None), None)
                reported = set()
                for item in items:
                    function = self.function_of(item.at) if hasattr(item.at, "start_byte") else None
                    key = function.start_byte if function is not None else item.unit
                    if key in reported or (function is None and item.check is None and item is not blocker):
                        continue
                    reported.add(key)
                    reason = self.reason_in(function, items, blocker) or shared_reason
                    if logical_reason is not None:
                        reason = (f"{reason}; nor can it run as 32-lane logical warps, for the same reason"
                                  if logical_reason == reason else
                                  f"{reason}; nor can it run as 32-lane logical warps: {logical_reason}")
                    where = (self.function_name(function) if function is not None
                             else item.label or f"the file-scope code at line {item.at.start_point[0] + 1}")
                    at = function.child_by_field_name("declarator") if function is not None else item.at
                    self.ctx.report("warp-fix-skipped", at, name=where, reason=reason)
        if block_at is not None:
            self.ctx.result.edits.append(Edit(block_at, block_at, shield_from_macros(
                self.ctx.source, block_at, _WAVEFRONT_BLOCK.replace(b"{nl}", newline))))
        # a function nested in another (an error-tolerant parse of invalid code) is in both units
        self.ctx.result.edits.extend({(e.start, e.end, e.text): e for e in logical_edits}.values())
        self.wave_lanes_block(newline)
        if logical_used and logical_at is not None:
            self.ctx.result.edits.append(Edit(logical_at, logical_at, shield_from_macros(
                self.ctx.source, logical_at, warp32.helpers_block(logical_used, newline))))
        lines = {self._line(item) for item in pending if item.check == "warp-32bit-mask" and not item.once_per_line}
        for item in sorted(pending, key=lambda i: i.at.start_byte if hasattr(i.at, "start_byte") else i.at[0]):
            if item.once_per_line:
                if self._line(item) in lines:
                    continue  # one 32-bit mask finding on a line is enough
                lines.add(self._line(item))
            self.ctx.report(item.check, item.at, name=item.name, **item.fields)

    def _device_only_words(self, function: tree_sitter.Node, lambdas: list[tree_sitter.Node]) -> bool:
        """The host function ``function`` names, outside its ``__device__`` lambdas, what only
        device code can (``threadIdx``, a warp intrinsic, ``__syncthreads``): device code whose
        specifiers the parser did not read (a kernel after a macro call in an error node)."""
        outer = self.function_of(function.parent) if function.parent is not None else None
        if outer is not None:  # CUDA_KERNEL_LOOP(i, n) { ... } parsed as a function in a function
            return False  # the enclosing function's code: decided with it
        code = bytearray(self.code()[function.start_byte:function.end_byte])
        for lambda_ in lambdas:
            start, end = lambda_.start_byte - function.start_byte, lambda_.end_byte - function.start_byte
            code[start:end] = b" " * (end - start)
        return _DEVICE_ONLY_WORD.search(bytes(code)) is not None

    def wave_lanes_block(self, newline: bytes) -> None:
        """Insert :data:`_WAVE_LANES_BLOCK` once, before the first translation-unit-level construct
        (a function, a macro, a namespace) that an edit writing :data:`WAVE_LANES` is in."""
        offsets = [warp32.block_offset(self.ctx.source, self.ctx.node_at(edit.start, edit.end))
                   for edit in self.ctx.result.edits if WAVE_LANES in edit.text]
        if offsets:
            at = min(offsets)
            self.ctx.result.edits.append(Edit(at, at, shield_from_macros(
                self.ctx.source, at, _WAVE_LANES_BLOCK.replace(b"{nl}", newline))))

    def reason_in(self, function: tree_sitter.Node | None, items: list[_Item], blocker: _Item | None) -> str | None:
        """Why --fix did not widen ``function`` (None: a file-scope item): an assumption with no
        rewrite in it, else the group's ``blocker`` unless that is a use of a lane or warp number
        elsewhere (:mod:`hipport.lane_flow`), else such a use in it, else the blocker's."""
        own = [i for i in items if i.fixes is None and function is not None and hasattr(i.at, "start_byte")
               and function.start_byte <= i.at.start_byte < function.end_byte]
        assumption = next((i.reason for i in own if not i.audit), None)
        if assumption is not None:
            return assumption
        if blocker is not None and not blocker.audit:
            return blocker.reason
        return own[0].reason if own else (blocker.reason if blocker is not None else None)

    def _line(self, item: _Item) -> int:
        return item.at.start_point[0] if hasattr(item.at, "start_point") else self.ctx.source.count(b"\n", 0, item.at[0])

    def _block_offset(self, node: tree_sitter.Node) -> int:
        """Line start of the top-level (or namespace-level) declaration holding ``node``."""
        top = node
        while top.parent is not None and top.parent.type not in ("translation_unit", "declaration_list"):
            top = top.parent
        return self.ctx.source.rfind(b"\n", 0, top.start_byte) + 1


_IDENTIFIER_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_TYPE_OR_MACRO_NAME = re.compile(rb"(?:(?<![A-Za-z0-9_])(?:struct|class)\s+|^[ \t]*#[ \t]*define[ \t]+)([A-Za-z_]\w*)",
                                 re.MULTILINE)
_DEVICE_ONLY_WORD = re.compile(rb"(?<![A-Za-z0-9_.>])(?:threadIdx|blockIdx|__syncthreads|__syncwarp|__shfl\w*|__ballot\w*|"
                               rb"__any_sync|__all_sync|__activemask|__match_\w+|warpSize)(?![A-Za-z0-9_])")
_MACRO_FUNCTION = re.compile(rb"(?<![A-Za-z0-9_])(?:__global__|__device__)(?![A-Za-z0-9_])")
#: A function a macro body defines: the name before the parameter list after its specifiers.
_MACRO_DEFINED_NAME = re.compile(rb"(?<![A-Za-z0-9_])(?:__global__|__device__)(?![A-Za-z0-9_])[^{};()]*?"
                                 rb"(?<![A-Za-z0-9_])([A-Za-z_]\w*)\s*\(")
_COLLECTIVE_CALL = re.compile(rb"(?<![A-Za-z0-9_])(__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__match_\w+|"
                              rb"__reduce_\w+_sync)(?=\s*\()")
_MASK_CONSTANT = re.compile(  # (?<!\w)(?:static\s+)?(?:constexpr|const), each look-behind after its word
    rb"(?:static(?<!\wstatic)\s+(?:constexpr|const)|constexpr(?<!\wconstexpr)|const(?<!\wconst))\s+(?:static\s+)?(?:__device__\s+)?"
    rb"(unsigned\s+int|unsigned|uint32_t|std::uint32_t)\s+(\w*(?:[Mm]ask|MASK)\w*)\s*=\s*([0-9A-Za-z~]+)\s*;")
_MASK_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w*(?:[Mm]ask|MASK)\w*)[ \t]+\(?([0-9A-Za-z~]+)\)?[ \t]*(?://.*|/\*.*)?\r?$",
                          re.MULTILINE)
_LAST_WARP = re.compile(rb"\bif\s*\(\s*([A-Za-z_][\w.]*)\s*<\s*32\s*\)")


def _named_full_masks(source: bytes, root: tree_sitter.Node, value_used: frozenset[str] = frozenset()):
    """The named full 32-bit masks that --fix widens where they are defined, each a unit of its
    own (:meth:`_Scan.mask_constants`): yields ``("constant", match, name node)`` for
    ``const unsigned kFullMask = 0xffffffff;`` outside functions (:data:`_MASK_CONSTANT`) and
    ``("macro", match, name node)`` for ``#define FULL_MASK 0xffffffff`` (:data:`_MASK_DEFINE`).
    A name used anywhere as a value, not as the mask of a ``*_sync`` call (``v == FULL_MASK``,
    ``x & FULL_MASK``: in this file, or in ``value_used``, :func:`mask_value_uses` of the tree),
    is not one: widened, it would change what those expressions compute."""
    local = None
    for match in _MASK_CONSTANT.finditer(source) if b"ask" in source or b"ASK" in source else ():
        if not _FULL_MASK.match(match.group(3).decode()):
            continue
        local = mask_value_uses([("", source)]) if local is None else local
        if match.group(2).decode() in value_used or match.group(2).decode() in local:
            continue
        node = root.descendant_for_byte_range(match.start(2), match.end(2))
        if node.type in _CODE_SKIP or node.type == "preproc_arg" or _enclosing(node, ("function_definition",)) is not None:
            continue  # masks inside functions are judged where a call uses them
        yield "constant", match, node
    for match in directive_matches(_MASK_DEFINE, source) if b"ask" in source or b"ASK" in source else ():
        if _FULL_MASK.match(match.group(2).decode()):
            local = mask_value_uses([("", source)]) if local is None else local
            if match.group(1).decode() in value_used or match.group(1).decode() in local:
                continue
            yield "macro", match, root.descendant_for_byte_range(match.start(1), match.end(1))


def _in_first_argument(code: bytes, at: int, callee: re.Pattern) -> bool:
    """Byte ``at`` of ``code`` lies in the first argument of a call whose function name (with
    its opening parenthesis, at the end of the text before it) ``callee`` matches, through any
    grouping parentheses, casts and operators (``__shfl_sync((mask & kAll), ...)``)."""
    depth, comma, start = 0, False, max(at - 400, 0)
    position = at - 1
    while position >= start:
        char = code[position:position + 1]
        if char == b")":
            depth += 1
        elif char == b"(":
            if depth:
                depth -= 1
            else:
                if callee.search(code, start, position + 1):
                    return not comma
                if re.search(rb"[A-Za-z0-9_]\s*$", code[start:position]):
                    return False  # another function's argument
                comma = False  # a grouping parenthesis or a cast: go on outwards
        elif char == b"," and not depth:
            comma = True
        elif char in b";{}" and not depth:
            return False
        position -= 1
    return False


def mask_value_uses(sources) -> dict[str, str]:
    """The names defined as full 32-bit masks (:data:`_MASK_DEFINE`, :data:`_MASK_CONSTANT`) in
    ``sources`` (``(path, content)`` pairs) that some file uses as a value: anywhere but as the
    first argument of a ``*_sync`` call (:data:`MASK_FUNCTIONS`) or their own definition. Returns
    name -> ``path:line`` of the first such use. Comments and strings are not uses."""
    sources = list(sources)
    names: set[bytes] = set()
    for _path, source in sources:
        if b"ask" in source or b"ASK" in source:
            names |= {m.group(1) for m in directive_matches(_MASK_DEFINE, source) if _FULL_MASK.match(m.group(2).decode())}
            names |= {m.group(2) for m in _MASK_CONSTANT.finditer(source) if _FULL_MASK.match(m.group(3).decode())}
    if not names:
        return {}
    word = re.compile(rb"(?<![A-Za-z0-9_])(" + b"|".join(re.escape(n) for n in sorted(names)) + rb")(?![A-Za-z0-9_])")
    as_mask = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(re.escape(f.encode()) for f in sorted(MASK_FUNCTIONS))
                         + rb")\s*\(\s*\(?\s*$")
    found: dict[str, str] = {}
    ordered = sorted(names)
    for path, source in sources:
        if not any(name in source for name in ordered) or not word.search(source):
            continue  # the substring test first: a regex that starts with a lookbehind scans byte by byte
        code = code_only(source)
        for match in word.finditer(code):
            name = match.group(1).decode()
            if name in found:
                continue
            line_start = code.rfind(b"\n", 0, match.start()) + 1
            before = code[max(line_start - 200, 0):match.start()]
            after = code[match.end():match.end() + 40]
            if re.search(rb"#[ \t]*define[ \t]+$", code[line_start:match.start()]) \
                    or re.match(rb"\s*=\s*[0-9A-Za-z~]+\s*;", after):
                continue  # its definition
            if _in_first_argument(code, match.start(), as_mask):
                continue
            line = source.count(b"\n", 0, match.start()) + 1
            found[name] = f"{path}:{line}" if path else str(line)
    return found


# Widths of mask expressions ---------------------------------------------------------------------
# HIP 6.4's *_sync builtins are templates on the mask type that static_assert ``sizeof(MaskT) ==
# 8`` (hip/amd_detail/amd_warp_sync_functions.h, e.g. __shfl_sync at line 232), so what matters
# at a call is the C++ type of its mask argument, as clang types it for AMD GPUs (LP64: int 32
# bits, long and long long 64 bits; HIP's __ballot/__activemask return unsigned long long,
# amd_warp_functions.h:114 and 130, the __lanemask_* functions uint64_t,
# amd_device_functions.h:692-714).

#: Integer types of 32 bits (as declared: the spelling of a declaration's type).
_32BIT_TYPES = _NARROW_TYPES | {"signed", "signed int", "std::int32_t"}
#: Integer types of 64 bits (``long`` is 64-bit in the LP64 data model of HIP on Linux).
_64BIT_TYPES = frozenset({"unsigned long long", "unsigned long long int", "long long", "long long int", "unsigned long",
                          "unsigned long int", "long", "long int", "uint64_t", "std::uint64_t", "int64_t",
                          "std::int64_t", "size_t", "std::size_t", "lane_mask"})
#: An integer literal: digits (a prefix for hex, binary and octal, ``'`` separators) and suffix.
_INT_LITERAL = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uU]?(?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU])$")
#: Calls whose result is a 64-bit lane mask in HIP 6.4 (see above).
_64BIT_CALLS = re.compile(r"^(?:__ballot_sync|__ballot|__activemask|__match_any_sync|__match_all_sync|__lanemask_\w+)$")
#: An object-like macro (not ``NAME(``) on one line: name and replacement text.
_OBJECT_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*([^\n]*?)[ \t]*\r?$", re.MULTILINE)
_WORDS = re.compile(rb"[A-Za-z_]\w*")


def _type_bits(type_text: str) -> int | None:
    """32 or 64 for an integer type as declared (``unsigned``, ``uint64_t``), None for any other
    type (a typedef of the project, a template parameter, ``auto``)."""
    return 32 if type_text in _32BIT_TYPES else 64 if type_text in _64BIT_TYPES else None


def _literal_type(text: str) -> str | None:
    """The C++ type of an integer literal ([lex.icon]: the first of int, unsigned int (not for
    an unsuffixed decimal), long, unsigned long that holds the value, after its suffix), or
    None when ``text`` is not one (a float, a user-defined literal)."""
    match = _INT_LITERAL.match(text)
    if match is None:
        return None
    digits, suffix = match.group(1).replace("'", ""), match.group(2).lower()
    if digits[:2].lower() in ("0x", "0b"):
        value, decimal = int(digits, 0), False
    else:
        decimal = not digits.startswith("0")
        value = int(digits, 10 if decimal else 8) if digits.strip("0") else 0
    unsigned = "u" in suffix
    if "ll" in suffix:
        return "unsigned long long" if unsigned or (not decimal and value > 0x7FFF_FFFF_FFFF_FFFF) else "long long"
    if "l" not in suffix:
        if unsigned:
            if value <= 0xFFFF_FFFF:
                return "unsigned int"
        elif value <= 0x7FFF_FFFF:
            return "int"
        elif not decimal and value <= 0xFFFF_FFFF:
            return "unsigned int"
    return "unsigned long" if unsigned or (not decimal and value > 0x7FFF_FFFF_FFFF_FFFF) else "long"


def _spelled(type_text: str) -> str:
    """A 32-bit type as messages name it: ``unsigned`` is ``unsigned int``, ``signed`` ``int``."""
    return {"unsigned": "unsigned int", "signed": "int", "signed int": "int"}.get(type_text, type_text)


def _is_unsigned(type_text: str) -> bool:
    return "unsigned" in type_text or type_text.startswith(("uint", "std::uint", "size_t", "std::size_t"))


@functools.cache
def _expression_parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(LANGUAGE)


@functools.lru_cache(maxsize=4096)
def _macro_expression(body: bytes) -> tree_sitter.Node | None:
    """The replacement text of an object-like macro parsed as an expression, or None."""
    tree = _expression_parser().parse(b"long long __hipport_mask = (" + body + b"\n);")
    declaration = tree.root_node.named_children[0] if tree.root_node.named_child_count == 1 else None
    if tree.root_node.has_error or declaration is None or declaration.type != "declaration":
        return None
    declarator = declaration.child_by_field_name("declarator")
    value = declarator.child_by_field_name("value") if declarator is not None and declarator.type == "init_declarator" else None
    return _strip(value)


@dataclass(frozen=True)
class MaskDefinition:
    """A definition outside functions of a name that a ``*_sync`` call may pass as its mask.

    Attributes:
        path: the file (relative to the tree, ``/``-separated); ``line``: its line (1-based).
        kind: ``"macro"`` (an object-like ``#define``), ``"variable"`` (a declaration outside
            functions: ``constexpr unsigned kAll = ...;``, ``__constant__ uint32_t m;``),
            ``"field"`` (a class member) or ``"type"`` (``typedef unsigned int lanes_t;``,
            ``using lanes_t = uint32_t;``, of a 32- or 64-bit integer type).
        text: the macro's replacement text, or the declared type (``unsigned int``).
        widened: --fix widens it where it is defined, whatever its users (a full mask named like
            a mask, :func:`_named_full_masks`).
    """

    path: str
    line: int
    kind: str
    text: str
    widened: bool = False


def _mask_definitions(path: str, source: bytes, root: tree_sitter.Node, wanted: frozenset[str] | None = None,
                      value_used: frozenset[str] = frozenset()) -> dict[str, list[MaskDefinition]]:
    """The object-like macros of a file, its type names of 32- and 64-bit integer types, and its
    variables outside functions and class members named in ``wanted`` (None: all), by name, in
    source order."""
    found: dict[str, list[MaskDefinition]] = {}
    widened = {node.start_byte for _, _, node in _named_full_masks(source, root, value_used)}

    def add(name: str, node: tree_sitter.Node, kind: str, text: str) -> None:
        found.setdefault(name, []).append(MaskDefinition(path, node.start_point[0] + 1, kind, text,
                                                         node.start_byte in widened))

    for match in directive_matches(_OBJECT_MACRO, source) if b"define" in source else ():
        node = root.descendant_for_byte_range(match.start(1), match.end(1))
        body = match.group(2)
        if node.type != "identifier" or node.parent is None or node.parent.type != "preproc_def" or body.endswith(b"\\"):
            continue
        add(match.group(1).decode(), node, "macro", body.decode("utf-8", "replace"))
    if b"typedef" in source or b"using" in source:
        for node in _query(_TYPE_NAMES, root):
            type_node = node.child_by_field_name("type")
            named = node.child_by_field_name("name" if node.type == "alias_declaration" else "declarator")
            type_text = " ".join(type_node.text.decode("utf-8", "replace").split()) if type_node is not None else ""
            if named is not None and named.type == "type_identifier" and _type_bits(type_text) is not None:
                add(named.text.decode("utf-8", "replace"), named, "type", type_text)
    if wanted is not None and not wanted:
        return found
    for node in _query(_FILE_DECLARATIONS, root):
        if node.type == "declaration" and _enclosing(node.parent, ("function_definition", "field_declaration_list",
                                                                  "compound_statement")) is not None:
            continue
        type_node = node.child_by_field_name("type")
        if type_node is None:
            continue
        type_text = " ".join(type_node.text.decode("utf-8", "replace").split())
        head = source[node.start_byte:type_node.end_byte]
        if type_text == "int" and b"unsigned" in head:
            type_text = "unsigned int"
        for declarator in node.children_by_field_name("declarator"):
            name_node = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            if name_node is None or name_node.type not in ("identifier", "field_identifier"):
                continue
            name = name_node.text.decode("utf-8", "replace")
            if wanted is None or name in wanted:
                add(name, name_node, "field" if node.type == "field_declaration" else "variable", type_text)
    return found


def _argument_words(source: bytes, start: int) -> set[str]:
    """The identifiers of the call argument that starts at byte ``start`` (up to its ``,`` or ``)``)."""
    depth, end, limit = 0, start, min(len(source), start + 400)
    while end < limit:
        char = source[end:end + 1]
        if char in (b"(", b"[", b"{"):
            depth += 1
        elif char in (b")", b"]", b"}"):
            if depth == 0:
                break
            depth -= 1
        elif char == b"," and depth == 0:
            break
        end += 1
    return {word.decode() for word in _WORDS.findall(source, start, end)}


@dataclass
class MaskNames:
    """What the files of a tree define of the names its ``*_sync`` calls pass as masks, for the
    32-bit mask check at the call (HP1102): a file's calls may take a mask from a header.

    Attributes:
        definitions: file -> name -> its :class:`MaskDefinition` there, for the files some
            file with a ``*_sync`` call can see.
        visible: file with a ``*_sync`` call -> (the files it includes, directly or through
            the tree's headers; the files that include it and the files those include): a name
            is looked up in the first, and in the second only when the first has none (a
            header's macro may come from the file that includes it).
        value_used: the full-mask names some file of the tree uses as a value
            (:func:`mask_value_uses`): --fix does not widen their definitions.
    """

    definitions: dict[str, dict[str, list[MaskDefinition]]]
    visible: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    value_used: frozenset[str] = frozenset()

    def lookup(self, path: str, name: str) -> list[MaskDefinition]:
        """The definitions of ``name`` that the file ``path`` sees from other files of the tree."""
        for files in self.visible.get(path, ((), ())):
            found = [d for file in files for d in self.definitions.get(file, {}).get(name, ())]
            if found:
                return found
        return []


def mask_names(sources, parser) -> MaskNames | None:
    """A prepass over a whole tree (with or without --fix): where the names that ``*_sync``
    calls pass as masks are defined in other files of the tree (headers, mostly), so that a call
    taking a 32-bit mask from a header is reported at the call (HP1102).

    Args:
        sources: ``(path relative to the tree, file content)`` pairs of the tree's C, C++ and
            CUDA files (headers and sources, a UTF-8 byte-order mark already removed).
        parser: a parser from :func:`hipport.parse.new_parser`.

    Returns:
        The :class:`MaskNames`, or None when no file has a ``*_sync`` call with a named mask.
    """
    sources = dict(sources)
    value_used = frozenset(mask_value_uses(sources.items()))
    users: dict[str, set[str]] = {}
    for path, source in sources.items():
        if b"_sync" not in source:
            continue
        words: set[str] = set()
        for match in _CALLS.finditer(source):
            if match.group(1).decode() in MASK_FUNCTIONS:
                words |= _argument_words(source, match.end())
        if words:
            users[path] = words
    if not users:
        return MaskNames({}, {}, value_used) if value_used else None
    from .cmake import reached_files  # the build's module, not needed by most runs of this pass

    reach = reached_files(sources)
    visible: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for path in users:
        including = {other for other, files in reach.items() if path in files and other != path}
        above = including.union(*(reach[other] for other in including)) - {path} if including else set()
        visible[path] = (tuple(sorted(reach[path] - {path})), tuple(sorted(above)))
    wanted = frozenset().union(*users.values())
    pattern = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(re.escape(w.encode()) for w in sorted(wanted)) + rb")(?![A-Za-z0-9_])")
    definitions: dict[str, dict[str, list[MaskDefinition]]] = {}
    for path in sorted({f for seen in visible.values() for files in seen for f in files}):
        source = sources[path]
        if b"define" not in source and b"typedef" not in source and b"using" not in source and not pattern.search(source):
            continue
        found = _mask_definitions(path, source, parser.parse(source).root_node,
                                  wanted if pattern.search(source) else frozenset(), value_used)
        if found:
            definitions[path] = found
    return MaskNames(definitions, visible, value_used)


@dataclass(frozen=True)
class _Leaf:
    """A 32-bit part of a mask expression: its text, where it is defined (``path:line``, "" for
    a literal or a cast), its type, and what widens it under --fix: ``"function"`` (a local
    --fix widens with its function), ``"always"`` (a named full mask --fix widens where it is
    defined), "" (nothing)."""

    text: str
    where: str
    type: str
    widened: str


@dataclass(frozen=True)
class _Width:
    """The width (32 or 64 bits) and type of a mask expression, and its 32-bit parts."""

    bits: int
    type: str
    leaves: tuple[_Leaf, ...] = ()


_64 = _Width(64, "unsigned long long")


class _MaskWidth:
    """The width of a ``*_sync`` call's mask argument, as C++ types it: literals, casts, the
    locals of ``function`` (``masks``: those --fix widens with it), and the macros, variables
    and class members of this file and of the files it sees (:class:`MaskNames`). None where a
    part's type is unknown (a template parameter, a typedef of the project, a function call)."""

    def __init__(self, scan: "_Scan", function: tree_sitter.Node | None, masks: set[str]):
        self.scan, self.function, self.masks = scan, function, masks

    def type_bits(self, type_text: str) -> int | None:
        """:func:`_type_bits`, also for a type name of this file or of a file it sees."""
        bits = _type_bits(type_text)
        if bits is None and re.fullmatch(r"[A-Za-z_]\w*", type_text):
            found = {_type_bits(d.text) for d in self.scan.definitions_of(type_text, ("type",))}
            bits = found.pop() if len(found) == 1 else None
        return bits

    def of(self, node: tree_sitter.Node | None, depth: int = 0, in_macro: bool = False) -> _Width | None:
        while node is not None and node.type == "parenthesized_expression":  # (a comment may follow a macro body)
            inner = [child for child in node.named_children if child.type != "comment"]
            if len(inner) != 1:
                break
            node = inner[0]
        if node is None or depth > 8:
            return None
        text = " ".join(node.text.decode("utf-8", "replace").split())
        kind = node.type
        if kind == "number_literal":
            literal = _literal_type(text)
            if literal is None:
                return None
            return _Width(32, literal, (_Leaf(text, "", literal, ""),)) if literal in ("int", "unsigned int") else _64
        if kind == "identifier":
            return self.named(text, depth, in_macro)
        if kind == "qualified_identifier":
            name = node.child_by_field_name("name")
            while name is not None and name.type == "qualified_identifier":
                name = name.child_by_field_name("name")
            return self.defined(name.text.decode(), self.scan.definitions_of(name.text.decode()), depth) \
                if name is not None and name.type == "identifier" else None
        if kind == "field_expression":
            field = node.child_by_field_name("field")
            name = field.text.decode() if field is not None else ""
            return self.defined(text, self.scan.definitions_of(name, ("field",)), depth)
        if kind == "cast_expression":
            type_node = node.child_by_field_name("type")
            cast = " ".join(type_node.text.decode().split()) if type_node is not None else ""
            bits = self.type_bits(cast)
            return None if bits is None else _64 if bits == 64 else _Width(32, cast, (_Leaf(text, "", cast, ""),))
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            called = " ".join(function.text.decode().split()) if function is not None else ""
            if _64BIT_CALLS.match(called):
                return _64
            cast = re.match(r"^(?:static_cast|reinterpret_cast)\s*<\s*(.+?)\s*>$", called)
            arguments = node.child_by_field_name("arguments")
            if cast is None and function is not None and arguments is not None and len(
                    [a for a in arguments.named_children if a.type != "comment"]) == 1 and (
                    function.type == "primitive_type" or (function.type == "identifier" and self.type_bits(called))):
                cast = re.match(r"^(.+)$", called)  # a functional cast: uint32_t(-1), unsigned(m)
            bits = self.type_bits(cast.group(1)) if cast else None
            return None if bits is None else _64 if bits == 64 else _Width(32, cast.group(1), (_Leaf(text, "", cast.group(1), ""),))
        if kind == "unary_expression" and node.child_by_field_name("operator").type in ("~", "-", "+"):
            return self.of(node.child_by_field_name("argument"), depth + 1, in_macro)
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator").type
            left = self.of(node.child_by_field_name("left"), depth + 1, in_macro)
            if operator in ("<<", ">>"):
                return left  # the type of the promoted left operand
            if operator in ("&", "|", "^", "+", "-", "*", "/", "%"):
                return self.combine(left, self.of(node.child_by_field_name("right"), depth + 1, in_macro))
            return None
        if kind == "conditional_expression":
            return self.combine(self.of(node.child_by_field_name("consequence"), depth + 1, in_macro),
                                self.of(node.child_by_field_name("alternative"), depth + 1, in_macro))
        return None

    @staticmethod
    def combine(a: _Width | None, b: _Width | None) -> _Width | None:
        """The usual arithmetic conversions of two integer operands: 64 bits when either is."""
        if a is None or b is None:
            return _64 if any(w is not None and w.bits == 64 for w in (a, b)) else None
        if a.bits == 64 or b.bits == 64:
            return _64
        return _Width(32, "unsigned int" if _is_unsigned(a.type) or _is_unsigned(b.type) else "int", a.leaves + b.leaves)

    def named(self, name: str, depth: int, in_macro: bool) -> _Width | None:
        """An identifier: a macro of this file (macros are replaced before scopes exist), else a
        local of the function, else a definition of this file or of a file it sees."""
        own = self.scan.own_definitions().get(name, [])
        macros = [d for d in own if d.kind == "macro"]
        if macros:
            return self.defined(name, macros, depth)
        scope = self.scan.locals_of(self.function) if not in_macro else None
        if scope is not None and name in scope.declared:
            if name in scope.twice:
                return None
            _, declarator, value = scope.declared[name]
            declared = scope.type_text(self.scan.ctx, name)
            if declared == "auto" and value is not None:
                return self.of(value, depth + 1)
            bits = self.type_bits(declared)
            if bits != 32:
                return _64 if bits == 64 else None
            where = f"{self.scan.ctx.path}:{declarator.start_point[0] + 1}"
            return _Width(32, declared, (_Leaf(name, where, declared, "function" if name in self.masks else ""),))
        return self.defined(name, self.scan.definitions_of(name), depth)

    def defined(self, name: str, definitions: list[MaskDefinition], depth: int) -> _Width | None:
        """The width of ``name`` (as written: ``mask``, ``lanes.bits``) from its definitions:
        None unless all of them agree."""
        widths = []
        for definition in definitions:
            where = f"{definition.path}:{definition.line}"
            if definition.kind == "macro":
                inner = self.of(_macro_expression(definition.text.encode()), depth + 1, in_macro=True) \
                    if definition.text else None
                if inner is None or inner.bits == 64:
                    widths.append(inner)
                    continue
                always = definition.widened or all(leaf.widened == "always" for leaf in inner.leaves)
                widths.append(_Width(32, inner.type, (_Leaf(name, where, inner.type, "always" if always else ""),)))
                continue
            bits = self.type_bits(definition.text)
            widths.append(None if bits is None else _64 if bits == 64 else _Width(
                32, definition.text, (_Leaf(name, where, definition.text, "always" if definition.widened else ""),)))
        if not widths or any(w is None for w in widths) or len({w.bits for w in widths}) != 1:
            return None
        return widths[0]


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
        for node in nodes_of_kinds(self.function, ("init_declarator", "assignment_expression", "call_expression")):
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
            if value is not None and _is_full_mask(self.text(value)):
                constant = b"constexpr" in self.scan.ctx.text(type_node.parent)[:type_node.start_byte - type_node.parent.start_byte]
                fixes.append(self.scan.fix_of(value.start_byte, value.end_byte, WIDE_FULL_MASK if constant else WAVE_LANES,
                                              f"the mask {name}", declarator))
        for node in nodes_of_kinds(self.function, ("identifier", "call_expression", "binary_expression")):
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
        self.narrow_call_masks()
        if self.masks or fixes or blocked:
            self.scan.add(_Item(self.unit, self.function, None, "", {}, None if blocked else fixes,
                                blocked[0] if blocked else ""))

    def narrow_call_masks(self) -> None:
        """Each ``*_sync`` call of the function whose mask argument is 32-bit, whatever gives it
        its type (a literal, a macro or a variable of this file or of a header it sees, a class
        member, an expression of them), is an HP1102 item at the mask, where clang's error
        lands: HIP's builtins static_assert a 64-bit mask type at each call. A 32-bit local
        that the items above already report at the call is left to them; a full literal mask is
        widened at the call (HP1101). The item needs no edit of its own when --fix widens each
        32-bit part: a local of this function (the item is then fixed with the function), a
        named full mask (widened where it is defined, so with --fix there is no item); else it
        has no fix and leaves the function as written."""
        width = _MaskWidth(self.scan, self.function, self.masks)
        for node in nodes_of_kinds(self.function, ("call_expression",)):
            if self.call_name(node) not in MASK_FUNCTIONS:
                continue
            argument = _first_argument(node)
            mask = _strip(argument)
            if mask is None or _is_full_mask(self.text(argument)) or (
                    mask.type == "identifier" and self.text(mask) in self.masks):
                continue
            found = width.of(mask)
            if found is None or found.bits != 32:
                continue
            name, text = self.call_name(node), " ".join(self.text(mask).split())
            unwidened = next((part for part in found.leaves if not part.widened), None)
            # the part to name: with --fix, one that stays 32-bit when the function is left as written
            leaf = next((part for part in found.leaves if part.widened != "always"), found.leaves[0]) \
                if self.scan.fix else found.leaves[0]
            if len(found.leaves) == 1 and leaf.text == text:
                what = f"the mask `{text}`{f' ({leaf.where})' if leaf.where else ''} is a 32-bit {_spelled(leaf.type)}"
            else:
                what = (f"the mask `{text}` is a 32-bit {_spelled(found.type)}, from `{leaf.text}`"
                        f"{f' ({leaf.where})' if leaf.where else ''}")
            fixes, reason = [], ""
            if unwidened is not None:
                fixes = None
                reason = (f"the mask `{text}` of {name} (line {mask.start_point[0] + 1}) is 32-bit, and --fix does not "
                          f"widen {'it' if unwidened.text == text else f'`{unwidened.text}`'}")
            elif self.scan.fix and all(part.widened == "always" for part in found.leaves):
                continue  # --fix widens every part where it is defined
            self.scan.add(_Item(self.unit, mask, "warp-32bit-mask", name, {"what": what}, fixes, reason,
                                once_per_line=True))

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


def analyze_warps(ctx: WarpContext, fix: bool = False, tree: WarpTree | None = None,
                  masks: MaskNames | None = None) -> None:
    """Run every wavefront-size check on one file (edits and findings go into ``ctx.result``).

    Args:
        ctx: the file being analysed (see :class:`WarpContext`).
        fix: apply ``--fix``'s rewrites, all or nothing per function (see the module docstring),
            instead of only reporting the assumptions.
        tree: what :func:`warp_tree` found across the tree (the warp-size constants and device
            functions of its headers, and which of them --fix must leave); None: this file is
            decided on its own, and names from other files are never rewritten.
        masks: what :func:`mask_names` found across the tree (where the names that ``*_sync``
            calls pass as masks are defined); None: only this file's definitions are known.
    """
    scan = _Scan(ctx, fix, tree, masks)
    scan.run()
    scan.resolve()


@dataclass
class WarpTree:
    """The warp-size names a tree shares between files, and the tree-wide --fix decision on them.

    Attributes:
        constants: warp-size constant name -> (``"macro"`` or ``"constant"``, a header that
            defines it as 32) for each such header: ``#define WARP_SIZE 32``,
            ``constexpr int kWarpSize = 32;``.
        functions: device function name -> the headers that define it (``lane_id``, ``warp_sum``).
        compiled_with: file -> the files compiled with it in some translation unit (the files
            including it and those they include, :func:`_compiled_with`), for the files that use
            a shared name: a name links a file only to the definitions of those files, so two
            programs of one tree, each with its own ``warp_sum``, are decided apart.
        blocked: tree key (``("tree", "constant" | "function", name, header)``) -> why --fix must leave
            every unit that uses it, in any file, as 32-wide code (not widened); a key not in it
            is widened with all its users. None while the tree is being collected.
        logical: the blocked keys whose units, in every file, run as 32-lane logical warps
            instead (:mod:`hipport.warp32`, HP1116).
        warp_keys: the keys that carry a warp width between files (:func:`_warp_keys`); a group
            whose keys are none of them decides logical warps on its own.
        logical_blocked: blocked key -> why its units cannot run as logical warps either
            (they keep their findings and HP1111).
        host_reads: file -> the ``path:line`` reads of the device's warp size (``prop.warpSize``,
            ``cudaDevAttrWarpSize``) that count for it (:func:`_facts_by_file`): logical
            warps are declined in that file.
        foreign_helpers: file -> ``"path:line defines hipport_warp32_..."`` for each definition
            of a logical-warp helper's name by the code itself in a file compiled with it
            (:func:`hipport.warp32.foreign_helper_definitions`): logical warps are declined there.
        two_dimensional_launches: file -> ``(kernel, "path:line launches kernel with a block
            dim3(32, 8)")`` for the launches with a block of two or three dimensions in the
            files of its program (:func:`_facts_by_file`): a file
            defining such a kernel does not widen its ``threadIdx.x`` lane arithmetic.
        collectives: (device function, its header) -> the kind of whole-warp result it returns
            ('sum', 'max', 'mask', ...; None for another warp-collective result), for each shared
            function returning one (:func:`hipport.lane_flow.returned_collectives`): the files
            calling it follow its result as their own functions' (a ``warp_sum`` stored per
            thread in a ``.cu`` file keeps the header's reduction from being widened).
    """

    constants: dict[str, list[tuple[str, str]]]
    functions: dict[str, list[str]]
    compiled_with: dict[str, frozenset[str]] = field(default_factory=dict)
    blocked: dict[tuple, str] | None = None
    logical: frozenset = frozenset()
    logical_blocked: dict[tuple, str] = field(default_factory=dict)
    warp_keys: frozenset = frozenset()
    host_reads: dict[str, list[str]] = field(default_factory=dict)
    foreign_helpers: dict[str, list[str]] = field(default_factory=dict)
    collectives: dict[tuple[str, str], str | None] = field(default_factory=dict)
    two_dimensional_launches: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def sees(self, path: str, home: str) -> bool:
        """File ``path`` is compiled with header ``home`` (or is it)."""
        return home == path or home in self.compiled_with.get(path, ())

    def function_home(self, path: str, name: str) -> str | None:
        """The header defining device function ``name`` that file ``path`` is compiled with
        (the first by path when several are: the tree pass blocks such a name), or None."""
        return next((home for home in sorted(self.functions.get(name, ())) if self.sees(path, home)), None)

    def visible_constants(self, path: str) -> dict[str, tuple[str, str]]:
        """The warp-size constants of the headers file ``path`` is compiled with: name ->
        (``"macro"`` or ``"constant"``, the header)."""
        found = {}
        for name, homes in self.constants.items():
            home = next((entry for entry in sorted(homes, key=lambda e: e[1]) if self.sees(path, entry[1])), None)
            if home is not None:
                found[name] = home
        return found


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
    """``("tree", kind, name, header)`` in words: ``the function warp_sum``."""
    return f"the warp-size constant {key[2]}" if key[1] == "constant" else f"the function {key[2]}"


def _compiled_with(reach: dict[str, set[str]]) -> dict[str, set[str]]:
    """For each file, the files compiled with it in some translation unit: for every file ``u``
    (a unit, or a header on its own) that is ``u`` or reaches it, ``u`` and all ``u`` reaches
    (``reach``: :func:`hipport.cmake.reached_files`). A header's name is shared only with
    these files: a header of one program never links another program's files to it."""
    together: dict[str, set[str]] = {}
    for unit, reached in reach.items():
        group = {unit, *reached}
        for member in group:
            together.setdefault(member, set()).update(group)
    return together


def _project_of(path: str, build_dirs: frozenset[str]) -> str:
    """The folder of the nearest build file (CMakeLists.txt, Makefile) above ``path``: its
    program's folder; ``""`` (the tree) when none is."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    while folder and folder not in build_dirs:
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return folder


def _top_level_arguments(text: str) -> list[str] | None:
    """The comma-separated arguments of ``text``, which starts at ``(`` or ``{`` (``(32, n / 2)``
    -> ``["32", "n / 2"]``), or None when its bracket does not close."""
    depth, parts, start = 0, [], 1
    for index, char in enumerate(text):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
            if depth == 0:
                parts.append(text[start:index].strip())
                return parts
        elif char == "," and depth == 1:
            parts.append(text[start:index].strip())
            start = index + 1
    return None


def _more_than_one_dimension(arguments: list[str] | None) -> bool:
    """``dim3`` constructor ``arguments`` give a second or third extent other than 1."""
    return arguments is not None and any(a not in ("1", "1u", "1U") for a in arguments[1:])


def _block_with_rows(block: str, scope: str) -> str | None:
    """The block argument ``block`` of a kernel launch (its text), when it has a second or third
    dimension: ``dim3(32, 4)`` or ``{32, 4}`` written out, or a name that ``scope`` (the launching
    function's text) declares as ``dim3 name(32, 4)`` / ``dim3 name = dim3(32, 4)`` / ``{32, 4}``
    or sets ``name.y`` of (to anything but 1), or a ``dim3`` the function is given (a parameter)
    or gets from a call, whose rows are not known. Returns how the block is written, or None
    (one dimension: a number, an ``int``, a ``dim3`` of one dimension)."""
    text = " ".join(block.split())
    written = re.match(r"(?:dim3\s*)?(?=[({])", text)
    if written is not None and not re.match(r"\w", text[written.end():written.end() + 1] or "x"):
        return text if _more_than_one_dimension(_top_level_arguments(text[written.end():])) else None
    if not re.fullmatch(r"[A-Za-z_]\w*", text):
        return None
    name = re.escape(text)
    for match in re.finditer(rf"\bdim3\s+{name}\s*(?:=\s*(?:dim3\s*)?)?(?=[({{])|\b{name}\s*=\s*dim3\s*(?=[({{])", scope):
        arguments = _top_level_arguments(scope[match.end():])
        if _more_than_one_dimension(arguments):
            return f"dim3 {text}({', '.join(arguments)})"
    setter = re.search(rf"\b{name}\s*\.\s*[yz]\s*=(?!=)\s*(?!1u?\s*;)[^;]*;", scope)
    if setter:
        return " ".join(setter.group(0).split())
    # a dim3 the launching function is given (a parameter) or gets from a call: its rows are not
    # known here, so the block may have them
    if re.search(rf"\bdim3\s*(?:const\s*)?&?\s*{name}\s*[,)]", scope):
        return f"dim3 {text} passed in (its rows are not known)"
    if re.search(rf"\bdim3\s+{name}\s*=\s*(?!dim3\b)[A-Za-z_][\w:]*\s*\(", scope):
        return f"dim3 {text} made by a call (its rows are not known)"
    return None


def two_dimensional_launches(path: str, source: bytes, root: tree_sitter.Node) -> list[tuple[str, str]]:
    """The kernel launches of one file whose block has a second or third dimension
    (``k<<<g, dim3(32, 8)>>>``, or a ``dim3 block(32, 8)`` of the launching function):
    ``(kernel name, "path:line launches k with a block dim3(32, 8)")`` each. On such a block a
    64-lane wavefront holds several rows where ``blockDim.x`` is under 64, so ``threadIdx.x % 32``
    is the lane only at width 32 (CUDA Programming Guide, "Thread Hierarchy": a warp is 32
    threads of consecutive linear thread index ``x + y * Dx``)."""
    found: list[tuple[str, str]] = []
    for match in re.finditer(rb"<<<", source):
        token = root.descendant_for_byte_range(match.start(), match.end())
        config = token.parent if token is not None else None
        if config is None or config.type != "kernel_call_syntax" or config.parent is None:
            continue
        arguments = [child for child in config.named_children if child.type != "comment"]
        callee = config.parent.child_by_field_name("function") or config.parent.named_children[0]
        if len(arguments) < 2 or callee is None or callee.id == config.id:
            continue
        scope = config
        while scope.parent is not None and scope.type != "function_definition":
            scope = scope.parent
        scope_text = source[scope.start_byte:config.start_byte].decode("utf-8", "replace")
        block = _block_with_rows(arguments[1].text.decode("utf-8", "replace"), scope_text)
        if block is not None:
            name = re.sub(r"<.*", "", callee.text.decode("utf-8", "replace")).split("::")[-1].strip()
            found.append((name, f"{path}:{config.start_point[0] + 1} launches {name} with a block {block}"))
    return found


def _facts_by_file(sources: list[tuple[str, bytes]], parser, build_dirs: frozenset[str] | None,
                   reach: dict[str, set[str]]) -> tuple[dict[str, list[str]], dict[str, list[tuple[str, str]]]]:
    """Two facts of each file of the tree, each file parsed once: the reads of the device's warp
    size (``path:line``, :func:`hipport.warp32.host_warp_size_reads`) that may size its launches
    or buffers, and the launches of its kernels with a block of two or three dimensions
    (:func:`two_dimensional_launches`), as counted for it by :func:`_counted_by_program`.
    A read declines logical warps in that file; a kernel the file defines and that is launched
    so does not get its ``threadIdx.x`` lane arithmetic widened."""
    reads: dict[str, list[str]] = {}
    launches: dict[str, list[tuple[str, str]]] = {}
    for path, source in sources:
        wants_reads = b"arpSize" in source or b"WARP_SIZE" in source
        if not (wants_reads or b"<<<" in source):
            continue
        root = parser.parse(source).root_node
        if wants_reads and (found := [f"{path}:{line}" for line in warp32.host_warp_size_reads(source, root)]):
            reads[path] = found
        if b"<<<" in source and (rows := two_dimensional_launches(path, source, root)):
            launches[path] = rows
    return (_counted_by_program(sources, reads, build_dirs, reach),
            _counted_by_program(sources, launches, build_dirs, reach, lambda source: b"__global__" in source))


def _counted_by_program(sources: list[tuple[str, bytes]], found: dict[str, list], build_dirs: frozenset[str] | None,
                        reach: dict[str, set[str]], wanted=lambda source: True) -> dict[str, list]:
    """For each file of the tree that ``wanted`` (its content) accepts, the entries of ``found``
    (file -> entries) of the files of the same program (the same nearest build file folder,
    :func:`_project_of`; the whole tree without build files) and of the files it includes or
    that include it (through the tree's headers). A tree of many programs (cuda-samples) keeps
    one program's ``prop.warpSize`` or launch from deciding another's kernels."""
    if not found:
        return {}
    dirs = build_dirs if build_dirs is not None else frozenset()
    result: dict[str, list] = {}
    for path, source in sources:
        if not wanted(source):
            continue
        project = _project_of(path, dirs)
        counted = [entry for owner, entries in found.items()
                   if _project_of(owner, dirs) == project or owner in reach.get(path, ()) or path in reach.get(owner, ())
                   for entry in entries]
        if counted:
            result[path] = counted
    return result


def warp_tree(sources, parser, masks: MaskNames | None = None,
              build_dirs: frozenset[str] | None = None) -> WarpTree | None:
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
        masks: the tree's :func:`mask_names` (each file is scanned with it, as it is ported).
        build_dirs: the folders of the tree holding a build file (``""`` for the root), which
            delimit its programs for the reads of the device's warp size; None: one program.

    Returns:
        The :class:`WarpTree` with ``blocked`` decided, or None when no header defines a
        warp-size constant or a device function (each file is then decided on its own).
    """
    sources = list(sources)
    files = TreeSources(dict(sources))
    from .cmake import reached_files  # the build's module, not needed by most runs of this pass

    reach = reached_files(dict(sources))
    host_reads, rows = _facts_by_file(sources, parser, build_dirs, reach)
    constants: dict[str, list[tuple[str, str]]] = {}
    functions: dict[str, list[str]] = {}
    bodies: dict[tuple[str, str], list[bytes]] = {}  # (device function, its header) -> its definitions' text
    parsed: dict[str, tree_sitter.Node] = {}
    for path, source in sources:
        if not path.lower().endswith(_HEADER_SUFFIXES):
            continue
        macros = specifier_macros(path, source, files)
        device = b"__device__" in source or b"__global__" in source or any(name in source for name in macros.device_names)
        if not (device or next(_warp_size_cores(source), None) is not None):
            continue
        root = parser.parse(source).root_node
        parsed[path] = root
        ctx = _TreeContext(path, source, root, files, macros)
        scan = _Scan(ctx, True)
        for match, what in _warp_definitions(source):
            name = match.group(1).decode()
            if what == "constant" and not _WARP_SIZE_WORD.match(name):
                continue
            node = ctx.node_at(match.start(1), match.end(1))
            if node.type in ("comment", "string_content", "string_literal") or scan.function_of(node) is not None:
                continue
            if all(home != path for _what, home in constants.get(name, ())):
                constants.setdefault(name, []).append((what, path))
        for node in _query(_DEFINITIONS, root) if device else ():
            if scan.is_device(node):
                name = scan.function_name(node).split("::")[-1]
                if path not in functions.setdefault(name, []):
                    functions[name].append(path)
                bodies.setdefault((name, path), []).append(source[node.start_byte:node.end_byte])
    together = _compiled_with(reach)
    # The code's own definitions of a logical-warp helper's name: no file compiled with one may
    # run as logical warps (the helpers' #define under nvcc would rename it; on AMD they clash).
    foreign: dict[str, list[str]] = {}
    for path, source in sources:
        if warp32.HELPER_PREFIX.encode() in source:
            root = parsed.get(path) or parser.parse(source).root_node
            for name, line in warp32.foreign_helper_definitions(_Scan(_TreeContext(path, source, root, files), True)):
                for other in sorted(together.get(path, {path}) | {path}):
                    foreign.setdefault(other, []).append(f"{path}:{line} defines {name}")
    # Only names another file compiled with the header uses are shared: a header used by no
    # other file here keeps the rule of a lone header (the files including it, elsewhere, decide).
    def users(name: str, home: str) -> list[str]:
        word = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])")
        return [path for path, source in sources if path != home and home in together.get(path, ())
                and name.encode() in source and word.search(source)]

    constants = {name: kept for name, homes in constants.items()
                 if (kept := [(what, home) for what, home in homes if users(name, home)])}
    functions = {name: kept for name, homes in functions.items() if (kept := [home for home in homes if users(name, home)])}
    if not constants and not functions:
        # no name is shared; a read of the device's warp size still declines logical warps everywhere
        if not (host_reads or foreign or rows):
            return None
        # blocked stays None (collected) where reads or helpers decline logical warps, as before;
        # launches alone change nothing else (a file calling another file's kernel stays unreported)
        return WarpTree({}, {}, blocked=None if host_reads or foreign else {}, host_reads=host_reads,
                        foreign_helpers=foreign, two_dimensional_launches=rows)
    names = sorted({n.encode() for n in (*constants, *functions)})
    using = [path for path, source in sources if any(n in source for n in names)]
    homes = {home for entries in constants.values() for _what, home in entries} | \
        {home for entries in functions.values() for home in entries}
    tree = WarpTree(constants, functions, {path: frozenset(together.get(path, ())) & homes for path in using},
                    host_reads=host_reads, foreign_helpers=foreign, two_dimensional_launches=rows)
    by_path = dict(sources)
    tree.collectives = _header_collectives(tree, by_path, parsed, files, masks)
    every_key = frozenset([*(("tree", "constant", n, home) for n, entries in constants.items() for _w, home in entries),
                           *(("tree", "function", n, home) for n, entries in functions.items() for home in entries)])
    tree.warp_keys = _warp_keys(constants, functions, bodies)
    # A name two headers compiled into one file define: --fix cannot tell which definition it uses.
    twice: dict[tuple, str] = {}
    tables = (("constant", {n: [home for _what, home in entries] for n, entries in constants.items()}),
              ("function", functions))
    for path in using:
        for kind, table in tables:
            for name, entries in table.items():
                seen = sorted(home for home in entries if tree.sees(path, home))
                if len(seen) > 1:
                    for home in seen:
                        twice.setdefault(("tree", kind, name, home), f"{_describe(('tree', kind, name, home))} is defined "
                                         f"in more than one header compiled with {path} ({', '.join(seen)}), so --fix "
                                         "cannot tell which definition a file uses")
    # Every file using one of the names: its groups, each with the tree keys it touches.
    groups: list[tuple[str, set[tuple], tuple[str, int, str] | None]] = []
    logical_reasons: list[tuple[str, set[tuple], str]] = []  # groups that cannot run as logical warps
    for path in using:
        source = by_path[path]
        root = parsed.get(path) or parser.parse(source).root_node
        ctx = _TreeContext(path, source, root, files)
        scan = _Scan(ctx, True, tree, masks)
        scan.run()
        for items, keys, starts in scan.components(every_key):
            if keys:  # a group with no item still ties its keys (a header helper calling another)
                groups.append((path, keys, scan.blocker(items)))
                reason = scan.logical_blocker(items, starts)
                if reason is not None:
                    logical_reasons.append((path, keys, reason))
    parent: dict[tuple, tuple] = {}

    def find(key):
        return _union_root(parent, key)

    for _, keys, _ in groups:
        first, *rest = sorted(keys)
        for key in rest:
            parent[find(key)] = find(first)
    reasons: dict[tuple, str] = {}
    for key, reason in sorted(twice.items()):
        reasons.setdefault(find(key), reason)
    for path, keys, blocker in sorted(groups, key=lambda g: (g[0], g[2][1] if g[2] else 0)):
        if blocker is not None:
            where, line, reason = blocker
            shared = sorted(keys)[0]
            reasons.setdefault(find(shared), f"it shares {_describe(shared)} with {path}, where --fix left {where} "
                                             f"(line {line}) as written: {reason}")
    tree.blocked = {key: reasons[find(key)] for key in list(parent) if find(key) in reasons}
    # The logical-warp decision joins groups by their warp keys only: a header function with no
    # warp content (helper_math's dot) acts the same in either strategy and must not tie programs.
    logical_parent: dict[tuple, tuple] = {}
    for _, keys, _ in groups:
        warp = sorted(keys & tree.warp_keys)
        for key in warp[1:]:
            logical_parent[_union_root(logical_parent, key)] = _union_root(logical_parent, warp[0])
    logical_roots: dict[tuple, str] = {}
    for path, keys, reason in logical_reasons:
        warp = sorted(keys & tree.warp_keys)
        if warp:
            logical_roots.setdefault(_union_root(logical_parent, warp[0]), f"{path}: {reason}")
    tree.logical_blocked = {key: logical_roots[_union_root(logical_parent, key)] for key in tree.blocked
                            if key in tree.warp_keys and _union_root(logical_parent, key) in logical_roots}
    tree.logical = frozenset(key for key in tree.blocked if key in tree.warp_keys and key not in tree.logical_blocked)
    return tree


def _header_collectives(tree: WarpTree, sources: dict[str, bytes], parsed: dict[str, tree_sitter.Node],
                        files: TreeSources, masks: MaskNames | None) -> dict[tuple[str, str], str | None]:
    """For :attr:`WarpTree.collectives`: each shared device function of a header that returns a
    warp-collective result, with the kind of whole-warp result it returns. Each header is
    scanned with the tree's warp-size constants (``for (o = WARP_SIZE / 2; ...)`` is a
    whole-warp reduction) and the other headers' results (a header's ``block_sum`` calling
    another's ``warp_sum``), to a fixed point (at most 4 rounds; a longer chain of headers keeps
    its last functions partial, which only declines widening)."""
    homes = sorted({home for entries in tree.functions.values() for home in entries})
    found: dict[tuple[str, str], str | None] = {}
    for _round in range(4):
        tree.collectives = found
        now: dict[tuple[str, str], str | None] = {}
        for path in homes:
            source = sources[path]
            ctx = _TreeContext(path, source, parsed[path], files)
            scan = _Scan(ctx, True, tree, masks)
            if not lane_flow.has_collectives(source) and not lane_flow.calls_tree_collectives(scan):
                continue
            scan.warp_constants()
            for name, kind in lane_flow.returned_collectives(scan).items():
                if path in tree.functions.get(name, ()):
                    now[(name, path)] = kind
        if now == found:
            break
        found = now
    return found


def _warp_keys(constants: dict[str, list[tuple[str, str]]], functions: dict[str, list[str]],
               bodies: dict[tuple[str, str], list[bytes]]) -> frozenset:
    """The tree keys that carry a warp width between files: every warp-size constant, and each
    header device function whose text has warp content (a warp intrinsic, ``warpSize``, a
    warp-size constant of the tree, a lane register of inline PTX) or calls one that has.
    ``bodies``: (function, its header) -> the text of its definitions there."""
    names = [re.escape(n.encode()) for n in constants]
    content = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join([*names, rb"__shfl\w*", rb"__ballot\w*", rb"__any\w*",
                         rb"__all\w*", rb"__activemask", rb"__match_\w+", rb"__reduce_\w+", rb"__lane_id", rb"warpSize",
                         rb"__syncwarp", rb"cooperative_groups", rb"cg::"]) + rb")(?![A-Za-z0-9_])|%laneid|%lanemask")
    shared = {(name, home) for name, homes in functions.items() for home in homes}
    warp = {key for key, texts in bodies.items() if key in shared and any(content.search(t) for t in texts)}
    changed = True
    while changed:  # a helper calling a warp helper carries its width too
        changed = False
        warp_names = {name for name, _home in warp}
        for key, texts in bodies.items():
            if key in warp or key not in shared:
                continue
            if any(re.search(rb"(?<![A-Za-z0-9_])" + re.escape(other.encode()) + rb"\s*\(", t) for t in texts
                   for other in warp_names):
                warp.add(key)
                changed = True
    return frozenset([*(("tree", "constant", n, home) for n, entries in constants.items() for _what, home in entries),
                      *(("tree", "function", name, home) for name, home in warp)])
