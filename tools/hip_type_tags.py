"""Record what each mapped HIP/ROCm type name is in the headers: a struct/union/enum tag, or a
typedef (of which tag), so hipport can port ``struct cudaX`` where the HIP name is a typedef.

CUDA declares many of its types as tags (``struct cudaGraphicsResource;``), so programs write
``struct cudaGraphicsResource *r``. HIP often declares its counterpart as a typedef of a tag of
another name (``typedef struct _hipGraphicsResource hipGraphicsResource;``), and clang rejects
``struct hipGraphicsResource`` ("typedef 'hipGraphicsResource' cannot be referenced with the
'struct' specifier"). :mod:`hipport.elaborated` reads the data this script writes to rewrite such
uses to the tag the typedef names (``struct _hipGraphicsResource``), drop the keyword where HIP's
typedef names no tag, or report the forms that cannot be ported (HP2017).

What is read (nothing is written but the output file):

- the names: every ``hip`` and ``roc`` replacement of a ``kind: type`` or ``kind: enum`` entry of
  the shipped ``rules/*.yaml`` (C names only: no ``::``);
- the headers: ``hip/hip_runtime.h`` and every header a header entry of a C family (a family
  without ``cpp_namespace``) maps to under ``--target-libs=hip`` or ``roc``, where the toolchain
  has it, parsed together by libclang (clang 19) as HIP host code (``-x hip --cuda-host-only``,
  ``-D__HIP_PLATFORM_AMD__``) against the HIP 6.4.3 headers (``hip_amd_include`` of
  ``.toolchain/toolchain.json``) and the ROCm 6.4 library headers (``amd_library_include``);
  libclang is clang 19's (``/usr/lib/llvm-19``), else the ``libclang`` package's.
  Declarations at global scope (also inside ``extern "C"``) count; a name that is an
  object-like macro naming another name (``#define hipDeviceProp_t hipDeviceProp_tR0600``) is
  described by what that name is (``via``).

Each name the headers declare as a tag or typedef gets one line in the output
(``rules/hip_headers/type_tags.yaml``)::

    hipMemcpyKind: {is: tag, kind: enum, at: 'hip/driver_types.h:361'}
    hipGraphicsResource: {is: typedef, kind: struct, tag: _hipGraphicsResource, at: ...}
    hipStream_t: {is: typedef, kind: none, type: ihipStream_t *, at: ...}

``is: tag``: the name is a tag of that kind (``kind`` struct, class, union or enum; it may be a
typedef of that same tag too). ``is: typedef``: the name is only a typedef, of a tag of ``kind``
named ``tag`` (no ``tag``: an unnamed one), or of a type that is no tag (``kind: none``, its
canonical spelling in ``type``). ``at``: the declaration's header (below its include root) and
line. Names the headers declare otherwise (functions, macros of other shapes) or not at all are
left out; their count is printed.

Usage (from the repository root, after scripts/install-toolchain.sh)::

    .venv/bin/python tools/hip_type_tags.py            # rewrite rules/hip_headers/type_tags.yaml
    .venv/bin/python tools/hip_type_tags.py --check    # exit 1 if the file is not current

tests/test_elaborated.py runs ``--check`` and compiles the recorded facts of every name with
clang (``struct _hipGraphicsResource *`` compiles, ``struct hipGraphicsResource *`` does not).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hipport.rules import TARGET_LIBS, load_rules  # noqa: E402
from hipport.precise import SYSTEM_LIBCLANG, SYSTEM_RESOURCE_DIR  # noqa: E402
from hipport.toolchain import Toolchain, default_toolchain_dir  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from generated_file import check_or_write  # noqa: E402

OUTPUT = REPO / "rules" / "hip_headers" / "type_tags.yaml"
# Debian's libclang-19 and its resource headers, as hipport's precise mode uses them.
LIBCLANG, RESOURCE_DIR = SYSTEM_LIBCLANG, SYSTEM_RESOURCE_DIR
#: The mapping kinds whose replacements can follow ``struct``/``union``/``enum``/``class``.
TYPE_KINDS = ("type", "enum")
_TAG_KINDS = {"STRUCT_DECL": "struct", "CLASS_DECL": "class", "UNION_DECL": "union", "ENUM_DECL": "enum"}


def mapped_names(rules_by_target: dict) -> list[str]:
    """The HIP and ROC replacements of the ``type``/``enum`` entries of the rule sets
    (``{"hip": RuleSet, "roc": RuleSet}``), C names only, sorted."""
    names = set()
    for target, rules in rules_by_target.items():
        for mapping in rules.identifiers.values():
            replacement = mapping.target(target)[0]
            if mapping.kind in TYPE_KINDS and replacement and "::" not in replacement:
                names.add(replacement)
    return sorted(names)


def header_list(rules_by_target: dict, roots: list[Path]) -> list[str]:
    """``hip/hip_runtime.h`` and the headers the C families' header entries map to, that exist
    below one of ``roots``, in sorted order after it."""
    headers = set()
    for target, rules in rules_by_target.items():
        for mapping in rules.headers.values():
            family = rules.families.get(mapping.family)
            replacement = mapping.target(target)[0]
            if family is not None and not family.cpp_namespace and replacement:
                headers.add(replacement)
    present = sorted(h for h in headers if any((root / h).is_file() for root in roots))
    return ["hip/hip_runtime.h", *(h for h in present if h != "hip/hip_runtime.h")]


def _where(location, roots: list[Path]) -> str:
    path = location.file.name if location.file is not None else "?"
    for root in roots:
        prefix = str(root) + "/"
        if path.startswith(prefix):
            path = path[len(prefix):]
            break
    return f"{path}:{location.line}"


def _named_tag(cindex, unit, cursor) -> bool:
    """A tag declaration names its tag (``struct _B {``), as opposed to an unnamed one that a
    typedef names for linkage (``typedef struct {...} A;``: libclang spells that one ``A`` too):
    the token at a named tag's location is its name, at an unnamed one's the keyword."""
    at = cindex.SourceRange.from_locations(cursor.location, cursor.location)
    tokens = list(cindex.TokenGroup.get_tokens(unit, at))
    return bool(tokens) and tokens[0].spelling == cursor.spelling


def _global(cursor) -> bool:
    """The declaration is at global scope (``extern "C"`` blocks count as global)."""
    parent = cursor.semantic_parent
    while parent is not None and parent.kind.name == "LINKAGE_SPEC":
        parent = parent.semantic_parent
    return parent is not None and parent.kind.name == "TRANSLATION_UNIT"


def header_facts(headers: list[str], roots: list[Path], libclang: Path = LIBCLANG) -> dict[str, dict]:
    """Parse ``headers`` (one translation unit, in order) with libclang; return name -> facts
    (the output's fields) for every tag and typedef at global scope, and ``{"via": target}`` for
    every object-like macro whose body is one identifier.

    Raises:
        SystemExit: the headers do not parse without errors (names the first error).
    """
    from clang import cindex
    if libclang.is_file() and not cindex.Config.loaded:
        cindex.Config.set_library_file(str(libclang))
    args = ["-x", "hip", "--cuda-host-only", "--offload-arch=gfx90a", "-nogpulib", "-nogpuinc", "-std=c++17",
            "-resource-dir", str(RESOURCE_DIR), "-D__HIP_PLATFORM_AMD__"]
    for root in roots:
        args += ["-isystem", str(root)]
    source = "".join(f"#include <{h}>\n" for h in headers)
    unit = cindex.Index.create().parse(
        "type_tags.hip", args=args, unsaved_files=[("type_tags.hip", source)],
        options=cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    errors = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Error]
    if errors:
        raise SystemExit(f"the headers do not parse: {errors[0]}")
    tags: dict[str, dict] = {}
    typedefs: dict[str, dict] = {}
    macros: dict[str, str] = {}
    stack = [unit.cursor]
    while stack:
        for child in stack.pop().get_children():
            kind = child.kind.name
            if kind in ("LINKAGE_SPEC", "UNEXPOSED_DECL"):
                stack.append(child)
            elif kind in _TAG_KINDS and child.spelling and _named_tag(cindex, unit, child):
                # the first declaration names the header (a definition elsewhere does not move it)
                tags.setdefault(child.spelling, {"is": "tag", "kind": _TAG_KINDS[kind],
                                                 "at": _where(child.location, roots)})
            elif kind in ("TYPEDEF_DECL", "TYPE_ALIAS_DECL"):
                canonical = child.underlying_typedef_type.get_canonical()
                declaration = canonical.get_declaration()
                facts: dict = {"is": "typedef"}
                if canonical.kind.name in ("RECORD", "ENUM") and declaration.kind.name in _TAG_KINDS:
                    facts["kind"] = _TAG_KINDS[declaration.kind.name]
                    if canonical.get_num_template_arguments() > 0 or not _global(declaration):
                        # a class template's specialization, or a tag inside a namespace: no tag
                        # that `struct NAME` at global scope can name
                        facts["type"] = canonical.spelling
                    elif _named_tag(cindex, unit, declaration):
                        facts["tag"] = declaration.spelling
                else:
                    facts["kind"] = "none"
                    facts["type"] = canonical.spelling
                facts["at"] = _where(child.location, roots)
                typedefs.setdefault(child.spelling, facts)
            elif kind == "MACRO_DEFINITION" and child.location.file is not None:
                tokens = [t.spelling for t in child.get_tokens()]
                if len(tokens) == 2 and tokens[1].isidentifier():
                    macros[tokens[0]] = tokens[1]
    facts = {name: {"via": target} for name, target in macros.items()}
    facts.update(typedefs)
    facts.update(tags)  # a tag that is also a typedef of itself (typedef enum X {...} X) is a tag
    return facts


def resolve(name: str, facts: dict[str, dict]) -> dict | None:
    """The facts of ``name``, following macro aliases (at most 8); None when the headers
    declare no tag or typedef of that name."""
    via = []
    for _ in range(8):
        entry = facts.get(name)
        if entry is None:
            return None
        if "via" not in entry:
            return {**entry, "via": via[0]} if via else entry
        name = entry["via"]
        via.append(name)
    return None


def render(names: list[str], facts: dict[str, dict], headers: list[str], versions: str) -> tuple[str, list[str]]:
    """The output file's text and the names left out (not a tag or typedef in the headers)."""
    lines = [
        "# What each HIP/ROCm name that hipport writes for a CUDA type or enum is in the headers:",
        "# a tag (struct/class/union/enum) or only a typedef (of which tag). hipport.elaborated uses it",
        "# to port `struct cudaX` / `enum cudaX` where HIP's name is a typedef (HP2017).",
        "# GENERATED by tools/hip_type_tags.py (do not edit; run it again after changing the rules",
        "# or the toolchain): libclang 19 over these headers, parsed as HIP host code for gfx90a:",
        *(f"#   {h}" for h in headers),
        f"# from {versions}.",
        "# Fields: is: tag | typedef; kind: struct, class, union, enum, or none (a typedef of a type",
        "# that is no tag); tag: the tag a typedef names (absent: unnamed); type: the canonical type of",
        "# a kind-none typedef; via: the macro target the name expands to; at: the declaration.",
        "type_tags:",
    ]
    left_out = []
    for name in names:
        entry = resolve(name, facts)
        if entry is None:
            left_out.append(name)
            continue
        fields = ", ".join(f"{key}: {json.dumps(entry[key]) if key in ('type', 'at') else entry[key]}"
                           for key in ("is", "kind", "tag", "type", "via", "at") if key in entry)
        lines.append(f"  {name}: {{{fields}}}")
    return "\n".join(lines) + "\n", left_out


def generate(toolchain) -> tuple[str, list[str]]:
    """(the output text, the names left out) from the shipped rules and the headers of
    ``toolchain`` (a :class:`hipport.toolchain.Toolchain`: ``hip_amd_include``,
    ``amd_library_include``, ``hip_amd_version``)."""
    rules_by_target = {target: load_rules(target_libs=target) for target in TARGET_LIBS}
    roots = [Path(toolchain.hip_amd_include), Path(toolchain.amd_library_include)]
    versions = (f"libamdhip64-dev {toolchain.hip_amd_version} and the ROCm library packages of toolchain.json "
                "(amd_library_versions)")
    headers = header_list(rules_by_target, roots)
    return render(mapped_names(rules_by_target), header_facts(headers, roots), headers, versions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file; exit 1 if it differs")
    parser.add_argument("--toolchain", type=Path, default=default_toolchain_dir(),
                        help="the toolchain folder or its toolchain.json (default: .toolchain/)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args(argv)
    text, left_out = generate(Toolchain.load(options.toolchain))
    names = text.count(chr(10)) - text.split(chr(10)).index('type_tags:') - 1
    return check_or_write(options.output, text, options.check,
                          f"{names} names; {len(left_out)} mapped names are no tag or typedef in the headers")


if __name__ == "__main__":
    sys.exit(main())
