"""Fuzzing the build-file readers: CMake files and Makefiles, mutated deterministically.

The seed files below are written for this test (the shapes real CUDA projects' build files
have: ``ifeq``/``else`` with an empty compiler assignment, ``?=``/``+=``, pattern rules,
``$(shell ...)``, backslash continuations, CMake generator expressions, bracket arguments and
comments, nested quotes, FindCUDA option lists, unterminated constructs). Each is mutated with
fixed seeds (byte deletions, slice duplications, truncations, swapped lines, inserted syntax
characters), so every run checks the same cases. The properties, for every case:

* :func:`hipport.buildfiles.migrate_build_files` returns (never raises) and produces bytes;
* no finding says hipport itself failed (HP3009 "hipport failed on this line"): a file hipport
  cannot read gets HP3009 for its syntax, nothing else;
* a file reported unreadable (HP3009) comes back byte for byte; a file the migration leaves
  alone comes back byte for byte; the same input gives the same output twice;
* :func:`hipport.buildfiles.cmake_syntax.parse_cmake` raises nothing but CMakeSyntaxError.

The seeds themselves must migrate without HP3009 (but the unterminated one) and be stable:
migrating their output again changes nothing.
"""

from __future__ import annotations

import random

import pytest

from hipport.buildfiles import BuildFile, BuildOptions, migrate_build_files
from hipport.buildfiles.cmake_syntax import CMakeSyntaxError, parse_cmake
from hipport.buildfiles.data import default_build_rules
from hipport.rules import default_rules

ARCHS = ("gfx90a", "gfx1100")

MAKE_IFEQ = b"""\
# Particle demo: nvcc build, or the host compiler alone when CPU_ONLY=1
CUDA_HOME ?= /usr/local/cuda
ifeq ($(CPU_ONLY),1)
NVCC :=
HOST_ONLY := yes
else
NVCC := $(CUDA_HOME)/bin/nvcc
endif
SMS ?= 70 80
GENCODE_FLAGS := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm))
NVCCFLAGS += -O3 --use_fast_math -lineinfo \\
             -Xcompiler -fopenmp,-Wall \\
             --maxrregcount=64 -Xptxas -v
NVCCFLAGS +=
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)
LIBS = -lcublas -lcurand -L$(CUDA_HOME)/lib64
SRCS := $(wildcard src/*.cu)
OBJS := $(SRCS:.cu=.o)

particles: $(OBJS)
\t$(NVCC) $(NVCCFLAGS) $(GENCODE_FLAGS) -o $@ $^ $(LIBS)

%.o: %.cu
\t@$(NVCC) $(NVCCFLAGS) -DREV=\\"$(GIT_REV)\\" -c $< -o $@

clean:
\trm -f particles $(OBJS)
.PHONY: clean
"""

MAKE_RDC = b"""\
override CXX ?= g++
export OMP_NUM_THREADS = 4
ARCH = sm_75
ifneq ($(DEBUG),)
  NVFLAGS := -g -G -O0
else
  NVFLAGS := -O2 -DNDEBUG # release "#" build
endif
NVFLAGS += -rdc=true -arch=$(ARCH) --expt-relaxed-constexpr --extended-lambda \\
  -Wno-deprecated-gpu-targets --default-stream per-thread
define LINK_STEP
nvcc -dlink $(1) -o $(2)
endef

all: solver

kernels.o: kernels.cu kernels.cuh
\tnvcc $(NVFLAGS) -dc kernels.cu -o kernels.o
host.o: host.cpp
\t$(CXX) -O2 -c host.cpp -o host.o
solver: kernels.o host.o
\t$(call LINK_STEP,kernels.o,link.o)
\t$(CXX) kernels.o link.o host.o -L$(CUDA_PATH)/lib64 -lcudart -o $@ ; echo '# built'
"""

CMAKE_LANGUAGE = b"""\
cmake_minimum_required(VERSION 3.18)
project(heat LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 70 80)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr -Xcompiler \\"-Wall -Wextra\\"")
option(HEAT_FAST "fast math" ON)
add_executable(heat src/main.cu src/stencil.cu [[src/odd name.cu]])
target_compile_options(heat PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math;-lineinfo>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${HEAT_FAST}>>:-maxrregcount=32>
  $<$<CONFIG:Debug>:-G>)
set_target_properties(heat PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES "70;80")
target_link_libraries(heat PRIVATE CUDA::cublas CUDA::cudart)
#[==[ a bracket comment
with ) and " inside ]==]
message(STATUS "heat: nvcc is ${CMAKE_CUDA_COMPILER} (\\"quoted\\")")
if((CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER 11.0) AND NOT WIN32)
  target_compile_definitions(heat PRIVATE HAS_CUDA11=1 "GREETING=\\"hi there\\"")
endif()
"""

CMAKE_FINDCUDA = b"""\
cmake_minimum_required(VERSION 3.10)
project(legacy CXX)
find_package(CUDA 10.0 REQUIRED)
list(APPEND CUDA_NVCC_FLAGS -arch=sm_61 -rdc=true --default-stream per-thread)
set(CUDA_NVCC_FLAGS_RELEASE -O3;-use_fast_math)
string(APPEND CMAKE_CUDA_FLAGS " -Wno-deprecated-gpu-targets")
include_directories(${CUDA_INCLUDE_DIRS})
cuda_add_executable(legacy main.cu helper.cu OPTIONS -Xptxas -warn-spills)
cuda_add_cublas_to_target(legacy)
target_link_libraries(legacy ${CUDA_curand_LIBRARY}) # random numbers
add_custom_target(show COMMAND ${CMAKE_COMMAND} -E echo "$<TARGET_FILE:legacy>")
"""

