"""``hipport convert SRC --compat -o OUT``: one source tree for both vendors.

The CUDA sources are kept as written; the conversion pipeline (discover, parse, match rules) runs
as for ``convert``, but instead of applying the renames it collects them, and the emit stage
writes:

* ``hipport_compat.h``: ``#define cudaMalloc hipMalloc`` for exactly the CUDA names the tree
  uses (one line per name, with the CUDA and HIP versions of the rule it comes from), active
  only when the file is compiled for HIP on AMD (see :data:`AMD_HIP_CONDITION`);
* ``hipport_compat/<cuda header>``: a shim of each CUDA header the tree includes, which includes
  its HIP header and the compat header (on the include path of AMD builds only);
* ``CMakeLists.txt`` (when SRC has none) and ``cmake/HipportPlatform.cmake``: the same ``.cu``
  files built with CMake's HIP language on AMD, with HIP's NVIDIA headers on NVIDIA, or with
  plain CUDA (``-DHIPPORT_COMPAT_CUDA=ON``, nvcc and no HIP at all); the compat header is a
  forced include (``-include``), so the sources stay unchanged.

What a name mapping cannot express (a call that the port rewrites beyond a rename, a 32-bit
warp mask HIP refuses, a compiler macro HIP's own headers test) is reported (HP1401, HP1402),
next to every finding ``convert`` makes. ``--fix`` applies only the edits of ``convert --fix``
that stay correct CUDA (``register`` deleted, the wavefront-size rewrites); one that writes
HIP-only code is refused and reported (HP1401, :func:`_refused_lines`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import __version__
from .cmake import (PLATFORM_MODULE, UnitInfo, cmake_listable, included_units, render_cmake, render_platform_module,
                    tree_includes, units_reaching)
from .convert import (ConvertOptions, ConversionResult, _finding, _migrate_build_files, _new_report, _port_all,
                      _tree_prepasses, _write_generated, finish_conversion, tree_sources)
from .discover import build_file_kind, discover
from .edits import apply_edits
from .findings import Finding
from .makefile_facts import read_makefile_facts
from .manifest import KEPT_EDITED, OutputGuard, read_manifest
from .parse import new_parser
from .rules import Mapping, RuleSet, default_rules
from .suppress import filter_and_fingerprint
from .unknown_names import TreeNames
from .warp import WAVE_LANES
from .warp32 import RENAMES

#: The generated header, relative to OUT.
COMPAT_HEADER = "hipport_compat.h"
#: The folder of the CUDA-named shim headers, relative to OUT.
SHIM_DIR = "hipport_compat"
#: When the compat header maps: clang's HIP language defines ``__HIP__`` before any header is
#: read (``-include`` runs first, so ``__HIP_PLATFORM_AMD__``, which HIP's own headers define,
#: is not there yet); a C++ file compiled against HIP for AMD gets ``__HIP_PLATFORM_AMD__`` from
#: ``hip::host``. HIP on NVIDIA is nvcc: neither is defined there, and the CUDA names are
#: CUDA's own (HIP's NVIDIA headers call them), so nothing may be renamed.
AMD_HIP_CONDITION = "defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)"
#: An identifier that exists only with HIP (hipDeviceptr_t, hipblasComplex, HIP_SYMBOL,
#: __hip_bfloat16) or only for AMD GPUs (clang's __builtin_amdgcn_* builtins): an edit that
#: writes one is not CUDA (``__HIP__`` and ``__HIP_PLATFORM_NVIDIA__`` tests are, and hipport's own words).
_HIP_ONLY_NAME = re.compile(rb"\b(?:hip(?!port)[A-Za-z]\w*|HIP_\w+|__hip\w*|__builtin_amdgcn\w*)\b")
_DEFINED_MACRO = re.compile(rb"#\s*define\s+(\w+)")
#: logical-warp helper -> the CUDA intrinsic whose calls it replaces (hipport.warp32.RENAMES)
_CUDA_OF_HELPER = {helper: cuda for cuda, helper in RENAMES.items()}


#: The wrap of rules/calls.yaml that passes a kernel where HIP's C function takes ``const void*``
#: (hipFuncGetAttributes, hipFuncSetCacheConfig, hipFuncSetAttribute, hipLaunchKernel in HIP
#: 6.4.3's hip_runtime_api.h, which has no template overload for them): hipport_compat.h maps
#: such a call to a function that applies this cast to each argument that is a function or a
#: pointer to one, and forwards the others unchanged (:func:`forwarding_lines`).
KERNEL_CAST = "reinterpret_cast<const void*>({})"
#: Findings of ``convert`` that describe an edit of the port which the compat tree does not get.
_PORT_EDIT_CHECKS = {"HP1101": "the port widens the mask to hipport_wave_lanes(), a 64-bit mask; HIP 6.4 refuses a 32-bit mask at compile time",
                     "HP2005": "the port guards this definition with #if !defined(__HIP_PLATFORM_AMD__), as HIP's vector types define it on AMD"}


def _migrates(rel: str) -> bool:
    """True for the build files ``--compat`` migrates: CMake files (``CMakeLists.txt``,
    ``*.cmake``). A Makefile stays as written (it is the tree's plain CUDA build; the generated
    CMakeLists.txt, made from its facts, builds the three ways)."""
    return build_file_kind(rel) not in (None, "make")


@dataclass
class CompatNames:
    """What the tree uses, gathered over its files.

    Attributes:
        names: CUDA name -> (HIP name, file, line) of its first use (files in path order).
        headers: CUDA header -> HIP header.
        forwarded: CUDA calls (of :attr:`names`) the header maps to a forwarding function that
            casts a kernel argument to ``const void*`` (:data:`KERNEL_CAST`).
        by_count: CUDA call -> {argument count: HIP function} of the rules/calls.yaml entries
            that pick another HIP function by argument count (``cudaEventCreate`` with 2 ->
            ``hipEventCreateWithFlags``): the header maps the call to overloads that do the same.
    """

    names: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    forwarded: set[str] = field(default_factory=set)
    by_count: dict[str, dict[int, str]] = field(default_factory=dict)


#: What a header line says for a version the rule data does not record (HIPIFY's tables leave
#: the CUDA "Added" column blank for most names of the first CUDA releases they cover).
UNRECORDED = "(not recorded)"


def _versions(mapping: Mapping | None, rules: RuleSet) -> str:
    """``cuda_runtime; CUDA 11.2, HIP 5.2.0``: the rule's family, the release of CUDA (cuDNN for
    the cuDNN family, the family's ``versions_of``) its name appeared in and the HIP release its
    HIP name appeared in, from the rule's ``cuda_added`` and ``hip_added`` fields (imported from
    HIPIFY's tables, ``tools/import_hipify_tables.py``); :data:`UNRECORDED` where the rule
    records none; ``deprecated in CUDA 12.0`` follows when the rule records ``cuda_deprecated``.
    Empty for a name no rule names."""
    if mapping is None:
        return ""
    family = rules.families.get(mapping.family)
    library = family.versions_of if family is not None else "CUDA"
    versions = mapping.versions
    parts = [f"{library} {versions.get('cuda_added', UNRECORDED)}", f"HIP {versions.get('hip_added', UNRECORDED)}"]
    if "cuda_deprecated" in versions:
        parts.append(f"deprecated in {library} {versions['cuda_deprecated']}")
    return f"{mapping.family}; {', '.join(parts)}"


def mapping_of(rules: RuleSet, name: str) -> Mapping | None:
    """The rule of CUDA identifier or namespace ``name`` (None if no rule names it)."""
    return rules.identifiers.get(name) or rules.namespaces.get(name)


def header_lines(names: CompatNames, rules: RuleSet) -> list[str]:
    """The mapping lines of the compat header, one per CUDA name, sorted by name: ``#define A B``
    (``#define A`` for a name the port deletes), ``namespace cub = hipcub;`` for a namespace."""
    lines = []
    for cuda in sorted(names.names):
        hip = names.names[cuda][0]
        mapping = mapping_of(rules, cuda)
        comment = _versions(mapping, rules)
        if mapping is not None and mapping.kind == "namespace":
            target = mapping.target(rules.target_libs)[0] or hip
            code = f"namespace {cuda} = {target};"
        elif cuda in names.forwarded or cuda in names.by_count:
            code = f"#define {cuda} hipport_{cuda}"
        else:
            code = f"#define {cuda} {hip}".rstrip()
        lines.append(f"{code}  // {comment}" if comment else code)
    return forwarding_lines(names) + lines


def forwarding_lines(names: CompatNames) -> list[str]:
    """The C++ of the forwarding functions (none: []). For ``names.by_count``: a variadic
    ``hipport_<cuda>`` calling the usual HIP function, and one overload per argument count
    calling the HIP function rules/calls.yaml names for it (a non-variadic template is the more
    specialized, so a 2-argument ``cudaEventCreate`` calls ``hipEventCreateWithFlags``). For
    ``names.forwarded``: ``hipport_<cuda>`` passes each argument on to the HIP function, a kernel
    (a function or a pointer to one) cast to ``const void*`` as the port's :data:`KERNEL_CAST`
    does, so ``cudaFuncGetAttributes(&a, kernel)`` compiles unchanged for AMD. C++11
    (``<type_traits>``)."""
    lines = []
    for cuda in sorted(names.by_count):  # the usual HIP function, or the one for this many arguments
        hip = names.names[cuda][0]
        lines.append(f"template <typename... A> inline hipError_t hipport_{cuda}(A&&... args) "
                     f"{{ return {hip}(static_cast<A&&>(args)...); }}")
        for count, twin in sorted(names.by_count[cuda].items()):
            types = ", ".join(f"typename A{i}" for i in range(count))
            params = ", ".join(f"A{i}&& a{i}" for i in range(count))
            args = ", ".join(f"static_cast<A{i}&&>(a{i})" for i in range(count))
            lines.append(f"template <{types}> inline hipError_t hipport_{cuda}({params}) {{ return {twin}({args}); }}")
    if not names.forwarded:
        return lines
    is_kernel = "std::is_function<typename std::remove_pointer<typename std::decay<T>::type>::type>::value"
    lines += [
        "#include <type_traits>",
        "// a kernel passed where HIP's C function takes const void* (CUDA's C++ API takes the kernel itself)",
        f"template <typename T> inline typename std::enable_if<{is_kernel}, const void*>::type",
        "hipport_compat_arg(T&& kernel) { return reinterpret_cast<const void*>(kernel); }",
        f"template <typename T> inline typename std::enable_if<!{is_kernel}, T&&>::type",
        "hipport_compat_arg(T&& value) { return static_cast<T&&>(value); }",
    ]
    for cuda in sorted(names.forwarded):
        hip = names.names[cuda][0]
        lines.append(f"template <typename... A> inline hipError_t hipport_{cuda}(A&&... args) "
                     f"{{ return {hip}(hipport_compat_arg(static_cast<A&&>(args))...); }}")
    return lines


def render_header(names: CompatNames, rules: RuleSet) -> str:
    """The text of ``hipport_compat.h`` (see the module docstring).

    Args:
        names: what the tree uses (:func:`collect`).
        rules: the rules the names were matched with.
    """
    headers = ", ".join(f"{c} -> {h}" for c, h in sorted(names.headers.items())) or "none"
    return "\n".join([
        f"// {COMPAT_HEADER}: written by hipport {__version__} (hipport convert --compat); a new run rewrites it.",
        f"// Maps the {len(names.names)} CUDA names this tree uses to HIP when compiled as HIP for AMD; maps nothing",
        "// under nvcc (CUDA, or HIP on NVIDIA, where the CUDA names are CUDA's own).",
        f"// CUDA headers ({SHIM_DIR}/ on the AMD include path): {headers}",
        "// After each mapping: its rule family, then the CUDA and HIP releases the names appeared in",
        f"// (rules/*.yaml, from HIPIFY's tables; {UNRECORDED}: the rule records no release).",
        "#ifndef HIPPORT_COMPAT_H",
        "#define HIPPORT_COMPAT_H",
        f"#if {AMD_HIP_CONDITION}",
        "#include <hip/hip_runtime.h>",
        *header_lines(names, rules),
        "#elif defined(__HIP_PLATFORM_NVIDIA__)",
        "#include <hip/hip_runtime.h>",
        "#endif",
        "#endif",
        "",
    ])


def render_shim(cuda_header: str, hip_header: str) -> str:
    """The shim ``hipport_compat/<cuda_header>``: an AMD build's ``#include <cuda_runtime.h>``
    finds it, and gets the HIP header and the compat header instead."""
    up = "../" * (cuda_header.count("/") + 1)
    return "\n".join([
        f"// {cuda_header} for HIP on AMD: written by hipport {__version__} (hipport convert --compat).",
        "#pragma once",
        f"#include <{hip_header}>",
        f'#include "{up}{COMPAT_HEADER}"',
        "",
    ])


def _named_finding(rules: RuleSet, check_name: str, path: str, line: int, column: int, name: str, **fields: str) -> Finding:
    check = rules.check(check_name)
    message, fix = check.render(name=name, **fields)
    return Finding(path, line, column, check.id, check.name, check.severity, message, fix, name)


def _compat_findings(ported, rules: RuleSet, names: CompatNames) -> list[Finding]:
    """The findings of one compat file: those of ``convert`` (a port edit it describes becomes
    HP1401), each call the port rewrites beyond a rename (HP1401), each compiler macro the
    header leaves alone (HP1402)."""
    summary = ported.summary
    renamed, _headers, call_rewrites, type_rewrites = ported.compat or ({}, {}, [], [])
    out: list[Finding] = []
    for f in summary.findings:
        if f.rule_id in _PORT_EDIT_CHECKS:
            out.append(_named_finding(rules, "compat-source-edit", f.path, f.line, f.column, name=f.name or "",
                                what=_PORT_EDIT_CHECKS[f.rule_id], fix=f.fix))
        else:
            out.append(f)
    for name, what, line, column in call_rewrites:
        if what.startswith("argument ") and rules.compat_as_written(name):
            continue  # HIP's C++ template takes it as written (hip_template, rules/calls.yaml)
        wraps = [c.wrap for c in rules.calls.get(name, ()) if c.wrap]
        if what.startswith("argument ") and wraps and all(w == KERNEL_CAST for w in wraps) and name in renamed:
            names.forwarded.add(name)  # hipport_compat.h casts the kernel (forwarding_lines)
            continue
        counted = {c.arguments: c.hip for c in rules.calls.get(name, ()) if c.arguments is not None and c.hip}
        if "-argument form becomes " in what and counted and name in renamed and name not in names.forwarded:
            names.by_count.setdefault(name, {}).update(counted)  # overloads in hipport_compat.h
            continue
        fix = "write the call in a form both CUDA and HIP take (the HIP twin's argument types)"
        argument, _, written = what.partition(" becomes ")
        if what.startswith("argument ") and written and not _HIP_ONLY_NAME.search(written.encode()):
            # the casts of rules/calls.yaml (const void* for a kernel, void** for a pointer) are
            # what CUDA 12.4's C functions take too (cuda_runtime_api.h:4700 cudaFuncGetAttributes,
            # :4667 cudaFuncSetCacheConfig, :4737 cudaFuncSetAttribute, :4402 cudaLaunchKernel,
            # :5798 cudaHostGetDevicePointer)
            fix = f"write {argument} as {written}, which CUDA takes too; the call then needs no edit"
        elif "-argument form becomes " in what:
            hip_twin = what.rsplit(" ", 1)[1]
            twins = sorted((m.cuda for m in rules.identifiers.values() if m.hip == hip_twin and m.kind == "function"),
                           key=lambda n: (not n.startswith(name[:4]), n))  # the runtime API's own name first
            twin = twins[0] if twins else None
            if twin is not None:
                fix = f"write {twin}, which CUDA has too and hipport_compat.h maps to {hip_twin}"
        out.append(_named_finding(rules, "compat-source-edit", summary.path, line, column, name=name,
                                  what=f"the port rewrites the call: {what}", fix=fix))
    for name, what, fix, line, column in type_rewrites:
        out.append(_named_finding(rules, "compat-source-edit", summary.path, line, column, name=name, what=what, fix=fix))
    for name, (hip, line, column) in renamed.items():
        mapping = mapping_of(rules, name)
        if mapping is None:
            continue
        if name in rules.compat_kept:  # compat_kept (rules/cuda_macros.yaml)
            out.append(_named_finding(rules, "compat-macro-kept", summary.path, line, column, name=name, hip=hip))
        elif mapping.kind == "namespace" and "::" in name:
            out.append(_named_finding(rules, "compat-source-edit", summary.path, line, column, name=name,
                                what=f"a nested namespace becomes {mapping.target(rules.target_libs)[0]}, which no macro or alias at file scope can express",
                                fix=f"write {mapping.target(rules.target_libs)[0]} under #if defined(__HIP__)"))
        else:
            names.names.setdefault(name, (hip, summary.path, line))
    return sorted(out, key=Finding.sort_key)


def compat_tree(src: Path, out: Path, options: ConvertOptions = ConvertOptions(), rules: RuleSet | None = None,
                progress=None) -> ConversionResult:
    """Write the compat tree of ``src`` into ``out`` (see the module docstring).

    Args:
        src: a CUDA source file or folder (never written to).
        out: the output folder; converting again rewrites the generated files, keeps outputs
            edited by hand (HP0005) and removes stale ones, as :func:`hipport.convert.convert_tree`.
        options: as for ``convert``; ``launch_syntax`` is ignored (launches stay as written),
            ``fix`` applies only the edits of ``convert --fix`` (they stay correct CUDA).
        rules: loaded rules (default: the shipped ones for ``options.target_libs``).
        progress: called after each file with (files done, files in all).

    Returns:
        A :class:`hipport.convert.ConversionResult`; the reports are written to ``out``.

    Raises:
        as :func:`hipport.convert.convert_tree`.
    """
    started = time.perf_counter()
    rules = rules or default_rules(options.target_libs)
    if rules.target_libs != options.target_libs:
        raise ValueError(f"rules loaded for --target-libs={rules.target_libs}, options say {options.target_libs}")
    files = [replace(f, out_rel=f.rel) for f in discover(src, out, list(options.exclude))]
    tree_files = frozenset(f.rel for f in files)
    sources = tree_sources(files)
    reserved = [f.rel for f in files if f.rel == COMPAT_HEADER or f.rel.startswith(SHIM_DIR + "/")]
    if reserved:
        from .discover import DiscoveryError
        raise DiscoveryError(f"{src / reserved[0]}: --compat writes {COMPAT_HEADER} and {SHIM_DIR}/ into OUT; "
                             "SRC must not hold files of those names")
    analysis_options = replace(options, launch_syntax="chevron", fix=False)
    result = ConversionResult(_new_report(src, out, options, rules))
    result.report.options["compat"] = True
    guard = OutputGuard(out, read_manifest(out) if out.is_dir() else None, options.force)
    names, cuda_names, units, parser = CompatNames(), TreeNames(rules), [], new_parser()
    build_files, gpu_cxx = [], set()
    # with --fix, the tree's --fix decisions (a warp-size name of a header rewritten in every file
    # using it or in none, units joined across files run as 32-lane logical warps) are made once,
    # as by convert --fix; the analysis without --fix does not use them
    fix_tree, masks = _tree_prepasses(files, replace(analysis_options, fix=options.fix), parser)
    ported_files = sorted(_port_all(files, analysis_options, rules, guard=None, prepasses=(None, masks)),
                          key=lambda p: p.file.rel)
    for done, ported in enumerate(ported_files, 1):
        file = ported.file
        data = file.source.read_bytes()
        if file.convert and options.fix:
            data = _fix_edits(file, data, rules, analysis_options, sources, parser, ported, masks, fix_tree)
        ported.summary.output = file.rel
        if file.convert:
            ported.summary.findings = _compat_findings(ported, rules, names)
            names.headers.update(ported.compat[1] if ported.compat else {})
        cuda_names.add(ported.summary, ported.cuda_names)
        if _migrates(file.rel):
            build_files.append(ported)  # written once migrated, below
        elif guard.write(file.rel, data, file.mode) == KEPT_EDITED:
            ported.summary.findings.append(_finding(rules, "output-edited", file.rel, 1, 1, output=file.rel))
        result.written.append(file.rel)
        result.report.files.append(ported.summary)
        if file.convert and file.is_unit:
            units.append(UnitInfo(file.rel, ported.defines_main, ported.uses_hip))
            if ported.uses_hip and not file.rel.endswith((".cu", ".hip", ".c")):  # C++ files compiled as GPU code
                gpu_cxx.add(file.rel)
        if progress:
            progress(done, len(files))
    cuda_names.report()
    # the tree's CMake build, migrated as by convert but keeping the .cu names; it includes the
    # platform module of compat mode (forced include, shim folder, -DHIPPORT_COMPAT_CUDA=ON)
    needs_platform_module = _migrate_build_files(build_files, frozenset(gpu_cxx), replace(options, rename_cu=False),
                                                 rules, guard)
    generated = {COMPAT_HEADER: render_header(names, rules)}
    for cuda_header, hip_header in sorted(names.headers.items()):
        generated[f"{SHIM_DIR}/{cuda_header}"] = render_shim(cuda_header, hip_header)
    if not any(f.rel == "CMakeLists.txt" for f in files) and units:
        listed = [u for u in sorted(units, key=lambda u: u.out_rel) if cmake_listable(u.out_rel)]
        for unit in units:
            if not cmake_listable(unit.out_rel):
                summary = next(f for f in result.report.files if f.output == unit.out_rel)
                summary.findings.append(_finding(rules, "cmake-unlistable", summary.path, 1, 1, output=unit.out_rel))
        name = (src.resolve().name if src.is_dir() else src.stem) or "hipport_port"
        generated["CMakeLists.txt"] = _compat_cmake(name, src if src.is_dir() else src.parent, listed, tree_files,
                                                    options, read_makefile_facts(src) if src.is_dir() else None)
        generated[PLATFORM_MODULE] = render_platform_module(options.offload_archs)
    elif needs_platform_module:
        textures = {s.output for s in result.report.files if any(f.rule_id == "HP1210" for f in s.findings)}
        images = units_reaching(out, [u.out_rel for u in units], frozenset(result.written), textures)
        generated[PLATFORM_MODULE] = render_platform_module(options.offload_archs, image_sources=images,
                                                            compat=COMPAT_HEADER, shim_dir=SHIM_DIR)
    for rel, text in generated.items():
        _write_generated(result, guard, rules, rel, text.encode("utf-8", "surrogateescape"))
        result.written.append(rel)
        result.report.generated.append(rel)
    return finish_conversion(result, guard, rules, out, started)


def _inserts_lines(body: bytes, edit) -> bool:
    """``edit`` inserts whole lines at a line start of ``body`` (a block of definitions)."""
    return (edit.start == edit.end and edit.text.endswith(b"\n")
            and (edit.start == 0 or body[edit.start - 1:edit.start] == b"\n"))


def _refused_lines(body: bytes, extra: list) -> tuple[dict[int, tuple[str, str]], set[int]]:
    """Which ``convert --fix`` edits (``extra``: :class:`hipport.edits.Edit`) ``--compat``
    refuses: (the lines (1-based) of ``body`` whose edits it refuses, each with the text the first
    refused edit replaces there and the HIP-only name that makes it not CUDA; the indexes in
    ``extra`` of the refused blocks of inserted lines).

    An edit is refused when its text names a HIP-only identifier (:data:`_HIP_ONLY_NAME`) or a
    macro a refused edit defines (``HIPPORT_SYNCWARP``, whose definition for AMD calls
    ``__builtin_amdgcn_wave_barrier``); every extra edit of a line with a refused one is refused
    too, so that a line is either as ``--fix`` writes it or as written, and so is every edit
    naming a macro such an edit defines (``hipport_warp32_ballot_sync``, which the logical-warp
    helpers define under nvcc). A block of whole lines inserted at a line start (the helpers,
    ``HIPPORT_SYNCWARP``'s definitions) adds lines and changes none: it is judged on its own,
    not with the other blocks inserted there, and never makes its line refused."""
    def line_of(offset: int) -> int:
        return body.count(b"\n", 0, offset) + 1

    refused: dict[int, tuple[str, str]] = {}
    refused_blocks: set[int] = set()  # indexes into extra
    banned: dict[bytes, str] = {}

    def ban(edit, name: str) -> None:
        for macro in _DEFINED_MACRO.findall(edit.text):
            banned.setdefault(macro, name)

    changed = True
    while changed:
        changed = False
        for index, edit in enumerate(extra):
            block = _inserts_lines(body, edit)
            if index in refused_blocks or (not block and line_of(edit.start) in refused):
                continue
            hit = _HIP_ONLY_NAME.search(edit.text)
            name = hit.group().decode() if hit else next(
                (why for macro, why in banned.items() if re.search(rb"\b" + re.escape(macro) + rb"\b", edit.text)), None)
            if name is None:
                continue
            changed = True
            if block:
                refused_blocks.add(index)
                ban(edit, name)
                continue
            line = line_of(edit.start)
            refused[line] = (body[edit.start:edit.end].decode("utf-8", "replace").strip(), name)
            for other in extra:  # the line's other edits go with it, and so do the names they define
                if not _inserts_lines(body, other) and line_of(other.start) == line:
                    ban(other, name)
    return refused, refused_blocks


def _fix_edits(file, data: bytes, rules: RuleSet, options: ConvertOptions, sources, parser, ported,
               masks=None, fix_tree=None) -> bytes:
    """``data`` with the edits that ``convert --fix`` adds to ``convert`` that stay correct CUDA
    (``register`` deleted, the wavefront-size rewrites, definitions under ``#if
    defined(__HIP__)``); the edits that write HIP-only code (:func:`_refused_lines`: a
    ``CUdeviceptr`` offset as ``hipDeviceptr_t``, ``__syncwarp`` as AMD builtins) are refused.
    The findings and names of ``ported`` become those of the analysis with ``--fix`` (HP1107,
    HP1214 for what was fixed), except on a refused line, which keeps the findings of the
    analysis without it and gets HP1401 (compat-source-edit). ``masks``: the tree's
    :func:`hipport.warp.mask_names` (where the names ``*_sync`` calls pass as masks are
    defined), as the analysis without --fix had it; ``fix_tree``: the tree's
    :func:`hipport.warp.warp_tree` (the --fix decisions shared between files), as ``convert
    --fix`` makes them."""
    from .analyze import analyze_file
    from .convert import _HeaderResolver
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    body = data[len(bom):]
    tree = parser.parse(body)
    kwargs = dict(is_cuda_unit=file.is_cuda_unit, resolve_header=_HeaderResolver(sources, file.rel),
                  sources=sources, mask_names=masks)
    with_fix = analyze_file(file.rel, body, tree, rules, fix=True, warp_tree=fix_tree, **kwargs)
    analysis = analyze_file(file.rel, body, tree, rules, fix=False, **kwargs)
    without = set(analysis.edits)
    # convert --fix passes hipport_wave_lanes() where a call passes a full-mask constant it widens
    # (kFullMask); a compat tree keeps every mask at its calls as written (HP1401 for a literal)
    # and defines no such helper, so the call keeps the constant, widened where it is defined
    extra = [e for e in with_fix.edits if e not in without
             and not (e.text == WAVE_LANES and re.fullmatch(rb"[A-Za-z_]\w*", body[e.start:e.end]))]
    if not any(e.text == WAVE_LANES for e in extra):  # nothing left calls the helper: no block for it
        extra = [e for e in extra if b"#define HIPPORT_WAVE_LANES" not in e.text]
    unwidened = {(f.line, f.column) for f in with_fix.findings if f.rule_id == "HP1101"} - \
        {(f.line, f.column) for f in analysis.findings if f.rule_id == "HP1101"}
    refused, refused_blocks = _refused_lines(body, extra)
    applied = [e for index, e in enumerate(extra) if index not in refused_blocks
               and (_inserts_lines(body, e) or body.count(b"\n", 0, e.start) + 1 not in refused)]
    helper_calls = {(body.count(b"\n", 0, e.start) + 1, _CUDA_OF_HELPER[e.text.decode()]) for e in applied
                    if e.text.decode() in _CUDA_OF_HELPER}
    # a mask passed to a logical-warp helper needs no widening: the helper takes any mask type
    findings = [f for f in with_fix.findings if f.line not in refused
                and not (f.rule_id == "HP1101" and ((f.line, f.name) in helper_calls or (f.line, f.column) in unwidened))]
    findings += [f for f in analysis.findings if f.line in refused]
    kept = {(f.line, f.column, f.rule_id) for f in analysis.findings}
    for fixed in with_fix.findings:  # what --fix said it rewrote on a refused line
        if fixed.line in refused and (fixed.line, fixed.column, fixed.rule_id) not in kept:
            findings.append(_named_finding(
                rules, "compat-source-edit", file.rel, fixed.line, fixed.column, name=fixed.name or fixed.rule_id,
                what=f"convert --fix rewrites it ({fixed.rule_id}) to code that needs {refused[fixed.line][1]}, "
                     "which CUDA lacks",
                fix="make the change by hand under #if defined(__HIP__), or port with convert --fix"))
    ported.summary.findings = filter_and_fingerprint(sorted(findings, key=Finding.sort_key), body)
    ported.compat = (with_fix.renamed, with_fix.headers_mapped, with_fix.call_rewrites, with_fix.type_rewrites)
    return bom + apply_edits(body, applied) if applied else data


def _compat_cmake(project: str, root: Path, units: list[UnitInfo], tree_files: frozenset[str],
                  options: ConvertOptions, makefile) -> str:
    """The compat CMakeLists.txt: the CMake build of ``convert`` over the ``.cu`` files, with the
    compat header forced in and the shim folder on AMD's include path, or plain CUDA."""
    included = included_units(root, [u.out_rel for u in units], tree_files)
    units = [u for u in units if u.out_rel not in included]
    includes = tree_includes(root, [u.out_rel for u in units], tree_files)
    from .cmake import libraries_for_includes, library_targets
    rules = default_rules(options.target_libs)
    targets = library_targets()
    mapped = {u.out_rel: {(rules.headers[i].target(rules.target_libs)[0] if i in rules.headers else None) or i
                          for i in includes[u.out_rel]} for u in units}
    units = [replace(u, libraries=tuple(libraries_for_includes(mapped[u.out_rel], targets))) for u in units]
    return render_cmake(project, units, list(options.offload_archs), makefile, compat=COMPAT_HEADER, shim_dir=SHIM_DIR)
