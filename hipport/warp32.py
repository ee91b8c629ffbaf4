"""32-lane logical warps: ``--fix``'s second strategy for units the widening declines (HP1116).

:mod:`hipport.warp` rewrites a unit of tied functions for 64-wide wavefronts by *widening* it
(64-bit masks, ``warpSize`` arithmetic, ``__popcll``), and declines where the code's logic is
32-wide by design: 32 histogram bins owned by lanes 0-31, ``kWarps = kBlock / 32`` in a constant
expression, a ballot stored through an ``unsigned int*``. Such a unit is then ported as **32-lane
logical warps**: a 64-lane wavefront (gfx9) runs as two 32-lane halves, each a CUDA warp, so every
32-wide assumption of the CUDA code stays true and nothing else in it changes. On a wave32 target
(gfx1030, gfx1100) a wavefront is one such warp. The unit's device code is rewritten:

* ``__shfl_sync``, ``__shfl_up_sync``, ``__shfl_down_sync``, ``__shfl_xor_sync`` ->
  ``hipport_warp32_shfl_sync`` & co, which call HIP's width-limited shuffles with width
  ``min(width, 32)``. HIP 6.4 (``hip/amd_detail/amd_warp_functions.h``) computes the source lane
  inside segments of ``width`` lanes: ``__shfl``: ``(src_lane & (width-1)) + (self & ~(width-1))``;
  ``__shfl_up``: ``self - delta``, own value below the segment's first lane; ``__shfl_down``:
  ``self + delta``, own value when ``(self & (width-1)) + delta >= width``; ``__shfl_xor``:
  ``self ^ lane_mask``, own value at or past the segment's end. With width 32 every shuffle stays
  inside its half. CUDA reads only the low 5 bits of the lane, delta or lane mask (PTX ``shfl.sync``:
  ``bval[4:0] = b[4:0]``), so the helpers pass ``delta & 31`` / ``lane_mask & 31`` (``__shfl``'s
  ``src_lane & (width-1)`` already does);
* ``__ballot_sync(mask, p)`` -> the 32 bits of this lane's half, ``(unsigned)(__ballot(p) >>
  (__lane_id() & 32)) & mask`` (``__lane_id() < 32`` on wave32, so the shift is 0);
  ``__any_sync``/``__all_sync`` from that sub-ballot (over the active lanes of the mask, as CUDA
  defines them), ``__activemask()`` and ``__match_any_sync``/``__match_all_sync`` likewise cut to
  the half (HIP's ``__match_any`` from ``amd_warp_sync_functions.h``, which hipport's HIP builds
  enable with ``HIP_ENABLE_WARP_SYNC_BUILTINS``);
* ``warpSize`` -> ``32``;
* ``__syncwarp`` is left to :mod:`hipport.syncwarp` (HP1115): a wavefront barrier orders every
  lane of the wavefront, a superset of either half.

The mask argument is not checked (HIP's ``__hip_check_mask`` is for 64-lane masks): a CUDA mask
names lanes of the half, the helpers use it only to filter vote results, as CUDA does. Each helper
is emitted once in the file (``#ifndef``-guarded, so a header and its includer may both have it),
before the first top-level declaration that holds a rewritten function, and only the helpers the
file uses. They are defined for AMD where ``__HIP_PLATFORM_AMD__`` is (``hip/hip_common.h`` defines
it for clang's HIP mode; the emulator too) or clang compiles HIP (``__clang__ && __HIP__``, defined
before any header); elsewhere, as HIP on NVIDIA (``__HIP_PLATFORM_NVIDIA__``,
nvcc) or plain CUDA (a ``convert --compat`` tree built with nvcc), each helper is a macro for
CUDA's own intrinsic, unchanged.

Declined (the unit keeps its findings and HP1111 says why), where the logical-warp view is not
shown right: host code of the file or of its program (``hipport.warp._facts_by_file``) that
reads the device's warp size
(``prop.warpSize``, ``cudaDevAttrWarpSize``: it would read 64 and size launches or buffers by
it), cooperative groups or CUB/hipCUB in the unit (their tiles and warp primitives are of the
hardware width), inline PTX reading lane registers (``%laneid``, ``%lanemask_*``, ``%warpid``,
``WARP_SZ``), the pre-CUDA-9 warp intrinsics with no mask (``__shfl``, ``__ballot``, ``__any``,
``__all``: HIP has the same names at the wavefront width), ``__reduce_*_sync`` (HIP 6.4 has
none), a macro of the file whose body holds a warp intrinsic or ``warpSize`` and that the unit
uses, and a call of a warp helper defined outside the converted tree.

Not modelled (docs/emulator.md): the two halves of a wavefront share one program counter, so a
spin loop in one CUDA warp waiting for another warp of the same wavefront does not progress.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tree_sitter

from .alternation import directive_matches
from .edits import Edit

if TYPE_CHECKING:
    from .warp import _Scan

#: The widened full mask's helper (:data:`hipport.warp.WAVE_LANES`), skipped like these helpers.
WAVE_LANES_HELPER = "hipport_wave_lanes"
#: How every helper's name starts (the helpers themselves are never scanned or rewritten).
HELPER_PREFIX = "hipport_warp32_"

#: CUDA warp intrinsic -> the helper a logical-warp unit calls instead.
RENAMES = {
    "__shfl_sync": "hipport_warp32_shfl_sync",
    "__shfl_up_sync": "hipport_warp32_shfl_up_sync",
    "__shfl_down_sync": "hipport_warp32_shfl_down_sync",
    "__shfl_xor_sync": "hipport_warp32_shfl_xor_sync",
    "__ballot_sync": "hipport_warp32_ballot_sync",
    "__any_sync": "hipport_warp32_any_sync",
    "__all_sync": "hipport_warp32_all_sync",
    "__activemask": "hipport_warp32_activemask",
    "__match_any_sync": "hipport_warp32_match_any_sync",
    "__match_all_sync": "hipport_warp32_match_all_sync",
}

#: Warp intrinsics a logical-warp unit must not call (why), see the module docstring.
_DECLINED_CALLS = {
    **{name: "the pre-CUDA-9 warp intrinsic {name}, which HIP has at the wavefront width"
       for name in ("__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all")},
    **{f"__reduce_{op}_sync": "{name}, which HIP 6.4 does not have" for op in ("add", "min", "max", "and", "or", "xor")},
    "__lane_id": "HIP's __lane_id, the lane in the whole wavefront",
}
_COOPERATIVE = re.compile(rb"(?<![A-Za-z0-9_])(cooperative_groups|cg::|thread_block_tile|tiled_partition|"
                          rb"coalesced_threads|coalesced_group|this_thread_block|this_grid|hipcub::|cub::)")
_PTX_LANE = re.compile(rb"%laneid|%lanemask|%warpid|%nwarpid|WARP_SZ")
_HOST_WARP_SIZE = re.compile(rb"(?:\.|->)\s*warpSize(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])(?:cudaDevAttrWarpSize|"
                             rb"hipDeviceAttributeWarpSize|CU_DEVICE_ATTRIBUTE_WARP_SIZE)(?![A-Za-z0-9_])")
_WARP_WORDS = re.compile(rb"(?<![A-Za-z0-9_])(__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__match_\w+|"
                         rb"__reduce_\w+_sync|warpSize)(?![A-Za-z0-9_])")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)((?:[^\n\\]|\\\r?\n|\\)*)", re.MULTILINE)
_IDENTIFIER = re.compile(rb"(?<![A-Za-z0-9_$])([A-Za-z_]\w*)(?![A-Za-z0-9_$])")
_SKIP = ("comment", "string_content", "string_literal", "char_literal", "raw_string_literal", "system_lib_string")

_NOTE = (b"/* hipport --fix (HP1116): CUDA's 32-lane warps as 32-lane halves of a wavefront. HIP's __shfl,{nl}"
         b"   __shfl_up, __shfl_down and __shfl_xor shuffle inside segments of `width` lanes (HIP 6.4{nl}"
         b"   hip/amd_detail/amd_warp_functions.h: __shfl reads lane (src & (width-1)) + (self & ~(width-1))),{nl}"
         b"   so width 32 keeps a shuffle in its half; a ballot keeps the 32 bits of this lane's half.{nl}"
         b"   HIP on NVIDIA and CUDA: CUDA's own intrinsics. */{nl}")

#: Compiling for AMD: hip/hip_common.h defines __HIP_PLATFORM_AMD__ when clang compiles HIP
#: (``__clang__ && __HIP__``), which clang defines before any header, so the test holds even
#: where the helpers come before the file's HIP include; the emulator defines the macro itself.
_AMD_CONDITION = b"#if defined(__HIP_PLATFORM_AMD__) || (defined(__clang__) && defined(__HIP__)){nl}"

#: helper -> (helpers it needs, its AMD definition); on NVIDIA each is a macro for its CUDA name.
_HELPERS: dict[str, tuple[tuple[str, ...], bytes]] = {
    "hipport_warp32_half": ((), (
        b"__device__ inline unsigned int hipport_warp32_half(unsigned long long hipport_wavefront_bits) {{nl}"
        b"  return (unsigned int)(hipport_wavefront_bits >> (__lane_id() & 32u));{nl}"
        b"}{nl}")),
    "hipport_warp32_shfl_sync": ((), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline hipport_T hipport_warp32_shfl_sync(hipport_MaskT hipport_mask, hipport_T hipport_var, int hipport_src_lane, int hipport_width = 32{site}) {{nl}"
        b"  (void)hipport_mask;{nl}"
        b"  return __shfl(hipport_var, hipport_src_lane, hipport_width < 32 ? hipport_width : 32{at});{nl}"
        b"}{nl}")),
    "hipport_warp32_shfl_up_sync": ((), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline hipport_T hipport_warp32_shfl_up_sync(hipport_MaskT hipport_mask, hipport_T hipport_var, unsigned int hipport_delta, int hipport_width = 32{site}) {{nl}"
        b"  (void)hipport_mask;{nl}"
        b"  return __shfl_up(hipport_var, hipport_delta & 31u, hipport_width < 32 ? hipport_width : 32{at});{nl}"
        b"}{nl}")),
    "hipport_warp32_shfl_down_sync": ((), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline hipport_T hipport_warp32_shfl_down_sync(hipport_MaskT hipport_mask, hipport_T hipport_var, unsigned int hipport_delta, int hipport_width = 32{site}) {{nl}"
        b"  (void)hipport_mask;{nl}"
        b"  return __shfl_down(hipport_var, hipport_delta & 31u, hipport_width < 32 ? hipport_width : 32{at});{nl}"
        b"}{nl}")),
    "hipport_warp32_shfl_xor_sync": ((), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline hipport_T hipport_warp32_shfl_xor_sync(hipport_MaskT hipport_mask, hipport_T hipport_var, int hipport_lane_mask, int hipport_width = 32{site}) {{nl}"
        b"  (void)hipport_mask;{nl}"
        b"  return __shfl_xor(hipport_var, hipport_lane_mask & 31, hipport_width < 32 ? hipport_width : 32{at});{nl}"
        b"}{nl}")),
    "hipport_warp32_ballot_sync": (("hipport_warp32_half",), (
        b"template <typename hipport_MaskT>{nl}"
        b"__device__ inline unsigned int hipport_warp32_ballot_sync(hipport_MaskT hipport_mask, int hipport_predicate{site}) {{nl}"
        b"  return hipport_warp32_half(__ballot(hipport_predicate{at})) & (unsigned int)hipport_mask;{nl}"
        b"}{nl}")),
    "hipport_warp32_any_sync": (("hipport_warp32_ballot_sync",), (
        b"template <typename hipport_MaskT>{nl}"
        b"__device__ inline int hipport_warp32_any_sync(hipport_MaskT hipport_mask, int hipport_predicate{site}) {{nl}"
        b"  return hipport_warp32_ballot_sync(hipport_mask, hipport_predicate{at}) != 0u;{nl}"
        b"}{nl}")),
    "hipport_warp32_all_sync": (("hipport_warp32_ballot_sync",), (
        b"template <typename hipport_MaskT>{nl}"
        b"__device__ inline int hipport_warp32_all_sync(hipport_MaskT hipport_mask, int hipport_predicate{site}) {{nl}"
        b"  return hipport_warp32_ballot_sync(hipport_mask, hipport_predicate{at}) == hipport_warp32_ballot_sync(hipport_mask, 1{at});{nl}"
        b"}{nl}")),
    "hipport_warp32_activemask": (("hipport_warp32_half",), (
        b"__device__ inline unsigned int hipport_warp32_activemask({site_only}) {{nl}"
        b"  return hipport_warp32_half(__ballot(1{at}));{nl}"
        b"}{nl}")),
    "hipport_warp32_match_any_sync": (("hipport_warp32_half",), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline unsigned int hipport_warp32_match_any_sync(hipport_MaskT hipport_mask, hipport_T hipport_value) {{nl}"
        b"  return hipport_warp32_half(__match_any(hipport_value)) & (unsigned int)hipport_mask;{nl}"
        b"}{nl}")),
    "hipport_warp32_match_all_sync": (("hipport_warp32_match_any_sync", "hipport_warp32_ballot_sync"), (
        b"template <typename hipport_MaskT, typename hipport_T>{nl}"
        b"__device__ inline unsigned int hipport_warp32_match_all_sync(hipport_MaskT hipport_mask, hipport_T hipport_value, int* hipport_pred) {{nl}"
        b"  const bool hipport_same = hipport_warp32_match_any_sync(hipport_mask, hipport_value) == hipport_warp32_ballot_sync(hipport_mask, 1);{nl}"
        b"  *hipport_pred = hipport_same;{nl}"
        b"  return hipport_same ? (unsigned int)hipport_mask : 0u;{nl}"
        b"}{nl}")),
}
_CUDA_NAME = {helper: cuda for cuda, helper in RENAMES.items()}
#: The emulator's call-site parameters (hipport/emulator/include/hipemu/device.h HIPEMU_SITE /
#: HIPEMU_AT): each wavefront operation of the emulator takes its caller's file and line.
_EMULATOR_SITE = {b"{site}": b", HIPEMU_SITE", b"{site_only}": b"HIPEMU_SITE", b"{at}": b", HIPEMU_AT"}


def _render(text: bytes, newline: bytes, emulator: bool = False) -> bytes:
    """``text`` of :data:`_HELPERS` with ``{nl}`` the line ending and the call-site placeholders
    dropped (a port) or made the emulator's (``emulator``, :func:`with_call_sites`)."""
    for placeholder, site in _EMULATOR_SITE.items():
        text = text.replace(placeholder, site if emulator else b"")
    return text.replace(b"{nl}", newline)


