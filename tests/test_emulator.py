"""The wavefront emulator (hipport emulate, hipport.emulator): exact results of each wavefront
operation at widths 64 and 32, barriers and shared memory, the HIP 6.4 mask rules, refusals of
what it cannot run, and every corpus program run at both widths against the H200 output.

Needs a host C++ compiler (g++-12 or clang++-19; scripts/install-toolchain.sh installs g++-12).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport import emulator
from hipport.cli import main
from hipport.compat import compat_tree
from hipport.convert import ConvertOptions, convert_tree

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "emulator"
CORPUS = ROOT / "corpus"
H200_LOG = ROOT / "docs" / "gpu-runs" / "2026-11-30-corpus-all.log"
SINGLE = ("vector_add", "stream_events", "shared_reduce", "template_namespace", "multi_file")
PROJECTS = ("constant_filter", "cooperative_reduce", "legacy_findcuda", "makefile_saxpy", "rdc_device_functions",
            "stream_pipeline", "template_library", "warp_shuffle_scan")
REFUSED = {  # projects that need what the emulator cannot offer, and the refusal lines expected
    "blas_rand": ["app/cublas_check.h:5: hipBLAS (hipblas/hipblas.h) is not supported by the hipport emulator",
                  "include/blas_rand/checks.h:9: hipRAND (hiprand/hiprand.h) is not supported by the hipport emulator"],
    "texture_sampling": ["src/resample.hip:15: tex2D (texture fetch) is not supported by the hipport emulator",
                         "src/texture_image.cpp:25: hipMallocArray is not supported by the hipport emulator"],
}


@pytest.fixture(scope="session")
def host_compiler() -> str:
    """The host compiler the emulator uses; required in CI and with HIPPORT_REQUIRE_TOOLCHAIN."""
    try:
        return emulator.find_compiler()
    except emulator.EmulatorError as error:
        if os.environ.get("CI") or os.environ.get("HIPPORT_REQUIRE_TOOLCHAIN"):
            pytest.fail(str(error), pytrace=False)
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    """One build folder per test session (builds are reused within it, never across sessions)."""
    return tmp_path_factory.mktemp("emulator-cache")


def _run(path: Path, wave: int, cache_dir: Path, **options) -> emulator.RunResult:
    key = f"{path.name}-{wave}-{'-'.join(options.get('defines', ()))}"
    return emulator.execute(path, wave, build_dir=cache_dir / key, **options)


# ---------------------------------------------------------------------------------------------
# Wavefront operations, barriers, shared memory, atomics, runtime: tests/fixtures/emulator/intrinsics.hip


def _shfl_index(op: str, self: int, arg: int, width: int) -> int:
    """The source lane of a shuffle, as HIP 6.4 amd_warp_functions.h computes it (lanes of one wavefront)."""
    if op == "shfl":
        return (arg & (width - 1)) + (self & ~(width - 1))
    if op == "up":
        index = self - arg
        return self if index < (self & ~(width - 1)) else index
    if op == "down":
        return self if (self & (width - 1)) + arg >= width else self + arg
    index = self ^ arg
    return self if index >= ((self + width) & ~(width - 1)) else index


def _expected_intrinsics(wave: int) -> dict[str, list[str]]:
    """Every line of intrinsics.hip's output at width ``wave``, from the HIP definitions."""
    threads = range(64)

    def per_thread(function):
        return [function(t, t % wave, t - t % wave) for t in threads]

    def shuffle(op, arg, width=wave):
        return per_thread(lambda t, lane, first: str(10 * (first + _shfl_index(op, lane, arg, width))))

    def ballot_of(predicate, lanes):
        return sum(1 << (t - lanes[0]) for t in lanes if predicate(t))

    def wave_lanes(t):
        first = t - t % wave
        return list(range(first, min(first + wave, 64)))

    ballot = per_thread(lambda t, lane, first: f"{ballot_of(lambda u: u % 3 == 0, wave_lanes(t)):x}")
    return {
        "warpSize": [str(wave), str(wave)],
        "ballot": ballot,
        "shfl_down": shuffle("down", 1),
        "shfl40": shuffle("shfl", 40),
        "shfl_xor32": shuffle("xor", 32),
        "shfl_up": shuffle("up", 1),
        "any40": per_thread(lambda t, lane, first: str(int(any(u == 40 for u in wave_lanes(t))))),
        "all40": per_thread(lambda t, lane, first: str(int(all(u < 40 for u in wave_lanes(t))))),
        "lane": per_thread(lambda t, lane, first: str(lane)),
        "shfl_down_w16": shuffle("down", 8, 16),
        "activemask": per_thread(lambda t, lane, first:
                                 f"{ballot_of(lambda u: u % 2 == 1, wave_lanes(t)):x}" if t % 2 else "0"),
        "ballot_sync": per_thread(lambda t, lane, first: f"{ballot_of(lambda u: u < 5 or u == 63, wave_lanes(t)):x}"),
        "shfl_down_sync": per_thread(lambda t, lane, first: str(first + _shfl_index("down", lane, 16, wave))),
        "any_sync": per_thread(lambda t, lane, first: str(int(any(u == 0 for u in wave_lanes(t))))),
        "all_sync": per_thread(lambda t, lane, first: str(int(all(u != 33 for u in wave_lanes(t))))),
        "ballot_exited": [f"{ballot_of(lambda u: u < 36, [u for u in wave_lanes(t) if u < 40]):x}" if t < 36 else "0"
                          for t in range(40)],
        "barrier_order": [str((127 - t) ** 2) for t in range(8)],
        "barrier_reduce": ["8256", "32", "1", "1"],
        "shared_before": ["ffffffff"] * 4,
        "shared_after": ["100", "101", "102", "103"],
        "cooperative_shared": ["7", "8", "9", "10"],
        "dynamic_shared": [f"{7 - t + 0.5:.1f}" for t in range(8)],
        "atomics_int": ["256", "-512", "127", "-127", "0", "44", "42", "42"],
        "atomics_uint": ["ffffffff", "0", "ffff0000", "6", "4"],
        "atomics_float": ["128.0"],
        "atomics_ull": [f"{256 << 33:x}"],
        "constant": ["6", "10", "14", "22"],
        "device_counter": ["26"],
        "launch_ggl": [str(t + 100 + wave) for t in range(3)],
        "event_elapsed_nonnegative": ["1"],
        "bad_launch": ["hipErrorInvalidConfiguration", "/", "invalid", "configuration", "argument", "/", "then",
                       "hipSuccess"],
        "bits": ["8", "40", "0", "8", "41", "31", "32", "63"],
    }


