"""What a session with the notebooks costs, measured: the words to read, the code, the run time.

    python scripts/course_time.py               # the English edition: words and code lines per notebook
    python scripts/course_time.py --run         # ... and each notebook executed, its cells timed
    python scripts/course_time.py --edition ru  # the Russian edition

Words are counted in the markdown cells (a word: a run of letters or digits, so `tool_call_id` is
one), split into the core of a notebook and its optional parts: everything under a heading that
starts "Deeper (optional)" («Глубже (по желанию)»), down to the next heading of the same or a higher
level. Code lines are the non-blank lines of code cells. With --run each notebook runs in a fresh
kernel from its own folder, as scripts/run_notebooks.py runs it, and the seconds are nbclient's own
timing of each cell (from the request to the reply), summed, then the wall time with the kernel start.

The minutes in FACILITATOR.md come from this script and one measurement (see that guide).
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
DEEPER = ("Deeper (optional)", "Глубже (по желанию)")
HEADING = re.compile(r"^(#+) (.*)$")
WORD = re.compile(r"[^\W_]+(?:[_'’-][^\W_]+)*")


@dataclass
class Count:
    name: str
    core_words: int = 0
    deeper_words: int = 0
    core_code: int = 0
    deeper_code: int = 0
    cell_seconds: float = 0.0
    wall_seconds: float = 0.0


def count(path: Path) -> Count:
    """The words and code lines of one notebook, core and optional apart."""
    notebook = nbformat.read(path, as_version=4)
    found = Count(path.stem)
    deeper_level = 0  # the level of the "Deeper" heading we are under; 0 when in the core
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                heading = HEADING.match(line)
                if heading:
                    level = len(heading.group(1))
                    if deeper_level and level <= deeper_level:
                        deeper_level = 0
                    if heading.group(2).startswith(DEEPER):
                        deeper_level = level
                words = len(WORD.findall(line))
                if deeper_level:
                    found.deeper_words += words
                else:
                    found.core_words += words
        elif cell.cell_type == "code":
            lines = sum(1 for line in cell.source.splitlines() if line.strip())
            if deeper_level:
                found.deeper_code += lines
            else:
                found.core_code += lines
    return found


def timed(path: Path, found: Count) -> None:
    """Run the notebook as Run All does and add up nbclient's timing of each cell."""
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    found.wall_seconds = time.perf_counter() - started
    for cell in notebook.cells:
        timing = cell.metadata.get("execution", {})
        if "shell.execute_reply" in timing and "iopub.execute_input" in timing:
            end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
            begin = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
            found.cell_seconds += (end - begin).total_seconds()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", choices=["en", "ru"], default="en")
    parser.add_argument("--run", action="store_true", help="also execute each notebook and time its cells")
    args = parser.parse_args(argv)
    folder = NOTEBOOKS / "ru" if args.edition == "ru" else NOTEBOOKS
    counts = [count(path) for path in sorted(folder.glob("[0-9][0-9]_*.ipynb"))]
    if args.run:
        for path, found in zip(sorted(folder.glob("[0-9][0-9]_*.ipynb")), counts, strict=True):
            timed(path, found)
    header = "| notebook | words, core | words, optional | code lines, core | code lines, optional |"
    print(header + (" cells, s | wall, s |" if args.run else ""))
    print("|---|" + "---:|" * (6 if args.run else 4))
    for found in counts:
        row = f"| {found.name} | {found.core_words} | {found.deeper_words} | {found.core_code} | {found.deeper_code} |"
        print(row + (f" {found.cell_seconds:.1f} | {found.wall_seconds:.1f} |" if args.run else ""))
    total = Count("total")
    for found in counts:
        for field in ("core_words", "deeper_words", "core_code", "deeper_code", "cell_seconds", "wall_seconds"):
            setattr(total, field, getattr(total, field) + getattr(found, field))
    row = f"| total | {total.core_words} | {total.deeper_words} | {total.core_code} | {total.deeper_code} |"
    print(row + (f" {total.cell_seconds:.1f} | {total.wall_seconds:.1f} |" if args.run else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
