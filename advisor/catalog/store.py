"""Reading and changing the catalog: GPUs, models, regions, storage prices, and the audit trail.

A ``Catalog`` loads the (small) tables into memory when opened, so look-ups during a chat answer
cost microseconds; every change goes to SQLite in one transaction together with its audit row,
then the in-memory copy is refreshed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from advisor.arch import Architecture
from advisor.catalog import schema
from advisor.catalog.names import NameIndex
from advisor.catalog.shapes import Layout, NodeShape, default_shapes, layouts
from advisor.errors import CatalogError, UnknownGpu, UnknownModel

DEFAULT_PATH = Path("catalog.db")


class Gpu(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    display_name: str
    vendor: str
    architecture: str
    form_factor: str
    aliases: list[str]
    memory_gb: float
    usable_memory_bytes: int
    usable_memory_source: str
    memory_type: str
    ecc: bool
    memory_bandwidth_gbs: float
    bf16_tflops: float
    fp16_tflops: float
    fp8_tflops: float | None
    fp32_tflops: float
    interconnect: str
    interconnect_gbs: float
    pcie_gen: str
    tdp_w: int
    ray_accelerator_type: str | None  # what Ray detects on such a node by itself (NVML name)
    ray_accelerator_label: str | None = None  # what a pilot asks for: tells apart GPUs sharing a type
    price_usd_per_hour: float | None
    offered: bool
    regions: list[str]
    good_for: str
    datasheet_source: str
    # migration 2 (advisor.steptime): defaults for a catalog built before it
    sm_count: int = 0
    sm_source: str = ""
    pcie_gbs: float = 0.0  # host link, GB/s per direction
    interconnect_source: str = ""
    gpus_per_node: int = 8
    network_gbps: float = 0.0  # the provider's network per node, Gb/s
    network_source: str = ""

    @property
    def nvlink(self) -> bool:
        return self.interconnect_gbs > 0

    def dense_tflops(self, precision: str) -> float:
        """Dense tensor-core peak for the arithmetic a precision setting runs its matmuls in."""
        if precision == "fp32":
            return self.fp32_tflops
        if precision.startswith("fp16"):
            return self.fp16_tflops
        return self.bf16_tflops


class ModelEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    display_name: str
    family: str
    hub_id: str
    aliases: list[str]
    params_total: int
    params_embedding: int
    params_published: int
    max_position: int
    source: str
    verified: bool
    notes: str
    arch: Architecture


class Region(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    display_name: str
    city: str
    country: str
    aliases: list[str]


_ARCH_FIELDS = tuple(Architecture.model_fields)
_EDITABLE_GPU_FIELDS = {"price_usd_per_hour", "offered", "regions", "good_for", "display_name"}


class Catalog:
    """The GPU and model catalog behind every answer."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None):
        self.path = path
        self._conn = conn
        self.version = 0  # bumped by every load: what was built from the tables (a name matcher) is stale
        self._load()

    @property
    def db(self):
        """sqlite-utils over the same connection, for writes (imported on first use: reading the
        catalog, which every answer does, needs only sqlite3 and starts faster)."""
        import sqlite_utils

        return sqlite_utils.Database(self._conn)

    # --- opening -----------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path | None = None, *, writable: bool = False) -> "Catalog":
        """Open the catalog at ``path`` (default ``catalog.db``). When no file is there and we
        only read, build one in memory from the packaged source data instead."""
        p = Path(path) if path else DEFAULT_PATH
        if not p.exists():
            if writable or path:
                raise CatalogError(
                    f"No catalog at {p}. Build one with: advisor catalog build --db {p}"
                )
            return cls.in_memory()
        if writable:
            conn = sqlite3.connect(p, check_same_thread=False)
            schema.migrate(conn)
        else:
            conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True, check_same_thread=False)
        return cls(conn, p)

    @classmethod
    def in_memory(cls) -> "Catalog":
        """A fresh build from the source data, held in memory (tests, and a missing catalog.db)."""
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            built = schema.build(Path(tmp) / "catalog.db")
            disk = sqlite3.connect(built)
            mem = sqlite3.connect(":memory:", check_same_thread=False)
            disk.backup(mem)
            disk.close()
        return cls(mem, None)

    def close(self) -> None:
        self._conn.close()

    def reload(self) -> None:
        """Read the tables again (another connection, e.g. an admin command, changed them)."""
        self._load()

    # --- reading -----------------------------------------------------------------------------

    def _load(self) -> None:
        rows = self._conn.execute("SELECT * FROM gpus ORDER BY offered DESC, price_usd_per_hour, id")
        cols = [d[0] for d in rows.description]
        self._gpus = [self._gpu(dict(zip(cols, r))) for r in rows.fetchall()]
        rows = self._conn.execute("SELECT * FROM models ORDER BY id")
        cols = [d[0] for d in rows.description]
        self._models = [self._model(dict(zip(cols, r))) for r in rows.fetchall()]
        rows = self._conn.execute("SELECT * FROM regions ORDER BY id")
        cols = [d[0] for d in rows.description]
        self._regions = [Region(**{**dict(zip(cols, r)), "aliases": json.loads(r[cols.index("aliases")])}) for r in rows.fetchall()]
        self._gpu_index = NameIndex((g.id, [*g.aliases, g.display_name]) for g in self._gpus)
        self._model_index = NameIndex((m.id, [*m.aliases, m.hub_id, m.display_name]) for m in self._models)
        self._shapes: dict[str, list[NodeShape]] = {}
        self._layouts: dict[tuple, list[Layout]] = {}
        has_shapes = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'node_shapes'").fetchone()
        if has_shapes:  # a catalog built before migration 4, opened read-only, has none (defaults below)
            rows = self._conn.execute("SELECT gpu, region, gpus_per_node, multi_node, network_gbps, source "
                                      "FROM node_shapes ORDER BY gpu, region, gpus_per_node")
            for gpu, region, per_node, multi, network, source in rows.fetchall():
                self._shapes.setdefault(gpu, []).append(NodeShape(
                    gpu=gpu, region=region, gpus_per_node=per_node, multi_node=bool(multi), network_gbps=network,
                    source=source))
        self._region_index = NameIndex((r.id, [*r.aliases, r.display_name, r.city]) for r in self._regions)
        self.version += 1

    @staticmethod
    def _gpu(row: dict[str, Any]) -> Gpu:
        row["aliases"] = json.loads(row["aliases"])
        row["regions"] = json.loads(row["regions"])
        return Gpu(**row)

    @staticmethod
    def _model(row: dict[str, Any]) -> ModelEntry:
        arch = Architecture(**{k: row.pop(k) for k in _ARCH_FIELDS})
        row["aliases"] = json.loads(row["aliases"])
        return ModelEntry(**row, arch=arch)

    def gpus(self, *, offered_only: bool = False) -> list[Gpu]:
        """GPUs, offered ones first (cheapest first), then the known-but-not-offered ones."""
        return [g for g in self._gpus if g.offered or not offered_only]

    def models(self) -> list[ModelEntry]:
        return list(self._models)

    def layouts(self, gpu: Gpu, region: str | None, max_gpus: int) -> list[Layout]:
        """The rentable GPU counts of ``gpu`` up to ``max_gpus`` (advisor.catalog.shapes.layouts),
        cached until the catalog is loaded again (the ranking asks for them on every answer)."""
        key = (gpu.id, region if gpu.offered else None, max_gpus)
        hit = self._layouts.get(key)
        if hit is None:
            hit = self._layouts[key] = layouts(self.node_shapes(gpu, key[1]), max_gpus)
        return hit

    def node_shapes(self, gpu: Gpu | str, region: str | None = None) -> list[NodeShape]:
        """The machine shapes ``gpu`` is rented as (in ``region``, or in every region it is
        offered in). A GPU with no stored shape there (one we do not rent, or a region an admin
        added to an offer after the shapes were written) gets the default shapes
        (advisor.catalog.shapes.default_shapes), marked ``source="default"``."""
        g = gpu if isinstance(gpu, Gpu) else self.gpu(gpu)
        regions = [region] if region else (g.regions if g.offered else [])
        stored = [s for s in self._shapes.get(g.id, []) if s.region in regions]
        missing = [r for r in regions if not any(s.region == r for s in stored)]
        if missing or not regions:
            network = g.network_gbps or None
            for r in missing or [""]:
                stored += [s.model_copy(update={"region": r}) for s in default_shapes(g.id, g.gpus_per_node, network)]
        return stored

    def regions(self) -> list[Region]:
        return list(self._regions)

    def gpu(self, name: str) -> Gpu:
        ident = self._gpu_index.get(name)
        if ident is None:
            raise UnknownGpu(name, self._gpu_index.suggest(name))
        return next(g for g in self._gpus if g.id == ident)

    def model(self, name: str) -> ModelEntry:
        ident = self._model_index.get(name)
        if ident is None:
            raise UnknownModel(name, self._model_index.suggest(name))
        return next(m for m in self._models if m.id == ident)

    def find_gpu(self, name: str) -> Gpu | None:
        ident = self._gpu_index.get(name)
        return next(g for g in self._gpus if g.id == ident) if ident else None

    def find_model(self, name: str) -> ModelEntry | None:
        ident = self._model_index.get(name)
        return next(m for m in self._models if m.id == ident) if ident else None

    def region(self, name: str) -> Region:
        ident = self._region_index.get(name)
        if ident is None:
            raise CatalogError(
                f"Unknown region {name!r}. Known: {', '.join(r.display_name for r in self._regions)}."
            )
        return next(r for r in self._regions if r.id == ident)

    def find_region(self, name: str) -> Region | None:
        ident = self._region_index.get(name)
        return next((r for r in self._regions if r.id == ident), None)

    def storage_price(self, region: str | None = None, kind: str = "persistent-volume") -> float:
        """$/GB-month of persistent storage in ``region`` (the dearest region when unknown)."""
        rows = self._conn.execute(
            "SELECT region, usd_per_gb_month FROM storage_prices WHERE kind = ?", (kind,)
        ).fetchall()
        if not rows:
            raise CatalogError(f"The catalog has no storage price for {kind!r}.")
        by_region = dict(rows)
        return by_region.get(region, max(by_region.values()))

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        cur = self._conn.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    # --- changing (each change and its audit row in one transaction) ----------------------------

    def _audit(self, actor: str, action: str, table: str, row_id: str,
               changes: Iterable[tuple[str | None, Any, Any]]) -> None:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        self._conn.executemany(
            "INSERT INTO audit (at, actor, action, table_name, row_id, field, old_value, new_value) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(at, actor, action, table, row_id, f, json.dumps(o), json.dumps(n)) for f, o, n in changes],
        )

    def _require_writable(self) -> None:
        if self.path is None:
            raise CatalogError("This catalog is an in-memory copy; open a file with --db to change it.")

    def update_gpu(self, name: str, actor: str, **fields: Any) -> Gpu:
        """Change editable fields of a GPU (price, offered, regions, ...), audited."""
        self._require_writable()
        gpu = self.gpu(name)
        bad = set(fields) - _EDITABLE_GPU_FIELDS
        if bad:
            raise CatalogError(f"Cannot change {', '.join(sorted(bad))}; editable: {', '.join(sorted(_EDITABLE_GPU_FIELDS))}.")
        if "price_usd_per_hour" in fields:
            price = fields["price_usd_per_hour"]
            if price is not None and not 0 < float(price) < 1000:
                raise CatalogError(f"A price must be between $0 and $1000 per hour; got {price}.")
        if "regions" in fields:
            fields["regions"] = [self.region(r).id for r in fields["regions"]]
        old = gpu.model_dump()
        stored = {k: (json.dumps(v) if isinstance(v, list) else int(v) if isinstance(v, bool) else v)
                  for k, v in fields.items()}
        with self._conn:
            self.db["gpus"].update(gpu.id, stored)
            self._audit(actor, "update", "gpus", gpu.id, [(k, old[k], v) for k, v in fields.items()])
        self._load()
        return self.gpu(gpu.id)

    def add_gpu(self, row: dict[str, Any], actor: str) -> Gpu:
        self._require_writable()
        if self.find_gpu(row["id"]):
            raise CatalogError(f"A GPU {row['id']!r} is already in the catalog; use set-price or set-offered.")
        stored = {k: (json.dumps(v) if isinstance(v, list) else v) for k, v in row.items()}
        try:
            self._gpu(dict(stored))  # validate before writing
        except Exception as exc:  # pydantic lists every missing or bad field
            raise CatalogError(f"Invalid GPU row: {exc}") from None
        with self._conn:
            self.db["gpus"].insert(stored)
            self._audit(actor, "add", "gpus", row["id"], [(None, None, row)])
        self._load()
        return self.gpu(row["id"])

    def remove_gpu(self, name: str, actor: str) -> None:
        self._require_writable()
        gpu = self.gpu(name)
        with self._conn:
            self._conn.execute("DELETE FROM gpus WHERE id = ?", (gpu.id,))
            if self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'node_shapes'").fetchone():
                self._conn.execute("DELETE FROM node_shapes WHERE gpu = ?", (gpu.id,))
            self._audit(actor, "remove", "gpus", gpu.id, [(None, gpu.model_dump(), None)])
        self._load()

    def set_storage_price(self, region: str, usd_per_gb_month: float, actor: str) -> None:
        self._require_writable()
        reg = self.region(region)
        if not 0 <= usd_per_gb_month < 100:
            raise CatalogError(f"A storage price must be between $0 and $100 per GB-month; got {usd_per_gb_month}.")
        old = self.storage_price(reg.id)
        with self._conn:
            self._conn.execute(
                "UPDATE storage_prices SET usd_per_gb_month = ? WHERE region = ? AND kind = 'persistent-volume'",
                (usd_per_gb_month, reg.id),
            )
            self._audit(actor, "update", "storage_prices", reg.id, [("usd_per_gb_month", old, usd_per_gb_month)])
