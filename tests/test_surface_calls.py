"""Surface calls HIP has in another form (hipport/surface_calls.py, HP1223/HP1224): the trailing
boundary mode and CUDA's value-returning reads. The facts table,
rules/hip_headers/surface_functions.yaml, is checked against CUDA 12.4's and HIP 6.4.3's headers;
the kernels are this project's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import REPO
from hipport.convert import ConvertOptions, convert_tree
from hipport.surface_calls import surface_functions
from hipport.toolchain import CompileError

#: Kernels whose surface calls all port (Zero and Trap modes, value-form reads).
PORTABLE = """\
#include <cuda_runtime.h>

__global__ void blend(cudaSurfaceObject_t image, cudaSurfaceObject_t line, float weight) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  float here = surf2Dread<float>(image, x * 4, y);
  float above = surf2Dread<float>(image, x * 4, y + 1, cudaBoundaryModeZero);
  float left;
  surf2Dread(&left, image, (x - 1) * 4, y, cudaBoundaryModeTrap);
  float first = surf1Dread<float>(line, x * 4);
  surf2Dwrite(here * weight + above + left + first, image, x * 4, y, cudaBoundaryModeTrap);
  surf2Dwrite(0.0f, image, x * 4, y + 2, cudaBoundaryModeZero);
  surf1Dwrite(uchar4{1, 2, 3, 4}, line, x * 4);
}
"""

#: Calls that keep a mode HIP has no form of.
KEPT = """\
#include <cuda_runtime.h>

