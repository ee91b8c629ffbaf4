"""scripts/compat_gpu_run.py: the run script it writes, the ldd check of the binaries it copies
and the table it makes of a device log (exit codes per variant, outputs compared with the
original's except lines reporting measured times)."""

from __future__ import annotations

import importlib.util

from helpers import REPO

spec = importlib.util.spec_from_file_location("compat_gpu_run", REPO / "scripts" / "compat_gpu_run.py")
compat_gpu_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compat_gpu_run)


def test_run_script_runs_each_binary_three_times_between_markers():
    script = compat_gpu_run.run_script(["p-cuda-original", "p-compat-cuda"])
    lines = script.splitlines()
    assert lines[3:5] == ['HERE="$(cd "$(dirname "$0")" && pwd)"', 'cd "$HERE/bin"']
    assert not any(line.startswith("device_build") for line in lines)
    assert [line for line in lines if line.startswith('echo "===')] == [
        f'echo "=== p-{variant} round {r}"' if kind == "round" else f'echo "=== exit p-{variant} $rc"'
        for r in (1, 2, 3) for variant in ("cuda-original", "compat-cuda") for kind in ("round", "exit")]
    assert lines[-1] == "exit $status"


def test_only_system_libraries_and_cudart_are_allowed():
    ldd = ["linux-vdso.so.1 (0x00007ffd)", "libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x1)",
           "libcudart.so.12 => /opt/cuda/lib64/libcudart.so.12 (0x2)", "libcublas.so.12 => not found",
           "libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x3)", "/lib64/ld-linux-x86-64.so.2 (0x4)",
           "libcurand.so.10 => /usr/lib/libcurand.so.10 (0x5)"]
    assert compat_gpu_run.foreign_libraries(ldd) == ["libcublas.so.12", "libcurand.so.10"]


def test_table_compares_every_variant_with_the_original(tmp_path):
    log = tmp_path / "device.log"
    runs = []
    for r in (1, 2, 3):
        for variant, checksum, ms in (("cuda-original", 10, "0.5"), ("compat-cuda", 10, "0.7"), ("compat-hipnv", 10, "0.6")):
            runs.append(f"=== a-{variant} round {r}\nchecksum {checksum}\nkernel_median_ms k {ms}\n"
                        f"stream 0: {r}.250 ms\nTest PASSED\n=== exit a-{variant} 0\n")
        for variant, checksum, rc in (("cuda-original", 4, 0), ("compat-cuda", 4 if r < 3 else 5, 0 if r < 3 else 1)):
            runs.append(f"=== b-{variant}-tool round {r}\nsum {checksum}\n"
                        f"Test {'PASSED' if rc == 0 else 'FAILED'}\n=== exit b-{variant}-tool {rc}\n")
    log.write_text("GPU: NVIDIA H200, 580.00, 143771 MiB\n" + "".join(runs))
    assert compat_gpu_run.table(log).splitlines() == [
        "| project | binary | exit codes (cuda-original / compat-cuda / compat-hipnv) | last line | outputs equal the original's |",
        "| --- | --- | --- | --- | --- |",
        "| a | a | 0 0 0 / 0 0 0 / 0 0 0 | `Test PASSED` | yes |",
        "| b | tool | 0 0 0 / 0 0 1 / - | `Test FAILED` | NO (compat-hipnv not run) |",
    ]


def test_run_script_rebuilds_binaries_that_need_libraries_on_the_gpu_machine_first():
    """A binary needing a library the GPU machine lacks (blas_rand's cuBLAS 12) is built there
    first, with that machine's CMake and nvcc, from the source folder copied into OUT."""
    script = compat_gpu_run.run_script(
        ["p-cuda-original", "p-compat-hipnv"],
        rebuilds=[("p-compat-hipnv", "compat/p", "p", compat_gpu_run.DEVICE_FLAGS["compat-hipnv"])])
    lines = script.splitlines()
    builds = [line for line in lines if line.startswith("device_build ")]
    assert builds == ['device_build p-compat-hipnv compat/p p "-DHIPPORT_PLATFORM=nvidia" '
                      '"-DHIPPORT_HIP_NVIDIA_INCLUDE=$HERE/hip-include"']
    assert lines.index(builds[0]) < lines.index('echo "=== p-cuda-original round 1"')
    assert '    echo "REBUILD FAILED $binary"; tail -n 40 "$dir.log"; status=1' in lines


def test_table_leaves_out_a_binary_whose_rebuild_failed(tmp_path):
    """timeout exits 127 for a binary that is not there: that variant did not run."""
    log = tmp_path / "device.log"
    runs = ["=== rebuild c-compat-hipnv here with Build cuda_13.0\nREBUILD FAILED c-compat-hipnv\nerror: x\n"]
    for r in (1, 2):
        for variant in ("cuda-original", "compat-cuda"):
            runs.append(f"=== c-{variant} round {r}\nsum 3\nTest PASSED\n=== exit c-{variant} 0\n")
        runs.append(f"=== c-compat-hipnv round {r}\ntimeout: failed to run command './c-compat-hipnv': "
                    f"No such file or directory\n=== exit c-compat-hipnv 127\n")
    log.write_text("".join(runs))
    assert compat_gpu_run.table(log).splitlines()[2:] == [
        "| c | c | 0 0 / 0 0 / - | `Test PASSED` | yes (compat-hipnv not run) |"]
