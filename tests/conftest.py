"""Fixtures named for what they return. Nothing here touches the committed catalog.db."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.catalog import Catalog

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


def run_advisor(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m advisor ...` in a subprocess (a real process start, as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "advisor", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def have(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