#: Not valid CMake: the quoted argument never ends (CMake stops here too).
CMAKE_UNTERMINATED = b"""\
cmake_minimum_required(VERSION 3.18)
project(broken LANGUAGES CUDA)
add_executable(broken "main.cu)
"""

SEEDS = {
    "make_ifeq": ("Makefile", MAKE_IFEQ),
    "make_rdc": ("rules.mk", MAKE_RDC),
    "cmake_language": ("CMakeLists.txt", CMAKE_LANGUAGE),
    "cmake_findcuda": ("CMakeLists.txt", CMAKE_FINDCUDA),
    "cmake_unterminated": ("cmake/broken.cmake", CMAKE_UNTERMINATED),
}
#: Mutated cases per seed.
CASES_PER_SEED = 800
#: Pieces of build-file syntax inserted by the mutations.
INSERTS = [b'"', b"(", b")", b"$", b"\\", b"#", b"[[", b"]]", b"[=[", b"]=]", b"#[[", b"\n", b"\t", b";", b"=",
           b":", b"$(", b"${", b"$<", b">", b"}", b"\\\n", b",", b"'", b"\r\n", b"\x00", b"\xff", b"\xef\xbb\xbf",
           b"nvcc", b" -arch=sm_80", b" -Xcompiler", b" -Xptxas", b" -rdc", b" -gencode", b"CUDA", b".cu",
           b"NVCC :=", b"NVCC ?=", b"ifeq (", b"endif", b"%.o: %.cu", b"$(NVCC)", b"$<$<COMPILE_LANGUAGE:CUDA>:",
           b"cuda_add_executable(", b"CUDA::"]


def mutate(data: bytes, rnd: random.Random) -> bytes:
    """One to four mutations of ``data``, chosen by ``rnd``."""
    out = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        operation, size = rnd.randrange(6), len(out)
        if operation == 0 and size:  # delete a few bytes
            at = rnd.randrange(size)
            del out[at:at + rnd.randint(1, 8)]
        elif operation == 1 and size:  # duplicate a slice in place
            at = rnd.randrange(size)
            out[at:at] = out[at:at + rnd.randint(1, 40)]
        elif operation == 2 and size:  # truncate
            del out[rnd.randrange(size):]
        elif operation == 3:  # swap two lines
            lines = bytes(out).split(b"\n")
            a, b = rnd.randrange(len(lines)), rnd.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            out = bytearray(b"\n".join(lines))
        else:  # insert a piece of syntax
            at = rnd.randrange(size + 1)
            out[at:at] = rnd.choice(INSERTS)
    return bytes(out)


@pytest.fixture(scope="module")
def loaded():
    return default_rules("hip"), default_build_rules()


def _migrate(loaded, rel: str, data: bytes):
    rules, build_rules = loaded
    return migrate_build_files([BuildFile(rel, data)], rules, BuildOptions(ARCHS), build_rules=build_rules)[0]


@pytest.mark.parametrize("seed", sorted(set(SEEDS) - {"cmake_unterminated"}))
def test_seeds_migrate_and_stay_stable(loaded, seed):
    rel, data = SEEDS[seed]
    first = _migrate(loaded, rel, data)
    assert first.changed
    assert [f for f in first.findings if f.rule_id == "HP3009"] == []
    again = _migrate(loaded, rel, first.output)
    assert again.output == first.output


def test_unterminated_seed_is_copied_with_its_finding(loaded):
    rel, data = SEEDS["cmake_unterminated"]
    result = _migrate(loaded, rel, data)
    assert result.output == data and not result.changed
    assert [(f.line, f.column, f.rule_id, f.message) for f in result.findings] == [
        (3, 23, "HP3009", "the build file could not be read (unterminated quoted argument); it was copied unchanged")]


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_mutated_build_files_never_crash_the_migration(loaded, seed):
    rel, data = SEEDS[seed]
    rnd = random.Random(f"hipport-fuzz-{seed}")
    failures = []
    for case in range(CASES_PER_SEED):
        mutated = mutate(data, rnd)
        where = f"{seed} case {case}: {mutated!r}"
        if rel.endswith(("CMakeLists.txt", ".cmake")):
            try:
                parse_cmake(mutated.decode("utf-8", "surrogateescape"))
            except CMakeSyntaxError:
                pass
            except Exception as error:  # noqa: BLE001 - the property under test
                failures.append(f"{where}: parse_cmake raised {error!r}")
        try:
            result = _migrate(loaded, rel, mutated)
        except Exception as error:  # noqa: BLE001 - the property under test
            failures.append(f"{where}: raised {error!r}")
            continue
        assert isinstance(result.output, bytes)
        failed = [f.message for f in result.findings if "hipport failed" in f.message]
        if failed:
            failures.append(f"{where}: {failed[0]}")
        if any(f.rule_id == "HP3009" for f in result.findings) and result.output != mutated:
            failures.append(f"{where}: HP3009 but the file was not copied unchanged")
        if not result.changed and result.output != mutated:
            failures.append(f"{where}: unchanged, yet other bytes")
        if _migrate(loaded, rel, mutated).output != result.output:
            failures.append(f"{where}: two migrations of the same text differ")
    assert failures == [], f"{len(failures)} of {CASES_PER_SEED} cases failed; first: {failures[:3]}"
