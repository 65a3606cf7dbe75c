"""The catalog's SQLite schema, its migrations, and the build from readable source data.

Source data (reviewed like code) lives in ``advisor/catalog/data/``:
``gpus.csv``, ``models.toml``, ``regions.csv``, ``storage_prices.csv``, ``node_shapes.csv``. ``build`` turns them into a
database; the committed ``catalog.db`` must equal a fresh build (``tests/test_catalog.py``).

Migrations are numbered SQL scripts applied in order; ``PRAGMA user_version`` records the last
one applied, so an older database is brought forward when opened for writing.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import tomllib
from pathlib import Path

from advisor.arch import Architecture
from advisor.errors import CatalogError

DATA_DIR = Path(__file__).with_name("data")
GIB = 1024**3

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE gpus (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        vendor TEXT NOT NULL,
        architecture TEXT NOT NULL,
        form_factor TEXT NOT NULL,
        aliases TEXT NOT NULL,              -- JSON list
        memory_gb REAL NOT NULL,            -- marketing capacity
        usable_memory_bytes INTEGER NOT NULL,  -- what torch sees (total_memory)
        usable_memory_source TEXT NOT NULL,
        memory_type TEXT NOT NULL,
        ecc INTEGER NOT NULL,
        memory_bandwidth_gbs REAL NOT NULL, -- GB/s
        bf16_tflops REAL NOT NULL,          -- dense
        fp16_tflops REAL NOT NULL,
        fp8_tflops REAL,                    -- NULL: no FP8 tensor cores
        fp32_tflops REAL NOT NULL,
        interconnect TEXT NOT NULL,
        interconnect_gbs REAL NOT NULL,     -- GPU-GPU GB/s, 0 = PCIe only
        pcie_gen TEXT NOT NULL,
        tdp_w INTEGER NOT NULL,
        ray_accelerator_type TEXT,          -- ray.util.accelerators name, NULL if none
        price_usd_per_hour REAL,            -- NULL: we do not rent it
        offered INTEGER NOT NULL,
        regions TEXT NOT NULL,              -- JSON list of region ids
        good_for TEXT NOT NULL,
        datasheet_source TEXT NOT NULL
    );
    CREATE TABLE models (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        family TEXT NOT NULL,
        hub_id TEXT NOT NULL,
        aliases TEXT NOT NULL,              -- JSON list
        params_total INTEGER NOT NULL,      -- computed from the architecture
        params_embedding INTEGER NOT NULL,  -- input embedding (+ LM head when untied)
        params_published INTEGER NOT NULL,  -- as published (0 = unknown)
        layers INTEGER NOT NULL,
        hidden INTEGER NOT NULL,
        intermediate INTEGER NOT NULL,
        heads INTEGER NOT NULL,
        kv_heads INTEGER NOT NULL,
        head_dim INTEGER NOT NULL,
        vocab INTEGER NOT NULL,
        tied_embeddings INTEGER NOT NULL,
        mlp_kind TEXT NOT NULL,
        norm TEXT NOT NULL,
        attn_bias INTEGER NOT NULL,
        experts INTEGER NOT NULL,
        experts_per_token INTEGER NOT NULL,
        max_position INTEGER NOT NULL,
        source TEXT NOT NULL,
        verified INTEGER NOT NULL,
        notes TEXT NOT NULL
    );
    CREATE TABLE regions (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        city TEXT NOT NULL,
        country TEXT NOT NULL,
        aliases TEXT NOT NULL
    );
    CREATE TABLE storage_prices (
        region TEXT NOT NULL REFERENCES regions(id),
        kind TEXT NOT NULL,
        usd_per_gb_month REAL NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (region, kind)
    );
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,                   -- UTC ISO-8601
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        table_name TEXT NOT NULL,
        row_id TEXT NOT NULL,
        field TEXT,
        old_value TEXT,                     -- JSON
        new_value TEXT                      -- JSON
    );
    """,
    # 2: what the step-time model needs beyond peaks and bandwidth (advisor.steptime): SM count
    # (wave quantization of GEMM tiles and attention blocks), the host link, the node shape and
    # the provider's network between nodes (multi-node collectives), each with its source
    """
    ALTER TABLE gpus ADD COLUMN sm_count INTEGER NOT NULL DEFAULT 0;      -- SMs (CUs on AMD)
    ALTER TABLE gpus ADD COLUMN sm_source TEXT NOT NULL DEFAULT '';
    ALTER TABLE gpus ADD COLUMN pcie_gbs REAL NOT NULL DEFAULT 0;         -- host link, GB/s per direction
    ALTER TABLE gpus ADD COLUMN interconnect_source TEXT NOT NULL DEFAULT '';
    ALTER TABLE gpus ADD COLUMN gpus_per_node INTEGER NOT NULL DEFAULT 8;
    ALTER TABLE gpus ADD COLUMN network_gbps REAL NOT NULL DEFAULT 0;     -- provider network per node, Gb/s
    ALTER TABLE gpus ADD COLUMN network_source TEXT NOT NULL DEFAULT '';
    """,
    # 3: the exact Ray accelerator label a pilot asks for. ``ray_accelerator_type`` is what Ray
    # puts on a node by itself from the NVML device name (ray 2.60,
    # ray/_private/accelerators/nvidia_gpu.py, NvidiaGPUAcceleratorManager.
    # _gpu_name_to_accelerator_type: "NVIDIA A100-SXM4-80GB" -> "A100", "NVIDIA H100 80GB HBM3"
    # and "NVIDIA H100 PCIe" -> "H100", "NVIDIA GeForce RTX 4090" -> "GeForce-RTX-4090"); where two
    # catalog GPUs share it, the label tells them apart, and operators add it to those nodes
    # (`ray start --resources='{"accelerator_type:A100-80G": 1}'`), as Ray's own A100-40G and
    # A100-80G constants require (ray/util/accelerators/accelerators.py: "these labels are not
    # auto-added to nodes, you'll have to add them manually").
    """
    ALTER TABLE gpus ADD COLUMN ray_accelerator_label TEXT;
    """,
    # 4: the node shapes a provider rents, per GPU type and region (issue #16: "L40S x16" is not a
    # machine anyone rents). One row per shape: GPUs in one machine (1/2/4/8), whether whole
    # machines of that shape are clustered (multi-node), and the network between them per node
    # (Gb/s; NULL on a shape that is never clustered). A plan's GPU count is a shape's size, or
    # nodes x a multi-node shape's size (advisor.catalog.shapes). Each row says where its figure
    # comes from, or that it is the provider's stated offer.
    """
    CREATE TABLE node_shapes (
        gpu TEXT NOT NULL REFERENCES gpus(id) ON DELETE CASCADE,
        region TEXT NOT NULL REFERENCES regions(id),
        gpus_per_node INTEGER NOT NULL CHECK (gpus_per_node >= 1),
        multi_node INTEGER NOT NULL DEFAULT 0,
        network_gbps REAL,                  -- per node, between nodes (multi-node shapes)
        source TEXT NOT NULL,
        PRIMARY KEY (gpu, region, gpus_per_node)
    );
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations this database has not seen; returns the resulting version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise CatalogError(
            f"This catalog has schema version {version}, newer than this advisor knows "
            f"({SCHEMA_VERSION}). Upgrade the advisor."
        )
    for number in range(version, SCHEMA_VERSION):
        with conn:
            conn.executescript(MIGRATIONS[number])
            conn.execute(f"PRAGMA user_version = {number + 1}")
    return SCHEMA_VERSION


def _split(cell: str) -> list[str]:
    return [part.strip() for part in cell.split(";") if part.strip()]


def _num(cell: str) -> float | None:
    return float(cell) if cell.strip() else None


def gpu_rows(path: Path = DATA_DIR / "gpus.csv") -> list[dict]:
    rows = []
    with path.open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            rows.append({
                "id": r["id"],
                "display_name": r["display_name"],
                "vendor": r["vendor"],
                "architecture": r["architecture"],
                "form_factor": r["form_factor"],
                "aliases": json.dumps(_split(r["aliases"])),
                "memory_gb": float(r["memory_gb"]),
                "usable_memory_bytes": round(float(r["usable_memory_gib"]) * GIB),
                "usable_memory_source": r["usable_memory_source"],
                "memory_type": r["memory_type"],
                "ecc": int(r["ecc"]),
                "memory_bandwidth_gbs": float(r["mem_bw_tbps"]) * 1000,
                "bf16_tflops": float(r["bf16_tflops"]),
                "fp16_tflops": float(r["fp16_tflops"]),
                "fp8_tflops": _num(r["fp8_tflops"]),
                "fp32_tflops": float(r["fp32_tflops"]),
                "interconnect": r["interconnect"],
                "interconnect_gbs": float(r["interconnect_gbps"]),
                "pcie_gen": r["pcie_gen"],
                "tdp_w": int(r["tdp_w"]),
                "ray_accelerator_type": r["ray_accelerator_type"] or None,
                "ray_accelerator_label": r["ray_accelerator_label"] or None,
                "price_usd_per_hour": _num(r["price_usd_per_hour"]),
                "offered": int(r["offered"]),
                "regions": json.dumps(_split(r["regions"])),
                "good_for": r["good_for"],
                "datasheet_source": r["datasheet_source"],
                "sm_count": int(r["sm_count"]),
                "sm_source": r["sm_source"],
                "pcie_gbs": float(r["pcie_gbs"]),
                "interconnect_source": r["interconnect_source"],
                "gpus_per_node": int(r["gpus_per_node"]),
                "network_gbps": float(r["network_gbps"]),
                "network_source": r["network_source"],
            })
    return rows


def shape_rows(path: Path = DATA_DIR / "node_shapes.csv") -> list[dict]:
    """Node shapes (migration 4): one row per GPU type, region and GPUs per node."""
    rows = []
    with path.open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            multi = int(r["multi_node"])
            network = _num(r["network_gbps"])
            if multi and not network:
                raise CatalogError(f"node_shapes.csv: {r['gpu']} in {r['region']} is multi-node without a "
                                   "network_gbps figure between nodes")
            rows.append({"gpu": r["gpu"], "region": r["region"], "gpus_per_node": int(r["gpus_per_node"]),
                         "multi_node": multi, "network_gbps": network, "source": r["source"]})
    return rows


def model_rows(path: Path = DATA_DIR / "models.toml") -> list[dict]:
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    rows = []
    for m in data["model"]:
        arch = Architecture(
            layers=m["layers"], hidden=m["hidden"], intermediate=m["intermediate"],
            heads=m["heads"], kv_heads=m["kv_heads"], head_dim=m["head_dim"], vocab=m["vocab"],
            tied_embeddings=m["tied_embeddings"], mlp_kind=m["mlp_kind"], norm=m["norm"],
            attn_bias=m["attn_bias"], experts=m.get("experts", 0),
            experts_per_token=m.get("experts_per_token", 0),
        )
        rows.append({
            "id": m["id"],
            "display_name": m["display_name"],
            "family": m["family"],
            "hub_id": m["hub_id"],
            "aliases": json.dumps(m.get("aliases", [])),
            "params_total": arch.params_total,
            "params_embedding": arch.params_embedding + arch.params_head,
            "params_published": int(m.get("params_total", 0)),
            **{k: (int(v) if isinstance(v, bool) else v) for k, v in arch.model_dump().items()},
            "max_position": m.get("max_position", 0),
            "source": m.get("source", ""),
            "verified": int(bool(m.get("verified", False))),
            "notes": m.get("notes", ""),
        })
    return rows


def _csv_rows(path: Path, json_cols: tuple[str, ...] = (), float_cols: tuple[str, ...] = ()) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for c in json_cols:
            r[c] = json.dumps(_split(r[c]))
        for c in float_cols:
            r[c] = float(r[c])
    return rows


def build(target: Path, data_dir: Path = DATA_DIR) -> Path:
    """Build a fresh catalog database at ``target`` from the source data (replacing it)."""
    target = Path(target)
    tmp = target.with_name(target.name + ".building")
    tmp.unlink(missing_ok=True)
    import sqlite_utils  # build is an admin command; reading the catalog does not need it

    conn = sqlite3.connect(tmp)
    try:
        migrate(conn)
        db = sqlite_utils.Database(conn)
        db["regions"].insert_all(_csv_rows(data_dir / "regions.csv", json_cols=("aliases",)))
        db["storage_prices"].insert_all(
            _csv_rows(data_dir / "storage_prices.csv", float_cols=("usd_per_gb_month",))
        )
        db["gpus"].insert_all(gpu_rows(data_dir / "gpus.csv"))
        db["models"].insert_all(model_rows(data_dir / "models.toml"))
        db["node_shapes"].insert_all(shape_rows(data_dir / "node_shapes.csv"))
        conn.commit()
        conn.execute("VACUUM")
    finally:
        conn.close()
    tmp.replace(target)
    return target


def dump(path: Path) -> list[str]:
    """A canonical text form of a catalog (schema and rows), for comparing two builds."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump()) + [f"user_version={conn.execute('PRAGMA user_version').fetchone()[0]}"]
    finally:
        conn.close()
