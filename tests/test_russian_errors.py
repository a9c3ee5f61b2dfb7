"""Every error a run can end with speaks the run's language: the agent's own (empty answer, the two
limits, a message that breaks the protocol) and the client's (HTTP statuses, finish reasons, bodies
that are not a chat.completion, server quirks, a refused key), raised through a real Agent and a real
DeepSeekClient over an httpx transport. A Russian run (``Agent(..., lang="ru")``) gets Russian
messages whether the client was made in Russian or made without a language; an English run keeps
the English ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, Script, call, errors, set_language
from reactlab.core.slips.dialects import DIALECTS
from reactlab.replay.scripted import chat_completion

from .helpers import NoteTool

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
PLACEHOLDER = re.compile(r"\{[a-z_]+(![rs])?\}")
NOTE = {"id": "call_1", "type": "function", "function": {"name": "note", "arguments": '{"text": "a"}'}}


def english_sentences(text: str) -> list[str]:
    """Runs of three or more English words in ``text``, outside what it quotes in «ёлочки» (the
    server's own words, a value): a run ends at a word that is not plain English or ends a sentence."""
    found, run = [], []
    for token in re.sub(r"«[^»]*»", " ", text).split():
        if re.fullmatch(r"[A-Za-z][A-Za-z']*[,:;.]?", token):
            run.append(token)
            if token[-1] != ".":
                continue
        if len(run) >= 3:
            found.append(" ".join(run))
        run = []
    return found + ([" ".join(run)] if len(run) >= 3 else [])


def test_the_check_finds_english_and_lets_quotes_and_names_be():
    assert english_sentences("Retrying the same request will not help.") == ["Retrying the same request will not help."]
    assert english_sentences("Сервер отклонил запрос (400): «Invalid messages order». Повторять бесполезно.") == []
    assert english_sentences("хотя в запросе stream: false. reactlab читает только целые ответы") == []


def test_the_server_flags_each_markup_names_read_the_same_in_every_language():
    # They go untranslated into the Russian error about markup left in content: option names, no English prose.
    assert [(d.name, english_sentences(d.flags)) for d in DIALECTS] == [(d.name, []) for d in DIALECTS]


def completion(message: dict[str, Any], finish_reason: str | None = "stop") -> dict[str, Any]:
    return chat_completion(message, finish_reason, {"model": "deepseek-flash"}, None, "test-1")


def cut_off(message: dict[str, Any]) -> dict[str, Any]:
    """An answer that used every token allowed, called "tool_calls" all the same (vLLM does so)."""
    body = completion(message, "tool_calls")
    return {**body, "usage": {**body["usage"], "completion_tokens": 800}}


def answer(body: Any, status: int = 200, **headers: str) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, json=body, headers=headers)


def raising(exception: Exception) -> Callable[[httpx.Request], httpx.Response]:
    def respond(request: httpx.Request) -> httpx.Response:
        raise exception

    return respond


@dataclass
class Case:
    kind: type[errors.ReactlabError]
    respond: Callable[[httpx.Request], httpx.Response]
    russian: str
    english: str
    base_url: str = "http://localhost:8000/v1"


