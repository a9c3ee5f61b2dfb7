"""Auto-checked quizzes: answers are compared with salted digests, so the key does not give them away.

key = {1: answer_digest(1, "b")}              # made once, by whoever writes the quiz
print(check_quiz({1: "B"}, key))              # "✓ 1: right" ... "✓ solved: ..."
print(check_quiz({1: "B"}, key, lang="ru"))   # "✓ 1: верно" ... "✓ решено: ..."
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from ..strings import strings

__all__ = ["answer_digest", "check_quiz", "normalise"]


# Options are lettered a, b, c...; on a Russian keyboard the same-looking Cyrillic letter is typed.
_LOOK_ALIKES = {"а": "a", "в": "b", "с": "c", "е": "e"}


def normalise(answer: object) -> str:
    """Case, surrounding spaces and inner runs of spaces do not matter, nor a Cyrillic letter that
    looks like the Latin option letter; ``None`` is no answer."""
    text = "" if answer is None else " ".join(str(answer).split()).lower()
    return _LOOK_ALIKES.get(text, text)


def answer_digest(question: int, answer: object) -> str:
    """The digest a quiz key stores for ``answer`` to ``question`` (salted with the question number)."""
    return hashlib.sha256(f"reactlab quiz {question}: {normalise(answer)}".encode()).hexdigest()[:16]


def check_quiz(answers: Mapping[int, object], key: Mapping[int, str], lang: str | None = None) -> str:
    """One line per question, then "✓ solved" or "✗ not solved yet", in ``lang`` (``current_language()``
    when None)."""
    texts = strings(lang).exercises
    lines = []
    right = 0
    for question in sorted(key):
        given = answers.get(question)
        if normalise(given) == "":
            lines.append(texts.quiz_unanswered.format(question=question))
        elif answer_digest(question, given) == key[question]:
            right += 1
            lines.append(texts.quiz_right.format(question=question))
        else:
            lines.append(texts.quiz_wrong.format(question=question, given=normalise(given)[:40]))
    if right == len(key):
        lines.append(texts.solved.format(detail=texts.quiz_solved.format(count=len(key))))
    else:
        lines.append(texts.not_solved.format(detail=texts.quiz_not_solved.format(right=right, count=len(key))))
    return "\n".join(lines)
