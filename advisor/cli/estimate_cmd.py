"""`advisor estimate`: memory, time and cost of a spec given as flags, on every catalog GPU."""

from __future__ import annotations

import click

from advisor.cli.common import db_option, json_option
from advisor.cli.spec_flags import spec_options
from advisor.errors import NotAvailableYet
from advisor.spec import SpecRequest


def register(main: click.Group) -> None:
    main.add_command(estimate)


@click.command()
@spec_options
@db_option
@json_option
def estimate(request: SpecRequest, db: str | None, as_json: bool) -> None:
    """Memory, time and cost of a fine-tuning run on every catalog GPU."""
    raise NotAvailableYet("advisor estimate (the memory model)")
