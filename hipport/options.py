"""Option values the command line offers, in a module that imports nothing.

``hipport.cli`` builds its click parser from these tuples; importing the stage modules that use
them (``cmake``, ``convert``, ``findings``, ``formats``, ``rules``) costs about 0.3 CPU s, which
``hipport --help`` and every subcommand's ``--help`` do not need (issue 12, point 2). Each stage
module re-exports its constant from here, so there is one definition.
"""

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
