"""expected_error: a deliberate error becomes one printed line; anything else is not hidden."""

from __future__ import annotations

import pytest

from reactlab import Agent, EmptyAnswer, Script, StepLimitExceeded, expected_error


def test_the_expected_error_is_printed_in_one_line_and_kept(capsys):
    agent = Agent(Script().empty_answer().client(), [])
    with expected_error(EmptyAnswer, StepLimitExceeded) as caught:
        agent.run("task")
    assert capsys.readouterr().out == "EmptyAnswer: The model returned neither a tool call nor an answer.\n"
    assert isinstance(caught.error, EmptyAnswer) and caught.error.record.stop_reason == "empty_answer"


def test_an_error_of_another_kind_goes_through_untouched(capsys):
    with pytest.raises(KeyError):
        with expected_error(EmptyAnswer):
            {}["missing"]
    assert capsys.readouterr().out == ""


def test_a_block_that_raises_nothing_fails_loudly():
    with pytest.raises(AssertionError, match="expected EmptyAnswer or ValueError, but nothing was raised"):
        with expected_error(EmptyAnswer, ValueError):
            pass


def test_it_needs_to_be_told_what_to_expect():
    with pytest.raises(TypeError, match="at least one exception class"):
        with expected_error():
            pass