def with_call_sites(source: bytes) -> bytes:
    """``source`` (a ported file) with each logical-warp helper definition that
    :func:`helpers_block` wrote, as written, given the emulator's call-site parameters, so that
    the emulator's wavefront operations (their checks, and its messages) name the user's call of
    the helper, not a line inside it. The lines stay where they are. Text that is not exactly a
    helper's definition (edited by hand) is left as it is."""
    if HELPER_PREFIX.encode() not in source:
        return source
    newline = b"\r\n" if b"\r\n" in source else b"\n"
    for _needs, text in _HELPERS.values():
        if b"{at}" in text or b"{site" in text:
            source = source.replace(_render(text, newline), _render(text, newline, emulator=True))
    return source


def _guard(name: str) -> bytes:
    """The include guard of helper ``name``: ``HIPPORT_WARP32_SHFL_SYNC`` for ``hipport_warp32_shfl_sync``."""
    return b"HIPPORT_WARP32_" + name[len(HELPER_PREFIX):].upper().encode()


def _inside_own_guard(scan: "_Scan", node: tree_sitter.Node, name: str) -> bool:
    """``node`` lies inside ``#ifndef <the guard of helper name>``, as :func:`helpers_block` writes
    it (``hipport_wave_lanes``: ``HIPPORT_WAVE_LANES``, as :mod:`hipport.warp` writes it)."""
    guard = b"HIPPORT_WAVE_LANES" if name == WAVE_LANES_HELPER else _guard(name)
    parent = node.parent
    while parent is not None:
        if parent.type == "preproc_ifdef":
            macro = parent.child_by_field_name("name")
            if macro is not None and scan.ctx.text(macro) == guard:
                return True
        parent = parent.parent
    return False


