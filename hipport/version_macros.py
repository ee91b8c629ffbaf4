"""``--fix`` for CUDA version tests (HP1220): a file that tests ``CUDART_VERSION`` or
``CUDA_VERSION`` gets them defined, for HIP on AMD only, as the CUDA version hipport's rules
describe.

Why: ``cuda_runtime_api.h`` defines ``CUDART_VERSION`` and ``cuda.h`` ``CUDA_VERSION`` (12040 in
CUDA 12.4: cuda_runtime_api.h line 139, cuda.h line 247); HIP's headers for AMD define neither,
so in a HIP build ``#if CUDART_VERSION >= 2020`` is false and the program takes its fallback for
an old or missing CUDA: often an ``#error``, a "not supported, exiting" stub, or code no compiler
has seen (NVIDIA's cuda-samples: threadFenceReduction, simpleZeroCopy, ptxjit). Without ``--fix``
each use is reported (HP1209). With ``--fix`` the port defines the macro as 12040, the CUDA 12.4
whose headers hipport's mapping and check tables were built from, so version tests take their
newest branch, whose CUDA names are ported and checked like every other (an API HIP lacks there
gets its own finding). The definition is guarded by ``__HIP__`` (clang defines it when it
compiles HIP; nvcc does not, so HIP on NVIDIA keeps CUDA's own value) and by ``!defined``, and
goes where hipport puts its own includes (:func:`hipport.analyze._implicit_include_offset`),
before any code of the file::

    #if defined(__HIP__) && !defined(CUDART_VERSION) /* hipport --fix (HP1220) ... */
    #define CUDART_VERSION 12040
    #endif

Each macro a file defines itself is left to it (and keeps its HP1209). ``__CUDA_ARCH__`` and the
nvcc version macros are not touched: they describe the device pass and the compiler, which HIP
answers with other macros (HP1209's fix).
"""

from __future__ import annotations

import re

from .edits import Edit

#: The CUDA version macros --fix defines, with CUDA 12.4's values (the toolkit hipport's rules
#: and checks were generated from: cuda_runtime_api.h:139, cuda.h:247).
VERSION_VALUES = {"CUDART_VERSION": 12040, "CUDA_VERSION": 12040}
#: The CUDA release those values stand for, as the finding names it.
CUDA_RELEASE = "12.4"


def _defines(source: bytes, name: str) -> bool:
    return re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + name.encode() + rb"\b", source, re.MULTILINE) is not None


def analyze_cuda_version_macros(ctx, fix: bool, offset: int) -> None:
    """With ``fix``, define the CUDA version macros this file uses (see the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after the
            construct findings (HP1209) are made: their ``name`` says which macros the file uses.
        fix: ``convert --fix``; without it nothing changes.
        offset: byte offset of the line start where hipport's own includes go.

    Effects: one insertion at ``offset`` per file; each HP1209 finding of a defined macro is
    replaced by one HP1220 info finding, at the macro's first use.
    """
    if not fix:
        return
    check = ctx.rules.check("cuda-version-macro")
    uses = [f for f in ctx.result.findings if f.rule_id == check.id and f.name in VERSION_VALUES]
    names = sorted({f.name for f in uses if not _defines(ctx.source, f.name)})
    if not names:
        return
    ctx.result.findings[:] = [f for f in ctx.result.findings if not (f.rule_id == check.id and f.name in names)]
    newline = b"\r\n" if b"\r\n" in ctx.source else b"\n"
    block = b""
    for name in names:
        first = min((f for f in uses if f.name == name), key=lambda f: (f.line, f.column))
        value = str(VERSION_VALUES[name])
        ctx.report("cuda-version-defined", (first.line - 1, first.column - 1), name=name, value=value,
                   release=CUDA_RELEASE)
        block += (b"#if defined(__HIP__) && !defined(" + name.encode() + b") /* hipport --fix (HP1220): CUDA "
                  + CUDA_RELEASE.encode() + b"'s value, so CUDA version tests take their newest branch */" + newline
                  + b"#define " + name.encode() + b" " + value.encode() + newline + b"#endif" + newline)
    prefix = b"" if offset == 0 or ctx.source[offset - 1:offset] == b"\n" else newline
    ctx.result.edits.append(Edit(offset, offset, prefix + block))
