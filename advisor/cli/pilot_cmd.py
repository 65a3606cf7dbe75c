"""`advisor pilot ...`: measured pilots on this machine or a Ray cluster.

    advisor pilot run [SPEC FLAGS] --steps N --launcher local|ray [--json]
    advisor pilot status ID [--json]      advisor pilot cancel ID
    advisor pilot history [--gpu ID] [--json]

State (pilots, measured results, calibration) lives in the state database: --state-db, else
ADVISOR_STATE_DB, else ./state.db. Pilot run directories (events, log, checkpoint, manifest) go
under --out-dir (default ./pilot-runs).
"""

from __future__ import annotations

import getpass
import os
import sys

import click

from advisor.catalog import Catalog
from advisor.cli.common import (catalog_path, db_option, emit_json, hub_reader, json_option, state_db_option,
                                state_db_path)
from advisor.cli.spec_flags import spec_options
from advisor.errors import PilotError
from advisor.i18n import t
from advisor.i18n.numbers import decimal, integer, percent
from advisor.spec import SpecRequest

DEFAULT_OUT_DIR = "pilot-runs"
_PHASES = {f"pilot.phase.{p}" for p in ("forward", "backward", "optimizer", "checkpoint", "between steps", "build")}


def register(main: click.Group) -> None:
    main.add_command(pilot)


def _store(path: str | None):
    from advisor.pilot.store import PilotStore

    return PilotStore(state_db_path(path))


def _factory(out_dir: str, ray_address: str | None):
    from advisor.pilot.launchers import make_launcher
    from advisor.pilot.launchers.env import DEFAULT_DENY, child_environment

    cache: dict = {}
    # The runner starts with an explicit environment: this one minus every SLACK_* variable and
    # the secrets named in ADVISOR_CHILD_ENV_DENY (names or fnmatch patterns).
    deny = [x.strip() for x in os.environ.get("ADVISOR_CHILD_ENV_DENY", ",".join(DEFAULT_DENY)).split(",")]
    env = child_environment(os.environ, deny=deny)

    def get(name: str):
        if name not in cache:
            cache[name] = make_launcher(name, workdir=out_dir, ray_address=ray_address, env=env, env_deny=deny)
        return cache[name]

    return get



out_dir_option = click.option("--out-dir", default=DEFAULT_OUT_DIR, show_default=True,
                              help="Where pilot runs (events, log, checkpoint, manifest) are written.")
lang_option = click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True,
                           help="Language of the human output (every line through advisor.i18n; --json is language-free).")
ray_option = click.option("--ray-address", default=None, metavar="ADDR",
                          help="Ray cluster for --launcher ray (default: $RAY_ADDRESS).")


@click.group()
def pilot() -> None:
    """Measured pilot runs: real training steps on a GPU node (or this CPU)."""


def _shower(progress, lang: str = "en"):
    """The runner's events on the terminal's progress (advisor.cli.progress): every progress event
    the runner wrote moves the bar, also those written between two polls."""
    def show(rec, event) -> None:
        p = event.data or {}
        if event.type == "started":
            progress.phase(t("pilot.cli.building", lang, id=rec.id))
        elif event.type == "progress":
            tps = p.get("tokens_per_s")
            phase = p.get("phase", "?")
            progress.phase(t("pilot.cli.progress", lang, id=rec.id, step=integer(p.get("steps_completed", 0), lang),
                             total=integer(p["total_steps"], lang) if p.get("total_steps") else "?",
                             phase=t(f"pilot.phase.{phase}", lang) if f"pilot.phase.{phase}" in _PHASES else phase,
                             tps=integer(tps, lang) if tps else "-"))
            progress.steps(p.get("steps_completed", 0), p.get("total_steps"))
        elif event.type in ("finished", "failed"):
            progress.close()

    return show


@pilot.command("run")
@spec_options
@click.option("--steps", type=int, default=5, show_default=True, help="Measured optimizer steps.")
@click.option("--warmup", type=int, default=2, show_default=True, help="Warm-up steps (at least 2).")
@click.option("--launcher", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--runtime", type=click.Choice(["auto", "reference", "hf"]), default="auto", show_default=True,
              help="reference: advisor's decoder; hf: transformers+PEFT(+bitsandbytes); auto: hf when "
                   "--stack hf is given, else reference.")
