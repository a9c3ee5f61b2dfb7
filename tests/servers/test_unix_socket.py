"""A base URL on a unix socket (``unix:/path/server.sock:/v1``), against a real server on a real socket:
requests go through the socket and no key from the environment goes with them, in Python and on the
CLI, and only while no one else could have put the socket there. (tests/servers/test_other_user.py
has another user try; this file needs no root, but one test.)"""

from __future__ import annotations

import json
import os

import httpx
import pytest

from reactlab import APIConnectionError, Cassette, DeepSeekClient, RecordingTransport, transport_for
from reactlab.core.slips.unix_socket import request_url, socket_path

from .serving import TASK_MESSAGES, answer_json, completion, live_run, local_server

KEYS = {"REACTLAB_API_KEY": "sk-reactlab-secret-0123456789", "DEEPSEEK_API_KEY": "sk-deepseek-secret-9876543210"}
DONE = completion({"role": "assistant", "content": "Done."}, "stop")


@pytest.fixture
def keys_in_the_environment(monkeypatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


def test_the_base_url_names_the_socket_then_the_path_behind_it():
    assert socket_path("unix:/run/me/server.sock:/v1") == "/run/me/server.sock"
    assert request_url("unix:/run/me/server.sock:/v1/chat/completions") == (
        "http://unix-socket.invalid/v1/chat/completions"  # a host that resolves nowhere
    )
    assert socket_path("unix:/run/me/server.sock") == "/run/me/server.sock"  # no path: the server's root
    for url in ("http://127.0.0.1:8080/v1", "https://api.deepseek.com", "http://unix:80/v1"):
        assert socket_path(url) is None and request_url(url) == url


@pytest.mark.parametrize("url", ["unix:", "unix:server.sock:/v1", "unix:~/server.sock:/v1", "unix:/s.sock:v1"])
def test_a_socket_that_is_not_an_absolute_path_is_refused_in_the_readers_language(url):
    with pytest.raises(ValueError, match="unix:/absolute/path/to/server.sock:/v1, not"):
        DeepSeekClient(base_url=url, api_key="", lang="en")
    with pytest.raises(ValueError, match="пишется так"):
        DeepSeekClient(base_url=url, api_key="", lang="ru")


def test_no_key_from_the_environment_goes_through_the_socket(tmp_path, keys_in_the_environment):
    with local_server(answer_json(DONE), unix_socket=tmp_path / "server.sock") as server:
        client = DeepSeekClient(base_url=server.base_url, model="m")
        assert client.send(TASK_MESSAGES, []).message["content"] == "Done."
        assert "api_key=not set" in repr(client)
        passed = DeepSeekClient(base_url=server.base_url, model="m", api_key="sk-passed-by-hand")
        passed.send(TASK_MESSAGES, [])  # a key passed by hand goes: llama-server --api-key wants one
    first, second = server.arrivals
    assert first.path == second.path == "/v1/chat/completions"
    assert not {"authorization", "api-key"} & {name.lower() for name in first.headers}
    assert second.headers["Authorization"] == "Bearer sk-passed-by-hand"
    assert not any(key in json.dumps([a.headers, a.body.decode()]) for a in server.arrivals for key in KEYS.values())


def test_the_cli_sends_no_key_through_the_socket_and_records_through_it(tmp_path, keys_in_the_environment):
    project = tmp_path / "project"
    project.mkdir()
    cassette = tmp_path / "run.json"
    with local_server(answer_json(DONE), unix_socket=tmp_path / "server.sock") as server:
        done = live_run(server.base_url, "m", project, "--record", str(cassette))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answer"] == "Done."
    (arrival,) = server.arrivals
    assert not {"authorization", "api-key"} & {name.lower() for name in arrival.headers}
    assert Cassette.load(cassette).interactions[0]["response"] == DONE


def test_recording_goes_through_the_socket_it_is_given(tmp_path):
    with local_server(answer_json(DONE), unix_socket=tmp_path / "server.sock") as server:
        recorder = RecordingTransport(transport_for(server.base_url))
        DeepSeekClient(base_url=server.base_url, model="m", transport=recorder).send(TASK_MESSAGES, [])
    assert [i["response"] for i in recorder.interactions] == [DONE]


def test_a_transport_that_does_not_go_through_the_socket_reaches_no_server_on_a_port():
    """The old way of recording, RecordingTransport(httpx.HTTPTransport()), with a unix base URL: the
    request's host exists nowhere, so it goes to no TCP server, whoever listens on port 80."""
    seen: list[httpx.URL] = []

    def nowhere(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        raise httpx.ConnectError("no such host", request=request)

    client = DeepSeekClient(base_url="unix:/run/me/server.sock:/v1", transport=httpx.MockTransport(nowhere))
    with pytest.raises(APIConnectionError, match="unix:/run/me/server.sock:/v1/chat/completions"):
        client.send(TASK_MESSAGES, [])
    assert [url.host for url in seen] == ["unix-socket.invalid"]


@pytest.mark.parametrize(
    "modes, refused",
    [
        ((0o700, 0o700), None),  # the socket's folder and the one above it: this user's alone
        ((0o700, 0o1777), None),  # in a private folder under a sticky one, as in /tmp
        ((0o777, 0o700), "others may write in"),
        ((0o770, 0o700), "others may write in"),  # its group too
        ((0o1777, 0o700), "others may write in"),  # sticky does not keep a new name from being made
        ((0o700, 0o777), "others may write in"),  # the folder above: ours could be moved away
    ],
)
def test_only_a_socket_no_one_else_could_have_put_there_is_talked_to(tmp_path, modes, refused):
    above = tmp_path / "above"
    folder = above / "server"
    folder.mkdir(parents=True)
    with local_server(answer_json(DONE), unix_socket=folder / "server.sock") as server:
        client = DeepSeekClient(base_url=server.base_url, model="m", api_key="")
        folder.chmod(modes[0])
        above.chmod(modes[1])
        try:
            if refused is None:
                assert client.send(TASK_MESSAGES, []).message["content"] == "Done."
            else:
                with pytest.raises(APIConnectionError, match=refused):
                    client.send(TASK_MESSAGES, [])
        finally:
            above.chmod(0o700)
            folder.chmod(0o700)
    assert len(server.arrivals) == (1 if refused is None else 0)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_socket_in_another_users_folder_is_not_talked_to(tmp_path):
    folder = tmp_path / "server"
    folder.mkdir(mode=0o700)
    with local_server(answer_json(DONE), unix_socket=folder / "server.sock") as server:
        os.chown(folder, 65534, 65534)
        with pytest.raises(APIConnectionError, match="belongs to uid 65534"):
            DeepSeekClient(base_url=server.base_url, model="m", api_key="").send(TASK_MESSAGES, [])
    assert server.arrivals == []


def test_links_on_the_way_are_followed_once_and_the_real_path_is_checked(tmp_path):
    private, open_to_all = tmp_path / "private", tmp_path / "open"
    private.mkdir(mode=0o700)
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    (tmp_path / "to-private").symlink_to(private)
    (tmp_path / "to-open").symlink_to(open_to_all)
    with local_server(answer_json(DONE), unix_socket=private / "server.sock"):
        linked = DeepSeekClient(base_url=f"unix:{tmp_path}/to-private/server.sock:/v1", api_key="")
        assert linked.send(TASK_MESSAGES, []).message["content"] == "Done."
    with local_server(answer_json(DONE), unix_socket=open_to_all / "server.sock") as server:
        with pytest.raises(APIConnectionError, match=f"others may write in {open_to_all}"):
            DeepSeekClient(base_url=f"unix:{tmp_path}/to-open/server.sock:/v1", api_key="").send(TASK_MESSAGES, [])
    assert server.arrivals == []


def test_a_socket_whose_folder_is_gone_is_not_looked_for_again(tmp_path):
    client = DeepSeekClient(base_url=f"unix:{tmp_path}/gone/server.sock:/v1", api_key="")
    with pytest.raises(APIConnectionError, match=f"{tmp_path}/gone: No such file or directory"):
        client.send(TASK_MESSAGES, [])
