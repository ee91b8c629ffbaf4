"""Match the rules against one parsed file: produce edits (the port) and findings (the rest).

One pass per file, driven by cheap byte scans that find *candidates* and by the syntax tree
that confirms them:

1. One precompiled scan finds the words that start like a rule name (see
   :meth:`hipport.rules.RuleSet.candidate_pattern`); a word that is a rule name is looked up
   in the tree and rewritten only when the token there is an identifier in code (never inside a comment, string or character literal,
   also inside macro bodies, which the grammar keeps as opaque text).
2. ``#include`` directives are mapped through the header rules; a quoted include that names a
   file of the project is never touched (except that ``"x.cu"`` follows the rename to
   ``"x.hip"``), and a second ``hip/hip_runtime.h`` include is dropped.
3. Kernel launches (``<<<...>>>``) are kept, or with ``launch_syntax="hip"`` rewritten to
   ``hipLaunchKernelGGL`` by editing only their punctuation.
4. ``asm`` blocks and every use of a name whose status is unsupported, removed, deprecated or
   experimental become findings.
5. A ``.cu`` file that includes no HIP runtime header gets ``#include <hip/hip_runtime.h>``
   (nvcc includes ``cuda_runtime.h`` in every ``.cu`` translation unit implicitly), placed
   after any leading comment block, ``#pragma once`` or include-guard opening.
"""

from __future__ import annotations

import bisect

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import tree_sitter

from .alternation import directive_matches
from .edits import Edit
from .findings import AsmBlock, Finding  # AsmBlock: defined there, part of this module's results
from .parse import error_regions, macro_body_non_code
from .rules import Mapping, RuleSet
from .unknown_names import FileNames, collect as collect_cuda_names
from .collisions import analyze_collisions
from .device_overloads import analyze_device_overloads
from .integer_overloads import analyze_integer_overloads
from .host_math import analyze_host_math
from .literal_suffix import analyze_literal_suffixes
from .min_max import analyze_min_max
from .brace_assignment import analyze_brace_assignments
from .classification_macros import analyze_classification_macros
from .cutil import analyze_cutil
from .device_context import analyze_device_context, device_code
from .register_keyword import analyze_register_keyword
from .syncwarp import analyze_syncwarp
from .grid_constant import analyze_grid_constant
from .port_definitions import analyze_port_definitions
from .surface_calls import analyze_surface_calls
from .version_macros import analyze_cuda_version_macros
from .handle_types import analyze_handle_types, rewrite_handle_reinterpret_casts
from .group_shuffles import analyze_group_shuffles
from .half_bfloat16 import analyze_half_bfloat16
from .host_api import (analyze_context_create_params, analyze_dim3_from_make_uint3, analyze_initialised_vlas,
                       analyze_struct_member_spellings, analyze_unported_case_labels)
from .signatures import NULL_ARGUMENTS, report_signatures
from .overloads import analyze_overloads
from .group_members import analyze_group_members
from .warp import MaskNames, WarpTree, analyze_warps
from .launch_spacing import LAUNCH_OPEN, analyze_launch_spacing
from .macro_asm import analyze_macro_asm
from .project_macros import SpecifierMacros, TreeSources, specifier_macros
from .vector_macros import analyze_vector_macros
from .interop_include import analyze_interop_includes
from .elaborated import elaborated_name

from .toolkit_headers import analyze_toolkit_includes
from .cub_block_size import analyze_cub_block_sizes
from .thrust_includes import analyze_thrust_includes

