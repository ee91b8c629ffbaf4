"""Build-file migration (hipport.buildfiles): golden input/expected pairs for CMake files and
Makefiles, the rule data's validation, and real builds of converted CMake projects for AMD.

Golden cases live in tests/fixtures/build/cases/<case>/: ``input/`` (the CUDA build files),
``expected/`` (the migrated files, byte for byte) and ``findings.txt`` (every finding as
``path:line:column ID message``). After a deliberate change of the rules, rewrite them with
``python tests/test_build_migration.py`` and review the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.buildfiles import BuildFile, BuildOptions, build_file_kind, migrate_build_files
from hipport.buildfiles.cmake_syntax import CMakeSyntaxError, parse_cmake
from hipport.buildfiles.data import load_build_rules
from hipport.buildfiles.flags import is_kept_flag
from hipport.convert import ConvertOptions, check_tree, convert_tree
from hipport.rules import RuleError, default_rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import FIXTURES  # noqa: E402

CASES = FIXTURES / "build" / "cases"
PROJECTS = FIXTURES / "build" / "projects"
#: A FindCUDA project exercising what FindCUDA's nvcc commands depend on (NVIDIA builds of its port).
FINDCUDA_OPTIONS = FIXTURES / "build" / "findcuda_options"
ARCHS = ("gfx90a", "gfx1100")
#: Per case: --target-libs and the C++ files (paths relative to input/) that use CUDA.
CASE_OPTIONS = {
    "cuda_language": ("hip", frozenset({"app/options.cpp", "src/host_helpers.cpp"})),
    "findcuda": ("hip", frozenset({"src/main.cpp"})),
    "target_libs_roc": ("roc", frozenset()),
}


def _case_files(case: str) -> list[BuildFile]:
    root = CASES / case / "input"
    return [BuildFile(p.relative_to(root).as_posix(), p.read_bytes())
            for p in sorted(root.rglob("*")) if p.is_file() and build_file_kind(p.relative_to(root).as_posix())]


def _migrate(case: str, files: list[BuildFile] | None = None):
    target_libs, gpu_cxx = CASE_OPTIONS.get(case, ("hip", frozenset()))
    return migrate_build_files(files or _case_files(case), default_rules(target_libs),
                               BuildOptions(ARCHS, target_libs), gpu_cxx)


def _findings_text(results) -> str:
    return "".join(f"{f.path}:{f.line}:{f.column} {f.rule_id} {f.message}\n" for r in results for f in r.findings)


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir()))
def test_golden_case(case):
    results = _migrate(case)
    for result in results:
        expected = CASES / case / "expected" / result.rel
        assert result.output.decode("utf-8") == expected.read_text(encoding="utf-8"), result.rel
    assert _findings_text(results) == (CASES / case / "findings.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir()))
def test_migrating_a_migrated_file_changes_nothing(case):
    first = _migrate(case)
    second = _migrate(case, [BuildFile(r.rel, r.output) for r in first])
    assert [r.output for r in second] == [r.output for r in first]


def test_cuda_language_case_reports_what_it_keeps():
    """The golden case's findings in words: what stays as written, and where."""
    by_id = {}
    for result in _migrate("cuda_language"):
        for f in result.findings:
            by_id.setdefault(f.rule_id, []).append(f"{f.path}:{f.line}:{f.column} {f.name}")
    assert by_id["HP3010"] == ["CMakeLists.txt:27:40 --maxrregcount=64"]  # no register cap in clang: left out
    assert by_id["HP3005"] == ["CMakeLists.txt:32:53 CUDA::nppc"]  # NPP has no HIP counterpart
    assert by_id["HP3001"] == ["CMakeLists.txt:32:64 CUDA::cudaXYZ", "src/CMakeLists.txt:3:38 CUDA_PTX_COMPILATION",
                               "src/CMakeLists.txt:7:4 CMAKE_CUDA_COMPILER_VERSION"]
    text = (CASES / "cuda_language" / "input" / "CMakeLists.txt").read_text().splitlines()
    assert text[26][39:].startswith("--maxrregcount=64>") and text[31][52:].startswith("CUDA::nppc")


def test_crlf_line_endings_are_kept_in_inserted_lines():
    text = b"project(p LANGUAGES CXX CUDA)\r\nadd_executable(app main.cu)\r\n"
    [result] = migrate_build_files([BuildFile("CMakeLists.txt", text)], default_rules(), BuildOptions(ARCHS))
    assert result.output == (b"project(p LANGUAGES CXX)\r\n"
                             b"include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)\r\n"
                             b"hipport_enable_gpu_language()\r\n"
                             b"add_executable(app main.hip)\r\n"
                             b"hipport_gpu_target(app)\r\n")


def test_a_project_below_src_includes_the_module_by_a_relative_path():
    files = [BuildFile("demo/CMakeLists.txt", b"project(demo CUDA)\nadd_subdirectory(lib)\n"),
             BuildFile("demo/lib/CMakeLists.txt", b"add_library(k k.cu)\n")]
    top, sub = migrate_build_files(files, default_rules(), BuildOptions(ARCHS))
    assert top.output == (b"project(demo CXX)\ninclude(${CMAKE_CURRENT_SOURCE_DIR}/../cmake/HipportPlatform.cmake)\n"
                          b"hipport_enable_gpu_language()\nadd_subdirectory(lib)\n")
    assert sub.output == b"add_library(k k.hip)\nhipport_gpu_target(k)\n"
    assert top.includes_platform_module and not sub.includes_platform_module


