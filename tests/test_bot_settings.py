"""bot.settings: the one reader of the environment, with messages a person can act on."""

import pytest

from bot.settings import DEFAULT_API_URL, Settings, SettingsError

BASE = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}


@pytest.mark.parametrize("env, mode, port, api_url", [
    (BASE, False, 3000, DEFAULT_API_URL),
    ({**BASE, "PORT": "8080", "SLACK_API_URL": "http://127.0.0.1:9/api"}, False, 8080, "http://127.0.0.1:9/api/"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, True, 3000, DEFAULT_API_URL),
])
def test_modes_port_and_api_url(env, mode, port, api_url):
    s = Settings.from_env(env)
    assert (s.socket_mode, s.port, s.api_url) == (mode, port, api_url)


@pytest.mark.parametrize("env, says", [
    ({}, "SLACK_BOT_TOKEN"),
    ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-wrong"}, "xapp-"),
    ({**BASE, "PORT": "http"}, "PORT"),
    ({**BASE, "PORT": "70000"}, "PORT"),
    ({**BASE, "SLACK_API_URL": "slack.com/api"}, "SLACK_API_URL"),
])
def test_bad_environments_say_what_to_set(env, says):
    with pytest.raises(SettingsError, match=says):
        Settings.from_env(env)


def test_state_db_and_catalog_paths():
    s = Settings.from_env({**BASE, "ADVISOR_STATE_DB": "/tmp/x/state.db", "ADVISOR_CATALOG": "cat.db"})
    assert (str(s.state_db), str(s.catalog_path)) == ("/tmp/x/state.db", "cat.db")
    assert Settings.from_env(BASE).catalog_path is None
