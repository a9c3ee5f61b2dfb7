"""The shape of a language's table: every user-visible string the library writes, by name.

Each language (``en.py``, ``ru.py``) fills every field of these frozen dataclasses, so mypy reports
a missing or misspelt key. A string with ``{name}`` fields is filled with ``str.format`` (in a
template, with the ``fill`` filter, which escapes the values); both languages name the same fields.
A value the model sent is quoted with ``{value!r}`` in English (as jsonschema and Python write it)
and ``«{value}»`` in Russian, where it is written as JSON (base.py passes an object that renders
either way). A number with a fraction arrives formatted already, with the language's decimal sign.
Not here: the system prompts and the task (``prompts.py``), exception messages for developers (a
wrong argument to a library call), and what the sandbox says about the machine, which stays English
behind a translated lead-in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "AgentTexts",
    "ApiTexts",
    "CliTexts",
    "DoctorTexts",
    "ExerciseTexts",
    "LocalServerTexts",
    "ResultTexts",
    "SandboxTexts",
    "SchemeTexts",
    "ScriptedTexts",
    "Strings",
    "ToolTexts",
]


@dataclass(frozen=True)
class ToolTexts:
    """What the model reads about the tools: their descriptions and their errors."""

    # base.py: the arguments checked against the tool's schema, one message per JSON Schema keyword
    invalid_arguments: str
    invalid_at: str
    more_problems: str
    elided: str
    schema_type: str
    schema_enum: str
    schema_const: str
    schema_required: str
    schema_unexpected_one: str
    schema_unexpected_many: str
    schema_minimum: str
    schema_maximum: str
    schema_exclusive_minimum: str
    schema_exclusive_maximum: str
    schema_multiple_of: str
    schema_non_empty: str
    schema_too_short: str
    schema_must_be_empty: str
    schema_too_long: str
    schema_pattern: str
    schema_unique: str
    schema_other: str
    # workspace.py: a path the model gave
    path_empty: str
    path_nul: str
    path_absolute: str
    path_outside: str
    # read_file.py (the reading checks are shared with edit)
    read_file_description: str
    is_folder: str
    no_such_file: str
    too_large: str
    too_large_over: str
    not_utf8_nul: str
    not_utf8_byte: str
    # edit.py
    edit_description: str
    edit_old_text: str
    edit_new_text: str
    edit_read_only: str
    edit_not_a_file: str
    edit_empty_old_text: str
    edit_nul_in_new_text: str
    edit_not_found: str
    edit_not_unique: str
    edit_too_large: str
    # bash.py
    bash_description: str
    bash_timeout: str
    bash_empty: str
    bash_nul: str
    bash_not_text: str
    bash_timed_out: str
    bash_setup_failed: str
    replayed_note: str
    sandbox_unavailable: str
    replay_failed: str
    recorded_call: str
    no_observation: str
    observation_too_long: str
    observation_not_object: str


@dataclass(frozen=True)
class AgentTexts:
    """What the agent writes itself: the results of calls it cannot execute (the model reads them),
    and the errors that end a run (agent.py)."""

    # the loop's endings
    empty_answer: str
    tool_call_limit: str
    step_limit: str
    # _validate: an answer that breaks the protocol
    not_assistant: str
    content_not_text: str
    calls_not_list: str
    call_not_object: str
    call_without_id: str
    call_repeats_id: str
    call_type: str
    call_without_name: str
    arguments_not_string: str
    # _run_tool: arguments that are not a JSON object, with what the parser stopped at
    arguments_not_json: str
    arguments_refused: str
    # what reactlab.json_text refuses in JSON that parses (also in a server's body, in markup)
    json_too_deep: str
    json_bad_number: str
    json_surrogate: str
    json_duplicate_key: str
    json_expecting_value: str
    json_expecting_name: str
    json_expecting_colon: str
    json_expecting_comma: str
    json_unterminated_string: str
    json_control_character: str
    json_bad_escape: str
    json_extra_data: str
    json_trailing_comma: str
    json_other: str
    arguments_not_object: str
    tool_not_offered: str
    nothing_offered: str
    tool_failed: str
    result_not_object: str
    result_not_json: str


@dataclass(frozen=True)
class ApiTexts:
    """The client's errors (client.py, http_errors.py, repair.py, truncation.py): what a server's
    answer means when it is not a usable chat.completion, and what to do next. The server's own
    words are quoted as they came."""

    decimal_sign: str
    thousands_sign: str  # between groups of three digits: 20,000 in English, 20 000 in Russian
    retry_later: str
    retry_useless: str
    # client.py: the answer itself
    deadline: str
    too_large: str
    timeout: str
    unreachable: str
    not_json: str
    body_refused: str
    no_choices: str
    no_message: str
    unknown_finish: str
    streamed: str
    # client.py: the key, checked before anything is sent
    key_whitespace: str
    key_bad_character: str
    key_plain_http: str
    unix_base_url: str  # unix_socket.py
    # http_errors.py: what the server said, then what it means
    said: str
    said_code: str
    said_request_id: str
    said_retry_after: str
    no_details: str
    upstream: str
    the_provider: str
    endpoint_missing: str
    endpoint_check: str
    endpoint_add_v1: str
    filtered: str
    flagged: str
    malformed_tool_call: str
    model_wrote: str
    no_provider: str
    error_in_200: str
    needs_option: str
    model_unknown: str
    bad_request: str
    bad_request_order: str
    key_refused: str
    key_you_passed: str
    no_balance: str
    later: str
    rate_limited: str
    server_failed: str
    unexpected_status: str
    context_too_long: str
    context_limit: str
    context_sent: str
    tools_unsupported: str
    region_refused: str
    account_refused: str
    backend_degraded: str
    model_withdrawn: str
    # client.py and gigachat.py: a body that cannot be read, a certificate not trusted, GigaChat's token
    undecodable_encoding: str
    undecodable_utf8: str
    json_cut_off: str
    connection_cut: str
    untrusted_certificate: str
    russian_ca: str
    ca_bundle_unreadable: str
    token_refused: str
    token_unreadable: str
    bad_scope: str
    yandex_model: str
    # http_errors.py: a finish_reason that leaves no usable answer, and a refusal
    finish_length: str
    finish_content_filter: str
    finish_resources: str
    finish_abort: str
    refused: str
    # truncation.py
    cut_off: str
    # repair.py: each quirk, what is wrong (strict mode) and what was done (repair=True)
    quirk: str
    markup_not_closed: str
    markup_not_json: str
    markup_no_name: str
    markup_bad_arguments: str
    no_function: str
    text_parts: str
    text_parts_joined: str
    thinking_parts: str
    thinking_parts_joined: str
    flat_call: str
    flat_call_moved: str
    arguments_object: str
    arguments_object_sent: str
    no_type: str
    no_type_set: str
    no_id: str
    no_id_set: str
    id_empty: str
    id_missing: str
    finish_tool: str
    finish_tool_read: str
    finish_eos: str
    finish_eos_read: str
    finish_function_call: str
    finish_function_call_read: str
    legacy_call: str
    legacy_call_read: str
    dialect_calls: str
    dialect_calls_read: str
    unreadable_dialect: str
    # cassette.py and scripted.py: a replay that leaves its recording or its script
    cassette_exhausted: str
    script_exhausted: str
    cassette_mismatch: str
    cassette_tools_differ: str
    cassette_message_differs: str
    cassette_count_differs: str
    cassette_functions: str


@dataclass(frozen=True)
class DoctorTexts:
    """The report of ``python -m reactlab doctor``: each check's name, what it found, how to fix it."""

    name_python: str
    name_widgets: str
    name_sandbox: str
    name_live_model: str
    fix: str
    python_found: str
    widgets_missing: str
    no_lab_extension: str
    sandbox_limited: str
    sandbox_ok: str
    replay_mode: str
    live_base_url: str
    live_deepseek: str
    live_none: str
    live_fix: str
    in_page_widgets: str
    live_in_browser: str
    # sandbox_advice: the one fix for this kind of machine, or what to expect where there is none
    on_macos: str
    on_windows: str
    on_colab: str
    on_binder: str
    in_browser: str
    install_apt: str
    on_docker: str
    on_kubernetes: str
    on_container: str
    apparmor: str
    unknown_block: str