def test_libraries_are_found_after_the_enable_when_nothing_calls_find_package():
    text = b"project(p LANGUAGES CXX CUDA)\nadd_executable(app main.cu)\ntarget_link_libraries(app cublas)\n"
    [result] = migrate_build_files([BuildFile("CMakeLists.txt", text)], default_rules(), BuildOptions(ARCHS))
    assert result.output.decode() == (
        "project(p LANGUAGES CXX)\ninclude(${CMAKE_CURRENT_SOURCE_DIR}/cmake/HipportPlatform.cmake)\n"
        "hipport_enable_gpu_language()\nhipport_find_libraries(roc::hipblas)\n"
        "add_executable(app main.hip)\nhipport_gpu_target(app)\ntarget_link_libraries(app roc::hipblas)\n")


@pytest.mark.parametrize("text, line, column, message", [
    ('set(X "abc)\n', 1, 7, "unterminated quoted argument"),
    ("project(x)\nadd_executable(app\n  main.cu\n", 2, 1, "command 'add_executable' has no closing ')'"),
    ("set(X [==[abc]=])\n", 1, 7, "unterminated bracket argument (no ']==]')"),
    ("#[[ never closed\nproject(x)\n", 1, 2, "unterminated bracket comment (no ']]')"),
    ("project (x) set(y)\n", 1, 13, "expected a newline after the command"),
    ("project\n(x)\n", 1, 1, "command 'project' is not followed by '('"),
    ("123(x)\n", 1, 1, "expected a command name, found '1'"),
])
def test_cmake_syntax_errors_name_line_and_column(text, line, column, message):
    with pytest.raises(CMakeSyntaxError) as error:
        parse_cmake(text)
    assert (error.value.line, error.value.column, error.value.message) == (line, column, message)


def test_tokenizer_keeps_offsets_of_every_argument_kind():
    text = 'if((A OR B) AND "x y")\n  set(F [=[a]]b]=] -DX="a b" $(MAKE) x\\;y) # c\nendif()\n'
    commands = parse_cmake(text)
    assert [(c.name, c.line, c.column, c.indent) for c in commands] == [("if", 1, 1, ""), ("set", 2, 3, "  "),
                                                                         ("endif", 3, 1, "")]
    assert [(a.kind, a.text, a.depth) for a in commands[0].args] == [
        ("unquoted", "A", 1), ("unquoted", "OR", 1), ("unquoted", "B", 1), ("unquoted", "AND", 0),
        ("quoted", '"x y"', 0)]
    assert [(a.kind, a.text, a.value) for a in commands[1].args] == [
        ("unquoted", "F", "F"), ("bracket", "[=[a]]b]=]", "a]]b"), ("unquoted", '-DX="a b"', '-DX="a b"'),
        ("unquoted", "$(MAKE)", "$(MAKE)"), ("unquoted", "x\\;y", "x\\;y")]
    for command in commands:
        for arg in command.args:
            assert text[arg.start:arg.end] == arg.text


@pytest.mark.parametrize("name, kind", [("CMakeLists.txt", "cmake"), ("cmake/FindFoo.cmake", "cmake"),
                                        ("Makefile", "make"), ("sub/makefile", "make"), ("GNUmakefile", "make"),
                                        ("rules.mk", "make"), ("CMakeLists.txt.in", None), ("main.cu", None)])
def test_build_file_kinds(name, kind):
    assert build_file_kind(name) == kind


def _copy_rules(tmp_path: Path) -> Path:
    folder = tmp_path / "build"
    folder.mkdir()
    for name in ("libraries.yaml", "nvcc_flags.yaml", "cmake.yaml"):
        (folder / name).write_bytes((Path(__file__).resolve().parent.parent / "rules" / "build" / name).read_bytes())
    return folder


@pytest.mark.parametrize("file, old, new, message, line_of", [
    ("nvcc_flags.yaml", "    action: arch\n", "    action: archs\n", "flags/0/action: 'archs' must be one of",
     "    action: archs\n"),
    ("nvcc_flags.yaml", "  - nvcc: [--use_fast_math, -use_fast_math]\n",
     "  - nvcc: [--use_fast_math, -arch]\n", "'-arch' is already listed at", "  - nvcc: [--use_fast_math, -arch]\n"),
    ("libraries.yaml", "    cuda_libs: [cublas, cublas_static]\n", "    cuda_libs: [cublas, cudart]\n",
     "'cudart' is already listed at", "  - id: cublas\n"),
    ("cmake.yaml", "  - {name: cuda_add_cufft_to_target, action: link-library, library: cufft}\n",
     "  - {name: cuda_add_cufft_to_target, action: link-library, library: cufftx}\n",
     "cuda_add_cufft_to_target: library 'cufftx' is not in libraries.yaml", "  - {name: cuda_add_cufft_to_target"),
    ("cmake.yaml", "  - {name: CMAKE_CUDA_STANDARD, action: rename, replacement: CMAKE_<LANG>_STANDARD}\n",
     "  - {name: CMAKE_CUDA_STANDARD, action: rename}\n", "action rename needs replacement",
     "  - {name: CMAKE_CUDA_STANDARD, action: rename}"),
])
def test_bad_build_rules_name_file_and_line(tmp_path, file, old, new, message, line_of):
    folder = _copy_rules(tmp_path)
    text = (folder / file).read_text()
    assert old in text
    text = text.replace(old, new, 1)
    (folder / file).write_text(text)
    with pytest.raises(RuleError) as error:
        load_build_rules(folder)
    assert error.value.path == folder / file
    assert message in error.value.message
    assert error.value.line == text[:text.index(line_of)].count("\n") + 1