CLIENT_CASES = {
    "no connection": Case(
        errors.APIConnectionError,
        raising(httpx.ConnectError("[Errno 111] Connection refused")),
        "Не удалось связаться с http://localhost:8000/v1/chat/completions: «[Errno 111] Connection refused». "
        "Проверьте сеть и base_url или работайте офлайн с кассетой. Повторная попытка позже может помочь.",
        "Could not reach http://localhost:8000/v1/chat/completions: [Errno 111] Connection refused.",
    ),
    "no answer in time": Case(
        errors.APITimeout,
        raising(httpx.ReadTimeout("timed out")),
        "Нет ответа от http://localhost:8000/v1/chat/completions за 1,5\u00a0с (ReadTimeout).",
        "No answer from http://localhost:8000/v1/chat/completions within 1.5 s (ReadTimeout).",
    ),
    "400": Case(
        errors.BadRequest,
        answer({"error": {"message": "Invalid messages order"}}, 400),
        "Сервер отклонил запрос (400): «Invalid messages order». Исправьте запрос: порядок сообщений, "
        "сообщения tool сразу после своего вызова, параметры. Повторять тот же запрос бесполезно.",
        "The server rejected the request (400): Invalid messages order. Fix the request",
    ),
    "400 naming a start-up option": Case(
        errors.ServerNeedsOption,
        answer({"error": {"message": '"auto" tool choice requires --enable-auto-tool-choice'}}, 400),
        "В его сообщении названа опция запуска: перезапустите сервер с ней.",
        "Its message names a start-up option: restart the server with it.",
    ),
    "401": Case(
        errors.AuthenticationFailed,
        answer({"error": {"message": "Authentication Fails"}}, 401, **{"x-request-id": "req-7"}),
        "API-ключ не принят (401, id запроса req-7): «Authentication Fails». Проверьте переданный api_key.",
        "The API key was refused (401, request id req-7): Authentication Fails. Check the api_key you passed.",
    ),
    "402": Case(
        errors.InsufficientBalance,
        answer({"error": {"message": "Insufficient Balance"}}, 402),
        "На счёте не осталось денег (402): «Insufficient Balance».",
        "The account has no balance left (402): Insufficient Balance.",
    ),
    "408": Case(
        errors.TemporarilyRefused,
        answer({"error": {"message": "Request Timeout"}}, 408),
        "Сервер просит отправить запрос позже (408): «Request Timeout». Повторная попытка позже может помочь.",
        "The server asks to send the request again later (408): Request Timeout. Retrying later may help.",
    ),
    "429": Case(
        errors.RateLimited,
        answer({"error": {"message": "Rate Limit Reached"}}, 429, **{"retry-after": "1.5"}),
        "Достигнут лимит частоты запросов (429, повторить через 1,5\u00a0с): «Rate Limit Reached».",
        "Rate limit reached (429, retry after 1.5 s): Rate Limit Reached.",
    ),
    "500": Case(
        errors.ServerError,
        answer({"error": {"message": "Server Error"}}, 500),
        "Сбой на стороне сервера (500): «Server Error». Подождите немного.",
        "The server failed (500): Server Error. Wait a moment.",
    ),
    "418": Case(
        errors.UnexpectedStatus,
        answer({"error": {"message": "I'm a teapot"}}, 418),
        "Сервер http://localhost:8000/v1/chat/completions ответил 418: «I'm a teapot».",
        "The server at http://localhost:8000/v1/chat/completions answered 418: I'm a teapot.",
    ),
    "context too long": Case(
        errors.ContextTooLong,
        answer({"error": {"message": "the request exceeds the available context size", "n_ctx": 4096}}, 400),
        "Отправленная история длиннее, чем принимает эта модель (400): «the request exceeds the available context "
        "size». Лимит: 4096\u00a0токенов.",
        "The history sent is longer than this model takes (400): the request exceeds the available context size. "
        "Limit: 4096 tokens.",
    ),
    "no tools": Case(
        errors.ToolsUnsupported,
        answer({"error": {"message": "gemma3:1b does not support tools"}}, 400),
        "не принимает инструменты (400): «gemma3:1b does not support tools».",
        "takes no tools (400): gemma3:1b does not support tools.",
    ),
    "region refused": Case(
        errors.AccessRefused,
        answer(
            {
                "error": {
                    "code": "unsupported_country_region_territory",
                    "message": "Country, region, or territory not supported",
                }
            },
            403,
        ),
        "Провайдер не обслуживает эту страну или регион (403): «Country, region, or territory not supported».",
        "The provider does not serve this country or region (403): Country, region, or territory not supported.",
    ),
    "untrusted certificate": Case(
        errors.UntrustedCertificate,
        raising(httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")),
        "TLS-сертификат localhost подписан центром, которому здесь не доверяют",
        "The TLS certificate of localhost is not signed by an authority trusted here",
    ),
    "undecodable body": Case(
        errors.UndecodableBody,
        lambda request: httpx.Response(200, content=b'{"id": "caf\xe9"}'),
        "Сервер ответил 200 телом не в UTF-8 (байт 11 из 14), а JSON должен быть в UTF-8.",
        "The server answered 200 with a body that is not UTF-8 (byte 11 of 14): JSON must be UTF-8.",
    ),
    "404 without /v1": Case(
        errors.EndpointNotFound,
        lambda request: httpx.Response(404, text="404 page not found"),
        "По адресу http://localhost:11434/chat/completions нет точки входа для чата (404): «404 page not found». "
        "Добавьте /v1 к base_url: http://localhost:11434/v1",
        "There is no chat endpoint at http://localhost:11434/chat/completions (404): 404 page not found. "
        "Add /v1 to base_url",
        base_url="http://localhost:11434",
    ),
    "404 for the model": Case(
        errors.ModelNotFound,
        answer({"error": {"message": "model 'deepseek-flash' not found", "code": "model_not_found"}}, 404),
        "Сервер не знает модель «deepseek-flash» (404): «model 'deepseek-flash' not found». Проверьте имя модели "
        "(список моделей сервера\u00a0— http://localhost:8000/v1/models).",
        "The server does not know the model 'deepseek-flash' (404)",
    ),
    "not JSON": Case(
        errors.MalformedResponse,
        lambda request: httpx.Response(200, text="<html>gateway</html>"),
        "Сервер ответил 200, но тело ответа\u00a0— не JSON (20\u00a0байт): «gateway».",
        "The server answered 200 but the body is not JSON (20 bytes): 'gateway'.",
    ),
    "no choices": Case(
        errors.MalformedResponse,
        answer({"id": "x", "object": "chat.completion", "choices": []}),
        "В теле ответа нет choices[0]\u00a0— это не chat.completion.",
        "The body has no choices[0]: not a chat.completion.",
    ),
    "unknown finish_reason": Case(
        errors.MalformedResponse,
        answer(completion({"role": "assistant", "content": "x"}, "paused")),
        "Неизвестный finish_reason «paused»: ответ может быть неполным.",
        "Unknown finish_reason 'paused': the answer may be incomplete.",
    ),
    "streamed": Case(
        errors.StreamedAnswer,
        lambda request: httpx.Response(200, text="data: {}\n\n", headers={"content-type": "text/event-stream"}),
        "прислал ответ потоком (text/event-stream, статус 200), хотя в запросе stream: false.",
        "streamed its answer (text/event-stream, status 200) although the request said stream: false.",
    ),
    "a call without id": Case(
        errors.RepairableAnswer,
        answer(completion({"role": "assistant", "content": None, "tool_calls": [{**NOTE, "id": None}]}, "tool_calls")),
        "В ответе сервера известная особенность: у tool_calls[0] нет id (отсутствует). "
        "DeepSeekClient(..., repair=True) исправил бы её",
        "The server's answer has a known quirk: tool_calls[0] has no id (it is missing).",
    ),
    "a call naming nothing": Case(
        errors.UnmendableToolCall,
        answer(completion({"role": "assistant", "content": None, "tool_calls": [{"id": "", "type": "function"}]})),
        "tool_calls[0] не называет функцию (нет ни объекта function, ни name): вызывать нечего",
        "tool_calls[0] names no function (no 'function' object, no 'name'): there is nothing to call",
    ),
    "unreadable markup": Case(
        errors.UnmendableToolCall,
        answer(completion({"role": "assistant", "content": "<tool_call>{not json}</tool_call>"})),
        "В content есть разметка Hermes/Qwen <tool_call>, которую нельзя прочитать как вызов инструмента (внутри не "
        "JSON): «<tool_call>{not json}</tool_call>». repair=True этого не исправит: запустите сервер с включённым "
        "разбором вызовов инструментов",
        "'content' holds Hermes/Qwen <tool_call> markup that cannot be read as a tool call (its inside is not JSON)",
    ),
    "the server refused a broken call": Case(
        errors.MalformedToolCall,
        answer(
            {
                "error": {
                    "message": "Failed to call a function",
                    "code": "tool_use_failed",
                    "failed_generation": '<function=note>{"text": </function>',
                }
            },
            400,
        ),  # fmt: skip
        "Модель записала вызов инструмента с ошибкой, и сервер отверг её ответ (400): «Failed to call a function». "
        'Что написала модель: «<function=note>{"text": </function>».',
        "The model's tool call was malformed, so the server refused its answer (400): Failed to call a function.",
    ),
    "filtered, 400": Case(
        errors.ContentFiltered,
        answer({"error": {"message": "The response was filtered", "code": "content_filter"}}, 400),
        "Запрос отклонён политикой содержимого провайдера (400): «The response was filtered». "
        "Сам запрос составлен верно",
        "The request was filtered by the provider's content policy (400): The response was filtered.",
    ),
    "cut off at max_tokens": Case(
        errors.TruncatedAnswer,
        answer(completion({"role": "assistant", "content": "The cause is"}, "length")),
        "Ответ обрезан на лимите max_tokens (finish_reason «length»), доверять ему нельзя.",
        "The answer was cut off at max_tokens (finish_reason 'length'), so it cannot be trusted.",
    ),
    "arguments cut off": Case(
        errors.TruncatedAnswer,
        answer(
            cut_off(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{**NOTE, "function": {"name": "note", "arguments": '{"text": "a long no'}}],
                }
            )
        ),  # fmt: skip
        "Аргументы tool_calls[0] («note») обрываются раньше, чем кончается их JSON (символов: 19, в конце "
        '«{"text": "a long no»), хотя finish_reason не «length»: ответ обрезан на лимите max_tokens (800).',
        "The arguments of tool_calls[0] ('note') break off before their JSON ends (19 characters",
    ),
    "filtered, finish_reason": Case(
        errors.ContentFiltered,
        answer(completion({"role": "assistant", "content": ""}, "content_filter")),
        "Провайдер не выдал ответ (finish_reason «content_filter»). Переформулируйте задачу.",
        "The provider withheld the answer (finish_reason 'content_filter'). Rephrase the task.",
    ),
    "refused": Case(
        errors.ModelRefused,
        answer(completion({"role": "assistant", "content": None, "refusal": "I can't help with that."})),
        "Модель отказалась от задачи: «I can't help with that.». Это отказ самой модели (message.refusal)",
        "The model refused the task: \"I can't help with that.\". This is the model's own refusal",
    ),
    "out of resources": Case(
        errors.ResourcesExhausted,
        answer(completion({"role": "assistant", "content": "x"}, "insufficient_system_resource")),
        "У провайдера кончились ресурсы посреди ответа (finish_reason «insufficient_system_resource»).",
        "The provider ran out of capacity mid-answer (finish_reason 'insufficient_system_resource').",
    ),
    "aborted": Case(
        errors.AnswerAborted,
        answer(completion({"role": "assistant", "content": "x"}, "abort")),
        "Сервер прервал ответ, не закончив его (finish_reason «abort»",
        "The server aborted the answer before it was finished (finish_reason 'abort'",
    ),
}

