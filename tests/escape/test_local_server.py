"""Attacks by another user of the machine on the local llama-server: its folder and its socket.

The server listens on a unix socket in a folder of its own, made in the temp folder (TMPDIR); the
client talks to it only while no one else could have put a socket there (model/unix_socket.py), and
tests/servers/test_other_user.py has another user try. Here the temp folder itself is one others may
write in: they could move the server's folder aside and put their own in its place. The client
refused such a socket, as it should, but the start then waited its whole timeout (60 s) and said
only that the server was "not ready"; it now refuses at once and says why."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab.llama_server import llama_server_problem, start_llama_server

PROBLEM = llama_server_problem()


@pytest.fixture
def temp_folder(open_tmp: Path, monkeypatch) -> Iterator[Path]:
    if PROBLEM is not None and not os.environ.get("CI"):  # in CI it must run (make llama-server)
        pytest.skip(PROBLEM)
    folder = open_tmp / "temp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    yield folder


@pytest.mark.parametrize("way", ["everyone", "its-group", "a-link-to-a-folder-everyone-may-write-in"])
def test_a_temp_folder_others_may_write_in_is_refused_at_once_naming_it(temp_folder, way):
    writable = temp_folder
    if way == "a-link-to-a-folder-everyone-may-write-in":
        writable = temp_folder.with_name("shared")
        writable.mkdir()
        temp_folder.rmdir()
        temp_folder.symlink_to(writable)
    writable.chmod(0o770 if way == "its-group" else 0o777)
    with pytest.raises(RuntimeError, match=f"others may write in {temp_folder}: .*; set TMPDIR"):
        start_llama_server(timeout=20)
    assert list(writable.iterdir()) == [], "nothing left behind"


def test_a_sticky_temp_folder_as_tmp_is_fine(temp_folder):
    temp_folder.chmod(0o1777)
    with start_llama_server() as server:
        assert server.running() and server.folder.parent == temp_folder
