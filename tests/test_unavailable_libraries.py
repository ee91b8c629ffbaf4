"""Includes of CUDA library headers that no HIP/ROCm library replaces get HP3005 on their line.

rules/build/libraries.yaml lists each CUDA library's headers (``cuda_headers``) and its HIP/ROCm
replacements. A source that includes such a header and that no header rule maps (``<nvjpeg.h>``,
``"npp.h"``, ``<nppi_filtering_functions.h>``, ``<cufile.h>``, ``<nvml.h>``) keeps the include as
written, which fails to compile for AMD ("'nvjpeg.h' file not found"; cuda-samples' nvJPEG
helpers did, with no finding): the line carries HP3005 cuda-library-unavailable, under each
``--target-libs`` where the library has no replacement with that header. Headers the rules map
(``cublas_v2.h``) or that a replacement keeps (Thrust's) get none, and neither does a project file
of the same name.
"""

from __future__ import annotations

import pytest

from hipport.convert import ConvertOptions, check_tree
from hipport.toolchain import CompileError

SOURCE = """\
#include <cublas_v2.h>
#include <nvjpeg.h>
#include "npp.h"
#include <nppi_filtering_functions.h>
#include <cufile.h>
#include <nvml.h>
#include <thrust/device_vector.h>
#include "local/nvjpeg.h"
int main() { return 0; }
"""

NVJPEG = "nvJPEG ({}) kept as written: no HIP counterpart in Debian (AMD's rocJPEG is not packaged)"
NPP = "NPP ({}) kept as written: no HIP counterpart in Debian (AMD's rocPP is not packaged)"
CUFILE = "cuFile (GPUDirect Storage) (#include <cufile.h>) kept as written: no HIP counterpart"
NVML = "NVML (#include <nvml.h>) kept as written: ROCm SMI's API differs from NVML's: the calls need porting by hand"


def _findings(tmp_path, target_libs):
    src = tmp_path / "src"
    (src / "local").mkdir(parents=True)
    (src / "app.cu").write_text(SOURCE)
    (src / "local" / "nvjpeg.h").write_text("#pragma once\n")
    report = check_tree(src, ConvertOptions(jobs=1, target_libs=target_libs))
    return [(f.path, f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings
            if f.rule_id == "HP3005"]


@pytest.mark.parametrize("target_libs", ["hip", "roc"])
def test_headers_of_libraries_without_a_counterpart(tmp_path, target_libs):
    expected = [("app.cu", 2, 10, "HP3005", "error", NVJPEG.format("#include <nvjpeg.h>")),
                ("app.cu", 3, 10, "HP3005", "error", NPP.format('#include "npp.h"')),
                ("app.cu", 4, 10, "HP3005", "error", NPP.format("#include <nppi_filtering_functions.h>")),
                ("app.cu", 5, 10, "HP3005", "error", CUFILE),
                ("app.cu", 6, 10, "HP3005", "error", NVML)]
    assert _findings(tmp_path, target_libs) == expected


def test_the_kept_include_is_what_stops_the_amd_compile(toolchain, tmp_path):
    """The finding's line is the compile error's line: the header is not there for AMD."""
    unit = tmp_path / "jpeg.hip"
    unit.write_text("#include <hip/hip_runtime.h>\n#include <nvjpeg.h>\nint main() { return 0; }\n")
    with pytest.raises(CompileError) as info:
        toolchain.compile_amd(unit, tmp_path / "jpeg.o", ["gfx90a"])
    assert f"{unit}:2:10: fatal error: 'nvjpeg.h' file not found" in info.value.stderr