def test_libraries_table_names_targets_of_the_debian_packages():
    rules = load_build_rules()
    names = {lib.id: (lib.replacement("hip").target if lib.replacement("hip") else None,
                      lib.replacement("roc").target if lib.replacement("roc") else None) for lib in rules.libraries}
    assert names["cudart"] == ("hip::host", "hip::host")
    assert names["cublas"] == ("roc::hipblas", "roc::rocblas")
    assert names["curand"] == ("hip::hiprand", "roc::rocrand")
    assert names["cufft"] == ("hip::hipfft", "hip::hipfft")
    assert names["cusparse"] == ("roc::hipsparse", "roc::rocsparse")
    assert names["cusolver"] == ("roc::hipsolver", "roc::rocsolver")
    assert names["cudnn"] == (None, "MIOpen")
    assert names["npp"] == (None, None)


def test_build_migration_doc_lists_every_rule():
    """docs/build-migration.md's tables are what the rules produce (python -m hipport.buildfiles.docs)."""
    from hipport.buildfiles.docs import DOC, render_document

    text = DOC.read_text(encoding="utf-8")
    assert render_document(text, load_build_rules()) == text


def test_convert_writes_migrated_build_files_and_reports_them(tmp_path):
    src = CASES / "findcuda" / "input"
    result = convert_tree(src, tmp_path / "out", ConvertOptions(offload_archs=ARCHS))
    # src/main.cpp is not in this tree, so no hipport_gpu_sources(src/main.cpp) line
    assert (tmp_path / "out" / "CMakeLists.txt").read_bytes() == (
        CASES / "findcuda" / "expected" / "CMakeLists.txt").read_bytes().replace(b"hipport_gpu_sources(src/main.cpp)\n", b"")
    summary = next(s for s in result.report.files if s.path == "CMakeLists.txt")
    assert summary.converted and summary.lines == 30
    assert [f.rule_id for f in summary.findings].count("HP3002") == 2
    assert result.report.generated == ["cmake/HipportPlatform.cmake"]
    assert (tmp_path / "out" / "cmake" / "HipportPlatform.cmake").is_file()
    checked = check_tree(src, ConvertOptions(offload_archs=ARCHS))
    assert [f.message for f in checked.findings] == [f.message for f in result.report.findings]


