"""Be the model: the student writes each assistant reply, and the real Agent executes it.

The Agent is the ordinary one, talking to an ordinary DeepSeekClient; only the HTTP transport is
different: it answers each request with the reply the student composed for it. There is no thread:
every reply runs the Agent again from the start, with the replies given so far and the results the
tools gave so far (no tool runs twice), until the first request that has no reply yet. Its body is
shown, and the kernel is free until the next click. So it works where threads cannot start
(JupyterLite's Pyodide), and a failure of the widget itself is shown to the student, not hidden.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Literal

import httpx
import ipywidgets as widgets

from ..core.agent import Agent
from ..core.client import DeepSeekClient
from ..core.errors import ReactlabError
from ..core.language import Language, resolve_language, say, translatable
from ..core.prompts import system_prompt
from ..core.protocols import Tool
from ..core.record import ModelCall, RunRecord
from ..replay.scripted import call, chat_completion, tool_call_message
from .history import history_html
from .markup import render
from .route import route_html

__all__ = ["BeTheModel"]

FINAL = translatable("(final answer)")
"""The choice that sends the final answer (in a Russian widget: ``say(FINAL, lang="ru")``)."""

Reply = tuple[dict[str, Any], str]  # the assistant message and its finish_reason


class _Waiting(Exception):
    """Request ``number`` has no reply yet: the replayed run stops here, which is not an ending."""

    stop_reason = None  # what Agent.run writes into the record as the run's ending

    def __init__(self, number: int, body: dict[str, Any]) -> None:
        super().__init__()
        self.number, self.body = number, body


class _StudentTransport(httpx.BaseTransport):
    """Answers request k with the student's k-th reply; raises _Waiting for the first without one."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.rewind()

    def rewind(self) -> None:
        self.number = 0
        self.previous: dict[str, Any] | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.read())
        self.number += 1
        if self.number > len(self.replies):
            raise _Waiting(self.number, body)
        message, finish_reason = self.replies[self.number - 1]
        response = chat_completion(message, finish_reason, body, self.previous, f"student-{self.number}")
        self.previous = body
        return httpx.Response(200, json=response)


