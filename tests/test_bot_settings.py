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


def test_one_model_reads_the_environment_and_a_dot_env_file(tmp_path, monkeypatch):
    """pydantic-settings: a .env file in the working directory, the environment winning over it."""
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "PORT", "ADVISOR_STATE_URL", "ADVISOR_WEB_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-file\nSLACK_SIGNING_SECRET=file-secret\nPORT=4000\n"
                                   "ADVISOR_WEB_WORKERS=3\nADVISOR_PILOT_USERS=U1,U2\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PORT", "5000")
    s = Settings.from_env()
    assert (s.bot_token, s.signing_secret, s.port, s.web_workers) == ("xoxb-from-file", "file-secret", 5000, 3)
    assert s.pilots.policy.users == frozenset({"U1", "U2"}) and s.state_target == "state.db"


def test_a_bad_value_in_the_dot_env_file_is_said_plainly(tmp_path, monkeypatch):
    monkeypatch.delenv("ADVISOR_OUTBOX_LEASE_S", raising=False)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-1\nSLACK_SIGNING_SECRET=s\nADVISOR_OUTBOX_LEASE_S=soon\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError, match="ADVISOR_OUTBOX_LEASE_S must be a number of seconds; got 'soon'"):
        Settings.from_env()


@pytest.mark.parametrize("env, says", [
    ({**BASE, "ADVISOR_STATE_URL": "mysql://x"}, "ADVISOR_STATE_URL must be a postgresql://"),
    ({**BASE, "ADVISOR_PILOT_LAUNCHER": "slurm"}, "ADVISOR_PILOT_LAUNCHER must be local or ray"),
    ({**BASE, "ADVISOR_WEB_WORKERS": "0"}, "ADVISOR_WEB_WORKERS must be from 1"),
    ({**BASE, "ADVISOR_SLACK_RETRY_S": "-1"}, "ADVISOR_SLACK_RETRY_S cannot be negative"),
])
def test_new_settings_say_what_to_set(env, says):
    with pytest.raises(SettingsError, match=says):
        Settings.from_env(env)


def test_the_state_url_wins_and_secrets_are_masked_in_logs():
    s = Settings.from_env({**BASE, "ADVISOR_STATE_URL": "postgresql://bot:pw@db:5432/advisor"})
    assert s.state_target == "postgresql://bot:pw@db:5432/advisor"
    shown = s.redacted()
    assert "pw" not in shown["state_url"] and shown["bot_token"] == "xoxb-…"
    assert "ADVISOR_STATE_URL" in s.child_env_deny and "RAY_AUTH_TOKEN" in s.child_env_deny
