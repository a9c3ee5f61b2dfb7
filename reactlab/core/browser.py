"""Whether reactlab runs in a browser tab: Python compiled to WebAssembly (Pyodide, the kernel of a
JupyterLite site, `make lite`), inside the page.

There, no program can be started (no bwrap, no bash, no subprocess), no thread, no socket, and no
other process exists. So bash results are replayed from the cassettes, never run; the working copies
live in the page's memory and go with the tab; and the independent test run runs the project's
tests in the page's own Python, the browser being the sandbox (reactlab/in_page.py).
"""

from __future__ import annotations

import sys

__all__ = ["IN_BROWSER"]

IN_BROWSER = sys.platform == "emscripten"
