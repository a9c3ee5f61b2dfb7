"""SampleProject: a project reactlab ships for the agent to work on, with what a run of it needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.language import Language, resolve_language
from ..core.prompts import fix_failing_test_task
from ..replay.cassette import Cassette

__all__ = ["SampleProject"]


@dataclass(frozen=True)
class SampleProject:
    """A project with a failing test, as one value: ``run_in_copy(SHOP, client)`` runs the agent on it.

    ``task()`` and ``cassette()`` speak ``current_language()`` unless given ``lang``."""

    path: Path
    """The pristine project (package data). Runs work on a copy of it, never on this folder."""
    files: tuple[str, ...]
    """The files read_file offers (the ``enum`` of its ``path``)."""
    read_only: tuple[str, ...]
    """The paths no tool may change: bound read-only in the sandbox, refused by edit."""
    test_command: str
    """How the project's tests run, from its root."""
    cassette_stem: str
    """The recorded run's file name beside ``path``, without ``.json``; other languages add ``_{lang}``."""

    def task(self, lang: Language | None = None) -> str:
        """The user message: fix the failing test without changing the read-only paths."""
        protected = [f"{path}/" if (self.path / path).is_dir() else path for path in self.read_only]
        return fix_failing_test_task(self.files, protected, self.test_command, lang)

    def cassette_path(self, lang: Language | None = None) -> Path:
        """The recorded run's file in ``lang``: ``{stem}.json`` in English, ``{stem}_{lang}.json`` otherwise."""
        language = resolve_language(lang)
        suffix = "" if language == "en" else f"_{language}"
        return self.path.parent / f"{self.cassette_stem}{suffix}.json"

    def cassette(self, lang: Language | None = None) -> Cassette:
        """The recorded run in ``lang`` from end to end: the system prompt, the task, the tool
        descriptions and the model's answers."""
        return Cassette.load(self.cassette_path(lang))
