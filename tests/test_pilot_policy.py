"""Who may start pilots and what they may spend (bot side, no Slack needed)."""

from __future__ import annotations

import pytest

from bot.pilot.flow import ChannelLimiter
from bot.pilot.policy import PilotPolicy, start_of_day
from bot.settings import Settings, SettingsError

BASE = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}


def pilot_settings(env):
    """The pilot settings as the bot reads them (one settings model: bot.settings.Settings)."""
    return Settings.from_env({**BASE, **env}).pilots


def test_nothing_configured_means_nobody_may_start_a_pilot():
    settings = pilot_settings({})
    assert not settings.policy.configured and not settings.policy.may_confirm("UALICE")
    assert (settings.launcher, settings.policy.cost_cap_usd, settings.policy.daily_budget_usd) == ("local", 5.0, 50.0)


@pytest.mark.parametrize("env, user, allowed", [
    ({"ADVISOR_PILOT_USERS": "UALICE, UBOB"}, "UBOB", True),
    ({"ADVISOR_PILOT_USERS": "UALICE"}, "UCAROL", False),
    ({"ADVISOR_PILOT_ADMINS": "UADMIN"}, "UADMIN", True),
    ({"ADVISOR_PILOT_GROUPS": "SMLTEAM"}, "UCAROL", True),  # a member of the group
    ({"ADVISOR_PILOT_GROUPS": "SOTHER"}, "UCAROL", False),
])
def test_who_may_confirm(env, user, allowed):
    policy = pilot_settings(env).policy
    assert policy.may_confirm(user, members=lambda g: {"UCAROL"} if g == "SMLTEAM" else set()) is allowed


def test_refusals_name_the_people_to_ask():
    policy = PilotPolicy(users=frozenset({"UB", "UA"}), admins=frozenset({"UZ"}), groups=frozenset({"SG"}))
    assert policy.who_to_ask() == "<@UA>, <@UB>, <@UZ>, <!subteam^SG>"


@pytest.mark.parametrize("cost, spent, problem", [
    (1.0, 0.0, None),
    (6.0, 0.0, "pilot.over_cap"),
    (4.0, 47.0, "pilot.over_budget"),
    (4.0, 46.0, None),
    (None, 0.0, None),  # no price: nothing to cap (the flow refuses unpriced GPUs itself)
])
def test_cost_cap_and_daily_budget(cost, spent, problem):
    found = PilotPolicy(users=frozenset({"U"})).cost_problem(cost, spent)
    assert (found[0] if found else None) == problem


def test_cost_problems_speak_the_threads_language():
    """The refusal's amounts in the thread's locale (advisor.i18n.numbers): '$6.00' / '6,00 US$'."""
    from advisor.i18n import t

    policy = PilotPolicy(users=frozenset({"U"}))
    key, en = policy.cost_problem(6.0, 0.0, "en")
    assert key == "pilot.over_cap" and en["cost"] == "$6.00"
    _, es = policy.cost_problem(6.0, 0.0, "es")
    assert es["cost"] == "6,00\xa0US$" and "US$" in es["cap"] and "$" not in es["cap"].replace("US$", "")
    _, budget = policy.cost_problem(4.0, 47.5, "es")
    assert budget["spent"] == "47,50\xa0US$"
    assert "6,00" in t(key, "es", **es) and "6.00" not in t(key, "es", **es)


def test_channels_restrict_where_pilots_run():
    policy = pilot_settings({"ADVISOR_PILOT_USERS": "U", "ADVISOR_PILOT_CHANNELS": "CML"}).policy
    assert policy.channel_allowed("CML") and not policy.channel_allowed("CRANDOM")


def test_a_bad_amount_says_what_to_type():
    with pytest.raises(SettingsError, match="ADVISOR_PILOT_COST_CAP_USD must be a number"):
        pilot_settings({"ADVISOR_PILOT_COST_CAP_USD": "five"})


def test_the_budget_day_starts_at_midnight_utc():
    assert start_of_day(1_700_000_000.0) == 1_699_920_000.0  # 2023-11-14 22:13 UTC -> 00:00 UTC


def test_progress_edits_are_limited_per_channel():
    limiter = ChannelLimiter(interval_s=60)
    assert limiter.try_acquire("C1") and not limiter.try_acquire("C1") and limiter.try_acquire("C2")