@click.option("--device", type=click.Choice(["auto", "cuda", "cpu"]), default="auto", show_default=True)
@click.option("--weights-dir", default=None, help="Local directory with real weights (--runtime hf).")
@click.option("--revision", default=None, help="Base model revision to record (with --weights-dir).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--time-limit", type=float, default=1800, show_default=True, help="Seconds before the pilot is stopped.")
@click.option("--no-checkpoint", is_flag=True, help="Skip the checkpoint save.")
@state_db_option
@out_dir_option
@ray_option
@db_option
@json_option
@lang_option
def run(request: SpecRequest, steps: int, warmup: int, launcher: str, runtime: str, device: str,
        weights_dir: str | None, revision: str | None, seed: int, time_limit: float, no_checkpoint: bool,
        state_db: str | None, out_dir: str, ray_address: str | None, db: str | None, as_json: bool,
        lang: str) -> None:
    """Run a measured pilot and print its result (with the estimate beside it)."""
    from advisor.pilot import predict as prediction
    from advisor.pilot import tracking
    from advisor.pilot.calibration import PilotCalibration
    from advisor.pilot.plan import pilot_plan, plan_json
    from advisor.pilot.report import plan_lines
    from advisor.pilot.spec import RANDOM_INIT_REVISION, pilot_spec_for
    from advisor.resolve import resolve_request

    catalog = Catalog.open(catalog_path(db))
    # a model the catalog lacks is read from the Hub (or --config) as `advisor estimate` reads it: the pilot
    # builds that architecture (random weights unless --weights-dir); a catalog model, even named by its
    # Hub id, is the catalog's copy (a pilot needs no network for it)
    from advisor.hub import catalog_name

    in_catalog = request.model is None or catalog.find_model(catalog_name(request.model)) is not None
    models = None if in_catalog else hub_reader(state_db)
    # a plan of more GPUs than one pilot: what one card can run of it (advisor.pilot.plan), said below
    plan = pilot_plan(request, request.num_gpus, request.sharding)
    resolved = resolve_request(plan.request, catalog, models)
    gpu = catalog.gpu(resolved.spec.gpu) if resolved.spec.gpu else None
    if runtime == "auto":
        runtime = "hf" if request.stack == "hf" else "reference"
    if weights_dir and runtime != "hf":
        raise PilotError("--weights-dir loads real weights through transformers; add --runtime hf.")
    pspec = pilot_spec_for(resolved, gpu, steps=steps, warmup_steps=warmup, seed=seed, device=device,
                           runtime=runtime, weights_dir=weights_dir, time_limit_s=time_limit,
                           revision=revision or (RANDOM_INIT_REVISION if not weights_dir else "unpinned"),
                           save_checkpoint=not no_checkpoint)
    store = _store(state_db)
    calibration = PilotCalibration(store)
    predicted = prediction.predict(pspec, gpu, calibration)
    predicted["plan"] = plan_json(plan, request, catalog, models)
    # before it runs, on stderr (the JSON carries the same under "prediction"): what the pilot
    # measures of a bigger plan, and a warning when the estimate says it will not fit the GPU
    if not as_json:
        for line in plan_lines(predicted, pspec.gpu_name or "CPU", pspec.gpu_usable_memory_bytes, lang):
            click.echo(line, err=True)
    store.create(pspec, launcher=launcher, requested_by=f"cli:{getpass.getuser()}", prediction=predicted,
                 estimated_cost_usd=predicted["cost_usd"], estimated_duration_s=predicted["duration_s"])
    get_launcher = _factory(out_dir, ray_address or os.environ.get("RAY_ADDRESS"))
    chosen = get_launcher(launcher)
    from advisor.cli.progress import progress_for

    with progress_for(as_json) as progress:
        progress.phase(t("pilot.cli.waiting", lang, id=pspec.pilot_id, launcher=launcher))
        rec = tracking.launch(store, pspec.pilot_id, chosen, confirmed_by=f"cli:{getpass.getuser()}")
        try:
            rec = tracking.follow(store, rec.id, chosen, on_event=_shower(progress, lang))
        except KeyboardInterrupt:
            progress.phase(t("pilot.cli.cancelling", lang, id=rec.id))
            rec = tracking.cancel(store, rec.id, get_launcher)
    _print_outcome(rec, as_json, lang)
    if rec.state != "finished":
        sys.exit(1)


def _outcome(rec) -> dict:
    from advisor.pilot.predict import compare

    out = {"pilot_id": rec.id, "state": rec.state, "reason": rec.reason, "message": rec.message}
    if rec.state == "finished" and rec.result:
        out = {**rec.result, **out, "prediction": rec.prediction,
               "comparison": compare(rec.prediction or {}, rec.result)}
    else:
        out.update(partial=rec.result, last_progress=rec.last_progress, prediction=rec.prediction)
    out["estimated_cost_usd"], out["cost_usd"] = rec.estimated_cost_usd, rec.cost_usd
    return out


def _print_outcome(rec, as_json: bool, lang: str = "en") -> None:
    out = _outcome(rec)
    if as_json:
        emit_json(out)
        return
    from advisor.pilot.report import render_cli

    click.echo(render_cli(rec, lang))


