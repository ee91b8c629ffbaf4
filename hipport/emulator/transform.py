"""Source transform that lets a host C++ compiler build a HIP program for the emulator.

g++ and clang++ (host mode) do not parse ``kernel<<<grid, block, shmem, stream>>>(args)``, and a
static ``__shared__`` variable must exist once per block, not once per program. This module
rewrites, with hipport's tree-sitter parse (:mod:`hipport.parse`), only the bytes concerned:

- a kernel launch becomes ``::hipemu::launch(::hipemu::LaunchConfig(grid, block, shmem, stream),
  [&](auto... hipemu_a) { kernel(hipemu_a...); }, args)`` (arguments evaluated once, passed by
  value as a launch passes them; the generic lambda lets a kernel template deduce its arguments);
- ``__shared__ T name[N];`` inside a function becomes ``auto& name =
  ::hipemu::shared_var<T [N]>(tag);``, a reference into storage of the running block (``tag`` is
  the address of a static local of a lambda, one per declaration and template instantiation);
  ``extern __shared__ T name[];`` becomes a reference to the block's dynamic shared memory;
- ``hipLaunchCooperativeKernel(reinterpret_cast<void*>(k), ...)`` and ``hipLaunchKernel`` become
  calls that keep the kernel's type, so the ``void**`` arguments can be unpacked;
- after a non-template ``__global__`` function with static ``__shared__`` arrays, a registration of
  their size (what ``hipFuncGetAttributes`` reports as ``sharedSizeBytes``).

It also collects what the emulator cannot build (:class:`Refusal`): a launch or ``__shared__``
declaration inside a macro, HIP runtime names the emulator's headers do not declare, device
functions it does not offer, and library headers (hipBLAS, hipRAND, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..edits import Edit, apply_edits
from ..parse import macro_body_non_code, new_parser
from ..project_macros import condition_value
from ..warp32 import with_call_sites

INCLUDE_DIR = Path(__file__).parent / "include"

# Headers under hip/ that the emulator provides.
PROVIDED_HEADERS = frozenset({"hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_cooperative_groups.h"})

# Library header prefixes -> the library named in the refusal.
LIBRARY_HEADERS = {
    "hipblas": "hipBLAS", "hipblaslt": "hipBLASLt", "rocblas": "rocBLAS", "hiprand": "hipRAND",
    "rocrand": "rocRAND", "hipfft": "hipFFT", "rocfft": "rocFFT", "hipsparse": "hipSPARSE",
    "rocsparse": "rocSPARSE", "hipsolver": "hipSOLVER", "rocsolver": "rocSOLVER", "hipcub": "hipCUB",
    "rocprim": "rocPRIM", "thrust": "Thrust", "rocthrust": "rocThrust", "miopen": "MIOpen",
    "rccl": "RCCL", "hiprtc": "hipRTC", "roctracer": "rocTracer", "roctx": "rocTX",
}

# Device functions HIP has and the emulator does not (the build stops, naming them).
UNSUPPORTED_DEVICE = {
    **{name: "texture fetch" for name in (
        "tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex1DLayered", "tex2DLayered", "texCubemap",
        "tex2DGather", "tex1DLod", "tex2DLod", "tex3DLod")},
    **{name: "surface access" for name in (
        "surf1Dread", "surf2Dread", "surf3Dread", "surf1Dwrite", "surf2Dwrite", "surf3Dwrite")},
    **{name: "wavefront match" for name in ("__match_any", "__match_all", "__match_any_sync", "__match_all_sync",
                                            "hipport_warp32_match_any_sync", "hipport_warp32_match_all_sync")},
    **{name: "wavefront reduction" for name in (
        "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
        "__reduce_or_sync", "__reduce_xor_sync")},
    "__syncwarp": "not declared by HIP 6.4 either",
    "__shfl_sync_generic": "wavefront shuffle of a struct",
    "__fns64": "lane search", "__fns32": "lane search",
    "coalesced_threads": "coalesced groups", "coalesced_group": "coalesced groups",
    "multi_grid_group": "multi-device groups", "this_multi_grid": "multi-device groups",
    "binary_partition": "coalesced groups",
}

# HIP calls the transform rewrites into calls of the emulator's own functions.
REWRITTEN_CALLS = frozenset({"hipLaunchCooperativeKernel", "hipLaunchKernel"})

SOURCE_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".c")
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".hxx", ".cuh", ".inl", ".inc", ".tpp")

_HIP_NAME = re.compile(rb"\b(?:hip[A-Z]\w*|HIP_\w+)")
_IDENT = re.compile(rb"[A-Za-z_]\w*")
_ALIGN = re.compile(rb"__align__\s*\(\s*[^()]*\)")
_CAST = re.compile(r"^\s*(?:reinterpret_cast\s*<[^<>]*>|static_cast\s*<[^<>]*>|\(\s*(?:const\s+)?void\s*\*\s*\))\s*")


@dataclass(frozen=True)
class Refusal:
    """Something the emulator cannot build: 1-based ``line`` in ``path``, and what it is."""

    path: str
    line: int
    message: str
    name: str = ""  # the API named, when a definition of that name in the program itself lifts it

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@lru_cache(maxsize=1)
def supported_names() -> frozenset[str]:
    """The HIP runtime names (``hip*``, ``HIP_*``) the emulator's headers declare, from their code."""
    names: set[str] = set()
    for header in INCLUDE_DIR.rglob("*.h"):
        text = header.read_bytes()
        text = re.sub(rb"/\*.*?\*/", b"", text, flags=re.DOTALL)
        text = re.sub(rb"//[^\n]*", b"", text)
        text = re.sub(rb'"(?:\\.|[^"\\\n])*"', b'""', text)
        names.update(match.group().decode() for match in _HIP_NAME.finditer(text))
    return frozenset(names | REWRITTEN_CALLS)