@pytest.fixture(scope="module", params=[64, 32], ids=["wave64", "wave32"])
def intrinsics(request, host_compiler, cache_dir):
    result = _run(FIXTURES / "intrinsics.hip", request.param, cache_dir)
    assert result.returncode == 0, result.stderr
    lines = {}
    for line in result.stdout.splitlines():
        name, _, values = line.partition(":")
        lines[name] = values.split()
    return request.param, lines, result.stdout


def test_every_check_line_matches_the_hip_definitions(intrinsics):
    wave, lines, stdout = intrinsics
    expected = _expected_intrinsics(wave)
    for name, values in expected.items():
        assert lines.get(name) == values, f"{name} at wave {wave}"
    assert stdout.rstrip().endswith("Test PASSED")


def test_ballot_over_64_lanes(intrinsics):
    wave, lines, _ = intrinsics
    if wave == 64:  # one wavefront: bits 0, 3, ..., 63
        assert set(lines["ballot"]) == {"9249249249249249"}
    else:  # two wavefronts: threads 0, 3, .. of the first; 33, 36, .. (lanes 1, 4, ..) of the second
        assert lines["ballot"][:32] == ["49249249"] * 32 and lines["ballot"][32:] == ["92492492"] * 32


def test_shuffles_crossing_lane_32(intrinsics):
    wave, lines, _ = intrinsics
    if wave == 64:
        assert lines["shfl_down"][31] == "320" and lines["shfl_up"][32] == "310"
        assert lines["shfl_xor32"][0] == "320" and lines["shfl_xor32"][63] == "310"
        assert set(lines["shfl40"]) == {"400"}
    else:  # the 32-lane boundary is a wavefront boundary: a lane keeps its own value
        assert lines["shfl_down"][31] == "310" and lines["shfl_up"][32] == "320"
        assert lines["shfl_xor32"][0] == "0" and lines["shfl_xor32"][63] == "630"
        assert lines["shfl40"][0] == "80" and lines["shfl40"][32] == "400"  # lane 40 & 31 = 8 of each wavefront