def inside_wave_lanes_helper(scan: "_Scan", node: tree_sitter.Node) -> bool:
    """``node`` lies in the definition of ``hipport_wave_lanes`` that a port inserted (inside its
    ``#ifndef HIPPORT_WAVE_LANES`` guard): hipport's own code, not the program's."""
    return _inside_own_guard(scan, node, WAVE_LANES_HELPER)


def is_own_helper(scan: "_Scan", function: tree_sitter.Node) -> bool:
    """``function`` is one of hipport's helpers as :func:`helpers_block` (or, for
    ``hipport_wave_lanes``, :mod:`hipport.warp`) writes them (a second
    ``--fix`` of its output): a helper's name, inside that helper's ``#ifndef`` guard. A function
    of the code that merely starts with :data:`HELPER_PREFIX` is the code's own and is scanned."""
    name = scan.function_name(function)
    return (name in _HELPERS or name == WAVE_LANES_HELPER) and _inside_own_guard(scan, function, name)


def foreign_helper_definitions(scan: "_Scan") -> list[tuple[str, int]]:
    """(name, 1-based line) of each function or macro of the file that takes a helper's name
    (:data:`RENAMES`' values, ``hipport_warp32_half``) outside that helper's guard: the code's
    own, which the helpers' ``#define`` (HIP on NVIDIA) would rename and their definition
    (AMD) would clash with."""
    source = scan.ctx.source
    if HELPER_PREFIX.encode() not in source:
        return []
    found = []
    for match in re.finditer(rb"(?<![A-Za-z0-9_])" + HELPER_PREFIX.encode() + rb"\w+", source):
        name = match.group(0).decode()
        if name not in _HELPERS:
            continue
        node = scan.ctx.node_at(match.start(), match.end())
        parent = node.parent
        defines = parent is not None and (
            (parent.type == "function_declarator" and parent.child_by_field_name("declarator") == node)
            or (parent.type in ("preproc_def", "preproc_function_def") and parent.child_by_field_name("name") == node))
        if defines and not _inside_own_guard(scan, node, name):
            found.append((name, node.start_point[0] + 1))
    return found


