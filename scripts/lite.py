"""The course in a browser tab: a static JupyterLite site whose Python (Pyodide) runs in the page.

    python3 scripts/lite.py                          # build into build/lite (`make lite`)
    python3 -m http.server -d build/lite 8000        # serve it; open http://localhost:8000/
    python3 scripts/lite.py --rehash                 # after changing a version: fill in the hashes

Everything comes from PyPI and npm, by version and checked by hash, and is put together here; the
site then fetches nothing from anywhere else:
- the JupyterLab app and the Pyodide kernel's extension: jupyterlite-core and jupyterlite-pyodide-kernel,
  with jupyterlab-widgets for the widgets (scripts/lite-tools.txt), in a virtual environment of
  their own under build/lite-work/, which this script goes on in;
- Python itself: npm's `pyodide` package of the version the kernel pins, the runtime only (it holds no
  wheels), checked against its published sha512; its standard library compiled to bytecode here;
- the wheels the page loads, beside the runtime in static/pyodide/: those of scripts/lite-wheels.txt
  (pure-Python wheels, and markupsafe built pure from its source), reactlab built from this checkout,
  and the kernel's own; and a pyodide-lock.json that lists exactly these, so that ``import reactlab``
  needs no install cell and nothing is looked for elsewhere. The kernel's packages are loaded with
  the runtime, in parallel, rather than one by one after it;
- both editions of the notebooks (notebooks/, notebooks/ru/) with their student copies.
The site needs no special headers: ``python -m http.server`` or any static host serves it.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import email.message
import email.parser
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS_LIST = ROOT / "scripts" / "lite-tools.txt"
WHEELS_LIST = ROOT / "scripts" / "lite-wheels.txt"
SITE = ROOT / "build" / "lite"
WORK = ROOT / "build" / "lite-work"
TOOLS = WORK / "tools"  # the build's virtual environment
CACHE = WORK / "cache"  # what was downloaded or built, kept between builds

PYODIDE_VERSION = "314.0.6"  # what jupyterlite-pyodide-kernel 0.8.6 pins (checked by build())
PYODIDE_SHA512 = "BKDTJyIqFxC4BExLqeRS3f5xvXZIjOt8C3zGLN/Cc7tFxSwvKVhVkchQQ2AGLOtR4YrVOIFxbV8poyDOOmWwxQ=="
RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
PAGE_PYTHON = "3.14"
# Built here from source into a pure wheel: markupsafe falls back to its Python code when its C
# extension cannot be compiled, and CC=/bin/false makes sure it cannot.
FROM_SOURCE = ("markupsafe",)
# The kernel's own wheels, shipped inside jupyterlite-pyodide-kernel: a stand-in ipykernel, piplite
# (micropip reading the site's index), the kernel itself, and an empty widgetsnbextension for ipywidgets 8.
KERNEL_WHEELS = ("ipykernel-", "piplite-", "pyodide_kernel-", "widgetsnbextension-4.")
# Loaded with the runtime: what the kernel imports before its first cell (it would install each of
# these one by one otherwise).
AT_START = ("micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython")
# Asked for by a wheel, and left out on purpose.
LEFT_OUT = {
    "jupyterlab-widgets": "its Python package only carries the widgets' frontend, which the site has as an extension",
}
APPS = ("lab",)  # JupyterLab alone: the notebook, REPL and file-browser apps are never opened
# JupyterLab's icon font also comes as EOT, SVG, TrueType and WOFF, for browsers older than WOFF2
# (2016): its stylesheet lists WOFF2 first, so no browser the page runs in asks for them.
OLD_FONT_FORMATS = (".eot", ".svg", ".ttf", ".woff")

# The page's settings, merged into the site's jupyter-lite.json: the kernel loads its packages with
# the runtime, and never looks for a package on PyPI (a %pip install finds only what the site has).
SETTINGS = {
    "jupyter-lite-schema-version": 0,
    "jupyter-config-data": {
        "appName": "reactlab",
        "contentsAllJsonFile": "all.json",
        "litePluginSettings": {
            "@jupyterlite/pyodide-kernel-extension:kernel": {
                "disablePyPIFallback": True,
                "loadPyodideOptions": {"packages": list(AT_START)},
            }
        },
    },
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rehash", action="store_true", help="fill in the hashes of the two pinned lists")
    if parser.parse_args(argv).rehash:
        rehash(TOOLS_LIST, page=False)
        rehash(WHEELS_LIST, page=True)
        return 0
    python = tools()
    if Path(sys.prefix).resolve() != TOOLS.resolve():  # go on inside the build's own environment
        os.execv(python, [str(python), __file__, *argv])
    started = time.monotonic()
    build()
    files = [path for path in SITE.rglob("*") if path.is_file()]
    size = sum(path.stat().st_size for path in files) / 1e6
    print(f"built {SITE.relative_to(ROOT)}: {size:.1f} MB in {len(files)} files, {time.monotonic() - started:.0f} s")
    print(f"serve it with:  python3 -m http.server -d {SITE.relative_to(ROOT)} 8000")
    return 0


def tools() -> Path:
    """The build's virtual environment, with exactly the pinned tools (made again when the list changes)."""
    python = TOOLS / "bin" / "python"
    stamp = TOOLS / "lite-tools.txt"
    if stamp.exists() and stamp.read_text() == TOOLS_LIST.read_text():
        return python
    shutil.rmtree(TOOLS, ignore_errors=True)
    venv.create(TOOLS, with_pip=True)
    _run([python, "-m", "pip", "install", "--quiet", "--require-hashes", "--only-binary", ":all:", "-r", TOOLS_LIST])
    shutil.copy(TOOLS_LIST, stamp)
    return python


