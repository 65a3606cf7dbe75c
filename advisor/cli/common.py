"""Shared pieces of the CLI: error translation, JSON output, the catalog option."""

from __future__ import annotations

import atexit
import json
import os
import sys
from typing import Any

import click

from advisor.errors import AdvisorError


# the command modules, in the order ``advisor --help`` lists their commands; each has
# ``register(main)`` adding its commands (advisor.cli)
COMMAND_MODULES = {"ask": "ask_cmd", "parse": "parse_cmd", "estimate": "estimate_cmd", "trace": "trace_cmd",
                   "launch-config": "launch_cmd", "catalog": "catalog_cmd", "pilot": "pilot_cmd"}


class AdvisorGroup(click.Group):
    """Turns every AdvisorError raised by a command into a clean message and exit status 2.

    Commands are imported when they are looked up (click's lazily loaded subcommands,
    ``list_commands`` / ``get_command``): ``advisor trace`` no longer imports the chat parser
    and the answer renderer that ``advisor ask`` needs (their regular expressions compile at
    import: about 0.6 s of CPU), nor any other command's modules."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import importlib  # noqa: PLC0415

            importlib.import_module(f"advisor.cli.{COMMAND_MODULES[cmd_name]}").register(self)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AdvisorError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The console script (``advisor = "advisor.cli:main"`` calls the group; click's
        CliRunner calls ``main`` instead, so tests never come here)."""
        try:
            return self.main(*args, **kwargs)
        except SystemExit as exc:
            leave(exc.code)
            raise


# Libraries whose interpreter teardown costs seconds: after ``import torch, transformers, peft``
# alone, Python's finalization (module dicts cleared, every object freed one by one) took 1.8 s
# of CPU on this 2-core machine (measured 2026-12-01: 6.19 s at the end of the script, 7.96 s at
# process exit), about a tenth of an ``advisor trace --runtime hf`` command.
HEAVY_MODULES = ("torch",)


def leave(code: Any) -> None:
    """End the process with ``code`` now, without tearing the interpreter down, when a heavy
    library is loaded (see HEAVY_MODULES); otherwise return, and the caller's ``SystemExit``
    exits normally.

    What a normal exit would still do is done first: every ``atexit`` handler (logging's
    ``shutdown`` flushes the log handlers, ``weakref.finalize`` objects with ``atexit=True``
    run, Ray's ``shutdown``), then stdout and stderr are flushed. Skipped is only what the
    operating system does anyway: freeing memory and closing descriptors."""
    if not any(name in sys.modules for name in HEAVY_MODULES):
        return
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): Python prints the message to stderr and exits with 1
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to deliver
            pass
    os._exit(status)


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


# --- models from the Hugging Face Hub or a config.json (advisor.hub) ----------------------------

_CONFIG_MODEL = "advisor.config_model"


def external_model(model: str | None, config_path: str | None) -> str | None:
    """What ``--model`` / ``--config`` name in the request: a Hugging Face id is always read from
    the Hub ("hf:" + id), a config file is read now and named by its digest."""
    from advisor.hub import HUB_PREFIX, parse_hub_id, read_config_file

    if config_path is not None:
        if model is not None:
            raise click.UsageError("Give --model or --config, not both.")
        found = read_config_file(config_path)
        click.get_current_context().meta[_CONFIG_MODEL] = found
        return found.ref
    if model is not None and parse_hub_id(model) is not None and not model.startswith(HUB_PREFIX):
        return HUB_PREFIX + model
    return model


def hub_reader(state_db: str | None = None):
    """The Hub as this shell sees it: ``HF_ENDPOINT`` (a mirror, or a fake Hub in tests),
    ``HF_HUB_CACHE`` / ``HF_HOME`` (huggingface_hub's cache), ``HF_TOKEN`` (gated models), and the
    state database (``--state-db`` / ``ADVISOR_STATE_DB`` / ./state.db when it exists) where configs
    read once are kept."""
    from pathlib import Path

    from advisor.hub import HubReader

    env = os.environ
    cache = env.get("HF_HUB_CACHE") or (str(Path(env["HF_HOME"]) / "hub") if env.get("HF_HOME") else None)
    db = state_db_path(state_db)
    reader = HubReader(db if (state_db or env.get("ADVISOR_STATE_DB") or Path(db).exists()) else None,
                       endpoint=env.get("HF_ENDPOINT") or None, cache_dir=cache, token=env.get("HF_TOKEN") or None)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        found = ctx.find_root().meta.get(_CONFIG_MODEL) or ctx.meta.get(_CONFIG_MODEL)
        if found is not None:
            reader.add(found)
    return reader
