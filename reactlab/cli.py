"""python -m reactlab run | demo | doctor: run the agent on a copy of a project and print its route."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import doctor
from .changes import Manifest, compare
from .core.client import DeepSeekClient
from .core.errors import BoundExceeded, ReactlabError, SandboxUnavailable
from .core.language import LANGUAGES, Language, check_language, say, translatable
from .core.record import RunRecord
from .core.slips.unix_socket import transport_for
from .core.workspace import Workspace
from .replay.cassette import Cassette, RecordingTransport
from .runner import Outcome, independent_test_run, run_in_copy, unchanged_paths
from .samples import SHOP
from .summary import badge, describe_arguments, key_lines, language_of, verdict
from .terminal import visible

__all__ = ["MANIFEST_LINES", "main", "route", "show"]

MANIFEST_LINES = 40
"""Lines of what a run changed that ``run`` prints; a run can make a million files."""


def _parser(lang: Language = "en") -> argparse.ArgumentParser:
    """The CLI's arguments, their help and argparse's own words (headings, errors) in ``lang``."""
    parser = _Parser.made(lang, prog="reactlab", description=say("Watch a ReAct agent work, step by step.", lang=lang))
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> _Parser:
        made = commands.add_parser(name, help=help, add_help=False, formatter_class=_formatter(lang))
        assert isinstance(made, _Parser)
        return made.localized(lang)

    run = command("run", say("run the agent on a copy of a project", lang=lang))
    run.add_argument(
        "--project", required=True, type=Path, help=say("the project folder (it is copied, never changed)", lang=lang)
    )
    task = run.add_mutually_exclusive_group(required=True)
    task.add_argument("--task", help=say("the task, as text", lang=lang))
    task.add_argument("--task-file", type=Path, help=say("a file holding the task", lang=lang))
    run.add_argument(
        "--read-only", action="append", default=[], metavar="PATH", help=say("protect PATH (repeatable)", lang=lang)
    )
    model = run.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--cassette", type=Path, help=say("replay the model's answers from this cassette (offline)", lang=lang)
    )
    model.add_argument(
        "--live",
        action="store_true",
        help=say("ask the live model (DEEPSEEK_API_KEY, or REACTLAB_API_KEY elsewhere)", lang=lang),
    )
    run.add_argument(
        "--record", type=Path, metavar="FILE", help=say("with --live: save the run as a cassette", lang=lang)
    )
    run.add_argument(
        "--base-url",
        default=os.environ.get("REACTLAB_BASE_URL"),
        help=say(
            "an OpenAI-compatible server: https://HOST/v1, or unix:SOCKET:/v1 for one on a unix socket", lang=lang
        ),
    )
    run.add_argument("--model", default=os.environ.get("REACTLAB_MODEL"), help=say("model name", lang=lang))
    run.add_argument(
        "--repair", action="store_true", help=say("repair small slips in the model's answers, and say so", lang=lang)
    )
    run.add_argument(
        "--discard",
        action="store_true",
        help=say("remove the working copy after printing (default: keep it, say where)", lang=lang),
    )

    demo = command("demo", say("the article's shop run, offline", lang=lang))
    doctor_verb = command("doctor", say("what works on this machine: Python, widgets, the sandbox, a key", lang=lang))
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default="en",
        help=say(
            "language of the system prompt, of what the tools tell the model, of the route printed, "
            "and of this help and the errors",
            lang=lang,
        ),
    )
    for sub in (run, demo, doctor_verb):  # before or after the command; given after, it is not reset to "en"
        sub.add_argument(
            "--lang",
            choices=LANGUAGES,
            default=argparse.SUPPRESS,
            help=say(
                "language of the system prompt, of what the tools tell the model, of the route printed, "
                "and of this help and the errors",
                lang=lang,
            ),
        )
    for sub in (run, demo):
        sub.add_argument(
            "--json", action="store_true", help=say("print one JSON object instead of the route", lang=lang)
        )
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse speaking the CLI's language: its headings, -h and error messages in ``lang``."""

    lang: Language | None

    @classmethod
    def made(cls, lang: Language | None, **options: Any) -> _Parser:
        return cls(add_help=False, formatter_class=_formatter(lang), **options).localized(lang)

    def localized(self, lang: Language | None) -> _Parser:
        self.lang = lang
        # argparse names its two groups when it is made, in English; they are only titles.
        self._positionals.title, self._optionals.title = (
            say("positional arguments", lang=lang),
            say("options", lang=lang),
        )
        self.add_argument("-h", "--help", action="help", help=say("show this help message and exit", lang=lang))
        return self

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        said = say(
            "{prog}: error: {message}", lang=self.lang, prog=self.prog, message=_argparse_said(message, self.lang)
        )
        self.exit(2, visible(said) + "\n")


