"""The one helper the scenario builders share: optional fields left out when None (so the
engine's default applies and the echo shows what was set)."""

from __future__ import annotations

from typing import Any


def opt(d: dict[str, Any], **kw: Any) -> dict[str, Any]:
    d.update({k: v for k, v in kw.items() if v is not None})
    return d
