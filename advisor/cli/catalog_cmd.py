"""`advisor catalog ...`: list, show, build, export, and audited admin edits."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import click

from advisor.catalog import Catalog, build, dump
from advisor.cli.common import catalog_path, db_option, emit_json, json_option
from advisor.errors import CatalogError, CatalogMismatch
from advisor.format import gib, usd


def _actor(actor: str | None) -> str:
    return actor or f"cli:{getpass.getuser()}"


def _gpu_json(g) -> dict:
    return g.model_dump()


def _model_json(m) -> dict:
    d = m.model_dump(exclude={"arch"})
    d.update(m.arch.model_dump())
    return d


def register(main: click.Group) -> None:
    main.add_command(catalog)


@click.group()
def catalog() -> None:
    """The GPU and model catalog (list, show, build; admin: add, set-price, set-offered, remove)."""


@catalog.command("list")
@click.option("--all", "show_all", is_flag=True, help="Include GPUs we know but do not rent.")
@click.option("--models", "show_models", is_flag=True, help="List models instead of GPUs.")
@db_option
@json_option
def list_cmd(show_all: bool, show_models: bool, db: str | None, as_json: bool) -> None:
    """GPUs we rent, with memory, price and regions (or --models)."""
    cat = Catalog.open(catalog_path(db))
    if show_models:
        models = cat.models()
        if as_json:
            emit_json({"models": [_model_json(m) for m in models]})
            return
        for m in models:
            click.echo(f"{m.id:<18} {m.display_name:<26} {m.params_total / 1e9:7.2f}B  "
                       f"{m.arch.layers:>3} layers  hidden {m.arch.hidden:<6} vocab {m.arch.vocab}")
        return
    gpus = cat.gpus(offered_only=not show_all)
    regions = cat.regions()
    if as_json:
        emit_json({"gpus": [_gpu_json(g) for g in gpus], "regions": [r.model_dump() for r in regions]})
        return
    for g in gpus:
        price = usd(g.price_usd_per_hour) + "/h" if g.price_usd_per_hour is not None else "not offered"
        click.echo(f"{g.id:<13} {g.display_name:<28} {gib(g.usable_memory_bytes):>10} usable  "
                   f"{g.bf16_tflops:>7.1f} TFLOPS bf16  {price:>11}  {', '.join(g.regions) or '-'}")
    click.echo("Regions: " + "; ".join(f"{r.id} = {r.display_name}" for r in regions))


@catalog.command("show")
@click.argument("name")
@db_option
@json_option
def show_cmd(name: str, db: str | None, as_json: bool) -> None:
    """One GPU or model by id or alias (e.g. 'H100', 'llama 3 70b')."""
    cat = Catalog.open(catalog_path(db))
    gpu = cat.find_gpu(name)
    if gpu is not None:
        if as_json:
            emit_json({"kind": "gpu", **_gpu_json(gpu)})
        else:
            for k, v in _gpu_json(gpu).items():
                click.echo(f"{k:<22} {v}")
        return
    try:
        model = cat.model(name)
    except CatalogError as exc:
        gpu_hint = cat._gpu_index.suggest(name)  # noqa: SLF001 - same package family
        if gpu_hint:
            raise CatalogError(f"{exc} GPUs with a similar name: {', '.join(gpu_hint)}.") from None
        raise
    if as_json:
        emit_json({"kind": "model", **_model_json(model)})
    else:
        for k, v in _model_json(model).items():
            click.echo(f"{k:<22} {v}")


@catalog.command("build")
@click.option("--db", "db", default="catalog.db", show_default=True, help="Where to write the catalog.")
@click.option("--check", is_flag=True, help="Do not write: fail if DB differs from a fresh build.")
def build_cmd(db: str, check: bool) -> None:
    """Build the catalog database from the source data in advisor/catalog/data/."""
    if check:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            fresh = dump(build(Path(tmp) / "fresh.db"))
        if not Path(db).exists() or dump(Path(db)) != fresh:
            raise CatalogMismatch(f"{db} differs from a fresh build; run: advisor catalog build --db {db}")
        click.echo(f"{db} equals a fresh build.")
        return
    path = build(Path(db))
    cat = Catalog.open(path)
    click.echo(f"Built {path}: {len(cat.gpus())} GPUs, {len(cat.models())} models, {len(cat.regions())} regions.")


@catalog.command("export")
@db_option
@click.option("--table", type=click.Choice(["gpus", "models", "regions", "storage_prices", "audit"]), default=None)
def export_cmd(db: str | None, table: str | None) -> None:
    """Every table (or one) as JSON."""
    cat = Catalog.open(catalog_path(db))
    tables = [table] if table else ["gpus", "models", "regions", "storage_prices", "audit"]
    out = {}
    for t in tables:
        cur = cat._conn.execute(f"SELECT * FROM {t}")  # noqa: S608,SLF001 - table from a fixed list
        cols = [d[0] for d in cur.description]
        out[t] = [dict(zip(cols, r)) for r in cur.fetchall()]
    emit_json(out)


def _writable(db: str | None) -> Catalog:
    path = catalog_path(db)
    return Catalog.open(path or "catalog.db", writable=True)


actor_option = click.option("--actor", default=None, help="Who makes the change (audit); default cli:<user>.")


@catalog.command("set-price")
@click.argument("gpu")
@click.argument("usd_per_hour", type=float)
@db_option
@actor_option
@json_option
def set_price_cmd(gpu: str, usd_per_hour: float, db: str | None, actor: str | None, as_json: bool) -> None:
    """Set a GPU's hourly price in USD (audited)."""
    cat = _writable(db)
    g = cat.update_gpu(gpu, _actor(actor), price_usd_per_hour=usd_per_hour)
    if as_json:
        emit_json(_gpu_json(g))
    else:
        click.echo(f"{g.display_name}: {usd(g.price_usd_per_hour)}/h in {cat.path}")


