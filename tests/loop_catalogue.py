"""Notebook 04's loops as data: wrong loops a beginner writes, each with the first line the check must
print for it (the mistake, named), and right loops written in unusual ways, which it must accept.

Most wrong loops are the notebook's reference solution with one mistake put in (``mutated``); the
others are written out whole, as a student would. tests/test_build_the_loop.py runs them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "04_build_the_loop.ipynb"
_CELLS = nbformat.read(NOTEBOOK, as_version=4).cells
SETUP = next(c for c in _CELLS if c.cell_type == "code").source
LOOP_CELL = next(c for c in _CELLS if "exercise" in c.metadata.get("tags", []))
SOLUTION: str = LOOP_CELL.metadata["reactlab"]["solution"]
STUB: str = LOOP_CELL.source


def loop_from(source: str) -> Any:
    """``my_loop`` defined from ``source`` after the notebook's own set-up cell, as a student would."""
    namespace: dict[str, Any] = {}
    exec(compile(SETUP, "setup", "exec"), namespace)
    exec(compile(source, "my_loop", "exec"), namespace)
    return namespace["my_loop"]


def mutated(old: str, new: str, source: str = SOLUTION) -> str:
    assert old in source, f"the reference solution no longer contains {old!r}"
    return source.replace(old, new)


APPEND = "        messages.append(message)  # the request comes before its results\n"
RESULT = (
    '            messages.append({"role": "tool", "tool_call_id": c["id"], '
    '"content": json.dumps(result, ensure_ascii=False)})\n'
)
CHECK_IDS = (
    '        ids = [c["id"] for c in calls]\n'
    "        if len(set(ids)) < len(ids):  # validate, before anything is appended\n"
    '            raise InvalidAssistantMessage(say("Two calls in one answer share an id."))\n'
)
LIMIT = (
    "        if done + len(calls) > max_tool_calls:  # refuse the whole answer\n"
    '            raise ToolCallLimitExceeded(say("More than {limit} tool calls.", limit=max_tool_calls))\n'
)
EXECUTE = (
    "        for c in calls:  # execute, one after another\n"
    '            result = by_name[c["function"]["name"]].execute(json.loads(c["function"]["arguments"]))\n' + RESULT
)
BLANK = "not isinstance(text, str) or not text.strip()"
SEND = "client.send(messages, definitions)"
DUMPED = '"content": json.dumps(result, ensure_ascii=False)'
COUNT = "            done += 1\n"
STOP = "        if not calls:  # stop\n"
EMPTY = '                raise EmptyAnswer(say("The model returned neither a tool call nor an answer."))\n'
RETURN = "            return text\n"

WHILE_TRUE_SKIPPING = """def my_loop(client, tools, messages, max_steps=8, max_tool_calls=16):
    by_name = {tool.name: tool for tool in tools}
    definitions = [tool.definition() for tool in tools]
    done = steps = 0
    while True:
        if steps >= max_steps:
            raise StepLimitExceeded("out of steps")
        message = client.send(messages, definitions).message
        calls = message.get("tool_calls") or []
        ids = [c["id"] for c in calls]
        if len(set(ids)) < len(ids):
            raise InvalidAssistantMessage("one id twice")
        messages.append(message)
        if not calls:
            text = message.get("content")
            if not isinstance(text, str) or not text.strip():
                raise EmptyAnswer("empty")
            return text
        if done + len(calls) > max_tool_calls:
            raise ToolCallLimitExceeded("too many calls")
        for c in calls:
            result = by_name[c["function"]["name"]].execute(json.loads(c["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(result)})
            done += 1
        if message.get("content"):
            continue  # the model was thinking aloud: not a step
        steps += 1
"""

