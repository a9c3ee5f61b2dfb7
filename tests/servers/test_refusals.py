"""The model's refusal (message.refusal) ends the run with an error that quotes it, not as an empty answer."""

from __future__ import annotations

import pytest

from reactlab import Agent, errors

from ..helpers import NoteTool
from .serving import completion, error_from, load, served_client

REFUSALS = {case["name"]: case for case in load("refusals")["refusals"]}
NOT_REFUSALS = {case["name"]: case for case in load("refusals")["not_refusals"]}
NOTE = NoteTool().definition()


def serving(case, **kwargs):
    body = completion(case["message"], case["finish_reason"])
    return served_client({"base_url": case.get("base_url", "http://localhost:8000/v1"), "answers": [body]}, **kwargs)


@pytest.mark.parametrize("name", REFUSALS)
def test_a_refusal_is_quoted_and_called_a_refusal_in_both_modes(name):
    case = REFUSALS[name]
    strict, repairing = (error_from(serving(case, repair=r)[0], errors.ModelRefused, [NOTE]) for r in (False, True))
    said = str(strict)
    assert f"The model refused the task: {case['quote']!r}" in said and str(repairing) == said
    assert "not an empty answer" in said and "\n" not in said and "\x1b" not in said
    assert not isinstance(strict, errors.EmptyAnswer) and not strict.retryable
    assert strict.response == repairing.response == completion(case["message"], case["finish_reason"])


@pytest.mark.parametrize("name", REFUSALS)
def test_the_agent_stops_on_a_refusal_and_keeps_it_in_the_record(name):
    case = REFUSALS[name]
    note = NoteTool()
    client, _ = serving(case)
    with pytest.raises(errors.ModelRefused) as caught:
        Agent(client, [note]).run("Take a note.")
    record = caught.value.record
    assert record.stop_reason == "model_refused" and record.answer is None and note.notes == []
    assert record.model_calls[0].response["choices"][0]["message"]["refusal"] == case["message"]["refusal"]


@pytest.mark.parametrize("name", NOT_REFUSALS)
def test_an_answer_beside_a_refusal_field_is_the_answer(name):
    case = NOT_REFUSALS[name]
    client, _ = serving(case)
    assert Agent(client, [NoteTool()]).run("Take a note.") == case["message"]["content"]


def test_a_tool_call_beside_a_refusal_text_runs():
    call = {"id": "call_r1", "type": "function", "function": {"name": "note", "arguments": '{"text": "r"}'}}
    first = completion(
        {"role": "assistant", "content": None, "refusal": "Not all of it.", "tool_calls": [call]}, "stop"
    )
    final = completion({"role": "assistant", "content": "Done."}, "stop")
    note = NoteTool()
    client, _ = served_client({"base_url": "http://localhost:8000/v1", "answers": [first, final]})
    assert Agent(client, [note]).run("Take a note.") == "Done." and note.notes == ["r"]


def test_an_empty_answer_without_a_refusal_is_still_an_empty_answer():
    for refusal in (None, "", "   "):
        message = {"role": "assistant", "content": None, "refusal": refusal}
        client, _ = served_client({"base_url": "http://localhost:8000/v1", "answers": [completion(message, "stop")]})
        with pytest.raises(errors.EmptyAnswer):
            Agent(client, [NoteTool()]).run("Take a note.")