AGENT_CASES = {
    "empty answer": (
        errors.EmptyAnswer,
        Script().empty_answer(),
        {},
        "Модель не вернула ни вызова, ни ответа.",
        "The model returned neither a tool call nor an answer.",
    ),
    "model-call limit": (
        errors.StepLimitExceeded,
        Script().tool_call("note", text="a").tool_call("note", text="b"),
        {"max_steps": 2},
        "Достигнут лимит обращений к модели (2) без финального ответа.",
        "2 model calls without a final answer.",
    ),
    "tool-call limit": (
        errors.ToolCallLimitExceeded,
        Script().tool_calls(call("note", text="a"), call("note", text="b"), call("note", text="c")),
        {"max_tool_calls": 2},
        "Достигнут лимит вызовов инструментов: выполнено 0, запрошено ещё 3, а разрешено 2.",
        "Tool-call limit reached: 0 done, 3 more asked, 2 allowed.",
    ),
    "an id twice": (
        errors.InvalidAssistantMessage,
        Script().message({"role": "assistant", "content": None, "tool_calls": [NOTE, NOTE]}, "tool_calls"),
        {},
        "tool_calls[1] повторяет id «call_1» внутри одного ответа.",
        "tool_calls[1] repeats id 'call_1' within one answer.",
    ),
    "not an assistant": (
        errors.InvalidAssistantMessage,
        Script().message({"role": "user", "content": "hi"}),
        {},
        "Ожидался объект с ролью «assistant».",
        "Expected an object with role 'assistant'.",
    ),
}