HIP_RUNTIME_HEADER = "hip/hip_runtime.h"
#: Headers whose inclusion makes the HIP runtime (and the kernel language) available.
RUNTIME_HEADERS = frozenset({HIP_RUNTIME_HEADER})

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include\b", re.MULTILINE)
_INCLUDE_NAME = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"]', re.MULTILINE)
_LAUNCH = LAUNCH_OPEN  # <<< and the spaced << < that nvcc accepts too
_MAIN = re.compile(rb"main(?<![A-Za-z0-9_]main)[ \t\r\n]*\(")  # look-behind after the word: see LAUNCH_OPEN
_ASM = re.compile(rb"(?<![A-Za-z0-9_])(?:__asm__|__asm|asm)(?![A-Za-z0-9_])")
_IDENTIFIER_TYPES = frozenset({"identifier", "type_identifier", "namespace_identifier", "ERROR"})
_SKIPPED_DIRECTIVES = frozenset({b"#error", b"#warning"})
#: Mapping kinds a tag keyword can precede (``struct cudaGraphicsResource``: :mod:`hipport.elaborated`).
_TYPE_KINDS = frozenset({"type", "enum"})
#: Bytes that can be part of an identifier (``$`` is a GCC extension, bytes >= 0x80 are UTF-8
#: identifier characters): a match next to one is part of a longer name.
_WORD_BYTES = frozenset(bytes([b]) for b in
                        b"$_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + bytes(range(0x80, 0x100)))
_FINDING_STATUSES = {
    "unsupported": "unsupported-api",
    "removed": "removed-api",
    "deprecated": "deprecated-api",
    "experimental": "experimental-api",
}


@dataclass
class FileAnalysis:
    """What :func:`analyze_file` found in one file.

    Attributes:
        edits: byte edits that port the file (apply with :func:`hipport.edits.apply_edits`).
        findings: reported constructs, in source order.
        references_rewritten: identifiers and include paths replaced.
        kernel_launches: ``<<<...>>>`` launches seen.
        defines_main: the file defines a ``main`` function (an executable's entry point).
        uses_cuda: a CUDA name, launch or header was seen (the file needs the HIP language).
        parse_error_regions: regions the grammar could not parse.
        inline_asm: every ``asm`` statement, with its PTX instructions and constraints.
        cuda_names: unknown CUDA-looking names used and CUDA-looking names declared
            (:mod:`hipport.unknown_names`; reported once the whole tree is analysed).
        renamed: CUDA identifier -> (the name the port writes, ``""`` for a deleted one such as
            ``CUDART_CB``; 1-based line and column of its first rewrite): what ``--compat`` maps
            in its header.
        headers_mapped: CUDA header -> HIP header, for each angled include the port maps.
        call_rewrites: (CUDA function, what the port does to the call, 1-based line, column) for
            each call rewritten beyond a rename (:class:`hipport.rules.CallRewrite`), which a
            name mapping alone cannot do (``--compat`` reports them).
        type_rewrites: (CUDA type, what the port writes, what to write in a ``--compat`` tree,
            1-based line, column) for each tag keyword before a CUDA type whose port is more
            than a rename (:mod:`hipport.elaborated`; ``--compat`` reports them).
    """

    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    references_rewritten: int = 0
    kernel_launches: int = 0
    defines_main: bool = False
    uses_cuda: bool = False
    parse_error_regions: int = 0
    inline_asm: list["AsmBlock"] = field(default_factory=list)
    cuda_names: "FileNames | None" = None
    renamed: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    headers_mapped: dict[str, str] = field(default_factory=dict)
    call_rewrites: list[tuple[str, str, int, int]] = field(default_factory=list)
    type_rewrites: list[tuple[str, str, str, int, int]] = field(default_factory=list)


class HeaderResolver(Protocol):
    """What a file's analysis may ask of the tree about its includes
    (:class:`hipport.convert._HeaderResolver` answers for a converted tree)."""

    def __call__(self, name: str) -> "str | None":
        """The project-relative path of the file a quoted include ``name`` names, or None."""

    def in_tree(self, name: str) -> bool:
        """True when an include of ``name`` in any form (``<name>`` through an ``-I`` folder of
        the build too) can name a file of the tree."""


class NoTreeHeaders:
    """The :class:`HeaderResolver` of a file analysed on its own: no include names a tree file."""

    def __call__(self, name: str) -> "str | None":
        return None

    def in_tree(self, name: str) -> bool:
        return False


class _FileContext:
    """State shared by the passes over one file."""

    def __init__(self, path: str, source: bytes, tree: tree_sitter.Tree, rules: RuleSet,
                 sources: TreeSources | None = None):
        self.path = path
        self.source = source
        self.root = tree.root_node
        self.rules = rules
        self.sources = sources
        self.result = FileAnalysis()
        self._macro_masks: dict[int, list[tuple[int, int]]] = {}
        self._specifier_macros: SpecifierMacros | None = None
        self._line_starts: list[int] | None = None
        #: Per-file results that several passes use, computed by the first that needs them
        #: (key: the function's name, e.g. :func:`hipport.collisions.outermost_definitions`).
        self.cache: dict[str, object] = {}

    def point(self, offset: int) -> tuple[int, int]:
        """0-based (row, byte column) of byte ``offset`` of the source, by binary search in the
        line starts (built on first use: one scan of the file), so that reporting many names of a
        large file costs no scan from its start each."""
        if self._line_starts is None:
            starts = [0]
            find, source = self.source.find, self.source
            at = find(b"\n")
            while at != -1:
                starts.append(at + 1)
                at = find(b"\n", at + 1)
            self._line_starts = starts
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return row, offset - self._line_starts[row]

    @property
    def specifier_macros(self) -> SpecifierMacros:
        """The macros this file sees that expand to CUDA's function specifiers
        (:func:`hipport.project_macros.specifier_macros`), read on first use."""
        if self._specifier_macros is None:
            self._specifier_macros = specifier_macros(self.path, self.source, self.sources)
        return self._specifier_macros

    def node_at(self, start: int, end: int) -> tree_sitter.Node:
        return self.root.descendant_for_byte_range(start, end)

    def text(self, node: tree_sitter.Node) -> bytes:
        return self.source[node.start_byte:node.end_byte]

    def report(self, check_name: str, node_or_point, name: str = "", **fields: str) -> None:
        check = self.rules.check(check_name)
        row, column = node_or_point.start_point if hasattr(node_or_point, "start_point") else node_or_point
        message, fix = check.render(name=name, **fields)
        self.result.findings.append(Finding(
            path=self.path, line=row + 1, column=column + 1, rule_id=check.id, rule_name=check.name,
            severity=check.severity, message=message, fix=fix, name=name,
        ))

    def in_macro_code(self, node: tree_sitter.Node, start: int) -> bool:
        """True when byte ``start`` inside the macro body ``node`` is code, not a comment or literal."""
        parent = node.parent
        if parent is not None and parent.type == "preproc_call":
            directive = parent.child_by_field_name("directive")
            if directive is not None and b"".join(self.text(directive).split()) in _SKIPPED_DIRECTIVES:
                return False
        mask = self._macro_masks.get(node.start_byte)
        if mask is None:
            mask = macro_body_non_code(self.text(node))
            self._macro_masks[node.start_byte] = mask
        offset = start - node.start_byte
        return not any(lo <= offset < hi for lo, hi in mask)


def _mapping_fields(mapping: Mapping, rules: RuleSet) -> dict[str, str]:
    versions = mapping.versions
    since = versions.get("cuda_deprecated") or versions.get("hip_deprecated")
    replacement = mapping.target(rules.target_libs)[0]
    family = rules.families.get(mapping.family)
    library = family.versions_of if family is not None else "CUDA"
    return {
        "library": library,
        "target": mapping.roc_library if rules.target_libs == "roc" and mapping.roc_library else "HIP",
        "hip": replacement or "",
        "kind": mapping.kind,
        "family": mapping.family,
        "note": f" ({mapping.note})" if mapping.note else "",
        "cuda_removed": versions.get("cuda_removed", "?"),
        "mapped": ("; left unchanged" if not replacement else
                   "; HIP keeps the name" if replacement == mapping.cuda else f"; mapped to {replacement}"),
        "since": f" since {library if versions.get('cuda_deprecated') else 'HIP'} {since}" if since else "",
    }




def _rewrite_identifiers(ctx: _FileContext) -> None:
    table = ctx.rules.identifier_edits
    namespace_table = ctx.rules.namespace_edits
    calls = ctx.rules.calls
    source = ctx.source
    node_at = ctx.root.descendant_for_byte_range
    edits = ctx.result.edits
    for match in ctx.rules.candidate_pattern.finditer(source):
        word = match.group()
        entry = table.get(word)
        namespace_entries = namespace_table.get(word)
        if entry is None and namespace_entries is None:
            continue
        start, end = match.span()
        if source[end:end + 1] in _WORD_BYTES or (start and source[start - 1:start] in _WORD_BYTES):
            continue  # part of a longer name (xcudaMalloc, cudaMalloc\u00e9)
        node = node_at(start, end)
        if node.type == "preproc_arg":
            if not ctx.in_macro_code(node, start):
                continue
        if namespace_entries is not None and _rewrite_namespace(ctx, node, start, end, namespace_entries):
            continue
        if entry is None:
            continue
        mapping, hip, construct = entry
        if node.type == "preproc_arg":
            pass  # a name in macro code, checked above
        elif construct is not None and node.type == construct.name:
            pass  # a keyword of the CUDA grammar (__managed__)
        elif node.type not in _IDENTIFIER_TYPES or (node.type != "ERROR" and (node.start_byte, node.end_byte) != (start, end)):
            continue
        if construct is not None and _construct_applies(construct, node):
            ctx.result.uses_cuda = True
            ctx.report(construct.check, ctx.point(start), name=construct.name)
        if mapping is None:
            continue
        name = mapping.cuda
        replacement, status = ctx.rules.target(mapping)
        if node.type != "preproc_arg" and _qualified_by_a_scope(node) and not ctx.rules.namespaced(mapping):
            continue  # Stats::cuCabsf, mylib::cudaMalloc: a project's own name, not the CUDA API
        if (node.type == "identifier" and mapping.kind == "type" and replacement in (None, name)
                and not _is_sizeof_operand(node)):
            continue  # a variable that happens to share the name of an unported type (int texture;)
        if (node.type == "identifier" and mapping.kind == "function" and replacement is None
                and mapping.family == "cuda_device" and _call_arguments(node) is None):
            continue  # a device function HIP lacks has a plain name (umax, saturate): only calls count
        ctx.result.uses_cuda = True
        renamed_to = None if hip is None else hip.decode("utf-8")
        if name in calls and replacement is not None:
            report_signatures(ctx, node, calls[name], ctx.point(start))
            hip = _rewrite_call(ctx, node, calls[name], hip, name, ctx.point(start))
        if renamed_to is not None and renamed_to != name and name not in ctx.result.renamed:
            row, column = ctx.point(start)
            ctx.result.renamed[name] = (renamed_to, row + 1, column + 1)
        if hip and mapping.kind in _TYPE_KINDS:
            hip = elaborated_name(ctx, node, start, end, mapping, hip)
        if hip is not None:
            if not hip and source[end:end + 1] in (b" ", b"\t") and source[start - 1:start] in (b" ", b"\t", b"\n"):
                end += 1  # a deleted name (CUDART_CB) takes one blank after it along
            edits.append(Edit(start, end, hip))
            ctx.result.references_rewritten += 1
        check_name = _FINDING_STATUSES.get(status)
        if check_name:
            ctx.report(check_name, ctx.point(start), name=name,
                       **_mapping_fields(mapping, ctx.rules))
        if name in _HOST_ONLY_CALLS and (function := _device_function(ctx, node)):
            ctx.report("dynamic-parallelism", ctx.point(start), name=name, function=function)


_NAMESPACE_USE_AFTER = re.compile(rb"[ \t]*::")
_USING_NAMESPACE_BEFORE = re.compile(rb"(?<![A-Za-z0-9_])(?:using[ \t\r\n]+namespace|namespace[ \t\r\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*=)[ \t\r\n]*(?:::[ \t]*)?$")


def _rewrite_namespace(ctx: _FileContext, node: tree_sitter.Node, start: int, end: int,
                       entries: tuple[tuple[bytes, Mapping, bytes | None], ...]) -> bool:
    """Rename a namespace entry's last component where it qualifies a name (``cub::X``,
    ``thrust::cuda::par``) or is named by ``using namespace`` / a namespace alias; the scope
    written before it must be the entry's scope exactly (``thrust::`` for ``thrust::cuda``;
    nothing but an optional leading ``::`` for ``cub``). Returns True when an entry applied."""
    if node.type not in ("preproc_arg", "ERROR") and (
            node.type not in _IDENTIFIER_TYPES or (node.start_byte, node.end_byte) != (start, end)):
        return False
    source = ctx.source
    window = source[max(0, start - 200):start]
    used_as_scope = _NAMESPACE_USE_AFTER.match(source, end) is not None
    for scope, mapping, replacement in entries:
        before = window
        if scope:
            qualified = re.search(rb"(?<![A-Za-z0-9_:])(?:::[ \t]*)?" + re.escape(scope).replace(rb"::", rb"[ \t]*::[ \t]*")
                                  + rb"[ \t]*::[ \t]*$", before)
            if qualified is None:
                continue
            before = before[:qualified.start()]
        elif re.search(rb"[A-Za-z0-9_][ \t]*::[ \t]*$", before):
            continue  # qualified by some other scope (mylib::cub::)
        if not used_as_scope and _USING_NAMESPACE_BEFORE.search(before) is None:
            continue
        ctx.result.uses_cuda = True
        if replacement is not None:
            ctx.result.edits.append(Edit(start, end, replacement))
            ctx.result.references_rewritten += 1
            if mapping.cuda not in ctx.result.renamed:  # the first rewrite's place only
                row, column = ctx.point(start)
                ctx.result.renamed[mapping.cuda] = (replacement.decode("utf-8"), row + 1, column + 1)
        check_name = _FINDING_STATUSES.get(ctx.rules.target(mapping)[1])
        if check_name:
            ctx.report(check_name, ctx.point(start), name=mapping.cuda,
                       **_mapping_fields(mapping, ctx.rules))
        return True
    return False


def _call_arguments(node: tree_sitter.Node) -> list[tree_sitter.Node] | None:
    """The argument nodes (comments left out) when ``node`` names the function of a call
    (``f(...)`` or ``::f(...)``), else None."""
    function = node
    parent = node.parent
    if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == node:
        function, parent = parent, parent.parent
    if parent is None or parent.type != "call_expression" or parent.child_by_field_name("function") != function:
        return None
    arguments = parent.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    return [child for child in arguments.named_children if child.type != "comment"]


def _drop_arguments(ctx: _FileContext, arguments: list[tree_sitter.Node], positions: tuple[int, ...]) -> None:
    """Delete the call arguments at the 0-based ``positions`` with the comma that separates each
    from the next argument (from the previous one for the last)."""
    for position in positions:
        if position + 1 < len(arguments):
            start, end = arguments[position].start_byte, arguments[position + 1].start_byte
        elif position > 0:
            start, end = arguments[position - 1].end_byte, arguments[position].end_byte
        else:
            start, end = arguments[position].start_byte, arguments[position].end_byte
        ctx.result.edits.append(Edit(start, end, b""))


def _rewrite_call(ctx: _FileContext, node: tree_sitter.Node, rewrites, hip: bytes | None, name: str = "",
                  point: tuple[int, int] = (0, 0)) -> bytes | None:
    """Apply the :class:`~hipport.rules.CallRewrite` entries of the function named at ``node``;
    returns the name the function gets (``hip`` unless an argument-count entry applies). Each
    rewrite applied is recorded in ``call_rewrites`` (``name`` at the 0-based ``point``). A wrap
    whose argument is not written in the call (fewer arguments: a macro supplies the list) is
    reported as HP2010 with the entry's ``unwrapped`` text, once per call. Under ``--target-libs
    roc`` the wraps of a family with a ROCm library are left out (they name hip* types)."""
    arguments = _call_arguments(node)
    if arguments is None:
        return hip
    reported_unwrapped = False
    for rewrite in rewrites:
        if (rewrite.differs and rewrite.positions and max(rewrite.positions) < len(arguments)
                and (rewrite.arguments is None or rewrite.arguments == len(arguments))
                and all(ctx.text(arguments[p]).strip() in NULL_ARGUMENTS for p in rewrite.positions)):
            _drop_arguments(ctx, arguments, rewrite.positions)
            ctx.result.call_rewrites.append(
                (name, f"argument(s) {', '.join(str(p + 1) for p in rewrite.positions)} (NULL, a parameter HIP lacks) dropped",
                 point[0] + 1, point[1] + 1))
            continue
        if rewrite.differs or rewrite.narrower:
            continue  # reported by hipport.signatures
        if rewrite.hip is not None:
            if len(arguments) == rewrite.arguments:
                hip = rewrite.hip.encode("ascii")
                ctx.result.call_rewrites.append(
                    (name, f"the {rewrite.arguments}-argument form becomes {rewrite.hip}", point[0] + 1, point[1] + 1))
            continue
        if ctx.rules.target_libs == "roc" and _has_roc_library(ctx, rewrite.cuda):
            continue
        if rewrite.argument >= len(arguments):
            if rewrite.unwrapped and not reported_unwrapped:
                mapping = ctx.rules.identifiers.get(rewrite.cuda)
                ctx.report("signature-differs", point, name=rewrite.cuda,
                           hip=(ctx.rules.target(mapping)[0] if mapping is not None else None) or "",
                           what=rewrite.unwrapped)
                reported_unwrapped = True
            continue
        argument = arguments[rewrite.argument]
        text = ctx.text(argument).decode("utf-8", "replace")
        if any(text.startswith(prefix) for prefix in rewrite.unless):
            continue
        before, _, after = rewrite.wrap.partition("{}")
        ctx.result.edits.append(Edit(argument.start_byte, argument.start_byte, before.encode("utf-8")))
        ctx.result.edits.append(Edit(argument.end_byte, argument.end_byte, after.encode("utf-8")))
        ctx.result.references_rewritten += 1
        ctx.result.call_rewrites.append(
            (name, f"argument {rewrite.argument + 1} becomes {rewrite.wrap.replace('{}', text)}", point[0] + 1, point[1] + 1))
    return hip


def _has_roc_library(ctx: _FileContext, cuda: str) -> bool:
    """The CUDA function ``cuda`` belongs to a family with a ROCm library (rocBLAS...), whose
    functions ``--target-libs roc`` ports it to."""
    mapping = ctx.rules.identifiers.get(cuda)
    family = ctx.rules.families.get(mapping.family) if mapping is not None else None
    return family is not None and bool(family.roc_library)


def _qualified_by_a_scope(node: tree_sitter.Node) -> bool:
    """``node`` is the name of ``Scope::name`` (any named scope, ``Outer<T>::name`` too); the
    global scope ``::name`` does not count. CUDA's C APIs live in the global namespace."""
    parent = node.parent
    return (parent is not None and parent.type == "qualified_identifier"
            and parent.child_by_field_name("name") == node and parent.child_by_field_name("scope") is not None)


def _is_sizeof_operand(node: tree_sitter.Node) -> bool:
    """``node`` is the whole operand of ``sizeof(...)``/``alignof(...)``, where tree-sitter
    cannot tell a type from a variable; a name of a type there is taken as the type."""
    parent = node.parent
    if parent is None or parent.type != "parenthesized_expression" or parent.named_child_count != 1:
        return False
    outer = parent.parent
    return outer is not None and outer.type in ("sizeof_expression", "alignof_expression")


def _construct_applies(construct, node: tree_sitter.Node) -> bool:
    """A namespace construct only as a namespace (``cuda::``), a type construct only as a type."""
    if construct.where == "namespace":
        # cuda:: but not thrust::cuda:: (the scope of a name that is itself qualified)
        parent = node.parent
        outer = parent.parent if parent is not None else None
        nested = (parent is not None and parent.type == "qualified_identifier" and outer is not None
                  and outer.type == "qualified_identifier" and outer.child_by_field_name("name") == parent)
        defined = parent is not None and parent.type in ("namespace_definition", "namespace_alias_definition") \
            and parent.child_by_field_name("name") == node
        nested = nested or (parent is not None and parent.type == "nested_namespace_specifier"
                            and parent.named_children[0] != node)  # mylib::cuda in a namespace alias
        return node.type == "namespace_identifier" and not nested and not defined
    if construct.where == "type":
        return node.type == "type_identifier"
    return True


#: Runtime calls that, inside device code, need dynamic parallelism.
_HOST_ONLY_CALLS = frozenset({"cudaDeviceSynchronize", "cudaLaunchKernel", "cudaStreamCreateWithFlags",
                              "cudaGetParameterBuffer", "cudaLaunchDevice"})


def _device_function(ctx: _FileContext, node: tree_sitter.Node) -> str | None:
    """The name of the ``__global__`` or ``__device__`` function (or lambda) enclosing ``node``,
    else None (see :func:`hipport.device_context.device_code`)."""
    where = device_code(ctx, node)
    return where.function if where is not None else None


def _include_path_node(include: tree_sitter.Node) -> tree_sitter.Node | None:
    return include.child_by_field_name("path")


def _line_start(source: bytes, offset: int) -> int:
    """Start of the line holding ``offset`` if only blanks precede ``offset`` on it, else ``offset``."""
    begin = source.rfind(b"\n", 0, offset) + 1
    return begin if source[begin:offset].strip(b" \t") == b"" else offset


def _include_guard(ctx: _FileContext) -> tree_sitter.Node | None:
    """The ``#ifndef X / #define X ... #endif`` node wrapping the whole file, if there is one."""
    code = [node for node in ctx.root.children if node.type != "comment"]
    if len(code) != 1 or code[0].type != "preproc_ifdef" or not ctx.text(code[0]).startswith(b"#ifndef"):
        return None
    guard = code[0]
    name = guard.child_by_field_name("name")
    first = next((c for c in guard.named_children if c.start_byte != name.start_byte), None) if name else None
    if name is None or first is None or first.type != "preproc_def":
        return None
    define_name = first.child_by_field_name("name")
    return guard if define_name is not None and ctx.text(define_name) == ctx.text(name) else None


def _unavailable_library(name: str, target_libs: str) -> "tuple[str, str] | None":
    """(library name, note) of the CUDA library of ``rules/build/libraries.yaml`` that declares
    the header ``name`` (``cuda_headers``) where an include of it, left as written, cannot compile
    for AMD: the library has no HIP/ROCm replacement under ``target_libs`` (NPP, nvJPEG, cuFile,
    NVML under ``hip``), or the replacement's headers have other names and no header rule maps
    this one (NVML -> ROCm SMI under ``roc``); None otherwise (Thrust's headers, which a
    replacement keeps). From :func:`hipport.toolkit_headers.library_headers`, read on the first
    include the header rules do not map."""
    from .toolkit_headers import library_headers

    return library_headers()["unavailable"][target_libs].get(name)


def _rewrite_includes(ctx: _FileContext, resolve_header: HeaderResolver, rename_cu: bool = True) -> set[str]:
    """Map include paths; return the headers the ported file includes unconditionally (at the
    top level, or directly inside its include guard)."""
    included: dict[tuple[int, str], tree_sitter.Node] = {}
    headers: set[str] = set()
    unconditional_parents = {ctx.root.id} | ({guard.id} if (guard := _include_guard(ctx)) else set())
    for match in directive_matches(_INCLUDE, ctx.source):
        node = ctx.node_at(match.end() - 1, match.end())
        while node is not None and node.type != "preproc_include":
            node = node.parent
        if node is None:
            continue
        path_node = _include_path_node(node)
        if path_node is None:
            continue
        raw = ctx.text(path_node)
        quoted = path_node.type == "string_literal"
        if path_node.type not in ("string_literal", "system_lib_string") or len(raw) < 2:
            continue
        name = raw[1:-1].decode("utf-8", "replace")
        new_name = name
        construct = ctx.rules.constructs.get(("header", name))
        if construct is not None and not (quoted and resolve_header(name)):
            ctx.result.uses_cuda = True
            ctx.report(construct.check, path_node, name=name)
        if quoted and (project_file := resolve_header(name)) is not None:
            if rename_cu and name.endswith(".cu") and project_file.endswith(".cu"):
                new_name = name[:-3] + ".hip"
        else:
            mapping = ctx.rules.headers.get(name)
            if mapping is not None:
                ctx.result.uses_cuda = True
                replacement, status = ctx.rules.target(mapping)
                if replacement:
                    new_name = replacement
                    ctx.result.headers_mapped.setdefault(name, replacement)
                check_name = _FINDING_STATUSES.get(status)
                if check_name:
                    ctx.report(check_name, path_node, name=name, **_mapping_fields(mapping, ctx.rules))
                if replacement and replacement == mapping.hip and mapping.absent_fix:
                    ctx.report("header-absent", path_node, name=name, hip=replacement,
                               note=f" ({mapping.note})" if mapping.note else "", fix=mapping.absent_fix)
            elif construct is None and (library := _unavailable_library(name, ctx.rules.target_libs)) is not None:
                ctx.result.uses_cuda = True
                library_name, note = library
                ctx.report("cuda-library-unavailable", path_node, library=library_name,
                           construct=f"#include {raw.decode('utf-8', 'replace')}", note=note)
        parent_key = (node.parent.id if node.parent else -1, new_name)
        if new_name == HIP_RUNTIME_HEADER and parent_key in included and not node.parent.has_error:
            # A second hip_runtime.h include in the same block: drop the whole line.
            ctx.result.edits.append(Edit(_line_start(ctx.source, node.start_byte), node.end_byte, b""))
            ctx.result.references_rewritten += 1
            continue
        included[parent_key] = node
        if parent_key[0] in unconditional_parents:
            headers.add(new_name)
        if new_name != name:
            ctx.result.edits.append(Edit(path_node.start_byte + 1, path_node.end_byte - 1, new_name.encode("utf-8")))
            ctx.result.references_rewritten += 1
    return headers


def _has_bare_comma(text: bytes) -> bool:
    """True when ``text`` has a comma outside parentheses, which would split a macro argument
    (``dim3{2, 2}``, ``C<1, 2>::value``)."""
    depth = 0
    for byte in text:
        if byte == 0x28:  # (
            depth += 1
        elif byte == 0x29:  # )
            depth -= 1
        elif byte == 0x2C and depth == 0:  # ,
            return True
    return False


def _kernel_name_needs_wrapper(ctx: _FileContext, function: tree_sitter.Node) -> bool:
    """HIP_KERNEL_NAME(...) protects a kernel name holding template arguments or bare commas."""
    text = ctx.text(function)
    return b"<" in text or _has_bare_comma(text)


def _launch_kept_reason(call: tree_sitter.Node) -> str | None:
    """Why a launch cannot become hipLaunchKernelGGL (a statement-like macro), or None."""
    parent = call.parent
    if parent is None or parent.type != "expression_statement":
        return "the launch is used as an expression, and hipLaunchKernelGGL is a statement"
    return None


def _rewrite_launches(ctx: _FileContext, launch_syntax: str) -> None:
    for match in _LAUNCH.finditer(ctx.source):
        token = ctx.node_at(match.start(), match.end())
        if token.type == "preproc_arg" and ctx.in_macro_code(token, match.start()):
            ctx.result.kernel_launches += 1
            ctx.result.uses_cuda = True
            if launch_syntax == "hip":
                ctx.report("launch-kept", ctx.point(match.start()), name="<<<",
                           reason="the launch is inside a macro body")
            continue
        config = token.parent
        if token.type != "<<<" or config is None or config.type != "kernel_call_syntax":
            continue
        call = config.parent
        if call is None or call.type != "call_expression":
            continue
        ctx.result.kernel_launches += 1
        ctx.result.uses_cuda = True
        if (device_function := _device_function(ctx, call)) is not None:
            ctx.report("dynamic-parallelism", token, name="<<<", function=device_function)
        if launch_syntax != "hip":
            continue
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        closing = config.children[-1]
        config_args = [c for c in config.named_children if c.type != "comment"]
        if function is None or arguments is None or closing.type != ">>>" or not 2 <= len(config_args) <= 4:
            continue
        reason = _launch_kept_reason(call)
        if reason:
            ctx.report("launch-kept", token, name="<<<", reason=reason)
            continue
        wrap = _kernel_name_needs_wrapper(ctx, function)
        defaults = b"".join(b", 0" for _ in range(4 - len(config_args)))
        has_args = any(c.type != "comment" for c in arguments.named_children)
        ctx.result.edits.append(Edit(function.start_byte, function.start_byte,
                                     b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if wrap else b"")))
        ctx.result.edits.append(Edit(function.end_byte, config_args[0].start_byte, b"), " if wrap else b", "))
        for arg in config_args:  # a bare comma would split the macro argument: parenthesize
            if _has_bare_comma(ctx.text(arg)):
                ctx.result.edits.append(Edit(arg.start_byte, arg.start_byte, b"("))
                ctx.result.edits.append(Edit(arg.end_byte, arg.end_byte, b")"))
        separator = b"," if ctx.source[arguments.start_byte + 1:arguments.start_byte + 2] in (b"\n", b"\r") else b", "
        ctx.result.edits.append(Edit(config_args[-1].end_byte, arguments.start_byte + 1,
                                     defaults + (separator if has_args else b"")))


