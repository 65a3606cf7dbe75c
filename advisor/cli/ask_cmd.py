"""`advisor ask TEXT`: chat text in, the whole answer out (as the bot gives it)."""

from __future__ import annotations

import click

from advisor.cli.common import db_option, json_option
from advisor.errors import NotAvailableYet


def register(main: click.Group) -> None:
    main.add_command(ask)


@click.command()
@click.argument("text", nargs=-1, required=True)
@db_option
@json_option
def ask(text: tuple[str, ...], db: str | None, as_json: bool) -> None:
    """The whole answer to a chat message, as the bot would give it."""
    raise NotAvailableYet("advisor ask (the ranking engine)")