def russian_and_no_english(error: BaseException) -> str:
    said = str(error)
    assert CYRILLIC.search(said), said
    assert english_sentences(said) == [], said
    assert not PLACEHOLDER.search(said), said  # every field of the message was filled
    return said


def run_until(error_kind: type[errors.ReactlabError], client: Any, lang: str, **limits: int) -> str:
    with pytest.raises(error_kind) as caught:
        Agent(client, [NoteTool()], lang=lang, **limits).run("Запиши заметку." if lang == "ru" else "Take a note.")
    assert type(caught.value) is error_kind
    assert caught.value.record is not None and caught.value.record.lang == lang
    return str(caught.value)


def served(case: Case, lang: str | None) -> DeepSeekClient:
    transport = httpx.MockTransport(case.respond)
    return DeepSeekClient(api_key="", base_url=case.base_url, transport=transport, timeout=1.5, lang=lang)


def every_subclass(kind: type) -> set[type]:
    return {kind, *(grand for sub in kind.__subclasses__() for grand in every_subclass(sub))}


def test_every_error_the_agent_or_the_client_raises_is_here():
    """The cases cover the whole tree under APIError and AgentError: a new error needs its Russian case."""
    covered = {case.kind for case in CLIENT_CASES.values()} | {kind for kind, *_ in AGENT_CASES.values()}
    expected = (every_subclass(errors.APIError) | every_subclass(errors.AgentError)) - {
        errors.APIError,
        errors.AgentError,
    }
    assert covered == expected


