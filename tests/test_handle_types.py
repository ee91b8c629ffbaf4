"""HP1216: CUDA integer handles (CUdeviceptr, texture and surface objects) whose HIP twins are
pointers, used as integers (hipport/handle_types.py; issue 10 classes from cuda-samples
vectorAddMMAP, bindlessTexture and matrixMulDrv). The fixture is
tests/fixtures/handle_types/handles.cpp, written for these tests."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import FIXTURES, REPO
from hipport.analyze import analyze_file
from hipport.convert import ConvertOptions, convert_tree
from hipport.handle_types import integer_handles
from hipport.parse import new_parser
from hipport.rules import default_rules
from hipport.toolchain import CompileError

FIXTURE = FIXTURES / "handle_types"
DEVICEPTR = ("CUdeviceptr used as an integer ({}): CUDA defines it as unsigned long long (cuda.h:258, 64-bit "
             "builds), HIP's hipDeviceptr_t is void * (hip/driver_types.h:47); this does not compile for HIP")
TEXTURE = ("cudaTextureObject_t used as an integer ({}): CUDA defines it as unsigned long long (texture_types.h:174), "
           "HIP's hipTextureObject_t is struct __hip_texture * (hip/texture_types.h:71); this does not compile for HIP")
SURFACE = ("{name} used as an integer ({op}): CUDA defines it as unsigned long long ({where}), HIP's "
           "hipSurfaceObject_t is struct __hip_surface * (hip/surface_types.h:41); this does not compile for HIP")
EXPECTED = [
    (12, 28, DEVICEPTR.format("operator +")),
    (19, 3, DEVICEPTR.format("an integer assigned to it")),
    (24, 36, TEXTURE.format("operator &")),
    (24, 70, TEXTURE.format("operator >>")),
    (28, 10, TEXTURE.format("operator |")),
    (28, 43, TEXTURE.format("operator <<")),
    (32, 3, DEVICEPTR.format("operator +=")),
    (34, 3, DEVICEPTR.format("operator ++")),
    (35, 18, SURFACE.format(name="CUsurfObject", op="cast to unsigned", where="cuda.h:280-281")),
    (37, 17, DEVICEPTR.format("static_cast to size_t")),
    (39, 31, SURFACE.format(name="cudaSurfaceObject_t", op="static_cast<cudaSurfaceObject_t> of a value that is not one",
                            where="surface_types.h:105")),
    (40, 15, DEVICEPTR.format("initialised with an integer")),
    (45, 92, TEXTURE.format("operator &")),
]


def _findings(path: Path, source: bytes | None = None):
    source = path.read_bytes() if source is None else source
    result = analyze_file(path.name, source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    return [(f.line, f.column, f.message) for f in result.findings if f.rule_id == "HP1216"]


def test_each_integer_use_reported_at_its_operation():
    assert _findings(FIXTURE / "handles.cpp") == EXPECTED


def test_fix_text_per_handle_kind():
    source = (FIXTURE / "handles.cpp").read_bytes()
    result = analyze_file("handles.cpp", source, new_parser().parse(source), default_rules(), is_cuda_unit=False)
    fixes = {f.line: f.fix for f in result.findings if f.rule_id == "HP1216"}
    assert fixes[12] == ("Compute on an integer or a char pointer and convert back: (hipDeviceptr_t)((char *)p + n), "
                         "reinterpret_cast<uintptr_t>(p) for bits, and keep integers out of hipDeviceptr_t")
    assert fixes[24] == ("Keep the hipTextureObject_t as its own type; where its bits are needed use "
                         "reinterpret_cast<uintptr_t>(obj) and reinterpret_cast<hipTextureObject_t>(bits)")


def test_name_declared_with_another_type_is_left_alone():
    source = b"void a(CUdeviceptr p) { }\nvoid b(size_t p) { size_t q = p + 1; }\n"
    assert _findings(Path("x.cpp"), source) == []


def test_handle_facts_are_the_headers():
    """Each representation in the rules is the typedef the named header line holds."""
    handles = integer_handles(default_rules())
    assert sorted(handles) == ["CUdeviceptr", "CUdeviceptr_v2", "CUsurfObject", "CUtexObject", "CUtexObject_v1",
                               "cudaSurfaceObject_t", "cudaTextureObject_t"]
    cuda_include = REPO / ".toolchain" / "cuda" / "include"
    hip_include = REPO / ".toolchain" / "pkgs" / "sid" / "libamdhip64-dev" / "usr" / "include"
    for name, mapping in handles.items():
        for (definition, root, declared) in ((mapping.representation[0], cuda_include, None),
                                             (mapping.representation[1], hip_include, mapping.hip)):
            ctype, header, lines = re.fullmatch(r"(.+?) \(([\w/.]+):(\d+(?:-\d+)?)", definition.split(",")[0]
                                                 .rstrip(")")).groups()
            first = int(lines.split("-")[0])
            text = (root / header).read_text().splitlines()[first - 1]
            words = " ".join(text.replace("__device_builtin__", "").replace("*", " * ").split())
            assert words.startswith(f"typedef {ctype} "), (name, text)


def test_reported_lines_are_the_lines_clang_rejects(toolchain, tmp_path):
    """The ported fixture compiled for gfx90a: clang's errors are on the reported lines, and the
    lines not reported (a zero stored, a wide C-style cast, a comparison) compile."""
    out = tmp_path / "out"
    convert_tree(FIXTURE, out, ConvertOptions(jobs=1))
    ported = (out / "handles.cpp").read_text()
    shift = ported.count("\n") - (FIXTURE / "handles.cpp").read_text().count("\n")
    try:
        toolchain.compile_amd(out / "handles.cpp", tmp_path / "h.o", ["gfx90a"], ["-fsyntax-only"])
        stderr = ""
    except CompileError as exc:
        stderr = exc.stderr
    errors = {int(m.group(1)) - shift for m in re.finditer(r"handles\.cpp:(\d+):\d+: error:", stderr)}
    assert errors == {line for line, _, _ in EXPECTED}