# name: the wrong loop
WRONG: dict[str, str] = {
    "results appended before the assistant message": mutated(APPEND, "")
    .replace("            done += 1\n", "            done += 1\n        messages.append(message)\n")
    .replace(
        "        if not calls:  # stop\n", "        if not calls:  # stop\n            messages.append(message)\n"
    ),
    "the assistant message never appended": mutated(APPEND, ""),
    "a result without tool_call_id": mutated(
        RESULT, '            messages.append({"role": "tool", "content": json.dumps(result)})\n'
    ),
    "the tool's name as tool_call_id": mutated('"tool_call_id": c["id"]', '"tool_call_id": c["function"]["name"]'),
    "calls executed last first": mutated("for c in calls:", "for c in reversed(calls):"),
    "a dict, not JSON text, in content": mutated(DUMPED, '"content": result'),
    "str(result) in content": mutated(DUMPED, '"content": str(result)'),
    "a result with role function": mutated('"role": "tool", "tool_call_id"', '"role": "function", "tool_call_id"'),
    "only the first call of an answer run": mutated("for c in calls:", "for c in calls[:1]:"),
    "arguments not parsed with json.loads": mutated(
        '.execute(json.loads(c["function"]["arguments"]))', '.execute(c["function"]["arguments"])'
    ),
    "message['tool_calls'] on an answer without calls": mutated(
        'calls = message.get("tool_calls") or []', 'calls = message["tool_calls"]'
    ),
    "the Completion used as the message": mutated(f"{SEND}.message", SEND),
    "a misspelt name": mutated("by_name[c[", "tools_by_name[c["),
    "the tool objects sent instead of their definitions": mutated(SEND, "client.send(messages, tools)"),
    "no tool definitions sent": mutated(SEND, "client.send(messages, [])"),
    "only the last message sent": mutated(SEND, "client.send(messages[-1:], definitions)"),
    "only the first two messages sent": mutated(SEND, "client.send(messages[:2], definitions)"),
    "a new list instead of the caller's": mutated(APPEND, "        messages = messages + [message]\n").replace(
        RESULT,
        '            messages = messages + [{"role": "tool", "tool_call_id": c["id"], '
        '"content": json.dumps(result, ensure_ascii=False)}]\n',
    ),
    "the final answer returned as the whole message": mutated(RETURN, "            return message\n"),
    "text with tool calls taken for the answer": mutated(STOP, '        if message.get("content") or not calls:\n'),
    "an empty answer returned": mutated(BLANK, "not isinstance(text, str)"),
    "one model call too many": mutated("range(max_steps)", "range(max_steps + 1)"),
    "no step limit at all": mutated("for _ in range(max_steps):", "while True:"),
    "a RuntimeError at the step limit": mutated("raise StepLimitExceeded(", "raise RuntimeError("),
    "None returned at the step limit": mutated(
        '    raise StepLimitExceeded(say("{limit} model calls without a final answer.", limit=max_steps))',
        "    return None",
    ),
    "tool-call limit off by one": mutated("done + len(calls) > max_tool_calls", "done + len(calls) >= max_tool_calls"),
    "no tool-call limit": mutated("        if done + len(calls) > max_tool_calls:", "        if False:"),
    "the tool-call limit checked call by call": mutated(
        LIMIT + "        for c in calls:  # execute, one after another\n",
        "        for c in calls:  # execute, one after another\n"
        "            if done + 1 > max_tool_calls:\n"
        '                raise ToolCallLimitExceeded("limit")\n',
    ),
    "no id check": mutated("if len(set(ids)) < len(ids):", "if False:"),
    "appended before it is validated": mutated(APPEND, "").replace(
        "        calls = message.get", APPEND + "        calls = message.get"
    ),
    # issue 38: accepted by the old check
    "a blank answer returned (if not text)": mutated(BLANK, "not text"),
    "null content crashes on .strip()": mutated(BLANK, "not text.strip()"),
    "while True whose counter skips answers with text": WHILE_TRUE_SKIPPING,
    # issue 38: named wrongly by the old check
    "one tool message dict, re-appended": mutated(
        EXECUTE,
        '        reply = {"role": "tool"}\n'
        "        for c in calls:\n"
        '            result = by_name[c["function"]["name"]].execute(json.loads(c["function"]["arguments"]))\n'
        '            reply["tool_call_id"], reply["content"] = c["id"], json.dumps(result)\n'
        "            messages.append(reply)\n",
    ),
    "the id check raises ValueError after the append": mutated(
        CHECK_IDS + APPEND,
        APPEND + '        ids = [c["id"] for c in calls]\n'
        "        if len(set(ids)) < len(ids):\n"
        '            raise ValueError("one id twice")\n',
    ),
    # more
    "the tool-call counter restarts every answer": mutated(COUNT, "").replace(LIMIT, LIMIT.replace("done + ", "")),
    "the tool-call counter never grows": mutated(COUNT, ""),
    "one model call too few": mutated("range(max_steps)", "range(max_steps - 1)"),
    "the first tool for every call": mutated('by_name[c["function"]["name"]]', "tools[0]"),
    "a tool's error stops the loop": mutated(
        COUNT, COUNT + '            if not result.get("ok"):\n                raise RuntimeError(result.get("error"))\n'
    ),
    "a tool's error left out of the history": mutated(RESULT, '            if result.get("ok"):\n    ' + RESULT),
    "the assistant message appended without its tool calls": mutated(
        APPEND, '        messages.append({"role": "assistant", "content": message.get("content")})\n'
    ),
    "the final answer not appended": mutated(APPEND, "").replace(LIMIT, APPEND + LIMIT),
    "one tool message for all the results": mutated(
        EXECUTE + COUNT,
        '        results = [by_name[c["function"]["name"]].execute(json.loads(c["function"]["arguments"]))\n'
        "                   for c in calls]\n"
        '        messages.append({"role": "tool", "tool_call_id": calls[0]["id"], '
        '"content": json.dumps(results)})\n'
        "        done += len(calls)\n",
    ),
    "the definitions not called": mutated("tool.definition() for tool", "tool.definition for tool"),
    "EmptyAnswer for an answer with calls but no text": mutated(
        STOP + '            text = message.get("content")\n' + f"            if {BLANK}:\n" + EMPTY + RETURN,
        '        text = message.get("content")\n'
        f"        if {BLANK}:\n"
        '            raise EmptyAnswer(say("The model returned neither a tool call nor an answer."))\n'
        "        if not calls:\n"
        "            return text\n",
    ),
    "the final answer returned stripped": mutated(RETURN, "            return text.strip()\n"),
    "the limit checked after the calls ran": mutated(LIMIT + EXECUTE + COUNT, EXECUTE + COUNT + LIMIT),
    "break instead of return": mutated(RETURN, "            break\n"),
    "None returned at the tool-call limit": mutated(
        '            raise ToolCallLimitExceeded(say("More than {limit} tool calls.", limit=max_tool_calls))',
        "            return None",
    ),
    "a copy of the history": mutated(
        "    done = 0  # tool calls executed so far\n", "    done = 0\n    messages = list(messages)\n"
    ),
}