def helpers_block(used: set[str], newline: bytes = b"\n") -> bytes:
    """The definitions of the helpers named in ``used`` (and those they need), each guarded by
    ``#ifndef HIPPORT_WARP32_<NAME>``, preceded by one comment saying what they are.

    Args:
        used: helper names, keys of :data:`RENAMES`' values (``hipport_warp32_shfl_down_sync``).
        newline: the file's line ending.

    Raises:
        KeyError: a name that is no helper.
    """
    needed: list[str] = []

    def need(name: str) -> None:
        for dependency in _HELPERS[name][0]:
            need(dependency)
        if name not in needed:
            needed.append(name)

    for name in sorted(used):
        need(name)
    parts = [_NOTE]
    for name in needed:
        guard = _guard(name)
        parts.append(b"#ifndef " + guard + b"{nl}#define " + guard + b"{nl}")
        if name in _CUDA_NAME:
            parts.append(_AMD_CONDITION + _HELPERS[name][1] + b"#else{nl}#define "
                         + name.encode() + b" " + _CUDA_NAME[name].encode() + b"{nl}#endif{nl}")
        else:  # used by the AMD definitions only
            parts.append(_AMD_CONDITION + _HELPERS[name][1] + b"#endif{nl}")
        parts.append(b"#endif{nl}")
    return _render(b"".join(parts), newline)


