"""python -m reactlab run | demo | doctor: run the agent on a copy of a project and print its route."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from . import doctor
from .errors import BoundExceeded, ReactlabError, SandboxUnavailable
from .model.cassette import Cassette, RecordingTransport
from .model.client import DeepSeekClient
from .run.record import RunRecord
from .run.runner import Outcome, independent_test_run, run_in_copy, unchanged_paths
from .run.summary import badge, describe_arguments, key_lines, verdict
from .samples import SHOP
from .strings import Language, language_of, strings
from .terminal import visible
from .workspace import Manifest, Workspace, compare

__all__ = ["MANIFEST_LINES", "main", "route", "show"]

MANIFEST_LINES = 40
"""Lines of what a run changed that ``run`` prints; a run can make a million files."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reactlab", description="Watch a ReAct agent work, step by step.")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run the agent on a copy of a project")
    run.add_argument("--project", required=True, type=Path, help="the project folder (it is copied, never changed)")
    task = run.add_mutually_exclusive_group(required=True)
    task.add_argument("--task", help="the task, as text")
    task.add_argument("--task-file", type=Path, help="a file holding the task")
    run.add_argument("--read-only", action="append", default=[], metavar="PATH", help="protect PATH (repeatable)")
    model = run.add_mutually_exclusive_group(required=True)
    model.add_argument("--cassette", type=Path, help="replay the model's answers from this cassette (offline)")
    model.add_argument(
        "--live", action="store_true", help="ask the live model (DEEPSEEK_API_KEY, or REACTLAB_API_KEY elsewhere)"
    )
    run.add_argument("--record", type=Path, metavar="FILE", help="with --live: save the run as a cassette")
    run.add_argument("--base-url", default=os.environ.get("REACTLAB_BASE_URL"), help="an OpenAI-compatible server")
    run.add_argument("--model", default=os.environ.get("REACTLAB_MODEL"), help="model name")
    run.add_argument("--repair", action="store_true", help="repair small slips in the model's answers, and say so")
    run.add_argument(
        "--discard", action="store_true", help="remove the working copy after printing (default: keep it, say where)"
    )

    demo = commands.add_parser("demo", help="the article's shop example, offline")
    commands.add_parser("doctor", help="what works on this machine: Python, widgets, the sandbox, a key")
    for sub in (run, demo):
        sub.add_argument(
            "--lang",
            choices=["en", "ru"],
            default="en",
            help="language of the system prompt, of what the tools tell the model, and of the route printed",
        )
        sub.add_argument("--json", action="store_true", help="print one JSON object instead of the route")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "doctor":
            return doctor.main()
        if args.command == "demo":
            return _demo(args)
        return _run(args)
    except (ReactlabError, ValueError, OSError) as error:
        show(f"reactlab: {error}", err=True)
        return 2


def show(text: str = "", *, err: bool = False) -> None:
    """Every line the CLI prints goes through here: a run's text may carry terminal controls."""
    print(visible(text), file=sys.stderr if err else sys.stdout)


def client_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"base_url": args.base_url, "model": args.model, "repair": args.repair}


def _run(args: argparse.Namespace) -> int:
    task = args.task if args.task is not None else args.task_file.read_text(encoding="utf-8")
    recorder: RecordingTransport | None = None
    if args.cassette:
        if args.record:
            raise ValueError("--record saves a live run; it goes with --live, not --cassette")
        client = Cassette.load(args.cassette).client(**client_options(args))
    else:
        recorder = RecordingTransport(httpx.HTTPTransport()) if args.record else None
        client = DeepSeekClient(transport=recorder, **client_options(args))
    outcome = run_in_copy(args.project, client, task=task, read_only=args.read_only, lang=args.lang)
    if not args.discard:  # this process ends now: without the mark, the next run would sweep the copy
        outcome.workspace.keep_after_exit()
    try:
        if recorder is not None:
            recorder.cassette(f"Recorded with reactlab run on {args.project.name}").save(args.record)
        code = _report(outcome, args.json, {"workspace_kept": not args.discard}, lang=args.lang)
        changes = None if args.json else _changes(outcome.workspace)
    finally:
        if args.discard:
            outcome.workspace.cleanup()
    if changes is not None:
        _where_the_copy_is(args.project, outcome.workspace, changes, kept=not args.discard, lang=args.lang)
    return code


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
    texts, copy = strings(lang).cli, workspace.root
    show("\n" + texts.changes)
    lines = str(changes).splitlines() if isinstance(changes, Manifest) else [visible(str(changes))]
    for line in lines[:MANIFEST_LINES]:
        show(f"  {line}")
    if len(lines) > MANIFEST_LINES:
        show(texts.changes_more.format(count=len(lines) - MANIFEST_LINES))
    if not kept:
        show(texts.copy_removed.format(path=copy))
        return
    show(texts.copy_kept.format(path=copy))
    show(texts.copy_diff.format(project=shlex.quote(str(project)), copy=shlex.quote(str(copy))))
    show(texts.copy_remove.format(copy=shlex.quote(str(workspace.folder))))  # the private folder around it


def _demo(args: argparse.Namespace) -> int:
    outcome = run_in_copy(SHOP, SHOP.cassette(args.lang).client(), lang=args.lang)
    texts = strings(args.lang).cli
    try:
        unchanged = unchanged_paths(outcome.workspace, SHOP.read_only)
        try:
            check = independent_test_run(outcome.workspace, SHOP.test_command)
        except SandboxUnavailable as error:  # the route was replayed; a verdict needs a real run
            rerun: dict[str, Any] = {"verdict": None, "exit_code": None, "not_run": str(error)}
            summary = texts.rerun_not_run.format(error=error)
            changes = ""
        else:
            label = verdict(check)
            rerun = {"verdict": label, "exit_code": check.exit_code, "changes": str(check.manifest).splitlines()}
            summary = texts.rerun_result.format(verdict=label, code=check.exit_code)
            changes = str(check.manifest)
        code = _report(outcome, args.json, {"independent_test_run": rerun, "unchanged": unchanged}, lang=args.lang)
    finally:
        outcome.workspace.cleanup()
    if not args.json:
        show("\n" + texts.independent_run.format(summary=summary))
        if changes:
            show(texts.changes)
            for line in changes.splitlines():
                show(f"  {line}")
        for path, same in unchanged.items():
            show(f"{path}: {texts.unchanged if same else texts.changed}")
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
    texts, repaired = strings(lang).cli, strings(lang).results.repaired
    lines = []
    for model_call in record.model_calls:
        executions = record.executions_of(model_call.number)
        if executions:
            asked = texts.asked_tools.format(count=len(executions))
        else:
            asked = texts.asked_answer if record.answer else "—"
        lines.append("\n" + texts.model_call.format(number=model_call.number, asked=asked))
        lines += ["  " + repaired.format(text=repair) for repair in getattr(model_call, "repairs", [])]
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
        texts = strings(lang).cli
        show(texts.working_copy.format(path=outcome.workspace.root))
        for line in route(record, lang):
            show(line)
        if outcome.answer is not None:
            show(f"\n{texts.answer}\n{outcome.answer}")
        else:
            show("\n" + texts.stopped.format(reason=record.stop_reason, error=record.error))
        show("\n" + texts.totals.format(calls=len(record.model_calls), executions=len(record.tool_executions)))
    return 0 if outcome.answer is not None else 1
