"""The one place the bot reads its environment (docs/DESIGN.md, "Contracts": Bot).

Everything else in ``bot`` and ``advisor`` receives these values as arguments.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.admin import CatalogAdminSettings
from bot.pilots_policy import PilotSettings

DEFAULT_PORT = 3000
DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_STATE_DB = "state.db"  # gitignored (/state.db*); never the committed catalog
# Answers are CPU-bound pure Python (~7 ms each), so more threads only contend with the acks for
# the GIL. Measured with benchmarks/load.py at 100 requests/s on this 2-core machine: 4 workers
# gave ack p99 403 ms, 2 workers 52 ms, with the same answer throughput (60-68 answers/s).
DEFAULT_ANSWER_WORKERS = 2
# Fake-tensor traces take seconds to a minute and all CPU (docs/DESIGN.md: 8B ~3 s, 70B ~10 s+);
# one at a time keeps answers responsive while a trace runs.
DEFAULT_HEAVY_WORKERS = 1


class SettingsError(ValueError):
    """The environment does not describe a bot we can start; the message says what to set."""


@dataclass(frozen=True)
class Settings:
    bot_token: str
    signing_secret: str | None
    app_token: str | None
    port: int
    api_url: str
    catalog_path: Path | None
    state_db: Path
    log_level: str = "INFO"
    answer_workers: int = DEFAULT_ANSWER_WORKERS
    heavy_workers: int = DEFAULT_HEAVY_WORKERS
    pilots: PilotSettings | None = None  # ADVISOR_PILOT_* (bot.pilots_policy); None: safe defaults
    catalog_admins: frozenset[str] = frozenset()  # ADVISOR_CATALOG_ADMINS; empty: nobody
    hub_endpoint: str | None = None  # HF_ENDPOINT: the Hugging Face Hub (or mirror) for model ids in chat
    hub_cache: str | None = None  # HF_HUB_CACHE (or HF_HOME/hub): huggingface_hub's file cache
    hub_token: str | None = None  # HF_TOKEN: for gated models

    @property
    def socket_mode(self) -> bool:
        return self.app_token is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        bot_token = env.get("SLACK_BOT_TOKEN", "").strip()
        if not bot_token:
            raise SettingsError("SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token "
                                "(xoxb-...) from your Slack app's 'OAuth & Permissions' page.")
        app_token = env.get("SLACK_APP_TOKEN", "").strip() or None
        secret = env.get("SLACK_SIGNING_SECRET", "").strip() or None
        if app_token is None and secret is None:
            raise SettingsError("HTTP mode needs SLACK_SIGNING_SECRET (Basic Information -> App "
                                "Credentials), or set SLACK_APP_TOKEN (xapp-...) for Socket Mode.")
        if app_token is not None and not app_token.startswith("xapp-"):
            raise SettingsError("SLACK_APP_TOKEN must be an app-level token starting with "
                                "'xapp-' (Basic Information -> App-Level Tokens, scope "
                                "connections:write).")
        return cls(
            bot_token=bot_token,
            signing_secret=secret,
            app_token=app_token,
            port=_int(env, "PORT", DEFAULT_PORT, 1, 65535),
            api_url=normalize_api_url(env.get("SLACK_API_URL", "").strip() or DEFAULT_API_URL),
            catalog_path=Path(env["ADVISOR_CATALOG"]) if env.get("ADVISOR_CATALOG") else None,
            state_db=Path(env.get("ADVISOR_STATE_DB", "").strip() or DEFAULT_STATE_DB),
            log_level=env.get("LOG_LEVEL", "INFO").upper(),
            answer_workers=_int(env, "ADVISOR_BOT_WORKERS", DEFAULT_ANSWER_WORKERS, 1, 64),
            heavy_workers=_int(env, "ADVISOR_BOT_HEAVY_WORKERS", DEFAULT_HEAVY_WORKERS, 1, 16),
            pilots=_pilot_settings(env),
            catalog_admins=CatalogAdminSettings.from_env(env).admins,
            hub_endpoint=env.get("HF_ENDPOINT", "").strip() or None,
            hub_cache=env.get("HF_HUB_CACHE", "").strip() or (
                str(Path(env["HF_HOME"]) / "hub") if env.get("HF_HOME", "").strip() else None),
            hub_token=env.get("HF_TOKEN", "").strip() or None,
        )


def _pilot_settings(env: Mapping[str, str]) -> PilotSettings:
    try:
        return PilotSettings.from_env(env)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


def normalize_api_url(url: str) -> str:
    """slack_sdk joins method names onto the base URL, so it must end with '/'."""
    if not url.startswith(("http://", "https://")):
        raise SettingsError(f"SLACK_API_URL must be an http(s) URL such as {DEFAULT_API_URL}; got {url!r}")
    return url if url.endswith("/") else url + "/"


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}; got {raw!r}") from None
    if not low <= value <= high:
        raise SettingsError(f"{name} must be from {low} to {high}; got {value}")
    return value
