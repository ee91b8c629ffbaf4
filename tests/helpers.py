"""Shared helpers for the tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CORPUS = REPO / "corpus"
#: Leaves the multi-file CMake/Makefile projects (corpus/projects/, each with its own build) out of a
#: conversion of the whole corpus: tests that port the corpus of single-file programs use it.
CORPUS_EXCLUDE = ("projects/",)
CORPUS_PROJECTS = CORPUS / "projects"


def tree_digest(root: Path) -> dict[str, str]:
    """Map every file under ``root`` (relative path) to the SHA-256 of its bytes and its mode."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() + f" {p.stat().st_mode:o}"
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def findings_lines(report_json: dict) -> list[str]:
    """One line per finding: ``line:column RULE severity message`` (the golden-file format)."""
    return [f"{f['line']}:{f['column']} {f['rule_id']} {f['severity']} {f['message']}" for f in report_json["findings"]]