@pytest.mark.parametrize("client_lang", ["ru", None], ids=["client made in Russian", "client made without one"])
@pytest.mark.parametrize("name", CLIENT_CASES)
def test_a_client_error_in_a_russian_run_is_russian(name, client_lang):
    case = CLIENT_CASES[name]
    said = run_until(case.kind, served(case, client_lang), "ru")
    assert case.russian in russian_and_no_english(Exception(said))


@pytest.mark.parametrize("name", CLIENT_CASES)
def test_the_same_client_error_in_an_english_run_is_english(name):
    case = CLIENT_CASES[name]
    said = run_until(case.kind, served(case, None), "en")
    assert case.english in said and not CYRILLIC.search(said)


@pytest.mark.parametrize("name", AGENT_CASES)
def test_the_agents_own_errors_speak_the_runs_language(name):
    kind, script, limits, russian, english = AGENT_CASES[name]
    assert russian in russian_and_no_english(Exception(run_until(kind, script.client(), "ru", **limits)))
    english_script = Script()
    english_script.answers = list(script.answers)
    said = run_until(kind, english_script.client(), "en", **limits)
    assert english in said and not CYRILLIC.search(said)


def test_set_language_alone_makes_a_run_russian():
    set_language("ru")
    try:
        client = DeepSeekClient(api_key="", transport=httpx.MockTransport(answer({"error": {"message": "x"}}, 500)))
        with pytest.raises(errors.ServerError) as caught:
            Agent(client, [NoteTool()]).run("Запиши заметку.")
    finally:
        set_language("en")
    assert str(caught.value).startswith("Сбой на стороне сервера (500): «x».")


def test_a_client_given_its_own_language_keeps_it():
    client = served(CLIENT_CASES["500"], "en")
    said = run_until(errors.ServerError, client, "ru")
    assert said.startswith("The server failed (500)")


@pytest.mark.parametrize(
    "api_key, base_url, russian",
    [
        ("sk-abc def", None, "В API-ключе из api_key есть пробел, табуляция, перевод строки или другой символ"),
        (
            "sk-abc",
            "http://example.org/v1",
            "API-ключ из api_key не будет отправлен на «example.org» по незашифрованному HTTP",
        ),
    ],  # fmt: skip
)
def test_a_refused_key_is_refused_in_russian(api_key, base_url, russian):
    with pytest.raises(errors.APIKeyRefused) as caught:
        DeepSeekClient(api_key=api_key, base_url=base_url, lang="ru")
    assert russian in russian_and_no_english(caught.value) and "sk-abc" not in str(caught.value)


