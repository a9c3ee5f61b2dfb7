"""GigaChat (its own API: an OAuth token, the legacy functions dialect), Yandex AI Studio, and the legacy
function_call of older servers: strict mode says what to do, repair=True runs them both ways."""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import parse_qs

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RecordingTransport, errors
from reactlab.core.slips import gigachat

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, load, served_client

NOTE = NoteTool().definition()
GIGA = load("gigachat")
LEGACY = load("legacy_function_call")
AUTH_KEY = "ZTU2MjM2MjctYmI4Yy00MTJjLTk0YjctYTEyOmdpZ2FjaGF0LXRlc3Qta2V5LTAwMDA="


class GigaChatServer:
    """Sber's two hosts at the transport: the OAuth server hands out tokens, the chat server answers in turn."""

    def __init__(self, lifetime: float = 1800.0, refuse: tuple[int, dict] | None = None, chat_status: int = 200):
        self.lifetime, self.refuse, self.chat_status = lifetime, refuse, chat_status
        self.token_requests: list[httpx.Request] = []
        self.chat_requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "ngw.devices.sberbank.ru":
            self.token_requests.append(request)
            if self.refuse:
                return httpx.Response(self.refuse[0], json=self.refuse[1])
            token = dict(GIGA["token"], access_token=f"{GIGA['token']['access_token']}-{len(self.token_requests)}")
            token["expires_at"] = int((time.time() + self.lifetime) * 1000)
            return httpx.Response(200, json=token)
        self.chat_requests.append(request)
        if self.chat_status != 200:
            token = request.headers["Authorization"]
            return httpx.Response(self.chat_status, json={"status": 401, "message": f"Token {token} has expired"})
        return httpx.Response(200, json=GIGA["chat_answers"][(len(self.chat_requests) - 1) % 2])


def giga_client(server: GigaChatServer, **kwargs) -> DeepSeekClient:
    kwargs.setdefault("api_key", AUTH_KEY)
    return DeepSeekClient(
        base_url=GIGA["base_url"], model=GIGA["model"], transport=httpx.MockTransport(server), **kwargs
    )


def test_the_gigachat_profile_comes_from_its_host():
    client = giga_client(GigaChatServer())
    assert client.provider.name == "gigachat" and client.provider.functions


def test_the_token_is_exchanged_for_the_authorization_key_and_sent_as_bearer():
    server = GigaChatServer()
    giga_client(server, repair=True).send(TASK_MESSAGES, [NOTE])
    (exchange,) = server.token_requests
    assert str(exchange.url) == gigachat.TOKEN_URL and exchange.method == "POST"
    assert exchange.headers["Authorization"] == f"Basic {AUTH_KEY}"
    assert uuid.UUID(exchange.headers["RqUID"]).version == 4
    assert parse_qs(exchange.content.decode()) == {"scope": ["GIGACHAT_API_PERS"]}
    (chat,) = server.chat_requests
    assert chat.headers["Authorization"] == f"Bearer {GIGA['token']['access_token']}-1"
    assert AUTH_KEY not in str(chat.headers) and AUTH_KEY not in chat.content.decode()


def test_one_token_serves_until_a_minute_before_it_ends_then_a_new_one_is_fetched():
    lasting = GigaChatServer(lifetime=1800)
    client = giga_client(lasting, repair=True)
    for _ in range(3):
        client.send(TASK_MESSAGES, [NOTE])
    assert len(lasting.token_requests) == 1
    ending = GigaChatServer(lifetime=gigachat.RENEW_BEFORE - 5)  # each token already within its last minute
    client = giga_client(ending, repair=True)
    client.send(TASK_MESSAGES, [NOTE])
    client.send(TASK_MESSAGES, [NOTE])
    assert len(ending.token_requests) == 2
    assert ending.chat_requests[1].headers["Authorization"].endswith("-2")


def test_the_scope_comes_from_gigachat_scope_and_a_wrong_one_is_refused(monkeypatch):
    monkeypatch.setenv("GIGACHAT_SCOPE", "GIGACHAT_API_CORP")
    server = GigaChatServer()
    giga_client(server, repair=True).send(TASK_MESSAGES, [NOTE])
    assert parse_qs(server.token_requests[0].content.decode()) == {"scope": ["GIGACHAT_API_CORP"]}
    monkeypatch.setenv("GIGACHAT_SCOPE", "GIGACHAT_API_EVERYTHING")
    with pytest.raises(ValueError, match="GIGACHAT_API_PERS, GIGACHAT_API_B2B or GIGACHAT_API_CORP"):
        giga_client(GigaChatServer())


