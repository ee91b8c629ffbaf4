"""Generate a CMake build (HIP language) for a ported tree that came without one.

Targets: one executable per translation unit that defines ``main``, named after the file (or
after its folder for ``main.*``). The other translation units form one static library per
folder; an executable links the libraries of its own folder and of the folders below it, and
a library that no executable reaches that way is linked into every executable. C++ files that
use CUDA are compiled as HIP (``LANGUAGE HIP``); ``.hip`` files are HIP already.
The template is ``templates/CMakeLists.txt.j2``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from . import __version__
from .resources import data_dir

#: The AMD offload architectures built by default: CDNA2 (MI200), CDNA3 (MI300), RDNA2, RDNA3.
DEFAULT_OFFLOAD_ARCHS = ("gfx90a", "gfx942", "gfx1030", "gfx1100")
#: An AMD offload architecture: gfx90a, gfx942, gfx1100, gfx9-generic, with target features
#: such as :xnack+ or :sramecc- (LLVM AMDGPU usage).
_OFFLOAD_ARCH = re.compile(r"^gfx(?:[0-9]{2,3}[0-9a-f]|[0-9]{1,2}(?:-[0-9])?-generic)((?::(?:sramecc|xnack)[+-])*)$")


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """A translation unit of the ported tree: output path (``/`` separators), whether it defines
    ``main``, and whether it uses CUDA/HIP (needs the HIP language)."""

    out_rel: str
    defines_main: bool
    uses_hip: bool


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


def validate_offload_archs(archs: list[str]) -> list[str]:
    """Check AMD offload architecture names (``gfx90a``, ``gfx942:xnack+``).

    Raises:
        ValueError: a name is malformed or repeats a feature, a name repeats, or the list is empty.
    """
    for arch in archs:
        match = _OFFLOAD_ARCH.match(arch)
        features = [f[:-1] for f in match.group(1).split(":")[1:]] if match else []
        if not match or len(features) != len(set(features)):
            raise ValueError(f"{arch!r} is not an offload architecture name such as gfx90a or gfx1100")
    if len(set(archs)) != len(archs):
        raise ValueError(f"offload architectures repeat: {';'.join(archs)}")
    if not archs:
        raise ValueError("at least one offload architecture is needed")
    return archs


def render_cmake(project_name: str, units: list[UnitInfo], offload_archs: list[str]) -> str:
    """Render the CMakeLists.txt text for the ported tree.

    Args:
        project_name: used for ``project()`` (sanitised to a CMake identifier).
        units: every translation unit of the output tree.
        offload_archs: the default ``CMAKE_HIP_ARCHITECTURES`` list.
    """
    names: set[str] = set()

    def unique(base: str) -> str:
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.add(name)
        return name

    by_dir: dict[str, list[UnitInfo]] = {}
    for unit in sorted(units, key=lambda u: u.out_rel):
        by_dir.setdefault(str(PurePosixPath(unit.out_rel).parent), []).append(unit)
    libraries, executables = [], []
    library_of: dict[str, str] = {}
    for folder, folder_units in by_dir.items():
        others = [u.out_rel for u in folder_units if not u.defines_main]
        if others:
            name = unique(_identifier("common" if folder == "." else folder) + "_lib")
            library_of[folder] = name
            libraries.append({"name": name, "sources": others})
    for folder, folder_units in by_dir.items():
        for unit in (u for u in folder_units if u.defines_main):
            stem = PurePosixPath(unit.out_rel).stem
            if stem == "main" and folder != ".":  # multi_file/main.hip -> target multi_file
                stem = PurePosixPath(folder).name
            executables.append({"name": unique(_identifier(stem)), "source": unit.out_rel, "folder": folder})

    def below(folder: str, base: str) -> bool:
        return base == "." or folder == base or folder.startswith(base + "/")

    reached = {lib for lib in library_of if any(below(lib, exe["folder"]) for exe in executables)}
    for exe in executables:
        exe["libraries"] = [library_of[lib] for lib in library_of
                            if below(lib, exe["folder"]) or lib not in reached]
    hip_cxx = [u.out_rel for u in units if u.uses_hip and not u.out_rel.endswith(".hip")
               and not u.out_rel.endswith(".c")]
    languages = ["CXX", "HIP"] + (["C"] if any(u.out_rel.endswith(".c") for u in units) else [])
    import jinja2  # imported here: only a conversion that generates CMake needs it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["q"] = cmake_quote
    return env.get_template("CMakeLists.txt.j2").render(
        version=__version__, project=_identifier(project_name), languages=" ".join(languages),
        offload_archs=";".join(offload_archs), libraries=libraries, executables=executables,
        hip_cxx_sources=sorted(hip_cxx),
    )
