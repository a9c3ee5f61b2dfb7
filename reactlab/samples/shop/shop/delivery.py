"""Delivery price for the tutorial shop."""

import json
from pathlib import Path

DEFAULTS = {"delivery_price": 300, "free_delivery_from": None}


def load_settings():
    """Shop settings, with defaults for anything the file leaves out."""
    settings_path = Path("settings.json")
    if not settings_path.exists():
        return dict(DEFAULTS)
    values = json.loads(settings_path.read_text(encoding="utf-8"))
    return {**DEFAULTS, **values}


def delivery_price(order_total):
    """What the customer pays for delivery of an order worth ``order_total`` roubles."""
    if order_total < 0:
        raise ValueError("order total cannot be negative")
    settings = load_settings()
    threshold = settings["free_delivery_from"]
    if threshold is not None and order_total >= threshold:
        return 0
    return settings["delivery_price"]
