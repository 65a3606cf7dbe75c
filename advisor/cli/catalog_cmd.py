"""`advisor catalog ...`: list, show, build, export, and audited admin edits."""

from __future__ import annotations

import csv
import getpass
import json
import re
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


# --- human output ---------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
# The GPU datasheet table the catalog's datasheet_source column cites ("../shared/reference/
# gpu_specs.csv (...)": the team's shared folder, outside the repository), copied into the
# repository so that the reference a person reads exists where it says.
DATASHEETS = REPO / "docs" / "reference" / "gpu_specs.csv"


def table(headers: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> list[str]:
    """Aligned columns under a header row and a rule; columns in ``right`` are right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def line(cells) -> str:
        return "  ".join(f"{c:>{w}}" if i in right else f"{c:<{w}}" for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def exact_gib(n_bytes: int | None) -> str:
    """GiB with the exact byte count beside it: '79.11 GiB (84,943,715,697 bytes)'."""
    if n_bytes is None:
        return "-"
    return f"{gib(n_bytes, 2)} ({n_bytes:,} bytes)"


def datasheet_reference(gpu) -> str:
    """The datasheet row behind a GPU's figures, as a repository path that exists: the catalog's
    ``datasheet_source`` names ../shared/reference/gpu_specs.csv, which lives outside the
    repository; its copy is docs/reference/gpu_specs.csv. The row is matched by name and form
    factor (the table has SXM and PCIe rows of the same GPU)."""
    source = gpu.datasheet_source or ""
    match = re.match(r"\s*(\S+\.csv)\s*(.*)$", source)
    if not match:
        return source or "-"
    path, rest = match.groups()
    if Path(path).name != DATASHEETS.name or not DATASHEETS.exists():
        return source if (REPO / path).exists() else f"{source} (not in this repository)"
    where = DATASHEETS.relative_to(REPO).as_posix()
    rest = rest.strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    with DATASHEETS.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    name = gpu.display_name.lower()
    named = [(i, r) for i, r in enumerate(rows, start=2)
             if all(word in name for word in r["gpu"].lower().split())]
    exact = [(i, r) for i, r in named if r["form_factor"] == gpu.form_factor] or named
    if exact:
        line, row = max(exact, key=lambda x: len(x[1]["gpu"]))
        where += f", line {line} ({row['gpu']}, {row['form_factor']})"
    return f"{where}: {rest}" if rest else where


def _num(value, spec: str, unit: str = "") -> str:
    """A catalog figure formatted, or "-" where the row has none."""
    return "-" if value is None else f"{format(value, spec)}{unit}"


def _yes(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _tflops(g) -> str:
    parts = [f"{p} {v:,.1f}" for p, v in (("bf16", g.bf16_tflops), ("fp16", g.fp16_tflops),
                                           ("fp8", g.fp8_tflops), ("fp32", g.fp32_tflops)) if v]
    return " · ".join(parts) + " (dense)"


def gpu_lines(g, cat) -> list[str]:
    """One GPU for a person: formatted figures, their sources, and the datasheet row."""
    regions = {r.id: r.display_name for r in cat.regions()}
    price = f"{usd(g.price_usd_per_hour)}/h" if g.price_usd_per_hour is not None else "no price (not rented here)"
    where = "; ".join(f"{r} = {regions.get(r, r)}" for r in g.regions) or "-"
    rows: list[tuple[str, str]] = [
        ("id", g.id),
        ("aliases", ", ".join(g.aliases) or "-"),
        ("vendor", f"{g.vendor} {g.architecture}, {g.form_factor}"),
        ("memory", f"{_num(g.memory_gb, 'g', ' GB')} {g.memory_type}, ECC {_yes(g.ecc)}"),
        ("usable memory", exact_gib(g.usable_memory_bytes)),
        ("  source", g.usable_memory_source),
        ("memory bandwidth", _num(g.memory_bandwidth_gbs, ",.0f", " GB/s")),
        ("tensor TFLOPS", _tflops(g)),
        ("SMs", f"{g.sm_count} ({g.sm_source})" if getattr(g, "sm_count", None) else "-"),
        ("GPU-GPU link", f"{g.interconnect}, {g.interconnect_gbs:,.0f} GB/s" if g.interconnect_gbs else g.interconnect),
        ("PCIe", f"{g.pcie_gen}, {g.pcie_gbs:,.1f} GB/s per direction" if getattr(g, "pcie_gbs", None) else g.pcie_gen),
        ("  source", getattr(g, "interconnect_source", None) or "-"),
    ]
    if getattr(g, "gpus_per_node", None):
        rows.append(("node", f"{g.gpus_per_node} GPUs per node, network {_num(g.network_gbps, ',.0f', ' Gb/s')}"))
        rows.append(("  source", g.network_source or "-"))
    rows += [
        ("TDP", _num(g.tdp_w, "d", " W")),
        ("Ray resource", f"accelerator_type:{g.ray_accelerator_label or g.ray_accelerator_type}"),
        ("price", price),
        ("offered", _yes(g.offered)),
        ("regions", where),
        ("good for", g.good_for or "-"),
        ("datasheet", datasheet_reference(g)),
    ]
    shown = {"id", "display_name", "aliases", "vendor", "architecture", "form_factor", "memory_gb", "memory_type",
             "ecc", "usable_memory_bytes", "usable_memory_source", "memory_bandwidth_gbs", "bf16_tflops",
             "fp16_tflops", "fp8_tflops", "fp32_tflops", "sm_count", "sm_source", "interconnect", "interconnect_gbs",
             "pcie_gen", "pcie_gbs", "interconnect_source", "gpus_per_node", "network_gbps", "network_source",
             "tdp_w", "ray_accelerator_type", "ray_accelerator_label", "price_usd_per_hour", "offered", "regions",
             "good_for", "datasheet_source"}
    for key, value in g.model_dump().items():  # fields added to the catalog since (node shapes ...)
        if key not in shown:
            rows.append((key.replace("_", " "), _plain(value)))
    width = max(len(k) for k, _ in rows)
    return [g.display_name, *(f"  {k:<{width}}  {v}" for k, v in rows)]


def _plain(value) -> str:
    if isinstance(value, bool):
        return _yes(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) or "-"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items()) or "-"
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    return "-" if value is None else str(value)


def model_lines(m) -> list[str]:
    """One model for a person: parameter counts in billions with the exact count, its shape."""
    a = m.arch
    rows: list[tuple[str, str]] = [
        ("id", m.id), ("Hub id", m.hub_id or "-"), ("aliases", ", ".join(m.aliases) or "-"), ("family", m.family),
        ("parameters", f"{m.params_total / 1e9:.2f}B ({m.params_total:,})"),
        ("  embedding", f"{m.params_embedding / 1e9:.2f}B ({m.params_embedding:,})"),
        ("layers", f"{a.layers}, hidden {a.hidden:,}, MLP {a.intermediate:,} ({a.mlp_kind}), {a.norm}"),
        ("attention", f"{a.heads} heads, {a.kv_heads} KV heads, head dim {a.head_dim}"
                      + (", with bias" if a.attn_bias else "")),
        ("vocabulary", f"{a.vocab:,}" + (", tied embeddings" if a.tied_embeddings else "")),
        ("context", f"{m.max_position:,} tokens" if m.max_position else "-"),
    ]
    if a.experts:
        rows.append(("experts", f"{a.experts}, {a.experts_per_token} per token"))
    rows += [("source", m.source or "-"), ("verified", _yes(m.verified)), ("notes", m.notes or "-")]
    width = max(len(k) for k, _ in rows)
    return [m.display_name, *(f"  {k:<{width}}  {v}" for k, v in rows)]


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
        rows = [[m.id, m.display_name, f"{m.params_total / 1e9:.2f}B", str(m.arch.layers), f"{m.arch.hidden:,}",
                 f"{m.arch.vocab:,}", m.hub_id or "-"] for m in models]
        for line in table(["id", "model", "params", "layers", "hidden", "vocab", "Hub id"], rows, right={2, 3, 4, 5}):
            click.echo(line)
        return
    gpus = cat.gpus(offered_only=not show_all)
    regions = cat.regions()
    if as_json:
        emit_json({"gpus": [_gpu_json(g) for g in gpus], "regions": [r.model_dump() for r in regions]})
        return
    rows = []
    for g in gpus:
        price = usd(g.price_usd_per_hour) + "/h" if g.price_usd_per_hour is not None else "-"
        rows.append([g.id, g.display_name, gib(g.usable_memory_bytes), f"{g.bf16_tflops:,.1f}", price,
                     "yes" if g.offered else "no", ", ".join(g.regions) or "-"])
    for line in table(["id", "GPU", "usable memory", "bf16 TFLOPS", "price", "offered", "regions"], rows,
                      right={2, 3, 4}):
        click.echo(line)
    click.echo("")
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
            click.echo("\n".join(gpu_lines(gpu, cat)))
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
        click.echo("\n".join(model_lines(model)))


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
