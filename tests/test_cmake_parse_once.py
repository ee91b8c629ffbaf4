"""A conversion parses each CMake file's text once (hipport.buildfiles.cmake_syntax.parse_cmake
keeps the commands of the texts it parsed): finding the project roots, scanning the project's
facts and migrating each file used to parse it three times."""

from __future__ import annotations

from hipport.buildfiles import cmake_syntax
from hipport.convert import ConvertOptions, convert_tree


def test_each_cmake_file_is_parsed_once_in_a_conversion(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                                        "add_subdirectory(lib)\nadd_executable(p main.cu)\ntarget_link_libraries(p l)\n")
    (src / "lib" / "CMakeLists.txt").write_text("add_library(l STATIC l.cu)\n"
                                                "target_link_libraries(l CUDA::cublas)\n")
    (src / "main.cu").write_text("int main() { return 0; }\n")
    (src / "lib" / "l.cu").write_text("__global__ void k() {}\n")
    cmake_syntax._parsed.cache_clear()
    parsed = []
    original = cmake_syntax._parse_cmake

    def counting(text):
        parsed.append(text)
        return original(text)

    monkeypatch.setattr(cmake_syntax, "_parse_cmake", counting)
    convert_tree(src, tmp_path / "out", ConvertOptions(jobs=1))
    texts = [(src / "CMakeLists.txt").read_text(), (src / "lib" / "CMakeLists.txt").read_text()]
    assert sorted(t for t in parsed if t in texts) == sorted(texts)
    assert "hipport_find_libraries(hip::host roc::hipblas)" in (tmp_path / "out" / "CMakeLists.txt").read_text() \
        or "roc::hipblas" in (tmp_path / "out" / "lib" / "CMakeLists.txt").read_text()


def test_parse_cmake_returns_a_new_list_of_the_same_commands():
    text = "project(p)\nadd_executable(p a.cu)\n"
    first, second = cmake_syntax.parse_cmake(text), cmake_syntax.parse_cmake(text)
    assert first == second and first is not second
    first.clear()
    assert cmake_syntax.parse_cmake(text) == second
