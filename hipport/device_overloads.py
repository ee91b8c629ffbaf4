"""A program's own definition of a device function HIP already defines (HP2040).

CUDA lacks some overloads that programs then define themselves: ``__device__ double
atomicMax(double *, double)`` (a CAS loop), ``float atomicMin(float *, float)``. HIP 6.4.3 defines
those (hip/amd_detail/amd_hip_atomic.h: ``atomicMin(float*, float)`` line 611, ``atomicMax(double*,
double)`` line 903), so the port holds two definitions of one function and clang stops with
"redefinition of 'atomicMax'". A ``__device__`` or ``__host__ __device__`` definition at global scope,
not a template, whose name and parameter types (after hipport's renames, typedefs resolved:
``half2`` is ``__half2``, ``uint64_t`` is ``unsigned long``) equal those of a function HIP's headers
define is kept for NVIDIA only: wrapped in ``#if !defined(__HIP_PLATFORM_AMD__)`` ... ``#endif``, with
an info finding naming HIP's definition. On AMD the calls then use HIP's function (the same
operation: the name says what it does).

The facts are ``rules/hip_headers/device_overloads.yaml``, written by
``tools/hip_device_overloads.py`` from HIP 6.4.3's headers (libclang). A host-only definition is
left alone: CUDA and HIP allow a ``__host__`` and a ``__device__`` function of one signature.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import tree_sitter

from .collisions import outermost_definitions, _function_declarator, _line_end, _line_start, _newline, _parameter_type, _parameters
from .device_context import function_kind
from .edits import Edit
from .resources import data_dir, load_yaml_file
from .rules import RuleError

DEVICE_OVERLOADS_FILE = Path("hip_headers") / "device_overloads.yaml"
_GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)  // hipport: HIP defines this function (HP2040)"
_DROPPED = frozenset({"__restrict__", "__restrict", "restrict", "struct", "class", "union", "enum"})
_INTEGER_WORDS = frozenset({"signed", "unsigned", "short", "long", "int", "char"})
_TOKENS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*<[^<>]*>)?|[*&]|\S")
_SCOPE_NODES = frozenset({"namespace_definition", "class_specifier", "struct_specifier", "union_specifier",
                          "template_declaration", "compound_statement"})


@lru_cache(maxsize=1)
def device_overloads() -> tuple[dict[str, str], dict[str, dict[tuple[str, ...], str]]]:
    """(typedef name -> canonical spelling, function name -> {normalized parameter types ->
    ``header:line`` of HIP's definition}) from ``rules/hip_headers/device_overloads.yaml``.

    Kept between processes in the rule-table cache (:mod:`hipport.rulecache`, keyed by the file's
    bytes): parsing the YAML took about 0.1 CPU s of every run.

    Raises:
        RuleError: the file lacks the ``typedefs:`` or ``device_overloads:`` mapping its
            generator writes.
    """
    from .rulecache import cached_table

    path = data_dir("rules") / DEVICE_OVERLOADS_FILE
    return cached_table("device-overloads", [path], lambda: _load_device_overloads(path), tuple)


def _load_device_overloads(path: Path) -> tuple[dict[str, str], dict[str, dict[tuple[str, ...], str]]]:
    """The table :func:`device_overloads` describes, read from ``path``; raises as it."""
    data = load_yaml_file(path)
    if not (isinstance(data, dict) and isinstance(data.get("typedefs"), dict)
            and isinstance(data.get("device_overloads"), dict)):
        raise RuleError(path, 1, "expected 'typedefs:' and 'device_overloads:' mappings "
                                 "(tools/hip_device_overloads.py writes this file)")
    typedefs = {str(k): str(v) for k, v in data["typedefs"].items()}
    functions: dict[str, dict[tuple[str, ...], str]] = {}
    for name, entries in data["device_overloads"].items():
        for entry in entries:
            key = tuple(normalized_type(p, typedefs) for p in entry["params"])
            functions.setdefault(str(name), {}).setdefault(key, str(entry["at"]))
    return typedefs, functions


def _integer(words: list[str]) -> str | None:
    """The canonical spelling of a builtin integer type's words (``long unsigned int`` ->
    ``unsigned long``), or None when they are not one."""
    if not words or any(w not in _INTEGER_WORDS for w in words):
        return None
    unsigned = "unsigned" in words
    longs = words.count("long")
    if "char" in words:
        return "unsigned char" if unsigned else "signed char" if "signed" in words else "char"
    size = "short" if "short" in words else "long long" if longs >= 2 else "long" if longs == 1 else "int"
    return f"unsigned {size}" if unsigned else size


def normalized_type(text: str, typedefs: dict[str, str], depth: int = 0) -> str:
    """A parameter type in one spelling for comparison: typedef names replaced by their canonical
    types (``typedefs``: name -> spelling, at most 8 levels), integer words in clang's order,
    ``const``/``volatile`` of the pointee before the base, top-level ``const`` dropped, no blanks
    (``uint64_t const *`` -> ``constunsignedlong*``; ``half2`` -> ``__half2``)."""
    tokens = [t for t in _TOKENS.findall(text) if t not in _DROPPED]
    split = next((i for i, t in enumerate(tokens) if t in ("*", "&")), len(tokens))
    base, tail = tokens[:split], tokens[split:]
    while tail and tail[-1] == "const":
        tail.pop()  # top-level const of a pointer
    qualifiers = [q for q in ("const", "volatile") if q in base]
    words = [w for w in base if w not in ("const", "volatile")]
    if not tail and "const" in qualifiers:
        qualifiers.remove("const")  # top-level const of a value
    spelled = _integer(words)
    if spelled is None:
        spelled = " ".join(words)
        if len(words) == 1 and words[0] in typedefs and depth < 8:
            inner = normalized_type(typedefs[words[0]], typedefs, depth + 1)
            return "".join(qualifiers) + inner + "".join(tail)
    return "".join(qualifiers) + re.sub(r"\s+", "", spelled) + "".join(tail)


def _at_global_scope(definition: tree_sitter.Node) -> bool:
    parent = definition.parent
    while parent is not None:
        if parent.type in _SCOPE_NODES:
            return False
        parent = parent.parent
    return True


def analyze_device_overloads(ctx) -> None:
    """Keep for NVIDIA only (HP2040) each device function definition of ``ctx``'s file that HIP's
    headers define with the same name and parameter types (module docstring).

    Args:
        ctx: the analysis context of :mod:`hipport.analyze` (``source``, ``root``, ``rules``,
            ``report``, ``result.edits``, ``specifier_macros``).
    """
    source = ctx.source
    if b"(" not in source:
        return
    typedefs, functions = device_overloads()
    newline = _newline(source)
    for node in outermost_definitions(ctx):
        declarator = _function_declarator(node)
        name_node = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name_node is None or name_node.type != "identifier":
            continue
        name = ctx.text(name_node).decode("utf-8", "replace")
        if (mapping := ctx.rules.identifiers.get(name)) is not None:
            name = ctx.rules.target(mapping)[0] or name
        overloads = functions.get(name)
        if not overloads or not _at_global_scope(node) or function_kind(ctx, node) not in (
                "__device__", "__host__ __device__"):
            continue
        key = tuple(normalized_type(_parameter_type(ctx, p, True), typedefs) for p in _parameters(declarator))
        if key == ("void",):
            key = ()
        at = overloads.get(key)
        if at is None:
            continue
        start = _line_start(source, node.start_byte)
        params = ", ".join(_parameter_type(ctx, p, True) for p in _parameters(declarator)) or "void"
        if start is None:
            ctx.report("hip-defines-overload", node, name=name, params=params, at=at,
                       action="not guarded (the definition does not start its line): remove it for AMD by hand")
            continue
        ctx.result.edits.append(Edit(start, start, _GUARD + newline))
        end = _line_end(source, node.end_byte - 1)
        tail = b"" if source[end - 1:end] == b"\n" else newline
        ctx.result.edits.append(Edit(end, end, tail + b"#endif" + newline))
        ctx.report("hip-defines-overload", node, name=name, params=params, at=at,
                   action="this definition is kept for NVIDIA only (#if !defined(__HIP_PLATFORM_AMD__))")
