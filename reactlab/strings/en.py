"""The English table."""

from __future__ import annotations

from .shape import AgentTexts, CliTexts, ExerciseTexts, ResultTexts, SchemeTexts, Strings, ToolTexts

__all__ = ["EN"]

EN = Strings(
    tools=ToolTexts(
        invalid_arguments="{tool}: invalid arguments: {message}{where}{more}",
        invalid_at=" (at {path})",
        more_problems=" ({count} more problem(s))",
        elided="{head} … ({count} characters cut) … {tail}",
        path_empty="The path must be a non-empty string.",
        path_nul="The path contains a NUL byte.",
        path_absolute="Use a path relative to the project root, not {path}.",
        path_outside="{path} leads outside the project.",
        read_file_description="Read one text file of the project. The path is relative to the project root.",
        is_folder="{path} is a folder, not a file.",
        no_such_file="{path} does not exist.",
        too_large="{path} is too large ({size} bytes; the limit is {limit}).",
        too_large_over="{path} is too large (over {limit} bytes).",
        not_utf8_nul="{path} is not a UTF-8 text file (it contains a NUL byte).",
        not_utf8_byte="{path} is not a UTF-8 text file (invalid byte at offset {offset}).",
        edit_description=(
            "Replace one exact fragment of a project file. old_text must occur in the file exactly once; "
            "copy it with its indentation. The path is relative to the project root."
        ),
        edit_old_text="The exact text to replace.",
        edit_new_text="The text to put in its place.",
        edit_read_only="{path} is read-only for this run; change the implementation instead.",
        edit_not_a_file="{path} is not an existing file.",
        edit_empty_old_text="old_text is empty; give the exact fragment to replace.",
        edit_nul_in_new_text="new_text contains a NUL byte; the file must stay text.",
        edit_not_found=(
            "old_text does not occur in {path}; it must occur exactly once. "
            "Read the file again and copy the fragment with enough lines around it to be unique."
        ),
        edit_not_unique=(
            "old_text occurs {count} times in {path}; it must occur exactly once. "
            "Read the file again and copy the fragment with enough lines around it to be unique."
        ),
        edit_too_large="The edit would make {path} {size} bytes; the limit is {limit}.",
        bash_description=(
            "Run a bash command in an isolated copy of the project (current folder /work, no network). "
            "Returns exit_code, stdout and stderr; output over {limit} bytes is cut. "
            "exit_code is that of the last command in a pipeline."
        ),
        bash_timeout="Seconds before the command is stopped (default {default}).",
        bash_empty="bash: the command is empty.",
        bash_nul="bash: the command contains a NUL byte.",
        bash_not_text="bash: the command is not Unicode text (a lone surrogate at character {position}).",
        bash_timed_out="Stopped after {timeout} s; every process it started was killed.",
        bash_setup_failed="The sandbox could not be set up: {detail}",
        replayed_note="replayed from the cassette, not run on this machine",
        sandbox_unavailable=(
            "Not run: there is no sandbox on this machine, and bash never runs on the host.{detail} {reason}"
        ),
        replay_failed=" The cassette was replaying this call, but {problem}.",
        recorded_call="call {call_id} of interaction {interaction}",
        no_observation="it holds no observation for {call} (no tool message for it in the next request)",
        observation_too_long="the observation recorded for {call} is {length} characters, over {limit}",
        observation_not_object="the observation recorded for {call} is not a JSON object",
    ),
    agent=AgentTexts(
        arguments_not_json="Arguments are not valid JSON: {detail}",
        arguments_not_object="Arguments must be a JSON object, not {kind}.",
        tool_not_offered="Tool {name} is not offered. Offered: {offered}.",
        nothing_offered="none",
        tool_failed="The tool failed: {kind}: {detail}",
        result_not_object="The tool {name} returned {kind}, not an object.",
        result_not_json="The tool {name} returned a result that is not JSON.",
    ),
    results=ResultTexts(
        replayed="replayed, not run on this machine",
        sandbox_unavailable="sandbox unavailable",
        timed_out="timed out",
        truncated="truncated",
        repaired="repaired: {text}",
        error="error: {error}",
        failed="failed",
        characters="{count} characters",
    ),
    cli=CliTexts(
        model_call="[model call {number}] {asked}",
        asked_tools="{count} tool call(s)",
        asked_answer="a final answer",
        working_copy="working copy: {path}",
        answer="answer:",
        stopped="stopped: {reason}: {error}",
        totals="{calls} model calls, {executions} tool executions",
        independent_run="independent test run: {summary}",
        rerun_result="{verdict} (exit code {code})",
        rerun_not_run="not run here: {error}",
        changes="what the run changed (+ added, - removed, ~ changed):",
        unchanged="unchanged",
        changed="CHANGED",
        copy_removed="working copy removed (--discard): {path}",
        copy_kept="working copy kept: {path}",
        copy_diff="  see what changed:  diff -ru {project} {copy}",
        copy_remove="  remove it:         rm -r {copy}   (or run with --discard)",
    ),
    schemes=SchemeTexts(
        waiting="waiting for the answer…",
        no_answer="no answer: {reason}",
        one_tool_call="1 tool call: {names}",
        tool_calls="{count} tool calls: {names}",
        answer_cut_off="answer cut off (finish_reason length)",
        final_answer="final answer: {text}",
        empty_answer="empty answer: no text, no tool calls",
        verdict_exit_code="{verdict} · exit code {code}",
        exit_code="exit code {code}",
        edited="edited",
        bytes_read="{size} bytes read",
        loop_title="Scheme 1 · The agent loop",
        loop_aria="The agent loop at step {step}",
        loop_task="User task",
        loop_agent="Agent",
        loop_agent_note="the whole system: the loop, the model and the tools",
        loop_model="Model",
        loop_tools="Tools",
        loop_answer="Final answer",
        loop_answer_note="text, no tool calls",
        loop_edge_call="asks for a tool",
        loop_edge_result="result → next request",
        loop_model_counter="call {step} of {count} (limit {limit})",
        loop_tools_counter="{count} run (limit {limit})",
        loop_caption="Step {step}: the model returned {happened}.",
        loop_stopped=" The run stopped here: {reason}.",
        loop_name="Scheme 1: loop at step {step}",
        stop_reasons={
            "answer": "a final answer",
            "empty_answer": "an empty answer",
            "truncated_answer": "an answer cut off",
            "invalid_message": "an invalid answer",
            "step_limit": "the model-call limit",
            "tool_call_limit": "the tool-call limit",
            "api_connection_error": "no connection",
            "api_timeout": "no answer in time",
            "api_error": "an API error",
            "api_bad_request": "a request refused",
            "api_authentication_failed": "a key refused",
            "api_key_refused": "a key refused",
            "api_insufficient_balance": "no balance left",
            "api_rate_limited": "too many requests",
            "api_server_error": "a server error",
            "api_unexpected_status": "an unexpected reply",
            "api_malformed_response": "a malformed reply",
            "api_malformed_tool_call": "a malformed tool call",
            "api_resources_exhausted": "server resources spent",
            "api_streamed_answer": "a streamed answer",
            "api_endpoint_not_found": "no such address",
            "api_model_not_found": "no such model",
            "api_server_needs_option": "a server option missing",
            "api_temporarily_refused": "refused for now",
            "api_answer_aborted": "an answer aborted",
            "content_filtered": "a filtered answer",
            "model_refused": "the model refused",
            "agent_error": "an agent error",
            "cassette_error": "a cassette error",
            "cassette_exhausted": "out of scripted answers",
            "cassette_mismatch": "off the recorded route",
            "sandbox_unavailable": "no sandbox",
            "bound_exceeded": "a size bound passed",
        },
        sequence_title_one="Scheme 2 · One tool call, model call {step}",
        sequence_title_many="Scheme 2 · {count} tool calls in one answer, model call {step}",
        sequence_model="Model",
        sequence_agent="Agent (control part)",
        sequence_tool="Tool",
        sequence_request="POST /chat/completions: {messages} messages + {tools} tool definitions",
        sequence_reply="tool_calls: {names} (arguments are JSON strings), id",
        sequence_validate=(
            "validate: ids present and fresh, arguments a string → json.loads → an object; find the tool"
        ),
        sequence_result="result: {outcome}",
        sequence_next_request=(
            "request {number}: the assistant message, then {count} tool message(s) with tool_call_id"
        ),
        sequence_name="Scheme 2: one tool call",
        history_title="Scheme 3 · What goes into request {step}",
        history_lead=(
            "Request {step}: {count} messages, {new} new since request {previous} ({yellow} {swatch}, "
            "marked NEW). Tool definitions travel separately in {tools_field}: {tools}."
        ),
        history_lead_first=(
            "Request {step}: {count} messages, all new ({yellow} {swatch}, marked NEW). Tool definitions "
            "travel separately in {tools_field}: {tools}."
        ),
        history_yellow="yellow",
        history_answers="answers",
        history_no_such_call="(no such call)",
        history_new="NEW",
        history_cache=" (cache hit {hit}, miss {miss})",
        history_estimated=" · estimated offline",
        history_name="Scheme 3: history at request {step}",
        stopping_title="Scheme 4 · When the agent stops",
        stopping_aria="When the agent stops",
        stopping_answered="model call k",
        stopping_usable="usable answer?\narrived, whole,\nvalid",
        stopping_broken="error:\n{reason}",
        stopping_broken_reasons="none, cut off\nor invalid",
        stopping_has_calls="tool_calls?",
        stopping_has_text="non-empty text?",
        stopping_final="final answer",
        stopping_empty="error:\nempty answer",
        stopping_within="within\nmax_tool_calls?",
        stopping_tool_limit="stop:\ntool-call limit",
        stopping_run_tools="run each call,\nappend results",
        stopping_steps_left="model calls\nleft?",
        stopping_step_limit="stop:\nmodel-call limit",
        stopping_yes="yes",
        stopping_no="no",
        stopping_next_call="yes: call k+1",
        stopping_ended_answer="a final answer",
        stopping_ended_limit="a stop by a limit: {reason}",
        stopping_ended_error="an error: {reason}",
        stopping_caption=(
            "This run: {calls} model calls (limit {max_steps}), {executions} tool executions "
            "(limit {max_tool_calls}); it ended with {verdict}. {answer} answer · {limit} limit · {error} error"
        ),
        stopping_name="Scheme 4: stopping, ended with {reason}",
        route_title="Scheme 5 · The route of the run",
        route_counts=(
            "{calls} model calls · {executions} tool executions · {model} the model returned · {tool} tool executed"
        ),
        route_this_step=" ◀ this step",
        route_stopped="stopped: {reason}",
        route_name="Scheme 5: route, {count} model calls",
        step_title="Step {step} of {steps}",
        request_json="request JSON (exactly what was sent)",
        response_json="response JSON (exactly what came back)",
        viewer_title="Run viewer · {state}",
        viewer_running="running",
        viewer_static="Static view: open a step. Run the notebook to scrub with the slider.",
        viewer_step="step {step}",
        viewer_slider="step",
        viewer_previous="◀ previous",
        viewer_next="next ▶",
        student_final="(final answer)",
        student_reply="reply",
        student_arguments="arguments",
        student_answer="answer",
        student_send="send as the model",
        student_waiting="Request {number} is waiting for you: pick a tool, or write the final answer.",
        student_finished="Finished with a final answer after {calls} model calls.",
        student_stopped="The run stopped: {reason}: {error}",
        student_needs_kernel=(
            "This widget needs a running kernel: your reply goes to the Agent in the kernel, which runs the "
            "tool. On a static page (GitHub, nbviewer) the button does nothing; run the notebook to take part."
        ),
        student_request=(
            "Request {number}, as the model receives it: the messages (the tool definitions travel beside them, "
            "in tools)."
        ),
    ),
    exercises=ExerciseTexts(
        solved="✓ solved: {detail}",
        not_solved="✗ not solved yet: {detail}",
        not_quite="✗ not quite: {detail}",
        almost="✗ almost: {detail}",
        cannot_check="? cannot be checked on this machine: {detail}",
        crashed="your {name} raised {kind}: {error}{at}",
        crashed_at=" (at {where})",
        frame_line="line {line}, in {name}",
        setup_send="Send this one line to your teacher:",
        mode_unset="set MODE",
        mode_not_text='MODE should be the text "sandbox" or "replay", not {kind}',
        mode_wrong="read the sandbox line of the report again",
        mode_solved="this machine runs the course in {mode} mode",
        line_count_schema="the schema needs a required 'path' and additionalProperties: false",
        line_count_enum="'path' should be an enum of SHOP.files",
        line_count_failed="the agent called count_lines and got an error: {error}",
        line_count_wrong="the agent got {result}, expected lines={expected}",
        line_count_solved="the agent called count_lines and got {expected} lines",
        history_shop_run="the shop run",
        history_scripted_run="the scripted run",
        history_wrong="{run} {calls}, request {number}: you say {said}, it sent {sent}",
        history_solved="your formula gives the length of every request of both runs",
        limit_not_script="limit_script should be a Script (Script().tool_calls(...)), not {kind}",
        limit_empty="your script has no answers yet: add them with .tool_call(...) or .tool_calls(...)",
        limit_answered="the run ended with a final answer",
        limit_ran_out=(
            "the agent asked for model call {number}, but your script has only {count} answer(s): "
            "the limit must stop the run before that"
        ),
        limit_other_stop="the run ended with {reason}, not with the tool-call limit",
        limit_calls="{count} model calls; one is enough",
        limit_solved="one model call, refused before any tool ran",
        verified_no_sandbox="verified() needs the sandbox for its test run",
        verified_not_bool="verified() should return True or False, not {kind}",
        verified_liar="the liar's copy still fails its tests, but verified() said True",
        verified_fix="the real fix passes, but verified() said False",
        verified_settings="in this copy the tests pass but shop/settings.json was changed, and verified() said True",
        verified_tests="in this copy the tests pass but tests/ was changed, and verified() said True",
        verified_solved="verified() accepts the real fix and rejects the claim and both changed copies",
        unchanged_no_sandbox="it has no sandbox to run the commands in",
        unchanged_state_same="unchanged",
        unchanged_state_changed="changed",
        unchanged_wrong="after {command!r}, {path} is {state}, but your function said {said}",
        unchanged_solved="you judged every command by its effect on the file, not by its exit code",
        hand_made_not_dict="hand_made should be a dict, like the one in the cell, not {kind}",
        hand_made_no_interaction=(
            'the "interactions" list is empty: add one {{"response": {{...}}}} whose message is the answer'
        ),
        hand_made_failed="the cassette does not replay: {error}",
        hand_made_answer="the answer was {answer!r}",
        hand_made_solved="your cassette replays to 'hello'",
        quiz_unanswered="· {question}: no answer yet",
        quiz_right="✓ {question}: right",
        quiz_wrong="✗ {question}: not {given}: {why}",
        quiz_read_again="read the question again",
        quiz_problem="✗ {question}: {problem}",
        quiz_unreadable="this answer cannot be read: write a letter, a number or a word",
        quiz_letters="abcdefgh",
        quiz_or="{some} or {last}",
        quiz_not_a_letter="answer with the option's letter: {letters}",
        quiz_no_such_option="there is no option {letter}) here: answer with {letters}",
        quiz_not_a_number="answer with a number",
        quiz_not_a_dict='quiz should be a dict of answers, like {{1: "b", 2: 3}}, not {kind}',
        quiz_solved="all {count} answers are right",
        quiz_not_solved="{right} of {count} right",
        quiz_why={
            "01": {
                1: {
                    "a": "the model only writes a request, a tool name and arguments; it has no access to your disk",
                    "c": "that is the plain application; in an agent the first request holds no file, "
                    "the model asks for it",
                },
                2: {
                    "dict": "a dict is what json.loads makes of it; it arrives as JSON text",
                    "*": "look at the cell that prints type(raw).__name__: the arguments arrive as JSON text",
                },
                3: {
                    "a": "nothing is deleted: the agent finds no tool of that name, so no code runs",
                    "c": "the run goes on: the error becomes a result the model reads, and it may try something else",
                },
                4: {
                    "b": "a JSON Schema describes a tool's arguments for the API; the paper's text format had none",
                    "c": "tool_call_id ties a result to a call in the API's format; the paper's text format had no ids",
                },
                5: {
                    "a": 'that is the "Agent" of Scheme 1; in Scheme 2 the model and the tool have lanes of their '
                    "own, so the Agent lane is only the part between them",
                },
            },
            "02": {
                1: {
                    "12": "12 is request 5; request 4 holds what came before it: 2 + 4 + 2 + 2",
                    "*": "count: system and user, then 4 for the first answer (the assistant message and 3 results), "
                    "then 2 for each later answer",
                },
                2: {
                    "a": "the system message holds rules; the definitions travel in a field of their own, tools",
                    "c": "the model remembers nothing between requests, so the definitions go with every one",
                },
                3: {
                    "a": "they run one after another, and each result is a tool message of its own, with its call's id",
                    "c": "every call of an answer runs; the model does not have to ask again",
                },
                4: {
                    "a": "appending sends nothing; the whole history goes out at the next turn of the loop",
                },
                5: {
                    "b": "the newest result first changes the beginning of every request, so no prefix repeats "
                    "and the cache misses",
                },
            },
            "03": {
                1: {
                    "a": "a blank text is not an answer, and the loop does not pretend it is",
                    "b": "the loop does not ask again by itself: no calls and no text ends the run as an error",
                },
                2: {
                    "a": "a timeout is a result, like a missing file: the model reads timed_out: true and decides",
                },
                3: {
                    "9": "the ninth answer is never asked for: the for over the allowed steps ends first",
                    "*": "max_steps is 8 by default: the loop asks the model at most eight times",
                },
                4: {
                    "1": "the limit is checked before any call of the answer runs: the answer is refused whole",
                    "*": "2 more would make 17, so the answer is refused whole, before any of its calls runs",
                },
                5: {
                    "a": "finish_reason 'length' means it was cut off at max_tokens: half an answer cannot be trusted",
                },
            },
            "04": {
                1: {
                    "3": "not one per result: the three results are appended without asking the model; "
                    "the next turn sends them all at once",
                    "*": "executing calls and appending results sends nothing; the next request goes out at the "
                    "next turn of the loop",
                },
                2: {
                    "a": "the assistant message that asked comes first: a result follows the call it answers",
                    "c": "each call gets a tool message of its own, with that call's id in tool_call_id",
                },
                3: {
                    "a": "the limit is checked before any call of the answer runs: the answer is refused whole",
                    "c": "it is checked before the calls run, not at the next answer: 17 calls would pass the limit",
                },
                4: {
                    "a": "a blank text is not an answer: the loop raises EmptyAnswer",
                    "b": "the loop does not ask again by itself: no calls and no text ends the run as an error",
                },
                5: {
                    "id": "id is the call's own field; the tool message repeats it under another name",
                    "*": "it is the field that carries the id of the call: look at a tool message in section 4",
                },
            },
            "05": {
                1: {
                    "6": "6 is the number of tool executions: the first answer asked for three reads at once",
                    "*": "count the numbered columns of Scheme 5: one per model call",
                },
                2: {
                    "5": "5 is the number of model calls; the first of them asked for three reads",
                    "*": "count the blue boxes of Scheme 5: three reads, two test runs and the edit",
                },
                3: {
                    "a": "the tests failed: FAIL and 300 != 0 are in stdout",
                    "c": "the sandbox returns the real exit code: that of tail, the last command of the pipeline",
                },
                4: {
                    "a": "a final answer is a claim: the liar's run gives one without fixing anything",
                    "b": "ok: true says only that the tool ran, nothing about the tests",
                },
                5: {
                    "id": "id is the call's own field; the tool message repeats it under another name",
                    "*": "it is the field of the tool message that repeats the call's id",
                },
            },
            "06": {
                1: {
                    "a": "the prompt only asks; a model may ignore it, and a planted note may tell it otherwise",
                    "b": "the task's words steer the model's choice; they do not stop a command",
                },
                2: {
                    "a": "the sandbox has a network namespace of its own: its 127.0.0.1 is not the host's, "
                    "as the counting server showed",
                },
                3: {
                    "a": "reactlab never falls back to the host: without isolation, bash runs nothing",
                },
                4: {
                    "a": "for the loop, everything a tool returns is data passed to the model; "
                    "it takes orders from no file",
                },
                5: {
                    "before": "bound before, the read-only tests would be hidden under the writable copy "
                    "bound over /work afterwards",
                    "*": "one word: before or after",
                },
            },
            "07": {
                1: {
                    "a": "the key never goes in messages: the model does not need it, and messages are recorded",
                    "c": "the recorder keeps bodies, never headers, so the key cannot reach the cassette",
                },
                2: {
                    "recorded": "recorded is for answers that came from a live model",
                    "*": "the value of the cassette's source field, in English: written by hand, not recorded",
                },
                3: {
                    "a": "replay compares each request with the recording first: other tools stop it "
                    "with CassetteMismatch",
                },
                4: {
                    "a": "without a key or a server the notebook says so, and a scripted model stands in",
                },
            },
        },
        loop_task="Use the tally tool, then answer.",
        loop_case_shop="the shop run (scripted cassette, tool results replayed)",
        loop_case_empty="an empty answer",
        loop_case_step_limit="the step limit (max_steps={max_steps})",
        loop_case_tool_limit="the tool-call limit (max_tool_calls={max_tool_calls}; answers ask for 2, 2, then 1)",
        loop_case_tool_limit_whole=(
            "an answer that would pass the limit (max_tool_calls={max_tool_calls}; answers ask for 3, then 2)"
        ),
        loop_case_duplicate_id="an id used twice in one answer",
        loop_case_agrees="✓ {case}: the same {count} messages, both ended with {ending}",
        loop_ended_answer="a final answer",
        loop_stub="your loop raises NotImplementedError (the stub). Write it in the cell above.",
        loop_not_callable="my_loop should be a function, not {kind}",
        loop_solved="your loop and the Agent agree on all {count} cases",
        loop_not_solved="{matched} of {count} cases agree",
        loop_where="where, in your code:",
        loop_agent_message="message {number} in the Agent's history:",
        loop_your_message="message {number} in yours:",
        loop_none="(none: the history ends before it)",
        loop_more_lines="… ({count} more lines)",
        loop_too_long=(
            "your loop ran for over {seconds} s on this case and was stopped ({requests} requests sent). "
            "Does every turn call the model, and does a for over range(max_steps) bound the turns?"
        ),
        loop_not_parsed=(
            "a tool got the call's arguments as JSON text. The model sends arguments as a string: "
            'turn it into a dict with json.loads(call["function"]["arguments"]) before tool.execute(...).'
        ),
        loop_arguments_not_dict=(
            'a tool got arguments that are not a dict. Pass it json.loads(call["function"]["arguments"]), '
            "the dict of the call's arguments."
        ),
        loop_not_a_message=(
            "message {number} of your history is not a message but {kind}. Append the model's answer, "
            "client.send(...).message, and tool messages, each a dict."
        ),
        loop_crashed="your loop raised {kind}: {error}. {hint}",
        loop_hint_generic="The last line of your code named below is where it stopped.",
        loop_hint_key_tool_calls=(
            "An answer without tool calls has no 'tool_calls' key: read it with message.get(\"tool_calls\") or []."
        ),
        loop_hint_key="A dict has no such key: print the dict to see which keys it has.",
        loop_hint_completion="client.send(...) returns a Completion; the model's answer, a dict, is its .message.",
        loop_hint_name="A name is not defined: a typo, or something from a cell that has not run.",
        loop_hint_json_loads=(
            'json.loads takes the JSON text of call["function"]["arguments"], not the call or an already loaded dict.'
        ),
        loop_hint_arguments_text="The arguments are JSON text until you json.loads them.",
        loop_hint_not_json=(
            "Something in messages or in the tool definitions is not JSON: the client must send JSON. Send "
            "[tool.definition() for tool in tools], not the tools themselves."
        ),
        loop_hint_execute="tool.execute takes one dict: tool.execute(arguments).",
        loop_hint_signature=(
            "The check calls my_loop(client, tools, messages, max_steps, max_tool_calls): keep those five parameters."
        ),
        loop_new_list=(
            "append to the list messages that your loop was given: your requests sent up to {sent} messages, "
            "but that list holds {held}. A new list (messages = messages + [...]) leaves the caller's "
            "history behind."
        ),
        loop_limit_per_call=(
            "the answer at message {number} asks for {asked} calls, and {done} + {asked} would pass "
            "max_tool_calls={limit}: it is refused whole, before any of its calls runs. Your loop ran {ran} "
            "of them first: check the limit once per answer, before the for over the calls."
        ),
        loop_limit_missing=(
            "the answer at message {number} asks for {asked} call(s), and {done} + {asked} would pass "
            "max_tool_calls={limit}: raise ToolCallLimitExceeded before any of its calls runs. Your loop ran "
            "{ran} of them."
        ),
        loop_validate_first=(
            "the answer at message {number} has two calls with the id {id}. Your loop refused it, but only after "
            "appending it: validate first, so that a refused answer never enters the history."
        ),
        loop_ids_unchecked=(
            "the answer at message {number} has two calls with the id {id}: refuse it with "
            "InvalidAssistantMessage, before appending it. A tool message could not say which call it answers."
        ),
        loop_step_limit_late=(
            "max_steps={limit} allows {limit} model calls, and your loop asked {asked} times. Ask inside "
            "for _ in range(max_steps), and raise StepLimitExceeded after it."
        ),
        loop_empty_went_on=(
            "the answer at message {number} has no tool calls and no text: raise EmptyAnswer. Your loop went on."
        ),
        loop_answer_went_on=(
            "the answer at message {number} has no tool calls: it is the final answer, so return its text. "
            "Your loop went on."
        ),
        loop_limit_too_early=(
            "the answer at message {number} asks for {asked} call(s): {done} + {asked} reaches "
            "max_tool_calls={limit} exactly, and that is allowed. Refuse only an answer that would pass it: "
            "done + len(calls) > max_tool_calls."
        ),
        loop_step_limit_early=(
            "your loop raised StepLimitExceeded after {asked} model call(s), but max_steps={limit} allows {limit}."
        ),
        loop_refused_early=(
            "your loop raised {ending} after message {number}, where the Agent goes on: read that answer again."
        ),
        loop_returned_with_calls=(
            "your loop returned {answer} from an answer that asks for tools. An answer with tool_calls is not "
            "final, even with text in content: run its calls."
        ),
        loop_final_not_appended="append the final answer (message {number}) to the history too, then return its text.",
        loop_history_short="your history stops before message {number}; the Agent's goes on.",
        loop_results_first=(
            "the assistant message with tool_calls must be in the history before its results. Your history has "
            "a tool result at message {number}, where the Agent's has the assistant message that asked for it."
        ),
        loop_assistant_missing=(
            "the assistant message is missing: append the model's answer, with its tool_calls, before its "
            "results (message {number})."
        ),
        loop_results_missing=(
            "the answer asked for {asked} call(s), and your history answers {answered} of them before the next "
            "request. Run every call in order, one tool message each, before asking the model again."
        ),
        loop_result_role='a result is a message with role "tool"; message {number} of yours has role {role!r}.',
        loop_message_differs="message {number} differs from the Agent's: compare the two below.",
        loop_no_tool_call_id=(
            'the tool message at message {number} has no tool_call_id: add "tool_call_id": call["id"], so '
            "that the model knows which call the result answers."
        ),
        loop_results_order=(
            "the results are in another order than the calls: run the calls in the order of tool_calls, and "
            "append each result as it comes (message {number})."
        ),
        loop_wrong_tool_call_id=(
            "the tool message at message {number} carries tool_call_id {id!r}; it must be the id of the call it "
            'answers: call["id"].'
        ),
        loop_content_not_text=(
            "the content of a tool message must be JSON text, and message {number} holds a {kind}: "
            "use json.dumps(result, ensure_ascii=False)."
        ),
        loop_content_python=(
            "the content of message {number} is str(result), which is Python, not JSON (single quotes, True): "
            "use json.dumps(result, ensure_ascii=False)."
        ),
        loop_content_not_json=(
            "the content of message {number} is not JSON: use json.dumps(result, ensure_ascii=False)."
        ),
        loop_result_differs=(
            "the result at message {number} differs from the Agent's: the right tool, found by the call's name, "
            "with the call's arguments?"
        ),
        loop_request_not_history=(
            "request {request} sent {sent} message(s), but the history held {held}: every request sends the whole "
            "history, client.send(messages, definitions)."
        ),
        loop_request_no_tools=(
            "request {request} sent no tool definitions: send [tool.definition() for tool in tools] with every "
            "request, or the model cannot ask for a tool."
        ),
        loop_request_other_tools=(
            "request {request} sent other tool definitions than the Agent's: send [tool.definition() for tool "
            "in tools]."
        ),
        loop_request_count="your loop sent {yours} requests, the Agent {agent}.",
        loop_wrong_return='your loop returned {answer}: return the text of the final answer, message["content"].',
        loop_blank_returned=(
            "the last answer has no tool calls and no text, and your loop returned {answer}. A blank answer is "
            "not a final answer: raise EmptyAnswer."
        ),
        loop_step_limit_returned=(
            "after max_steps={limit} model calls without a final answer, raise StepLimitExceeded; your loop "
            "returned {answer}."
        ),
        loop_answer_refused="your loop raised {ending} on the final answer, which the Agent returns.",
        loop_wrong_exception=(
            "the Agent raises {agent} here, your loop raised {yours} ({detail}). Raise reactlab's {agent}: "
            "the check compares the classes."
        ),
        beside_agent="reactlab: Agent._loop",
        beside_article="the article's loop, retold",
        beside_article_loop=(
            "up to max_steps times:\n"
            "    ask the client, with copies of the history and of the tool definitions\n"
            "    validate the answer (with the set of call ids already used)\n"
            "    append a copy of the answer to the history\n"
            "    no calls in it?\n"
            "        non-blank text: that is the answer, return it\n"
            '        otherwise: error, "neither a call nor an answer"\n'
            "    used ids + calls in this answer > max_tool_calls: error, tool-call limit\n"
            "    for each call, in order:\n"
            "        result = execute the call (parse the arguments, find the tool by name, run it)\n"
            "        append a tool message: the call's id, the result as JSON text\n"
            "        add the call's id to the used ids\n"
            "error: model-call limit reached without a final answer"
        ),
        beside_locked=(
            "Agent._loop and the article's loop appear here once your loop agrees with the Agent on every case: "
            "write yours first. (To see them now anyway: show_beside_agent(my_loop, now=True).)"
        ),
    ),
)