@catalog.command("set-offered")
@click.argument("gpu")
@click.argument("offered", type=click.Choice(["yes", "no"]))
@click.option("--price", type=float, default=None, help="Hourly price, required when offering a GPU without one.")
@click.option("--regions", default=None, help="Comma-separated region ids (default: all regions).")
@db_option
@actor_option
@json_option
def set_offered_cmd(gpu: str, offered: str, price: float | None, regions: str | None,
                    db: str | None, actor: str | None, as_json: bool) -> None:
    """Offer a GPU for rent (yes) or stop offering it (no); audited."""
    cat = _writable(db)
    current = cat.gpu(gpu)
    fields: dict = {"offered": offered == "yes"}
    if offered == "yes":
        if price is not None:
            fields["price_usd_per_hour"] = price
        elif current.price_usd_per_hour is None:
            raise CatalogError(f"{current.display_name} has no price; offer it with --price USD_PER_HOUR.")
        fields["regions"] = regions.split(",") if regions else (current.regions or [r.id for r in cat.regions()])
    g = cat.update_gpu(gpu, _actor(actor), **fields)
    if as_json:
        emit_json(_gpu_json(g))
    else:
        click.echo(f"{g.display_name}: {'offered' if g.offered else 'not offered'} in {cat.path}")


@catalog.command("add")
@click.argument("row_json")
@db_option
@actor_option
def add_cmd(row_json: str, db: str | None, actor: str | None) -> None:
    """Add a GPU from a JSON object with every column of `catalog show h100 --json` (audited)."""
    try:
        row = json.loads(row_json)
    except json.JSONDecodeError as exc:
        raise CatalogError(f"ROW_JSON is not valid JSON: {exc}") from None
    if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"].strip():
        raise CatalogError('ROW_JSON must be a JSON object with a string "id" and every column of '
                           '`advisor catalog show h100 --json`.')
    row.pop("kind", None)
    g = _writable(db).add_gpu(row, _actor(actor))
    click.echo(f"Added {g.id}.")


@catalog.command("remove")
@click.argument("gpu")
@db_option
@actor_option
def remove_cmd(gpu: str, db: str | None, actor: str | None) -> None:
    """Remove a GPU (audited)."""
    cat = _writable(db)
    g = cat.gpu(gpu)
    cat.remove_gpu(g.id, _actor(actor))
    click.echo(f"Removed {g.id}.")


@catalog.command("set-storage-price")
@click.argument("region")
@click.argument("usd_per_gb_month", type=float)
@db_option
@actor_option
def set_storage_price_cmd(region: str, usd_per_gb_month: float, db: str | None, actor: str | None) -> None:
    """Set the persistent-volume price of a region in USD per GB-month (audited)."""
    cat = _writable(db)
    cat.set_storage_price(region, usd_per_gb_month, _actor(actor))
    click.echo(f"{cat.region(region).display_name}: {usd(usd_per_gb_month)}/GB-month")


@catalog.command("audit")
@db_option
@click.option("--limit", type=click.IntRange(1, 100_000), default=50)
@json_option
def audit_cmd(db: str | None, limit: int, as_json: bool) -> None:
    """Recent catalog changes: who, when, old and new value."""
    rows = Catalog.open(catalog_path(db)).audit_log(limit)
    if as_json:
        emit_json({"audit": rows})
        return
    for r in rows:
        click.echo(f"{r['at']} {r['actor']:<20} {r['action']:<7} {r['table_name']}.{r['row_id']} "
                   f"{r['field'] or ''} {r['old_value']} -> {r['new_value']}")