# name: the first line the check prints for it, after "✗ not solved yet: " (in English)
REASONS: dict[str, str] = {
    "results appended before the assistant message": (
        "the assistant message with tool_calls must be in the history before its results. Your history has a "
        "tool result at message 3, where the Agent's has the assistant message that asked for it."
    ),
    "the assistant message never appended": (
        "append the final answer (message 3) to messages, the list your loop was given, then return its text."
    ),
    "a result without tool_call_id": (
        'the tool message at message 4 has no tool_call_id: add "tool_call_id": call["id"], so that the model '
        "knows which call the result answers."
    ),
    "the tool's name as tool_call_id": (
        "the tool message at message 4 carries tool_call_id 'tally'; it must be the id of the call it "
        'answers: call["id"].'
    ),
    "calls executed last first": (
        "the calls ran in another order than tool_calls lists them: run them in that order, and append each "
        "result as it comes."
    ),
    "a dict, not JSON text, in content": (
        "the content of a tool message must be JSON text, and message 4 holds a dict: use json.dumps(result, "
        "ensure_ascii=False)."
    ),
    "str(result) in content": (
        "the content of message 4 is str(result), which is Python, not JSON (single quotes, True): use "
        "json.dumps(result, ensure_ascii=False)."
    ),
    "a result with role function": (
        "a result is a message with role \"tool\"; message 4 of yours has role 'function'."
    ),
    "only the first call of an answer run": (
        "the answer asked for 2 call(s), and your history answers 1 of them before the next request. Run "
        "every call in order, one tool message each, before asking the model again."
    ),
    "arguments not parsed with json.loads": (
        "a tool got the call's arguments as JSON text. The model sends arguments as a string: turn it into a "
        'dict with json.loads(call["function"]["arguments"]) before tool.execute(...).'
    ),
    "message['tool_calls'] on an answer without calls": (
        "your loop raised KeyError: 'tool_calls'. An answer without tool calls has no 'tool_calls' key: read "
        'it with message.get("tool_calls") or [].'
    ),
    "the Completion used as the message": (
        "your loop raised AttributeError: 'Completion' object has no attribute 'get'. client.send(...) "
        "returns a Completion; the model's answer, a dict, is its .message."
    ),
    "a misspelt name": (
        "your loop raised NameError: name 'tools_by_name' is not defined. A name is not defined: a typo, or "
        "something from a cell that has not run."
    ),
    "the tool objects sent instead of their definitions": (
        "request 1 sent other tool definitions than the Agent's: send [tool.definition() for tool in tools]."
    ),
    "no tool definitions sent": (
        "request 1 sent no tool definitions: send [tool.definition() for tool in tools] with every request, "
        "or the model cannot ask for a tool."
    ),
    "only the last message sent": (
        "request 1 sent 1 message(s), and your history held 2; they differ from message 1 on. Every request "
        "sends the whole history as it is: client.send(messages, definitions)."
    ),
    "only the first two messages sent": (
        "request 2 sent 2 message(s), and your history held 4; they differ from message 3 on. Every request "
        "sends the whole history as it is: client.send(messages, definitions)."
    ),
    "a new list instead of the caller's": (
        "append the final answer (message 3) to messages, the list your loop was given, then return its text."
    ),
    "the final answer returned as the whole message": (
        "your loop returned {'role': 'assistant', 'content': 'Done.'}: return the text of the final answer as "
        'it came, message["content"].'
    ),
    "text with tool calls taken for the answer": (
        "your loop returned 'Let me number it.' from an answer that asks for tools. An answer with tool_calls "
        "is not final, even with text in content: run its calls."
    ),
    "an empty answer returned": (
        "the answer has no tool calls and its text is blank, and your loop returned ''. Empty text, spaces "
        "only or null is not a final answer: raise EmptyAnswer (text.strip() is empty)."
    ),
    "one model call too many": (
        "max_steps=1 allows 1 model call(s), and your loop asked 2 times. Count every request, whatever the "
        "answer holds: ask inside for _ in range(max_steps), and raise StepLimitExceeded after it."
    ),
    "no step limit at all": (
        "max_steps=1 allows 1 model call(s), and your loop asked 2 times. Count every request, whatever the "
        "answer holds: ask inside for _ in range(max_steps), and raise StepLimitExceeded after it."
    ),
    "a RuntimeError at the step limit": (
        "the Agent raises StepLimitExceeded here, your loop raised RuntimeError (1 model calls without a "
        "final answer). Raise reactlab's StepLimitExceeded: the check compares the classes."
    ),
    "None returned at the step limit": (
        "after max_steps=1 model calls without a final answer, raise StepLimitExceeded; your loop returned None."
    ),
    "tool-call limit off by one": (
        "the answer at message 3 asks for 1 call(s): 0 + 1 reaches max_tool_calls=1 exactly, and that is "
        "allowed. Refuse only an answer that would pass it: done + len(calls) > max_tool_calls."
    ),
    "no tool-call limit": (
        "the answer at message 3 asks for 1 call(s), and 0 + 1 would pass max_tool_calls=0: raise "
        "ToolCallLimitExceeded before any of its calls runs. Your loop ran 1 of them."
    ),
    "the tool-call limit checked call by call": (
        "the answer at message 3 asks for 2 calls, and 0 + 2 would pass max_tool_calls=1: it is refused "
        "whole, before any of its calls runs. Your loop ran 1 of them first: check the limit once per answer, "
        "before the for over the calls."
    ),
    "no id check": (
        "the answer at message 3 has two calls with the id call_twice: refuse it with "
        "InvalidAssistantMessage, before appending it. A tool message could not say which call it answers."
    ),
    "appended before it is validated": (
        "the answer at message 3 has two calls with the id call_twice. Your loop refused it, but only after "
        "appending it: validate first, so that a refused answer never enters the history."
    ),
    "a blank answer returned (if not text)": (
        "the answer has no tool calls and its text is blank, and your loop returned ' \\n'. Empty text, spaces "
        "only or null is not a final answer: raise EmptyAnswer (text.strip() is empty)."
    ),
    "null content crashes on .strip()": (
        "your loop raised AttributeError: 'NoneType' object has no attribute 'strip'. The content of an "
        "answer can be null (None in Python), with or without tool calls: check isinstance(text, str) before "
        "text.strip()."
    ),
    "while True whose counter skips answers with text": (
        "max_steps=1 allows 1 model call(s), and your loop asked 2 times. Count every request, whatever the "
        "answer holds: ask inside for _ in range(max_steps), and raise StepLimitExceeded after it."
    ),
    "one tool message dict, re-appended": (
        "request 2 holds one and the same dict twice, as message 4 and as message 5: your loop appended a "
        "dict again and then changed it, which changed the earlier message too. Build a new dict for each "
        "message."
    ),
    "the id check raises ValueError after the append": (
        "the answer at message 3 has two calls with the id call_twice: the Agent refuses it with "
        "InvalidAssistantMessage before appending it, and your loop raised ValueError. Check the ids before "
        "you append, and raise InvalidAssistantMessage."
    ),
    "the tool-call counter restarts every answer": (
        "the answer at message 5 asks for 1 call(s), and 1 + 1 would pass max_tool_calls=1: raise "
        "ToolCallLimitExceeded before any of its calls runs. Your loop ran 1 of them."
    ),
    "the tool-call counter never grows": (
        "the answer at message 5 asks for 1 call(s), and 1 + 1 would pass max_tool_calls=1: raise "
        "ToolCallLimitExceeded before any of its calls runs. Your loop ran 1 of them."
    ),
    "one model call too few": ("your loop raised StepLimitExceeded after 0 model call(s), but max_steps=1 allows 1."),
    "the first tool for every call": (
        'your loop ran read_file {"command": "pwd && ls && ls shop tests && python3 -m unitt… where the Agent '
        'runs bash {"command": "pwd && ls && ls shop tests && python3 -m unitt…: run each call with the tool '
        "its name names, and that call's own arguments."
    ),
    "a tool's error stops the loop": (
        "your loop raised RuntimeError: There is no text to number. A tool's error is a result like any "
        "other: append it as the call's tool message, and ask the model again; the model reads it and "
        "decides."
    ),
    "a tool's error left out of the history": (
        "the tool refused the call answered at message 4, and your history has no result for it: a tool's "
        "error is a result like any other, so append it as the call's tool message."
    ),
    "the assistant message appended without its tool calls": (
        "the assistant message at message 3 lost its tool_calls: append the model's answer as it came "
        "(message), so that each result has the call it answers."
    ),
    "the final answer not appended": (
        "append the final answer (message 3) to messages, the list your loop was given, then return its text."
    ),
    "one tool message for all the results": (
        "message 4 holds a list of results: each call gets a tool message of its own, with that call's id and result."
    ),
    "the definitions not called": (
        "request 1 sent other tool definitions than the Agent's: send [tool.definition() for tool in tools]."
    ),
    "EmptyAnswer for an answer with calls but no text": (
        "your loop raised EmptyAnswer on the answer at message 3, which asks for tools: an answer with "
        "tool_calls needs no text. An answer is empty when it has neither."
    ),
    "the final answer returned stripped": (
        "your loop returned 'Done.': return the text of the final answer as it came, message[\"content\"]."
    ),
    "the limit checked after the calls ran": (
        "your loop raised ToolCallLimitExceeded after running the calls of the answer at message 3: check the "
        "limit before the for over the calls, with done counting the calls of the earlier answers: done + "
        "len(calls) > max_tool_calls."
    ),
    "break instead of return": ("your loop raised StepLimitExceeded on the final answer, which the Agent returns."),
    "None returned at the tool-call limit": (
        "your loop returned None where the Agent raises ToolCallLimitExceeded: raise reactlab's "
        "ToolCallLimitExceeded here; the check compares the classes."
    ),
    "a copy of the history": (
        "append the final answer (message 3) to messages, the list your loop was given, then return its text."
    ),
}