__global__ void edges(cudaSurfaceObject_t image, cudaSurfaceBoundaryMode mode) {
  int x = threadIdx.x;
  surf2Dwrite(1.0f, image, x * 4, 0, cudaBoundaryModeClamp);
  surf3Dwrite(1.0f, image, x * 4, 0, 0, mode);
  float edge;
  surf1Dread(&edge, image, x * 4, cudaBoundaryModeClamp);
}
"""

LAMBDA = "[&]() -> float {{ float hipport_value; {}(&hipport_value, {}); return hipport_value; }}()"
PORTABLE_BODY = """\
  float here = {here};
  float above = {above};
  float left;
  surf2Dread(&left, image, (x - 1) * 4, y{trap});
  float first = {first};
  surf2Dwrite(here * weight + above + left + first, image, x * 4, y{trap});
  surf2Dwrite(0.0f, image, x * 4, y + 2);
  surf1Dwrite(uchar4{{1, 2, 3, 4}}, line, x * 4);
}}
"""
WHERE = "hip/amd_detail/amd_surface_functions.h:103"
TRAP_DROPPED = ("{}: the boundary mode cudaBoundaryModeTrap is dropped (--fix): HIP's function takes no boundary mode; "
                "HIP 6.4.3 handles an out-of-range coordinate as hipBoundaryModeZero, the one mode it declares "
                f"({WHERE}), so an out-of-range access no longer makes the kernel fail, as cudaBoundaryModeTrap made it")
TRAP_KEPT = ("{0}: the boundary mode cudaBoundaryModeTrap: HIP 6.4.3's {0} takes no boundary mode and handles an "
             "out-of-range coordinate as hipBoundaryModeZero, the one mode HIP declares "
             f"({WHERE}); dropping the argument, which convert --fix does, means an out-of-range access no longer "
             "makes the kernel fail")


def _port(tmp_path: Path, source: str, fix: bool):
    src = tmp_path / f"src-{fix}"
    src.mkdir(exist_ok=True)
    (src / "kernels.cu").write_text(source)
    out = tmp_path / ("fixed" if fix else "plain")
    report = convert_tree(src, out, ConvertOptions(fix=fix, jobs=1)).report
    findings = [(f.line, f.column, f.rule_id, f.severity, f.message) for f in report.findings
                if f.rule_id in ("HP1223", "HP1224")]
    return out / "kernels.hip", findings


def _expected_body(trap: str) -> str:
    here = LAMBDA.format("surf2Dread<float>", "image, x * 4, y")
    above = LAMBDA.format("surf2Dread<float>", "image, x * 4, y + 1")
    first = LAMBDA.format("surf1Dread<float>", "line, x * 4")
    return PORTABLE_BODY.format(here=here, above=above, first=first, trap=trap)


def test_fix_drops_zero_and_trap_and_rewrites_value_reads(tmp_path):
    ported, findings = _port(tmp_path, PORTABLE, fix=True)
    text = ported.read_text()
    assert text.split("  int y = blockIdx.y;\n")[1] == _expected_body("")
    assert findings == [(9, 3, "HP1224", "warning", TRAP_DROPPED.format("surf2Dread")),
                        (11, 3, "HP1224", "warning", TRAP_DROPPED.format("surf2Dwrite"))]


def test_without_fix_trap_is_an_error_and_zero_still_dropped(tmp_path):
    ported, findings = _port(tmp_path, PORTABLE, fix=False)
    assert ported.read_text().split("  int y = blockIdx.y;\n")[1] == _expected_body(", hipBoundaryModeTrap")
    assert findings == [(9, 3, "HP1223", "error", TRAP_KEPT.format("surf2Dread")),
                        (11, 3, "HP1223", "error", TRAP_KEPT.format("surf2Dwrite"))]


def test_clamp_and_unreadable_modes_are_kept_and_reported(tmp_path):
    ported, findings = _port(tmp_path, KEPT, fix=True)
    text = ported.read_text()
    assert "surf2Dwrite(1.0f, image, x * 4, 0, hipBoundaryModeClamp);" in text
    assert "surf3Dwrite(1.0f, image, x * 4, 0, 0, mode);" in text
    assert "surf1Dread(&edge, image, x * 4, hipBoundaryModeClamp);" in text
    assert findings == [
        (5, 3, "HP1223", "error",
         "surf2Dwrite: the boundary mode cudaBoundaryModeClamp: HIP 6.4.3's surf2Dwrite takes no boundary mode and "
         f"handles an out-of-range coordinate as hipBoundaryModeZero, the one mode HIP declares ({WHERE}), not by "
         "using the nearest element"),
        (6, 3, "HP1223", "error",
         "surf3Dwrite: the boundary mode mode is not an enumerator hipport can read, and HIP 6.4.3's surf3Dwrite "
         "takes no boundary mode"),
        (8, 3, "HP1224", "warning",
         "surf1Dread: the boundary mode cudaBoundaryModeClamp is passed to HIP's surf1Dread, which accepts a boundary "
         "mode and does not read it; HIP 6.4.3 handles an out-of-range coordinate as hipBoundaryModeZero, the one "
         f"mode it declares ({WHERE}), so an out-of-range coordinate no longer reads or writes the nearest element, "
         "as cudaBoundaryModeClamp made it"),
    ]


def test_ports_compile_where_no_error_is_reported(tmp_path, toolchain):
    """The --fix port compiles for gfx90a and gfx1100; the plain port fails on exactly the two
    HP1223 lines (a boundary mode HIP's functions do not take)."""
    fixed, _ = _port(tmp_path, PORTABLE, fix=True)
    toolchain.compile_amd(fixed, tmp_path / "fixed.o", ("gfx90a", "gfx1100"))
    assert toolchain.code_object_targets(tmp_path / "fixed.o") == [
        "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    plain, _ = _port(tmp_path, PORTABLE, fix=False)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(plain, tmp_path / "plain.o", ("gfx90a",), ["-fsyntax-only"])
    assert {int(m.group(1)) for m in re.finditer(r"kernels\.hip:(\d+):\d+: error:", failure.value.stderr)} == {9, 11}
    kept, _ = _port(tmp_path, KEPT, fix=True)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(kept, tmp_path / "kept.o", ("gfx90a",), ["-fsyntax-only"])
    assert {int(m.group(1)) for m in re.finditer(r"kernels\.hip:(\d+):\d+: error:", failure.value.stderr)} == {5, 6}


def _parameters(declaration: str) -> list[str]:
    return [p.strip() for p in declaration[declaration.index("(") + 1:declaration.rindex(")")].split(",")]


def test_the_table_is_the_headers():
    """Each entry's coordinates are CUDA 12.4's (surface_indirect_functions.h) and HIP 6.4.3's
    (the declaration at hip_line of amd_surface_functions.h), and only surf1Dread takes a mode
    in HIP, defaulting to hipBoundaryModeZero at the line the table cites."""
    table = surface_functions()
    cuda = (REPO / ".toolchain" / "cuda" / "include" / "surface_indirect_functions.h").read_text()
    hip_lines = (REPO / ".toolchain" / "pkgs" / "sid" / "libamdhip64-dev" / "usr" / "include"
                 / table["hip_header"]).read_text().splitlines()
    assert "int boundaryMode = hipBoundaryModeZero" in hip_lines[table["hip_default_mode"]["line"] - 1]
    for name, entry in table["functions"].items():
        forms = re.findall(r"static __device__ [^\n]*\b" + name + r"\(([^)]*)\)", cuda)
        pointer = [f for f in forms if re.match(r"T \*ptr|T val", f)]
        assert len(pointer) == 1, name
        parameters = [p.strip() for p in pointer[0].split(",")]
        assert parameters[0] == ("T *ptr" if entry["access"] == "read" else "T val"), name
        assert parameters[-1].startswith("cudaSurfaceBoundaryMode "), name
        assert len(parameters) - 3 == entry["coordinates"], name
        line = entry["hip_line"]
        declaration = " ".join(hip_lines[line - 1:line + 1])
        declaration = declaration[:declaration.index("{")]
        assert f" {name}(" in declaration, name
        hip_parameters = _parameters(declaration)
        modes = [p for p in hip_parameters if "boundaryMode" in p]
        assert bool(modes) == bool(entry.get("hip_mode")), name
        assert len(hip_parameters) - 2 - len(modes) == entry.get("hip_coordinates", entry["coordinates"]), name
        assert hip_parameters[0].startswith("T* data") == (entry["access"] == "read" or bool(entry.get("hip_pointer_write"))), name


CUBEMAP_LAYERED = """\
#include <cuda_runtime.h>

__global__ void cube(cudaSurfaceObject_t surface, int layer) {
  float4 v;
  surfCubemapLayeredread(&v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 2);
  float w = surfCubemapLayeredread<float>(surface, 0, 0, 5, cudaBoundaryModeZero);
  surfCubemapLayeredwrite(v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 3);
  surf2Dwrite(w, surface, 0, 0);
}
"""

LAYER_FACE = ("{name} with layerFace {lf}: HIP 6.4.3's {name} (hip/amd_detail/amd_surface_functions.h:{line}) {data}"
              "takes int face, int layer where CUDA's takes one layerFace (layer * 6 + face, the layout CUDA documents "
              "for cubemap layered arrays), so the call does not compile as written; and HIP's body passes layer to "
              "{ockl}, whose last argument is a mip level in HIP's image library, so check the ported call on the GPU")


@pytest.mark.parametrize("fix", [False, True])
def test_cubemap_layered_calls_are_reported_where_they_fail(tmp_path, toolchain, fix):
    """HP2046 at each surfCubemapLayeredread/write (pointer and value forms), with and without
    --fix; the port fails to compile on exactly those lines."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernels.cu").write_text(CUBEMAP_LAYERED)
    out = tmp_path / "out"
    report = convert_tree(src, out, ConvertOptions(fix=fix, jobs=1)).report
    read = dict(name="surfCubemapLayeredread", line=223, data="", ockl="__ockl_image_load_lod_CM, ockl_image.h line 59")
    write = dict(name="surfCubemapLayeredwrite", line=234,
                 data="takes the value by pointer (T *data) where CUDA's takes it by value, and ",
                 ockl="__ockl_image_store_lod_CM, ockl_image.h line 87")
    assert [(f.line, f.column, f.rule_id, f.severity, f.message, f.fix) for f in report.findings
            if f.rule_id == "HP2046"] == [
        (5, 3, "HP2046", "error", LAYER_FACE.format(lf="layer * 6 + 2", **read),
         "HIP's form: surfCubemapLayeredread(&value, surface, x, y, (layer * 6 + 2) % 6, (layer * 6 + 2) / 6); "
         "compare the result on the GPU with CUDA's"),
        (6, 13, "HP2046", "error", LAYER_FACE.format(lf="5", **read),
         "HIP's form: surfCubemapLayeredread(&value, surface, x, y, (5) % 6, (5) / 6); compare the result on the GPU "
         "with CUDA's"),
        (7, 3, "HP2046", "error", LAYER_FACE.format(lf="layer * 6 + 3", **write),
         "HIP's form: none compiles in HIP 6.4.3 (its body converts the T *data pointer itself with "
         "__hipMapTo<float4::Native_vec_>(data) (line 238), which no pointer type satisfies); write the data another "
         "way, such as a 2D layered surface with surf2DLayeredwrite at layer layer * 6 + 3; compare the result on the "
         "GPU with CUDA's"),
    ]
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(out / "kernels.hip", tmp_path / "k.o", ("gfx90a",), ["-fsyntax-only"])
    assert {int(m.group(1)) for m in re.finditer(r"kernels\.hip:(\d+):\d+: error:", failure.value.stderr)} == {5, 6, 7}
    # HIP's read form and the suggested layered write, as the findings say, compile for both targets;
    # HIP's own surfCubemapLayeredwrite does not, for any element type.
    hip_form = (out / "kernels.hip").read_text()
    hip_form = hip_form.replace("surfCubemapLayeredread(&v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 2)",
                                "surfCubemapLayeredread(&v, surface, threadIdx.x * 16, threadIdx.y, (layer * 6 + 2) % 6, "
                                "(layer * 6 + 2) / 6)")
    hip_form = re.sub(r"surfCubemapLayeredread<float>\(surface, 0, 0, 5[^)]*\)",
                      "[&]() -> float { float r; surfCubemapLayeredread(&r, surface, 0, 0, (5) % 6, (5) / 6); return r; }()",
                      hip_form)
    hip_form = hip_form.replace("surfCubemapLayeredwrite(v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 3)",
                                "surf2DLayeredwrite(v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 3)")
    (tmp_path / "hip_form.hip").write_text(hip_form)
    toolchain.compile_amd(tmp_path / "hip_form.hip", tmp_path / "h.o", ("gfx90a", "gfx1100"))
    broken = hip_form.replace("surf2DLayeredwrite(v, surface, threadIdx.x * 16, threadIdx.y, layer * 6 + 3)",
                              "surfCubemapLayeredwrite(&v, surface, threadIdx.x * 16, threadIdx.y, 3, layer)")
    (tmp_path / "broken.hip").write_text(broken)
    with pytest.raises(CompileError) as failure:
        toolchain.compile_amd(tmp_path / "broken.hip", tmp_path / "b.o", ("gfx90a",), ["-fsyntax-only"])
    assert "no matching function for call to '__hipMapTo'" in failure.value.stderr
