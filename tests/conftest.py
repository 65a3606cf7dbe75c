"""Fixtures named for what they return. Nothing here touches the committed catalog.db."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.catalog import Catalog

# Ray reads its authentication mode once per process, when ray._raylet loads (the C++ RayConfig
# reads RAY_AUTH_MODE; later changes to the environment are not seen). The Ray tests' heads use
# token authentication, `ray start`'s default (tests/rayhead.py), so this process is a token client
# from before anything imports ray, in whichever order the Ray test modules run.
os.environ["RAY_AUTH_MODE"] = "token"

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """A read-only catalog built fresh from the source data, in memory."""
    return Catalog.in_memory()


@pytest.fixture
def scratch_db(tmp_path: Path) -> Path:
    """A copy of the committed catalog.db that a test may change."""
    target = tmp_path / "scratch.db"
    shutil.copy(ROOT / "catalog.db", target)
    return target


@pytest.fixture(scope="module")
def slack():
    """A fake Slack Web API on loopback (tests/fakeslack.py), one per test module."""
    from tests.fakeslack import FakeSlack

    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def cli():
    """Invoke `advisor ...` in-process; returns click's Result."""
    from advisor.cli import main

    runner = CliRunner()

    def invoke(*args: str, env: dict | None = None):
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server for the whole run (tests/pgserver.py; as an unprivileged user when
    the tests run as root). Skipped, with the reason, only where one cannot be started."""
    from tests.pgserver import PostgresServer, unavailable

    reason = unavailable()
    if reason:
        pytest.skip(f"no PostgreSQL server for this run: {reason}")
    server = PostgresServer.start()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server) -> str:
    """A fresh, empty database on the run's PostgreSQL server."""
    return pg_server.create_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def state_target(request, tmp_path) -> str:
    """The same state test against both backends: a SQLite file and a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "state.db")
    return request.getfixturevalue("pg_url")


def run_advisor(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m advisor ...` in a subprocess (a real process start, as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "advisor", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
