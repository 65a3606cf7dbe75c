"""Shared pieces of the CLI: error translation, JSON output, the catalog option."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from advisor.errors import AdvisorError


class AdvisorGroup(click.Group):
    """Turns every AdvisorError raised by a command into a clean message and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AdvisorError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, sort_keys=False, default=str))


def catalog_path(db: str | None) -> str | None:
    """--db, else ADVISOR_CATALOG, else None (catalog.db in the working directory, or a build
    of the packaged source data in memory when there is none). The CLI is a boundary like the
    bot, so it may read the environment; the library never does."""
    return db or os.environ.get("ADVISOR_CATALOG") or None


db_option = click.option(
    "--db", "db", metavar="PATH", default=None,
    help="Catalog database (default: $ADVISOR_CATALOG or ./catalog.db).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


DEFAULT_STATE_DB = "state.db"

state_db_option = click.option(
    "--state-db", "state_db", metavar="PATH", default=None,
    help="State database with measured pilots (default: $ADVISOR_STATE_DB or ./state.db).",
)


def state_db_path(path: str | None) -> str:
    return path or os.environ.get("ADVISOR_STATE_DB") or DEFAULT_STATE_DB


def calibration_from(path: str | None):
    """Measured pilots calibrate estimates when a state database exists (never create one just
    to answer a question); None otherwise."""
    from pathlib import Path

    db = Path(state_db_path(path))
    if not db.exists():
        return None
    from advisor.pilot.calibration import PilotCalibration
    from advisor.pilot.store import PilotStore

    return PilotCalibration(PilotStore(db))
