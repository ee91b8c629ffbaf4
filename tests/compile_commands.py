"""The compile commands of two builds of one project, made comparable: a project's own CUDA build
and the NVIDIA build of its port (tests/test_corpus_projects_port.py, tests/test_build_migration.py).

Commands come from CMake's compile_commands.json (``--options-file`` response files expanded)
or, for FindCUDA, whose nvcc runs CMake does not record, from the lines ``make VERBOSE=1``
prints. :func:`nvcc_options` turns a command into its options: an option and its value are one
item (``-ccbin X``, whether written ``-ccbin=X`` or ``-ccbin X``; ``-I X`` likewise; the host
options of ``-Xcompiler`` comma-separated without FindCUDA's quotes), the compiler, ``-c``, ``-o FILE`` and the source are left out, the source tree is written ``<src>``.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path


#: Options whose value is the next word; joined with it (``-ccbin X``), as are ``-opt=X`` forms.
_VALUED = {"-ccbin", "-Xcompiler", "-Xptxas", "-Xlinker", "-gencode", "-x", "-isystem", "-I", "-D"}


def _words(command: str, directory: Path) -> list[str]:
    """The words of a command, ``--options-file F`` (relative to ``directory``) replaced by F's."""
    words, result = shlex.split(command), []
    i = 0
    while i < len(words):
        if words[i] == "--options-file":
            result.extend(shlex.split((Path(directory) / words[i + 1]).read_text()))
            i += 2
            continue
        result.append(words[i])
        i += 1
    return result


def nvcc_options(words: list[str], source: str, root: Path) -> list[str]:
    """A compiler's options: the compiler, ``-c``, ``-o FILE`` and the source left out, an option
    and its value as one item (``-ccbin=X`` and ``-ccbin X`` alike), ``root`` written ``<src>``."""
    options, i = [], 1
    while i < len(words):
        word = words[i]
        if word == "-o":
            i += 2
            continue
        if word == "-c" or word == source:
            i += 1
            continue
        if word in _VALUED and i + 1 < len(words):
            word = f"{word} {words[i + 1]}"
            i += 2
        else:
            match = re.fullmatch(r"(-ccbin|-isystem|-Xcompiler)=(.*)|(-I)(.+)", word)
            word = f"{match[1] or match[3]} {match[2] or match[4]}" if match else word
            i += 1
        if word.startswith("-Xcompiler "):  # FindCUDA writes -Xcompiler ,"-O3","-DNDEBUG"
            word = "-Xcompiler " + ",".join(p.strip('"') for p in word[len("-Xcompiler "):].split(",") if p.strip('"'))
        options.append(word.replace(str(root), "<src>"))
    return options


def _unit(path: str, root: Path) -> str:
    """A translation unit's name for both builds: relative to its tree, ``.hip`` as ``.cu``."""
    return re.sub(r"\.hip$", ".cu", Path(path).relative_to(root).as_posix())


def compile_commands(build_dir: Path, root: Path) -> dict[str, tuple[str, list[str]]]:
    """``{unit: (compiler name, options)}`` from ``build_dir/compile_commands.json``."""
    entries = json.loads((build_dir / "compile_commands.json").read_text())
    result = {}
    for entry in entries:
        words = _words(entry["command"], entry["directory"])
        result[_unit(entry["file"], root)] = (Path(words[0]).name, nvcc_options(words, entry["file"], root))
    return result


def findcuda_commands(make_output: str, nvcc: Path, root: Path) -> dict[str, tuple[str, list[str]]]:
    """``{unit: ("nvcc", options)}`` from the nvcc compile commands FindCUDA's scripts print
    under ``make VERBOSE=1`` (``nvcc SOURCE -c -o OBJECT ...``; its ``-M`` dependency runs
    left out)."""
    result = {}
    for line in make_output.splitlines():
        if line.startswith(f"{nvcc} ") and " -M " not in line:
            words = shlex.split(line)
            result[_unit(words[1], root)] = ("nvcc", nvcc_options(words, words[1], root))
    return result


def port_only(options: list[str], hip_include: Path, toolkit_includes: tuple[str, ...] = ()) -> list[str]:
    """The options of a port's command less what the port adds on purpose: HIP's NVIDIA headers
    and ``__HIP_PLATFORM_NVIDIA__`` (and, given, the CUDA toolkit's include folders)."""
    added = {"-D__HIP_PLATFORM_NVIDIA__", f"-isystem {hip_include}"} | {f"-isystem {d}" for d in toolkit_includes}
    return [o for o in options if o not in added]


def toolkit_includes(toolchain) -> tuple[str, ...]:
    """The CUDA toolkit's include folders as CMake lists them (nvcc.profile's INCLUDES)."""
    cuda = toolchain.nvcc.parent.parent
    return tuple(str(cuda / d) for d in ("include", "include-libcu++", "include-cub", "include-thrust"))
