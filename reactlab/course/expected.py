"""expected_error: a deliberate error, shown in a notebook as one line, so that Run All goes on.

    with expected_error(EmptyAnswer) as caught:
        agent.run(task)
    caught.error.record          # the run's record, as the error carries it

prints ``EmptyAnswer: The model returned neither a tool call nor an answer.`` instead of a long
traceback full of this machine's paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Caught", "expected_error"]


@dataclass
class Caught:
    """What the block raised: set when ``expected_error`` exits."""

    error: BaseException | None = None


@contextmanager
def expected_error(*kinds: type[BaseException]) -> Iterator[Caught]:
    """Catch an error of one of ``kinds`` and print ``TypeName: message``; let any other error through.

    A block that raises nothing fails with AssertionError: the lesson promised an error.
    """
    if not kinds:
        raise TypeError("expected_error needs at least one exception class")
    caught = Caught()
    try:
        yield caught
    except kinds as error:
        caught.error = error
        print(f"{type(error).__name__}: {error}")
        return
    names = " or ".join(kind.__name__ for kind in kinds)
    raise AssertionError(f"expected {names}, but nothing was raised")
