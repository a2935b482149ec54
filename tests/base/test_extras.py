"""graphrt's extras: the table of their modules is pyproject.toml's, and looking for a module never raises."""

from __future__ import annotations

import tomllib
from pathlib import Path

from graphrt.base.extras import EXTRAS, findable, missing, needs_extra

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_extra_of_pyproject_is_in_the_table_and_no_other() -> None:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert sorted(EXTRAS) == sorted(declared)


def test_a_module_under_a_missing_parent_is_missing_not_an_error() -> None:
    # importlib.util.find_spec("absent_parent.child") raises ModuleNotFoundError: `pip install graphrt` without the
    # gemini extra made `graphrt agents` a traceback this way (google.genai, with no google).
    assert not findable("graphrt_absent_parent_package.child")
    assert missing(("json", "graphrt_absent_parent_package.child")) == ("graphrt_absent_parent_package.child",)


def test_a_present_dotted_module_is_found() -> None:
    assert findable("graphrt.base.extras")


def test_the_line_names_the_extra_and_the_modules_missing() -> None:
    line = needs_extra("graphrt serve", "serve", ("starlette", "graphrt_absent_module"))
    assert line == ("graphrt serve needs graphrt[serve], which is not installed (no module graphrt_absent_module): "
                    "pip install 'graphrt[serve]'")
    assert needs_extra("json things", "serve", ("json",)) is None
