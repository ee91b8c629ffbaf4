"""Generate a CMake build for a ported tree that came without one, and the platform module
(``cmake/HipportPlatform.cmake``) that every CMake build of a ported tree uses.

Targets: one executable per translation unit that defines ``main``, named after the program
the tree's Makefile links from it, else after the file (or after its folder for ``main.*``); a
unit that another unit includes (``#include "kernel.cu"``) is compiled only there. A Makefile's
``-std`` and ``-g``/``-G`` carry over too (:mod:`hipport.makefile_facts`). The other translation
units form one static library per folder; an executable links the libraries of its own folder and of the folders below it, and
a library that no executable reaches that way is linked into every executable. ``.hip`` files
and C++ files that use CUDA are GPU sources (``hipport_gpu_sources``: HIP on AMD, CUDA on
NVIDIA). A target links the HIP library targets (``roc::hipblas``...) whose headers its sources
include, directly or through the tree's own headers (table: ``rules/build/libraries.yaml``).
Templates: ``templates/CMakeLists.txt.j2`` and ``templates/HipportPlatform.cmake.j2``; the
module's interface is described in its leading comment and in ``docs/build.md``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path, PurePosixPath

from . import __version__
from .makefile_facts import MakefileFacts
from .resources import data_dir

#: The AMD offload architectures built by default: CDNA2 (MI200), CDNA3 (MI300), RDNA2, RDNA3.
from .options import DEFAULT_OFFLOAD_ARCHS, validate_offload_archs  # noqa: E402,F401  (one definition, light for the parser)
#: An AMD offload architecture: gfx90a, gfx942, gfx1100, gfx9-generic, with target features
#: such as :xnack+ or :sramecc- (LLVM AMDGPU usage).


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """A translation unit of the ported tree: output path (``/`` separators), whether it defines
    ``main``, whether it uses CUDA/HIP (is a GPU source), and the library targets it needs
    (``roc::hipblas``...; see :func:`libraries_for_includes`)."""

    out_rel: str
    defines_main: bool
    uses_hip: bool
    libraries: tuple[str, ...] = ()


#: Where hipport writes the platform module, relative to OUT.
PLATFORM_MODULE = "cmake/HipportPlatform.cmake"
#: Targets the platform module itself creates on both platforms (never looked up as libraries).
_RUNTIME_TARGETS = ("hip::host", "hip::device")


@dataclass(frozen=True, slots=True)
class LibraryTarget:
    """A HIP/ROCm library target of ``rules/build/libraries.yaml``, as the platform module uses it.

    Attributes:
        target: the imported target (``roc::hipblas``).
        library: display name (``hipBLAS``).
        package: the CMake package defining it on AMD (``hipblas``: ``find_package(hipblas CONFIG)``).
        headers: headers that show a source uses it (``hipblas/hipblas.h``).
        install: what to install on AMD (``libhipblas-dev (Debian/Ubuntu) or ROCm's hipblas-dev``).
        nvidia: why there is no NVIDIA backend without more set-up (a sentence for the
            configure error), or what to pass to use one.
        nvidia_toolkit: on NVIDIA the CUDA toolkit's own library serves (``nvidia: cuda-toolkit``
            in the table: rocThrust's API is Thrust's, which nvcc finds in the toolkit), so the
            target is an empty interface there.
    """

    target: str
    library: str
    package: str
    headers: tuple[str, ...]
    install: str
    nvidia: str
    nvidia_toolkit: bool = False


def _nvidia_reason(kind: str, library: str, package: str, cuda_name: str) -> str:
    if kind == "roc":
        return (f"{library} is ROCm's own library and runs on AMD GPUs only. Port with --target-libs=hip "
                f"for a portable HIP library where one exists")
    return (f"{library} for NVIDIA (HIP_PLATFORM=nvidia, over {cuda_name}) is not packaged by Debian. Build "
            f"{library} from source for NVIDIA and pass -D{package}_DIR=<folder of its {package}-config.cmake>")


@lru_cache(maxsize=4)
def library_targets(path: Path | None = None) -> tuple[LibraryTarget, ...]:
    """The library targets of ``rules/build/libraries.yaml`` (``hip:`` and ``roc:`` replacements
    that name a CMake target), in file order, each target once; ``hip::host`` is left out (the
    platform module makes it).

    Args:
        path: the table (default: the shipped ``rules/build/libraries.yaml``).

    Raises:
        OSError: the table cannot be read.
        hipport.rules.RuleError: the table breaks its JSON Schema (file and line named).
    """
    from .buildfiles.data import load_rule_data  # the build-rule loader validates the table

    data = load_rule_data(path or data_dir("rules") / "build" / "libraries.yaml", "libraries")
    found: dict[str, LibraryTarget] = {}
    for entry in data["libraries"]:
        for kind in ("hip", "roc"):
            repl = entry.get(kind)
            if not repl or "target" not in repl or repl["target"] in _RUNTIME_TARGETS or repl["target"] in found:
                continue
            debian = str(repl.get("debian", "")).split()[0] if repl.get("debian") else ""
            install = (f"{debian} (Debian/Ubuntu) or ROCm's {repl['package']}-dev" if debian
                       else f"ROCm's {repl['package']}-dev")
            found[repl["target"]] = LibraryTarget(
                repl["target"], repl["library"], repl["package"], tuple(repl.get("headers", ())), install,
                _nvidia_reason(kind, repl["library"], repl["package"], entry.get("name", entry.get("id", ""))),
                repl.get("nvidia") == "cuda-toolkit")
    return tuple(found.values())


def _header_matches(header: str, included: str) -> bool:
    """A table header ``hipblas/hipblas.h`` matches every include under ``hipblas/``; one directly
    in ``hip/`` (``hip/hiprtc.h``) or without a folder matches only itself."""
    folder = header.partition("/")[0] if "/" in header else ""
    if folder and folder != "hip":
        return included.startswith(folder + "/")
    return included == header


def libraries_for_includes(includes: set[str], libraries: tuple[LibraryTarget, ...]) -> list[str]:
    """The library targets (table order) whose headers appear among ``includes`` (include names
    as written between ``<>`` or ``""``)."""
    return [lib.target for lib in libraries
            if any(_header_matches(h, inc) for h in lib.headers for inc in includes)]


def _libraries_matcher(libraries: tuple[LibraryTarget, ...]):
    """:func:`libraries_for_includes` for many units: what each include name matches is worked
    out once (the same names recur in every unit of a tree)."""
    matched: dict[str, frozenset[str]] = {}

    def libraries_for(includes: set[str]) -> list[str]:
        targets: set[str] = set()
        for name in includes:
            found = matched.get(name)
            if found is None:
                found = matched[name] = frozenset(lib.target for lib in libraries
                                                  if any(_header_matches(h, name) for h in lib.headers))
            targets |= found
        return [lib.target for lib in libraries if lib.target in targets]
    return libraries_for


#: An include directive, without its line start: found first, its line start checked after
#: (:func:`include_names`; ten times faster on a large tree than a regex trying ``^`` at every line).
_INCLUDE_DIRECTIVE = re.compile(rb'#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]')


def include_names(data: bytes) -> list[bytes]:
    """The names of the include directives of ``data`` (``#include <name>`` or ``"name"``), in
    order: a directive starts its line, after blanks (and a UTF-8 byte-order mark, which may
    precede the one on the first line); ``#  include`` counts, a directive after code does not."""
    names = []
    for match in _INCLUDE_DIRECTIVE.finditer(data):
        start = match.start()
        prefix = data[data.rfind(b"\n", 0, start) + 1:start]
        if prefix.startswith(b"\xef\xbb\xbf"):
            prefix = prefix[3:]
        if not prefix.strip(b" \t"):
            names.append(match.group(1))
    return names


class _IncludeGraph:
    """The includes of a tree's files, each resolved to a tree file where it names one (relative
    to the including file's folder, then to the root, else the one file whose path ends with
    ``/<name>``, as found through an include folder). Files are read once, when first asked."""

    def __init__(self, root: Path | None, tree_files: frozenset[str], read=None) -> None:
        self.root, self.tree_files = root, tree_files
        self.read = read or (lambda rel: (self.root / rel).read_bytes())  # rel -> the file's bytes
        self.direct: dict[str, list[tuple[str, str | None]]] = {}
        self.by_suffix: dict[str, str | None] = {}
        self._by_basename: dict[str, list[str]] | None = None

    def elsewhere(self, name: str) -> str | None:
        if name not in self.by_suffix:
            if self._by_basename is None:  # a file ending with "/<name>" has <name>'s last component as its own
                self._by_basename = {}
                for file in self.tree_files:
                    self._by_basename.setdefault(posixpath.basename(file), []).append(file)
            candidates = self._by_basename.get(posixpath.basename(name), ())
            hits = [f for f in candidates if f.endswith("/" + name)] if not name.startswith("/") else []
            self.by_suffix[name] = hits[0] if len(hits) == 1 else None
        return self.by_suffix[name]

    def scan(self, rel: str) -> list[tuple[str, str | None]]:
        """(include name as written, tree file it names or None) for each include of ``rel``."""
        if rel not in self.direct:
            names = [m.decode("utf-8", "surrogateescape") for m in include_names(self.read(rel))]
            resolved = []
            for name in names:
                target = None
                for base in (posixpath.dirname(rel), ""):
                    candidate = posixpath.normpath(posixpath.join(base, name))
                    if candidate in self.tree_files:
                        target = candidate
                        break
                resolved.append((name, target or self.elsewhere(name)))
            self.direct[rel] = resolved
        return self.direct[rel]

    def reach(self, rel: str) -> tuple[set[str], set[str]]:
        """Every include name ``rel`` reaches through the tree's files, and those files (``rel``
        itself left out unless an include cycle leads back to it)."""
        seen, names, files, stack = {rel}, set(), set(), [rel]
        while stack:
            for name, target in self.scan(stack.pop()):
                names.add(name)
                if target is not None:
                    files.add(target)
                    if target not in seen:
                        seen.add(target)
                        stack.append(target)
        return names, files


def tree_includes(root: Path, rels: list[str], tree_files: frozenset[str]) -> dict[str, set[str]]:
    """Every include name each file of ``rels`` reaches, through the tree's own headers too.

    A quoted or angled include that names a file of the tree (relative to the including file's
    folder, then to the root, else the one file whose path ends with ``/<name>``, as found
    through an include folder) is followed; its includes count for the includer.

    Args:
        root: the ported tree (OUT).
        rels: files to report, ``/``-separated paths relative to ``root``.
        tree_files: every file of the tree (relative paths), to resolve includes against.

    Returns:
        path -> set of include names (as written), for each path of ``rels``.

    Raises:
        OSError: a file cannot be read.
    """
    graph = _IncludeGraph(root, tree_files)
    return {rel: graph.reach(rel)[0] for rel in rels}


def reached_files(sources: dict[str, bytes]) -> dict[str, set[str]]:
    """The files of a tree each of its files includes, directly or through the tree's own
    headers, resolved as :func:`tree_includes` resolves them.

    Args:
        sources: path relative to the tree (``/``-separated) -> the file's content, for every
            file includes may name.

    Returns:
        path -> the set of tree paths it reaches (itself left out unless an include cycle leads
        back to it), for each path of ``sources``.
    """
    graph = _IncludeGraph(None, frozenset(sources), read=sources.__getitem__)
    return {rel: graph.reach(rel)[1] for rel in sources}


def included_units(root: Path, units: list[str], tree_files: frozenset[str]) -> set[str]:
    """The translation units of ``units`` that another unit includes, directly or through the
    tree's headers (``#include "kernel.cu"``, ported as ``kernel.hip``): compiled as part of
    that unit, they must not be compiled on their own too (their definitions would be linked
    twice). Two units that include each other stay units.

    Args and raises: as :func:`tree_includes` (``units``: OUT-relative paths).
    """
    return _included_units(_IncludeGraph(root, tree_files), units)


def _included_units(graph: _IncludeGraph, units: list[str]) -> set[str]:
    """:func:`included_units` over an include graph the caller may share."""
    reached = {unit: graph.reach(unit)[1] for unit in units}
    includers: dict[str, list[str]] = {}
    for other, files in reached.items():
        for file in files:
            includers.setdefault(file, []).append(other)
    return {unit for unit in units
            if any(other != unit and other not in reached[unit] for other in includers.get(unit, ()))}


def units_reaching(root: Path, units: list[str], tree_files: frozenset[str], files: set[str]) -> list[str]:
    """The translation units of ``units`` (sorted) that are one of ``files`` or include one,
    directly or through the tree's headers; e.g. the units whose code uses texture functions
    (``files``: those with HP1210 findings).

    Args and raises: as :func:`tree_includes`.
    """
    if not files:
        return []
    graph = _IncludeGraph(root, tree_files)
    return sorted(unit for unit in units if unit in files or graph.reach(unit)[1] & files)


def _environment():
    import jinja2  # imported here: only a conversion that writes CMake needs it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["q"] = cmake_quote
    return env


def render_platform_module(offload_archs: list[str] | tuple[str, ...],
                           libraries: tuple[LibraryTarget, ...] | None = None,
                           image_sources: list[str] | tuple[str, ...] = (), compat: str = "",
                           shim_dir: str = "") -> str:
    """Render ``cmake/HipportPlatform.cmake``: the CMake layer that builds a ported tree for AMD
    (HIP language) or NVIDIA (CUDA language with HIP's NVIDIA headers) from one CMakeLists.txt.

    Args:
        offload_archs: the default AMD architectures (``HIPPORT_OFFLOAD_ARCHS`` on amd), e.g.
            ``["gfx90a", "gfx1100"]``; NVIDIA's default is ``90``.
        libraries: the library targets it can find (default: :func:`library_targets`).
        image_sources: translation units (paths relative to OUT, ``/`` separators) that use
            texture or surface functions (:func:`units_reaching`): on amd, the targets compiling
            them leave gfx940, gfx941 and gfx942 out (``HIPPORT_IMAGE_SOURCES``).
        compat: for ``convert --compat`` (:mod:`hipport.compat`): the compat header's path
            relative to OUT (``hipport_compat.h``), forced into every GPU source of a HIP build;
            the module then also offers ``-DHIPPORT_COMPAT_CUDA=ON`` (plain CUDA: nvcc without
            HIP's headers or defines, each HIP library target standing for its CUDA library,
            :func:`_cuda_targets`). Empty (default): the module of ``convert``.
        shim_dir: with ``compat``, the folder of CUDA-named shim headers (relative to OUT) put
            first on the include path of AMD builds.

    Returns:
        The module's text (write it to ``OUT/cmake/HipportPlatform.cmake``, see
        :data:`PLATFORM_MODULE`).

    Raises:
        ValueError: offload_archs is empty or a single string; the library table is malformed.
        OSError: the library table cannot be read.
    """
    if isinstance(offload_archs, str) or not offload_archs:
        raise ValueError("offload_archs must be a non-empty list such as ['gfx90a']")
    libraries = library_targets() if libraries is None else libraries
    return _environment().get_template("HipportPlatform.cmake.j2").render(
        version=__version__, offload_archs=";".join(offload_archs), libraries=libraries,
        image_sources=sorted(set(image_sources)), compat=compat, shim_dir=shim_dir,
        cuda_targets=_cuda_targets() if compat else {})


def cmake_quote(value: str) -> str:
    """Quote ``value`` as one CMake quoted argument (spaces, ``;``, ``$``, ``"``, ``\\`` escaped)."""
    escaped = (value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
               .replace(";", "\\;").replace("\n", "\\n"))
    return f'"{escaped}"'


#: Substrings CMake cannot take in a source file name, however it is quoted: add_executable
#: re-reads the name, so a backslash is a syntax error, ``${`` expands a variable and ``;``
#: splits the list (seen with CMake 3.25).
CMAKE_UNLISTABLE = ("\\", "${", ";")


def cmake_listable(path: str) -> bool:
    """True when ``path`` can be named in a CMake source list (see :data:`CMAKE_UNLISTABLE`)."""
    return not any(part in path for part in CMAKE_UNLISTABLE)


def _identifier(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text).strip("_") or "target"
    return name if not name[0].isdigit() else "t_" + name


def generate_cmake(project_name: str, out: Path, units: list[UnitInfo], tree_files: frozenset[str],
                   offload_archs: list[str], makefile: MakefileFacts | None = None) -> str:
    """The CMakeLists.txt text for a ported tree that came without a CMake build: units that
    another unit includes are left out (:func:`included_units`), each unit gets the library
    targets its includes reach (:func:`libraries_for_includes`), then :func:`render_cmake`.

    Args:
        project_name: the tree's name (its folder), for ``project()`` unless the Makefile names
            its one program.
        out: the ported tree; ``tree_files`` every file of it (OUT-relative paths).
        units: its translation units that CMake can list (:func:`cmake_listable`).
        offload_archs: as :func:`render_cmake`.
        makefile: what the tree's Makefile says (:func:`hipport.makefile_facts.read_makefile_facts`).

    Raises:
        ValueError: as :func:`render_cmake`.
        OSError: a file of the tree cannot be read.
        hipport.rules.RuleError: the library table is malformed.
    """
    graph = _IncludeGraph(out, tree_files)  # one scan of the tree's files for both questions
    included = _included_units(graph, [u.out_rel for u in units])
    units = [u for u in units if u.out_rel not in included]
    libraries_for = _libraries_matcher(library_targets())  # the table is read once, not once per unit
    units = [replace(u, libraries=tuple(libraries_for(graph.reach(u.out_rel)[0]))) for u in units]
    return render_cmake(project_name, units, offload_archs, makefile)


def render_cmake(project_name: str, units: list[UnitInfo], offload_archs: list[str],
                 makefile: MakefileFacts | None = None, compat: str = "", shim_dir: str = "") -> str:
    """Render the CMakeLists.txt text for the ported tree (it includes :data:`PLATFORM_MODULE`,
    which :func:`render_platform_module` writes with the same ``offload_archs``).

    Args:
        project_name: used for ``project()`` (sanitised to a CMake identifier).
        units: every translation unit of the output tree.
        offload_archs: the default AMD architectures; only checked here (the module holds them).
        makefile: what the tree's Makefile says: an executable takes the name of the program
            the Makefile links from its main unit (and ``project()`` the name of its one
            program), the C++ standard its ``-std`` (default 17), and its ``-g``/``-G`` become
            ``-g`` for every language, plus ``-G`` for nvcc on NVIDIA (clang's ``-g`` gives
            host and device debug information).

    Raises:
        ValueError: offload_archs is empty or a single string.
    """
    if isinstance(offload_archs, str) or not offload_archs:
        raise ValueError("offload_archs must be a non-empty list such as ['gfx90a']")
    if makefile is not None and len(makefile.programs) == 1:
        project_name = makefile.programs[0].name
    names: set[str] = set()

    def unique(base: str) -> str:
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.add(name)
        return name

    def needed(unit_list: list[UnitInfo]) -> list[str]:
        return list(dict.fromkeys(lib for u in unit_list for lib in u.libraries))

    by_dir: dict[str, list[UnitInfo]] = {}
    for unit in sorted(units, key=lambda u: u.out_rel):
        by_dir.setdefault(str(PurePosixPath(unit.out_rel).parent), []).append(unit)
    libraries, executables = [], []
    library_of: dict[str, str] = {}
    for folder, folder_units in by_dir.items():
        others = [u for u in folder_units if not u.defines_main]
        if others:
            name = unique(_identifier("common" if folder == "." else folder) + "_lib")
            library_of[folder] = name
            libraries.append({"name": name, "sources": [u.out_rel for u in others], "links": needed(others)})
    mains = sum(u.defines_main for u in units)
    for folder, folder_units in by_dir.items():
        for unit in (u for u in folder_units if u.defines_main):
            stem = PurePosixPath(unit.out_rel).stem
            program = makefile.program_for(stem, mains) if makefile is not None else None
            if program is not None:
                stem = program
            elif stem == "main" and folder != ".":  # multi_file/main.hip -> target multi_file
                stem = PurePosixPath(folder).name
            executables.append({"name": unique(_identifier(stem)), "source": unit.out_rel, "folder": folder,
                                "links": needed([unit])})

    def below(folder: str, base: str) -> bool:
        return base == "." or folder == base or folder.startswith(base + "/")

    reached = {lib for lib in library_of if any(below(lib, exe["folder"]) for exe in executables)}
    for exe in executables:
        exe["libraries"] = [library_of[lib] for lib in library_of
                            if below(lib, exe["folder"]) or lib not in reached]
    gpu_sources = sorted(u.out_rel for u in units if u.out_rel.endswith((".hip", ".cu"))
                         or (u.uses_hip and not u.out_rel.endswith(".c")))
    languages = ["CXX"] + (["C"] if any(u.out_rel.endswith(".c") for u in units) else [])
    return _environment().get_template("CMakeLists.txt.j2").render(
        version=__version__, project=_identifier(project_name), languages=" ".join(languages),
        platform_module=PLATFORM_MODULE, libraries=libraries, executables=executables, gpu_sources=gpu_sources,
        standard=(makefile.cxx_standard if makefile is not None else None) or "17", makefile=makefile,
        compat=compat, shim_dir=shim_dir, cuda_targets=_cuda_targets() if compat else {},
    )


def _cuda_targets() -> dict[str, str]:
    """HIP library target -> the FindCUDAToolkit target of the CUDA library it replaces
    (``roc::hipblas`` -> ``CUDA::cublas``; ``rules/build/libraries.yaml``)."""
    from .buildfiles.data import load_rule_data

    data = load_rule_data(data_dir("rules") / "build" / "libraries.yaml", "libraries")
    found: dict[str, str] = {}
    for entry in data["libraries"]:
        for kind in ("hip", "roc"):
            repl = entry.get(kind)
            if repl and "target" in repl and entry.get("cuda_targets"):
                found.setdefault(repl["target"], entry["cuda_targets"][0])
    return found
