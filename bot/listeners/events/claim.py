"""A message is answered once, whichever event brings it first: an @mention inside a thread
arrives both as ``app_mention`` and as ``message`` (different event ids, same channel and ts)."""

from __future__ import annotations

from typing import Any

from bot.services import Services


def claim_message(services: Services, event: dict[str, Any]) -> bool:
    return services.store.claim(f"message:{event['channel']}:{event['ts']}", "message")