_PREDICATE = re.compile(rb"^@!?%?[A-Za-z0-9_]+\s+")
_LABEL = re.compile(rb"^[A-Za-z_$][A-Za-z0-9_$]*:\s*")


def ptx_instructions(template: bytes) -> list[tuple[str, str]]:
    """Split the text of an asm template into (opcode, operands) pairs, in order.

    Args:
        template: the template's characters as written in the source (escapes such as ``\\n``
            and ``\\t`` still escaped).

    Labels (``L1:``), guard predicates (``@p``), braces and comments are skipped.
    """
    body = template.replace(b"\\t", b" ").replace(b"\\n", b"\n")
    body = re.sub(rb"//[^\n]*", b"", body)
    instructions = []
    for part in re.split(rb"[;\n]", body):
        part = _LABEL.sub(b"", _PREDICATE.sub(b"", part.strip().strip(b"{}").strip()))
        words = part.split(None, 1)
        if words:
            instructions.append((words[0].decode("utf-8", "replace"),
                                 (words[1] if len(words) > 1 else b"").decode("utf-8", "replace").strip()))
    return instructions


def _asm_constraints(ctx: _FileContext, statement: tree_sitter.Node) -> list[str]:
    """The output/input constraint strings and clobbers of an asm statement (``=r``, ``memory``)."""
    found = []
    for child in statement.named_children:
        if child.type in ("gnu_asm_output_operand_list", "gnu_asm_input_operand_list", "gnu_asm_clobber_list"):
            found += [b"".join(ctx.text(c) for c in _string_contents(s)).decode("utf-8", "replace")
                      for s in _descendants(child, "string_literal")]
    return found


