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
  wheels), checked against its published sha512;
- the wheels the page loads, beside the runtime in static/pyodide/: those of scripts/lite-wheels.txt
  (pure-Python wheels, and markupsafe built pure from its source), reactlab built from this checkout,
  and the kernel's own; and a pyodide-lock.json that lists exactly these, so that ``import reactlab``
  needs no install cell and nothing is looked for elsewhere. The kernel's packages are loaded with
  the runtime, in parallel, rather than one by one after it; what the kernel imports at its start,
  from the standard library and the wheels, is compiled to bytecode here;
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
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

import lite_chunks

ROOT = Path(__file__).resolve().parent.parent
TOOLS_LIST = ROOT / "scripts" / "lite-tools.txt"
WHEELS_LIST = ROOT / "scripts" / "lite-wheels.txt"
SITE = ROOT / "build" / "lite"
PREVIOUS = ROOT / "build" / "lite-previous"  # the site this build replaced: the benchmark measures both
WORK = ROOT / "build" / "lite-work"
BUILT_FROM = {SITE: WORK / "site-built-from.txt", PREVIOUS: WORK / "previous-built-from.txt"}
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
# the runtime, and never looks for a package on PyPI (a %pip install finds only what the site has);
# four features the course never uses are turned off, and their code left out (scripts/lite_chunks.py);
# JupyterLab's settings are reactlab's, as an installed reactlab gives them to JupyterLab (the widgets'
# state saved with a notebook, every cell drawn when it opens).
OVERRIDES = ROOT / "reactlab" / "widgets" / "overrides.d" / "reactlab.json"
SETTINGS = {
    "jupyter-lite-schema-version": 0,
    "jupyter-config-data": {
        "appName": "reactlab",
        "contentsAllJsonFile": "all.json",
        "disabledExtensions": sorted(lite_chunks.TURNED_OFF),
        "settingsOverrides": json.loads(OVERRIDES.read_text()),
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
    wheels = [*page_wheels(), reactlab_wheel(), *kernel_wheels()]
    for wheel in wheels:
        shutil.copy(wheel, pyodide)
    (pyodide / "pyodide-lock.json").write_text(json.dumps(lock(npm_lock, wheels), indent=1, sort_keys=True))
    compile_what_starts(pyodide)
    (source / "jupyter-lite.json").write_text(json.dumps(SETTINGS, indent=1))
    if SITE.exists():
        shutil.rmtree(PREVIOUS, ignore_errors=True)
        SITE.rename(PREVIOUS)
        if BUILT_FROM[SITE].exists():
            BUILT_FROM[SITE].rename(BUILT_FROM[PREVIOUS])
    _run(
        [TOOLS / "bin" / "jupyter", "lite", "build", "--lite-dir", source, "--output-dir", SITE,
         "--apps", *APPS, "--no-sourcemaps", "--no-unused-shared-packages"],
        cwd=source,
    )  # fmt: skip
    notebooks(SITE / "files", SITE / "api" / "contents")
    for font in SITE.glob("build/fa-*"):
        if font.suffix in OLD_FONT_FORMATS:
            font.unlink()
    leave_out_turned_off()
    small_icon(SITE / "lab" / "favicon.ico")
    (SITE / ".nojekyll").touch()  # GitHub Pages: publish the files as they are
    described = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
    BUILT_FROM[SITE].write_text(described.stdout.strip() or "a checkout without git")


def leave_out_turned_off() -> None:
    """The chunks of JupyterLab that only the turned-off extensions ask for (scripts/lite_chunks.py),
    left out of the site. Kept in the cache by the hash of the app's archive and of what is turned off."""
    from jupyterlite_core.constants import ALL_APP_ARCHIVES

    archive = ALL_APP_ARCHIVES[-1]
    key = hashlib.sha256(archive.read_bytes() + json.dumps(lite_chunks.TURNED_OFF, sort_keys=True).encode())
    found = CACHE / f"left-out-{key.hexdigest()[:16]}.json"
    if not found.exists():
        found.write_text(json.dumps(lite_chunks.left_out(archive), indent=1, sort_keys=True))
    chunks = [SITE / "build" / name for name in json.loads(found.read_text())]
    size = sum(chunk.stat().st_size for chunk in chunks)
    for chunk in chunks:
        chunk.unlink()
    turned_off = ", ".join(sorted(lite_chunks.TURNED_OFF))
    print(f"left out {len(chunks)} chunks of JupyterLab ({size / 1e6:.1f} MB) that only {turned_off} ask for")


def small_icon(icon: Path) -> None:
    """The tab's icon with its images of 48 pixels and less: the page loads it on every first visit,
    and it comes with nine sizes up to 256 pixels (318 kB), which a browser tab never shows."""
    data = icon.read_bytes()
    _, kind, count = struct.unpack_from("<HHH", data)
    entries = [struct.unpack_from("<BBBBHHII", data, 6 + 16 * i) for i in range(count)]
    kept = [entry for entry in entries if 0 < entry[0] <= 48]  # a width of 0 means 256
    header, images = struct.pack("<HHH", 0, kind, len(kept)), b""
    for width, height, colours, reserved, planes, bits, size, offset in kept:
        header += struct.pack("<BBBBHHII", width, height, colours, reserved, planes, bits, size,
                              6 + 16 * len(kept) + len(images))  # fmt: skip
        images += data[offset : offset + size]
    icon.write_bytes(header + images)


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


def compile_what_starts(runtime: Path) -> None:
    """Bytecode, made here, in place of the source of every module the kernel imports before it is
    ready and while it runs a first cell, ``import reactlab``: from npm's standard library (which is
    all source) and from the wheels. The page would otherwise compile them all at every start, the
    largest part of its wait. What a notebook imports later stays source, compiled when imported,
    and so does reactlab itself: the students read its code, and their tracebacks show it.

    The page's own Python finds them: run by node, it starts the kernel from ``runtime`` as the page
    does (the same packages, the same imports), then compiles each module it imported, without the
    column ranges of each instruction (-X no_debug_ranges; a traceback can only point at the columns
    of a line whose source it has), into unchecked-hash bytecode under the name the page imports it by,
    as Pyodide's own releases ship their wheels. Kept in the cache by the hash of what went in and how."""
    lock_file = runtime / "pyodide-lock.json"
    archives = ["python_stdlib.zip", *sorted(p.name for p in runtime.glob("*.whl"))]
    digest = hashlib.sha256(lock_file.read_bytes() + (runtime / "python_stdlib.zip").read_bytes())
    digest.update((COMPILE + COMPILE_PYTHON + json.dumps(AT_START)).encode())
    compiled = CACHE / "compiled" / digest.hexdigest()[:16]
    if not compiled.exists():
        with tempfile.TemporaryDirectory() as folder:
            values = {"runtime": f"{runtime}/", "folder": folder, "packages": list(AT_START), "python": COMPILE_PYTHON}
            _run(["node", "--input-type=module", "-e", COMPILE % {k: json.dumps(v) for k, v in values.items()}])
            shutil.copytree(folder, compiled)
    for name in archives:
        if (compiled / name).exists():
            shutil.copyfile(compiled / name, runtime / name)
    lock = json.loads(lock_file.read_text())
    for package in lock["packages"].values():
        package["sha256"] = _sha256(runtime / package["file_name"])
    lock_file.write_text(json.dumps(lock, indent=1, sort_keys=True))
    print((compiled / "compiled.txt").read_text().strip())


COMPILE = """
const { loadPyodide } = await import(%(runtime)s + "pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: %(runtime)s, packages: %(packages)s, args: ["-X", "no_debug_ranges"] });
for (const [folder, path] of [[%(runtime)s, "/runtime"], [%(folder)s, "/out"]]) {
  pyodide.FS.mkdirTree(path);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: folder }, path);
}
await pyodide.runPythonAsync(%(python)s);
"""

# Runs in Pyodide, in node: the kernel's start (what its worker runs), a first cell, then the archives
# with the modules that were imported compiled, written to /out (only those that changed).
COMPILE_PYTHON = """
import hashlib, importlib.util, sys, zipfile
from base64 import urlsafe_b64encode
from importlib._bootstrap_external import _code_to_hash_pyc
from pathlib import Path

import micropip, piplite.piplite, pyodide_kernel
await pyodide_kernel.kernel_instance.run("import reactlab")
imported = {m.__file__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__file__", None), str)}
SITE = "/lib/python3.14/site-packages/"
KEPT = ("reactlab/",)  # stays source

def rewrite(archive, installed_as):
    entries, compiled = {}, {}
    with zipfile.ZipFile(archive) as old:
        for name in old.namelist():
            data = old.read(name)
            path = installed_as + name
            if name.endswith(".py") and path in imported and not name.startswith(KEPT):
                code = compile(data, path, "exec", dont_inherit=True)
                data = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False))
                compiled[name] = name = name + "c"
            entries[name] = data
    if not compiled:
        return 0
    record = next((n for n in entries if n.endswith(".dist-info/RECORD")), None)
    if record:  # the wheel's list of its files, with the compiled ones' new names, hashes and sizes
        lines = []
        for line in entries[record].decode().splitlines():
            name = line.rsplit(",", 2)[0]
            if name in compiled:
                data = entries[compiled[name]]
                digest = urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
                line = f"{compiled[name]},sha256={digest},{len(data)}"
            lines.append(line)
        entries[record] = ("\\n".join(lines) + "\\n").encode()
    with zipfile.ZipFile(Path("/out") / Path(archive).name, "w") as new:
        for name, data in entries.items():  # in order, with one date: the same archive from the same input
            new.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return len(compiled)

stdlib = rewrite("/runtime/python_stdlib.zip", "/lib/python314.zip/")
wheels = sum(rewrite(wheel, SITE) for wheel in sorted(Path("/runtime").glob("*.whl")))
Path("/out/compiled.txt").write_text(f"bytecode for the {stdlib + wheels} modules the kernel imports at start and"
                                     f" for `import reactlab`: {stdlib} of the standard library, {wheels} of wheels")
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
        same_date = {**os.environ, "SOURCE_DATE_EPOCH": "315532800"}  # the same wheel from the same code
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", copy, "-w", built],
             env=same_date)  # fmt: skip
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
    installed (some forty packages, several of them compiled), written here instead.

    One thing is left out of each notebook: the saved state of its widgets, two fifths of their bytes,
    kept for pages that draw a notebook without running it (nbviewer, GitHub). The page draws nothing
    from it: until its cell runs, a widget's output shows the HTML stored beside it, and then the
    widget the kernel makes (the same with and without the state, seen in chromium)."""
    source = ROOT / "notebooks"
    for path in sorted(source.rglob("*")):
        shown = path.suffix in (".ipynb", ".md") and path.name != "FACILITATOR.md"
        if shown and ".ipynb_checkpoints" not in path.parts:
            copy = files / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, copy)
            if path.suffix == ".ipynb":
                notebook = json.loads(path.read_text())
                notebook["metadata"].pop("widgets", None)
                copy.write_text(json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
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
