"""Unknown CUDA names (HP2008 ``unknown-cuda-name``): a name that looks like CUDA's and that no
rule knows is reported, never left silently in the port.

A name *looks like CUDA's* when it has one of the prefixes of CUDA's APIs and headers
(:data:`CUDA_NAME`): the runtime and driver APIs (``cuda*``, ``cu[A-Z]*``, ``CU_*``, ``CUDA*``),
the libraries (``cublas*``, ``cusparse*``, ``curand*``, ``cufft*``, ``cusolver*``, ``cudnn*``,
``cutensor*``, ``nvrtc*``, ``nvtx*``, ``nccl*`` and their upper-case constants), CUB
(``CUB_*``), the ``__nv_*``/``__NV_*`` and ``__CUDA*``/``__NVCC*`` names, the device built-in
families (``atomic[A-Z]*``, ``__shfl*``, ``__ballot*``, ``__syncthreads*``, ``__threadfence*``,
``__ld*``/``__st*`` cache loads and stores, ``tex1D``..., ``surf2D``...) and the
kernel-language keywords (``__word__``). It is *known* when it is a mapping, a construct or a
namespace of the rules, one of :data:`HIP_KEYWORDS`, or a warp function the wavefront checks
handle (:data:`WARP_CHECKED`).

The analysis runs in two steps, because a project's own names (``CUDA_CHECK``,
``cudaCheckError``) are very often defined in one file and used in others:

1. per file (in the worker process), :func:`collect` lists the uses of unknown CUDA-looking
   names in code (never in comments, string or character literals, ``#include`` paths or
   preprocessor conditions, where an unknown name compiles) as ready findings, and the
   CUDA-looking names the file itself declares (macros, functions, variables, parameters,
   fields, types, enumerators, namespaces);
2. once every file is analysed, :class:`TreeNames` drops the uses of names declared anywhere in
   the tree and adds the rest to their files' findings.

The closest known names (:mod:`difflib`) come with each finding, and ``hipport explain NAME``
describes any name this check reports (:func:`describe_unknown`).
"""

from __future__ import annotations

import difflib
import heapq
import re
from dataclasses import dataclass, field, replace

import tree_sitter

from .alternation import word_matches
from .findings import Finding
from .rules import RuleSet
from .suppress import filter_and_fingerprint
from .warp import BALLOT_FUNCTIONS, MASK_FUNCTIONS

#: Names that look like CUDA's (matched as whole words; see the module docstring).
CUDA_NAME = re.compile(
    # factored by first characters, and with no look-behind or ``\\b`` in front: a scan finds the
    # whole words with hipport.alternation.word_matches (cuda-samples' 8.4 MB: 0.07 s with ``\\b``
    # in front, 0.005 s without)
    rb"(?:cu(?:da|[A-Z]|blas|sparse|rand|fft|solver|dnn|tensor|file)|CU[A-Z]*_|CUDA|nvrtc|NVRTC|nvtx|NVTX"
    rb"|nccl|NCCL|atomic[A-Z]|tex[123]D|texCubemap|surf[123]D|surfCubemap"
    rb"|__(?:nv_|NV_|CUDA|NVCC|shfl|ballot|activemask|syncthreads|syncwarp|threadfence|match_|reduce_|any_sync"
    rb"|all_sync|uni_sync|ld(?:g|ca|cg|cs|lu|cv)(?![A-Za-z0-9])|st(?:wb|cg|cs|wt)(?![A-Za-z0-9])|nanosleep|trap"
    rb"|brkpt|prof_trigger|cvta_|dp[24]a|funnelshift|[a-z][a-z0-9_]*__(?![A-Za-z0-9_])))[A-Za-z0-9_]*")

#: ``__word__`` keywords that are not CUDA's to port: C++'s ``__func__``, GNU/Clang keywords and
#: attributes, and the CUDA kernel-language keywords that HIP's headers define with CUDA's meaning
#: (hip/amd_detail/host_defines.h in HIP 6.4.3: ``__global__``, ``__device__``, ``__host__``,
#: ``__shared__``, ``__constant__``, ``__noinline__``, ``__forceinline__``; amd_hip_runtime.h:
#: ``__launch_bounds__``, ``__align__``).
HIP_KEYWORDS = frozenset({
    "__func__", "__attribute__", "__inline__", "__asm__", "__volatile__", "__restrict__", "__const__", "__signed__",
    "__typeof__", "__alignof__", "__extension__", "__label__", "__real__", "__imag__", "__complex__",
    "__builtin_va_list__", "__has_include__", "__thread__", "__unused__", "__aligned__", "__packed__",
    "__noreturn__", "__always_inline__", "__deprecated__", "__visibility__", "__format__", "__nonnull__",
    "__pure__", "__used__", "__weak__", "__alias__", "__section__", "__cdecl__", "__stdcall__",
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__noinline__", "__forceinline__",
    "__launch_bounds__", "__align__",
})

