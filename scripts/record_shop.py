"""Re-record the shop cassettes from the script, against the real tools (bash needs the sandbox):

python -m reactlab.samples          # every language
python -m reactlab.samples ru       # only shop_run_ru.json
"""

from __future__ import annotations

import sys

from reactlab.core.client import DeepSeekClient
from reactlab.core.language import LANGUAGES, Language, check_language
from reactlab.replay.cassette import RecordingTransport
from reactlab.runner import run_in_copy
from reactlab.samples import SHOP, shop_script

_WHAT = (
    "The article's shop run: 3 read_file calls in one answer, bash (tests FAIL), edit, bash (tests OK), "
    "a final answer. Answers are scripted; the requests hold real tool results from a sandboxed run."
)
DESCRIPTION = {
    "en": _WHAT,
    "ru": (
        "Запуск на магазине из статьи, по-русски от начала до конца: 3 вызова read_file в одном "
        "ответе, bash (тесты FAIL), edit, bash (тесты OK), финальный ответ. Ответы модели написаны по "
        "сценарию (scripted), а не получены от модели; в запросах — настоящие результаты инструментов из "
        f"запуска в песочнице. / In Russian. {_WHAT}"
    ),
}


def record(lang: Language) -> None:
    recorder = RecordingTransport(shop_script(lang).transport())
    client = DeepSeekClient(api_key="", transport=recorder)
    outcome = run_in_copy(SHOP, client, lang=lang)
    outcome.workspace.cleanup()
    if outcome.error is not None:
        raise SystemExit(f"the scripted shop run ({lang}) failed: {outcome.error}")
    cassette = recorder.cassette(DESCRIPTION[lang], source="scripted")
    print(f"wrote {cassette.save(SHOP.cassette_path(lang))} ({len(cassette.interactions)} interactions)")


for language in [check_language(arg) for arg in sys.argv[1:]] or LANGUAGES:
    record(language)
