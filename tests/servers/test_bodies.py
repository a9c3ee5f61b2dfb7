"""Bodies that cannot be decoded, and certificates not trusted, on a real socket: each is a reactlab error
that says what happened, and an error page still gives its reason."""

from __future__ import annotations

import gzip
import json
import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from reactlab import DeepSeekClient, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, completion, load, local_server

NOTE = NoteTool().definition()
ANSWER = completion({"role": "assistant", "content": "Plain."}, "stop")
NGINX_502 = next(c for c in load("said")["said"] if c["name"].startswith("nginx"))["text"]


def sending(status: int, body: bytes, *headers: tuple[str, str], length: int | None = None):
    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body) if length is None else length))
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()
        if length is not None:
            handler.close_connection = True

    return respond


def sent(respond) -> errors.APIError | dict:
    with local_server(respond) as server:
        client = DeepSeekClient(api_key="", base_url=server.base_url, model="m")
        try:
            return client.send(TASK_MESSAGES, [NOTE]).message
        except errors.APIError as error:
            return error


def test_a_proxy_error_page_with_a_stale_gzip_header_still_gives_its_title():
    said = sent(sending(502, NGINX_502.encode(), ("Content-Type", "text/html"), ("Content-Encoding", "gzip")))
    assert isinstance(said, errors.ServerError) and said.status == 502
    assert "(502): 502 Bad Gateway." in str(said) and "padding" not in str(said) and "<" not in str(said)


def test_a_200_with_a_stale_gzip_header_is_an_undecodable_body_not_a_raw_httpx_error():
    body = json.dumps(ANSWER).encode()
    said = sent(sending(200, body, ("Content-Type", "application/json"), ("Content-Encoding", "gzip")))
    assert isinstance(said, errors.UndecodableBody) and isinstance(said, errors.MalformedResponse)
    assert "Content-Encoding: gzip" in str(said) and '\'{"id": "chatcmpl-q"' in str(said)


def test_a_real_gzip_body_is_read():
    body = gzip.compress(json.dumps(ANSWER).encode())
    said = sent(sending(200, body, ("Content-Type", "application/json"), ("Content-Encoding", "gzip")))
    assert said == ANSWER["choices"][0]["message"]


def test_a_small_gzip_that_grows_past_the_bound_is_refused():
    bomb = gzip.compress(b" " * (17 * 1024 * 1024))  # 17 MB of blanks in about 17 KB
    said = sent(sending(200, bomb, ("Content-Type", "application/json"), ("Content-Encoding", "gzip")))
    assert isinstance(said, errors.UndecodableBody) and "grows past 16777216 bytes" in str(said)


def test_invalid_utf8_is_an_undecodable_body():
    said = sent(sending(200, b'{"id": "caf\xe9", "choices": []}', ("Content-Type", "application/json")))
    assert isinstance(said, errors.UndecodableBody) and "not UTF-8 (byte 11 of 29)" in str(said)


def test_json_cut_off_is_an_undecodable_body():
    body = json.dumps(ANSWER).encode()[:70]
    said = sent(sending(200, body, ("Content-Type", "application/json")))
    assert isinstance(said, errors.UndecodableBody) and "stops before it ends" in str(said)


def test_a_connection_closed_before_content_length_says_so_and_may_be_retried():
    body = json.dumps(ANSWER).encode()
    said = sent(sending(200, body[:40], ("Content-Type", "application/json"), length=len(body)))
    assert isinstance(said, errors.APIConnectionError) and said.retryable
    assert "closed after 40 bytes, before the whole answer came" in str(said)


def test_an_error_page_in_its_own_charset_is_read_in_it():
    page = "<html><head><title>Доступ запрещён</title></head></html>".encode("windows-1251")
    said = sent(sending(403, page, ("Content-Type", "text/html; charset=windows-1251")))
    assert isinstance(said, errors.UnexpectedStatus) and "answered 403: Доступ запрещён." in str(said)
    assert "Check base_url" not in str(said)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made by openssl here: an authority nothing trusts."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate to serve")
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            key,
            "-out",
            cert,
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def serve_tls(cert: Path, key: Path) -> tuple[ThreadingHTTPServer, int]:
    data = json.dumps(ANSWER).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            sending(200, data, ("Content-Type", "application/json"))(self)

        def log_message(self, format, *args):  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server, server.server_address[1]


def test_an_untrusted_certificate_says_what_to_pass_and_a_ca_bundle_fixes_it(certificate, monkeypatch):
    cert, key = certificate
    server, port = serve_tls(cert, key)
    try:
        base_url = f"https://127.0.0.1:{port}/v1"
        with pytest.raises(errors.UntrustedCertificate) as caught:
            DeepSeekClient(api_key="sk-tls-0000", base_url=base_url, model="m").send(TASK_MESSAGES, [NOTE])
        said = str(caught.value)
        assert "127.0.0.1 is not signed by an authority trusted here" in said and "ca_bundle=PATH" in said
        assert not caught.value.retryable and "Retrying later may help" not in said and "sk-tls-0000" not in said
        trusting = DeepSeekClient(api_key="sk-tls-0000", base_url=base_url, model="m", ca_bundle=cert)
        assert trusting.send(TASK_MESSAGES, [NOTE]).message == ANSWER["choices"][0]["message"]
        monkeypatch.setenv("REACTLAB_CA_BUNDLE", str(cert))
        from_environment = DeepSeekClient(api_key="", base_url=base_url, model="m")
        assert from_environment.send(TASK_MESSAGES, [NOTE]).message == ANSWER["choices"][0]["message"]
    finally:
        server.shutdown()
        server.server_close()


def test_a_ca_bundle_that_is_no_certificate_is_refused_at_once(tmp_path):
    junk = tmp_path / "ca.pem"
    junk.write_text("not a certificate")
    with pytest.raises(ValueError, match="cannot be read as PEM certificates"):
        DeepSeekClient(api_key="", base_url="https://api.deepseek.com", ca_bundle=junk)


def test_gigachat_hosts_name_the_russian_trusted_root_ca():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed "
            "certificate in certificate chain (_ssl.c:1000)",
            request=request,
        )

    client = DeepSeekClient(
        api_key="",
        base_url="https://gigachat.devices.sberbank.ru/api/v1",
        model="GigaChat",
        transport=httpx.MockTransport(refuse),
        lang="ru",
    )
    with pytest.raises(errors.UntrustedCertificate) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    said = str(caught.value)
    assert "Russian Trusted Root CA" in said and "https://www.gosuslugi.ru/crt" in said and "REACTLAB_CA_BUNDLE" in said
    assert "Повторная попытка позже может помочь" not in said
