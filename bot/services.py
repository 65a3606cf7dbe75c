"""What every listener needs, built once per process: the catalog, the advisor, the state store
and the work pools. Listeners get it from Bolt's ``context["services"]`` (a middleware puts it
there), so they stay plain functions with a ``register(app)`` beside them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from advisor.catalog import Catalog
from bot.settings import Settings
from bot.store import StateStore
from bot.work import ErrorHandler, WorkPool

if TYPE_CHECKING:
    from slack_sdk import WebClient

# Answers waiting for a worker before new questions are told "busy": 100 requests/s for a few
# seconds (issue 8's burst) fits; beyond that, a prompt "busy" beats an answer minutes late.
MAX_PENDING_ANSWERS = 1000
# Traces and charts waiting for the heavy worker: each takes seconds, so a longer queue would
# only promise results that arrive long after anyone is looking.
MAX_PENDING_HEAVY = 8


class Asker(Protocol):
    """advisor.answer.Advisor's interface, as the bot uses it."""

    def ask(self, text: str, previous: Any = None) -> Any: ...


class PilotFlow(Protocol):
    """The pilot flow (bot/pilots*, a later part) plugs in here: it registers its own listeners
    (the "Run pilot" button, confirmation, progress edits) and starts a pilot for
    ``/finetune pilot <text>``."""

    def register(self, app: Any) -> None: ...

    def start_from_command(self, services: "Services", client: "WebClient", command: dict[str, Any],
                           text: str, lang: str) -> None: ...


@dataclass
class Services:
    settings: Settings
    catalog: Catalog
    advisor: Asker
    store: StateStore
    answers: WorkPool
    heavy: WorkPool
    pilots: PilotFlow | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        self.answers.shutdown(wait=False)
        self.heavy.shutdown(wait=False)
        self.store.close()


def build_services(settings: Settings, on_error: ErrorHandler, *, advisor: Asker | None = None) -> Services:
    """Open the catalog and the state store, and make the advisor and the pools."""
    catalog = Catalog.open(settings.catalog_path)
    if advisor is None:
        from advisor.answer import Advisor
        from advisor.hub import HubReader
        from advisor.pilot.calibration import PilotCalibration
        from advisor.pilot.store import PilotStore

        # measured pilots in the same state database calibrate every later answer; Hub configs
        # read for model ids in chat are kept there too (advisor.hub)
        models = HubReader(settings.state_db, endpoint=settings.hub_endpoint, cache_dir=settings.hub_cache,
                           token=settings.hub_token)
        advisor = Advisor(catalog, calibration=PilotCalibration(PilotStore(settings.state_db)), models=models)
    return Services(
        settings=settings,
        catalog=catalog,
        advisor=advisor,
        store=StateStore(settings.state_db),
        answers=WorkPool("answers", settings.answer_workers, MAX_PENDING_ANSWERS, on_error),
        heavy=WorkPool("heavy", settings.heavy_workers, MAX_PENDING_HEAVY, on_error),
    )
