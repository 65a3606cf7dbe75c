"""`advisor trace`: the exact peak memory of one training step, traced with fake tensors."""

from __future__ import annotations

import click

from advisor.cli.common import db_option, json_option
from advisor.cli.spec_flags import spec_options
from advisor.errors import NotAvailableYet
from advisor.spec import SpecRequest


def register(main: click.Group) -> None:
    main.add_command(trace)


@click.command()
@spec_options
@db_option
@json_option
def trace(request: SpecRequest, db: str | None, as_json: bool) -> None:
    """Exact peak memory of one training step, traced with fake tensors (needs the pilot extra)."""
    raise NotAvailableYet("advisor trace (the exact fake-tensor trace)")