def test_syncthreads_orders_shared_memory_and_blocks_do_not_share_it(intrinsics):
    _, lines, _ = intrinsics
    assert lines["barrier_order"][:2] == ["16129", "15876"]  # s[127 - t] written by another thread before the barrier
    assert lines["barrier_reduce"] == ["8256", "32", "1", "1"]  # tree sum 1..128; __syncthreads_count/_and/_or
    assert lines["shared_before"] == ["ffffffff"] * 4  # no block sees the value an earlier block left
    assert lines["shared_after"] == ["100", "101", "102", "103"]
    assert lines["cooperative_shared"] == ["7", "8", "9", "10"]  # four blocks live at once, each its own copy


def test_sync_mask_that_names_absent_lanes_traps_at_wave64_only(host_compiler, cache_dir):
    wide = _run(FIXTURES / "sync_mask.hip", 64, cache_dir)
    assert wide.returncode == 134
    assert re.search(r"hipport emulator: __ballot_sync at \S*/tests/fixtures/emulator/sync_mask\.hip:9: mask 0xffffffff but the lanes "
                     r"calling it with that mask are 0xffffffffffffffff \(HIP traps", wide.stderr), wide.stderr
    narrow = _run(FIXTURES / "sync_mask.hip", 32, cache_dir)
    assert (narrow.returncode, narrow.stdout) == (0, "ballot_sync: 55555555 55555555\n")
    release = _run(FIXTURES / "sync_mask.hip", 64, cache_dir, defines=["NDEBUG"])  # hip_assert.h: no check
    assert (release.returncode, release.stdout) == (0, "ballot_sync: 55555555 55555555\n")


