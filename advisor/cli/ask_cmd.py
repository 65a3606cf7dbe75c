"""`advisor ask TEXT`: chat text in, the whole answer out (as the bot gives it): one library call,
``advisor.answer.Advisor.ask``; ``--json`` is the reply (``kind, lang, text``) with, for an
estimate, the ``Answer``'s dump the bot stores and renders (docs/DESIGN.md, "Contracts")."""

from __future__ import annotations

import click

from advisor.catalog import Catalog
from advisor.catalog.shapes import DEFAULT_MAX_GPUS
from advisor.cli.common import (calibration_from, catalog_path, db_option, emit_json, hub_reader, json_option,
                                state_db_option)


def register(main: click.Group) -> None:
    main.add_command(ask)


@click.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--max-gpus", type=click.IntRange(1, 4096), default=DEFAULT_MAX_GPUS, show_default=True,
              envvar="ADVISOR_MAX_GPUS", help="The most GPUs a plan may propose (one 8-GPU node by default; "
              "a larger count allows multi-node plans where the provider clusters nodes).")
@db_option
@state_db_option
@json_option
def ask(text: tuple[str, ...], max_gpus: int, db: str | None, state_db: str | None, as_json: bool) -> None:
    """The whole answer to a chat message, as the bot would give it (English or Spanish)."""
    from advisor.answer import Advisor

    advisor = Advisor(Catalog.open(catalog_path(db)), calibration=calibration_from(state_db), models=hub_reader(state_db),
                      max_gpus=max_gpus)
    reply = advisor.ask(" ".join(text))
    if as_json:
        emit_json(reply.to_json())
    else:
        click.echo(reply.text)
