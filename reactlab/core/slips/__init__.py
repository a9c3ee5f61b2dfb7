"""Real servers' slips and ways: skip on a first reading.

What a server's answer means when it is not a usable chat.completion, and what some servers need
beyond the article's request; the client calls these.

    http_errors.py       an error answer: one typed error per case, quoting the server's reason
    repair.py            known slips in an answer: refused by name, or mended with repair=True
    dialects.py          tool calls a server left in content, in its model's markup: one table, one linear scan
    legacy_functions.py  the legacy "functions" request and "function_call" answer
    truncation.py        tool-call arguments cut off mid-JSON, whatever finish_reason says
    transfer.py          an answer streamed, trickling past the deadline, or too large to be one
    gigachat.py          GigaChat's access token, exchanged for its authorization key
    unix_socket.py       a base URL on a unix socket (unix:/path/server.sock:/v1): out of other users' reach
"""