def test_the_same_program_in_another_folder_is_built_again_and_named_there(host_compiler, tmp_path, monkeypatch):
    """The default build cache: a copy of the same program in another folder is another build,
    so the trap message names the copy that ran (once it named the folder built first)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(FIXTURES / "sync_mask.hip", tmp_path / folder / "prog.hip")
        result = emulator.execute(tmp_path / folder / "prog.hip", 64)
        assert f"__ballot_sync at {tmp_path / folder / 'prog.hip'}:9: mask 0xffffffff" in result.stderr, result.stderr


def test_a_32_bit_mask_stops_the_build_as_in_hip(host_compiler, cache_dir):
    with pytest.raises(emulator.EmulatorError) as error:
        _run(FIXTURES / "mask32.hip", 64, cache_dir)
    assert "The mask must be a 64-bit integer. Implicitly promoting a smaller integer is almost always an error." \
        in str(error.value)


def test_divergent_wavefront_operations_stop_the_run_naming_both(host_compiler, cache_dir):
    result = _run(FIXTURES / "divergent.hip", 64, cache_dir)
    assert result.returncode == 134 and result.stdout == ""
    assert re.search(r"hipport emulator: lanes of one wavefront wait at two different wavefront operations: "
                     r"__shfl_xor at \S*/divergent\.hip:11 and __shfl at \S*/divergent\.hip:13; ", result.stderr), \
        result.stderr


def test_unsupported_apis_stop_the_build_naming_each():
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(FIXTURES / "unsupported.hip", 64)
    assert str(error.value).splitlines() == [
        "the hipport emulator cannot build this program:",
        "  unsupported.hip:3: hipBLAS (hipblas/hipblas.h) is not supported by the hipport emulator: it runs the HIP "
        "runtime and kernels only",
        "  unsupported.hip:8: hipTextureObject_t is not supported by the hipport emulator",
        "  unsupported.hip:10: tex2D (texture fetch) is not supported by the hipport emulator",
        "  unsupported.hip:15: hipArray_t is not supported by the hipport emulator",
        "  unsupported.hip:16: hipChannelFormatDesc is not supported by the hipport emulator",
        "  unsupported.hip:16: hipCreateChannelDesc is not supported by the hipport emulator",
        "  unsupported.hip:17: hipMallocArray is not supported by the hipport emulator",
    ]


def test_a_launch_inside_a_macro_is_refused():
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(FIXTURES / "macro_launch.hip", 32)
    assert str(error.value).splitlines()[1] == (
        "  macro_launch.hip:6: a kernel launch inside a macro: the emulator cannot rewrite it (write the launch "
        "outside the macro, or use hipLaunchKernelGGL)")


_BRANCHES = (
    "#include <hip/hip_runtime.h>\n"
    "#if defined(__NVCC__) || (defined(__CUDA__) && !defined(__HIP__))\n"
    "#define SYNC() __syncwarp()\n"
    "#elif defined(SOME_BUILD_OPTION)\n"
    "#define SYNC() tex2D(1)\n"
    "#else\n"
    "#define SYNC() __syncthreads()\n"
    "#endif\n"
    "#ifndef HIPPORT_EMULATOR\n"
    "__device__ void nv() { __syncwarp(); }\n"
    "#endif\n"
    "# ifdef __CUDA_ARCH__\n"
    "__device__ void arch() { __reduce_add_sync(0xffffffffffffffffull, 1); }\n"
    "# endif\n"
    "__global__ void k(int* o) { SYNC(); o[threadIdx.x] = 1; }\n"
    "int main() { return 0; }\n")


def test_branches_the_emulator_never_compiles_are_not_refused(tmp_path):
    """An #if/#ifdef/#ifndef branch that only CUDA or NVIDIA compilers take (or that excludes the
    emulator) is not checked; a condition on any other macro is, as the emulator cannot tell."""
    from hipport.emulator.transform import rewrite
    _, refusals, _ = rewrite("branches.hip", _BRANCHES.encode())
    assert [str(r) for r in refusals] == ["branches.hip:5: tex2D (texture fetch) is not supported by the hipport emulator"]
    _, refusals, _ = rewrite("branches.hip", _BRANCHES.replace("#elif defined(SOME_BUILD_OPTION)", "#elif defined(__CUDACC__) && defined(SOME_BUILD_OPTION)").encode())
    assert refusals == []
    _, refusals, _ = rewrite("own.hip", ("#define __NVCC__ 1\n" + _BRANCHES).encode())  # the file defines it: unknown
    assert "own.hip:4: __syncwarp (not declared by HIP 6.4 either) is not supported by the hipport emulator" in \
        [str(r) for r in refusals]


def test_cli_emulate_runs_and_refuses(host_compiler, cache_dir, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["emulate", str(FIXTURES / "sync_mask.hip"), "--wave", "32", "--build-dir",
                                  str(tmp_path / "b")])
    assert result.exit_code == 0 and result.output.strip() == str(tmp_path / "b" / "program")
    refused = runner.invoke(main, ["emulate", str(FIXTURES / "unsupported.hip"), "--wave", "64"])
    assert refused.exit_code == 2
    assert "unsupported.hip:17: hipMallocArray is not supported by the hipport emulator" in refused.output
    bad = runner.invoke(main, ["emulate", str(FIXTURES / "sync_mask.hip"), "--wave", "16"])
    assert bad.exit_code == 2 and "'16' is not one of '64', '32'" in bad.output


def test_an_unconverted_cuda_tree_is_refused_naming_its_cuda_include(tmp_path):
    """The CUDA sources themselves given to ``emulate``: one clear error naming the first CUDA
    header include (which no convert output has), not the host compiler's errors; the tree's own
    ``cuda.h`` is its own header, not CUDA's."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text('#include "cuda.h"\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n')
    (src / "cuda.h").write_text("#pragma once\n")
    (src / "b.cu").write_text("#include <cstdio>\n\n#  include <cuda_runtime.h>\nvoid f() {}\n")
    result = CliRunner().invoke(main, ["emulate", str(src), "--wave", "64"])
    assert result.exit_code == 2
    assert result.output == (f"Error: {src / 'b.cu'}:3: includes <cuda_runtime.h>, a CUDA header: this is CUDA "
                             f"source, not a hipport port; convert it first (hipport convert {src} -o OUT, or with "
                             "--compat), then run hipport emulate OUT\n")