@dataclass(frozen=True)
class SandboxTexts:
    """Why bash cannot run in the sandbox here, and the host-side bounds a run can pass."""

    closed_while_running: str
    cannot_start: str
    cannot_limit: str
    no_libseccomp: str
    no_filter: str
    no_keyring: str
    uid_not_unprivileged: str
    uid_taken: str
    owner_user: str
    owner_group: str
    closed: str
    copy_unreachable: str
    way_replaced: str
    not_found: str
    in_browser: str
    in_page_unittest_only: str
    cannot_build: str
    full: str
    too_many_namespaces: str
    userns_blocked: str
    other_failure: str
    could_not_run: str
    outside_project: str
    missing_or_symlink: str
    no_room_for_snapshot: str
    bound_entries: str
    bound_path: str
    bound_read: str
    bound_project: str
    bound_copy: str  # {what}: copy_of_project or copy_of_read_only
    bound_disk: str
    disk_nearly_full: str
    copy_of_project: str
    copy_of_read_only: str


@dataclass(frozen=True)
class ResultTexts:
    """Short readings of a tool result, shared by the CLI's route and the schemes."""

    replayed: str
    sandbox_unavailable: str
    timed_out: str
    truncated: str
    repaired: str
    error: str
    failed: str
    characters: str


@dataclass(frozen=True)
class CliTexts:
    """The lines ``python -m reactlab run | demo`` prints around a run, its help and its errors."""

    model_call: str
    asked_tools: str
    asked_answer: str
    working_copy: str
    answer: str
    stopped: str
    totals: str
    independent_run: str
    rerun_result: str
    rerun_not_run: str
    changes: str
    unchanged: str
    changed: str
    copy_removed: str
    copy_removed_bound: str
    copy_kept: str
    copy_diff: str
    changes_more: str
    copy_remove: str
    # --help
    description: str
    usage: str
    positionals: str
    options: str
    help: str
    help_run: str
    help_project: str
    help_task: str
    help_task_file: str
    help_read_only: str
    help_cassette: str
    help_live: str
    help_record: str
    help_base_url: str
    help_model: str
    help_repair: str
    help_discard: str
    help_demo: str
    help_doctor: str
    help_lang: str
    help_json: str
    # errors: the arguments (argparse's messages, in the language asked for), files, the run
    error: str
    arguments_required: str
    argument_one_of: str
    argument_not_allowed: str
    argument_invalid_choice: str
    argument_expects_value: str
    arguments_unknown: str
    arguments_wrong: str
    project_missing: str
    record_needs_live: str
    no_such_file: str
    is_a_folder: str
    no_permission: str
    file_error: str


