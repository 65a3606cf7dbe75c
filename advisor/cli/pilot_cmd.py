"""`advisor pilot ...`: measured pilots on this machine or a Ray cluster."""

from __future__ import annotations

import click

from advisor.cli.common import db_option, json_option
from advisor.cli.spec_flags import spec_options
from advisor.errors import NotAvailableYet
from advisor.spec import SpecRequest


def register(main: click.Group) -> None:
    main.add_command(pilot)


@click.group()
def pilot() -> None:
    """Measured pilot runs: real training steps on a GPU node (or this CPU)."""


@pilot.command("run")
@spec_options
@click.option("--steps", type=int, default=5, show_default=True)
@click.option("--launcher", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@db_option
@json_option
def run(request: SpecRequest, steps: int, launcher: str, db: str | None, as_json: bool) -> None:
    """Run a measured pilot and print its result."""
    raise NotAvailableYet("advisor pilot run (the pilot runner)")


@pilot.command("status")
@click.argument("pilot_id")
@json_option
def status(pilot_id: str, as_json: bool) -> None:
    """The state of a pilot."""
    raise NotAvailableYet("advisor pilot status")


@pilot.command("cancel")
@click.argument("pilot_id")
def cancel(pilot_id: str) -> None:
    """Cancel a running pilot."""
    raise NotAvailableYet("advisor pilot cancel")


@pilot.command("history")
@json_option
def history(as_json: bool) -> None:
    """Measured pilots stored for calibration."""
    raise NotAvailableYet("advisor pilot history")