@pytest.mark.parametrize(
    "status, body",
    [
        (401, {"code": 4, "message": f"Can't decode 'Authorization' header {AUTH_KEY}"}),
        (400, {"code": 7, "message": "scope from db not fully includes consumed scope"}),
    ],
)
def test_a_refused_key_says_why_and_never_shows_the_key(status, body):
    server = GigaChatServer(refuse=(status, body))
    with pytest.raises(errors.AuthenticationFailed) as caught:
        Agent(giga_client(server), [NoteTool()]).run("Take a note.")
    said = str(caught.value)
    assert body["message"].split(" header")[0] in said and "GIGACHAT_SCOPE" in said and "not its Client Secret" in said
    assert AUTH_KEY not in said and server.chat_requests == []
    assert AUTH_KEY not in caught.value.record.to_json()  # nor in the run record


def test_a_token_echoed_by_the_chat_server_is_scrubbed():
    server = GigaChatServer(chat_status=401)
    with pytest.raises(errors.AuthenticationFailed) as caught:
        giga_client(server).send(TASK_MESSAGES, [NOTE])
    said = str(caught.value) + (caught.value.body or "")
    assert "[access token]" in said and GIGA["token"]["access_token"] not in said and AUTH_KEY not in said


def test_strict_mode_names_the_legacy_function_call_and_the_ways_out():
    with pytest.raises(errors.RepairableAnswer) as caught:
        giga_client(GigaChatServer()).send(TASK_MESSAGES, [NOTE])
    said = str(caught.value)
    assert "legacy function_call ('note')" in said and "finish_reason 'function_call'" in said
    assert "repair=True" in said and "gpt2giga" in said and "finish_reason is 'function_call'" not in said


def test_the_request_speaks_gigachats_dialect():
    server = GigaChatServer()
    giga_client(server, repair=True).send(TASK_MESSAGES, [NOTE])
    body = json.loads(server.chat_requests[0].content)
    assert "tools" not in body and "tool_choice" not in body
    assert body["functions"] == [NOTE["function"]] and body["function_call"] == "auto"


def test_repair_runs_gigachat_through_the_agent_and_sends_the_history_back_its_way():
    server = GigaChatServer()
    note = NoteTool()
    agent = Agent(giga_client(server, repair=True), [note])
    assert agent.run("Запиши заметку.") == "Заметка записана."
    assert note.notes == ["от GigaChat"]
    record = agent.record
    assert record.model_calls[0].repairs and "read as tool_calls[0]" in record.model_calls[0].repairs[0]
    assert record.model_calls[0].response == GIGA["chat_answers"][0]  # the body as it came
    second = json.loads(server.chat_requests[1].content)["messages"]
    call, result = second[2], second[3]
    assert call == {
        "role": "assistant",
        "content": "",
        "function_call": {"name": "note", "arguments": {"text": "от GigaChat"}},
    }
    assert result == {"role": "function", "name": "note", "content": record.messages[3]["content"]}
    assert record.messages[2]["tool_calls"][0]["function"]["name"] == "note"  # the agent's own history keeps tools


def recorded_gigachat_run(folder) -> tuple[Agent, Cassette]:
    """A GigaChat run (repair mode) recorded through the real client, its cassette saved and loaded again."""
    server = GigaChatServer()
    recorder = RecordingTransport(httpx.MockTransport(server))
    client = DeepSeekClient(
        api_key=AUTH_KEY, base_url=GIGA["base_url"], model=GIGA["model"], transport=recorder, repair=True
    )
    agent = Agent(client, [NoteTool()])
    assert agent.run("Запиши заметку.") == "Заметка записана." and len(server.token_requests) == 1
    path = recorder.cassette("GigaChat, repair=True").save(folder / "gigachat.json")
    saved = path.read_text(encoding="utf-8")
    assert AUTH_KEY not in saved and GIGA["token"]["access_token"] not in saved  # the token exchange is not kept
    return agent, Cassette.load(path)


@pytest.mark.parametrize("options", [{"provider": "gigachat"}, {"base_url": GIGA["base_url"]}])
def test_a_recorded_gigachat_run_replays_with_its_provider_and_repair(tmp_path, options):
    recorded, cassette = recorded_gigachat_run(tmp_path)
    note = NoteTool()
    replayed = Agent(cassette.client(model=GIGA["model"], repair=True, **options), [note])
    assert replayed.run("Запиши заметку.") == "Заметка записана." and note.notes == ["от GigaChat"]
    sent = [call.request for call in replayed.record.model_calls]
    assert sent == [interaction["request"] for interaction in cassette.interactions]  # the same requests, exactly
    assert sent[1]["messages"][3]["role"] == "function"  # in GigaChat's dialect
    ids = [[e.call_id for e in agent.record.tool_executions] for agent in (recorded, replayed)]
    assert ids[0] == ids[1] and ids[0][0].startswith("call_")