def build() -> None:
    from jupyterlite_pyodide_kernel import constants

    if constants.PYODIDE_VERSION != PYODIDE_VERSION:
        raise SystemExit(f"the kernel pins Pyodide {constants.PYODIDE_VERSION}, this script {PYODIDE_VERSION}")
    source = WORK / "source"  # JupyterLite's "lite dir": what its build reads
    shutil.rmtree(source, ignore_errors=True)
    pyodide = source / "static" / "pyodide"  # the kernel loads the runtime from here when it is there
    pyodide.mkdir(parents=True)
    npm_lock = runtime(pyodide)
    compile_stdlib(pyodide)
    wheels = [*page_wheels(), reactlab_wheel(), *kernel_wheels()]
    for wheel in wheels:
        shutil.copy(wheel, pyodide)
    (pyodide / "pyodide-lock.json").write_text(json.dumps(lock(npm_lock, wheels), indent=1, sort_keys=True))
    (source / "jupyter-lite.json").write_text(json.dumps(SETTINGS, indent=1))
    shutil.rmtree(SITE, ignore_errors=True)
    _run(
        [TOOLS / "bin" / "jupyter", "lite", "build", "--lite-dir", source, "--output-dir", SITE,
         "--apps", *APPS, "--no-sourcemaps", "--no-unused-shared-packages"],
        cwd=source,
    )  # fmt: skip
    notebooks(SITE / "files", SITE / "api" / "contents")
    for font in SITE.glob("build/fa-*"):
        if font.suffix in OLD_FONT_FORMATS:
            font.unlink()
    (SITE / ".nojekyll").touch()  # GitHub Pages: publish the files as they are


