"""The English table."""

from __future__ import annotations

from .shape import AgentTexts, CliTexts, ResultTexts, SchemeTexts, Strings, ToolTexts

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
        loop_agent="Agent (the loop)",
        loop_model="Model",
        loop_tools="Tools",
        loop_answer="Final answer",
        loop_edge_task="task",
        loop_edge_request="messages + tools",
        loop_edge_reply="tool_calls or text",
        loop_edge_execute="execute",
        loop_edge_result="result → history",
        loop_edge_answer="non-empty text",
        loop_model_counter="call {step} of {count} (limit {limit})",
        loop_tools_counter="{count} run (limit {limit})",
        loop_caption="Step {step}: the model returned {happened}.",
        loop_stopped=" The run stopped here: {reason}.",
        loop_name="Scheme 1: loop at step {step}",
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
        history_yellow="yellow",
        history_answers="answers",
        history_no_such_call="(no such call)",
        history_new="NEW",
        history_cache=" (cache hit {hit}, miss {miss})",
        history_estimated=" · estimated offline",
        history_name="Scheme 3: history at request {step}",
        stopping_title="Scheme 4 · When the agent stops",
        stopping_aria="When the agent stops",
        stopping_answered="model call k\nanswered",
        stopping_usable="usable answer?\nAPI ok, whole, valid",
        stopping_broken="error:\n{reason}",
        stopping_broken_reasons="API, cut off or invalid",
        stopping_has_calls="tool_calls?",
        stopping_has_text="non-empty text?",
        stopping_final="final answer",
        stopping_empty="error:\nempty answer",
        stopping_within="within\nmax_tool_calls?",
        stopping_tool_limit="stop:\ntool-call limit",
        stopping_run_tools="run each call,\nappend results",
        stopping_steps_left="model calls\nleft?",
        stopping_step_limit="stop:\nstep limit",
        stopping_yes="yes",
        stopping_no="no",
        stopping_next_call="yes: call k+1",
        stopping_ended_answer="a final answer",
        stopping_ended_limit="a stop by a limit ({reason})",
        stopping_ended_error="an error ({reason})",
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
    ),
)