def host_warp_size_reads(source: bytes, root: tree_sitter.Node) -> list[int]:
    """The 1-based lines where code (not a comment or string) reads the device's warp size:
    ``prop.warpSize``, ``p->warpSize``, ``cudaDevAttrWarpSize`` and its HIP and driver names."""
    if b"arpSize" not in source and b"WARP_SIZE" not in source:
        return []
    lines = []
    for match in _HOST_WARP_SIZE.finditer(source):
        node = root.descendant_for_byte_range(match.end() - 1, match.end())
        if node is not None and node.type not in _SKIP:
            lines.append(source.count(b"\n", 0, match.start()) + 1)
    return lines


def _code_matches(scan: "_Scan", pattern: re.Pattern, function: tree_sitter.Node):
    """Matches of ``pattern`` in ``function``'s text that are code (not comments or strings)."""
    source = scan.ctx.source
    for match in pattern.finditer(source, function.start_byte, function.end_byte):
        node = scan.ctx.node_at(match.start(), match.end())
        if node.type not in _SKIP:
            yield match, node


def _warp_macros(source: bytes) -> dict[bytes, int]:
    """Macros of the file whose body holds a warp intrinsic or ``warpSize``: name -> line."""
    found = {}
    for match in directive_matches(_DEFINE, source):
        if _WARP_WORDS.search(match.group(2)) and not match.group(1).startswith(HELPER_PREFIX.encode()):
            found[match.group(1)] = source.count(b"\n", 0, match.start()) + 1
    return found


