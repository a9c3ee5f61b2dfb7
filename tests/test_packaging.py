from __future__ import annotations

import importlib
import pkgutil
import re
import types
from pathlib import Path

import tomllib

import reactlab

ROOT = Path(__file__).resolve().parent.parent


def _names(requirements: list[str]) -> dict[str, str]:
    found = {}
    for requirement in requirements:
        match = re.match(r"^([A-Za-z0-9_.-]+)\s*(.*)$", requirement.strip())
        assert match, requirement
        found[match.group(1).lower()] = match.group(2).replace(" ", "")
    return found


def test_environment_yml_names_the_same_dependencies_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [requirement for extra in project["optional-dependencies"].values() for requirement in extra]
    wanted = _names(project["dependencies"] + extras)
    wanted["python"] = project["requires-python"]
    text = (ROOT / "environment.yml").read_text()
    dependencies = text[text.index("dependencies:") :]
    lines = [
        line.strip()[2:]
        for line in dependencies.splitlines()
        if line.strip().startswith("- ") and not line.strip().startswith("- -e")
    ]
    listed = _names([line for line in lines if line not in ("pip", "pip:")])
    assert listed == wanted


def test_public_api_is_sorted_and_complete():
    """Both ways, as httpx checks its own: every name in ``__all__`` is importable from reactlab,
    and every public name reactlab has (its subpackages and modules aside) is in ``__all__``."""
    assert reactlab.__all__ == sorted(reactlab.__all__)
    for name in reactlab.__all__:
        assert hasattr(reactlab, name), name
    public = {
        name
        for name, value in vars(reactlab).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    }
    assert public == set(reactlab.__all__)


def test_every_module_says_what_it_exports_sorted():
    for module in pkgutil.walk_packages(reactlab.__path__, "reactlab."):
        if ".samples.shop" in module.name or module.name.endswith("__main__"):
            continue
        imported = importlib.import_module(module.name)
        exported = getattr(imported, "__all__", None)
        if module.ispkg and exported is None:
            continue  # a package whose docstring only lists its files
        assert exported is not None, f"{module.name} has no __all__"
        assert exported == sorted(exported), module.name
        for name in exported:
            assert hasattr(imported, name), f"{module.name}.{name}"


def test_errors_docstring_draws_every_exception():
    tree = reactlab.core.errors.__doc__
    for name in reactlab.core.errors.__all__:
        if name != "ToolError":
            assert name in tree, name


def test_shop_sample_ships_as_package_data():
    from reactlab.samples import SHOP_FILES, shop_cassette_path, shop_path

    for path in SHOP_FILES:
        assert (shop_path() / path).is_file()
    assert shop_cassette_path().is_file() and shop_cassette_path("ru").is_file()
    assert shop_cassette_path("ru") != shop_cassette_path("en")


def test_every_file_of_the_sample_project_is_package_data():
    """The wheel must carry the shop and its cassette (.ci/run installs it and runs the notebooks)."""
    import fnmatch

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["reactlab"]
    samples = ROOT / "reactlab" / "samples"
    data = [p for p in samples.glob("*") if p.is_file() and p.suffix != ".py"]  # beside the package's modules
    data += [p for p in (samples / "shop").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert len(data) >= 4, "the sample project is missing"
    for path in data:
        relative = path.relative_to(ROOT / "reactlab").as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), f"{relative} is not package data"


def test_every_file_the_library_reads_is_package_data():
    """Templates, the cassette schema, the samples: a file beside the modules that the wheel left out
    would fail only once installed (Cassette.load reads model/cassette.schema.json)."""
    import fnmatch

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["reactlab"]
    package = ROOT / "reactlab"
    data = [p for p in package.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert any(p.name == "cassette.schema.json" for p in data)
    for path in data:
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), f"{relative} is not package data"


def test_the_lab_extra_brings_what_opens_the_notebooks_and_the_guides_install_it():
    """Issue 30: `pip install -e .` alone gives no JupyterLab and no kernel; the guides' line for
    machines without make installs the `lab` extra, which has both."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(_names(extras["lab"])) == {"ipykernel", "jupyterlab"}
    assert _names(extras["lab"]).items() <= _names(extras["test"]).items()  # make test's environment can open them
    for guide in ("notebooks/FACILITATOR.md", "notebooks/ru/FACILITATOR.md"):
        text = (ROOT / guide).read_text(encoding="utf-8")
        assert ".venv/bin/pip install -e '.[lab]' && .venv/bin/jupyter lab" in text, guide
        assert ".venv/bin/pip install -e .`" not in text and "pip install -e . &&" not in text, guide
