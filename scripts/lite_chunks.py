"""What of JupyterLab the browser-tab site leaves out (scripts/lite.py): the code of three features
the course never uses, whose extensions the site turns off.

JupyterLite ships JupyterLab whole. Most of it is split into chunks that the page loads only when a
feature first needs one, and most of those belong to three features: Mermaid diagrams in Markdown
(with the graph layouts and the maths they draw with), Vega charts as outputs, and terminals, which
a page cannot have. With their extensions turned off (``disabledExtensions``), nothing in the page
can ask for those chunks, so the site leaves them out.

A chunk is asked for by a call in the code, ``__webpack_require__.e(<chunk id>)``: in a module of
some package, or in the table of shared packages, under a package's name. The source maps in
jupyterlite-core's app archive say which package each call lies in. A chunk is left out when every
call that asks for it lies in a package of the turned-off features, or in a chunk left out already;
a call this cannot place keeps its chunk.
"""

from __future__ import annotations

import bisect
import json
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path

# A turned-off extension, and the packages whose code only it runs.
TURNED_OFF = {
    "@jupyterlab/mermaid-extension": ("@jupyterlab/mermaid", "mermaid", "@mermaid-js/layout-elk"),
    "@jupyterlab/vega5-extension": ("vega", "vega-lite", "vega-embed"),
    "@jupyterlab/terminal-extension": ("@jupyterlab/terminal",),
    "@jupyterlab/mathjax-extension": ("mathjax-full", "mhchemparser"),
}
_OFF = {package for extension, packages in TURNED_OFF.items() for package in (extension, *packages)}
_CALL = re.compile(r"\.e\((\d+)\)")
_SHARED_NAME = re.compile(r'(?:name|shareKey):"([^"]+)"')  # an entry of the shared packages' table


def left_out(app_archive: Path) -> dict[str, str]:
    """The chunks of the app's build/ folder that the turned-off features alone ask for: file name ->
    the packages whose calls ask for it."""
    callers: dict[str, set[tuple[str, str]]] = {}  # chunk id -> (file the call is in, its package)
    files: dict[str, str] = {}  # chunk id -> its file
    with tarfile.open(app_archive) as archive:
        members = {m.name: m for m in archive.getmembers() if m.name.startswith("package/build/")}
        for name, member in members.items():
            if not name.endswith(".js"):
                continue
            text = _read(archive, member)
            source_map = members.get(name + ".map")
            sources = json.loads(_read(archive, source_map)) if source_map else {"sources": [], "mappings": ""}
            file = name.removeprefix("package/build/")
            files.setdefault(file.split(".")[0], file)
            for chunk, package in _calls(text, sources):
                callers.setdefault(chunk, set()).add((file, package))
    dropped: dict[str, str] = {}
    while True:
        more = {
            files[chunk]: ", ".join(sorted({package for _, package in calls}))
            for chunk, calls in callers.items()
            if chunk in files and files[chunk] not in dropped
            and all(package in _OFF or file in dropped for file, package in calls)
        }  # fmt: skip
        if not more:
            return dropped
        dropped |= more


def _calls(text: str, source_map: dict) -> Iterator[tuple[str, str]]:
    """(chunk id, package) of each call asking for a chunk in ``text``: the package of the source the
    map gives for its place, or, in webpack's own code, the shared package whose table entry it is in;
    "?" where neither says."""
    places = _segments(source_map["mappings"])
    for number, line in enumerate(text.split("\n")):
        columns, indexes = places.get(number, ([], []))
        for call in _CALL.finditer(line):
            at = bisect.bisect_right(columns, call.start()) - 1
            source = source_map["sources"][indexes[at]] if at >= 0 else None
            package = _package(source) if source else None
            if package is None and source and "/webpack/runtime/" in source:
                names = _SHARED_NAME.findall(line, max(0, call.start() - 2000), call.start())
                package = names[-1] if names else None
            yield call.group(1), package or "?"


def _package(source: str) -> str | None:
    """The npm package a bundled source file comes from (None for webpack's own code)."""
    if "node_modules/" not in source:
        return None
    parts = source.rsplit("node_modules/", 1)[1].split("/")
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]


_BASE64 = {char: value for value, char in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _segments(mappings: str) -> dict[int, tuple[list[int], list[int]]]:
    """A source map's mappings: for each generated line, the columns of the segments that name a
    source, in order, and the index of that source (the Base64 VLQ of the Source Map v3 format)."""
    found: dict[int, tuple[list[int], list[int]]] = {}
    source = 0
    for number, line in enumerate(mappings.split(";")):
        column = 0
        for segment in filter(None, line.split(",")):
            fields, value, shift = [], 0, 0
            for char in segment:
                digit = _BASE64[char]
                value += (digit & 31) << shift
                shift += 5
                if not digit & 32:
                    fields.append(-(value >> 1) if value & 1 else value >> 1)
                    value = shift = 0
            column += fields[0]
            if len(fields) > 1:
                source += fields[1]
                columns, sources = found.setdefault(number, ([], []))
                columns.append(column)
                sources.append(source)
    return found


def _read(archive: tarfile.TarFile, member: tarfile.TarInfo) -> str:
    extracted = archive.extractfile(member)
    assert extracted is not None, member.name
    return extracted.read().decode()
