"""The one place the bot reads its environment (docs/DESIGN.md, "Contracts": Bot): one
``pydantic-settings`` model, read from the environment and from a ``.env`` file in the working
directory (pydantic-settings docs, "Dotenv (.env) support"; the environment wins over the file).

Everything else in ``bot`` and ``advisor`` receives these values as arguments. A setting that
cannot start a bot raises :class:`SettingsError` with what to set, never a pydantic traceback.

    settings = Settings.from_env()               # os.environ + ./.env
    settings = Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-...", ...})   # exactly this mapping
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.pilot.policy import (DEFAULT_COST_CAP_USD, DEFAULT_DAILY_BUDGET_USD, DEFAULT_STEPS, PilotPolicy,
                               PilotSettings, id_list)

DEFAULT_PORT = 3000
DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_STATE_DB = "state.db"  # gitignored (/state.db*); never the committed catalog
# Answers are CPU-bound pure Python (~7 ms each), so more threads per process only contend with
# the acks for the GIL. Measured with benchmarks/load.py at 100 requests/s on this 2-core machine:
# 4 workers gave ack p99 403 ms, 2 workers 52 ms, with the same answer throughput (60-68 answers/s).
DEFAULT_ANSWER_WORKERS = 2
# Fake-tensor traces take seconds to a minute and all CPU (docs/DESIGN.md: 8B ~3 s, 70B ~10 s+);
# one at a time keeps answers responsive while a trace runs.
DEFAULT_HEAVY_WORKERS = 1
# HTTP mode: gunicorn worker processes (each its own interpreter, so answers computed in one do
# not hold the GIL against acks in the other) and threads per process for the acks. gunicorn's
# docs ("How Many Workers?") suggest 2-4 per core; two keep a 2-core machine responsive while
# the answer workers compute.
DEFAULT_WEB_WORKERS = 2
DEFAULT_WEB_THREADS = 8
# gunicorn's worker timeout: a worker silent for this long is killed and replaced (docs,
# "timeout"); an ack takes milliseconds, so 30 s only catches a stuck process.
DEFAULT_WEB_TIMEOUT_S = 30
# What reaches a pilot runner's environment: never SLACK_*, never these (names or fnmatch
# patterns): the state database URL carries its password.
DEFAULT_CHILD_ENV_DENY = "ADVISOR_STATE_URL,DATABASE_URL,PGPASSWORD,RAY_AUTH_TOKEN,*_SECRET,*_SECRET_KEY,*PASSWORD*"

_EXACT: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar("settings_mapping", default=None)


class SettingsError(ValueError):
    """The environment does not describe a bot we can start; the message says what to set."""


def _env(name: str, **kw: Any) -> Any:
    return Field(validation_alias=name, **kw)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True,
                                      case_sensitive=True, env_ignore_empty=True, populate_by_name=False)

    bot_token: str | None = _env("SLACK_BOT_TOKEN", default=None)
    signing_secret: str | None = _env("SLACK_SIGNING_SECRET", default=None)
    app_token: str | None = _env("SLACK_APP_TOKEN", default=None)
    port: int = _env("PORT", default=DEFAULT_PORT)
    api_url: str = _env("SLACK_API_URL", default=DEFAULT_API_URL)
    catalog_path: Path | None = _env("ADVISOR_CATALOG", default=None)
    state_db: Path = _env("ADVISOR_STATE_DB", default=Path(DEFAULT_STATE_DB))
    state_url: str | None = _env("ADVISOR_STATE_URL", default=None)
    log_level: str = _env("LOG_LEVEL", default="INFO")
    answer_workers: int = _env("ADVISOR_BOT_WORKERS", default=DEFAULT_ANSWER_WORKERS)
    heavy_workers: int = _env("ADVISOR_BOT_HEAVY_WORKERS", default=DEFAULT_HEAVY_WORKERS)
    web_workers: int = _env("ADVISOR_WEB_WORKERS", default=DEFAULT_WEB_WORKERS)
    web_threads: int = _env("ADVISOR_WEB_THREADS", default=DEFAULT_WEB_THREADS)
    web_timeout_s: int = _env("ADVISOR_WEB_TIMEOUT_S", default=DEFAULT_WEB_TIMEOUT_S)
    slack_retry_s: float = _env("ADVISOR_SLACK_RETRY_S", default=30.0)
    slack_timeout_s: int = _env("ADVISOR_SLACK_TIMEOUT_S", default=10)
    startup_retry_s: float = _env("ADVISOR_STARTUP_RETRY_S", default=60.0)
    outbox_lease_s: float = _env("ADVISOR_OUTBOX_LEASE_S", default=30.0)
    outbox_poll_s: float = _env("ADVISOR_OUTBOX_POLL_S", default=0.5)
    verify_edit_interval_s: float = _env("ADVISOR_VERIFY_EDIT_INTERVAL_S", default=3.0, ge=0, le=60)
    catalog_admins_raw: str = _env("ADVISOR_CATALOG_ADMINS", default="")
    pilot_users: str = _env("ADVISOR_PILOT_USERS", default="")
    pilot_groups: str = _env("ADVISOR_PILOT_GROUPS", default="")
    pilot_admins: str = _env("ADVISOR_PILOT_ADMINS", default="")
    pilot_channels: str = _env("ADVISOR_PILOT_CHANNELS", default="")
    pilot_cost_cap_usd: float = _env("ADVISOR_PILOT_COST_CAP_USD", default=DEFAULT_COST_CAP_USD)
    pilot_daily_budget_usd: float = _env("ADVISOR_PILOT_DAILY_BUDGET_USD", default=DEFAULT_DAILY_BUDGET_USD)
    pilot_steps: int = _env("ADVISOR_PILOT_STEPS", default=DEFAULT_STEPS)
    pilot_launcher: str = _env("ADVISOR_PILOT_LAUNCHER", default="local")
    pilot_dir: str = _env("ADVISOR_PILOT_DIR", default="pilot-runs")
    # the option table: Slack's table block ("table"), or the ``` monospace table for a workspace
    # whose clients do not render table blocks ("monospace"; bot.render.answer.render_answer)
    table_layout: str = _env("ADVISOR_TABLE_LAYOUT", default="table")
    ray_address: str | None = _env("RAY_ADDRESS", default=None)
    child_env_deny_raw: str = _env("ADVISOR_CHILD_ENV_DENY", default=DEFAULT_CHILD_ENV_DENY)
    hub_endpoint: str | None = _env("HF_ENDPOINT", default=None)  # the Hugging Face Hub (or a mirror)
    hub_cache_raw: str | None = _env("HF_HUB_CACHE", default=None)  # huggingface_hub's file cache
    hf_home: str | None = _env("HF_HOME", default=None)  # ... or HF_HOME/hub
    hub_token: str | None = _env("HF_TOKEN", default=None)  # for gated models
    max_gpus: int = _env("ADVISOR_MAX_GPUS", default=8, ge=1, le=4096)  # advisor.catalog.shapes.DEFAULT_MAX_GPUS

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource):
        if _EXACT.get() is not None:  # Settings.from_env(mapping): that mapping and nothing else
            return (init_settings,)
        return (init_settings, env_settings, dotenv_settings)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """The settings from ``env`` (exactly that mapping), or from the environment and ``.env``."""
        token = None
        try:
            if env is None:
                return cls()
            token = _EXACT.set(env)
            names = {f.validation_alias for f in cls.model_fields.values()}
            return cls(**{k: v for k, v in env.items() if k in names and str(v).strip() != ""})
        except ValidationError as exc:
            raise SettingsError(_friendly(exc)) from None
        finally:
            if token is not None:
                _EXACT.reset(token)

    # --- validation with messages a person can act on -------------------------------------------

    @field_validator("bot_token", "signing_secret", "app_token", "state_url", "ray_address", "log_level",
                     "pilot_launcher", "pilot_dir", "hub_endpoint", "hub_cache_raw", "hf_home", "hub_token",
                     mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value

    @field_validator("port", "answer_workers", "heavy_workers", "web_workers", "web_threads", "web_timeout_s",
                     "slack_timeout_s", "pilot_steps", mode="before")
    @classmethod
    def _whole(cls, value: Any, info: Any) -> int:
        low, high = _RANGES[info.field_name]
        name = cls.model_fields[info.field_name].validation_alias
        try:
            number = int(str(value).strip())
        except ValueError:
            raise ValueError(f"{name} must be a whole number from {low} to {high}; got {value!r}") from None
        if not low <= number <= high:
            raise ValueError(f"{name} must be from {low} to {high}; got {number}")
        return number

    @field_validator("slack_retry_s", "startup_retry_s", "outbox_lease_s", "outbox_poll_s", "pilot_cost_cap_usd",
                     "pilot_daily_budget_usd", mode="before")
    @classmethod
    def _number(cls, value: Any, info: Any) -> float:
        name = cls.model_fields[info.field_name].validation_alias
        unit = "US dollars (e.g. 5)" if "usd" in info.field_name else "seconds"
        try:
            number = float(str(value).strip())
        except ValueError:
            raise ValueError(f"{name} must be a number of {unit}; got {value!r}") from None
        if number < 0 or number != number:
            raise ValueError(f"{name} cannot be negative; got {value!r}")
        return number

    @field_validator("api_url", mode="before")
    @classmethod
    def _api_url(cls, value: Any) -> str:
        return normalize_api_url(str(value).strip() or DEFAULT_API_URL)

    @model_validator(mode="after")
    def _mode(self) -> "Settings":
        if not self.bot_token:
            raise ValueError("SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token (xoxb-...) from your "
                             "Slack app's 'OAuth & Permissions' page.")
        if self.app_token is None and self.signing_secret is None:
            raise ValueError("HTTP mode needs SLACK_SIGNING_SECRET (Basic Information -> App Credentials), or set "
                             "SLACK_APP_TOKEN (xapp-...) for Socket Mode.")
        if self.app_token is not None and not self.app_token.startswith("xapp-"):
            raise ValueError("SLACK_APP_TOKEN must be an app-level token starting with 'xapp-' (Basic Information "
                             "-> App-Level Tokens, scope connections:write).")
        if self.pilot_launcher not in ("local", "ray"):
            raise ValueError(f"ADVISOR_PILOT_LAUNCHER must be local or ray; got {self.pilot_launcher!r}")
        if self.state_url is not None and not self.state_url.startswith(("postgresql://", "postgres://", "sqlite://")):
            raise ValueError("ADVISOR_STATE_URL must be a postgresql://user:password@host:5432/dbname URL "
                             f"(or sqlite:///path); got {self.state_url.split('@')[-1]!r}")
        if self.table_layout not in ("table", "monospace"):
            raise ValueError(f"ADVISOR_TABLE_LAYOUT must be table or monospace; got {self.table_layout!r}")
        if self.outbox_lease_s < 1:
            raise ValueError(f"ADVISOR_OUTBOX_LEASE_S must be at least 1 second; got {self.outbox_lease_s:g}")
        return self

    # --- what the rest of the bot reads ----------------------------------------------------------

    @property
    def socket_mode(self) -> bool:
        return self.app_token is not None

    @property
    def state_target(self) -> str:
        """The state database: ADVISOR_STATE_URL when set (PostgreSQL, shared by replicas), else
        the SQLite file ADVISOR_STATE_DB."""
        return self.state_url or str(self.state_db)

    @property
    def hub_cache(self) -> str | None:
        """huggingface_hub's cache: HF_HUB_CACHE, else HF_HOME/hub (huggingface_hub's own order)."""
        return self.hub_cache_raw or (str(Path(self.hf_home) / "hub") if self.hf_home else None)

    @property
    def catalog_admins(self) -> frozenset[str]:
        return id_list(self.catalog_admins_raw)

    @property
    def child_env_deny(self) -> tuple[str, ...]:
        return tuple(sorted(id_list(self.child_env_deny_raw)))

    @property
    def pilots(self) -> PilotSettings:
        policy = PilotPolicy(users=id_list(self.pilot_users), groups=id_list(self.pilot_groups),
                             admins=id_list(self.pilot_admins), channels=id_list(self.pilot_channels),
                             cost_cap_usd=self.pilot_cost_cap_usd, daily_budget_usd=self.pilot_daily_budget_usd)
        return PilotSettings(policy=policy, steps=self.pilot_steps, launcher=self.pilot_launcher,
                             ray_address=self.ray_address, workdir=self.pilot_dir)

    def redacted(self) -> dict[str, Any]:
        """For logs: every setting, secrets masked."""
        out = json.loads(self.model_dump_json())
        for name in ("bot_token", "signing_secret", "app_token", "hub_token"):
            if out.get(name):
                out[name] = out[name][:5] + "…"
        if out.get("state_url"):
            from advisor.statedb import redact

            out["state_url"] = redact(out["state_url"])
        return out


_RANGES = {"port": (1, 65535), "answer_workers": (0, 64), "heavy_workers": (0, 16), "web_workers": (1, 64),
           "web_threads": (1, 256), "web_timeout_s": (1, 3600), "slack_timeout_s": (1, 300),
           "pilot_steps": (1, 10_000)}


def _friendly(exc: ValidationError) -> str:
    messages = []
    for error in exc.errors():
        text = str(error.get("msg", "")).removeprefix("Value error, ")
        if error.get("type") != "value_error":
            where = ".".join(str(x) for x in error.get("loc", ()))
            text = f"{where}: {text}"
        messages.append(text)
    return "; ".join(messages)


def normalize_api_url(url: str) -> str:
    """slack_sdk joins method names onto the base URL, so it must end with '/'."""
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"SLACK_API_URL must be an http(s) URL such as {DEFAULT_API_URL}; got {url!r}")
    return url if url.endswith("/") else url + "/"
