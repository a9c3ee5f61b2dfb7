"""Offline: answers that stand in for a server, at the httpx transport.

    cassette.py   record and replay answers (cassette.schema.json: the format, checked on load)
    scripted.py   Script: write the model's answers in Python

Not part of the core: the loop cannot tell a replayed answer from a live one, and needs nothing of
this to run. Where bash has no sandbox, the result it recorded reaches it through
core/tools/replayed.py, which the replay transport fills as it serves each answer.
"""
