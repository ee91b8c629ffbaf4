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
    assert lines[3] == 'cd "$(dirname "$0")/bin"'
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