def _formatter(lang: Language | None) -> type[argparse.HelpFormatter]:
    class Formatter(argparse.HelpFormatter):
        def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
            super().add_usage(usage, actions, groups, say("usage: ", lang=lang) if prefix is None else prefix)

    return Formatter


# argparse's error messages (Python 3.10-3.13), and each in our words.
_ARGPARSE = [
    (
        re.compile(r"the following arguments are required: (?P<names>.*)"),
        translatable("the following arguments are required: {names}"),
    ),
    (
        re.compile(r"one of the arguments (?P<names>.*) is required"),
        translatable("one of the arguments {names} is required"),
    ),
    (
        re.compile(r"argument (?P<name>\S+): not allowed with argument (?P<other>.*)"),
        translatable("argument {name}: not allowed with argument {other}"),
    ),
    (
        re.compile(r"argument (?P<name>\S+): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)"),
        translatable("argument {name}: invalid choice: {value} (choose from {choices})"),
    ),
    (
        re.compile(r"argument (?P<name>\S+): expected one argument"),
        translatable("argument {name}: expected one argument"),
    ),
    (re.compile(r"unrecognized arguments: (?P<names>.*)"), translatable("unrecognized arguments: {names}")),
]


def _argparse_said(message: str, lang: Language | None) -> str:
    """argparse's message in ``lang``: the same facts, the language asked for."""
    for pattern, name in _ARGPARSE:
        found = pattern.fullmatch(message)
        if found:
            said: str = say(name, lang=lang, **found.groupdict())
            return said
    return say("{message}", lang=lang, message=message)


def _asked_language(argv: Sequence[str]) -> Language:
    """The --lang of the command line, read before argparse so that its help and errors speak it."""
    for index, argument in enumerate(argv):
        value = argv[index + 1] if argument == "--lang" and index + 1 < len(argv) else argument.partition("--lang=")[2]
        if value in LANGUAGES:
            return check_language(value)
    return "en"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    lang = _asked_language(arguments)
    args = _parser(lang).parse_args(arguments)
    try:
        if args.command == "doctor":
            return doctor.main([], lang=args.lang)
        if args.command == "demo":
            return _demo(args)
        return _run(args)
    except (ReactlabError, ValueError, OSError) as error:
        show(f"reactlab: {_said(error, lang)}", err=True)
        return 2


def _said(error: Exception, lang: Language | None) -> str:
    """An error for the CLI's user: a file the system could not read in the CLI's words, else its own."""
    if not isinstance(error, OSError) or error.filename is None:
        return str(error)
    path = str(error.filename)
    if isinstance(error, FileNotFoundError):
        return say("{path}: no such file or folder", lang=lang, path=path)
    if isinstance(error, IsADirectoryError):
        return say("{path} is a folder, not a file", lang=lang, path=path)
    if isinstance(error, PermissionError):
        return say("{path}: permission denied", lang=lang, path=path)
    return say("{path}: {reason}", lang=lang, path=path, reason=error.strerror or type(error).__name__)


def show(text: str = "", *, err: bool = False) -> None:
    """Every line the CLI prints goes through here: a run's text may carry terminal controls."""
    print(visible(text), file=sys.stderr if err else sys.stdout)


