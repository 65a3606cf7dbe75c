"""`advisor parse TEXT`: what was understood from a chat message."""

from __future__ import annotations

import click

from advisor.cli.common import db_option, json_option
from advisor.errors import NotAvailableYet


def register(main: click.Group) -> None:
    main.add_command(parse)


@click.command()
@click.argument("text", nargs=-1, required=True)
@db_option
@json_option
def parse(text: tuple[str, ...], db: str | None, as_json: bool) -> None:
    """What was understood from a chat message."""
    raise NotAvailableYet("advisor parse (the chat parser)")
