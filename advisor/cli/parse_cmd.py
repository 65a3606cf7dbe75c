"""`advisor parse TEXT`: what was understood from a chat message.

``--json`` prints docs/DESIGN.md's parse contract: ``method, model, params_b, seq_len, micro_batch,
gradient_checkpointing, lora_rank, optimizer, precision, num_gpus, gpu, dataset_tokens, epochs``
(null where the text did not say), then ``lang``, ``intent`` and what else the message set.
Without ``--json`` it prints, in the message's language, what was understood and what it is.
"""

from __future__ import annotations

import json

import click
from pydantic import ValidationError

from advisor.catalog import Catalog
from advisor.cli.common import catalog_path, db_option, emit_json, json_option
from advisor.errors import SpecError
from advisor.i18n import t
from advisor.parse import ParseResult, parse_message, understood
from advisor.spec import SpecRequest, explain_validation


def register(main: click.Group) -> None:
    main.add_command(parse)


@click.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--previous", metavar="JSON", default=None,
              help="The thread's last request as JSON (e.g. the output of a previous parse), to read TEXT as a follow-up.")
@click.option("--lang", "lang_hint", type=click.Choice(["en", "es"]), default=None,
              help="The thread's language, used when the message has no words of either.")
@db_option
@json_option
def parse(text: tuple[str, ...], previous: str | None, lang_hint: str | None, db: str | None, as_json: bool) -> None:
    """What was understood from a chat message (English or Spanish)."""
    catalog = Catalog.open(catalog_path(db))
    result = parse_message(" ".join(text), catalog, previous=_previous(previous), lang_hint=lang_hint)
    if as_json:
        emit_json(result.to_json())
        return
    for line in _lines(result, catalog):
        click.echo(line)


def _previous(raw: str | None) -> SpecRequest | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SpecError(f"--previous is not JSON ({exc.msg}); pass the object `advisor parse --json` prints.") from None
    if not isinstance(data, dict):
        raise SpecError("--previous must be a JSON object, like the one `advisor parse --json` prints.")
    fields = {k: v for k, v in data.items() if k in SpecRequest.model_fields and v is not None}
    try:
        return SpecRequest(**fields)
    except ValidationError as exc:
        raise SpecError(explain_validation(exc)) from None


def _lines(result: ParseResult, catalog: Catalog) -> list[str]:
    lang = result.lang
    intent = t(f"parse.intent.{result.intent}", lang, gpus=" / ".join(result.gpus), faq=result.faq or "")
    lines = [t("parse.intent", lang, intent=intent), understood(result.request, lang, catalog)]
    if result.question:
        lines += [t("parse.question", lang, question=result.question), t("parse.example", lang, example=result.example)]
    lines += [t("parse.warning", lang, text=w) for w in result.warnings]
    return lines