def client_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"base_url": args.base_url, "model": args.model, "repair": args.repair, "lang": args.lang}


def _run(args: argparse.Namespace) -> int:
    if not args.project.is_dir():
        raise ValueError(say("Project folder not found: {path}", lang=args.lang, path=args.project))
    task = args.task if args.task is not None else args.task_file.read_text(encoding="utf-8")
    recorder: RecordingTransport | None = None
    if args.cassette:
        if args.record:
            raise ValueError(say("--record saves a live run; it goes with --live, not --cassette", lang=args.lang))
        client = Cassette.load(args.cassette).client(**client_options(args))
    else:
        recorder = RecordingTransport(transport_for(args.base_url)) if args.record else None
        client = DeepSeekClient(transport=recorder, **client_options(args))
    try:
        outcome = run_in_copy(args.project, client, task=task, read_only=args.read_only, lang=args.lang)
    except BaseException:  # a bug, Ctrl-C: what the live model answered so far is kept all the same
        _save_recording(recorder, args)
        raise
    gone = outcome.workspace.removed  # a run past a disk bound: its copy is removed at once
    if not args.discard and not gone:  # this process ends now: without the mark, the next run would sweep the copy
        outcome.workspace.keep_after_exit()
    try:
        _save_recording(recorder, args)
        code = _report(outcome, args.json, {"workspace_kept": not args.discard and not gone}, lang=args.lang)
        changes = None if args.json or gone else _changes(outcome.workspace)
    finally:
        if args.discard:
            outcome.workspace.cleanup()
    if changes is not None:
        _where_the_copy_is(args.project, outcome.workspace, changes, kept=not args.discard, lang=args.lang)
    elif gone and not args.json:
        show(say("working copy removed (it passed a disk bound): {path}", lang=args.lang, path=outcome.workspace.root))
    return code


def _save_recording(recorder: RecordingTransport | None, args: argparse.Namespace) -> None:
    if recorder is not None:
        recorder.cassette(f"Recorded with reactlab run on {args.project.name}").save(args.record)


def _changes(workspace: Workspace) -> Manifest | BoundExceeded:
    """The run's changes, or why the copy is too large to list (the walk and the reading are bounded)."""
    try:
        return compare(workspace.source, workspace.root)
    except BoundExceeded as error:
        return error


def _where_the_copy_is(
    project: Path, workspace: Workspace, changes: Manifest | BoundExceeded, *, kept: bool, lang: Language
) -> None:
    """What the run changed, listed by reactlab itself (walked without following a link, every name
    escaped), and the commands to look closer and to clean up. The suggested diff follows no link
    the run planted (one in place of a file would print the file it points at, ~/.ssh/id_rsa say),
    and ``cat -v`` shows the terminal controls in the files as ^[ instead of obeying them."""
    copy = workspace.root
    show("\n" + say("what the run changed (+ added, - removed, ~ changed):", lang=lang))
    lines = str(changes).splitlines() if isinstance(changes, Manifest) else [visible(str(changes))]
    for line in lines[:MANIFEST_LINES]:
        show(f"  {line}")
    if len(lines) > MANIFEST_LINES:
        show(say("  … and {count} more", lang=lang, count=len(lines) - MANIFEST_LINES))
    if not kept:
        show(say("working copy removed (--discard): {path}", lang=lang, path=copy))
        return
    show(say("working copy kept: {path}", lang=lang, path=copy))
    show(
        say(
            "  see the changes:   diff -ru --no-dereference {project} {copy} | cat -v",
            lang=lang,
            project=shlex.quote(str(project)),
            copy=shlex.quote(str(copy)),
        )
    )
    show(
        say(
            "  remove it:         rm -r {copy}   (or run with --discard)",
            lang=lang,
            copy=shlex.quote(str(workspace.folder)),
        )
    )  # the private folder around it