def _descendants(node: tree_sitter.Node, node_type: str):
    for child in node.named_children:
        if child.type == node_type:
            yield child
        else:
            yield from _descendants(child, node_type)


def _report_inline_asm(ctx: _FileContext) -> None:
    for match in _ASM.finditer(ctx.source):
        token = ctx.node_at(match.start(), match.end())
        if token.type not in ("asm", "__asm__", "__asm", "identifier"):
            continue
        statement = token.parent
        if token.type == "identifier" or statement is None or statement.type != "gnu_asm_expression":
            # asm the grammar did not recognise (inside an ERROR region): still report it.
            if token.type == "identifier" and not (token.parent and token.parent.type in ("call_expression", "ERROR")):
                continue
            ctx.report("inline-ptx-manual", token, name="asm", statement=match.group().decode(),
                       instructions="(not parsed)", equivalents="the statement did not parse")
            ctx.result.inline_asm.append(AsmBlock(token.start_point[0] + 1, token.start_point[1] + 1,
                                                  match.group().decode(), [], []))
            continue
        qualifiers = [ctx.text(c).decode() for c in statement.children if c.type == "gnu_asm_qualifier"]
        template = statement.child_by_field_name("assembly_code")
        text = b"".join(ctx.text(c) for c in _string_contents(template)) if template is not None else b""
        instructions = ptx_instructions(text)
        words = " ".join([ctx.text(token).decode()] + qualifiers)
        block = AsmBlock(token.start_point[0] + 1, token.start_point[1] + 1, words, instructions,
                         _asm_constraints(ctx, statement))
        ctx.result.inline_asm.append(block)
        advice, manual = [], False
        for opcode, operands in dict.fromkeys(instructions):
            entry = ctx.rules.ptx_equivalent(opcode, operands)
            subject = entry.match if entry is not None else opcode
            if entry is None:
                manual = True
                advice.append(f"{opcode}: no known equivalent")
            elif entry.hip is None:
                manual = True
                advice.append(f"{subject}: {entry.note}")
            else:
                advice.append(f"{subject} -> {entry.hip}")
        opcodes = ", ".join(dict.fromkeys(op for op, _ in instructions)) or "(empty template)"
        ctx.report("inline-ptx-manual" if manual or not instructions else "inline-ptx", token, name="asm",
                   statement=words, instructions=opcodes, equivalents="; ".join(dict.fromkeys(advice)) or "none")