def test_a_repair_is_recorded_in_russian():
    body = completion({"role": "assistant", "content": None, "tool_calls": [{**NOTE, "type": None}]}, "tool")
    final = completion({"role": "assistant", "content": "Готово."})
    bodies = iter([body, final])
    client = DeepSeekClient(api_key="", transport=httpx.MockTransport(lambda r: answer(next(bodies))(r)), repair=True)
    agent = Agent(client, [NoteTool()], lang="ru")
    assert agent.run("Запиши заметку.") == "Готово."
    assert agent.record.model_calls[0].repairs == [
        "tool_calls[0]: type не было; поставлен «function»",
        "finish_reason «tool» прочитан как «tool_calls»",
    ]


def test_what_the_model_reads_about_its_own_mistakes_is_russian():
    """Broken JSON and arguments the schema refuses: the offending value quoted, in Russian words."""
    script = (
        Script()
        .tool_call("note", '{"text": "a}')
        .tool_call("note", {"text": 5})
        .tool_call("note", {"text": "a", "colour": "red"})
        .final_answer("Готово.")
    )
    agent = Agent(script.client(), [NoteTool()], lang="ru")
    agent.run("Запиши заметку.")
    said = [execution.result["error"] for execution in agent.record.tool_executions]
    assert said == [
        'Аргументы не разбираются как JSON: незакрытая кавычка (строка 1, столбец 10, символ 9) рядом с «{"text": "a}»',
        "note: аргументы не подходят под схему: значение 5 не того типа: нужен string (место: $.text)",
        "note: аргументы не подходят под схему: лишнее свойство «colour» не допускается",
    ]
    for text in said:
        assert english_sentences(text) == [], text


def test_doctor_speaks_russian_when_asked():
    for argv in (["-m", "reactlab", "doctor", "--lang", "ru"], ["-m", "reactlab.doctor", "--lang", "ru"]):
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode in (0, 1), done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("✓ Python           версия ") and lines[1].startswith(
            "✓ виджеты          ipywidgets "
        )
        assert any(line.startswith(("✓ песочница", "~ песочница")) for line in lines)
        assert any(line.startswith(("~ настоящая модель", "✓ настоящая модель")) for line in lines)
        for line in lines:
            assert english_sentences(line.replace("Bubblewrap", "")) == [], line


def test_the_cli_speaks_the_language_asked_for(capsys):
    from reactlab.cli import main

    with pytest.raises(SystemExit):
        main(["run", "--lang", "ru", "--help"])
    helped = capsys.readouterr().out
    assert helped.startswith("использование: reactlab run [-h]") and "показать эту справку и выйти" in helped
    assert "воспроизвести ответы модели из этой кассеты (офлайн)" in helped and "options:" not in helped
    with pytest.raises(SystemExit):
        main(["run", "--lang", "ru", "--project", "p"])
    assert "reactlab run: ошибка: нужен один из аргументов: --task --task-file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--project", "p"])
    assert "reactlab run: error: one of the arguments --task --task-file is required" in capsys.readouterr().err
    assert main(["--lang", "ru", "run", "--project", "/nonexistent", "--task", "x", "--cassette", "c.json"]) == 2
    assert capsys.readouterr().err == "reactlab: Папка проекта не найдена: /nonexistent\n"
    assert main(["run", "--lang", "ru", "--project", ".", "--task-file", "/nonexistent", "--cassette", "c"]) == 2
    assert capsys.readouterr().err == "reactlab: /nonexistent: нет такого файла или папки\n"
    record = ["run", "--lang", "ru", "--project", ".", "--task", "x", "--cassette", "c", "--record", "r.json"]
    assert main(record) == 2
    assert "--record сохраняет запуск с настоящей моделью, поэтому задаётся вместе с --live" in capsys.readouterr().err


def test_no_english_sentence_is_left_in_what_a_russian_run_says():
    """No message of these runs shows an English sentence of the catalogue instead of its Russian."""
    from reactlab.core.ru import RUSSIAN

    sentences = [english.split("{")[0] for english in RUSSIAN if len(english.split("{")[0].split()) >= 3]
    messages = [c.russian for c in CLIENT_CASES.values()] + [r for *_, r, _ in AGENT_CASES.values()]
    assert [english for english in sentences for text in messages if english in text] == []
    json.dumps(messages)  # plain text, nothing else
