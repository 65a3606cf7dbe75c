"""`advisor launch-config`: a ready trainer / SkyPilot / Ray config for the chosen plan."""

from __future__ import annotations

from pathlib import Path

import click

from advisor.catalog import Catalog
from advisor.catalog.shapes import DEFAULT_MAX_GPUS
from advisor.cli.common import calibration_from, catalog_path, db_option, emit_json, json_option, state_db_option
from advisor.cli.spec_flags import spec_options
from advisor.spec import SpecRequest

FORMATS = ("trl", "axolotl", "torchtune", "skypilot", "ray")


def register(main: click.Group) -> None:
    main.add_command(launch_config)


@click.command("launch-config")
@spec_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
              help="trl (trl sft), axolotl, torchtune (tune run), skypilot (sky launch) or ray (Ray Jobs API).")
@click.option("--tool", type=click.Choice(("trl", "axolotl", "torchtune")), default="trl", show_default=True,
              help="The trainer a skypilot task or ray job runs.")
@click.option("--dataset", metavar="ID_OR_PATH", help="Hub dataset id or local path to train on.")
@click.option("--dataset-format", type=click.Choice(("messages", "instruction", "text")), default="messages",
              show_default=True, help="Rows as chat messages, instruction/response pairs, or plain text.")
@click.option("--output-dir", metavar="DIR", help="Where the trainer writes checkpoints (default ./outputs/MODEL-METHOD).")
@click.option("--cloud", type=click.Choice(("aws", "gcp", "azure", "kubernetes")),
              help="SkyPilot cloud for the task (with --region: that cloud's region in the same city).")
@click.option("--name", "job_name", metavar="NAME", help="SkyPilot task name.")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), help="Write the config here instead of stdout.")
@click.option("--max-gpus", type=click.IntRange(1, 4096), default=DEFAULT_MAX_GPUS, show_default=True,
              envvar="ADVISOR_MAX_GPUS", help="The most GPUs the plan may use (as `advisor ask`).")
@db_option
@state_db_option
@json_option
def launch_config(request: SpecRequest, fmt: str, tool: str, dataset: str | None, dataset_format: str,
                  output_dir: str | None, cloud: str | None, job_name: str | None, out: str | None,
                  max_gpus: int, db: str | None, state_db: str | None, as_json: bool) -> None:
    """A ready launch config for the recommended plan (or the --gpu / --num-gpus named)."""
    from advisor.launch import LaunchOptions, choose_plan, launch_config as build, render

    catalog = Catalog.open(catalog_path(db))
    _catalog_model_only(request, catalog)
    plan = choose_plan(request, catalog, calibration=calibration_from(state_db), max_gpus=max_gpus)
    options = LaunchOptions(dataset=dataset, dataset_format=dataset_format, output_dir=output_dir, tool=tool,
                            cloud=cloud, job_name=job_name)
    config = build(plan, fmt, options)
    if as_json:
        emit_json({**config.to_json(), "plan": {"gpu": plan.gpu.id, "num_gpus": plan.num_gpus, "nodes": plan.nodes,
                                                "sharding": plan.spec.sharding, "memory": plan.memory_bytes,
                                                "hours": plan.hours, "cost_usd": plan.cost_usd, "chosen": plan.chosen,
                                                "spec": plan.spec.model_dump(mode="json")}})
        return
    text = render(config)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        click.echo(f"Wrote {out} ({config.tool}); run: {config.command}", err=True)
    else:
        click.echo(text, nl=False)
    for note in config.unexpressed:
        click.echo(f"note: {note}", err=True)


def _catalog_model_only(request: SpecRequest, catalog: Catalog) -> None:
    """A launch config names the checkpoint to load and, for torchtune, the builder and weight files
    (advisor.launch.names): the catalog knows them for its models. A model read from the Hub or a
    pasted config.json is sized by `advisor estimate` and piloted by `advisor pilot run`; here it is
    a clear error, not an unknown model."""
    from advisor.errors import LaunchError
    from advisor.hub import CONFIG_REF, HUB_PREFIX, parse_hub_id

    name = request.model
    if name is None or catalog.find_model(name.removeprefix(HUB_PREFIX)) is not None:
        return
    if name.startswith(HUB_PREFIX) or CONFIG_REF.match(name) or parse_hub_id(name) is not None:
        raise LaunchError(f"launch-config writes configs for catalog models (their repository, weight files and "
                          f"trainer builders are known); {name.removeprefix(HUB_PREFIX)} is not in the catalog. "
                          f"Size it with `advisor estimate --model {name}`, pilot it with `advisor pilot run "
                          f"--model {name}`, or pick a catalog model (`advisor catalog list --models`).")
