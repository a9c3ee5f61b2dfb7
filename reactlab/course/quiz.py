"""The notebooks' quizzes: a student's answers checked against salted digests, with a reason for
every wrong option, in the reader's language.

    print(check_quiz(quiz, "01"))     # "✓ 1: right" ... "✗ 3: not a): <why>" ... "✗ not solved yet: ..."

A question is a choice (options lettered a, b, c; in Russian а, б, в), a number, or a word. What the
student typed is read leniently and never trusted: "B", " b) ", "(b)" and "b) one after another" are
option b; "3.0" is 3; "`id`" is id; in Russian «в» is the third option and «до» means «before».
Whatever a quiz's dict holds (an object whose ``str`` raises, a list, a key typed as "1"), the check
says what it could not read and never raises. The key holds digests, so reading it does not give the
answers away; the reasons (``strings(lang).exercises.quiz_why``) are given for wrong answers, each
keyed by what was typed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..strings import ExerciseTexts, resolve_language, strings

__all__ = ["QUIZZES", "Question", "Quiz", "answer_digest", "check_quiz", "read_answer"]

Kind = Literal["choice", "number", "word"]
LONGEST = 200  # characters of an answer that are read; a longer one is not an answer to these questions


@dataclass(frozen=True)
class Question:
    """One question: its kind, the digest of its right answer, and for a choice how many options it has."""

    kind: Kind
    digest: str
    options: int = 0


@dataclass(frozen=True)
class Quiz:
    """A notebook's quiz: ``name`` ("04") finds its reasons in the language's table."""

    name: str
    questions: dict[int, Question]


def answer_digest(question: int, answer: object) -> str:
    """The digest a key stores for the right ``answer`` (as ``read_answer`` reads it) to ``question``."""
    return hashlib.sha256(f"reactlab quiz {question}: {answer}".encode()).hexdigest()[:16]


def _choice(options: int, digest: str) -> Question:
    return Question("choice", digest, options)


def _number(digest: str) -> Question:
    return Question("number", digest)


def _word(digest: str) -> Question:
    return Question("word", digest)


QUIZZES: dict[str, Quiz] = {
    quiz.name: quiz
    for quiz in (
        Quiz(
            "01",
            {
                1: _choice(3, "2ce2b8341a7e01c4"),
                2: _word("c4fd529a6b707bc9"),
                3: _choice(3, "880974f87f91830f"),
                4: _choice(3, "c515248bddeda9f1"),
                5: _choice(2, "9e879addfdcecd2d"),
            },
        ),
        Quiz(
            "02",
            {
                1: _number("69e02f3487de542c"),
                2: _choice(3, "9a5d6ee2464a9ba5"),
                3: _choice(3, "880974f87f91830f"),
                4: _choice(2, "17a5d5e50e66af1d"),
                5: _choice(2, "475a3e9600c17860"),
            },
        ),
        Quiz(
            "03",
            {
                1: _choice(3, "f706bc20aa01c0e8"),
                2: _choice(2, "9a5d6ee2464a9ba5"),
                3: _number("728b2a228d59b7e6"),
                4: _number("848329f6cc4ffde3"),
                5: _choice(2, "9e879addfdcecd2d"),
            },
        ),
        Quiz(
            "04",
            {
                1: _number("3bfa62bd2659dc78"),
                2: _choice(3, "9a5d6ee2464a9ba5"),
                3: _choice(3, "880974f87f91830f"),
                4: _choice(3, "53804e0fb7b3d29e"),
                5: _word("a243f3ac315ba126"),
            },
        ),
        Quiz(
            "05",
            {
                1: _number("e3589a8307df8da5"),
                2: _number("099aac3dd8ab7023"),
                3: _choice(3, "880974f87f91830f"),
                4: _choice(3, "53804e0fb7b3d29e"),
                5: _word("a243f3ac315ba126"),
            },
        ),
        Quiz(
            "06",
            {
                1: _choice(3, "f706bc20aa01c0e8"),
                2: _choice(2, "9a5d6ee2464a9ba5"),
                3: _choice(2, "880974f87f91830f"),
                4: _choice(2, "17a5d5e50e66af1d"),
                5: _word("05b3ac60340dfc1e"),
            },
        ),
        Quiz(
            "07",
            {
                1: _choice(3, "2ce2b8341a7e01c4"),
                2: _word("033db43eb8e22464"),
                3: _choice(2, "880974f87f91830f"),
                4: _choice(2, "17a5d5e50e66af1d"),
            },
        ),
    )
}
"""Every notebook's quiz by its number; the questions themselves are in the notebook's markdown."""

# What else a student may type for an option, by edition: a letter that looks like it (a Cyrillic «а»
# for a), or the Latin letter of the same place or sound (b for «б», v for «в»). Position 0 is a).
_ALIASES: dict[str, dict[str, int]] = {
    "en": {"а": 0, "в": 1, "с": 2, "е": 4},
    "ru": {"a": 0, "b": 1, "c": 2, "v": 2, "с": 2, "g": 3, "d": 4, "e": 5},
}
# Words that mean the right word, by edition: "before" is «до» in Russian, a str is «строка».
_SYNONYMS: dict[str, dict[str, str]] = {
    "en": {"string": "str", "<class 'str'>": "str"},
    "ru": {
        "string": "str",
        "<class 'str'>": "str",
        "строка": "str",
        "строкой": "str",
        "до": "before",
        "перед": "before",
        "раньше": "before",
        "после": "after",
        "позже": "after",
    },
}
_QUOTES = "'\"`«»“”„"
_LETTER = re.compile(r"^\(?\s*([^\W\d_])\s*(?:[).:,]|$)")


def _text(answer: object) -> str | None:
    """What was typed, lower case with single spaces; None if it cannot be read as text at all."""
    try:
        if isinstance(answer, bool):
            text = str(answer)
        elif isinstance(answer, float) and math.isfinite(answer) and answer.is_integer():
            text = str(int(answer))
        else:
            text = str(answer)
    except Exception:  # a student's object whose __str__ raises is an answer we cannot read, not a crash
        return None
    if not isinstance(text, str):
        return None
    return " ".join(text[: LONGEST * 2].split()).lower().strip(_QUOTES + " ")


def read_answer(answer: object, question: Question, lang: str | None = None) -> tuple[str | None, str | None]:
    """``(canonical answer, None)``, or ``(None, why it cannot be read)``; ``("", None)`` for no answer.

    A choice becomes the position's Latin letter ("a", "b", ...), whatever letters the edition shows;
    a number becomes its digits; a word is looked up among the language's synonyms."""
    lang = resolve_language(lang)
    texts = strings(lang).exercises
    if answer is None:
        return "", None
    text = _text(answer)
    if text is None or len(text) > LONGEST:
        return None, texts.quiz_unreadable
    if text == "":
        return "", None
    if question.kind == "choice":
        return _read_choice(text, question.options, texts, _ALIASES[lang])
    if question.kind == "number":
        return _read_number(text, texts)
    word = text.rstrip(".!,;:").strip(_QUOTES + " ")
    return _SYNONYMS[lang].get(word, word), None


