"""Auto-checked quizzes: answers are compared with salted digests, so the key does not give them away.

    key = {1: answer_digest(1, "b")}          # made once, by whoever writes the quiz
    print(check_quiz({1: "B"}, key))          # "✓ 1" ... "✓ solved: ..."
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

__all__ = ["answer_digest", "check_quiz", "normalise"]


def normalise(answer: object) -> str:
    """Case, surrounding spaces and inner runs of spaces do not matter; ``None`` is no answer."""
    return "" if answer is None else " ".join(str(answer).split()).lower()


def answer_digest(question: int, answer: object) -> str:
    """The digest a quiz key stores for ``answer`` to ``question`` (salted with the question number)."""
    return hashlib.sha256(f"reactlab quiz {question}: {normalise(answer)}".encode()).hexdigest()[:16]


def check_quiz(answers: Mapping[int, object], key: Mapping[int, str]) -> str:
    """One line per question, then "✓ solved" or "✗ not solved yet"."""
    lines = []
    right = 0
    for question in sorted(key):
        given = answers.get(question)
        if normalise(given) == "":
            lines.append(f"· {question}: no answer yet")
        elif answer_digest(question, given) == key[question]:
            right += 1
            lines.append(f"✓ {question}: right")
        else:
            lines.append(f"✗ {question}: not this one ({normalise(given)[:40]!r}); read the question again")
    if right == len(key):
        lines.append(f"✓ solved: all {len(key)} answers are right")
    else:
        lines.append(f"✗ not solved yet: {right} of {len(key)} right")
    return "\n".join(lines)