class _Remembered:
    """A tool that runs each of its calls once: when the run is replayed, it gives back, in order,
    what it gave the first time (a result, or the error it raised)."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.name = tool.name
        self.outcomes: list[tuple[Any, Exception | None]] = []
        self.position = 0

    def definition(self) -> dict[str, Any]:
        return self.tool.definition()

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if self.position == len(self.outcomes):
            try:
                self.outcomes.append((self.tool.execute(arguments), None))
            except Exception as raised:  # the Agent decides what an error means, on every replay alike
                self.outcomes.append((None, raised))
        result, error = self.outcomes[self.position]
        self.position += 1
        if error is not None:
            raise error
        return result  # type: ignore[no-any-return]


class BeTheModel(widgets.VBox):
    """``BeTheModel(tools, task)``: you answer each request; the Agent validates and runs it.

    ``lang`` (``current_language()`` when None) is the language of the widget and of the default
    system prompt; the tools speak the language they were made in. ``view`` is what each request is
    shown as: "schemes" (Schemes 3 and 5) or "request" (the messages as JSON, for a notebook that has
    not taught the schemes yet)."""

    def __init__(
        self,
        tools: Sequence[Tool],
        task: str,
        *,
        system: str | None = None,
        max_steps: int = 8,
        max_tool_calls: int = 16,
        lang: Language | None = None,
        view: Literal["schemes", "request"] = "schemes",
    ) -> None:
        self._view = view
        self._replies: list[Reply] = []
        self._thinking: list[float] = []  # how long the student took over each reply: the model's time
        self._asked_at = time.monotonic()
        self.lang = lang = resolve_language(lang)
        self.final = say(FINAL, lang=lang)
        system = system_prompt(lang) if system is None else system
        self.answer: str | None = None
        self.error: ReactlabError | None = None
        self.finished = False
        self._transport = _StudentTransport(self._replies)
        self._tools = [_Remembered(tool) for tool in tools]
        client = DeepSeekClient(api_key="", transport=self._transport)
        self.agent = Agent(
            client, self._tools, system=system, max_steps=max_steps, max_tool_calls=max_tool_calls, lang=lang
        )
        self._task = task
        self._templates = {tool.name: _template(tool) for tool in tools}

        self.tool = widgets.Dropdown(options=[*self._templates, self.final], description=say("reply", lang=self.lang))
        layout = widgets.Layout(width="100%", height="90px")
        self.arguments = widgets.Textarea(description=say("arguments", lang=self.lang), layout=layout)
        self.text = widgets.Textarea(
            description=say("answer", lang=self.lang), layout=widgets.Layout(width="100%", height="60px")
        )
        self.send = widgets.Button(description=say("send as the model", lang=self.lang), button_style="warning")
        self.status = widgets.HTML()
        self.view = widgets.HTML()
        self.tool.observe(lambda change: self._fill_template(), "value")
        self.send.on_click(lambda _: self.submit())
        self._fill_template()
        super().__init__([self.status, self.view, self.tool, self.arguments, self.text, self.send])
        self._advance()

    # the student's side -------------------------------------------------------------------------
    def submit(self) -> None:
        """Send what the form holds as the assistant's reply."""
        if self.tool.value == self.final:
            self.reply_with_answer(self.text.value)
        else:
            self.reply_with_tool(self.tool.value, self.arguments.value)

    def reply_with_tool(self, name: str, arguments: dict[str, Any] | str) -> None:
        """Ask for one tool call; ``arguments`` may be a dict or the raw JSON string a model would send."""
        self._reply(tool_call_message([call(name, arguments)], len(self._replies) + 1), "tool_calls")

    def reply_with_answer(self, text: str) -> None:
        self._reply({"role": "assistant", "content": text}, "stop")

    @property
    def record(self) -> RunRecord | None:
        return self.agent.record

    # the agent's side ---------------------------------------------------------------------------
    def _reply(self, message: dict[str, Any], finish_reason: str) -> None:
        if self.finished:
            return
        self._replies.append((message, finish_reason))
        self._thinking.append(time.monotonic() - self._asked_at)
        self._advance()

    def _advance(self) -> None:
        """Replay the run with every reply so far, up to the next request or the end; a failure of the
        widget's own work is shown in its status, and the send button is disabled."""
        try:
            self._replay()
        except Exception as error:  # the widget's own bug: say so, never leave a frozen form
            self.finished = True
            self.send.disabled = True
            text = say(
                "This widget failed ({error}). Run its cell again to start over.",
                lang=self.lang,
                error=f"{type(error).__name__}: {error}",
            )
            self.status.value = self._status(text, waiting=False)

    def _replay(self) -> None:
        self._transport.rewind()
        durations = [e.duration for e in self.record.tool_executions] if self.record else []
        for tool in self._tools:
            tool.position = 0
        try:
            self.answer = self.agent.run(self._task)
        except _Waiting as waiting:
            self._keep_times(durations)
            self._show_request(waiting.number, waiting.body)
            return
        except ReactlabError as error:
            self.error = error
            message = say("The run stopped: {reason}: {error}", lang=self.lang, reason=error.stop_reason, error=error)
        else:
            calls = len(self.record.model_calls) if self.record else 0
            message = say("Finished with a final answer after {calls} model calls.", lang=self.lang, calls=calls)
        self._keep_times(durations)
        self.finished = True
        self.send.disabled = True
        self._refresh(message)

    def _keep_times(self, durations: list[float]) -> None:
        """The replay took no time: keep what the first run of each tool took, and the student's time."""
        assert self.record is not None
        for execution, duration in zip(self.record.tool_executions, durations, strict=False):
            execution.duration = duration
        for model_call, thinking in zip(self.record.model_calls, self._thinking, strict=False):
            model_call.duration = thinking
        if self.record.stop_reason is None:
            self.record.error = None  # stopped at the request shown, which waits for its reply

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = self.status.value + self.view.value  # what a reader without a kernel sees
        return data

    def __repr__(self) -> str:
        return f"<BeTheModel: {len(self.agent.tools)} tools, {self.agent.max_steps} model calls at most>"

    def _fill_template(self) -> None:
        self.arguments.value = self._templates.get(self.tool.value, "")
        self.arguments.disabled = self.tool.value == self.final
        self.text.disabled = self.tool.value != self.final

    def _show_request(self, number: int, body: dict[str, Any]) -> None:
        """Show the request being answered, exactly as the model would see it."""
        assert self.record is not None
        self._asked_at = time.monotonic()
        pending = RunRecord.from_dict(self.record.to_dict())
        pending.model_calls.append(ModelCall(number, body))
        place, lang = "-student", self.lang
        if self._view == "request":
            heading = say(
                "Request {number}, as the model receives it: the messages (the tool definitions travel beside them, "
                "in tools).",
                lang=self.lang,
                number=number,
            )
            view = render("student_request.html", heading=heading, messages=body.get("messages"), lang=self.lang)
        else:
            view = history_html(pending, number, place=place, lang=lang) + route_html(
                pending, number, place=place, lang=lang
            )
        self.view.value = view
        self.status.value = self._status(
            say(
                "Request {number} is waiting for you: pick a tool, or write the final answer.",
                lang=self.lang,
                number=number,
            ),
            waiting=True,
        )

    def _refresh(self, message: str) -> None:
        self.status.value = self._status(message, waiting=False)
        if self.record is not None and self.record.model_calls and self._view == "schemes":
            self.view.value = route_html(self.record, place="-student", lang=self.lang)

    def _status(self, text: str, *, waiting: bool) -> str:
        return str(render("be_the_model.html", text=text, waiting=waiting, lang=self.lang))


def _template(tool: Tool) -> str:
    properties = tool.definition()["function"]["parameters"].get("properties", {})
    example = {name: rule["enum"][0] if "enum" in rule else "" for name, rule in properties.items()}
    return json.dumps(example, ensure_ascii=False)
