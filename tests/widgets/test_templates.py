"""The templates ship with the package and every one is used."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import tomllib

import reactlab.widgets

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = Path(reactlab.widgets.__file__).with_name("templates")


def test_every_template_is_package_data_and_is_used():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["reactlab"]
    names = sorted(p.name for p in TEMPLATES.iterdir())
    assert names and all(any(fnmatch.fnmatch(f"widgets/templates/{n}", p) for p in patterns) for n in names)
    course = TEMPLATES.parents[1] / "course"  # notebook 04's side-by-side is drawn by the loop check
    sources = "".join(
        p.read_text() for p in [*TEMPLATES.parent.glob("*.py"), *course.glob("*.py"), *TEMPLATES.iterdir()]
    )
    used = set(re.findall(r'"([a-z_]+\.html)"', sources))
    assert used == set(names)
