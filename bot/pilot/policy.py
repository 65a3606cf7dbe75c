"""Who may start pilots, where, and how much they may spend (the pilot flow's settings).

Safe by default: with nothing configured nobody may start a pilot, and the refusal says which
variables to set. ``bot.settings.Settings`` reads them (the one settings model) and builds
``Settings.pilots`` from:

    ADVISOR_PILOT_USERS            Slack user ids allowed to confirm pilots (comma-separated)
    ADVISOR_PILOT_GROUPS           Slack user group ids whose members may confirm
    ADVISOR_PILOT_ADMINS           user ids that may always confirm (and are named in refusals)
    ADVISOR_PILOT_CHANNELS         channel ids where pilots may run (empty: any channel)
    ADVISOR_PILOT_COST_CAP_USD     most one pilot may cost (default 5)
    ADVISOR_PILOT_DAILY_BUDGET_USD most all pilots of a UTC day may cost together (default 50)
    ADVISOR_PILOT_STEPS            measured steps of a pilot started from Slack (default 10)
    ADVISOR_PILOT_LAUNCHER         local (default) or ray; RAY_ADDRESS for ray
    ADVISOR_PILOT_DIR              where local pilot runs are written (default ./pilot-runs)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

# A pilot of 10 steps of a 70B QLoRA at 8k on one A100 is ~5 minutes, about $0.10-0.50; $5 is
# ten times the most expensive single-GPU pilot in the catalog and still a small surprise.
DEFAULT_COST_CAP_USD = 5.0
# Ten capped pilots a day: enough for a team's exploration, small next to one day of training.
DEFAULT_DAILY_BUDGET_USD = 50.0
DEFAULT_STEPS = 10
# Group membership is looked up through usergroups.users.list; cached this long.
GROUP_CACHE_S = 300.0


def id_list(raw: str | None) -> frozenset[str]:
    """Slack ids from a setting: separated by commas or semicolons, spaces ignored."""
    return frozenset(x.strip() for x in (raw or "").replace(";", ",").split(",") if x.strip())


@dataclass(frozen=True)
class PilotPolicy:
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    admins: frozenset[str] = frozenset()
    channels: frozenset[str] = frozenset()
    cost_cap_usd: float = DEFAULT_COST_CAP_USD
    daily_budget_usd: float = DEFAULT_DAILY_BUDGET_USD
    _group_cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def configured(self) -> bool:
        return bool(self.users or self.groups or self.admins)

    def channel_allowed(self, channel: str) -> bool:
        return not self.channels or channel in self.channels

    def may_confirm(self, user: str, members: Callable[[str], set[str]] | None = None) -> bool:
        """Allowed users and admins; members of allowed groups (``members(group)`` looks them up)."""
        if user in self.users or user in self.admins:
            return True
        if not self.groups or members is None:
            return False
        for group in self.groups:
            cached = self._group_cache.get(group)
            if cached is None or time.monotonic() - cached[0] > GROUP_CACHE_S:
                cached = (time.monotonic(), members(group))
                self._group_cache[group] = cached
            if user in cached[1]:
                return True
        return False

    def who_to_ask(self) -> str:
        people = [f"<@{u}>" for u in sorted(self.admins | self.users)]
        people += [f"<!subteam^{g}>" for g in sorted(self.groups)]
        return ", ".join(people[:10])

    def cost_problem(self, cost: float | None, spent_today: float, lang: str = "en") -> tuple[str, dict] | None:
        """(message key, fields) when a pilot of ``cost`` may not start; None when it may. The
        amounts are formatted in the thread's language ``lang`` (advisor.i18n.numbers.money)."""
        from advisor.format import usd

        if cost is None:
            return None
        if cost > self.cost_cap_usd:
            return "pilot.over_cap", {"cost": usd(cost, lang), "cap": usd(self.cost_cap_usd, lang)}
        if spent_today + cost > self.daily_budget_usd:
            return "pilot.over_budget", {"cost": usd(cost, lang), "spent": usd(spent_today, lang),
                                         "budget": usd(self.daily_budget_usd, lang)}
        return None


def start_of_day(now: float | None = None) -> float:
    """00:00 UTC of today, when the daily budget resets."""
    day = datetime.fromtimestamp(time.time() if now is None else now, UTC).date()
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


@dataclass(frozen=True)
class PilotSettings:
    policy: PilotPolicy
    steps: int = DEFAULT_STEPS
    launcher: str = "local"
    ray_address: str | None = None
    workdir: str = "pilot-runs"
