"""Locate the data that ships with hipport: ``rules/`` (YAML) and ``templates/`` (jinja2).

In a source checkout (editable install) they are the top-level ``rules/`` and ``templates/``
folders; in an installed wheel they live under ``hipport/_data/`` (see ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder holding the shipped data set ``name`` ("rules" or "templates").

    Raises:
        FileNotFoundError: neither the wheel location nor the checkout location exists.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"hipport data folder {name!r} not found next to {_PACKAGE_DIR}")


def schema_path(name: str) -> Path:
    """Return the path of the JSON Schema file ``hipport/schemas/<name>.schema.json``."""
    return _PACKAGE_DIR / "schemas" / f"{name}.schema.json"


def load_data_yaml(*parts: str) -> object:
    """Load the shipped YAML file ``rules/<parts...>`` (e.g. ``("toolkit", "cuda_headers.yaml")``)
    with :func:`load_yaml_file`.

    Raises:
        FileNotFoundError: the file is missing; yaml.YAMLError: it is not valid YAML.
    """
    return load_yaml_file(data_dir("rules").joinpath(*parts))


def load_yaml_file(path: Path) -> object:
    """Load the YAML file ``path`` (a data file hipport ships) with PyYAML's safe loader,
    libyaml's C version where PyYAML was built with it (about 20 times faster: 0.52 CPU s -> 0.03
    for the 1,697 toolkit headers).

    The data read is kept between processes in the rule-table cache (:mod:`hipport.rulecache`,
    keyed by the file's path and bytes): a ``hipport check`` reads half a dozen such files, and
    importing PyYAML and parsing them cost about 25 ms of its 0.25 CPU s. The data is plain
    (mappings, lists, strings, numbers), each call returns a new copy.

    Raises:
        FileNotFoundError: the file is missing; yaml.YAMLError: it is not valid YAML (never cached).
    """
    from .rulecache import cached_table

    def parse() -> object:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)

    return cached_table(f"yaml-{path.stem}", [path], parse, object)