#: Warp functions that the wavefront checks of :mod:`hipport.warp` handle (HIP 6.4 declares them
#: in hip/amd_detail/amd_warp_sync_functions.h and amd_warp_functions.h, or they are reported).
WARP_CHECKED = MASK_FUNCTIONS | BALLOT_FUNCTIONS

#: Node types whose text is never code.
_NOT_CODE = frozenset({"comment", "string_literal", "string_content", "raw_string_literal", "raw_string_content",
                       "char_literal", "character", "escape_sequence", "system_lib_string", "concatenated_string"})
#: Preprocessor directives whose names compile whatever they are (an unknown macro in ``#if``
#: is 0), or which hold no code.
_INERT_DIRECTIVES = frozenset({b"if", b"ifdef", b"ifndef", b"elif", b"elifdef", b"elifndef", b"undef", b"include",
                               b"include_next", b"pragma", b"error", b"warning", b"line", b"import"})
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*([a-z_]+)")
_KEYWORD = re.compile(r"__[a-z][a-z0-9_]*__")
_MACRO_DEFINITIONS = frozenset({"preproc_def", "preproc_function_def"})
#: Parent node type -> the field that names what the parent declares.
_DECLARING_FIELDS = {
    "preproc_def": "name", "preproc_function_def": "name", "function_declarator": "declarator",
    "init_declarator": "declarator", "pointer_declarator": "declarator", "reference_declarator": None,
    "array_declarator": "declarator", "parenthesized_declarator": None, "declaration": "declarator",
    "parameter_declaration": "declarator", "optional_parameter_declaration": "declarator",
    "variadic_parameter_declaration": "declarator", "field_declaration": "declarator",
    "type_definition": "declarator", "struct_specifier": "name", "class_specifier": "name",
    "union_specifier": "name", "enum_specifier": "name", "enumerator": "name", "alias_declaration": "name",
    "namespace_definition": "name", "namespace_alias_definition": "name", "type_parameter_declaration": None,
    "optional_type_parameter_declaration": "name", "preproc_params": None, "labeled_statement": "label",
    "concept_definition": "name", "variadic_type_parameter_declaration": None,
}


@dataclass
class FileNames:
    """What :func:`collect` found in one file: ``uses`` are the findings for unknown
    CUDA-looking names used in code (suppressions applied, fingerprints set), ``defined`` the
    CUDA-looking names the file declares."""

    uses: list[Finding] = field(default_factory=list)
    defined: frozenset[str] = frozenset()


#: id(rule set) -> (the rule set, its known names, those names by their first three and first
#: two characters (filled on the first closest-name search: most runs report no name), closest-name
#: answers); a RuleSet is not hashable, and a process holds one or two.
_CACHE: dict[int, tuple] = {}


def _cached(rules: RuleSet) -> tuple:
    entry = _CACHE.get(id(rules))
    if entry is None or entry[0] is not rules:
        names = set(rules.identifiers) | {name for _, name in rules.constructs} | HIP_KEYWORDS | WARP_CHECKED
        names |= {part for name in rules.namespaces for part in name.split("::")}
        entry = _CACHE[id(rules)] = (rules, frozenset(names), {}, {})
    return entry


def _by_prefix(rules: RuleSet) -> dict[str, list[str]]:
    """The known names by their first three and by their first two characters, sorted."""
    _, names, by_prefix, _ = _cached(rules)
    if not by_prefix:
        for name in sorted(names):
            by_prefix.setdefault(name[:3], []).append(name)
            by_prefix.setdefault(name[:2], []).append(name)
    return by_prefix


def known_names(rules: RuleSet) -> frozenset[str]:
    """Every name the rules know (mappings, constructs, namespace components), :data:`HIP_KEYWORDS` and :data:`WARP_CHECKED`."""
    return _cached(rules)[1]


def _lcs_length(word_masks: dict[str, int], width: int, other: str) -> int:
    """Length of the longest common subsequence of a word and ``other``, by the bit-parallel
    algorithm of Allison and Dix (1986), as written by Hyyrö (2004): ``word_masks`` maps each
    character of the word to the bit set of its positions, ``width`` is the word's length."""
    full = (1 << width) - 1
    row = full
    for char in other:
        matched = row & word_masks.get(char, 0)
        row = ((row + matched) | (row - matched)) & full
    return width - bin(row).count("1")