def runtime(target: Path) -> dict[str, object]:
    """npm's pyodide package, checked, its runtime files into ``target``; returns its lock."""
    CACHE.mkdir(parents=True, exist_ok=True)
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tarball.exists():
        _run(["npm", "pack", "--silent", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", CACHE])
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != PYODIDE_SHA512:
        tarball.unlink()
        raise SystemExit(f"npm's pyodide {PYODIDE_VERSION} is not the one pinned (sha512 {digest})")
    with tarfile.open(tarball) as archive:
        for name in (*RUNTIME, "pyodide-lock.json"):  # this lock is replaced once the wheels are known
            member = archive.extractfile(f"package/{name}")
            assert member is not None, name
            (target / name).write_bytes(member.read())
    npm_lock: dict[str, object] = json.loads((target / "pyodide-lock.json").read_text())
    return npm_lock


def compile_stdlib(runtime: Path) -> None:
    """npm's Pyodide ships its standard library as source, which the kernel would compile on every
    start (it imports asyncio, email, json ... before it is ready). It is compiled once here instead,
    by the page's own Python (the runtime, run by node), into a zip of bytecode in its place: the
    kernel is ready in about half the time (19-22 s instead of 40-55 s, side by side on 2 loaded
    cores), for 2 MB more. Compiling the wheels as well saved nothing measurable, so they stay as
    PyPI has them. The result is kept in the cache by the hash of the zip compiled."""
    stdlib = runtime / "python_stdlib.zip"
    cached = CACHE / "compiled" / _sha256(stdlib)[:16] / stdlib.name
    if not cached.exists():
        with tempfile.TemporaryDirectory() as folder:
            shutil.copy(stdlib, folder)
            values = {"runtime": f"{runtime}/", "folder": folder, "python": COMPILE_PYTHON}
            _run(["node", "--input-type=module", "-e", COMPILE % {k: json.dumps(v) for k, v in values.items()}])
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(Path(folder) / stdlib.name, cached)
    shutil.copy(cached, stdlib)


COMPILE = """
const { loadPyodide } = await import(%(runtime)s + "pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: %(runtime)s });
pyodide.FS.mkdirTree("/work");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: %(folder)s }, "/work");
pyodide.runPython(%(python)s);
"""

# Runs in Pyodide. Each module's bytecode (unchecked-hash: used as it is) replaces its source, under
# the name Pyodide imports it by (/lib/python314.zip/...), as in the stdlib of Pyodide's own releases.
COMPILE_PYTHON = """
import compileall, py_compile, zipfile
from pathlib import Path

zipped, unpacked = Path("/work/python_stdlib.zip"), Path("/tmp/stdlib")
with zipfile.ZipFile(zipped) as archive:
    archive.extractall(unpacked)
compileall.compile_dir(unpacked, ddir="/lib/python314.zip", quiet=2, legacy=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
compiled = lambda path: path.suffix == ".py" and path.with_suffix(".pyc").exists()
files = sorted(path for path in unpacked.rglob("*") if path.is_file() and not compiled(path))
with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
    for path in files:  # in order, with one date: the same zip from the same input
        archive.writestr(zipfile.ZipInfo(path.relative_to(unpacked).as_posix()), path.read_bytes(),
                         compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
"""


def page_wheels() -> list[Path]:
    """The wheels of lite-wheels.txt, downloaded by hash; FROM_SOURCE built from their checked sources."""
    downloads = CACHE / "downloads"
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes", *_page_flags(),
          "-r", WHEELS_LIST, "-d", downloads])  # fmt: skip
    wheels = []
    for name, version in _pinned(WHEELS_LIST):
        found = [path for path in downloads.iterdir() if _name_and_version(path.name) == (name, version)]
        if name not in FROM_SOURCE:
            wheels += found  # pure wheels: _page_flags asks for nothing else
            continue
        built = CACHE / "built" / f"{name}-{version}"
        if not built.exists():
            environment = {**os.environ, "CC": "/bin/false"}  # no C extension: the pure-Python build
            _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                  *found, "-w", built], env=environment)  # fmt: skip
        wheels += built.glob("*-py3-none-any.whl")
    if len(wheels) != len(_pinned(WHEELS_LIST)):
        raise SystemExit(f"expected one pure wheel per line of {WHEELS_LIST.name}, found {sorted(wheels)}")
    return wheels


def reactlab_wheel() -> Path:
    """reactlab's wheel, built from a copy of this checkout (so the checkout gets no build/ or egg-info)."""
    built = CACHE / "reactlab"
    shutil.rmtree(built, ignore_errors=True)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, copy)
        shutil.copytree(ROOT / "reactlab", copy / "reactlab", ignore=shutil.ignore_patterns("__pycache__"))
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", copy, "-w", built])
    return next(built.glob("reactlab-*.whl"))


def kernel_wheels() -> list[Path]:
    folder = TOOLS / "share" / "jupyter" / "labextensions" / "@jupyterlite" / "pyodide-kernel-extension"
    found = sorted(p for p in (folder / "static" / "pypi").glob("*.whl") if p.name.startswith(KERNEL_WHEELS))
    if len(found) != len(KERNEL_WHEELS):
        raise SystemExit(f"the kernel's wheels changed: {[p.name for p in found]}")
    return found


def lock(npm_lock: dict[str, object], wheels: list[Path]) -> dict[str, object]:
    """A pyodide-lock.json listing exactly ``wheels``: what each is, imports and depends on under
    Pyodide. Refuses a dependency no wheel supplies, and a wheel nothing needs."""
    from packaging.requirements import Requirement

    info = npm_lock["info"]
    assert isinstance(info, dict)
    environment = {
        "implementation_name": "cpython", "implementation_version": info["python"], "os_name": "posix",
        "platform_machine": "wasm32", "platform_python_implementation": "CPython", "platform_release": "",
        "platform_system": "Emscripten", "platform_version": "", "python_full_version": info["python"],
        "python_version": PAGE_PYTHON, "sys_platform": "emscripten", "extra": "",
    }  # fmt: skip
    packages: dict[str, dict[str, object]] = {}
    depends: dict[str, set[str]] = {}
    for wheel in wheels:
        metadata, imports = _read_wheel(wheel)
        name = _name(metadata["Name"])
        requirements = [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]
        depends[name] = {
            _name(r.name) for r in requirements if r.marker is None or r.marker.evaluate(environment)
        } - set(LEFT_OUT)
        packages[name] = {
            "name": metadata["Name"], "version": metadata["Version"], "file_name": wheel.name,
            "install_dir": "site", "package_type": "package", "sha256": _sha256(wheel),
            "imports": imports, "depends": sorted(depends[name]), "unvendored_tests": False,
        }  # fmt: skip
    missing = sorted(f"{d} (for {n})" for n, needs in depends.items() for d in needs if d not in packages)
    if missing:
        raise SystemExit(f"no wheel for {', '.join(missing)}: add it to {WHEELS_LIST.name}")
    needed, waiting = set(), [_name(root) for root in ("reactlab", *AT_START)]
    while waiting:
        if (name := waiting.pop()) not in needed:
            needed.add(name)
            waiting += depends[name]
    unused = sorted(set(packages) - needed)
    if unused:
        raise SystemExit(f"needed by nothing: {', '.join(unused)} (remove it from {WHEELS_LIST.name})")
    return {"info": info, "packages": packages}


