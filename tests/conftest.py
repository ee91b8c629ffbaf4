"""Shared pytest fixtures."""

from __future__ import annotations

import os

import pytest

from hipport.toolchain import Toolchain, ToolchainMissing


@pytest.fixture(scope="session")
def toolchain() -> Toolchain:
    """The installed HIP/CUDA toolchain (scripts/install-toolchain.sh).

    When it is missing: under CI (the ``CI`` environment variable is set) or when
    ``HIPPORT_REQUIRE_TOOLCHAIN`` is set (the README's test command and ``.ci/run`` set it)
    the test fails, so a run can never pass by skipping every compile check; elsewhere the
    test is skipped with the reason, which names the install script.
    """
    try:
        return Toolchain.load()
    except ToolchainMissing as exc:
        if os.environ.get("CI") or os.environ.get("HIPPORT_REQUIRE_TOOLCHAIN"):
            pytest.fail(f"the toolchain is required here and missing: {exc}", pytrace=False)
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def amd_library_include(toolchain: Toolchain):
    """The include root of the HIP/ROCm math libraries (hipblas/, rocblas/, ...) that
    scripts/install-toolchain.sh installs with the toolchain. A toolchain.json without it comes
    from an older install: the test fails (never skips), naming the script to run again."""
    if toolchain.amd_library_include is None:
        pytest.fail("toolchain.json lists no amd_library_include: run scripts/install-toolchain.sh again",
                    pytrace=False)
    return toolchain.amd_library_include


@pytest.fixture(scope="session", autouse=True)
def _private_rule_cache(tmp_path_factory):
    """Tests cache validated rule files in a folder of their own, never in ~/.cache."""
    os.environ["HIPPORT_CACHE_DIR"] = str(tmp_path_factory.mktemp("rule-cache"))
