"""A total deadline per model call, against a real local server that trickles keep-alive bytes."""

from __future__ import annotations

import json
import time

import pytest

from reactlab import Agent, DeepSeekClient, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, completion, local_server, trickle

FINAL = json.dumps(completion({"role": "assistant", "content": "done"}, "stop")).encode()


def test_a_trickle_of_blank_lines_ends_at_the_deadline():
    # One byte every 50 ms never trips the 5 s read timeout: only a total deadline stops this call.
    with local_server(trickle(interval=0.05, lasting=30, then=FINAL)) as server:
        client = DeepSeekClient(api_key="", base_url=server.base_url, timeout=5, deadline=1.0)
        started = time.monotonic()
        with pytest.raises(errors.APITimeout, match="total deadline of 1 s") as caught:
            client.send(TASK_MESSAGES, [])
        elapsed = time.monotonic() - started
    assert 1.0 <= elapsed < 3.0
    assert caught.value.retryable and "still sending" in str(caught.value)


def test_blank_lines_before_an_answer_within_the_deadline_are_fine():
    # DeepSeek keeps a queued non-streamed request alive with blank lines before the JSON.
    with local_server(trickle(interval=0.05, lasting=0.3, then=FINAL)) as server:
        client = DeepSeekClient(api_key="", base_url=server.base_url, timeout=5, deadline=10)
        assert client.send(TASK_MESSAGES, []).message == {"role": "assistant", "content": "done"}


def test_the_agent_records_the_deadline_as_a_timeout():
    with local_server(trickle(interval=0.05, lasting=30)) as server:
        agent = Agent(DeepSeekClient(api_key="", base_url=server.base_url, timeout=5, deadline=0.5), [NoteTool()])
        with pytest.raises(errors.APITimeout) as caught:
            agent.run("Take a note.")
    assert caught.value.record.stop_reason == "api_timeout" and caught.value.record.model_calls[0].response is None