@pytest.mark.parametrize("options", [{}, {"repair": True}])
def test_a_gigachat_cassette_replayed_with_tools_says_what_to_pass(tmp_path, options):
    _, cassette = recorded_gigachat_run(tmp_path)
    with pytest.raises(errors.CassetteMismatch) as caught:
        Agent(cassette.client(model=GIGA["model"], **options), [NoteTool()]).run("Запиши заметку.")
    said = str(caught.value)
    assert "Interaction 1 of 2 was recorded in the legacy functions dialect" in said
    assert 'cassette.client(provider="gigachat", repair=True)' in said and "--repair" in said


def test_a_gigachat_cassette_replayed_in_strict_mode_says_repair_is_needed(tmp_path):
    _, cassette = recorded_gigachat_run(tmp_path)
    with pytest.raises(errors.RepairableAnswer, match=r"legacy function_call \('note'\).*repair=True"):
        Agent(cassette.client(model=GIGA["model"], provider="gigachat"), [NoteTool()]).run("Запиши заметку.")


def test_the_recorder_keeps_no_exchange_but_chat_completions():
    # A token exchange that sent and answered JSON would otherwise be kept, token and all.
    token = {"access_token": "secret-access-token", "expires_at": 1}
    recorder = RecordingTransport(httpx.MockTransport(lambda request: httpx.Response(200, json=token)))
    with httpx.Client(transport=recorder) as client:
        client.post(gigachat.TOKEN_URL, json={"scope": "GIGACHAT_API_PERS"})
    assert recorder.interactions == []


def test_an_old_servers_function_call_is_named_in_strict_mode_and_run_with_repair():
    fixture = {"base_url": LEGACY["base_url"], "model": LEGACY["model"], "answers": LEGACY["legacy_answers"]}
    with pytest.raises(errors.RepairableAnswer, match="update"):
        served_client(fixture)[0].send(TASK_MESSAGES, [NOTE])
    client, served = served_client(fixture, repair=True)
    note = NoteTool()
    agent = Agent(client, [note])
    assert agent.run("Take a note.") == "Noted." and note.notes == ["legacy"]
    first, second = served.requests
    assert "tools" in first and "functions" not in first  # it was not known to speak the old dialect
    assert second["functions"] == [NOTE["function"]] and "tools" not in second
    assert second["messages"][2]["function_call"] == {"name": "note", "arguments": '{"text": "legacy"}'}
    assert second["messages"][3]["role"] == "function" and second["messages"][3]["name"] == "note"


def test_two_calls_in_one_answer_go_back_as_two_function_calls_each_with_its_result():
    from reactlab.core.slips.legacy_functions import to_functions

    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "note", "arguments": f'{{"text": "{i}"}}'}}
        for i in (1, 2)
    ]
    messages = [
        *TASK_MESSAGES,
        {"role": "assistant", "content": "Two.", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "tool", "tool_call_id": "c2", "content": "r2"},
    ]
    body = to_functions({"model": "m", "messages": messages, "tools": [NOTE], "tool_choice": "auto"}, True)
    assert [(m["role"], m.get("content")) for m in body["messages"][2:]] == [
        ("assistant", "Two."),
        ("function", "r1"),
        ("assistant", ""),
        ("function", "r2"),
    ]
    assert body["messages"][4]["function_call"]["arguments"] == {"text": "2"}


YANDEX = load("yandex")


def yandex_headers(key: str) -> httpx.Headers:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=YANDEX["answers"][1])

    client = DeepSeekClient(
        api_key=key, base_url=YANDEX["base_url"], model=YANDEX["model"], transport=httpx.MockTransport(answer)
    )
    client.send(TASK_MESSAGES, [NOTE])
    return seen[0].headers


def test_yandex_takes_an_api_key_as_api_key_and_an_iam_token_as_bearer():
    assert yandex_headers("AQVNtest-yandex-api-key-0000")["Authorization"] == "Api-Key AQVNtest-yandex-api-key-0000"
    assert yandex_headers("t1.9euelZqtest-iam-token")["Authorization"] == "Bearer t1.9euelZqtest-iam-token"


def test_yandex_needs_the_folder_in_the_model_uri():
    with pytest.raises(ValueError, match=r"gpt://<folder ID>/yandexgpt/latest"):
        DeepSeekClient(api_key="", base_url=YANDEX["base_url"], model="yandexgpt/latest")