def close_matches(word: str, possibilities, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """``difflib.get_close_matches(word, possibilities, n, cutoff)``: the same list, computed
    with fewer full comparisons.

    difflib computes :meth:`difflib.SequenceMatcher.ratio` (the costly part) for every
    possibility whose :meth:`~difflib.SequenceMatcher.quick_ratio` reaches ``cutoff``, then
    keeps the ``n`` largest (ratio, possibility) pairs. ``ratio`` is 2.0 * M / T, where M counts
    the characters of the matching blocks, which form a common subsequence of both strings: so
    2.0 * LCS / T (the longest common subsequence, :func:`_lcs_length`, a few integer operations
    per character) bounds it from above, more tightly than ``quick_ratio``'s character counts.
    Here the possibilities are tried in decreasing bound and the search stops once ``n`` are
    found and the next bound is below the ``n``-th ratio found: no possibility left can reach
    it, nor tie with it. Unknown-name findings of cuda-samples took 0.5 CPU s of difflib before
    the bound, 0.39 with ``quick_ratio`` as the bound.

    Args:
        word: the name to match; possibilities: the candidate strings (an iterable).
        n: how many matches at most (> 0); cutoff: the least ratio, in [0, 1].

    Returns:
        The best matches, best first (ties: the larger string first, as difflib).
    """
    masks: dict[str, int] = {}
    for position, char in enumerate(word):
        masks[char] = masks.get(char, 0) | (1 << position)
    width = len(word)
    bounded = []
    for possibility in possibilities:
        total = width + len(possibility)
        if not total:
            bound = 1.0  # two empty strings: difflib's ratio is 1.0
        elif 2.0 * min(width, len(possibility)) / total < cutoff:  # difflib's real_quick_ratio
            continue
        else:
            bound = 2.0 * _lcs_length(masks, width, possibility) / total
        if bound >= cutoff:
            bounded.append((bound, possibility))
    bounded.sort(key=lambda item: item[0], reverse=True)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    found: list[tuple[float, str]] = []
    for bound, possibility in bounded:
        if len(found) >= n and bound < heapq.nlargest(n, found)[-1][0]:
            break
        matcher.set_seq1(possibility)
        score = matcher.ratio()
        if score >= cutoff:
            found.append((score, possibility))
    return [possibility for _, possibility in heapq.nlargest(n, found)]


def closest_names(rules: RuleSet, name: str) -> tuple[str, ...]:
    """Up to three known names closest to ``name`` (:func:`close_matches`, i.e. difflib's, ratio 0.6
    or more), best first. Only names sharing its first three characters are compared, or, when
    none of those is close, its first two (a full comparison with the ~9,000 known names costs
    about 0.1 s a name). Answers are kept for the process."""
    answers = _cached(rules)[3]
    if name not in answers:
        by_prefix = _by_prefix(rules)
        close = close_matches(name, by_prefix.get(name[:3], ()), n=3, cutoff=0.6)
        if not close:
            close = close_matches(name, by_prefix.get(name[:2], ()), n=3, cutoff=0.6)
        answers[name] = tuple(close)
    return answers[name]


def remember_closest(rules: RuleSet, answers: dict) -> None:
    """Take ``answers`` (name -> list of names, what :func:`closest_names` answered for the same
    rules and hipport before: an incremental conversion's record, whose run key covers both) as
    :func:`closest_names`' answers for this process; entries that are not a name and a list of
    names are left out."""
    known = _cached(rules)[3]
    for name, close in answers.items():
        if isinstance(name, str) and isinstance(close, list) and all(isinstance(c, str) for c in close):
            known.setdefault(name, tuple(close))


def closest_text(rules: RuleSet, name: str) -> str:
    """The ``closest`` template field: ``"; closest known names: a, b"`` or ``""``."""
    close = closest_names(rules, name)
    return f"; closest known names: {', '.join(close)}" if close else ""


def _declares(node: tree_sitter.Node) -> bool:
    """True when ``node`` is the name a declaration introduces (``int cudaStatus``, ``#define
    CUDA_CHECK``, ``void cudaHelper(int cudaArg)``, ``struct cuThing``, ``enum {CUDA_MINE}``)."""
    parent = node.parent
    if parent is None or parent.type not in _DECLARING_FIELDS:
        return False
    wanted = _DECLARING_FIELDS[parent.type]
    if wanted is None:
        return True
    return any(child == node for child in parent.children_by_field_name(wanted))


def _in_inert_directive(source: bytes, start: int) -> bool:
    """True when offset ``start`` lies on a preprocessor line whose names need not compile."""
    line_start = source.rfind(b"\n", 0, start) + 1
    match = _DIRECTIVE.match(source, line_start)
    return match is not None and match.group(1) in _INERT_DIRECTIVES


def _qualified_by_a_scope(node: tree_sitter.Node) -> bool:
    """``mylib::cudaThing``: a name inside a named scope is not CUDA's C API."""
    parent = node.parent
    return (parent is not None and parent.type == "qualified_identifier"
            and parent.child_by_field_name("name") == node and parent.child_by_field_name("scope") is not None)


def collect(ctx) -> FileNames:
    """List the unknown CUDA-looking names of one analysed file (step 1 of the module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``root``, ``rules``,
            ``path``, ``in_macro_code``).

    Returns:
        A :class:`FileNames`; nothing is reported yet (see :class:`TreeNames`).
    """
    source, rules = ctx.source, ctx.rules
    known = known_names(rules)
    node_at = ctx.root.descendant_for_byte_range
    uses: list[tuple[str, int, int]] = []
    defined: set[str] = set()
    for match in word_matches(CUDA_NAME, source):
        start, end = match.span()
        if source[end:end + 1] in (b"$",) or source[end:end + 1] >= b"\x80":
            continue  # part of a longer (UTF-8 or $) name
        name = match.group().decode("ascii")
        if name in known:
            continue
        node = node_at(start, end)
        if node.type in _NOT_CODE or _in_inert_directive(source, start):
            continue
        if node.type == "preproc_arg":
            if ctx.in_macro_code(node, start):
                uses.append((name, start, end))
            continue
        if (node.start_byte, node.end_byte) != (start, end) and node.type != "ERROR":
            continue  # inside a longer token (a number suffix, an operator name)
        if node.type == "field_identifier":
            if _declares(node):
                defined.add(name)
            continue  # a member of some struct: not a CUDA API name
        if _declares(node) and (not _KEYWORD.fullmatch(name) or node.parent.type in _MACRO_DEFINITIONS):
            defined.add(name)  # a __word__ only by #define (void __cluster_dims__(2, 1, 1) k() is no declaration)
        elif not _qualified_by_a_scope(node):
            uses.append((name, start, end))
    return FileNames(_findings(ctx, uses), frozenset(defined))


def _findings(ctx, uses: list[tuple[str, int, int]]) -> list[Finding]:
    if not uses:
        return []
    found = []
    for name, start, _ in uses:
        row, column = ctx.point(start)
        found.append(unknown_use(ctx.rules, ctx.path, row + 1, column + 1, name))
    return filter_and_fingerprint(found, ctx.source)


def unknown_use(rules: RuleSet, path: str, line: int, column: int, name: str, fingerprint: str = "") -> Finding:
    """The finding :func:`collect` makes for a use of the unknown CUDA-looking ``name`` at
    ``path``:``line``:``column`` (1-based), its message without the closest known names, which
    :meth:`TreeNames.report` adds."""
    check = rules.check("unknown-cuda-name")
    message, fix = check.render(name=name, closest="")
    return Finding(path, line, column, check.id, check.name, check.severity, message, fix, name, fingerprint)


class TreeNames:
    """Step 2 of the module docstring: gathers every file's :class:`FileNames`, then reports the
    uses of names no file of the tree declares, their messages completed with the closest known
    names (computed only for the names reported).

    Usage: ``names = TreeNames(rules)``; ``names.add(summary, file_names)`` for each analysed
    file (``summary`` has a ``findings`` list); ``names.report()`` once all are added.
    """

    def __init__(self, rules: RuleSet) -> None:
        self._rules = rules
        self._files: list[tuple[object, FileNames]] = []
        self._defined: set[str] = set()
        #: The names :meth:`report` reported (whose closest known names it looked up).
        self.reported: set[str] = set()

    def add(self, summary, names: FileNames | None) -> None:
        """Record one file's names (None: the file was not analysed)."""
        if names is None:
            return
        self._defined |= names.defined
        if names.uses:
            self._files.append((summary, names))

    def report(self) -> int:
        """Add the findings of names declared nowhere in the tree to their files' summaries
        (kept in source order); returns how many were added."""
        check = self._rules.check("unknown-cuda-name")
        added = 0
        for summary, names in self._files:
            fresh = [replace(f, path=summary.path,  # the summary's path: check_paths shows given paths
                             message=check.render(name=f.name, closest=closest_text(self._rules, f.name))[0])
                     for f in names.uses if f.name not in self._defined]
            self.reported.update(f.name for f in fresh)
            if fresh:
                summary.findings = sorted(summary.findings + fresh, key=Finding.sort_key)
                added += len(fresh)
        self._files.clear()
        return added


def looks_like_cuda(name: str) -> bool:
    """True when ``name`` (a whole identifier) has one of the prefixes of :data:`CUDA_NAME`."""
    match = CUDA_NAME.fullmatch(name.encode("ascii", "replace"))
    return match is not None


def describe_unknown(rules: RuleSet, name: str) -> str | None:
    """What ``hipport explain NAME`` adds for a CUDA-looking name that no rule knows (a name
    this check reports): ``" (hipport check reports it as HP2008 unknown-cuda-name; closest
    known names: ...)"``; None when ``name`` is known or does not look like CUDA's."""
    if name in known_names(rules) or not looks_like_cuda(name):
        return None
    check = rules.check("unknown-cuda-name")
    return f" (hipport check reports it as {check.id} {check.name}{closest_text(rules, name)})"
