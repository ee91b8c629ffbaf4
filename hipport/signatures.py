"""Calls whose HIP twin takes other arguments (HP2010 signature-differs, HP2011 signature-narrower).

The facts are data: ``differs`` and ``narrower`` entries of ``rules/calls.yaml``, found by
``tools/compare_signatures.py`` (CUDA 12.4's declarations against HIP 6.4.3's and the ROCm 6.4
libraries', parameter counts with default arguments, then the ported CUDA parameter types
offered to the HIP function through clang-19). A ``differs`` entry is a call the port cannot
compile as written (HP2010, an error), a ``narrower`` one a call that compiles unless the
argument has the CUDA-only type, mostly a const pointer where HIP's parameter is not const
(HP2011, a warning). An entry with ``arguments`` applies only to calls with that many
arguments (CUDA's default arguments that HIP lacks); a ``narrower`` entry with ``positions`` is
not reported for a call passing ``NULL``/``nullptr``/``0`` at each of those parameters (such as
``nvrtcCreateProgram(&p, src, name, 0, NULL, NULL)``).

The entries describe the ``hip*`` functions: under ``--target-libs roc`` a family with a ROCm
library (rocSPARSE, rocBLAS...) is ported to other functions, and nothing is reported for it.
A name written in a macro body is reported where the macro is defined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tree_sitter

if TYPE_CHECKING:
    from .analyze import _FileContext
    from .rules import CallRewrite

#: Arguments that pass no object: a narrower parameter given one of these cannot fail.
NULL_ARGUMENTS = frozenset({b"NULL", b"nullptr", b"0", b"0L", b"(void*)0", b"((void*)0)"})
_NULL = NULL_ARGUMENTS


def report_signatures(ctx: "_FileContext", node: tree_sitter.Node, rewrites: "tuple[CallRewrite, ...]",
                      point: tuple[int, int]) -> None:
    """Report the ``differs``/``narrower`` entries among ``rewrites`` (the ``rules/calls.yaml``
    entries of the CUDA function named at ``node``) that apply to this use.

    Args:
        ctx: the file's analysis context; findings go to ``ctx.result.findings``.
        node: the identifier (or macro body) naming the function.
        rewrites: the function's call entries.
        point: 0-based (row, byte column) of the name, where the finding is reported.
    """
    from .analyze import _call_arguments
    arguments = None
    for rewrite in rewrites:
        what = rewrite.differs or rewrite.narrower
        if not what:
            continue
        if rewrite.arguments is not None:
            if arguments is None:
                arguments = _call_arguments(node)
            if arguments is None or len(arguments) != rewrite.arguments:
                continue
        if rewrite.positions:
            if arguments is None:
                arguments = _call_arguments(node)
            if arguments is not None and all(p < len(arguments) and ctx.text(arguments[p]).strip() in _NULL
                                             for p in rewrite.positions):
                continue  # NULL at every narrower parameter: nothing of the CUDA-only type is passed
        mapping = ctx.rules.identifiers.get(rewrite.cuda)
        if mapping is None:
            continue
        family = ctx.rules.families.get(mapping.family)
        if ctx.rules.target_libs == "roc" and family is not None and family.roc_library:
            continue
        hip = ctx.rules.target(mapping)[0] or ""
        ctx.report("signature-differs" if rewrite.differs else "signature-narrower", point, name=rewrite.cuda,
                   hip=hip, what=what)
