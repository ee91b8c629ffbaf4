"""Option values the command line offers, in a module that imports only :mod:`re`.

``hipport.cli`` builds its click parser from these tuples; importing the stage modules that use
them (``cmake``, ``convert``, ``findings``, ``formats``, ``rules``) costs about 0.3 CPU s, which
``hipport --help`` and every subcommand's ``--help`` do not need (issue 12, point 2). Each stage
module re-exports its constant from here, so there is one definition.
"""

import re

#: Default ``CMAKE_HIP_ARCHITECTURES`` of a generated CMake build (``hipport.cmake``).
DEFAULT_OFFLOAD_ARCHS = ("gfx90a", "gfx942", "gfx1030", "gfx1100")
#: ``--launch-syntax`` values: keep ``<<<...>>>`` or rewrite to ``hipLaunchKernelGGL`` (``hipport.convert``).
LAUNCH_SYNTAXES = ("chevron", "hip")
#: Finding severities, most severe first (``hipport.findings``; ``--fail-on``).
SEVERITIES = ("error", "warning", "info")
#: ``--format`` values (``hipport.formats``).
FORMATS = ("text", "json", "markdown", "sarif", "github")
#: ``--target-libs`` values: HIP's portable libraries or ROCm's own (``hipport.rules``).
TARGET_LIBS = ("hip", "roc")

_OFFLOAD_ARCH = re.compile(r"^gfx(?:[0-9]{2,3}[0-9a-f]|[0-9]{1,2}(?:-[0-9])?-generic)((?::(?:sramecc|xnack)[+-])*)$")


def validate_offload_archs(archs: list[str]) -> list[str]:
    """Check AMD offload architecture names (``gfx90a``, ``gfx942:xnack+``).

    Raises:
        ValueError: a name is malformed or repeats a feature, a name repeats, or the list is empty.
    """
    for arch in archs:
        match = _OFFLOAD_ARCH.match(arch)
        features = [f[:-1] for f in match.group(1).split(":")[1:]] if match else []
        if not match or len(features) != len(set(features)):
            raise ValueError(f"{arch!r} is not an offload architecture name such as gfx90a or gfx1100")
    if len(set(archs)) != len(archs):
        raise ValueError(f"offload architectures repeat: {';'.join(archs)}")
    if not archs:
        raise ValueError("at least one offload architecture is needed")
    return archs