def _string_contents(node: tree_sitter.Node):
    if node.type in ("string_content", "escape_sequence"):
        yield node
        return
    for child in node.named_children:
        yield from _string_contents(child)


def _find_main(ctx: _FileContext) -> None:
    for match in _MAIN.finditer(ctx.source):
        token = ctx.node_at(match.start(), match.start() + 4)
        declarator = token.parent
        if token.type != "identifier" or declarator is None or declarator.type != "function_declarator":
            continue
        definition = declarator.parent
        if definition is not None and definition.type == "function_definition":
            ctx.result.defines_main = True
            return


def _tree_header_before_runtime(ctx: _FileContext, resolve_header: HeaderResolver) -> bool:
    """True when a header of the tree is included above the file's first runtime include.

    nvcc includes ``cuda_runtime.h`` before the first line of every ``.cu`` file, so a project
    header included above the file's own ``#include <cuda_runtime.h>`` still sees the CUDA
    runtime: NVIDIA's helper_cuda.h defines ``checkCudaErrors`` and ``getLastCudaError`` only
    ``#ifdef`` the runtime's include guard (cuda-samples' nbody includes it first). The port then
    needs the HIP runtime include at the top as well (a tree header: ``resolve_header.in_tree``)."""
    for match in directive_matches(_INCLUDE_NAME, ctx.source):
        name = match.group(2).decode("utf-8", "replace")
        mapping = ctx.rules.headers.get(name)
        ported = ctx.rules.target(mapping)[0] if mapping is not None else name
        if ported in RUNTIME_HEADERS or name in RUNTIME_HEADERS:
            return False
        if mapping is None and resolve_header.in_tree(name):
            return True
    return False