def test_a_marker_on_the_line_silences_a_build_finding(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("project(p CXX)\nif(CMAKE_CUDA_COMPILER)  # hipport: ignore[HP3001]\nendif()\n"
                                        "if(CMAKE_CUDA_COMPILER_ID)\nendif()\n")
    report = check_tree(src)
    assert [(f.line, f.rule_id, f.name) for f in report.findings] == [(4, "HP3001", "CMAKE_CUDA_COMPILER_ID")]


EMPTY_COMPILER_MAKEFILE = (
    "ifeq ($(USE_GPU),1)\n"
    "NVCC := nvcc\n"
    "else\n"
    "NVCC :=\n"
    "endif\n"
    "\n"
    "app: app.cu\n"
    "\t$(NVCC) -O2 app.cu -o app\n")


def test_an_empty_compiler_assignment_in_a_branch_is_migrated(tmp_path):
    """``NVCC :=`` in the other branch of an ``ifeq`` (was an IndexError that stopped the whole
    conversion): the nvcc assignment becomes hipcc, the empty one stays empty."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "Makefile").write_text(EMPTY_COMPILER_MAKEFILE)
    (src / "app.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n")
    result = convert_tree(src, tmp_path / "out", ConvertOptions(offload_archs=ARCHS))
    assert (tmp_path / "out" / "Makefile").read_text() == EMPTY_COMPILER_MAKEFILE.replace(
        "NVCC := nvcc", "NVCC := hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS").replace("app.cu", "app.hip")
    assert (tmp_path / "out" / "app.hip").is_file()
    assert result.report.findings == []


def test_a_build_file_whose_migration_fails_is_copied_with_hp3009(tmp_path, monkeypatch):
    """A failure inside hipport's migration of one build file: that file is copied unchanged
    with HP3009 at the line being migrated; the other build files and the sources convert."""
    from hipport.buildfiles import makefile

    real_map = makefile._MakefileMigration.map

    def failing_map(self, words, certain, arch_done):
        if any(w.text == "-DBOOM" for w in words):
            raise KeyError("boom")
        return real_map(self, words, certain, arch_done)

    monkeypatch.setattr(makefile._MakefileMigration, "map", failing_map)
    src = tmp_path / "src"
    (src / "cmake_part").mkdir(parents=True)
    broken = "NVCC := nvcc\nFLAGS := -O2\n\nall: app.cu\n\t$(NVCC) $(FLAGS) -DBOOM app.cu -o app\n"
    (src / "Makefile").write_text(broken)
    (src / "app.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n")
    (src / "cmake_part" / "CMakeLists.txt").write_text("project(part LANGUAGES CXX CUDA)\nadd_executable(part part.cu)\n")
    (src / "cmake_part" / "part.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n")
    out = tmp_path / "out"
    result = convert_tree(src, out, ConvertOptions(offload_archs=ARCHS))
    assert (out / "Makefile").read_text() == broken
    assert [(f.path, f.line, f.column, f.rule_id, f.message) for f in result.report.findings
            if f.rule_id == "HP3009"] == [
        ("Makefile", 5, 1, "HP3009", "the build file could not be read (hipport failed on this line with "
                                     "KeyError: 'boom'; please report it); it was copied unchanged")]
    assert "hipport_enable_gpu_language()" in (out / "cmake_part" / "CMakeLists.txt").read_text()
    assert (out / "app.hip").is_file() and (out / "cmake_part" / "part.hip").is_file()
    assert (out / "hipport-report.json").is_file()


# ------------------------------------------------------------- nvcc options never reach clang
_LEFT_OUT = "left out of the HIP compile flags"
_REGISTER_CAP = "give kernels __launch_bounds__ (or amdgpu_waves_per_eu) instead of a register cap"
_PTXAS = ("options of ptxas, NVIDIA's assembler: clang reports registers, spills and scratch memory with "
          "-Rpass-analysis=kernel-resource-usage, optimises device code at the -O level, and takes register limits "
          "from __launch_bounds__")
#: (nvcc option, what the HIP flags hold instead, the finding: (id, severity, message) or None).
NVCC_OPTION_CASES = [
    ("--maxrregcount=64", "", ("HP3010", "warning", f"nvcc option --maxrregcount=64 {_LEFT_OUT}, clang has no "
                                                    f"equivalent: {_REGISTER_CAP}")),
    ("-maxrregcount=32", "", ("HP3010", "warning", f"nvcc option -maxrregcount=32 {_LEFT_OUT}, clang has no "
                                                   f"equivalent: {_REGISTER_CAP}")),
    ("-maxrregcount 32", "", ("HP3010", "warning", f"nvcc option -maxrregcount 32 {_LEFT_OUT}, clang has no "
                                                   f"equivalent: {_REGISTER_CAP}")),
    ("-Xptxas -v", "-Rpass-analysis=kernel-resource-usage", None),
    ("--ptxas-options=-v,-warn-spills", "-Rpass-analysis=kernel-resource-usage", None),
    ("-Xptxas -dlcm=ca", "", ("HP3010", "warning", f"nvcc option -Xptxas -dlcm=ca {_LEFT_OUT}, clang has no "
                                                   f"equivalent: hipport knows no clang equivalent of the value "
                                                   f"'-dlcm=ca'; {_PTXAS}")),
    ("--use_fast_math", "-ffast-math", None),
    ("-lineinfo", "-gline-tables-only", None),
    ("--expt-relaxed-constexpr", "", ("HP3004", "info", f"nvcc option --expt-relaxed-constexpr {_LEFT_OUT}: clang "
                                                        "lets host and device code call constexpr functions of the "
                                                        "other side without an option")),
    ("--extended-lambda", "", ("HP3004", "info", f"nvcc option --extended-lambda {_LEFT_OUT}: clang accepts "
                                                 "__device__ lambdas without an option")),
    ("-rdc=true", "-fgpu-rdc", None),
    ("-Xcompiler -fopenmp,-Wall", "-fopenmp -Wall", None),
    ("--compiler-options -fPIC", "-fPIC", None),
    ("-Wno-deprecated-gpu-targets", "", ("HP3004", "info", f"nvcc option -Wno-deprecated-gpu-targets {_LEFT_OUT}: "
                                                           "silences nvcc's warning about old sm_ targets; "
                                                           "meaningless for AMD targets")),
    ("--default-stream per-thread", "-fgpu-default-stream=per-thread", None),
    ("-res-usage", "-Rpass-analysis=kernel-resource-usage", None),
    ("-keep", "-save-temps", None),
    ("-dlink", "", ("HP3010", "warning", f"nvcc option -dlink {_LEFT_OUT}, clang has no equivalent: clang links "
                                         "device code when it links the program (-fgpu-rdc --hip-link); drop the "
                                         "separate -dlink step")),
    ("-ptx", "", ("HP3010", "warning", f"nvcc option -ptx {_LEFT_OUT}, clang has no equivalent: PTX, cubin and "
                                       "fatbin are NVIDIA formats: for AMD code objects use --cuda-device-only (and "
                                       "-S for assembly)")),
    ("-Werror all-warnings", "-Werror", None),
    ("-ftemplate-depth 512", "-ftemplate-depth=512", None),
    ("--include-path /opt/inc", "-I/opt/inc", None),
    ("--disable-warnings", "-w", None),
    ("--some-new-option", "--some-new-option", ("HP3003", "error", "nvcc option --some-new-option kept as written: "
                                                                    "hipport does not know this nvcc option, and "
                                                                    "clang will most likely reject it")),
]


def _findings_of(results, skip=("HP3006",)):
    return [(f.line, f.column, f.rule_id, f.severity, f.message) for r in results for f in r.findings
            if f.rule_id not in skip]


@pytest.mark.parametrize("option, hip, finding", NVCC_OPTION_CASES, ids=[c[0] for c in NVCC_OPTION_CASES])
def test_nvcc_option_in_a_makefile(option, hip, finding):
    text = f"NVCC := nvcc\nNVCCFLAGS := -O2 {option}\n"
    [result] = migrate_build_files([BuildFile("Makefile", text.encode())], default_rules(), BuildOptions(ARCHS))
    assert result.output.decode() == (f"NVCC := hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
                                      f"NVCCFLAGS := -O2{' ' + hip if hip else ''}\n")
    assert _findings_of([result]) == ([(2, 18, *finding)] if finding else [])


@pytest.mark.parametrize("option, hip, finding", NVCC_OPTION_CASES, ids=[c[0] for c in NVCC_OPTION_CASES])
def test_nvcc_option_in_cmake(option, hip, finding):
    """CMAKE_CUDA_FLAGS stays for NVIDIA builds as written; its HIP twin holds what clang gets."""
    text = f'project(p LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_FLAGS "-O2 {option}")\n'
    [result] = migrate_build_files([BuildFile("CMakeLists.txt", text.encode())], default_rules(), BuildOptions(ARCHS))
    lines = result.output.decode().splitlines()
    assert lines[3:] == [f'set(CMAKE_CUDA_FLAGS "-O2 {option}")', f'set(CMAKE_HIP_FLAGS "-O2{" " + hip if hip else ""}")']
    assert _findings_of([result]) == ([(2, 27, *finding)] if finding else [])


#: A value for each nvcc option that takes one and lists no values of its own.
_SAMPLE_VALUES = {
    "--maxrregcount": "32", "--compiler-bindir": "g++", "--cudart": "shared", "--diag-suppress": "177",
    "-Xcudafe": "--display_error_number", "--keep-dir": "tmpdir", "--threads": "2", "--std": "c++17",
    "--dopt": "on", "-Xnvlink": "--verbose", "--linker-options": "--as-needed", "--compiler-options": "-fPIC",
    "--include-path": "incdir", "--system-include": "incdir", "--pre-include": "cstdio", "--library": "m",
    "--library-path": "libdir", "--output-file": "other.o", "--dependency-output": "deps.d",
    "--dependency-target-name": "kernel.o", "--ftemplate-depth": "512", "--ftemplate-backtrace-limit": "5",
    "--gpu-architecture": "sm_80", "--generate-code": "arch=compute_80,code=sm_80", "--gpu-code": "sm_80",
}


def _nvcc_option_samples(rules) -> list[str]:
    """One nvcc command-line snippet per spelling and listed value of every option of
    rules/build/nvcc_flags.yaml."""
    samples, seen = [], set()
    for rule in rules.flags.values():
        if id(rule) in seen:
            continue
        seen.add(id(rule))
        values = list(rule.values) if rule.values else [_SAMPLE_VALUES.get(rule.spellings[0], "1")]
        for spelling in rule.spellings:
            samples += [f"{spelling} {v}" for v in values] if rule.takes_value else [spelling]
    return samples


def test_every_nvcc_option_of_the_rules_is_translated_or_left_out():
    """No nvcc-only option hipport knows stays for clang: each is mapped (to another spelling)
    or removed with its finding; none gets HP3003."""
    rules = load_build_rules()
    nvcc_only = {s for r in rules.flags.values() if not r.ambiguous for s in r.spellings}
    checks = default_rules()
    for sample in _nvcc_option_samples(rules):
        text = f"NVCC := nvcc\nNVCCFLAGS := {sample}\n"
        [result] = migrate_build_files([BuildFile("Makefile", text.encode())], checks, BuildOptions(ARCHS),
                                       build_rules=rules)
        flags = result.output.decode().splitlines()[1][len("NVCCFLAGS :="):].split()
        assert not [f for f in result.findings if f.rule_id == "HP3003"], sample
        spelling = sample.split()[0]
        if spelling in nvcc_only and spelling in flags:
            rule = rules.flags[spelling]  # only where clang has the same spelling (-save-temps)
            assert spelling in rule.hip or any(spelling in v for v in rule.values.values()), \
                f"{sample} reaches clang as {flags}"


def test_every_option_of_the_toolchains_nvcc_is_known(toolchain):
    """Each option ``nvcc --help`` (nvcc 12.4) lists, long and short spelling, is in
    rules/build/nvcc_flags.yaml or kept as clang's (so no real nvcc option gets HP3003)."""
    rules = load_build_rules()
    listed = subprocess.run([str(toolchain.nvcc), "--help"], capture_output=True, text=True, check=True).stdout
    spellings = []
    for line in listed.splitlines():
        match = re.match(r"(--[A-Za-z][\w-]*)\S*(?:\s.*?)?(?:\((-[\w-]+)\))?\s*$", line)
        if match:
            spellings += [s for s in match.groups() if s]
    assert len(spellings) > 200
    unknown = [s for s in spellings if s not in rules.flags and not is_kept_flag(rules, s)
               and s not in ("--help", "-h", "--version", "-V")]
    assert unknown == []


#: clang options that change what a compile produces: each compiled on its own.
_MODE_OPTIONS = ("-M", "-MM", "-o", "-x", "-E")


def test_every_nvcc_option_translation_compiles_with_clang(toolchain, tmp_path):
    """The HIP flags of every option in rules/build/nvcc_flags.yaml (Makefile migration: the
    same mapping as CMake's, test_nvcc_option_in_cmake) compile a kernel for gfx90a with the
    toolchain's clang++-19: clang knows every option hipport writes. Options that do not change
    what the compile produces are checked together, in one command; the others one by one."""
    rules = load_build_rules()
    source = tmp_path / "kernel.hip"
    source.write_text("#include <hip/hip_runtime.h>\n__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n")
    (tmp_path / "incdir").mkdir()
    (tmp_path / "libdir").mkdir()
    together, alone = [], set()
    checks = default_rules()
    for sample in _nvcc_option_samples(rules):
        text = f"NVCC := nvcc\nNVCCFLAGS := {sample}\n"
        [result] = migrate_build_files([BuildFile("Makefile", text.encode())], checks, BuildOptions(("gfx90a",)),
                                       build_rules=rules)
        flags = tuple(result.output.decode().splitlines()[1][len("NVCCFLAGS :="):].split())
        flags = tuple(f for f in flags if not f.startswith("--offload-arch="))  # the compile names gfx90a itself
        if any(f in _MODE_OPTIONS for f in flags):
            alone.add(flags)
        else:
            together.extend(f for f in flags if f not in together or not f.startswith("-"))
    assert "-ffast-math" in together and "-fgpu-default-stream=per-thread" in together and alone
    plain = tmp_path / "plain.c"
    plain.write_text("int twice(int x) { return 2 * x; }\n")
    for flags in [tuple(together), *sorted(alone)]:
        host_language = "-x" in flags and flags[flags.index("-x") + 1] in ("c", "c++")  # nvcc's -x c: no GPU code
        command = toolchain.amd_compile_command(plain if host_language else source, tmp_path / "kernel.o",
                                                ["gfx90a"], list(flags))
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert done.returncode == 0 and "unknown argument" not in done.stderr, f"{flags}\n{done.stderr[-3000:]}"


def test_clang_rejects_an_option_it_does_not_know(toolchain, tmp_path):
    """Why HP3003 is an error: an unknown option left in the HIP flags stops clang."""
    source = tmp_path / "kernel.hip"
    source.write_text("__global__ void nothing() {}\n")
    command = toolchain.amd_compile_command(source, tmp_path / "kernel.o", ["gfx90a"], ["--some-new-option"])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "unknown argument: '--some-new-option'" in done.stderr


def test_nvcc_only_options_build_for_amd_through_cmake(toolchain, tmp_path):
    """A CMake project passing the nvcc-only options (CMAKE_CUDA_FLAGS and a CUDA generator
    expression): converted, configured and built for gfx90a with the toolchain, so clang took
    every option the migration left; the findings are the options left out."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(options LANGUAGES CXX CUDA)\n"
        'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math -lineinfo --expt-relaxed-constexpr '
        '--extended-lambda -Wno-deprecated-gpu-targets -Xcompiler -Wall,-Wextra")\n'
        "add_executable(options main.cu)\n"
        "target_compile_options(options PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--maxrregcount=64 -Xptxas -v "
        "--default-stream per-thread -res-usage -keep>)\n")
    (src / "main.cu").write_text(
        "#include <cstdio>\n"
        "__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n"
        "int main() {\n"
        "  float* x;\n"
        "  cudaMalloc(&x, 64 * sizeof(float));\n"
        "  scale<<<1, 64>>>(x, 2.0f);\n"
        "  cudaDeviceSynchronize();\n"
        "  cudaFree(x);\n"
        '  std::printf("done\\n");\n'
        "  return 0;\n"
        "}\n")
    result = convert_tree(src, tmp_path / "out", ConvertOptions(offload_archs=("gfx90a",)))
    assert [(f.line, f.rule_id, f.name) for f in result.report.findings if f.rule_id in ("HP3003", "HP3004", "HP3010")] == [
        (3, "HP3004", "--expt-relaxed-constexpr"), (3, "HP3004", "--extended-lambda"),
        (3, "HP3004", "-Wno-deprecated-gpu-targets"), (5, "HP3010", "--maxrregcount=64")]
    _configure_and_build(toolchain, tmp_path / "out", tmp_path / "build", ("gfx90a",))
    assert (tmp_path / "build" / "options").is_file()


# ---------------------------------------------------------------------------------- real builds
def _configure_and_build(toolchain, source: Path, build: Path, archs: tuple[str, ...]) -> None:
    configure = [str(toolchain.cmake), "-S", str(source), "-B", str(build),
                 f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}",
                 f"-DHIPPORT_OFFLOAD_ARCHS={';'.join(archs)}"]
    for command in (configure, [str(toolchain.cmake), "--build", str(build), "--parallel", "2"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"


@pytest.fixture(scope="module")
def converted_projects(tmp_path_factory):
    out = tmp_path_factory.mktemp("build-projects")
    convert_tree(PROJECTS, out, ConvertOptions(offload_archs=ARCHS))
    return out


@pytest.mark.parametrize("archs", [("gfx90a",), ("gfx1100",), ("gfx90a", "gfx1100")])
def test_separable_compilation_project_builds_for_amd(toolchain, converted_projects, archs, tmp_path):
    """CUDA_SEPARABLE_COMPILATION across a static library and an executable (extern __device__
    functions and a __device__ variable in other translation units): -fgpu-rdc when compiling,
    -fgpu-rdc --hip-link when linking; the executable holds one code object per architecture."""
    _configure_and_build(toolchain, converted_projects / "rdc_project", tmp_path / "build", archs)
    assert toolchain.code_object_targets(tmp_path / "build" / "rdc_app") == sorted(
        f"hipv4-amdgcn-amd-amdhsa--{a}" for a in archs)


@pytest.mark.parametrize("archs", [("gfx90a",), ("gfx1100",)])
def test_findcuda_project_builds_for_amd(toolchain, converted_projects, archs, tmp_path):
    """find_package(CUDA), CUDA_NVCC_FLAGS, cuda_add_library/cuda_add_executable and
    CUDA_SEPARABLE_COMPILATION, migrated: each object holds exactly the asked code objects."""
    build = tmp_path / "build"
    _configure_and_build(toolchain, converted_projects / "findcuda_project", build, archs)
    assert (build / "findcuda_app").is_file()
    assert toolchain.code_object_targets(build / "findcuda_app") == [f"hipv4-amdgcn-amd-amdhsa--{archs[0]}"]


def test_the_default_architectures_come_from_the_conversion(toolchain, converted_projects, tmp_path):
    """Without -DHIPPORT_OFFLOAD_ARCHS the build uses --offload-arch of the conversion."""
    build = tmp_path / "build"
    configure = [str(toolchain.cmake), "-S", str(converted_projects / "rdc_project"), "-B", str(build),
                 f"-DCMAKE_TOOLCHAIN_FILE={toolchain.cmake_hip_toolchain_file}"]
    for command in (configure, [str(toolchain.cmake), "--build", str(build), "--parallel", "2"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert toolchain.code_object_targets(build / "rdc_app") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


def test_makefile_project_builds_for_amd(toolchain, converted_projects, tmp_path):
    """The migrated Makefile (nvcc -> hipcc, -gencode -> --offload-arch, -dc/-rdc=true ->
    -fgpu-rdc) builds with make; hipcc is stood in for by clang++ with the toolchain's HIP root,
    as ROCm's hipcc would call it."""
    import re
    import shutil

    root = re.search(r'set\(CMAKE_HIP_COMPILER_ROCM_ROOT "([^"]+)"\)',
                     toolchain.cmake_hip_toolchain_file.read_text()).group(1)
    hipcc = tmp_path / "hipcc"
    hipcc.write_text(f"#!/bin/sh\nexec {toolchain.clang} -isystem {root}/include --hip-path={root} "
                     f"--rocm-device-lib-path={toolchain.rocm_device_lib_path} -DHIP_ENABLE_WARP_SYNC_BUILTINS "
                     f"--hip-link -fuse-ld=lld -Wl,--allow-shlib-undefined -Wno-unused-command-line-argument \"$@\"\n")
    hipcc.chmod(0o755)
    project = tmp_path / "make_project"
    shutil.copytree(converted_projects / "make_project", project)
    done = subprocess.run(["make", "-C", str(project), f"NVCC={hipcc}"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert toolchain.code_object_targets(project / "make_app") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]


@pytest.mark.parametrize("build_type", ["Release", ""])
def test_findcuda_target_gives_nvcc_the_options_findcuda_gave(toolchain, build_type, tmp_path):
    """The NVIDIA build of a migrated FindCUDA project (hipport_findcuda, hipport_findcuda_target)
    against FindCUDA itself (make VERBOSE=1 prints its nvcc commands): per translation unit the
    same options in the same order (-m64, the C++ flags through -Xcompiler with the
    configuration's, CUDA_NVCC_FLAGS, OPTIONS, CUDA_NVCC_FLAGS_<CONFIG> and the OPTIONS of that
    configuration, -DNVCC; without a build type FindCUDA's Debug options), -D<target>_EXPORTS of
    the shared library aside, which CMake writes earlier. What differs, exactly: FindCUDA's
    -gencode; CMake's -forward-unknown-to-host-compiler, architectures from HIPPORT_OFFLOAD_ARCHS,
    -x cu, and -Xcompiler=-fPIC for the shared library (FindCUDA passes -fPIC among the host
    flags); the toolkit's include folder, FindCUDA's -I, is a system folder in the port (from
    CUDA::cudart_static, which hip::host links)."""
    from compile_commands import compile_commands, findcuda_commands, port_only

    from hipport.build import configure_command, find_tools

    original = tmp_path / "original"
    configure = [str(toolchain.cmake), "-S", str(FINDCUDA_OPTIONS), "-B", str(original),
                 f"-DCMAKE_BUILD_TYPE={build_type}", f"-DCUDA_TOOLKIT_ROOT_DIR={toolchain.nvcc.parent.parent}",
                 f"-DCUDA_HOST_COMPILER={toolchain.ccbin}"]
    output = ""
    for command in (configure, [str(toolchain.cmake), "--build", str(original), "--parallel", "2"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                              env=os.environ | {"VERBOSE": "1"})
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        output += done.stdout
    ported, port = tmp_path / "port", tmp_path / "port-nvidia"
    convert_tree(FINDCUDA_OPTIONS, ported)
    command = configure_command(find_tools("nvidia"), ported, port, ["90"], build_type=build_type or None)
    done = subprocess.run([*command, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    expected = findcuda_commands(output, toolchain.nvcc, FINDCUDA_OPTIONS)
    got = compile_commands(port, ported)
    assert sorted(expected) == sorted(got) == ["src/fill.cu", "src/main.cu", "src/scale.cu"]
    original_only = {"-gencode arch=compute_90,code=sm_90", f"-I {toolchain.nvcc.parent.parent / 'include'}"}
    port_added = {"-forward-unknown-to-host-compiler", "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                  "-x cu", f"-isystem {toolchain.nvcc.parent.parent / 'include'}"}
    config = "Release" if build_type else "Debug"
    per_config = {"Release": ["-DREL_ONLY"], "Debug": ["-G"]}[config]
    options = {"Release": ["-DOPT_REL"], "Debug": ["-DOPT_DBG"]}[config]
    for unit in expected:
        shared, fill = unit == "src/scale.cu", unit == "src/fill.cu"
        want = [o for o in expected[unit][1] if o not in original_only]
        have = [o for o in port_only(got[unit][1], toolchain.hip_nvidia_include) if o not in port_added]
        if shared:
            have.remove("-Xcompiler -fPIC")  # CMake's own, for a shared library
        host = {"Release": ["-Wall", "-O3", "-DNDEBUG"], "Debug": ["-Wall", "-g"]}[config]
        host = ",".join(host[:1] + (["-fPIC"] if shared else []) + host[1:])
        assert want == [f"-ccbin {toolchain.ccbin}", "-m64", *(["-Dscale_EXPORTS"] if shared else []),
                        f"-Xcompiler {host}", "--use_fast_math", "-Xcompiler -Wextra", "-Xcompiler -Wshadow",
                        *(["-lineinfo"] if fill else []), *per_config, *(options if fill else []), "-DNVCC"], unit
        # the same options in the same order, but for the definition, which CMake writes first
        assert [o for o in have if o != "-Dscale_EXPORTS"] == [o for o in want if o != "-Dscale_EXPORTS"], unit
        assert sorted(have) == sorted(want), unit


# ------------------------------------------------ issue 10 point 9a: warp-sync builtins on hipcc
SHUFFLE_MAKEFILE = (
    "NVCC := nvcc\n"
    "NVCCFLAGS := -O2 -arch=sm_80\n"
    "\n"
    "reduce.o: reduce.cu\n"
    "\t$(NVCC) $(NVCCFLAGS) -c reduce.cu -o reduce.o\n"
    "\n"
    "lanes.o: lanes.cu\n"
    "\tnvcc -O2 -arch=sm_80 -c lanes.cu -o lanes.o\n")

#: Sums a value over the 64 lanes of a wavefront with __shfl_down_sync (written for this test).
SHUFFLE_SOURCE = (
    "#include <cuda_runtime.h>\n"
    "__global__ void wave_sum(const float* in, float* out) {\n"
    "  float v = in[threadIdx.x];\n"
    "  for (int offset = warpSize / 2; offset > 0; offset /= 2)\n"
    "    v += __shfl_down_sync(0xffffffffffffffffull, v, offset);\n"
    "  if (threadIdx.x == 0) *out = v;\n"
    "}\n")


def test_a_migrated_makefile_defines_the_warp_sync_builtins_once():
    """Both forms of the compiler (the NVCC variable, a literal nvcc in a recipe) become hipcc with
    -DHIP_ENABLE_WARP_SYNC_BUILTINS; a Makefile naming the macro itself gets nothing added; a
    comment naming nvcc in a recipe is left alone."""
    [result] = migrate_build_files([BuildFile("Makefile", SHUFFLE_MAKEFILE.encode())], default_rules(),
                                   BuildOptions(("gfx90a",)))
    assert result.output.decode() == (
        "NVCC := hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
        "NVCCFLAGS := -O2 --offload-arch=gfx90a\n"
        "\n"
        "reduce.o: reduce.hip\n"
        "\t$(NVCC) $(NVCCFLAGS) -c reduce.hip -o reduce.o\n"
        "\n"
        "lanes.o: lanes.hip\n"
        "\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS -O2 --offload-arch=gfx90a -c lanes.hip -o lanes.o\n")
    own = "NVCC := nvcc -DHIP_ENABLE_WARP_SYNC_BUILTINS=1\nall:\n\tnvcc -c a.cu   # nvcc, not hipcc\n"
    [result] = migrate_build_files([BuildFile("Makefile", own.encode())], default_rules(), BuildOptions(("gfx90a",)))
    assert result.output.decode() == ("NVCC := hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS=1\n"
                                      "all:\n\thipcc -c a.hip   # nvcc, not hipcc\n")
    assert result.findings == []


def test_a_migrated_makefile_builds_a_shuffle_kernel_for_gfx90a(toolchain, tmp_path):
    """make runs the migrated recipes with a hipcc that is the toolchain's clang with the HIP root
    and nothing else (no warp-sync define of its own): both objects build for gfx90a. The same
    recipes with the define taken out fail on __shfl_down_sync, so the define is what builds."""
    import shutil

    if shutil.which("make") is None:  # under CI or HIPPORT_REQUIRE_TOOLCHAIN a missing make fails, never skips
        if os.environ.get("CI") or os.environ.get("HIPPORT_REQUIRE_TOOLCHAIN"):
            pytest.fail("make is not installed, and this run requires the toolchain", pytrace=False)
        pytest.skip("make is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "Makefile").write_text(SHUFFLE_MAKEFILE)
    (src / "reduce.cu").write_text(SHUFFLE_SOURCE)
    (src / "lanes.cu").write_text(SHUFFLE_SOURCE.replace("wave_sum", "lane_sum"))
    out = tmp_path / "out"
    result = convert_tree(src, out, ConvertOptions(offload_archs=("gfx90a",)))
    assert [f for f in result.report.findings if f.severity == "error"] == []
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    hipcc = bin_dir / "hipcc"
    hipcc.write_text(f"#!/bin/sh\nexec {toolchain.clang} -x hip -isystem {toolchain.hip_amd_include} "
                     f"--hip-path={toolchain.hip_amd_root} --rocm-device-lib-path={toolchain.rocm_device_lib_path} "
                     "\"$@\"\n")
    hipcc.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["make", "-C", str(out), "reduce.o", "lanes.o"], capture_output=True, text=True,
                          timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("-DHIP_ENABLE_WARP_SYNC_BUILTINS") == 2
    for obj in ("reduce.o", "lanes.o"):
        assert toolchain.code_object_targets(out / obj) == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]
    without = out / "Makefile.without"
    without.write_text((out / "Makefile").read_text().replace(" -DHIP_ENABLE_WARP_SYNC_BUILTINS", ""))
    (out / "reduce.o").unlink()
    failed = subprocess.run(["make", "-C", str(out), "-f", without.name, "reduce.o"], capture_output=True,
                            text=True, timeout=900, env=env)
    assert failed.returncode != 0 and "__shfl_down_sync" in failed.stderr


# ------------------------------------------------------- issue 10 point 9f: -g -G is not -g -g
@pytest.mark.parametrize("nvcc, hip", [
    ("-g -G", "-g"), ("-G -g", "-g"), ("-G", "-g"), ("-G -G", "-g"), ("-O0 -g --device-debug", "-O0 -g"),
    ("-g -lineinfo -G", "-g -gline-tables-only")])
def test_device_debug_is_not_written_twice(nvcc, hip):
    """-G (device debug) is clang's -g: left out where -g is already among the options of the
    variable or command line; alone it becomes -g. No finding either way."""
    text = f"NVCC := nvcc\nNVCCFLAGS := {nvcc}\ndebug:\n\tnvcc {nvcc} -c a.cu\n"
    [result] = migrate_build_files([BuildFile("Makefile", text.encode())], default_rules(), BuildOptions(ARCHS))
    assert result.output.decode() == (f"NVCC := hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\nNVCCFLAGS := {hip}\n"
                                      f"debug:\n\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS {hip} -c a.hip\n")
    assert result.findings == []
    cmake = f'project(p LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_FLAGS_DEBUG "{nvcc}")\n'
    [result] = migrate_build_files([BuildFile("CMakeLists.txt", cmake.encode())], default_rules(),
                                   BuildOptions(ARCHS))
    assert result.output.decode().splitlines()[3:] == [f'set(CMAKE_CUDA_FLAGS_DEBUG "{nvcc}")',
                                                      f'set(CMAKE_HIP_FLAGS_DEBUG "{hip}")']


def _regenerate() -> None:  # python tests/test_build_migration.py
    for case_dir in sorted(CASES.iterdir()):
        results = _migrate(case_dir.name)
        for result in results:
            target = case_dir / "expected" / result.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(result.output)
        (case_dir / "findings.txt").write_text(_findings_text(results), encoding="utf-8")
        print(case_dir.name, len(results), "files")


if __name__ == "__main__":
    _regenerate()
