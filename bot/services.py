"""What every listener and job needs, built once per process: the catalog, the advisor, the state
store, the Web API client and the outbox workers. Listeners get it from Bolt's
``context["services"]`` (a middleware puts it there), so they stay plain functions with a
``register(app)`` beside them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from advisor.catalog import Catalog
from bot.settings import Settings
from bot.store import StateStore

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.outbox import Outbox
    from bot.pilot.flow import PilotFlow  # the pilot wing (bot/pilot/): its listeners, jobs and watcher

# Traces waiting for the heavy workers before a new "Verify exactly" is told to click again
# later: each takes seconds to a minute, so a longer queue would only promise results that
# arrive long after anyone is looking.
MAX_PENDING_HEAVY = 8


class Asker(Protocol):
    """advisor.answer.Advisor's interface, as the bot uses it."""

    def ask(self, text: str, previous: Any = None, lang_hint: str | None = None) -> Any: ...


@dataclass
class Services:
    settings: Settings
    catalog: Catalog
    advisor: Asker
    store: StateStore
    client: "WebClient"
    outbox: "Outbox | None" = None
    pilots: "PilotFlow | None" = None
    extra: dict[str, Any] = field(default_factory=dict)

    def wake(self) -> None:
        """A job was just recorded by this process: its local workers take it at once."""
        if self.outbox is not None:
            self.outbox.notify()

    def heavy_backlog(self) -> int:
        return int((self.store.backlog().get("heavy") or {}).get("jobs", 0))

    def close(self) -> None:
        if self.outbox is not None:
            self.outbox.stop(timeout=2)
        if self.pilots is not None and hasattr(self.pilots, "stop"):
            self.pilots.stop()
        self.store.close()


def build_services(settings: Settings, client: "WebClient", *, advisor: Asker | None = None) -> Services:
    """Open the catalog and the state store, and make the advisor (no workers yet)."""
    catalog = Catalog.open(settings.catalog_path)
    store = StateStore(settings.state_target)
    if advisor is None:
        from advisor.answer import Advisor
        from advisor.hub import HubReader
        from advisor.pilot.calibration import PilotCalibration
        from advisor.pilot.store import PilotStore

        # measured pilots in the same state database calibrate every later answer; Hub configs
        # read for model ids in chat are cached in the SQLite state file (advisor.hub)
        models = HubReader(settings.state_db, endpoint=settings.hub_endpoint, cache_dir=settings.hub_cache,
                           token=settings.hub_token)
        advisor = Advisor(catalog, calibration=PilotCalibration(PilotStore(store.db)), models=models,
                          max_gpus=settings.max_gpus)
    from bot.home import HomeStore  # who asked what, and their language (the App Home tab)

    return Services(settings=settings, catalog=catalog, advisor=advisor, store=store, client=client,
                    extra={"home": HomeStore(store.db)})