@dataclass(frozen=True)
class LocalServerTexts:
    """Why llama-server cannot be started on this machine (llama_server.py), and what to run."""

    not_built: str
    model_missing: str


@dataclass(frozen=True)
class SchemeTexts:
    """Labels and captions of the five schemes, the run viewer and BeTheModel."""

    # what a model call returned, what a tool gave (base.py)
    waiting: str
    no_answer: str
    one_tool_call: str
    tool_calls: str
    answer_cut_off: str
    final_answer: str
    empty_answer: str
    verdict_exit_code: str
    exit_code: str
    edited: str
    bytes_read: str
    # Scheme 1
    loop_title: str
    loop_aria: str
    loop_task: str
    loop_agent: str
    loop_agent_note: str
    loop_model: str
    loop_tools: str
    loop_answer: str
    loop_answer_note: str
    loop_edge_call: str
    loop_edge_result: str
    loop_model_counter: str
    loop_tools_counter: str
    loop_caption: str
    loop_stopped: str
    loop_name: str
    # Scheme 2
    sequence_title_one: str
    sequence_title_many: str
    sequence_model: str
    sequence_agent: str
    sequence_tool: str
    sequence_request: str
    sequence_reply: str
    sequence_validate: str
    sequence_result: str
    sequence_next_request: str
    sequence_name: str
    # Scheme 3
    history_title: str
    history_lead: str
    history_lead_first: str
    history_yellow: str
    history_answers: str
    history_no_such_call: str
    history_new: str
    history_cache: str
    history_estimated: str
    history_name: str
    # Scheme 4
    stopping_title: str
    stopping_aria: str
    stopping_answered: str
    stopping_usable: str
    stopping_broken: str
    stopping_broken_reasons: str
    stopping_has_calls: str
    stopping_has_text: str
    stopping_final: str
    stopping_empty: str
    stopping_within: str
    stopping_tool_limit: str
    stopping_run_tools: str
    stopping_steps_left: str
    stopping_step_limit: str
    stopping_yes: str
    stopping_no: str
    stopping_next_call: str
    stopping_ended_answer: str
    stopping_ended_limit: str
    stopping_ended_error: str
    stopping_caption: str
    stopping_name: str
    # Scheme 5
    route_title: str
    route_counts: str
    route_this_step: str
    route_stopped: str
    route_name: str
    # the run viewer
    step_title: str
    request_json: str
    response_json: str
    request_shown_before: str
    request_one_shown_before: str
    request_shown_here: str
    request_one_shown_here: str
    request_tools_before: str
    history_shown_before: str
    # a long JSON value, on every scheme (markup.clipped_json)
    show_more: str
    left_out: str
    viewer_title: str
    viewer_running: str
    viewer_static: str
    viewer_step: str
    viewer_slider: str
    viewer_previous: str
    viewer_next: str
    # BeTheModel
    student_final: str
    student_reply: str
    student_arguments: str
    student_answer: str
    student_send: str
    student_waiting: str
    student_finished: str
    student_stopped: str
    student_needs_kernel: str
    student_request: str
    student_failed: str
    # how a run ended, by its stop_reason (errors.py): "stop_" + the reason; read by stop_phrase
    stop_answer: str
    stop_error: str
    stop_agent_error: str
    stop_empty_answer: str
    stop_invalid_message: str
    stop_tool_call_limit: str
    stop_step_limit: str
    stop_api_error: str
    stop_api_connection_error: str
    stop_api_timeout: str
    stop_api_bad_request: str
    stop_api_server_needs_option: str
    stop_api_context_too_long: str
    stop_api_tools_unsupported: str
    stop_api_access_refused: str
    stop_api_untrusted_certificate: str
    stop_api_undecodable_body: str
    stop_api_authentication_failed: str
    stop_api_insufficient_balance: str
    stop_api_temporarily_refused: str
    stop_api_rate_limited: str
    stop_api_server_error: str
    stop_api_unexpected_status: str
    stop_api_endpoint_not_found: str
    stop_api_model_not_found: str
    stop_api_malformed_response: str
    stop_api_streamed_answer: str
    stop_api_malformed_tool_call: str
    stop_truncated_answer: str
    stop_content_filtered: str
    stop_model_refused: str
    stop_api_resources_exhausted: str
    stop_api_answer_aborted: str
    stop_api_key_refused: str
    stop_cassette_error: str
    stop_cassette_exhausted: str
    stop_cassette_mismatch: str
    stop_sandbox_unavailable: str
    stop_bound_exceeded: str


