"""Each error quotes the server's own words and names a cause only where the body makes it certain."""

from __future__ import annotations

import json

import pytest

from reactlab import Agent, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, load
from .test_mistakes import client_for, server_making

SAID = {case["name"]: case for case in load("said")["said"]}
NOTE = NoteTool().definition()


def said_by(case, repair: bool) -> errors.APIError:
    transport = server_making(case)
    client = client_for(case, transport)
    client.repair = repair
    with pytest.raises(errors.APIError) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    return caught.value


@pytest.mark.parametrize("repair", [False, True], ids=["strict", "repair"])
@pytest.mark.parametrize("name", SAID)
def test_the_error_quotes_the_server_and_names_only_a_certain_cause(name, repair):
    case = SAID[name]
    error = said_by(case, repair)
    said = str(error)
    assert type(error).__name__ == case["error"], said
    for words in case["says"]:
        assert words in said
    for words in case.get("never_says", []):
        assert words not in said
    assert error.retryable is case.get("retryable", False)
    assert (error.provider_code, error.provider_type) == (case.get("code"), case.get("type"))
    assert "\n" not in said and len(said) < 1200
    if isinstance(error, errors.ContextTooLong):
        assert (error.limit, error.sent) == (case.get("limit"), case.get("sent"))
    assert json.loads(json.dumps(error.details))["type"] == case["error"]


@pytest.mark.parametrize("name", SAID)
def test_the_agent_stops_on_it_and_keeps_the_record(name):
    case = SAID[name]
    note = NoteTool()
    agent = Agent(client_for(case), [note])
    with pytest.raises(errors.APIError) as caught:
        agent.run("Take a note.")
    record = caught.value.record
    assert record.stop_reason == caught.value.stop_reason and record.answer is None and note.notes == []


def test_a_key_echoed_in_a_refusal_is_scrubbed():
    case = dict(SAID["OpenAI from Russia: 403 country not supported"])
    case["json"] = {
        "error": {
            "code": "unsupported_country_region_territory",
            "message": f"Country, region, or territory not supported for key {case['api_key']}",
        }
    }
    error = said_by(case, repair=False)
    assert case["api_key"] not in str(error) and case["api_key"] not in (error.body or "")
    assert "[API key]" in str(error)


@pytest.mark.parametrize(
    "page, reason",
    [
        ("<!DOCTYPE html><html><head><title>Just a moment</title></head><body>x</body></html>", "Just a moment"),
        (
            "<html><body><h1>503 Service Temporarily Unavailable</h1><!-- <h1>no</h1> --></body></html>",
            "503 Service Temporarily Unavailable",
        ),
        ("<html><head><title>A &amp; B <b>bold</b></title></head></html>", "A & B bold"),
        (
            "<html><body><p>no title, no heading: <!-- hidden --> the words</p></body></html>",
            "no title, no heading: the words",
        ),
    ],
)
def test_an_html_page_gives_its_title_or_first_heading(page, reason):
    case = {
        "base_url": "http://localhost:8000/v1",
        "status": 503,
        "headers": {"content-type": "text/html"},
        "text": page,
    }
    error = said_by(case, repair=False)
    assert f"(503): {reason}." in str(error) and "<" not in str(error).replace("<html", "")


def test_a_page_of_unclosed_tags_is_read_in_linear_time():
    import time

    for page in ("<html><title>" + "<" * 2_000_000, "<html>" + "<!--" * 500_000, "<html><h1" + ">" * 2_000_000):
        case = {"base_url": "http://localhost:8000/v1", "status": 502, "text": page}
        started = time.perf_counter()
        said_by(case, repair=False)
        assert time.perf_counter() - started < 2.0  # a quadratic scan of 2 MB takes minutes