RIGHT: dict[str, str] = {
    "the reference solution": SOLUTION,
    "while True with a counter": """def my_loop(client, tools, messages, max_steps=8, max_tool_calls=16):
    tool_for = {tool.name: tool for tool in tools}
    definitions = [tool.definition() for tool in tools]
    asked = ran = 0
    while True:
        if asked == max_steps:
            raise StepLimitExceeded("no final answer")
        message = client.send(messages, definitions).message
        asked += 1
        calls = message.get("tool_calls") or []
        if len({c["id"] for c in calls}) != len(calls):
            raise InvalidAssistantMessage("ids repeat")
        messages.append(message)
        if not calls:
            content = message.get("content") or ""
            if content.strip():
                return content
            raise EmptyAnswer("blank")
        if ran + len(calls) > max_tool_calls:
            raise ToolCallLimitExceeded("too many")
        for c in calls:
            arguments = json.loads(c["function"]["arguments"])
            result = tool_for[c["function"]["name"]].execute(arguments)
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(result)})
            ran += 1
""",
    "recursion": """def my_loop(client, tools, messages, max_steps=8, max_tool_calls=16):
    if max_steps == 0:
        raise StepLimitExceeded("out of steps")
    message = client.send(messages, [t.definition() for t in tools]).message
    calls = message.get("tool_calls") or []
    if len(set(c["id"] for c in calls)) < len(calls):
        raise InvalidAssistantMessage("an id twice")
    messages.append(message)
    if not calls:
        if isinstance(message.get("content"), str) and message["content"].strip():
            return message["content"]
        raise EmptyAnswer("nothing")
    if len(calls) > max_tool_calls:
        raise ToolCallLimitExceeded("limit")
    for c in calls:
        tool = next(t for t in tools if t.name == c["function"]["name"])
        result = tool.execute(json.loads(c["function"]["arguments"]))
        messages.append({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(result, indent=2)})
    return my_loop(client, tools, messages, max_steps - 1, max_tool_calls - len(calls))
""",
    "a for over a numbered range": mutated("for _ in range(max_steps):", "for step in range(1, max_steps + 1):"),
    "a helper for each step": """def answer_or_none(client, tools, messages, budget):
    message = client.send(messages, [tool.definition() for tool in tools]).message
    calls = message.get("tool_calls") or []
    if len(calls) != len({call["id"] for call in calls}):
        raise InvalidAssistantMessage("duplicate id")
    messages.append(message)
    if not calls:
        text = message.get("content")
        if isinstance(text, str) and text.strip():
            return text, budget
        raise EmptyAnswer("empty")
    if len(calls) > budget:
        raise ToolCallLimitExceeded("over the limit")
    named = {tool.name: tool for tool in tools}
    for call in calls:
        output = named[call["function"]["name"]].execute(json.loads(call["function"]["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(output, sort_keys=True)})
    return None, budget - len(calls)


def my_loop(client, tools, messages, max_steps=8, max_tool_calls=16):
    budget = max_tool_calls
    for _ in range(max_steps):
        answer, budget = answer_or_none(client, tools, messages, budget)
        if answer is not None:
            return answer
    raise StepLimitExceeded("steps")
""",
    "list concatenation, in place": mutated(APPEND, "        messages += [message]\n").replace(
        RESULT,
        '            messages[len(messages):] = [{"role": "tool", "tool_call_id": c["id"], '
        '"content": json.dumps(result, ensure_ascii=False)}]\n',
    ),
    "ids checked across the whole history, as the article does": mutated(
        CHECK_IDS,
        '        ids = [c["id"] for c in calls]\n'
        '        earlier = [c["id"] for m in messages for c in m.get("tool_calls") or []]\n'
        "        if len(set(ids)) < len(ids) or set(ids) & set(earlier):\n"
        '            raise InvalidAssistantMessage("an id used twice")\n',
    ),
    "a deep copy of each answer, and a copy of the history sent": mutated(
        APPEND, "        messages.append(copy.deepcopy(message))\n"
    )
    .replace("client.send(messages, definitions)", "client.send(list(messages), definitions)")
    .replace("def my_loop(", "import copy\n\n\ndef my_loop(", 1),
    "Counter for the ids, and the results' JSON spaced otherwise": mutated(
        CHECK_IDS,
        '        if any(n > 1 for n in collections.Counter(c["id"] for c in calls).values()):\n'
        '            raise InvalidAssistantMessage("twice")\n',
    )
    .replace("json.dumps(result, ensure_ascii=False)", 'json.dumps(result, separators=(",", ":"))')
    .replace("def my_loop(", "import collections\n\n\ndef my_loop(", 1),
    "limits counted down": """def my_loop(client, tools, messages, max_steps=8, max_tool_calls=16):
    by_name = {tool.name: tool for tool in tools}
    steps_left, calls_left = max_steps, max_tool_calls
    while steps_left > 0:
        steps_left -= 1
        message = client.send(messages, [tool.definition() for tool in tools]).message
        calls = message.get("tool_calls") or []
        if len(calls) > len(set(call["id"] for call in calls)):
            raise InvalidAssistantMessage("same id")
        messages.append(message)
        if len(calls) == 0:
            text = message.get("content")
            if text is None or text.strip() == "":
                raise EmptyAnswer("no text")
            return text
        calls_left -= len(calls)
        if calls_left < 0:
            raise ToolCallLimitExceeded("limit")
        for call in calls:
            tool = by_name[call["function"]["name"]]
            result = tool.execute(json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    raise StepLimitExceeded("limit")
""",
}