def test_cuda_sources_with_no_include_or_with_unsupported_apis_are_refused_as_cuda(tmp_path):
    """CUDA that nvcc compiles with no include at all, and CUDA calling an API the emulator
    lacks: both get the "convert it first" error, not g++'s errors or an API refusal."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.cu").write_text("__global__ void k(int* a) { a[threadIdx.x] = 1; }\n"
                                "int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n")
    result = CliRunner().invoke(main, ["emulate", str(plain), "--wave", "32"])
    assert (result.exit_code, result.output) == (2, f"Error: {plain / 'a.cu'}: has __global__ code and includes no HIP "
                                                    f"header: this is CUDA source, not a hipport port; convert it first "
                                                    f"(hipport convert {plain} -o OUT, or with --compat), then run "
                                                    "hipport emulate OUT\n")
    warp = tmp_path / "warp"
    warp.mkdir()
    (warp / "b.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() { __syncwarp(); }\n")
    result = CliRunner().invoke(main, ["emulate", str(warp), "--wave", "32"])
    assert result.exit_code == 2 and result.output.startswith(
        f"Error: {warp / 'b.cu'}:1: includes <cuda_runtime.h>, a CUDA header: this is CUDA source")


def test_a_folder_of_two_programs_is_refused_naming_one_to_emulate(tmp_path):
    for program in ("a", "b"):
        (tmp_path / program).mkdir()
        shutil.copy(FIXTURES / "sync_mask.hip", tmp_path / program / "prog.hip")
    result = CliRunner().invoke(main, ["emulate", str(tmp_path), "--wave", "64"])
    assert (result.exit_code, result.output) == (2, f"Error: {tmp_path}: 2 translation units define main (a/prog.hip, "
                                                    "b/prog.hip), so this is more than one program; emulate one "
                                                    f"program's folder (hipport emulate {tmp_path / 'a'})\n")


def test_build_folders_inside_the_program_are_not_part_of_it(host_compiler, tmp_path):
    """--build-dir inside the port: the build's rewritten copy (``src/``) is not taken for the
    program's own files by the next build, with the same or another build folder (once it was,
    and the link failed with two ``main``)."""
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(FIXTURES / "sync_mask.hip", out / "prog.hip")
    runner = CliRunner()
    for wave, folder in (("64", "emu"), ("32", "emu"), ("32", "emu2")):
        result = runner.invoke(main, ["emulate", str(out), "--wave", wave, "--build-dir", str(out / folder)])
        assert (result.exit_code, result.output.strip()) == (0, str(out / folder / "program")), result.output
    assert (out / "emu" / "src" / "prog.hip").exists() and (out / "emu" / ".hipport-emulator-build").exists()


def test_a_build_folder_holding_the_users_files_is_refused_and_left_alone(host_compiler, tmp_path, monkeypatch):
    """``--build-dir`` naming a folder of the user's files (the current folder, which holds the
    CUDA sources in src/; or the port itself): refused before anything is written (once the
    build replaced that src/ with its rewritten copy). A relative new folder works."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "hist.cu").write_text("int main() { return 0; }\n")
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(FIXTURES / "sync_mask.hip", out / "prog.hip")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for folder in (".", "out"):
        result = runner.invoke(main, ["emulate", "out", "--wave", "32", "--build-dir", folder])
        assert result.exit_code == 2
        assert result.output == (f"Error: --build-dir {folder}: the folder holds files and is not an emulator build "
                                 "folder; give a new or empty folder (the build writes src/, obj/ and program there)\n")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "out", "out/prog.hip", "src", "src/hist.cu"]
    result = runner.invoke(main, ["emulate", "out", "--wave", "32", "--build-dir", "emu", "--run"])
    assert result.exit_code == 0 and (tmp_path / "emu" / "program").exists(), result.output