@dataclass(frozen=True)
class ScriptedTexts:
    """What a scripted model says, and the small tasks it is given: the shop run's final answer
    (samples) and the scripts in the notebooks' code cells, which both editions share."""

    shop_answer: str
    # 00
    stand_in_reason: str
    list_files_task: str
    could_not_list: str
    # 01
    why_question: str
    thought_read_settings: str
    thought_invented: str
    says_it_will_call: str
    read_files_task: str
    delivery_missing: str
    break_things_task: str
    could_not_do: str
    # 03
    free_from_2000: str
    cut_off_answer: str
    read_twice: str
    never_reached: str
    stopped_and_cut: str
    # 04
    tally_task: str
    numbered: str
    # 05
    liar: str
    # 06
    injected_note: str
    obeyed_note: str
    # 07
    my_cassette: str


@dataclass(frozen=True)
class ExerciseTexts:
    """What the checks of the exercises and quizzes print (exercises.py, quiz.py, loop_check.py).

    A check ends with one verdict line, a mark and its words filled with a detail: ``solved``,
    ``not_solved``, ``not_quite``, ``almost`` or ``cannot_check``. What a student wrote is named in
    a beginner's words, never by an internal name (a stop reason reads as ``stop_phrase`` says it).
    """

    solved: str
    not_solved: str
    not_quite: str
    almost: str
    cannot_check: str
    # a student's function raised: its name, the error, and the line of their code it came from
    crashed: str
    crashed_at: str
    frame_line: str
    # 00: setup_line, check_mode
    setup_send: str
    mode_unset: str
    mode_not_text: str
    mode_wrong: str
    mode_solved: str
    # 01: check_line_count_tool
    line_count_schema: str
    line_count_enum: str
    line_count_failed: str
    line_count_wrong: str
    line_count_solved: str
    # 02: check_history_length
    history_shop_run: str
    history_scripted_run: str
    history_wrong: str
    history_solved: str
    # 03: check_limit_script
    limit_not_script: str
    limit_empty: str
    limit_answered: str
    limit_ran_out: str
    limit_other_stop: str
    limit_calls: str
    limit_solved: str
    # 05: check_verified
    verified_no_sandbox: str
    verified_not_bool: str
    verified_liar: str
    verified_fix: str
    verified_settings: str
    verified_tests: str
    verified_solved: str
    # 06: check_file_unchanged_after
    unchanged_no_sandbox: str
    unchanged_state_same: str
    unchanged_state_changed: str
    unchanged_wrong: str
    unchanged_solved: str
    # 07: check_hand_made
    hand_made_not_dict: str
    hand_made_no_interaction: str
    hand_made_failed: str
    hand_made_answer: str
    hand_made_solved: str
    # quiz.py: a line per question, then the verdict
    quiz_unanswered: str
    quiz_right: str
    quiz_wrong: str
    quiz_read_again: str
    quiz_problem: str
    quiz_unreadable: str
    quiz_letters: str
    quiz_or: str
    quiz_not_a_letter: str
    quiz_no_such_option: str
    quiz_not_a_number: str
    quiz_not_a_dict: str
    quiz_solved: str
    quiz_not_solved: str
    quiz_why: Mapping[str, Mapping[int, Mapping[str, str]]]
    """Why an answer is wrong, by quiz ("04"), question and answer as read ("a", "3", "before"); "*"
    for any other wrong answer to that question."""
    # loop_check.py: the tool the loop is tried with, the cases, a line per case, then the verdict
    tally_description: str
    tally_nothing: str
    replayed_none: str
    loop_task: str
    loop_case_shop: str
    loop_text_beside: str
    loop_final: str
    loop_case_answers: str
    loop_case_named: str
    loop_aliased: str
    loop_append_first: str
    loop_hint_null_content: str
    loop_ids_wrong_exception: str
    loop_ran_extra: str
    loop_ran_other: str
    loop_returned_early: str
    loop_returned_instead: str
    loop_error_left_out: str
    loop_hint_tool_error: str
    loop_lost_calls: str
    loop_results_together: str
    loop_empty_with_calls: str
    loop_limit_after_calls: str
    loop_stub: str
    loop_not_callable: str
    loop_solved: str
    # loop_check.py: what is shown under a mistake
    loop_where: str
    loop_agent_message: str
    loop_your_message: str
    loop_none: str
    loop_more_lines: str
    # loop_check.py: the mistakes, each named in a beginner's words
    loop_too_long: str
    loop_not_parsed: str
    loop_arguments_not_dict: str
    loop_not_a_message: str
    loop_crashed: str
    loop_hint_generic: str
    loop_hint_key_tool_calls: str
    loop_hint_key: str
    loop_hint_completion: str
    loop_hint_name: str
    loop_hint_json_loads: str
    loop_hint_arguments_text: str
    loop_hint_not_json: str
    loop_hint_execute: str
    loop_hint_signature: str
    loop_new_list: str
    loop_limit_per_call: str
    loop_limit_missing: str
    loop_validate_first: str
    loop_ids_unchecked: str
    loop_step_limit_late: str
    loop_empty_went_on: str
    loop_answer_went_on: str
    loop_limit_too_early: str
    loop_step_limit_early: str
    loop_refused_early: str
    loop_returned_with_calls: str
    loop_final_not_appended: str
    loop_results_first: str
    loop_assistant_missing: str
    loop_results_missing: str
    loop_result_role: str
    loop_message_differs: str
    loop_no_tool_call_id: str
    loop_results_order: str
    loop_wrong_tool_call_id: str
    loop_content_not_text: str
    loop_content_python: str
    loop_content_not_json: str
    loop_result_differs: str
    loop_request_not_history: str
    loop_request_no_tools: str
    loop_request_other_tools: str
    loop_wrong_return: str
    loop_blank_returned: str
    loop_step_limit_returned: str
    loop_answer_refused: str
    loop_wrong_exception: str
    # loop_check.py: notebook 04's side-by-side of Agent._loop and the article's loop
    beside_agent: str
    beside_article: str
    beside_article_loop: str
    beside_locked: str
    beside_repr_shown: str
    beside_repr_locked: str


@dataclass(frozen=True)
class Strings:
    """One language's table."""

    tools: ToolTexts
    agent: AgentTexts
    api: ApiTexts
    results: ResultTexts
    cli: CliTexts
    local_server: LocalServerTexts
    doctor: DoctorTexts
    sandbox: SandboxTexts
    schemes: SchemeTexts
    scripted: ScriptedTexts
    exercises: ExerciseTexts
    labels: Mapping[str, str]
    """What the notebooks' code cells print around their values, looked up by ``say("files unchanged:")``:
    the English text is the key, so English needs no entry; every other language maps each key to its
    wording, with the same ``{fields}``."""
