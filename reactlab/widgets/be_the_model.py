"""Be the model: the student writes each assistant reply, and the real Agent executes it.

The Agent is the ordinary one, talking to an ordinary DeepSeekClient; only the HTTP transport is
different: instead of a server, it waits for the reply the student composes in the widget.
The loop runs in a background thread so that the kernel stays free to deliver button clicks.
"""

from __future__ import annotations

import json
import queue
import threading
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


class _StudentTransport(httpx.BaseTransport):
    def __init__(self, widget: BeTheModel) -> None:
        self.widget = widget
        self.previous: dict[str, Any] | None = None
        self.number = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.read())
        self.number += 1
        message, finish_reason = self.widget._await_reply(self.number, body)
        response = chat_completion(message, finish_reason, body, self.previous, f"student-{self.number}")
        self.previous = body
        return httpx.Response(200, json=response)


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
        self._pending = 1
        self._view = view
        self._replies: queue.Queue[tuple[dict[str, Any], str] | None] = queue.Queue()
        self.lang = lang = resolve_language(lang)
        self.final = say(FINAL, lang=lang)
        system = system_prompt(lang) if system is None else system
        self._turn = threading.Event()
        self.answer: str | None = None
        self.error: ReactlabError | None = None
        self.finished = False
        client = DeepSeekClient(api_key="", transport=_StudentTransport(self))
        self.agent = Agent(client, tools, system=system, max_steps=max_steps, max_tool_calls=max_tool_calls, lang=lang)
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

        self._thread = threading.Thread(target=self._run, name="be-the-model", daemon=True)
        self._thread.start()
        self.wait()

    # the student's side -------------------------------------------------------------------------
    def submit(self) -> None:
        """Send what the form holds as the assistant's reply."""
        if self.finished:
            return
        if self.tool.value == self.final:
            self.reply_with_answer(self.text.value)
        else:
            self.reply_with_tool(self.tool.value, self.arguments.value)

    def reply_with_tool(self, name: str, arguments: dict[str, Any] | str) -> None:
        """Ask for one tool call; ``arguments`` may be a dict or the raw JSON string a model would send."""
        self._reply(tool_call_message([call(name, arguments)], self._pending), "tool_calls")

    def reply_with_answer(self, text: str) -> None:
        self._reply({"role": "assistant", "content": text}, "stop")

    def wait(self, timeout: float = 60) -> bool:
        """Block until the agent asks for the next reply or the run ends. True if it did in time."""
        done = self._turn.wait(timeout)
        return done

    @property
    def record(self) -> RunRecord | None:
        return self.agent.record

    # the agent's side ---------------------------------------------------------------------------
    def _reply(self, message: dict[str, Any], finish_reason: str) -> None:
        self._turn.clear()
        self._replies.put((message, finish_reason))
        self.wait()

    def _await_reply(self, number: int, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        self._pending = number
        self._show_request(number, body)
        self._turn.set()
        reply = self._replies.get()
        if reply is None:
            raise ReactlabError("the student closed the session")
        return reply

    def _run(self) -> None:
        try:
            self.answer = self.agent.run(self._task)
            calls = len(self.agent.record.model_calls) if self.agent.record else 0
            message = say("Finished with a final answer after {calls} model calls.", lang=self.lang, calls=calls)
        except ReactlabError as error:
            self.error = error
            message = say("The run stopped: {reason}: {error}", lang=self.lang, reason=error.stop_reason, error=error)
        self.finished = True
        self.send.disabled = True
        self._refresh(message)
        self._turn.set()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = self.status.value + self.view.value  # what a reader without a kernel sees
        return data

    def __repr__(self) -> str:
        return f"<BeTheModel: {len(self.agent.tools)} tools, {self.agent.max_steps} model calls at most>"

    def close(self) -> None:
        self._replies.put(None)
        super().close()

    def _fill_template(self) -> None:
        self.arguments.value = self._templates.get(self.tool.value, "")
        self.arguments.disabled = self.tool.value == self.final
        self.text.disabled = self.tool.value != self.final

    def _show_request(self, number: int, body: dict[str, Any]) -> None:
        """Show the request being answered, exactly as the model would see it."""
        assert self.record is not None
        pending = RunRecord.from_dict(self.record.to_dict())
        pending.model_calls.append(ModelCall(number, body))
        self.status.value = self._status(
            say(
                "Request {number} is waiting for you: pick a tool, or write the final answer.",
                lang=self.lang,
                number=number,
            ),
            waiting=True,
        )
        place, lang = "-student", self.lang
        if self._view == "request":
            heading = say(
                "Request {number}, as the model receives it: the messages (the tool definitions travel beside them, "
                "in tools).",
                lang=self.lang,
                number=number,
            )
            self.view.value = str(
                render("student_request.html", heading=heading, messages=body.get("messages"), lang=self.lang)
            )
            return
        self.view.value = history_html(pending, number, place=place, lang=lang) + route_html(
            pending, number, place=place, lang=lang
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
