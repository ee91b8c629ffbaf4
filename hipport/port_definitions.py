"""Definitions the port inserts once per file, and device functions it defines (HP2042, HP2043).

Two parts:

* :func:`insert_once` puts a block of definitions (``#define`` lines, inline functions) into a
  ported file once, at the line start of the file-scope declaration holding a given use: a child
  of the translation unit, or of the include guard that wraps the whole file (so the block lands
  after the guard's ``#define`` and after the includes above that declaration, and a header and
  the file including it can both hold it behind its own ``#ifndef``). :mod:`hipport.grid_constant`
  and :func:`analyze_port_definitions` use it.

* :func:`analyze_port_definitions` ports calls of CUDA device functions that HIP 6.4.3 does not
  declare but whose meaning a few lines of HIP reproduce exactly (``rules/definitions/device_functions.yaml``:
  ``__dp4a``, ``__dp2a_lo``, ``__dp2a_hi``...). The identifier mapping of ``rules/cuda_device.yaml``
  renames each such name to one the port defines (``__dp4a`` -> ``hipport_dp4a``); this module
  inserts the definitions before the first use and reports an info finding (HP2042) at each use.
  The definitions are CUDA's own functions where the port is compiled as HIP on NVIDIA
  (``__HIP_PLATFORM_NVIDIA__``, which ``hip/hip_common.h`` defines under nvcc; ported files include
  HIP before their code) and the data file's AMD definitions elsewhere::

      #ifndef HIPPORT_DP4A_DEFINED
      #define HIPPORT_DP4A_DEFINED
      #if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */
      #define hipport_dp4a __dp4a
      ...
      #else /* hipport (HP2042): HIP 6.4.3 lacks __dp4a, __dp2a_lo, __dp2a_hi */
      static inline __host__ __device__ int hipport_dp4a(int a, int b, int c) { ... }
      ...
      #endif
      #endif

Entries of ``overloads`` add to HIP's overloads of a function it has, on AMD only (CUDA's
headers declare them on NVIDIA): ``atomicAdd`` on ``__half``, ``__half2``, ``__hip_bfloat16`` and
``__hip_bfloat162``, which CUDA 12.4 declares (cuda_fp16.h lines 4066 and 4085, cuda_bf16.h lines
4069 and 4089) and HIP 6.4.3 does not (its ``unsafeAtomicAdd`` on the pair types, amd_hip_fp16.h
line 1532 and amd_hip_bf16.h line 1835, is not right on fine-grained memory, so it is not used).
They are a compare-and-swap loop on the aligned 32-bit word (right on any memory; CUDA promises
atomicity per 16-bit element only), the sum computed in float and rounded to nearest even, which
is CUDA's result. The block goes into a file that calls the function and names one of the types
(``requires``), before the later of the two first uses (the type is declared there); the calls
after it lose their HP2015 (a call whose missing overloads are all added) and the first gets
HP2043. A file that defines the function itself with one of those types keeps its own.

A file that declares one of the CUDA names itself (a fallback ``__device__ int __dp4a(...)`` for
older GPUs) gets no definitions for that entry: its own declaration is renamed with its calls,
so the calls keep reaching it.
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .alternation import WORD_OR_DOLLAR_BYTES, directive_matches, trie_alternation, word_matches
from .edits import Edit
from .parse import code_only
from .resources import data_dir, load_yaml_file
from .rules import RuleError

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

PORT_DEFINITIONS_FILE = Path("definitions") / "device_functions.yaml"
_MACRO_BODIES = ("preproc_arg",)


@dataclass(frozen=True)
class PortDefinition:
    """One entry of ``rules/definitions/device_functions.yaml``.

    Attributes:
        names: CUDA name -> the name the port calls and defines (``__dp4a`` -> ``hipport_dp4a``);
            empty for an entry of overloads.
        overloads: function -> the parameter lists (spelled as ``hip_lacks`` in
            ``rules/cuda_device.yaml``) the AMD definitions add to HIP's overloads of it; empty
            for an entry of renamed names.
        requires: CUDA type names one of which a file must use for the overloads to be added.
        guard: the macro that keeps the block to one copy per translation unit.
        what: what the AMD definitions do, for the finding's message.
        nvidia: the definitions under ``__HIP_PLATFORM_NVIDIA__`` (lines, no trailing newline;
            empty where CUDA's headers declare everything).
        amd: the definitions elsewhere (lines, no trailing newline).
    """

    names: dict[str, str]
    overloads: dict[str, tuple[str, ...]]
    requires: tuple[str, ...]
    guard: str
    what: str
    nvidia: str
    amd: str

    def lacking(self) -> str:
        """What HIP lacks, for the block's comment: ``__dp4a, __dp2a_lo`` or
        ``atomicAdd(__half2 *, __half2), atomicAdd(__half *, __half)``."""
        return ", ".join([*self.names, *(f"{name}({p})" for name, lists in self.overloads.items() for p in lists)])

    def block(self, newline: str) -> str:
        """The text inserted into a file whose line ending is ``newline`` ("\\n" or "\\r\\n")."""
        amd_comment = f"/* hipport ({'HP2042' if self.names else 'HP2043'}): HIP 6.4.3 lacks {self.lacking()} */"
        if self.nvidia:
            platform = ["#if defined(__HIP_PLATFORM_NVIDIA__) /* HIP on NVIDIA: CUDA's own */",
                        *self.nvidia.splitlines(), f"#else {amd_comment}"]
        else:
            platform = [f"#if !defined(__HIP_PLATFORM_NVIDIA__) {amd_comment}"]
        lines = [f"#ifndef {self.guard}", f"#define {self.guard}", *platform, *self.amd.splitlines(),
                 "#endif", "#endif"]
        return newline.join(lines) + newline


_IDENTIFIER_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


@lru_cache(maxsize=1)
def port_definitions() -> tuple[PortDefinition, ...]:
    """The entries of ``rules/definitions/device_functions.yaml``, in file order.

    Raises:
        RuleError: the file lacks the ``definitions:`` list, or an entry lacks ``guard``, ``what``,
            ``nvidia`` or ``amd``, or has neither ``names`` (a mapping of CUDA name to port name)
            nor ``overloads`` (a mapping of function to parameter lists) with ``requires``, or one
            of those names is not an identifier.
    """
    path = data_dir("rules") / PORT_DEFINITIONS_FILE
    data = load_yaml_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("definitions"), list):
        raise RuleError(path, 1, "expected a 'definitions:' list")
    entries = []
    for number, entry in enumerate(data["definitions"], 1):
        fields = ("guard", "what", "nvidia", "amd")
        if not isinstance(entry, dict) or any(key not in entry for key in fields) \
                or not (isinstance(entry.get("names"), dict)
                        or (isinstance(entry.get("overloads"), dict) and isinstance(entry.get("requires"), list))):
            raise RuleError(path, 1, f"definition {number}: expected keys {', '.join(fields)} and either "
                                     "'names' (a mapping) or 'overloads' (a mapping) with 'requires' (a list)")
        words = [*(entry.get("names") or {}), *(entry.get("overloads") or {}), *(entry.get("requires") or ())]
        if not all(isinstance(word, str) and _IDENTIFIER_NAME.fullmatch(word) for word in words):
            raise RuleError(path, 1, f"definition {number}: the names, overloads and requires must be identifiers "
                                     "(they are found as whole words)")
        entries.append(PortDefinition(
            {str(k): str(v) for k, v in (entry.get("names") or {}).items()},
            {str(k): tuple(str(p) for p in v) for k, v in (entry.get("overloads") or {}).items()},
            tuple(str(t) for t in entry.get("requires") or ()),
            str(entry["guard"]), str(entry["what"]), str(entry["nvidia"]).rstrip("\n"),
            str(entry["amd"]).rstrip("\n")))
    return tuple(entries)


def definition_offset(ctx: "_FileContext", node: "tree_sitter.Node") -> int:
    """Byte offset of the line start of the declaration at file scope that holds ``node``: a
    child of the translation unit, or of the include guard that wraps the whole file (so
    definitions placed there land after the guard's ``#define`` and the includes before the
    declaration)."""
    from .analyze import _include_guard

    guard = _include_guard(ctx)
    top = node
    while top.parent is not None and top.parent.type != "translation_unit" \
            and not (guard is not None and top.parent.start_byte == guard.start_byte
                     and top.parent.end_byte == guard.end_byte):
        top = top.parent
    return ctx.source.rfind(b"\n", 0, top.start_byte) + 1


def file_newline(ctx: "_FileContext") -> str:
    """The file's line ending: "\\r\\n" when the file holds one, else "\\n"."""
    return "\r\n" if b"\r\n" in ctx.source else "\n"


def insert_once(ctx: "_FileContext", first_use: "tree_sitter.Node | int", block: str) -> None:
    """Insert ``block`` (text ending in the file's line ending) before the file-scope declaration
    holding ``first_use`` (see :func:`definition_offset`), or at byte offset ``first_use`` when it
    is one (a line start), shielded from the file's macros (:func:`shield_from_macros`); the edit
    goes to ``ctx.result.edits``. Call it once per block and file."""
    offset = first_use if isinstance(first_use, int) else definition_offset(ctx, first_use)
    ctx.result.edits.append(Edit(offset, offset, shield_from_macros(ctx.source, offset, block.encode())))


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def shield_from_macros(source: bytes, offset: int, block: bytes) -> bytes:
    """``block`` (code the port inserts at byte ``offset`` of ``source``) made immune to the
    file's own macros: each name ``#define``d in ``source`` above ``offset`` that the block uses as
    a word (a parameter ``mask`` under a user's ``#define mask 0xFFFFFFFF``, HeCBench jaccard)
    is saved with ``#pragma push_macro``, undefined for the block and restored after it with
    ``#pragma pop_macro`` (clang, GCC and nvcc all have both), so the file's code after the block
    sees its macro again. Names the block defines itself are left alone. A block that uses none
    comes back unchanged. Macros of included headers are not seen here; the blocks the port
    inserts name only ``hipport_`` and reserved words, so none can reach them (tests/test_inserted_blocks.py)."""
    defined = {match.group(1) for match in _DEFINE.finditer(source, 0, offset)}
    if not defined:
        return block
    code = code_only(block)  # the words of comments and literals are never expanded
    clashes = sorted((defined & set(_IDENTIFIER.findall(code))) - {m.group(1) for m in _DEFINE.finditer(block)})
    if not clashes:
        return block
    newline = b"\r\n" if block.endswith(b"\r\n") else b"\n"
    save = b"".join(b'#pragma push_macro("' + name + b'")' + newline + b"#undef " + name + newline for name in clashes)
    restore = b"".join(b'#pragma pop_macro("' + name + b'")' + newline for name in clashes)
    return save + block + restore


def _word_pattern(names, leading: bool = True) -> re.Pattern[bytes]:
    """A regex matching any of ``names`` (strings) as a whole word; with ``leading=False``
    without the look-behind in front, for a scan with :func:`_words` (the same matches, faster)."""
    alternatives = trie_alternation(n.encode() for n in names)  # one comparison per byte, not per name
    return re.compile((rb"(?<![A-Za-z0-9_$])" if leading else b"") + alternatives + rb"(?![A-Za-z0-9_$])")


def _words(ctx: "_FileContext", names):
    """The matches of ``names`` as whole words in the file (:func:`hipport.alternation.word_matches`)."""
    return word_matches(_word_pattern(names, leading=False), ctx.source, WORD_OR_DOLLAR_BYTES)


def _declares(ctx: "_FileContext", name: bytes, parameters_naming: tuple[str, ...] = ()) -> bool:
    """The file declares ``name`` itself: a ``#define`` of it, or a function declarator of that
    name (whose parameter list, when ``parameters_naming`` is given, names one of those words)."""
    if not parameters_naming and next(directive_matches(
            re.compile(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + rb"\b", re.MULTILINE), ctx.source), None):
        return True
    types = _word_pattern(parameters_naming) if parameters_naming else None
    for match in _words(ctx, [name.decode()]):
        node = ctx.node_at(match.start(), match.end())
        if node.type == "identifier" and node.parent is not None and node.parent.type == "function_declarator":
            parameters = node.parent.child_by_field_name("parameters")
            if types is None or (parameters is not None and types.search(ctx.text(parameters))):
                return True
    return False


def _uses(ctx: "_FileContext", names, calls_only: bool = False):
    """(match, node) for each use of one of ``names`` (strings) in the file's code or macro
    bodies: an identifier or type name (with ``calls_only``, only the function of a call), or a
    word in the code of a ``#define`` body; comments, strings and longer names are skipped."""
    for match in _words(ctx, names):
        node = ctx.node_at(match.start(), match.end())
        if node.type in _MACRO_BODIES:
            if ctx.in_macro_code(node, match.start()):
                yield match, node
            continue
        if node.type not in ("identifier", "type_identifier") \
                or (node.start_byte, node.end_byte) != match.span():
            continue
        if calls_only and not (node.parent is not None and node.parent.type == "call_expression"
                               and node.parent.child_by_field_name("function") == node):
            continue
        yield match, node


def _define_renamed(ctx: "_FileContext", entry: PortDefinition) -> None:
    """The part of :func:`analyze_port_definitions` for an entry of renamed names."""
    if any((mapping := ctx.rules.identifiers.get(cuda)) is None or mapping.hip != hip
           for cuda, hip in entry.names.items()):
        return
    if any(_declares(ctx, cuda.encode()) for cuda in entry.names):
        return
    first: "tree_sitter.Node | None" = None
    for match, node in _uses(ctx, entry.names):
        if node.type not in _MACRO_BODIES and node.type != "identifier":
            continue
        first = first or node
        cuda = match.group().decode()
        ctx.report("port-defined", ctx.point(match.start()), name=cuda, hip=entry.names[cuda], what=entry.what)
    if first is not None:
        insert_once(ctx, first, entry.block(file_newline(ctx)))


_LACKS = re.compile(r"HIP lacks (.*)$")


def _define_overloads(ctx: "_FileContext", entry: PortDefinition) -> None:
    """The part of :func:`analyze_port_definitions` for an entry of overloads: the block goes
    before the later of the first call of one of the functions and the first use of one of the
    ``requires`` types (so the type is declared above it); calls from there on lose the HP2015
    that lists only overloads the block adds, and the first of them gets HP2043."""
    if any(_declares(ctx, name.encode(), entry.requires) for name in entry.overloads):
        return
    type_use = next(iter(_uses(ctx, entry.requires)), None)
    if type_use is None:
        return
    calls = list(_uses(ctx, entry.overloads, calls_only=True))
    if not calls:
        return
    offset = max(definition_offset(ctx, type_use[1]), definition_offset(ctx, calls[0][1]))
    later = [(match, node) for match, node in calls if match.start() >= offset]
    if not later:
        return
    insert_once(ctx, offset, entry.block(file_newline(ctx)))
    added = {f"{name}({p})" for name, lists in entry.overloads.items() for p in lists}
    first_line = ctx.point(offset)[0] + 1

    def covered(finding) -> bool:
        if finding.rule_id != ctx.rules.check("missing-overload").id or finding.name not in entry.overloads \
                or finding.line < first_line:
            return False
        lacks = _LACKS.search(finding.message)
        listed = re.findall(r"[A-Za-z_][A-Za-z0-9_]*\([^()]*\)", lacks.group(1)) if lacks else []
        return bool(listed) and " more" not in lacks.group(1) and all(s in added for s in listed)

    ctx.result.findings[:] = [f for f in ctx.result.findings if not covered(f)]
    match = later[0][0]
    ctx.report("port-defined-overload", ctx.point(match.start()), name=match.group().decode(),
               signatures=", ".join(sorted(added)), what=entry.what)


def analyze_port_definitions(ctx: "_FileContext") -> None:
    """Define, once in the file, each device function of ``rules/definitions/device_functions.yaml``
    the file uses, and report it (see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after
            :func:`hipport.analyze._rewrite_identifiers` has renamed the names (through the
            mappings of ``rules/cuda_device.yaml``) and :func:`hipport.overloads.analyze_overloads`
            has reported HP2015. An entry of names the rules do not map to the entry's names
            (``--rules`` replaced them) is skipped: its calls are not renamed. Edits go to
            ``ctx.result.edits``, findings to ``ctx.result.findings`` (HP2042 at each renamed use;
            HP2043 at the first call that may use an added overload, whose HP2015 goes).
    """
    for entry in port_definitions():
        words = [*entry.names, *entry.overloads]
        if not any(word.encode() in ctx.source for word in words):
            continue
        if entry.names:
            _define_renamed(ctx, entry)
        else:
            _define_overloads(ctx, entry)
