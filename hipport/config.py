"""Project configuration: the ``[tool.hipport]`` table of a ``pyproject.toml``.

The file is looked up from the source path upwards (then from the current folder upwards); the
first ``pyproject.toml`` found is used, and it may hold no ``[tool.hipport]`` table. Command-line
options override it. Keys (all optional)::

    [tool.hipport]
    exclude = ["third_party/", "build/"]   # gitignore-style patterns, added to --exclude
    fail-on = "warning"                     # check: error | warning | info
    format = "github"                       # text | json | markdown | sarif | github
    baseline = "hipport-baseline.json"      # relative to the pyproject.toml's folder
    launch-syntax = "hip"                   # chevron | hip
    offload-arch = ["gfx90a", "gfx1100"]
    target-libs = "roc"                     # hip | roc (library names: hipBLAS... or rocBLAS...)
    rules = ["hipport-rules.yaml"]          # your own mappings and suppressions (like --rules),
                                            # relative to the pyproject.toml's folder
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

KNOWN_KEYS = frozenset({"exclude", "fail-on", "format", "baseline", "launch-syntax", "offload-arch", "target-libs",
                        "rules"})


class ConfigError(ValueError):
    """The pyproject.toml is not valid TOML, or ``[tool.hipport]`` holds an unknown key or a bad value."""


@dataclass(frozen=True)
class ProjectConfig:
    """Settings from ``[tool.hipport]``; ``path`` is the pyproject.toml they came from (or None)."""

    path: Path | None = None
    values: dict = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.values.get(key, default)

    def resolve(self, relative: str) -> Path:
        """A path written in the file, taken relative to the file's folder."""
        base = self.path.parent if self.path else Path.cwd()
        return base / relative


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (a file or folder), else above the
    current folder, else None."""
    for origin in (start.resolve(), Path.cwd().resolve()):
        folder = origin if origin.is_dir() else origin.parent
        for candidate in (folder, *folder.parents):
            if (candidate / "pyproject.toml").is_file():
                return candidate / "pyproject.toml"
    return None


def load_config(start: Path, explicit: Path | None = None) -> ProjectConfig:
    """Read ``[tool.hipport]`` from ``explicit`` or from :func:`find_pyproject` of ``start``.

    Raises:
        ConfigError: unreadable or invalid TOML, unknown keys, or values of the wrong type.
    """
    path = explicit or find_pyproject(start)
    if path is None:
        return ProjectConfig()
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML ({error})") from None
    values = document.get("tool", {}).get("hipport", {})
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: [tool.hipport] must be a table")
    unknown = sorted(set(values) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.hipport]: {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(KNOWN_KEYS))}")
    for key in ("exclude", "offload-arch", "rules"):
        if key in values and isinstance(values[key], str):
            values[key] = [values[key]]
        if key in values and not all(isinstance(v, str) for v in values[key]):
            raise ConfigError(f"{path}: [tool.hipport] {key} must be a list of strings")
    for key in ("fail-on", "format", "baseline", "launch-syntax", "target-libs"):
        if key in values and not isinstance(values[key], str):
            raise ConfigError(f"{path}: [tool.hipport] {key} must be a string")
    return ProjectConfig(path, values)