def _read_wheel(wheel: Path) -> tuple[email.message.Message, list[str]]:
    """A wheel's METADATA, and the top-level names it is imported by."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_file = next(n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(metadata_file).decode())
    packages = {name.split("/")[0] for name in names if name.count("/") == 1 and name.endswith("/__init__.py")}
    modules = {name.removesuffix(".py") for name in names if "/" not in name and name.endswith(".py")}
    return metadata, sorted(packages | modules)


def notebooks(files: Path, index: Path) -> None:
    """Both editions and their student copies into ``files``, as notebooks/ holds them (the facilitator
    guides stay out), and into ``index`` the listing of each folder that the file browser reads:
    the Jupyter contents API's answer, which jupyterlite-core writes only with jupyter-server
    installed (some forty packages, several of them compiled), written here instead."""
    source = ROOT / "notebooks"
    for path in sorted(source.rglob("*")):
        shown = path.suffix in (".ipynb", ".md") and path.name != "FACILITATOR.md"
        if shown and ".ipynb_checkpoints" not in path.parts:
            copy = files / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, copy)
    for folder in [files, *sorted(path for path in files.rglob("*") if path.is_dir())]:
        content = [_model(path, files) for path in sorted(folder.iterdir())]
        listing = _model(folder, files) | {"format": "json", "content": content}
        target = index / folder.relative_to(files) / "all.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(listing, indent=1))


def _model(path: Path, files: Path) -> dict[str, object]:
    """What the contents API says of one file or folder, its content left out."""
    kind = "directory" if path.is_dir() else "notebook" if path.suffix == ".ipynb" else "file"
    changed = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.timezone.utc).isoformat()
    relative = "" if path == files else path.relative_to(files).as_posix()
    return {
        "name": path.name if relative else "", "path": relative, "type": kind, "created": changed,
        "last_modified": changed, "writable": True, "content": None, "format": None,
        "mimetype": "text/markdown" if path.suffix == ".md" else None,
        "size": None if kind == "directory" else path.stat().st_size, "hash": None, "hash_algorithm": None,
    }  # fmt: skip


def rehash(listing: Path, *, page: bool) -> None:
    """Write each pinned line of ``listing`` again with the sha256 of what pip downloads for it."""
    flags = _page_flags() if page else ["--only-binary", ":all:"]
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for line in listing.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                lines.append(line)
                continue
            pin = line.split()[0]
            before = set(Path(folder).iterdir())
            _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *flags, pin, "-d", folder])
            (downloaded,) = set(Path(folder).iterdir()) - before
            lines.append(f"{pin} --hash=sha256:{_sha256(downloaded)}")
    listing.write_text("\n".join(lines) + "\n")


def _page_flags() -> list[str]:
    """pip's options for the page's wheels: pure wheels for Pyodide's Python, sources where built here."""
    return ["--only-binary", ":all:", "--no-binary", ",".join(FROM_SOURCE), "--python-version", PAGE_PYTHON,
            "--implementation", "py", "--abi", "none", "--platform", "any"]  # fmt: skip


def _pinned(listing: Path) -> list[tuple[str, str]]:
    """(name, version) of each ``name==version`` line."""
    lines = [line.split()[0] for line in listing.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return [(_name(line.split("==")[0]), line.split("==")[1]) for line in lines]


def _name_and_version(filename: str) -> tuple[str, str]:
    """A wheel's or a source archive's (name, version), from its file name."""
    if filename.endswith(".whl"):
        name, version = filename.split("-")[:2]
    else:
        name, _, version = filename.removesuffix(".tar.gz").rpartition("-")
    return _name(name), version


def _name(name: str) -> str:
    """A package's name as Pyodide's lock and pip compare them (PEP 503)."""
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(argv: list[object], **options: object) -> None:
    subprocess.run([str(a) for a in argv], check=True, **options)  # type: ignore[call-overload]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
