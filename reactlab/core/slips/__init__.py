"""Real servers' slips: skip on a first reading.

What a server's answer means when it is not a usable chat.completion; the client calls these.

    http_errors.py  an error answer: one typed error per case, quoting the server's reason
    repair.py       known slips in an answer: refused by name, or mended with repair=True
    truncation.py   tool-call arguments cut off mid-JSON, whatever finish_reason says
    transfer.py     an answer streamed, trickling past the deadline, or too large to be one
"""