def _read_choice(
    text: str, options: int, texts: ExerciseTexts, aliases: dict[str, int]
) -> tuple[str | None, str | None]:
    shown = texts.quiz_letters[:options]
    listed = texts.quiz_or.format(some=", ".join(shown[:-1]), last=shown[-1])
    found = _LETTER.match(text)
    letter = found.group(1) if found else None
    position = texts.quiz_letters.find(letter) if letter else -1
    if letter and position < 0:
        position = aliases.get(letter, -1)
    if position < 0:
        return None, texts.quiz_not_a_letter.format(letters=listed)
    if position >= options:
        return None, texts.quiz_no_such_option.format(letter=texts.quiz_letters[position], letters=listed)
    return "abcdefgh"[position], None


def _read_number(text: str, texts: ExerciseTexts) -> tuple[str | None, str | None]:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None, texts.quiz_not_a_number
    if not math.isfinite(value) or not value.is_integer():
        return None, texts.quiz_not_a_number
    return str(int(value)), None


def _given(answers: Mapping[object, object], question: int) -> object:
    """The answer to ``question``, under the key 1 or "1"; a mapping that raises holds no answer."""
    try:
        if question in answers:
            return answers[question]
        return answers.get(str(question))
    except Exception:  # a hostile mapping is read as no answer, not a crash
        return None


def check_quiz(answers: object, quiz: str | Quiz, lang: str | None = None) -> str:
    """One line per question, then "✓ solved" or "✗ not solved yet", in ``lang`` (``current_language()``
    when None). ``quiz`` is a notebook's number ("04") or a ``Quiz``."""
    lang = resolve_language(lang)
    texts = strings(lang).exercises
    chosen = QUIZZES[quiz] if isinstance(quiz, str) else quiz
    if not isinstance(answers, Mapping):
        kind = type(answers).__name__
        return texts.not_solved.format(detail=texts.quiz_not_a_dict.format(kind=kind))
    reasons = texts.quiz_why.get(chosen.name, {})
    lines = []
    right = 0
    for number, question in sorted(chosen.questions.items()):
        canonical, problem = read_answer(_given(answers, number), question, lang)
        if problem is not None or canonical is None:
            lines.append(texts.quiz_problem.format(question=number, problem=problem))
        elif canonical == "":
            lines.append(texts.quiz_unanswered.format(question=number))
        elif answer_digest(number, canonical) == question.digest:
            right += 1
            lines.append(texts.quiz_right.format(question=number))
        else:
            why = reasons.get(number, {})
            reason = why.get(canonical) or why.get("*") or texts.quiz_read_again
            given = _shown(canonical, question, texts) if question.kind == "choice" else _typed(_given(answers, number))
            lines.append(texts.quiz_wrong.format(question=number, given=given, why=reason))
    count = len(chosen.questions)
    if right == count:
        lines.append(texts.solved.format(detail=texts.quiz_solved.format(count=count)))
    else:
        lines.append(texts.not_solved.format(detail=texts.quiz_not_solved.format(right=right, count=count)))
    return "\n".join(lines)


def _shown(canonical: str, question: Question, texts: ExerciseTexts) -> str:
    """A wrong option as the edition letters it: «б)» in the Russian edition, b) in the English."""
    return texts.quiz_letters["abcdefgh".index(canonical)] + ")"


def _typed(answer: object) -> str:
    """A wrong number or word as the student typed it (read as text), at most 40 characters."""
    text = _text(answer) or "?"
    return text if len(text) <= 40 else text[:39] + "…"
