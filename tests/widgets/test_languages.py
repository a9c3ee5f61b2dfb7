"""The schemes, the run viewer and BeTheModel are drawn in the run's language (or the one asked
for): every label and caption said in it, none of the other language's left over."""

from __future__ import annotations

import re
import string

import pytest

from reactlab import Agent, RunRecord, default_tools
from reactlab.core.language import translate
from reactlab.core.prompts import SYSTEM_RU
from reactlab.samples import SHOP_FILES, shop_cassette, shop_task
from reactlab.widgets import (
    BeTheModel,
    RunViewer,
    scheme1_loop,
    scheme2_tool_call,
    scheme3_history,
    scheme4_stopping,
    scheme5_route,
)

from ..test_strings import NOTEBOOKS, PACKAGE, sentences
from .conftest import parse

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
SCHEMES = [scheme1_loop, scheme2_tool_call, scheme3_history, scheme4_stopping, scheme5_route]


def replay(shop, lang: str) -> RunRecord:
    """The shop run replayed from the cassette of ``lang`` (bash runs in the sandbox, or is replayed)."""
    agent = Agent(shop_cassette(lang).client(), default_tools(shop, SHOP_FILES, lang=lang), lang=lang)
    agent.run(shop_task(lang))
    assert agent.record is not None
    return agent.record


def pages(record: RunRecord, lang: str | None = None) -> dict[str, str]:
    """Every scheme (at every step where it has one), the viewer, as HTML."""
    drawn = {}
    for step in range(1, len(record.model_calls) + 1):
        drawn[f"loop {step}"] = scheme1_loop(record, step, lang=lang).value
        drawn[f"history {step}"] = scheme3_history(record, step, lang=lang).value
        drawn[f"route {step}"] = scheme5_route(record, step, lang=lang).value
        if record.executions_of(step):
            drawn[f"sequence {step}"] = scheme2_tool_call(record, step, lang=lang).value
    drawn["stopping"] = scheme4_stopping(record, lang=lang).value
    drawn["viewer"] = RunViewer(record, lang=lang).static_html()
    return drawn


def text_of(html: str) -> str:
    return " ".join(parse(html).itertext())


def flat(lang: str) -> list[str]:
    """Every sentence the widgets and the readings of results say (the stop phrases included), in ``lang``."""
    said = sentences(PACKAGE / "widgets") | sentences(PACKAGE / "run", NOTEBOOKS / "none")
    return [translate(english, lang=lang) for english in said]


def labels(lang: str) -> list[str]:
    """The words of each label of the schemes in ``lang``: the text between its {fields}."""
    table = flat(lang)
    chunks = [literal for text in table for literal, *_ in string.Formatter().parse(text)]
    return sorted({chunk.strip() for chunk in chunks if len(re.findall(r"\w{2,}", chunk)) >= 2})


@pytest.fixture(scope="module")
def runs():
    from reactlab import Workspace
    from reactlab.samples import SHOP_READ_ONLY, shop_path

    made = {}
    for lang in ("en", "ru"):
        with Workspace(shop_path(), SHOP_READ_ONLY) as shop:
            made[lang] = replay(shop, lang)
    return made


def test_a_russian_run_is_drawn_in_russian_by_default(runs):
    record = runs["ru"]
    assert record.lang == "ru"
    drawn = pages(record)
    titles = {"loop 1": "Схема 1 · Цикл агента", "sequence 2": "Схема 2 · Один вызов инструмента, обращение к модели 2",
              "history 5": "Схема 3 · Что уходит в запрос 5", "stopping": "Схема 4 · Когда агент останавливается",
              "route 5": "Схема 5 · Маршрут запуска", "viewer": "Просмотр запуска · answer"}  # fmt: skip
    for name, title in titles.items():
        assert title in text_of(drawn[name]), name
    russian = flat("ru")
    english = [label for label in labels("en") if not any(label in text for text in russian)]  # not "POST /chat…"
    assert len(english) > 60
    for name, html in drawn.items():
        text = text_of(html)
        left_over = [label for label in english if label in text]
        assert left_over == [], f"{name} still says {left_over}"
    assert "финальный ответ: Причина: load_settings()" in text_of(drawn["route 5"])
    assert "Шаг 5: модель вернула финальный ответ" in text_of(drawn["loop 5"])


def test_an_english_run_is_drawn_in_english_with_no_russian_at_all(runs):
    for name, html in pages(runs["en"]).items():
        assert not CYRILLIC.search(html), name
    assert runs["en"].lang == "en"


def test_the_language_asked_for_wins_over_the_runs(runs):
    assert not CYRILLIC.search(text_of(scheme4_stopping(runs["ru"], lang="en").value).replace(runs["ru"].answer, ""))
    russian = scheme4_stopping(runs["en"], lang="ru").value
    caption = "Этот запуск: обращений к модели\u00a0— 5 (лимит 8), выполнений инструментов\u00a0— 6 (лимит 16)"
    assert caption in text_of(russian)


def test_a_record_of_an_unknown_language_is_drawn_in_english(runs):
    record = RunRecord.from_dict({**runs["ru"].to_dict(), "lang": "<script>x</script>"})
    assert "Scheme 5 · The route of the run" in text_of(scheme5_route(record).value)
    older = runs["en"].to_dict()
    del older["lang"]  # a record saved before records had a language
    assert RunRecord.from_dict(older).lang == "en"


def test_the_viewer_controls_and_names_are_in_the_language(runs):
    viewer = RunViewer(runs["ru"])
    assert (viewer.slider.description, viewer.previous.description, viewer.next.description) == (
        "шаг",
        "◀ назад",
        "вперёд ▶",
    )
    assert repr(scheme1_loop(runs["ru"], 2)) == "<Схема 1: цикл на шаге 2>"
    assert repr(scheme1_loop(runs["en"], 2)) == "<Scheme 1: loop at step 2>"


@pytest.mark.parametrize("lang", ["de", "EN", ""])
def test_an_unknown_language_is_a_value_error(runs, lang):
    for draw in SCHEMES:
        with pytest.raises(ValueError, match="'en' or 'ru'"):
            draw(runs["en"], lang=lang)
    with pytest.raises(ValueError, match="'en' or 'ru'"):
        RunViewer(runs["en"], lang=lang)


def test_be_the_model_in_russian(shop):
    widget = BeTheModel(default_tools(shop, SHOP_FILES, lang="ru"), shop_task("ru"), lang="ru")
    try:
        assert "Запрос 1 ждёт вас" in widget.status.value and "нужно работающее ядро" in widget.status.value
        assert widget.agent.system == SYSTEM_RU
        assert (widget.tool.description, widget.send.description) == ("ответ", "отправить как модель")
        widget.reply_with_tool("read_file", "{broken")
        assert widget.record.tool_executions[-1].result["error"].startswith("Аргументы не разбираются как JSON")
        widget.tool.value = "(финальный ответ)"
        widget.text.value = "Готово."
        widget.send.click()
        assert widget.finished and "Готово: финальный ответ получен, обращений к модели: 2." in widget.status.value
        assert "Схема 5 · Маршрут запуска" in text_of(widget.view.value)
    finally:
        widget.close()
    with pytest.raises(ValueError, match="'en' or 'ru'"):
        BeTheModel([], "task", lang="fr")