def _implicit_include_offset(ctx: _FileContext) -> int:
    """Where ``#include <hip/hip_runtime.h>`` goes in a file that lacks it (a line start):
    after the include-guard opening, or after ``#pragma once``, or before the first code."""
    guard = _include_guard(ctx)
    if guard is not None:
        name = guard.child_by_field_name("name")
        return next(c for c in guard.named_children if c.start_byte != name.start_byte).end_byte
    for node in ctx.root.children:
        if node.type == "comment":
            continue
        if node.type == "preproc_call" and ctx.text(node).split() == [b"#pragma", b"once"]:
            return node.end_byte
        return _line_start(ctx.source, node.start_byte)
    return len(ctx.source)


def _insert_runtime_include(ctx: _FileContext) -> None:
    offset = _implicit_include_offset(ctx)
    newline = b"\r\n" if b"\r\n" in ctx.source else b"\n"
    prefix = b"" if offset == 0 or ctx.source[offset - 1:offset] == b"\n" else newline
    # first of the insertions at this offset: a guard written there (HP2005) tests __HIP_PLATFORM_AMD__
    ctx.result.edits.insert(0, Edit(offset, offset, prefix + b"#include <hip/hip_runtime.h>" + newline))


def analyze_file(
    path: str,
    source: bytes,
    tree: tree_sitter.Tree,
    rules: RuleSet,
    *,
    is_cuda_unit: bool,
    launch_syntax: str = "chevron",
    fix: bool = False,
    resolve_header: HeaderResolver = NoTreeHeaders(),
    warp_tree: WarpTree | None = None,
    mask_names: MaskNames | None = None,
    rename_cu: bool = True,
    sources: TreeSources | None = None,
) -> FileAnalysis:
    """Port one parsed file.

    Args:
        path: the file's path relative to the tree root (``/`` separators), used in findings.
        source: the file content (bytes, any encoding; only ASCII names are rewritten).
        tree: ``source`` parsed with :func:`hipport.parse.new_parser`.
        rules: the loaded rules.
        is_cuda_unit: the file is a ``.cu`` translation unit (gets the implicit runtime include).
        launch_syntax: ``"chevron"`` keeps ``<<<...>>>``; ``"hip"`` emits ``hipLaunchKernelGGL``.
        fix: also apply the safe wavefront-size rewrites (see :mod:`hipport.warp`).
        resolve_header: see :data:`HeaderResolver`.
        warp_tree: the tree-wide --fix decisions on shared warp-size names (:func:`hipport.warp.warp_tree`).
        mask_names: where the tree's other files define the names ``*_sync`` calls pass as
            masks (:func:`hipport.warp.mask_names`); None: this file's definitions only.
        rename_cu: ``#include "x.cu"`` of a project file follows its rename to ``x.hip``
            (default); False when the ``.cu`` files keep their names (``convert --in-place``).
        sources: the tree's files (:class:`hipport.project_macros.TreeSources`), so that macros
            of the tree headers this file includes count (HP1215, and function specifiers
            written as macros, ``#define HOST_DEVICE __host__ __device__``); None: only this
            file's own macros.

    Returns:
        A :class:`FileAnalysis`; nothing is written.
    """
    ctx = _FileContext(path, source, tree, rules, sources)
    _rewrite_identifiers(ctx)
    headers = _rewrite_includes(ctx, resolve_header, rename_cu) if b"include" in source else set()
    if b"include" in source:
        analyze_toolkit_includes(ctx, resolve_header)
    analyze_vector_macros(ctx, resolve_header)
    if b"<<" in source and _LAUNCH.search(source):
        _rewrite_launches(ctx, launch_syntax)
        analyze_launch_spacing(ctx, launch_syntax)
    if b"asm" in source:
        _report_inline_asm(ctx)
        analyze_macro_asm(ctx)
    if b"main" in source:
        _find_main(ctx)
    analyze_warps(ctx, fix, warp_tree, mask_names)
    ctx.result.cuda_names = collect_cuda_names(ctx)
    analyze_collisions(ctx)
    analyze_device_overloads(ctx)
    analyze_integer_overloads(ctx)
    analyze_min_max(ctx)
    analyze_literal_suffixes(ctx)
    analyze_host_math(ctx)
    analyze_brace_assignments(ctx)
    analyze_classification_macros(ctx, _implicit_include_offset(ctx))
    analyze_cutil(ctx)
    analyze_overloads(ctx)
    analyze_group_members(ctx)
    analyze_cub_block_sizes(ctx)
    analyze_thrust_includes(ctx)
    analyze_device_context(ctx)
    analyze_register_keyword(ctx, fix)
    analyze_syncwarp(ctx, fix)
    analyze_grid_constant(ctx)
    analyze_port_definitions(ctx)
    analyze_surface_calls(ctx, fix)
    analyze_cuda_version_macros(ctx, fix, _implicit_include_offset(ctx))
    analyze_handle_types(ctx, fix)
    rewrite_handle_reinterpret_casts(ctx)
    analyze_group_shuffles(ctx, fix)
    analyze_half_bfloat16(ctx, fix)
    analyze_unported_case_labels(ctx)
    analyze_context_create_params(ctx)
    analyze_struct_member_spellings(ctx)
    analyze_dim3_from_make_uint3(ctx)
    analyze_initialised_vlas(ctx)
    if is_cuda_unit and (not headers & RUNTIME_HEADERS or _tree_header_before_runtime(ctx, resolve_header)):
        _insert_runtime_include(ctx)
        ctx.result.uses_cuda = True
    analyze_interop_includes(ctx)
    if tree.root_node.has_error:
        regions = error_regions(tree)
        ctx.result.parse_error_regions = len(regions)
        if regions:  # has_error can be set with no ERROR/MISSING node to show for it
            ctx.report("parse-error", (regions[0].row, regions[0].column), count=str(len(regions)))
    ctx.result.findings.sort(key=Finding.sort_key)
    return ctx.result
