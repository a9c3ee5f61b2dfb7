"""The visual layer: the article's five schemes, drawn from any run record, and two widgets.

Each scheme function returns a widget whose static fallback is the same self-contained HTML. The HTML
comes from autoescaping templates (``markup.py``, ``templates/``): every string of a run is escaped
wherever it lands, and a count is drawn only when it is a real number.
"""

from __future__ import annotations

from .base import SchemeView
from .be_the_model import BeTheModel
from .history import scheme3_history
from .loop import scheme1_loop
from .route import scheme5_route
from .sequence import scheme2_tool_call
from .stopping import scheme4_stopping
from .viewer import RunViewer

__all__ = [
    "BeTheModel",
    "RunViewer",
    "SchemeView",
    "scheme1_loop",
    "scheme2_tool_call",
    "scheme3_history",
    "scheme4_stopping",
    "scheme5_route",
]
