"""Host runtime API calls in device code (HP1211, HP1212).

CUDA has a device-side runtime: with ``-rdc=true`` and ``cudadevrt``, kernels may call
``cudaMalloc``, ``cudaFree``, ``cudaMemcpyAsync``, ``cudaMemsetAsync``, ``cudaGetLastError``,
``cudaGetDevice``... (CUDA 12.4's ``cuda_device_runtime_api.h`` declares them
``extern __device__ __cudart_builtin__``: :data:`CUDA_DEVICE_RUNTIME`). HIP has no such runtime:
HIP 6.4.3's ``hip/hip_runtime.h`` declares every ``hip*`` runtime function host-only (checked
with clang-19's AST of that header for gfx90a: of the 474 ``hip*`` functions it declares, none
carries ``__device__``), so a ported call in device code does not compile: "no matching
function for call to 'hipMalloc'" in a ``__device__`` or ``__global__`` function, "reference to
__host__ function 'hipFree' in __host__ __device__ function" in a ``__host__ __device__`` one.

Where the call sits decides the finding (clang-19 for gfx90a, tested; ``tests/test_device_context.py``):

* ``__global__`` and ``__device__`` functions, ``__device__`` lambdas and lambdas without
  attributes inside them (which take their enclosing function's side): always an error (HP1211);
* ``__host__ __device__`` functions that clang always emits for the GPU (non-inline, non-static,
  non-template, not in a class body or anonymous namespace): an error too (HP1211);
* other ``__host__ __device__`` functions (inline, ``__forceinline__``, ``static``, ``constexpr``,
  templates, member functions defined in their class, anonymous namespaces) and
  ``__host__ __device__`` lambdas: clang defers the diagnostic, which becomes an error only where
  device code calls the function (HP1212, a warning).

A function's specifiers may be written as macros: ``#define HOST_DEVICE __host__ __device__``,
``#define KERNEL __global__``, ``#define FORCEINLINE __forceinline__ __device__``, in the file or
in a tree header it includes (object-like macros, expanded through other macros; where ``#if``
branches define one differently, the definitions a CUDA compile reads:
:func:`hipport.project_macros.specifier_macros`). :func:`function_kind` is the one place that
decides it, for this check and for the wavefront analysis (:mod:`hipport.warp`).

A call inside ``#ifndef __HIP_DEVICE_COMPILE__`` (or ``#if !defined(__HIP_DEVICE_COMPILE__)``,
or the ``#else`` of ``#ifdef __HIP_DEVICE_COMPILE__``) is host code and is not reported;
``__CUDA_ARCH__`` guards do not protect a port (HIP does not define that macro; HP1209 reports it).
The runtime calls that need dynamic parallelism (``cudaDeviceSynchronize``, ``cudaLaunchDevice``...)
are HP1202's (:data:`hipport.analyze._HOST_ONLY_CALLS`) and are not reported twice; names HIP
lacks altogether are HP2001's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tree_sitter

from .alternation import WORD_BYTES, WORD_OR_DOLLAR_BYTES, word_matches

if TYPE_CHECKING:
    from .analyze import _FileContext

#: Mapping families whose functions are host API calls (HIP runtime and driver API).
HOST_API_FAMILIES = frozenset({"cuda_runtime", "cuda_driver"})

#: The functions CUDA 12.4 offers in device code (device runtime; -rdc=true and cudadevrt):
#: the ``extern __device__ __cudart_builtin__`` declarations of cuda_device_runtime_api.h
#: (CUDA 12.4.127, lines 191-232 and 695-726), less the internal ``cudaCG*`` ones.
CUDA_DEVICE_RUNTIME = frozenset({
    "cudaDeviceGetAttribute", "cudaDeviceGetCacheConfig", "cudaDeviceGetLimit", "cudaDeviceGetSharedMemConfig",
    "cudaDeviceSynchronize", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventRecord",
    "cudaEventRecordWithFlags", "cudaFree", "cudaFuncGetAttributes", "cudaGetCurrentGraphExec", "cudaGetDevice",
    "cudaGetDeviceCount", "cudaGetErrorName", "cudaGetErrorString", "cudaGetLastError", "cudaGetParameterBuffer",
    "cudaGetParameterBufferV2", "cudaGraphKernelNodeSetEnabled", "cudaGraphKernelNodeSetGridDim",
    "cudaGraphKernelNodeSetParam", "cudaGraphKernelNodeUpdatesApply", "cudaGraphLaunch", "cudaGraphSetConditional",
    "cudaGridDependencySynchronize", "cudaLaunchDevice", "cudaLaunchDeviceV2", "cudaMalloc", "cudaMemcpy2DAsync",
    "cudaMemcpy3DAsync", "cudaMemcpyAsync", "cudaMemset2DAsync", "cudaMemset3DAsync", "cudaMemsetAsync",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaPeekAtLastError", "cudaRuntimeGetVersion", "cudaStreamCreateWithFlags", "cudaStreamDestroy",
    "cudaStreamWaitEvent", "cudaTriggerProgrammaticLaunchCompletion",
})

#: Scanned with :func:`hipport.alternation.word_matches` (whole words, faster than a leading look-behind).
_SPECIFIER = re.compile(rb"(?:__device__|__global__)(?![A-Za-z0-9_])")
_DEFERRING_WORDS = re.compile(rb"(?<![A-Za-z0-9_])(?:inline|__forceinline__|static|constexpr|consteval)(?![A-Za-z0-9_])")
_HOST_ONLY_GUARD = re.compile(
    rb"^#\s*(?:ifndef\s+__HIP_DEVICE_COMPILE__\b|(?:el)?if\s+!\s*(?:defined\s*\(?\s*)?__HIP_DEVICE_COMPILE__\b)")
_DEVICE_GUARD = re.compile(rb"^#\s*(?:ifdef\s+__HIP_DEVICE_COMPILE__\b|if\s+(?:defined\s*\(?\s*)?__HIP_DEVICE_COMPILE__\b)")


@dataclass(frozen=True, slots=True)
class DeviceCode:
    """Where a node runs: inside the function or lambda ``function`` (its name, or
    ``lambda in NAME``), whose specifiers make it ``kind`` ``"__global__"``, ``"__device__"`` or
    ``"__host__ __device__"``; ``deferred`` is True when clang compiles the body for the GPU only
    where device code calls it (see the module docstring)."""

    function: str
    kind: str
    deferred: bool


def _declarator_name(ctx: "_FileContext", definition: tree_sitter.Node) -> str:
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.child_by_field_name("declarator") is not None:
        declarator = declarator.child_by_field_name("declarator")
    return ctx.text(declarator).decode("utf-8", "replace") if declarator is not None else "?"


def _function_kind(head: bytes) -> str | None:
    if b"__global__" in head:
        return "__global__"
    if b"__device__" in head:
        return "__host__ __device__" if b"__host__" in head else "__device__"
    return None


def _head(ctx: "_FileContext", definition: tree_sitter.Node) -> bytes:
    """The specifiers of a function definition (its text before the declarator), with the
    specifier macros the file sees expanded (:attr:`hipport.analyze._FileContext.specifier_macros`:
    ``HOST_DEVICE`` -> ``__host__ __device__``)."""
    declarator = definition.child_by_field_name("declarator")
    head = ctx.source[definition.start_byte:declarator.start_byte if declarator is not None else definition.start_byte]
    before = definition.prev_sibling
    if before is not None and before.type == "ERROR" and not ctx.source[before.end_byte:definition.start_byte].strip():
        # a macro call with no semicolon before it (DEFINE_LEAD(int) then __global__ void k(...)):
        # the parser leaves the call and the specifiers after it in an ERROR node
        error = ctx.source[before.start_byte:before.end_byte]
        cut = max(error.rfind(b")"), error.rfind(b";"), error.rfind(b"}"))
        head = error[cut + 1:] + b" " + head
    return ctx.specifier_macros.expand(head)


def function_kind(ctx: "_FileContext", definition: tree_sitter.Node) -> str | None:
    """Where the function ``definition`` (a ``function_definition`` node) runs, by its
    specifiers: ``"__global__"``, ``"__device__"``, ``"__host__ __device__"``, or None for a
    host function.

    Args:
        ctx: the file's context; anything with ``source`` (bytes) and ``specifier_macros``
            (:class:`hipport.project_macros.SpecifierMacros`) will do, as the wavefront pass's
            tree context.
        definition: a tree-sitter ``function_definition`` node of ``ctx.source``.

    Specifiers are CUDA's words written in the definition or macros that expand to them, defined
    in the file or in the tree headers it includes (``#define DEVICE __device__``,
    ``#define HOST_DEVICE __host__ __device__``, ``#define KERNEL __global__``), as
    :func:`hipport.project_macros.specifier_macros` resolves them.
    """
    return _function_kind(_head(ctx, definition))


def _always_emitted(ctx: "_FileContext", definition: tree_sitter.Node, head: bytes) -> bool:
    """A ``__host__ __device__`` function clang compiles for the GPU whether or not device code
    calls it: external linkage, not inline (explicitly or as a member defined in its class), not a
    template."""
    if _DEFERRING_WORDS.search(head):
        return False
    parent = definition.parent
    while parent is not None:
        if parent.type in ("template_declaration", "field_declaration_list", "lambda_expression"):
            return False
        if parent.type == "namespace_definition" and parent.child_by_field_name("name") is None:
            return False
        parent = parent.parent
    return True


def device_code(ctx: "_FileContext", node: tree_sitter.Node) -> DeviceCode | None:
    """The device function or lambda whose body holds ``node``, or None in host code.

    Walks up to the nearest ``function_definition`` or ``lambda_expression``; a lambda with no
    ``__device__``/``__host__`` of its own takes the side of the function around it (as clang
    does). Specifiers written as macros count (:func:`function_kind`).
    """
    inherited = False  # inside a lambda without attributes of its own
    current = node.parent
    while current is not None:
        if current.type == "lambda_expression":
            body = current.child_by_field_name("body")
            capture = current.child_by_field_name("captures")
            head = ctx.specifier_macros.expand(ctx.source[capture.end_byte if capture is not None else current.start_byte:
                                                          body.start_byte if body is not None else current.end_byte])
            kind = _function_kind(head)
            if kind is not None:
                return DeviceCode(f"lambda in {_enclosing_name(ctx, current)}", kind, kind == "__host__ __device__")
            if b"__host__" in head:
                return None
            inherited = True
        elif current.type == "function_definition":
            head = _head(ctx, current)
            kind = _function_kind(head)
            if kind is None:
                return None
            name = _declarator_name(ctx, current)
            if inherited:
                return DeviceCode(f"lambda in {name}", kind, kind == "__host__ __device__")
            return DeviceCode(name, kind, kind == "__host__ __device__" and not _always_emitted(ctx, current, head))
        current = current.parent
    return None


def _enclosing_name(ctx: "_FileContext", node: tree_sitter.Node) -> str:
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    return _declarator_name(ctx, current) if current is not None else "file scope"


def _host_only_branch(ctx: "_FileContext", node: tree_sitter.Node, stop: tree_sitter.Node | None) -> bool:
    """True when ``node`` lies in a preprocessor branch that HIP's device compilation skips
    (``#ifndef __HIP_DEVICE_COMPILE__``, or the ``#else`` of ``#ifdef __HIP_DEVICE_COMPILE__``)."""
    current, child = node.parent, node
    while current is not None and current is not stop:
        if current.type in ("preproc_ifdef", "preproc_if", "preproc_elif"):
            alternative = current.child_by_field_name("alternative")
            in_alternative = alternative is not None and alternative.start_byte <= child.start_byte < alternative.end_byte
            line = ctx.text(current).split(b"\n", 1)[0]
            line = b" ".join(line.split()).replace(b"# ", b"#")
            if not in_alternative and _HOST_ONLY_GUARD.match(line):
                return True
            if in_alternative and alternative.type == "preproc_else" and _DEVICE_GUARD.match(line):
                return True
        current, child = current.parent, current
    return False


def _specifier_pattern(ctx: "_FileContext") -> tuple[re.Pattern, frozenset[int]] | None:
    """``__device__``, ``__global__`` and the macros of the file that expand to them, as a
    pattern and the bytes that may not precede a match (whole words:
    :func:`hipport.alternation.word_matches`); None when the file has none of them."""
    names = sorted(ctx.specifier_macros.device_names)
    words = [b"__device__", b"__global__"] + [re.escape(name) for name in names]
    if not names:
        return (_SPECIFIER, WORD_BYTES) if b"__device__" in ctx.source or b"__global__" in ctx.source else None
    if not any(word in ctx.source for word in (b"__device__", b"__global__", *names)):
        return None
    return re.compile(rb"(?:" + b"|".join(words) + rb")(?![A-Za-z0-9_$])"), WORD_OR_DOLLAR_BYTES


def _device_bodies(ctx: "_FileContext", pattern: tuple[re.Pattern, frozenset[int]]) -> list[tuple[int, int]]:
    """Byte ranges of the bodies of functions and lambdas written with ``__device__`` or
    ``__global__`` (or a macro for them, ``pattern``: :func:`_specifier_pattern`) in their
    specifiers, outermost only, in source order."""
    ranges: list[tuple[int, int]] = []
    for match in word_matches(pattern[0], ctx.source, pattern[1]):
        owner = ctx.node_at(match.start(), match.end()).parent
        while owner is not None and owner.type not in ("function_definition", "lambda_expression"):
            if owner.type in ("compound_statement", "translation_unit", "field_declaration_list", "declaration_list",
                              "parameter_list", "argument_list"):
                owner = None
                break
            owner = owner.parent
        if owner is None:
            continue
        body = owner.child_by_field_name("body")
        if body is None or body.start_byte < match.end():
            continue
        if owner.type == "function_definition":
            declarator = owner.child_by_field_name("declarator")
            if declarator is not None and declarator.start_byte < match.end():
                continue  # in the parameters or after them, not a specifier
        if ranges and ranges[-1][0] <= body.start_byte < ranges[-1][1]:
            continue
        ranges.append((body.start_byte, body.end_byte))
    return ranges


def _advice(name: str) -> str:
    lowered = name.lower()
    if "malloc" in lowered or name in ("cudaFree", "cuMemFree", "cuMemFree_v2"):
        return ("allocate on the host (hipMalloc before the launch) and pass the pointer to the kernel, "
                "or use device-side malloc/free, which HIP provides on the GPU heap")
    if "memcpy" in lowered or "memset" in lowered:
        return "copy with memcpy/memset (or a loop over the elements) in device code, or do it on the host around the launch"
    if "error" in lowered:
        return "check errors on the host, after the launch (hipGetLastError/hipPeekAtLastError there)"
    return "call it on the host and pass the result to the kernel as an argument"


def analyze_device_context(ctx: "_FileContext") -> None:
    """Report host API calls (runtime and driver families) inside device code of one file.

    Args:
        ctx: the analysis context of the file (:class:`hipport.analyze._FileContext`); findings
            are appended to ``ctx.result.findings``. Nothing is edited: the call is still renamed.
    """
    pattern = _specifier_pattern(ctx)
    if pattern is None:
        return
    from .analyze import _HOST_ONLY_CALLS, _WORD_BYTES, _qualified_by_a_scope
    table = ctx.rules.identifier_edits
    source = ctx.source
    for begin, end in _device_bodies(ctx, pattern):
        for match in ctx.rules.candidate_pattern.finditer(source, begin, end):
            entry = table.get(match.group())
            if entry is None or entry[0] is None:
                continue
            mapping = entry[0]
            start, stop = match.span()
            if (mapping.family not in HOST_API_FAMILIES or mapping.kind != "function"
                    or mapping.cuda in _HOST_ONLY_CALLS or ctx.rules.target(mapping)[0] is None):
                continue
            if source[stop:stop + 1] in _WORD_BYTES or (start and source[start - 1:start] in _WORD_BYTES):
                continue  # part of a longer name
            node = ctx.node_at(start, stop)
            if node.type != "identifier" or (node.start_byte, node.end_byte) != (start, stop) or _qualified_by_a_scope(node):
                continue
            where = device_code(ctx, node)
            if where is None or _host_only_branch(ctx, node, None):
                continue
            hip = ctx.rules.target(mapping)[0]
            origin = ("CUDA offers it in device code through its device runtime, -rdc=true with cudadevrt"
                      if mapping.cuda in CUDA_DEVICE_RUNTIME else "it is host-only in CUDA too")
            ctx.report("host-api-in-host-device-code" if where.deferred else "host-api-in-device-code", node,
                       name=mapping.cuda, hip=hip, function=where.function, kind=where.kind, origin=origin,
                       advice=_advice(mapping.cuda))
