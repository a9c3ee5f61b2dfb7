"""The mistakes notebook 04's check names (loop_check.py), each by a name the check decides on, as an
English sentence with the fields it takes; ``say`` gives it in the reader's language (the Russian is in the
catalogue, core/ru.py). The hints (``loop_hint_*``) say what a crash of the loop's own code usually means."""

from __future__ import annotations

from ..core.language import translatable

__all__ = ["MISTAKES"]

MISTAKES = {
    "loop_aliased": translatable(
        "request {request} holds one and the same dict twice, as message {first} and as message {second}: your loop "
        "appended a dict again and then changed it, which changed the earlier message too. Build a new dict for each "
        "message."
    ),
    "loop_answer_refused": translatable("your loop raised {ending} on the final answer, which the Agent returns."),
    "loop_answer_went_on": translatable(
        "the answer at message {number} has no tool calls: it is the final answer, so return its text. Your loop "
        "went on."
    ),
    "loop_append_first": translatable(
        "append the answer (message {number}) to the history before your loop raises {ending}: the Agent appends every "
        "answer that passes the check, then decides."
    ),
    "loop_arguments_not_dict": translatable(
        'a tool got arguments that are not a dict. Pass it json.loads(call["function"]["arguments"]), the dict '
        "of the call's arguments."
    ),
    "loop_assistant_missing": translatable(
        "the assistant message is missing: append the model's answer, with its tool_calls, before its results "
        "(message {number})."
    ),
    "loop_blank_returned": translatable(
        "the answer has no tool calls and its text is blank, and your loop returned {answer}. Empty text, spaces "
        "only or null is not a final answer: raise EmptyAnswer (text.strip() is empty)."
    ),
    "loop_content_not_json": translatable(
        "the content of message {number} is not JSON: use json.dumps(result, ensure_ascii=False)."
    ),
    "loop_content_not_text": translatable(
        "the content of a tool message must be JSON text, and message {number} holds a {type}: use "
        "json.dumps(result, ensure_ascii=False)."
    ),
    "loop_content_python": translatable(
        "the content of message {number} is str(result), which is Python, not JSON (single quotes, True): use "
        "json.dumps(result, ensure_ascii=False)."
    ),
    "loop_crashed": translatable("your loop raised {kind}: {detail}. {hint}"),
    "loop_empty_went_on": translatable(
        "the answer at message {number} has no tool calls and no text: raise EmptyAnswer. Your loop went on."
    ),
    "loop_empty_with_calls": translatable(
        "your loop raised EmptyAnswer on the answer at message {number}, which asks for tools: an answer with "
        "tool_calls needs no text. An answer is empty when it has neither."
    ),
    "loop_error_left_out": translatable(
        "the tool refused the call answered at message {number}, and your history has no result for it: a tool's error "
        "is a result like any other, so append it as the call's tool message."
    ),
    "loop_final_not_appended": translatable(
        "append the final answer (message {number}) to messages, the list your loop was given, then return its text."
    ),
    "loop_hint_arguments_text": translatable("The arguments are JSON text until you json.loads them."),
    "loop_hint_completion": translatable(
        "client.send(...) returns a Completion; the model's answer, a dict, is its .message."
    ),
    "loop_hint_execute": translatable("tool.execute takes one dict: tool.execute(arguments)."),
    "loop_hint_generic": translatable("The last line of your code named below is where it stopped."),
    "loop_hint_json_loads": translatable(
        'json.loads takes the JSON text of call["function"]["arguments"], not the call or an already loaded dict.'
    ),
    "loop_hint_key": translatable("A dict has no such key: print the dict to see which keys it has."),
    "loop_hint_key_tool_calls": translatable(
        "An answer without tool calls has no 'tool_calls' key: read it with message.get(\"tool_calls\") or []."
    ),
    "loop_hint_name": translatable("A name is not defined: a typo, or something from a cell that has not run."),
    "loop_hint_not_json": translatable(
        "Something in messages or in the tool definitions is not JSON: the client must send JSON. Send "
        "[tool.definition() for tool in tools], not the tools themselves."
    ),
    "loop_hint_null_content": translatable(
        "The content of an answer can be null (None in Python), with or without tool calls: check isinstance(text, "
        "str) before text.strip()."
    ),
    "loop_hint_signature": translatable(
        "The check calls my_loop(client, tools, messages, max_steps, max_tool_calls): keep those five parameters."
    ),
    "loop_hint_tool_error": translatable(
        "A tool's error is a result like any other: append it as the call's tool message, and ask the model again; the "
        "model reads it and decides."
    ),
    "loop_ids_unchecked": translatable(
        "the answer at message {number} has two calls with the id {id}: refuse it with InvalidAssistantMessage, before "
        "appending it. A tool message could not say which call it answers."
    ),
    "loop_ids_wrong_exception": translatable(
        "the answer at message {number} has two calls with the id {id}: the Agent refuses it with "
        "InvalidAssistantMessage before appending it, and your loop raised {kind}. Check the ids before you append, "
        "and raise InvalidAssistantMessage."
    ),
    "loop_limit_after_calls": translatable(
        "your loop raised ToolCallLimitExceeded after running the calls of the answer at message {number}: check the "
        "limit before the for over the calls, with done counting the calls of the earlier answers: done + len(calls) "
        "> max_tool_calls."
    ),
    "loop_limit_missing": translatable(
        "the answer at message {number} asks for {asked} call(s), and {done} + {asked} would pass "
        "max_tool_calls={limit}: raise ToolCallLimitExceeded before any of its calls runs. Your loop ran {ran} of them."
    ),
    "loop_limit_per_call": translatable(
        "the answer at message {number} asks for {asked} calls, and {done} + {asked} would pass "
        "max_tool_calls={limit}: it is refused whole, before any of its calls runs. Your loop ran {ran} of them "
        "first: check the limit once per answer, before the for over the calls."
    ),
    "loop_limit_too_early": translatable(
        "the answer at message {number} asks for {asked} call(s): {done} + {asked} reaches max_tool_calls={limit} "
        "exactly, and that is allowed. Refuse only an answer that would pass it: done + len(calls) > max_tool_calls."
    ),
    "loop_lost_calls": translatable(
        "the assistant message at message {number} lost its tool_calls: append the model's answer as it came "
        "(message), so that each result has the call it answers."
    ),
    "loop_message_differs": translatable("message {number} differs from the Agent's: compare the two below."),
    "loop_new_list": translatable(
        "append to the list messages that your loop was given: your requests sent up to {sent} messages, but that list "
        "holds {held}. A new list (messages = messages + [...]) leaves the caller's history behind."
    ),
    "loop_no_tool_call_id": translatable(
        'the tool message at message {number} has no tool_call_id: add "tool_call_id": call["id"], so that the model '
        "knows which call the result answers."
    ),
    "loop_not_a_message": translatable(
        "message {number} of your history is not a message but {kind}. Append the model's answer, "
        "client.send(...).message, and tool messages, each a dict."
    ),
    "loop_not_parsed": translatable(
        "a tool got the call's arguments as JSON text. The model sends arguments as a string: turn it into a dict with "
        'json.loads(call["function"]["arguments"]) before tool.execute(...).'
    ),
    "loop_ran_extra": translatable(
        "your loop ran a tool call where the Agent stops (after message {number}): run the calls of the latest "
        "answer only, each once."
    ),
    "loop_ran_other": translatable(
        "your loop ran {yours} where the Agent runs {agent}: run each call with the tool its name names, and that "
        "call's own arguments."
    ),
    "loop_refused_early": translatable(
        "your loop raised {ending} after message {number}, where the Agent goes on: read that answer again."
    ),
    "loop_request_no_tools": translatable(
        "request {request} sent no tool definitions: send [tool.definition() for tool in tools] with every request, or "
        "the model cannot ask for a tool."
    ),
    "loop_request_not_history": translatable(
        "request {request} sent {sent} message(s), and your history held {held}; they differ from message {number} on. "
        "Every request sends the whole history as it is: client.send(messages, definitions)."
    ),
    "loop_request_other_tools": translatable(
        "request {request} sent other tool definitions than the Agent's: send [tool.definition() for tool in tools]."
    ),
    "loop_result_differs": translatable(
        "the result at message {number} differs from the Agent's: the right tool, found by the call's name, with the "
        "call's arguments?"
    ),
    "loop_result_role": translatable(
        'a result is a message with role "tool"; message {number} of yours has role {role!r}.'
    ),
    "loop_results_first": translatable(
        "the assistant message with tool_calls must be in the history before its results. Your history has a tool "
        "result at message {number}, where the Agent's has the assistant message that asked for it."
    ),
    "loop_results_missing": translatable(
        "the answer asked for {asked} call(s), and your history answers {answered} of them before the next request. "
        "Run every call in order, one tool message each, before asking the model again."
    ),
    "loop_results_order": translatable(
        "the calls ran in another order than tool_calls lists them: run them in that order, and append each result "
        "as it comes."
    ),
    "loop_results_together": translatable(
        "message {number} holds a list of results: each call gets a tool message of its own, with that call's id and "
        "result."
    ),
    "loop_returned_early": translatable(
        "your loop returned {answer} before the model gave a final answer: return only the text of an answer without "
        "tool calls."
    ),
    "loop_returned_instead": translatable(
        "your loop returned {answer} where the Agent raises {agent}: raise reactlab's {agent} here; the check "
        "compares the classes."
    ),
    "loop_returned_with_calls": translatable(
        "your loop returned {answer} from an answer that asks for tools. An answer with tool_calls is not final, even "
        "with text in content: run its calls."
    ),
    "loop_step_limit_early": translatable(
        "your loop raised StepLimitExceeded after {steps} model call(s), but max_steps={max_steps} allows {max_steps}."
    ),
    "loop_step_limit_late": translatable(
        "max_steps={max_steps} allows {max_steps} model call(s), and your loop asked {request} times. Count every "
        "request, whatever the answer holds: ask inside for _ in range(max_steps), and raise StepLimitExceeded after "
        "it."
    ),
    "loop_step_limit_returned": translatable(
        "after max_steps={max_steps} model calls without a final answer, raise StepLimitExceeded; your loop returned "
        "{answer}."
    ),
    "loop_too_long": translatable(
        "your loop ran for over {seconds} s on this case and was stopped ({requests} requests sent). Does every turn "
        "call the model, and does a for over range(max_steps) bound the turns?"
    ),
    "loop_validate_first": translatable(
        "the answer at message {number} has two calls with the id {id}. Your loop refused it, but only after appending "
        "it: validate first, so that a refused answer never enters the history."
    ),
    "loop_wrong_exception": translatable(
        "the Agent raises {agent} here, your loop raised {kind} ({detail}). Raise reactlab's {agent}: the check "
        "compares the classes."
    ),
    "loop_wrong_return": translatable(
        'your loop returned {answer}: return the text of the final answer as it came, message["content"].'
    ),
    "loop_wrong_tool_call_id": translatable(
        "the tool message at message {number} carries tool_call_id {id!r}; it must be the id of the call it answers: "
        'call["id"].'
    ),
}
