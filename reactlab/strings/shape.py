"""The shape of a language's table: every user-visible string the library writes, by name.

Each language (``en.py``, ``ru.py``) fills every field of these frozen dataclasses, so mypy reports
a missing or misspelt key. A string with ``{name}`` fields is filled with ``str.format`` (in a
template, with the ``fill`` filter, which escapes the values); both languages name the same fields.
Not here: the system prompts and the task (``prompts.py``), exception messages for developers, and
the messages of jsonschema and the sandbox, which stay English behind a translated lead-in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["AgentTexts", "CliTexts", "ExerciseTexts", "ResultTexts", "SchemeTexts", "Strings", "ToolTexts"]


@dataclass(frozen=True)
class ToolTexts:
    """What the model reads about the tools: their descriptions and their errors."""

    # base.py: the arguments checked against the tool's schema (jsonschema's message stays English)
    invalid_arguments: str
    invalid_at: str
    more_problems: str
    elided: str
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
    """The results the agent writes itself when a call cannot be executed; the model reads them."""

    arguments_not_json: str
    arguments_not_object: str
    tool_not_offered: str
    nothing_offered: str
    tool_failed: str
    result_not_object: str
    result_not_json: str


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
    """The lines ``python -m reactlab run | demo`` prints around a run."""

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
    copy_kept: str
    copy_diff: str
    copy_remove: str


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
    # every scheme: a run's stop_reason in words (an unknown one shows as it is)
    stop_reasons: Mapping[str, str]
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


@dataclass(frozen=True)
class ExerciseTexts:
    """What the checks of the exercises and quizzes print (exercises.py, quiz.py, loop_check.py).

    A check ends with one verdict line, a mark and its words filled with a detail: ``solved``,
    ``not_solved``, ``not_quite``, ``almost`` or ``cannot_check``. What a student wrote is named in
    a beginner's words, never by an internal name (a stop reason reads as ``schemes.stop_reasons``).
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
    # loop_check.py: the cases, a line per case, then the verdict
    loop_task: str
    loop_case_shop: str
    loop_case_empty: str
    loop_case_step_limit: str
    loop_case_tool_limit: str
    loop_case_tool_limit_whole: str
    loop_case_duplicate_id: str
    loop_case_agrees: str
    loop_ended_answer: str
    loop_stub: str
    loop_not_callable: str
    loop_solved: str
    loop_not_solved: str
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
    loop_history_short: str
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
    loop_request_count: str
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


@dataclass(frozen=True)
class Strings:
    """One language's table."""

    tools: ToolTexts
    agent: AgentTexts
    results: ResultTexts
    cli: CliTexts
    schemes: SchemeTexts
    exercises: ExerciseTexts