def _line(node) -> int:
    return node.start_point[0] + 1


def _inside_function(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("compound_statement", "lambda_expression"):
            return True
        parent = parent.parent
    return False


def _has_template_ancestor(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "template_declaration":
            return True
        parent = parent.parent
    return False


def _declarator_name(node):
    """The identifier a declarator declares (the innermost ``identifier`` on its declarator path)."""
    while node is not None and node.type != "identifier":
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator") or c.type == "identifier"),
                         None)
        node = inner
    return node


class _Rewriter:
    def __init__(self, path: str, source: bytes):
        self.path = path
        self.source = source
        self.edits: list[Edit] = []
        self.refusals: list[Refusal] = []
        self.kernels_shared: list[tuple[object, list[bytes]]] = []  # (function node, shared types)
        self.defined: set[str] = set()  # names the file defines (macros, functions, types, variables)

    def text(self, node) -> bytes:
        return self.source[node.start_byte:node.end_byte]

    def refuse(self, node_or_line, message: str, name: str = "") -> None:
        line = node_or_line if isinstance(node_or_line, int) else _line(node_or_line)
        self.refusals.append(Refusal(self.path, line, message, name))

    def define(self, node) -> None:
        """Note the name a definition or declaration introduces (a user's own ``HIP_CHECK``)."""
        kind = node.type
        target = None
        if kind in ("preproc_def", "preproc_function_def", "struct_specifier", "class_specifier",
                    "enum_specifier", "union_specifier", "alias_declaration", "enumerator",
                    "namespace_definition"):
            target = node.child_by_field_name("name")
        elif kind in ("function_declarator", "type_definition", "init_declarator", "array_declarator",
                      "pointer_declarator", "reference_declarator"):
            target = _declarator_name(node.child_by_field_name("declarator"))
        elif kind in ("declaration", "field_declaration", "parameter_declaration"):
            for child in node.children:
                if child.type in ("identifier", "field_identifier"):
                    self.defined.add(self.text(child).decode(errors="replace"))
        if target is not None and target.type in ("identifier", "type_identifier", "field_identifier"):
            self.defined.add(self.text(target).decode(errors="replace"))

    # -- kernel launches --
    def launch(self, node) -> None:
        function = node.child_by_field_name("function") or node.children[0]
        config = next(c for c in node.children if c.type == "kernel_call_syntax")
        arguments = node.child_by_field_name("arguments") or node.children[-1]
        parts = [self.text(c) for c in config.named_children if c.type != "comment"]
        if not 2 <= len(parts) <= 4:
            self.refuse(node, f"kernel launch with {len(parts)} configuration values (2 to 4 expected)")
            return
        args = self.text(arguments)[1:-1]
        kernel = self.text(function)
        text = (b"::hipemu::launch(::hipemu::LaunchConfig(" + b", ".join(parts) + b"), "
                b"[&](auto... hipemu_a) { " + kernel + b"(hipemu_a...); }" + (b", " + args if args.strip() else b"")
                + b")")
        self.edits.append(Edit(node.start_byte, node.end_byte, text))

    def packed_launch(self, node, target: bytes) -> None:
        arguments = node.child_by_field_name("arguments")
        values = [c for c in arguments.named_children if c.type != "comment"] if arguments else []
        if not values:
            return
        first = self.text(values[0]).decode(errors="replace")
        stripped = first
        while True:
            match = _CAST.match(stripped)
            if not match:
                break
            stripped = stripped[match.end():].strip()
            if stripped.startswith("(") and stripped.endswith(")"):
                stripped = stripped[1:-1].strip()
        stripped = stripped.lstrip("&").strip()
        if not re.fullmatch(r"[A-Za-z_][\w:]*(?:<[^;{}]*>)?", stripped):
            self.refuse(node, f"{self.text(node.child_by_field_name('function')).decode()}: the kernel must be named "
                              f"directly (got `{first}`)")
            return
        function = node.child_by_field_name("function")
        self.edits.append(Edit(function.start_byte, function.end_byte, target))
        self.edits.append(Edit(values[0].start_byte, values[0].end_byte, stripped.encode()))

    # -- __shared__ --
    def shared(self, node) -> None:
        if not _inside_function(node):
            return  # the header's __shared__ macro stops the build there, with a message
        storage = [c for c in node.children if c.type == "storage_class_specifier"]
        is_extern = any(self.text(c) == b"extern" for c in storage)
        declarators = [c for c in node.children if c.type in (
            "identifier", "array_declarator", "pointer_declarator", "reference_declarator",
            "parenthesized_declarator", "init_declarator", "function_declarator")]
        type_parts = [self.text(c) for c in node.children
                      if c not in declarators and c.type not in ("storage_class_specifier", ",", ";")
                      and not (c.type == "type_qualifier" and self.text(c) == b"__shared__")]
        base = _ALIGN.sub(b"", b" ".join(type_parts)).strip()
        out: list[bytes] = []
        for declarator in declarators:
            if declarator.type == "init_declarator":
                self.refuse(declarator, "a __shared__ variable with an initializer (HIP does not allow it either)")
                return
            name = _declarator_name(declarator)
            if name is None:
                self.refuse(declarator, "a __shared__ declaration the emulator cannot read")
                return
            full = self.text(declarator)
            offset = name.start_byte - declarator.start_byte
            abstract = full[:offset] + full[offset + (name.end_byte - name.start_byte):]
            type_id = _ALIGN.sub(b"", base + b" " + abstract).strip()
            if is_extern:
                out.append(b"auto& " + self.text(name) + b" = ::hipemu::dynamic_shared<" + type_id + b">();")
            else:
                out.append(b"auto& " + self.text(name) + b" = ::hipemu::shared_var<" + type_id +
                           b">([]() -> const void* { static char hipemu_tag; return &hipemu_tag; }());")
                self.note_kernel_shared(node, type_id)
        self.edits.append(Edit(node.start_byte, node.end_byte, b" ".join(out)))

    def note_kernel_shared(self, node, type_id: bytes) -> None:
        parent = node.parent
        while parent is not None and parent.type != "function_definition":
            parent = parent.parent
        if parent is None or _has_template_ancestor(parent):
            return
        head = self.source[parent.start_byte:parent.child_by_field_name("body").start_byte]
        if b"__global__" not in head:
            return
        for function, types in self.kernels_shared:
            if function == parent:
                types.append(type_id)
                return
        self.kernels_shared.append((parent, [type_id]))

    def register_kernels(self) -> None:
        for function, types in self.kernels_shared:
            name = _declarator_name(function.child_by_field_name("declarator"))
            if name is None:
                continue
            parent = function.parent
            if parent is not None and parent.type not in ("translation_unit", "declaration_list"):
                continue  # e.g. inside a linkage specification block: leave sharedSizeBytes 0
            size = b" + ".join(b"sizeof(" + t + b")" for t in types)
            self.edits.append(Edit(function.end_byte, function.end_byte,
                                   b" static const bool hipemu_shared_" + self.text(name) +
                                   b" = ::hipemu::register_shared(reinterpret_cast<const void*>(&" +
                                   self.text(name) + b"), " + size + b");"))

    # -- what the emulator cannot build --
    def check_names(self, node, text: bytes, offset_line: int, mask=None) -> None:
        supported = supported_names()
        for match in _IDENT.finditer(text):
            if mask and any(a <= match.start() < b for a, b in mask):
                continue
            name = match.group().decode()
            line = offset_line + text.count(b"\n", 0, match.start())
            if _HIP_NAME.fullmatch(match.group()) and name not in supported:
                self.refuse(line, f"{name} is not supported by the hipport emulator", name)
            elif name in UNSUPPORTED_DEVICE:
                self.refuse(line, f"{name} ({UNSUPPORTED_DEVICE[name]}) is not supported by the hipport emulator",
                            name)

    def include(self, node) -> None:
        path_node = node.child_by_field_name("path")
        if path_node is None:
            return
        header = self.text(path_node).decode(errors="replace").strip("<>\"")
        top = header.split("/", 1)[0].lower()
        if header.startswith("hip/") and header not in PROVIDED_HEADERS:
            self.refuse(node, f"#include <{header}> is not provided by the hipport emulator")
        elif top in LIBRARY_HEADERS or top.split(".", 1)[0] in LIBRARY_HEADERS:
            library = LIBRARY_HEADERS.get(top) or LIBRARY_HEADERS[top.split(".", 1)[0]]
            self.refuse(node, f"{library} ({header}) is not supported by the hipport emulator: it runs the HIP "
                              f"runtime and kernels only")


#: Macros the emulator's build never defines (it is no CUDA or NVIDIA compiler) and always defines
#: (hipport.emulator's compiler flags), for :func:`never_compiled`.
_UNDEFINED_HERE = frozenset({"__NVCC__", "__CUDACC__", "__CUDA__", "__CUDA_ARCH__", "__HIP_PLATFORM_NVIDIA__",
                             "__HIP_PLATFORM_NVCC__"})
_DEFINED_HERE = frozenset({"HIPPORT_EMULATOR", "__HIP_PLATFORM_AMD__", "HIP_ENABLE_WARP_SYNC_BUILTINS"})


def _condition_value(text: str, source: bytes) -> bool | None:
    """The value of an ``#if`` condition for the emulator's build (hipport.project_macros'
    evaluator), where the only macros with a known state are those the emulator never or always
    defines; None when it depends on any other macro, or on one the file itself defines or
    undefines."""
    def known(name: str) -> tuple[bool | None, int | None]:
        if name not in _UNDEFINED_HERE and name not in _DEFINED_HERE:
            return None, None
        if re.search(rb"#\s*(?:define|undef)\s+" + re.escape(name.encode()) + rb"\b", source):
            return None, None
        return (True, 1) if name in _DEFINED_HERE else (False, 0)

    return condition_value(re.sub(r"/\*.*?\*/|//.*", " ", text).strip(), known)


def never_compiled(node, source: bytes) -> bool:
    """``node`` (``#if``, ``#ifdef``, ``#ifndef``, ``#elif``) opens a branch the emulator's build
    never compiles: ``#if defined(__NVCC__) || (defined(__CUDA__) && !defined(__HIP__))``,
    ``#ifdef __CUDA_ARCH__``, ``#ifndef HIPPORT_EMULATOR``. What such a branch names is not refused."""
    if node.type == "preproc_ifdef":
        name = node.child_by_field_name("name")
        if name is None:
            return False
        negated = b"".join(source[node.start_byte:name.start_byte].split()).startswith(b"#ifndef")
        value = _condition_value(f"defined({source[name.start_byte:name.end_byte].decode()})", source)
        return value is not None and value == negated
    condition = node.child_by_field_name("condition")
    if condition is None:
        return False
    return _condition_value(source[condition.start_byte:condition.end_byte].decode("utf-8", "replace"), source) is False


def _is_helper_block(node, source: bytes) -> bool:
    """``node`` (a ``preproc_ifdef``) is the ``#ifndef HIPPORT_WARP32_<NAME>`` block of one of
    hipport's logical-warp helpers (:func:`hipport.warp32.helpers_block`)."""
    name = node.child_by_field_name("name")
    return name is not None and source[name.start_byte:name.end_byte].startswith(b"HIPPORT_WARP32_")


def rewrite(path: str, source: bytes) -> tuple[bytes, list[Refusal], set[str]]:
    """Rewrite one source or header for the emulator.

    Args:
        path: the file's name as shown in refusals (relative to the program's root).
        source: its bytes.

    Returns:
        The rewritten bytes, the refusals found, and the names the file defines (a refusal whose
        ``name`` the program defines itself, e.g. its own ``HIP_CHECK`` macro, does not hold).
    """
    source = with_call_sites(source)  # the logical-warp helpers' operations name the user's calls
    parse_source = _ALIGN.sub(lambda m: b" " * len(m.group()), source)
    tree = new_parser().parse(parse_source)
    rewriter = _Rewriter(path, source)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        rewriter.define(node)
        if kind == "call_expression":
            if any(c.type == "kernel_call_syntax" for c in node.children):
                rewriter.launch(node)
                continue
            function = node.child_by_field_name("function")
            name = rewriter.text(function) if function is not None else b""
            if name == b"hipLaunchCooperativeKernel":
                rewriter.packed_launch(node, b"::hipemu::launch_cooperative")
            elif name == b"hipLaunchKernel":
                rewriter.packed_launch(node, b"::hipemu::launch_packed_kernel")
        elif kind == "declaration" and any(c.type == "type_qualifier" and rewriter.text(c) == b"__shared__"
                                           for c in node.children):
            rewriter.shared(node)
            continue
        elif kind == "preproc_ifdef" and _is_helper_block(node, source):
            continue  # hipport's logical-warp helpers: what they call is refused at the user's call of them
        elif kind in ("preproc_if", "preproc_ifdef", "preproc_elif") and never_compiled(node, source):
            alternative = node.child_by_field_name("alternative")
            if alternative is not None:  # the #elif / #else branch may be compiled
                stack.append(alternative)
            continue
        elif kind == "preproc_include":
            rewriter.include(node)
        elif kind == "preproc_arg":
            body = rewriter.text(node)
            rewriter.check_names(node, body, _line(node), macro_body_non_code(body))
            code = bytearray(body)
            for a, b in macro_body_non_code(body):
                code[a:b] = b" " * (b - a)
            if b"<<<" in code:
                rewriter.refuse(node, "a kernel launch inside a macro: the emulator cannot rewrite it "
                                      "(write the launch outside the macro, or use hipLaunchKernelGGL)")
            if re.search(rb"\b__shared__\b", bytes(code)):
                rewriter.refuse(node, "a __shared__ declaration inside a macro: the emulator cannot rewrite it")
            continue
        elif kind in ("identifier", "type_identifier", "field_identifier", "namespace_identifier"):
            rewriter.check_names(node, rewriter.text(node), _line(node))
        stack.extend(reversed(node.children))
    rewriter.register_kernels()
    # Keep every line where it was: __LINE__ and the emulator's messages name the user's lines.
    edits = [Edit(e.start, e.end, e.text + b"\n" * max(0, source.count(b"\n", e.start, e.end) - e.text.count(b"\n")))
             for e in rewriter.edits]
    return apply_edits(source, edits), rewriter.refusals, rewriter.defined