@pilot.command("status")
@click.argument("pilot_id")
@state_db_option
@out_dir_option
@ray_option
@json_option
@lang_option
def status(pilot_id: str, state_db: str | None, out_dir: str, ray_address: str | None, as_json: bool,
           lang: str) -> None:
    """The state of a pilot (re-attaches to it if it is still running)."""
    from advisor.pilot import tracking

    store = _store(state_db)
    rec = store.require(pilot_id)
    if not rec.terminal and rec.handle is not None:
        launcher = _factory(out_dir, ray_address or os.environ.get("RAY_ADDRESS"))(rec.launcher)
        rec, _ = tracking.sync(store, rec, launcher)
    if as_json:
        emit_json({**rec.to_json(), "outcome": _outcome(rec)})
        return
    from advisor.pilot.report import render_cli

    click.echo(render_cli(rec, lang))


@pilot.command("cancel")
@click.argument("pilot_id")
@state_db_option
@out_dir_option
@ray_option
@lang_option
def cancel(pilot_id: str, state_db: str | None, out_dir: str, ray_address: str | None, lang: str) -> None:
    """Cancel a pilot (a running one is stopped; its partial figures are kept)."""
    from advisor.pilot import tracking

    rec = tracking.cancel(_store(state_db), pilot_id,
                          _factory(out_dir, ray_address or os.environ.get("RAY_ADDRESS")))
    from advisor.i18n import has

    state = t(f"pilot.cli.state.{rec.state}", lang) if has(f"pilot.cli.state.{rec.state}") else rec.state
    click.echo(t("pilot.cli.ended", lang, id=rec.id, state=state, reason=rec.reason or "").rstrip())


@pilot.command("history")
@click.option("--gpu", default=None, help="Only results for this catalog GPU id.")
@click.option("--limit", type=int, default=100, show_default=True)
@state_db_option
@json_option
@lang_option
def history(gpu: str | None, limit: int, state_db: str | None, as_json: bool, lang: str) -> None:
    """Measured pilots stored for calibration, and the calibration they give."""
    from advisor.pilot.calibration import PilotCalibration

    store = _store(state_db)
    rows = store.results(gpu=gpu, limit=limit)
    cal = PilotCalibration(store)
    keys = sorted({(r["gpu"], r["method"], r["stack"]) for r in rows if r["gpu"] and r["on_target"]})
    calibration = [
        {"gpu": g, "method": m, "stack": s, "pilots": (cal.mfu(g, m) or (None, 0))[1],
         "efficiency": (cal.mfu(g, m) or (None, 0))[0], "reserved_ratio": cal.reserved_ratio(g, s)}
        for g, m, s in keys
    ]
    step_factors = {}  # what the throughput model applies on each GPU (advisor.pilot.calibration)
    catalog = Catalog.open()
    for g in sorted({k[0] for k in keys}):
        try:
            measured = cal.step_factors(catalog.gpu(g), "hf")
        except LookupError:  # a GPU removed from the catalog since its pilot ran
            measured = None
        if measured is not None:
            step_factors[g] = {"pilots": measured.pilots, "factors": {c: round(v, 4) for c, v in measured.factors.items()}}
    if as_json:
        emit_json({"results": rows, "calibration": calibration, "step_factors": step_factors})
        return
    if not rows:
        click.echo(t("pilot.cli.no_history", lang))
        return
    for r in rows:
        click.echo(t("pilot.cli.history_row", lang, id=r["pilot_id"], gpu=r["gpu"] or "-", device=r["device_name"] or r["device"],
                     method=r["method"], seq=integer(r["seq_len"], lang), tps=integer(r["tokens_per_s"] or 0, lang),
                     mfu=percent(r["mfu"] or 0, lang, 1), target=t("word.yes" if r["on_target"] else "word.no", lang)))
    for c in calibration:
        click.echo(t("pilot.cli.calibration_row", lang, gpu=c["gpu"], method=c["method"], n=integer(c["pilots"], lang),
                     eff=percent(c["efficiency"] or 0, lang, 1),
                     ratio=decimal(c["reserved_ratio"], lang, 3) if c["reserved_ratio"] else "-"))
    for g, m in step_factors.items():
        click.echo(t("pilot.cli.step_factors_row", lang, gpu=g, n=integer(m["pilots"], lang),
                     factors=", ".join(f"{c} x{decimal(v, lang, 2)}" for c, v in m["factors"].items())))


from advisor.cli.pilot_spend import spend as _spend  # noqa: E402  `advisor pilot spend` (advisor/cli/pilot_spend.py)
pilot.add_command(_spend)