def _demo(args: argparse.Namespace) -> int:
    outcome = run_in_copy(SHOP, SHOP.cassette(args.lang).client(), lang=args.lang)
    try:
        unchanged = unchanged_paths(outcome.workspace, SHOP.read_only)
        try:
            check = independent_test_run(outcome.workspace, SHOP.test_command)
        except SandboxUnavailable as error:  # the route was replayed; a verdict needs a real run
            rerun: dict[str, Any] = {"verdict": None, "exit_code": None, "not_run": str(error)}
            summary = say("not run here: {error}", lang=args.lang, error=error)
            changes = ""
        else:
            label = verdict(check)
            rerun = {"verdict": label, "exit_code": check.exit_code, "changes": str(check.manifest).splitlines()}
            summary = say("{verdict} (exit code {code})", lang=args.lang, verdict=label, code=check.exit_code)
            changes = str(check.manifest)
        code = _report(outcome, args.json, {"independent_test_run": rerun, "unchanged": unchanged}, lang=args.lang)
    finally:
        outcome.workspace.cleanup()
    if not args.json:
        show("\n" + say("independent test run: {summary}", lang=args.lang, summary=summary))
        if changes:
            show(say("what the run changed (+ added, - removed, ~ changed):", lang=args.lang))
            for line in changes.splitlines():
                show(f"  {line}")
        for path, same in unchanged.items():
            show(f"{path}: {say('unchanged', lang=args.lang) if same else say('CHANGED', lang=args.lang)}")
    verified = "not_run" in rerun or rerun["exit_code"] == 0  # no sandbox here: said above, not judged
    return 0 if code == 0 and verified and all(unchanged.values()) else 1


def steps(record: RunRecord) -> list[dict[str, Any]]:
    return [
        {
            "model_call": e.model_call,
            "tool": e.name,
            "arguments": e.arguments,
            "result": e.result,
        }
        for e in record.tool_executions
    ]


def route(record: RunRecord, lang: Language | None = None) -> list[str]:
    """The run as lines: each model call, what it asked for, and what each tool call gave.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    lines = []
    for model_call in record.model_calls:
        executions = record.executions_of(model_call.number)
        if executions:
            asked = say("{count} tool call(s)", lang=lang, count=len(executions))
        else:
            asked = say("a final answer", lang=lang) if record.answer else "—"
        lines.append("\n" + say("[model call {number}] {asked}", lang=lang, number=model_call.number, asked=asked))
        lines += [
            "  " + say("repaired: {text}", lang=lang, text=repair) for repair in getattr(model_call, "repairs", [])
        ]
        for execution in executions:
            marks = [f"→ {label}" for label in [verdict(execution.result)] if label]
            marks += [f"[{note}]" for note in [badge(execution.result, lang)] if note]
            lines.append(f"  {execution.name}({describe_arguments(execution, 70)}){''.join('  ' + m for m in marks)}")
            lines += [f"      {line}" for line in key_lines(execution.result, lang=lang)]
    return lines


def _report(outcome: Outcome, as_json: bool, extra: dict[str, Any] | None = None, *, lang: Language = "en") -> int:
    record = outcome.record
    if as_json:
        summary = {
            "answer": outcome.answer,
            "stop_reason": record.stop_reason,
            "error": record.error,
            "model_calls": len(record.model_calls),
            "tool_calls": len(record.tool_executions),
            "workspace": str(outcome.workspace.root),
            "steps": steps(record),
            **(extra or {}),
        }
        show(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        show(say("working copy: {path}", lang=lang, path=outcome.workspace.root))
        for line in route(record, lang):
            show(line)
        if outcome.answer is not None:
            show(f"\n{say('answer:', lang=lang)}\n{outcome.answer}")
        else:
            show("\n" + say("stopped: {reason}: {error}", lang=lang, reason=record.stop_reason, error=record.error))
        show(
            "\n"
            + say(
                "{calls} model calls, {executions} tool executions",
                lang=lang,
                calls=len(record.model_calls),
                executions=len(record.tool_executions),
            )
        )
    return 0 if outcome.answer is not None else 1
