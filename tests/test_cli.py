"""The CLI prints no terminal controls from a run, keeps --json exact, and says where the copy is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reactlab import Cassette, ModelCall, RunRecord, Script, ToolExecution, Workspace
from reactlab.cli import _parser, _report, client_options, main, route, show
from reactlab.replay.scripted import chat_completion
from reactlab.runner import Outcome
from reactlab.terminal import visible

from .conftest import needs_sandbox, without_sandbox

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

# Each is a way a run's text could take over the terminal it is printed on.
HOSTILE = {
    "clear screen, cursor home": "\x1b[2J\x1b[H",
    "colour and cursor up": "\x1b[31m\x1b[1A",
    "OSC 8 hyperlink": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "OSC 52 clipboard write": "\x1b]52;c;cm0gLXJmIH4K\x07",
    "window title": "\x1b]0;owned\x07",
    "bell": "\x07",
    "carriage return overwrite": "rm -rf ~\rls -la   ",
    "backspace overwrite": "evil\x08\x08\x08\x08good",
    "delete": "a\x7fb",
    "C1 CSI, one code point": "\x9b2J",
    "C1 OSC ... ST": "\x9d52;c;AAAA\x9c",
    "C1 NEL": "line\x85next",
    "NUL and vertical tab": "a\x00b\x0bc",
    "bidi override (Trojan Source)": "access = \u202euser\u2066 // admin\u2069\u202c",
    "bidi embedding": "\u202bright\u202c \u202aleft\u202c \u202dforced\u202c",
    "first strong isolate": "\u2068isolated\u2069",
}


def controls(text: str) -> list[str]:
    """Every character that can steer a terminal: Unicode's Cc (C0, DEL, C1) except newline and tab,
    the bidi embeddings, overrides and isolates, and lone surrogates."""
    return [
        c
        for c in text
        if (unicodedata.category(c) == "Cc" and c not in "\n\t") or c in BIDI or unicodedata.category(c) == "Cs"
    ]


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_show_prints_every_variant_as_visible_escapes(capsys, text):
    show(f"before {text} after")
    show(f"error: {text}", err=True)
    out, err = capsys.readouterr()
    for printed in (out, err):
        assert controls(printed) == []
        assert printed.endswith(" after\n") or printed.startswith("error: ")
        assert any(code in printed for code in ("\\x", "\\u"))  # shown, not dropped


def test_escapes_are_readable_and_newline_and_tab_stay():
    assert visible("a\x1b[31mb") == "a\\x1b[31mb"
    assert visible("\x9b\x7f\u202e") == "\\u009b\\u007f\\u202e"
    assert visible("line 1\n\tline 2\r\n") == "line 1\n\tline 2\\x0d\n"
    readable = "Кириллица, 中文, emoji 🙂, a left-to-right mark \u200e"
    assert visible(readable) == readable


def test_a_lone_surrogate_from_json_does_not_crash_printing(capsys):
    text = json.loads('"answer \\ud800 end"')
    show(text)
    assert capsys.readouterr().out == "answer \\ud800 end\n"


@given(st.text(st.characters(codec=None, categories=None, exclude_categories=())))
def test_nothing_gets_through_and_json_reads_back_exactly(text):
    assert controls(visible(text)) == []
    printed = visible(json.dumps({"answer": text, "steps": [text]}, ensure_ascii=False, indent=1))
    assert controls(printed) == []
    assert json.loads(printed) == {"answer": text, "steps": [text]}


def test_json_of_every_variant_reads_back_exactly(capsys):
    show(json.dumps(HOSTILE, ensure_ascii=False, indent=1))
    out = capsys.readouterr().out
    assert controls(out) == [] and json.loads(out) == HOSTILE
    assert "Кириллица" in visible(json.dumps("Кириллица", ensure_ascii=False))  # not \u-escaped


def _model_call(number: int, repairs: list[str] | None = None) -> ModelCall:
    call = ModelCall(number, {"messages": []}, {"choices": [{"message": {}, "finish_reason": "tool_calls"}]})
    if repairs is not None:
        call.repairs = repairs  # type: ignore[attr-defined]  # ModelCall.repairs arrives with issue 15
    return call


def test_the_route_shows_badges_and_repairs():
    record = RunRecord("task", "system", answer="done", stop_reason="answer")
    record.model_calls = [_model_call(1, ["id was missing", "arguments were not a string"]), _model_call(2)]
    replayed = {"ok": True, "exit_code": 0, "stdout": "OK\n", "stderr": "", "replayed": True, "note": "not run"}
    missing = {"ok": False, "sandbox_unavailable": True, "error": "bubblewrap is not installed"}
    record.tool_executions = [
        ToolExecution(1, "c1", "bash", '{"command": "make test"}', replayed),
        ToolExecution(1, "c2", "bash", '{"command": "ls"}', missing),
        ToolExecution(1, "c3", "bash", '{"command": "true"}', {"ok": True, "exit_code": 0, "stdout": "", "stderr": ""}),
    ]
    lines = route(record)
    assert lines[:4] == [
        "\n[model call 1] 3 tool call(s)",
        "  repaired: id was missing",
        "  repaired: arguments were not a string",
        "  bash(command=make test)  → OK  [replayed, not run on this machine]",
    ]
    assert "  bash(command=ls)  [sandbox unavailable]" in lines
    assert "      error: bubblewrap is not installed" in lines
    assert "  bash(command=true)" in lines  # a result run here carries no badge
    assert not any("repaired" in line for line in lines[lines.index("\n[model call 2] a final answer") :])


def test_a_stopped_run_prints_its_error_escaped(capsys, tmp_path):
    (tmp_path / "project").mkdir()
    record = RunRecord("task", "system", stop_reason="api_error", error="HTTP 500: \x1b]52;c;AAAA\x07 \u202egnp.exe")
    with Workspace(tmp_path / "project") as workspace:
        assert _report(Outcome(workspace, record), as_json=False) == 1
    out = capsys.readouterr().out
    assert controls(out) == [] and "stopped: api_error: HTTP 500: \\x1b]52;c;AAAA\\x07 \\u202egnp.exe" in out


def test_a_hostile_path_in_an_error_is_escaped(capsys, tmp_path):
    cassette = str(tmp_path / "no\x1b]52;c;AAAA\x07pe.json")
    assert main(["run", "--project", str(tmp_path), "--task", "x", "--cassette", cassette]) == 2
    err = capsys.readouterr().err
    assert controls(err) == [] and "no\\x1b]52;c;AAAA\\x07pe" in err


def test_repair_is_off_unless_asked_for():
    base = ["run", "--project", "p", "--task", "t", "--cassette", "c.json"]
    assert client_options(_parser().parse_args(base))["repair"] is False
    assert client_options(_parser().parse_args([*base, "--repair"]))["repair"] is True


# --- through the real CLI: a scripted run whose every part carries the sequences ---

ANSWER = "Done." + "".join(HOSTILE.values())
COMMAND = "echo \x1b[31mred; printf 'FAIL: \\033]52;c;cm0gLXJmIH4K\\007 \\302\\233 2J \\342\\200\\256 RLO \\rCR\\n'"


def _hostile_cassette(tmp_path: Path) -> Path:
    script = (
        Script()
        .tool_call("\x1b[2J\x1b]0;owned\x07evil", path="x")
        .tool_call("bash", command=COMMAND)
        .tool_call("edit", path="notes.txt", old_text="hello", new_text="\x1b]52;c;AAAA\x07 \u202ehello\x9b")
        .final_answer(ANSWER)
    )
    interactions = [
        {"response": chat_completion(message, reason, {"model": "scripted"}, None, f"scripted-{number}")}
        for number, (message, reason) in enumerate(script.answers, 1)
    ]
    cassette = Cassette(interactions, "scripted", "A scripted run that tries to take over the terminal")
    return cassette.save(tmp_path / "hostile.json")


def _hostile_args(tmp_path: Path) -> list[str]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    return ["run", "--project", str(project), "--task", "look \x1b[8m", "--cassette", str(_hostile_cassette(tmp_path))]


@needs_sandbox
def test_a_hostile_scripted_run_prints_no_controls(capsys, tmp_path):
    assert main([*_hostile_args(tmp_path), "--discard"]) == 0
    out, err = capsys.readouterr()
    assert controls(out) == [] and controls(err) == []
    assert "  \\x1b[2J\\x1b]0;owned\\x07evil(path=x)" in out  # the tool name
    assert "  bash(command=echo \\x1b[31mred; printf 'FAIL:" in out  # the arguments
    assert "      FAIL: \\x1b]52;c;cm0gLXJmIH4K\\x07 \\u009b 2J \\u202e RLO\n" in out  # bash output, really run
    assert "+\\x1b]52;c;AAAA\\x07 \\u202ehello\\u009b" in out  # the edit's diff
    assert f"answer:\n{visible(ANSWER)}\n" in out
    assert "working copy removed (--discard)" in out


@needs_sandbox
def test_the_json_of_a_hostile_run_is_exact(capsys, tmp_path):
    assert main([*_hostile_args(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    assert controls(out) == []
    data = json.loads(out)
    assert data["answer"] == ANSWER
    names = [step["tool"] for step in data["steps"]]
    assert names == ["\x1b[2J\x1b]0;owned\x07evil", "bash", "edit"]
    assert json.loads(data["steps"][1]["arguments"]) == {"command": COMMAND}
    stdout = "\x1b[31mred\nFAIL: \x1b]52;c;cm0gLXJmIH4K\x07 \x9b 2J \u202e RLO \rCR\n"
    assert data["steps"][1]["result"]["stdout"] == stdout  # exactly what ran
    assert data["workspace_kept"] is True
    copy = Path(data["workspace"])
    assert (copy / "notes.txt").read_text() == "\x1b]52;c;AAAA\x07 \u202ehello\x9b\n"
    shutil.rmtree(copy)


@needs_sandbox
def test_a_hostile_run_in_a_real_terminal_process(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "reactlab", *_hostile_args(tmp_path), "--discard"],
        capture_output=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    out = done.stdout.decode("utf-8")  # strict: the bytes are valid UTF-8
    assert controls(out) == [] and b"\x1b" not in done.stdout and b"\x07" not in done.stdout
    assert "\\x1b]52;c;" in out and "\\u202e" in out and "\\u009b" in out


@needs_sandbox
def test_run_keeps_the_copy_and_says_how_to_remove_it(capsys, tmp_path):
    assert main(_hostile_args(tmp_path)) == 0
    out = capsys.readouterr().out
    kept = out.split("working copy kept: ")[1].split("\n")[0]
    assert Path(kept).is_dir() and (Path(kept) / "notes.txt").exists()
    folder = str(Path(kept).parent)  # the private folder that holds the copy: removing it leaves nothing
    assert f"  remove it:         rm -r {folder}   (or run with --discard)" in out
    assert f"diff -ru --no-dereference {tmp_path / 'project'} {kept} | cat -v" in out
    subprocess.run(["rm", "-r", folder], check=True)
    assert not Path(folder).exists()


# --- demo and doctor: the verdict comes from a real re-run, or is plainly not given ---


@needs_sandbox
def test_demo_reruns_the_tests_and_lists_what_the_run_changed(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "independent test run: OK (exit code 0)" in out
    assert "what the run changed (+ added, - removed, ~ changed):\n  ~ shop/delivery.py\n" in out
    assert "shop/settings.json: unchanged" in out and "tests: unchanged" in out


@needs_sandbox
def test_demo_json_carries_the_rerun_and_the_changes(capsys):
    assert main(["demo", "--json"]) == 0
    rerun = json.loads(capsys.readouterr().out)["independent_test_run"]
    assert rerun == {"verdict": "OK", "exit_code": 0, "changes": ["~ shop/delivery.py"]}


def test_demo_without_a_sandbox_replays_bash_and_gives_no_verdict():
    done = subprocess.run(
        without_sandbox([sys.executable, "-m", "reactlab", "demo"]), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "[replayed, not run on this machine]" in done.stdout
    assert "independent test run: not run here:" in done.stdout and "could not build a sandbox" in done.stdout
    assert "independent test run: OK" not in done.stdout


def test_doctor_is_a_cli_verb(capsys):
    from reactlab.doctor import check_all, report

    checks = check_all()
    code = main(["doctor"])
    assert capsys.readouterr().out == visible(report(checks)) + "\n"
    assert code == (1 if any(c.status == "failed" for c in checks) else 0)


# --- a malformed cassette: one clear line, no traceback, no copy left behind (issue 24) ---


def _bad_cassettes(folder: Path) -> dict[str, tuple[Path, str]]:
    """(file, what its error line says) for each way a cassette can be broken."""
    from .test_cassette import MALFORMED, _nested, _shop_with

    files = {}
    for name in ("a message that is a number", "a call whose function is text", "a request that is a list",
                 "a choice that is a number", "tool calls that are text"):  # fmt: skip
        change, where = MALFORMED[name]
        files[name] = (json.dumps(_shop_with(change)).encode(), where)
    files["nested 200,000 deep"] = (_nested(200_000).encode(), "nests deeper than 64 levels")
    half = json.dumps(_shop_with(lambda i: i[0]["response"]["choices"][0]["message"].update(content="HALF")))
    files["half a surrogate pair"] = (half.replace('"HALF"', '"\\ud800"').encode(), "holds half of a UTF-16")
    files["not JSON"] = (b'{"format": "reactlab.cassette/1", ', "Cannot read cassette")
    files["not UTF-8"] = (b'{"description": "\xff\xfe"}', "Cannot read cassette")
    paths = {}
    for number, (name, (content, says)) in enumerate(files.items()):
        path = folder / f"bad-{number}.json"
        path.write_bytes(content)
        paths[name] = (path, says)
    return paths


def test_a_malformed_cassette_is_one_clear_line_and_leaves_no_copy(tmp_path):
    temporary = tmp_path / "tmp"  # where the working copy would go
    temporary.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    for name, (path, says) in _bad_cassettes(tmp_path).items():
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "reactlab",
                "run",
                "--project",
                str(project),
                "--task",
                "t",
                "--cassette",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "TMPDIR": str(temporary)},
        )
        assert done.returncode == 2, (name, done.stderr)
        assert done.stdout == "" and "Traceback" not in done.stderr, (name, done.stderr)
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"reactlab: {path}: ") or line.startswith(f"reactlab: Cannot read cassette {path}")
        assert says in line, (name, line)
        assert list(temporary.iterdir()) == [], name


# --- after a run: what it changed, and a diff to suggest that follows no link it planted (issue 24) ---

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- reactlab-test-secret"


def _planted(project: Path, home: Path) -> dict[str, str]:
    """(name, shell command) for each thing a run can leave in its copy to turn a suggested diff against
    the reader: links in place of a file and of a folder, pointing at a key outside the copy, and
    terminal controls in a file and in a name. ``home`` holds the key."""
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    (project / "data.txt").write_text("data\n")
    (project / "notes.txt").write_text("hello\n")
    (project / "keys").mkdir()
    (project / "keys" / "id_rsa").write_text("not a key\n")  # same name as the file the link leads to
    return {
        "a link in place of a file": f"rm data.txt && ln -s {home}/.ssh/id_rsa data.txt",
        "a link in place of a folder": f"rm -r keys && ln -s {home}/.ssh keys",
        "controls in a file": r"printf 'hi\033]52;c;cm0gLXJmIH4K\007\033[2J\n' > notes.txt",
        "controls in a name": "printf x > \"$(printf 'n\\033[31m.txt')\"",
    }


def _suggested(out: str) -> str:
    (line,) = [line for line in out.splitlines() if line.startswith("  see the changes:")]
    return line.split(":", 1)[1].strip()


def _run_suggested(command: str) -> bytes:
    """What the reader's terminal would receive from the command we suggested."""
    done = subprocess.run(command, shell=True, capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr  # diff: 1 when the trees differ
    return done.stdout + done.stderr


def _assert_safe(out: str, suggested_output: bytes) -> None:
    assert controls(out) == [] and SECRET not in out
    assert SECRET.encode() not in suggested_output and b"\x1b" not in suggested_output
    assert b"\x07" not in suggested_output and b"is a symbolic link" in suggested_output
    assert b"^[]52;c;cm0gLXJmIH4K^G" in suggested_output  # shown, not obeyed


@needs_sandbox
def test_the_suggested_diff_follows_no_link_the_run_planted(capsys, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    commands = _planted(project, tmp_path / "home")
    script = Script()
    for command in commands.values():
        script.tool_call("bash", command=command)
    interactions = [
        {"response": chat_completion(message, reason, {"model": "scripted"}, None, f"scripted-{number}")}
        for number, (message, reason) in enumerate(script.final_answer("done").answers, 1)
    ]
    path = Cassette(interactions, "scripted", "plants links and controls").save(tmp_path / "planted.json")
    assert main(["run", "--project", str(project), "--task", "t", "--cassette", str(path)]) == 0
    out = capsys.readouterr().out
    copy = Path(out.split("working copy kept: ")[1].split("\n")[0])
    try:
        assert (copy / "data.txt").is_symlink() and (copy / "keys").is_symlink()  # the run really planted them
        assert "  ~ data.txt\n" in out and "  ~ keys\n" in out and "  ~ notes.txt\n" in out
        assert "  + 'n\\x1b[31m.txt'\n" in out  # reactlab's own list: every name escaped
        _assert_safe(out, _run_suggested(_suggested(out)))
    finally:
        subprocess.run(["rm", "-r", str(copy.parent)], check=True)


def test_the_suggested_diff_is_safe_wherever_the_copy_came_from(capsys, tmp_path):
    """The same, without a sandbox: the things are planted in a kept copy as a command would."""
    from reactlab.changes import compare
    from reactlab.cli import _where_the_copy_is

    project = tmp_path / "project"
    project.mkdir()
    commands = _planted(project, tmp_path / "home")
    with Workspace(project) as workspace:
        for command in commands.values():
            subprocess.run(command, shell=True, cwd=workspace.root, check=True)
        _where_the_copy_is(project, workspace, compare(project, workspace.root), kept=True, lang="en")
        out = capsys.readouterr().out
        _assert_safe(out, _run_suggested(_suggested(out)))


def test_a_run_of_many_files_lists_a_few(capsys, tmp_path):
    from reactlab.changes import compare
    from reactlab.cli import MANIFEST_LINES, _where_the_copy_is

    project = tmp_path / "project"
    project.mkdir()
    with Workspace(project) as workspace:
        for number in range(500):
            (workspace.root / f"made-{number:03}.txt").write_text("x")
        _where_the_copy_is(project, workspace, compare(project, workspace.root), kept=False, lang="ru")
    out = capsys.readouterr().out
    assert out.count("  + made-") == MANIFEST_LINES and f"  … и ещё {500 - MANIFEST_LINES}\n" in out
    assert "рабочая копия удалена" in out
