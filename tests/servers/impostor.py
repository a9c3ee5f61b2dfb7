"""Another user of the machine, trying to take the place of a local server (standard library only).

    python3 impostor.py VARIANT ADDRESS      ADDRESS is unix:/path/to/x.sock or tcp:HOST:PORT

VARIANT says when it runs and what it tries:
    bind-first     (before the server starts) bind the address itself
    symlink-first  (before the server starts) put a link to a socket of its own at the address
    replace        (once the server is ready) move or remove the server's socket, then bind the address
    connect        (once the server is ready) connect to the server and ask for /health
    after-stop     (once the server has stopped) make its folder again if it is gone, and bind the address

Each attempt is printed as one JSON line: {"try": ..., "ok": ..., "error": ...}; then {"listening": ...}.
Each folder it makes is printed as {"made": path}, for the test to remove.
If it holds a listening socket, it plays the model: /health answers 200 and every other request an
answer of its own, and each request that arrives is printed as {"arrived": path, "headers": {...}}.
"""

import json
import os
import socket
import sys
import tempfile

ANSWER = {
    "id": "chatcmpl-impostor",
    "object": "chat.completion",
    "created": 0,
    "model": "impostor",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "I am not your server."}, "finish_reason": "stop"}
    ],
}


def say(**fields):
    print(json.dumps(fields), flush=True)


def attempt(name, action):
    """What ``action`` returned (True for nothing), or None if it was refused."""
    try:
        result = action()
    except OSError as error:
        say(**{"try": name, "ok": False, "error": os.strerror(error.errno or 0)})
        return None
    say(**{"try": name, "ok": True, "error": None})
    return True if result is None else result


def listener(address):
    if address[0] == "unix":
        made = socket.socket(socket.AF_UNIX)
        made.bind(address[1])
    else:
        made = socket.socket(socket.AF_INET)
        made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        made.bind(address[1:])
    made.listen(16)
    return made


def own_socket_linked_at(path):
    folder = tempfile.mkdtemp(prefix="impostor-")
    say(made=folder)
    os.chmod(folder, 0o755)
    mine = listener(("unix", os.path.join(folder, "mine.sock")))
    os.chmod(os.path.join(folder, "mine.sock"), 0o777)
    os.symlink(os.path.join(folder, "mine.sock"), path)
    return mine


def ask_health(address):
    family = socket.AF_UNIX if address[0] == "unix" else socket.AF_INET
    with socket.socket(family) as client:
        client.settimeout(5)
        client.connect(address[1] if address[0] == "unix" else address[1:])
        client.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return client.recv(200).decode("latin-1").split("\r\n")[0]


def serve(listening):
    while True:
        connection, _ = listening.accept()
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            length = int(next((v for k, v in headers.items() if k.lower() == "content-length"), "0"))
            while len(body) < length:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                body += chunk
            path = lines[0].split(" ")[1] if " " in lines[0] else lines[0]
            say(arrived=path, headers=headers, body=body.decode("utf-8", "replace"))
            content = json.dumps({"status": "ok"} if path.endswith("/health") else ANSWER).encode()
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + f"Content-Length: {len(content)}\r\n\r\n".encode()
                + content
            )


def main():
    variant, where = sys.argv[1], sys.argv[2]
    kind, _, rest = where.partition(":")
    if kind == "unix":
        address = ("unix", rest)
    else:
        host, _, port = rest.rpartition(":")
        address = ("tcp", host, int(port))
    listening = None
    if variant == "bind-first":
        listening = attempt("bind", lambda: listener(address))
    elif variant == "symlink-first":
        listening = attempt("symlink", lambda: own_socket_linked_at(address[1]))
    elif variant == "replace":
        if kind == "unix":
            path = address[1]
            attempt("rename the socket", lambda: os.rename(path, path + ".old"))
            attempt("remove the socket", lambda: os.unlink(path))
            attempt("rename its folder", lambda: os.rename(os.path.dirname(path), os.path.dirname(path) + ".old"))
        listening = attempt("bind", lambda: listener(address))
    elif variant == "after-stop":
        if kind == "unix":
            folder = os.path.dirname(address[1])
            if attempt("make its folder again", lambda: os.mkdir(folder, 0o777)):
                say(made=folder)
            attempt("open the folder to all", lambda: os.chmod(folder, 0o777))
        listening = attempt("bind", lambda: listener(address))
        if listening is not None and kind == "unix":
            os.chmod(address[1], 0o777)
    elif variant == "connect":
        status = attempt("connect", lambda: ask_health(address))
        say(answered=status)
    say(listening=listening is not None)
    if listening is not None:
        serve(listening)


main()
