"""The notebooks' quizzes: a student's answers checked against salted digests, with a reason for
every wrong option, in the reader's language.

    print(check_quiz(quiz, "01"))     # "✓ 1: right" ... "✗ 3: not a): <why>" ... "✗ not solved yet: ..."

A question is a choice (options lettered a, b, c; in Russian а, б, в), a number, or a word. What the
student typed is read leniently and never trusted: "B", " b) ", "(b)" and "b) one after another" are
option b; "3.0" is 3; "`id`" is id; in Russian «в» is the third option and «до» means «before».
Whatever a quiz's dict holds (an object whose ``str`` raises, a list, a key typed as "1"), the check
says what it could not read and never raises. The key holds digests, so reading it does not give the
answers away; the reasons (``QUIZ_WHY``) are given for wrong answers, each
keyed by what was typed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..core.language import Language, resolve_language, say, translatable

__all__ = ["QUIZZES", "QUIZ_WHY", "Question", "Quiz", "answer_digest", "check_quiz", "read_answer"]

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
QUIZ_WHY: dict[str, dict[int, dict[str, str]]] = {
    "01": {
        1: {
            "a": translatable(
                "the model only writes a request, a tool name and arguments; it has no access to your disk"
            ),
            "c": translatable(
                "that is the plain application; in an agent the first request holds no file, the model asks for it"
            ),
        },
        2: {
            "dict": translatable("a dict is what json.loads makes of it; it arrives as JSON text"),
            "*": translatable("look at the cell that prints type(raw).__name__: the arguments arrive as JSON text"),
        },
        3: {
            "a": translatable("nothing is deleted: the agent finds no tool of that name, so no code runs"),
            "c": translatable(
                "the run goes on: the error becomes a result the model reads, and it may try something else"
            ),
        },
        4: {
            "b": translatable(
                "a JSON Schema describes a tool's arguments for the API; the paper's text format had none"
            ),
            "c": translatable(
                "tool_call_id ties a result to a call in the API's format; the paper's text format had no ids"
            ),
        },
        5: {
            "a": translatable(
                'that is the "Agent" of Scheme 1; in Scheme 2 the model and the tool have lanes of their own, so '
                "the Agent lane is only the part between them"
            ),
        },
    },
    "02": {
        1: {
            "12": translatable("12 is request 5; request 4 holds what came before it: 2 + 4 + 2 + 2"),
            "*": translatable(
                "count: system and user, then 4 for the first answer (the assistant message and 3 results), then 2 "
                "for each later answer"
            ),
        },
        2: {
            "a": translatable("the system message holds rules; the definitions travel in a field of their own, tools"),
            "c": translatable("the model remembers nothing between requests, so the definitions go with every one"),
        },
        3: {
            "a": translatable(
                "they run one after another, and each result is a tool message of its own, with its call's id"
            ),
            "c": translatable("every call of an answer runs; the model does not have to ask again"),
        },
        4: {
            "a": translatable("appending sends nothing; the whole history goes out at the next turn of the loop"),
        },
        5: {
            "b": translatable(
                "the newest result first changes the beginning of every request, so no prefix repeats and the cache "
                "misses"
            ),
        },
    },
    "03": {
        1: {
            "a": translatable("a blank text is not an answer, and the loop does not pretend it is"),
            "b": translatable("the loop does not ask again by itself: no calls and no text ends the run as an error"),
        },
        2: {
            "a": translatable(
                "a timeout is a result, like a missing file: the model reads timed_out: true and decides"
            ),
        },
        3: {
            "9": translatable("the ninth answer is never asked for: the for over the allowed steps ends first"),
            "*": translatable("max_steps is 8 by default: the loop asks the model at most eight times"),
        },
        4: {
            "1": translatable("the limit is checked before any call of the answer runs: the answer is refused whole"),
            "*": translatable("2 more would make 17, so the answer is refused whole, before any of its calls runs"),
        },
        5: {
            "a": translatable(
                "finish_reason 'length' means it was cut off at max_tokens: half an answer cannot be trusted"
            ),
        },
    },
    "04": {
        1: {
            "3": translatable(
                "not one per result: the three results are appended without asking the model; the next turn sends "
                "them all at once"
            ),
            "*": translatable(
                "executing calls and appending results sends nothing; the next request goes out at the next turn of "
                "the loop"
            ),
        },
        2: {
            "a": translatable("the assistant message that asked comes first: a result follows the call it answers"),
            "c": translatable("each call gets a tool message of its own, with that call's id in tool_call_id"),
        },
        3: {
            "a": translatable("the limit is checked before any call of the answer runs: the answer is refused whole"),
            "c": translatable(
                "it is checked before the calls run, not at the next answer: 17 calls would pass the limit"
            ),
        },
        4: {
            "a": translatable("a blank text is not an answer: the loop raises EmptyAnswer"),
            "b": translatable("the loop does not ask again by itself: no calls and no text ends the run as an error"),
        },
        5: {
            "id": translatable("id is the call's own field; the tool message repeats it under another name"),
            "*": translatable("it is the field that carries the id of the call: look at a tool message in section 4"),
        },
    },
    "05": {
        1: {
            "6": translatable("6 is the number of tool executions: the first answer asked for three reads at once"),
            "*": translatable("count the numbered columns of Scheme 5: one per model call"),
        },
        2: {
            "5": translatable("5 is the number of model calls; the first of them asked for three reads"),
            "*": translatable("count the blue boxes of Scheme 5: three reads, two test runs and the edit"),
        },
        3: {
            "a": translatable("the tests failed: FAIL and 300 != 0 are in stdout"),
            "c": translatable("the sandbox returns the real exit code: that of tail, the last command of the pipeline"),
        },
        4: {
            "a": translatable("a final answer is a claim: the liar's run gives one without fixing anything"),
            "b": translatable("ok: true says only that the tool ran, nothing about the tests"),
        },
        5: {
            "id": translatable("id is the call's own field; the tool message repeats it under another name"),
            "*": translatable("it is the field of the tool message that repeats the call's id"),
        },
    },
    "06": {
        1: {
            "a": translatable("the prompt only asks; a model may ignore it, and a planted note may tell it otherwise"),
            "b": translatable("the task's words steer the model's choice; they do not stop a command"),
        },
        2: {
            "a": translatable(
                "the sandbox has a network namespace of its own: its 127.0.0.1 is not the host's, as the counting "
                "server showed"
            ),
        },
        3: {
            "a": translatable("reactlab never falls back to the host: without isolation, bash runs nothing"),
        },
        4: {
            "a": translatable(
                "for the loop, everything a tool returns is data passed to the model; it takes orders from no file"
            ),
        },
        5: {
            "before": translatable(
                "bound before, the read-only tests would be hidden under the writable copy bound over /work afterwards"
            ),
            "*": translatable("one word: before or after"),
        },
    },
    "07": {
        1: {
            "a": translatable("the key never goes in messages: the model does not need it, and messages are recorded"),
            "c": translatable("the recorder keeps bodies, never headers, so the key cannot reach the cassette"),
        },
        2: {
            "recorded": translatable("recorded is for answers that came from a live model"),
            "*": translatable("the value of the cassette's source field, in English: written by hand, not recorded"),
        },
        3: {
            "a": translatable(
                "replay compares each request with the recording first: other tools stop it with CassetteMismatch"
            ),
        },
        4: {
            "a": translatable("without a key or a server the notebook says so, and a scripted model stands in"),
        },
    },
}
"""Why an answer is wrong, by quiz ("04"), question and answer as read ("a", "3", "before"); "*"
for any other wrong answer to that question."""
_READ_AGAIN = translatable("read the question again")

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
    if answer is None:
        return "", None
    text = _text(answer)
    if text is None or len(text) > LONGEST:
        return None, say("this answer cannot be read: write a letter, a number or a word", lang=lang)
    if text == "":
        return "", None
    if question.kind == "choice":
        return _read_choice(text, question.options, lang, _ALIASES[lang])
    if question.kind == "number":
        return _read_number(text, lang)
    word = text.rstrip(".!,;:").strip(_QUOTES + " ")
    return _SYNONYMS[lang].get(word, word), None


def _read_choice(
    text: str, options: int, lang: Language | None, aliases: dict[str, int]
) -> tuple[str | None, str | None]:
    shown = say("abcdefgh", lang=lang)[:options]
    listed = say("{some} or {last}", lang=lang, some=", ".join(shown[:-1]), last=shown[-1])
    found = _LETTER.match(text)
    letter = found.group(1) if found else None
    position = say("abcdefgh", lang=lang).find(letter) if letter else -1
    if letter and position < 0:
        position = aliases.get(letter, -1)
    if position < 0:
        return None, say("answer with the option's letter: {letters}", lang=lang, letters=listed)
    if position >= options:
        return None, say(
            "there is no option {letter}) here: answer with {letters}",
            lang=lang,
            letter=say("abcdefgh", lang=lang)[position],
            letters=listed,
        )
    return "abcdefgh"[position], None


def _read_number(text: str, lang: Language | None) -> tuple[str | None, str | None]:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None, say("answer with a number", lang=lang)
    if not math.isfinite(value) or not value.is_integer():
        return None, say("answer with a number", lang=lang)
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
    chosen = QUIZZES[quiz] if isinstance(quiz, str) else quiz
    if not isinstance(answers, Mapping):
        kind = type(answers).__name__
        return say(
            "✗ not solved yet: {detail}",
            lang=lang,
            detail=say('quiz should be a dict of answers, like {{1: "b", 2: 3}}, not {kind}', lang=lang, kind=kind),
        )
    reasons = QUIZ_WHY.get(chosen.name, {})
    lines = []
    right = 0
    for number, question in sorted(chosen.questions.items()):
        canonical, problem = read_answer(_given(answers, number), question, lang)
        if problem is not None or canonical is None:
            lines.append(f"✗ {number}: {problem}")
        elif canonical == "":
            lines.append(say("· {question}: no answer yet", lang=lang, question=number))
        elif answer_digest(number, canonical) == question.digest:
            right += 1
            lines.append(say("✓ {question}: right", lang=lang, question=number))
        else:
            why = reasons.get(number, {})
            reason = say(why.get(canonical) or why.get("*") or _READ_AGAIN, lang=lang)
            given = _shown(canonical, question, lang) if question.kind == "choice" else _typed(_given(answers, number))
            lines.append(say("✗ {question}: not {given}: {why}", lang=lang, question=number, given=given, why=reason))
    count = len(chosen.questions)
    if right == count:
        lines.append(
            say("✓ solved: {detail}", lang=lang, detail=say("all {count} answers are right", lang=lang, count=count))
        )
    else:
        lines.append(
            say(
                "✗ not solved yet: {detail}",
                lang=lang,
                detail=say("{right} of {count} right", lang=lang, right=right, count=count),
            )
        )
    return "\n".join(lines)


def _shown(canonical: str, question: Question, lang: Language | None) -> str:
    """A wrong option as the edition letters it: «б)» in the Russian edition, b) in the English."""
    return say("abcdefgh", lang=lang)["abcdefgh".index(canonical)] + ")"


def _typed(answer: object) -> str:
    """A wrong number or word as the student typed it (read as text), at most 40 characters."""
    text = _text(answer) or "?"
    return text if len(text) <= 40 else text[:39] + "…"