_NESTING = {"namespace_definition": "a namespace", "linkage_specification": "an extern block",
            "declaration_list": "a namespace", "field_declaration_list": "a class"}


def _nested_include(scan: "_Scan") -> str | None:
    """Why a file including one of its own headers (``#include "..."``) inside a namespace, an
    ``extern "C"`` block or a class cannot run as logical warps: the helpers that header gets are
    declared there, and their include guards then keep this file's own helpers out."""
    source = scan.ctx.source
    if b"include" not in source:
        return None
    for match in re.finditer(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', source, re.MULTILINE):
        node = scan.ctx.node_at(match.start() + match.group(0).index(b"#"), match.end())
        parent = node
        while parent is not None and parent.type not in _NESTING:
            parent = parent.parent
        if parent is not None:
            line = source.count(b"\n", 0, match.start()) + 1
            return (f"line {line} includes {match.group(1).decode('utf-8', 'replace')} inside {_NESTING[parent.type]}, "
                    "where the helpers it may define would be declared, and their guards keep this file's out")
    return None


def blocker(scan: "_Scan", functions: list[tree_sitter.Node], host_reads: list[str]) -> str | None:
    """Why the functions of a unit cannot run as 32-lane logical warps, or None when they can.

    Args:
        scan: the :class:`hipport.warp._Scan` of the file.
        functions: the unit's functions (every function of the file tied to it, device or not).
        host_reads: ``"path:line"`` of host code of the file or the tree reading the device's
            warp size (:func:`host_warp_size_reads`).
    """
    if host_reads:
        return (f"host code reads the device's warp size ({', '.join(host_reads[:3])}), which is 64 on gfx9, "
                "while the logical warps are 32 lanes")
    source = scan.ctx.source
    foreign = foreign_helper_definitions(scan)
    if foreign:
        name, line = foreign[0]
        return (f"the file defines {name} itself (line {line}), the name of a helper the logical warps "
                "would define")
    nested = _nested_include(scan)
    if nested is not None:
        return nested
    shared = scan.tree.foreign_helpers.get(scan.ctx.path) if scan.tree is not None else None
    if shared:
        return (f"{shared[0]} itself, the name of a helper the logical warps would define, in a file "
                "compiled with this one")
    macros = _warp_macros(source) if b"define" in source else {}
    for function in functions:
        name = scan.function_name(function)
        if is_own_helper(scan, function):
            continue
        for match, node in _code_matches(scan, _COOPERATIVE, function):
            return (f"{name} uses {match.group(1).decode()} (line {node.start_point[0] + 1}), whose tiles and warp "
                    "primitives are of the wavefront's width")
        if b"asm" in source[function.start_byte:function.end_byte]:
            for match in _PTX_LANE.finditer(source, function.start_byte, function.end_byte):
                line = source.count(b"\n", 0, match.start()) + 1
                return f"{name} reads {match.group(0).decode()} in inline PTX (line {line})"
        for match, node in _code_matches(scan, _IDENTIFIER, function):
            word = match.group(1)
            if word in macros:
                return (f"{name} uses the macro {word.decode()} (line {node.start_point[0] + 1}), whose body "
                        f"(line {macros[word]}) holds a warp intrinsic that --fix does not rewrite")
            reason = _DECLINED_CALLS.get(word.decode())
            if reason is not None and node.parent is not None and node.parent.type == "call_expression":
                return f"{name} calls " + reason.format(name=word.decode()) + f" (line {node.start_point[0] + 1})"
    return None


def device_lambdas(scan: "_Scan", function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The ``__device__`` lambdas written in the host function ``function`` (``[=] __device__
    (int i) { ... }``, CUDA's extended lambdas, passed to a kernel template): device code in a
    host function, their ``lambda_expression`` nodes."""
    found = []
    for node in _lambdas(function):
        body = node.child_by_field_name("body")
        head = scan.ctx.source[node.start_byte:body.start_byte if body is not None else node.end_byte]
        if body is not None and re.search(rb"(?<![A-Za-z0-9_])__device__(?![A-Za-z0-9_])", head):
            found.append(node)
    return found


def _lambdas(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    stack, found = [node], []
    while stack:
        current = stack.pop()
        if current.type == "lambda_expression":
            found.append(current)
        stack.extend(current.children)
    return sorted(found, key=lambda n: n.start_byte)


def edits(scan: "_Scan", functions: list[tree_sitter.Node]) -> tuple[list[Edit], set[str]]:
    """The edits that run the device functions among ``functions`` (and the ``__device__``
    lambdas of its host functions, :func:`device_lambdas`) as 32-lane logical warps: each call of
    a :data:`RENAMES` intrinsic renamed to its helper, each ``warpSize`` made ``32``.

    Returns:
        (edits, the helper names used).
    """
    found: list[Edit] = []
    used: set[str] = set()
    for function in functions:
        if is_own_helper(scan, function):
            continue
        scope = scan.locals_of(function)
        own_warp_size = scope is not None and "warpSize" in scope.declared  # the code's own, kept
        regions = [function] if scan.is_device(function) else device_lambdas(scan, function)
        for match, node in (found_match for region in regions for found_match in _code_matches(scan, _IDENTIFIER, region)):
            word = match.group(1).decode()
            if word == "warpSize" and node.type in ("identifier", "type_identifier") and (
                    node.parent is None or node.parent.type != "field_expression"):
                if not own_warp_size:
                    found.append(Edit(node.start_byte, node.end_byte, b"32"))
                continue
            helper = RENAMES.get(word)
            callee, call = node, node.parent
            if call is not None and call.type == "qualified_identifier" and call.child_by_field_name("name") == node \
                    and call.child_by_field_name("scope") is None:
                callee, call = call, call.parent  # ::__shfl_down_sync(...), the global one
            if (helper is not None and node.type == "identifier" and call is not None
                    and call.type == "call_expression" and call.child_by_field_name("function") == callee):
                found.append(Edit(node.start_byte, node.end_byte, helper.encode()))
                used.add(helper)
    return found, used


def macro_body_blocker(code: bytes, start: int, end: int) -> str | None:
    """Why the device code of a macro body (``code[start:end]``, the file with comments and
    literals blanked) cannot run as 32-lane logical warps, or None: the per-function reasons of
    :func:`blocker` (cooperative groups or CUB, inline PTX lane registers, declined intrinsics)."""
    def line(match: re.Match) -> int:
        return code.count(b"\n", 0, match.start()) + 1

    for match in _COOPERATIVE.finditer(code, start, end):
        return f"it uses {match.group(1).decode()} (line {line(match)}), whose tiles and warp primitives are of " \
               "the wavefront's width"
    for match in _PTX_LANE.finditer(code, start, end):
        return f"it reads {match.group(0).decode()} in inline PTX (line {line(match)})"
    for match in _IDENTIFIER.finditer(code, start, end):
        reason = _DECLINED_CALLS.get(match.group(1).decode())
        if reason is not None and re.match(rb"\s*\(", code[match.end():end]):
            return "it calls " + reason.format(name=match.group(1).decode()) + f" (line {line(match)})"
    return None


def macro_body_edits(code: bytes, start: int, end: int) -> tuple[list[Edit], set[str]]:
    """The edits that run the device code of a macro body (``code[start:end]``, as for
    :func:`macro_body_blocker`) as 32-lane logical warps, as :func:`edits` does for a function:
    each call of a :data:`RENAMES` intrinsic renamed to its helper, each ``warpSize`` made ``32``.

    Returns:
        (edits, the helper names used).
    """
    found: list[Edit] = []
    used: set[str] = set()
    for match in _IDENTIFIER.finditer(code, start, end):
        word = match.group(1).decode()
        if word == "warpSize" and code[match.start() - 1:match.start()] not in (b".", b">"):
            found.append(Edit(match.start(), match.end(), b"32"))
        elif word in RENAMES and re.match(rb"\s*\(", code[match.end():end]) \
                and code[match.start() - 1:match.start()] not in (b".", b">"):
            found.append(Edit(match.start(), match.end(), RENAMES[word].encode()))
            used.add(RENAMES[word])
    return found, used


def block_offset(source: bytes, node: tree_sitter.Node) -> int:
    """Line start of the translation-unit-level construct holding ``node`` (a namespace, an
    ``extern "C"`` block, a ``#if`` group): the helpers are defined outside all of them."""
    top = node
    while top.parent is not None and top.parent.type != "translation_unit":
        top = top.parent
    return source.rfind(b"\n", 0, top.start_byte) + 1
