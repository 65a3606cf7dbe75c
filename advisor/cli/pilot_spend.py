"""`advisor pilot spend [--user U] [--since DATE] [--json] [--lang en|es]`: what pilots actually
cost, per user and per UTC day (advisor/pilot/spend.py computes, advisor/pilot/spend_text.py words
it; this prints).

Registered on the ``pilot`` group by advisor/cli/pilot_cmd.py. The state database is
``--state-db`` (a SQLite path or a PostgreSQL URL), else $ADVISOR_STATE_DB, else ./state.db.
"""

from __future__ import annotations

import click

from advisor.cli.common import emit_json, json_option, state_db_option, state_db_path
from advisor.i18n import t
from advisor.pilot.spend_text import parse_day, render_spend


@click.command("spend")
@click.option("--user", default=None, metavar="U", help="Only pilots this user asked for (a Slack user id).")
@click.option("--since", default=None, metavar="DATE", help="Only pilots confirmed on or after this UTC day (YYYY-MM-DD).")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
@state_db_option
@json_option
def spend(user: str | None, since: str | None, lang: str, state_db: str | None, as_json: bool) -> None:
    """What pilots actually cost, per user and per day: node time x catalog price x GPUs."""
    from advisor.pilot.spend import pilot_spend
    from advisor.pilot.store import PilotStore

    try:
        start = parse_day(since) if since else None
    except ValueError:
        raise click.BadParameter(t("spend.cli.bad_date", lang, value=since), param_hint="--since") from None
    report = pilot_spend(PilotStore(state_db_path(state_db)), user=user, since=start)
    if as_json:
        emit_json(report.to_json())
        return
    click.echo(render_spend(report, lang))