def test_the_users_files_are_not_modified(host_compiler, cache_dir, tmp_path):
    source = tmp_path / "prog.hip"
    shutil.copy(FIXTURES / "sync_mask.hip", source)
    before = source.read_bytes()
    _run(source, 32, cache_dir)
    assert source.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["prog.hip"]


# ---------------------------------------------------------------------------------------------
# The corpus: every program at both widths prints what it printed on the H200.

_TIMING = re.compile(r"^kernel_median_ms |\d ms\b|^\[\w+\] device \"")
# stream_events prints the largest difference between the device's sinf/sqrtf and the host's:
# 4.768e-07 on the H200, 0 in the emulator (the host computes both); the line is compared without it.
_DEVICE_MATH_ERROR = re.compile(r"max abs error [-+.e0-9]+")


def _comparable(lines: list[str]) -> list[str]:
    """Output lines less the timings and the line describing the device (its name, SM count and
    the grid sized from them: shared_reduce), with the device-math error of stream_events masked."""
    return [_DEVICE_MATH_ERROR.sub("max abs error <device sinf>", line) for line in lines if not _TIMING.search(line)]


def _h200_lines(name: str) -> list[str]:
    text = H200_LOG.read_text()
    match = re.search(rf"^=== {name} hip round 1\n(.*?)^=== exit {name} hip 0$", text, re.S | re.M)
    assert match, f"{name}: no round 1 of the port in {H200_LOG.name}"
    return match.group(1).splitlines()


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """The corpus converted as scripts/gpu_run.py converted it for the H200 run: the single-file
    programs with ``hipport convert``, the projects with ``hipport convert --fix``."""
    out = tmp_path_factory.mktemp("ported")
    done: dict[str, Path] = {}

    def port(name: str) -> Path:
        if name not in done:
            project = name not in SINGLE
            source = CORPUS / "projects" / name if project else CORPUS / name
            convert_tree(source, out / name, ConvertOptions(fix=project))
            done[name] = out / name
        return done[name]

    return port


# cooperative_reduce and warp_shuffle_scan time 110 launches of wavefront-operation-heavy kernels,
# which take minutes here (every lane switches fibers at every operation; measured on an idle
# 16-core host, one core each: cooperative_reduce 54 s at wave 32 and 56 s at wave 64,
# warp_shuffle_scan 380 s at wave 32). They run in CI all the same: a skip there would be a failure.


@pytest.mark.parametrize("wave", [64, 32], ids=["wave64", "wave32"])
@pytest.mark.parametrize("name", SINGLE + PROJECTS)
def test_corpus_program_passes_with_the_h200_output(name, wave, ported, host_compiler, cache_dir):
    """warp_shuffle_scan included: its --fix port runs as 32-lane logical warps (HP1116,
    hipport/warp32.py), right at wave 64 too."""
    result = _run(ported(name), wave, cache_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "Test PASSED"
    assert _comparable(lines) == _comparable(_h200_lines(name))
    if name == "stream_events":
        assert "max abs error 0.000e+00 " in result.stdout


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_corpus_projects_needing_libraries_or_textures_are_refused(name, ported):
    with pytest.raises(emulator.EmulatorError) as error:
        emulator.build(ported(name), 64)
    lines = [line.strip() for line in str(error.value).splitlines()]
    for expected in REFUSED[name]:
        assert any(line.startswith(expected) for line in lines), (expected, lines)


@pytest.mark.parametrize("wave", [64, 32], ids=["wave64", "wave32"])
def test_compat_fix_tree_of_warp_shuffle_scan_passes_with_the_h200_output(wave, tmp_path, host_compiler, cache_dir):
    """``convert --compat --fix`` keeps the CUDA sources, which run as 32-lane logical warps
    under HIP for AMD (HP1116): the emulator builds the compat tree as its AMD build does
    (hipport_compat.h forced into the .cu units, the shim folder first on the include path)."""
    out = tmp_path / "compat"
    compat_tree(CORPUS / "projects" / "warp_shuffle_scan", out, ConvertOptions(fix=True))
    assert not list(out.rglob("*.hip"))
    result = _run(out, wave, cache_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "Test PASSED"
    assert _comparable(lines) == _comparable(_h200_lines("warp_shuffle_scan"))
