"""Re-record the shop cassette from the script, against the real tools: python -m reactlab.samples"""

from __future__ import annotations

from ..cassette import RecordingTransport
from ..client import DeepSeekClient
from ..runner import run_in_copy
from . import SHOP_FILES, SHOP_READ_ONLY, shop_cassette_path, shop_path, shop_script, shop_task

recorder = RecordingTransport(shop_script().transport())
outcome = run_in_copy(
    shop_path(), shop_task(), DeepSeekClient(api_key="", transport=recorder), read_only=SHOP_READ_ONLY, files=SHOP_FILES
)
outcome.workspace.cleanup()
if outcome.error is not None:
    raise SystemExit(f"the scripted shop run failed: {outcome.error}")
cassette = recorder.cassette(
    "The article's shop run: 3 read_file calls in one answer, bash (tests FAIL), edit, bash (tests OK), "
    "a final answer. Answers are scripted; the requests hold real tool results from a sandboxed run.",
    source="scripted",
)
print(f"wrote {cassette.save(shop_cassette_path())} ({len(cassette.interactions)} interactions)")
