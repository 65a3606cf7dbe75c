"""`advisor estimate`: memory, time and cost of a spec given as flags, on every catalog GPU.

One library call (``advisor.recommend.recommend``); ``--json`` prints the ``Answer``'s dump, the
text is ``advisor.report.render_text`` of the same object."""

from __future__ import annotations

import click

from advisor.catalog import Catalog
from advisor.catalog.shapes import DEFAULT_MAX_GPUS
from advisor.cli.common import (calibration_from, catalog_path, db_option, emit_json, hub_reader, json_option,
                                state_db_option)
from advisor.cli.spec_flags import spec_options
from advisor.i18n import t
from advisor.spec import SpecRequest


def register(main: click.Group) -> None:
    main.add_command(estimate)


@click.command()
@spec_options
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True,
              help="Language of the notes and the table.")
@click.option("--max-gpus", type=click.IntRange(1, 4096), default=DEFAULT_MAX_GPUS, show_default=True,
              envvar="ADVISOR_MAX_GPUS", help="The most GPUs a plan may propose (one 8-GPU node by default; "
              "a larger count allows multi-node plans where the provider clusters nodes).")
@db_option
@state_db_option
@json_option
def estimate(request: SpecRequest, lang: str, max_gpus: int, db: str | None, state_db: str | None, as_json: bool) -> None:
    """Memory, time and cost of a fine-tuning run on every catalog GPU."""
    from advisor.recommend import recommend
    from advisor.report import render_text
    from advisor.resolve import resolve_request

    catalog = Catalog.open(catalog_path(db))
    resolved = resolve_request(request, catalog, hub_reader(state_db))
    answer = recommend(resolved, catalog, calibration=calibration_from(state_db), max_gpus=max_gpus)
    if as_json:
        out = answer.dump()  # advisor.answer_model.Answer, schema_version first
        if resolved.hub is not None:  # where the architecture came from (the Hub's config.json, a file)
            out["model_source"] = resolved.hub.to_json()
        emit_json(out)
    else:
        if resolved.hub is not None:
            click.echo(t("answer.hub_arch", lang, what=resolved.hub.describe(lang)))
        click.echo(render_text(answer, lang))
