import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from advisor.catalog import Catalog, build, dump
from advisor.errors import CatalogError, UnknownModel
from tests.conftest import ROOT

OFFERED = {"rtx-4090": 0.34, "l40s": 0.79, "a100-80gb": 1.19, "h100-sxm": 2.69}


def test_committed_catalog_equals_a_fresh_build(tmp_path):
    assert dump(ROOT / "catalog.db") == dump(build(tmp_path / "fresh.db"))


def test_list_json_has_the_four_offered_gpus_with_prices_and_regions(cli):
    out = json.loads(cli("catalog", "list", "--json").output)
    assert {g["id"]: g["price_usd_per_hour"] for g in out["gpus"]} == OFFERED
    assert all(g["regions"] == ["eu-west", "eu-central"] for g in out["gpus"])
    assert {r["display_name"] for r in out["regions"]} == {"EU West (Paris)", "EU Central (Frankfurt)"}


@pytest.mark.parametrize("alias", ["H100", "h100-sxm", "h100s", "NVIDIA H100 SXM 80 GB", "h100 sxm5"])
def test_show_resolves_gpu_aliases(cli, alias):
    out = json.loads(cli("catalog", "show", alias, "--json").output)
    assert out["id"] == "h100-sxm"


@pytest.mark.parametrize("alias,expected", [
    ("llama 3 70b", "llama-3-70b"),
    ("Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("meta-llama/Meta-Llama-3-70B", "llama-3-70b"),
    ("mistral-7b", "mistral-7b-v0.3"),
    ("qwen2.5 14b", "qwen2.5-14b"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
    ("google/gemma-2-9b-it", "gemma-2-9b"),
    ("mixtral 8x7b", "mixtral-8x7b"),
    ("phi-3-mini", "phi-3-mini"),
    ("TinyLlama 1.1B", "tinyllama-1.1b"),
])
def test_model_aliases(catalog, alias, expected):
    assert catalog.model(alias).id == expected


def test_show_llama_3_1_70b_gives_the_exact_architecture(cli):
    out = json.loads(cli("catalog", "show", "llama-3.1-70b", "--json").output)
    expected = dict(layers=80, hidden=8192, intermediate=28672, heads=64, kv_heads=8, head_dim=128,
                    vocab=128256, tied_embeddings=False, mlp_kind="gated")
    assert {k: out[k] for k in expected} == expected


def test_unknown_model_suggests_the_closest(catalog, cli):
    with pytest.raises(UnknownModel) as err:
        catalog.model("lama 3 70")
    assert "llama-3-70b" in err.value.suggestions
    result = cli("catalog", "show", "llama-3.9-70b")
    assert result.exit_code == 2 and "Closest matches" in result.output


def test_at_least_35_models_of_the_named_families(catalog):
    models = catalog.models()
    assert len(models) >= 35
    families = {m.family for m in models}
    assert {"llama", "mistral", "mixtral", "qwen", "gemma", "phi", "tinyllama", "yi", "falcon", "deepseek"} <= families


def test_computed_parameter_counts_match_published_totals(catalog):
    # The architecture is right when its parameter count matches the published total. 1.5%:
    # Gemma/Qwen3/OLMo carry extra q/k norms and Falcon's published total counts its tied head.
    for m in catalog.models():
        if m.params_published:
            assert m.params_total == pytest.approx(m.params_published, rel=0.015), m.id


def test_set_price_on_a_copy_writes_audit_and_leaves_committed_catalog_alone(cli, scratch_db):
    before = hashlib.sha256((ROOT / "catalog.db").read_bytes()).hexdigest()
    result = cli("catalog", "set-price", "a100", "1.09", "--db", str(scratch_db), "--actor", "U123")
    assert result.exit_code == 0, result.output
    cat = Catalog.open(scratch_db)
    assert cat.gpu("a100").price_usd_per_hour == 1.09
    audit = cat.audit_log()
    assert audit[0]["actor"] == "U123" and audit[0]["row_id"] == "a100-80gb"
    assert json.loads(audit[0]["old_value"]) == 1.19 and json.loads(audit[0]["new_value"]) == 1.09
    assert hashlib.sha256((ROOT / "catalog.db").read_bytes()).hexdigest() == before


def test_set_offered_add_remove_are_audited(cli, scratch_db):
    db = str(scratch_db)
    assert cli("catalog", "set-offered", "h200", "yes", "--price", "3.5", "--db", db).exit_code == 0
    cat = Catalog.open(scratch_db)
    assert cat.gpu("h200").offered and cat.gpu("h200").regions == ["eu-central", "eu-west"]
    row = json.loads(cli("catalog", "show", "l4", "--json").output)
    row.update(id="l4-custom", aliases=["l4c"], display_name="L4 custom")
    assert cli("catalog", "add", json.dumps(row), "--db", db).exit_code == 0
    assert cli("catalog", "remove", "l4c", "--db", db).exit_code == 0
    log = Catalog.open(scratch_db).audit_log()
    assert [r["action"] for r in log[:2]] == ["remove", "add"]
    assert {r["field"] for r in log[2:]} == {"offered", "price_usd_per_hour", "regions"}  # one row per field


@pytest.mark.parametrize("args,message", [
    (("set-price", "a100", "0"), "between $0 and $1000"),
    (("set-price", "b300", "2"), "Unknown GPU"),
    (("set-offered", "l4", "yes"), "has no price"),
])
def test_bad_admin_edits_are_refused_with_a_reason(cli, scratch_db, args, message):
    result = cli("catalog", *args, "--db", str(scratch_db))
    assert result.exit_code == 2 and message in result.output


def test_edits_need_an_existing_database(cli, tmp_path):
    result = cli("catalog", "set-price", "a100", "1", "--db", str(tmp_path / "missing.db"))
    assert result.exit_code == 2 and "advisor catalog build" in result.output


def test_build_check_detects_a_stale_catalog(cli, scratch_db):
    assert cli("catalog", "build", "--check", "--db", str(scratch_db)).exit_code == 0
    cli("catalog", "set-price", "a100", "1.0", "--db", str(scratch_db))
    assert cli("catalog", "build", "--check", "--db", str(scratch_db)).exit_code == 2


def test_migrations_bring_an_empty_database_to_the_current_schema(tmp_path):
    from advisor.catalog.schema import SCHEMA_VERSION, migrate

    conn = sqlite3.connect(tmp_path / "old.db")
    assert migrate(conn) == SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"gpus", "models", "regions", "storage_prices", "audit"} <= tables


def test_usable_memory_is_a_little_below_the_marketing_number(catalog):
    # vendors' "GB" are GiB-sized for GDDR cards (a 4090 has 24564 MiB); torch sees less
    for g in catalog.gpus():
        assert 0.9 * g.memory_gb * 1e9 < g.usable_memory_bytes < g.memory_gb * 1024**3, g.id


def test_storage_price_per_region(catalog):
    assert catalog.storage_price("eu-west") > 0
    with pytest.raises(CatalogError):
        catalog.region("mars")


def test_every_offered_gpu_has_node_shapes_in_every_region_it_is_offered_in(catalog):
    """Migration 4: what a provider rents, per GPU type and region, each figure with its source."""
    for g in catalog.gpus(offered_only=True):
        for region in g.regions:
            shapes = catalog.node_shapes(g, region)
            assert shapes and all(s.source and s.source != "default" for s in shapes), (g.id, region)
            sizes = [s.gpus_per_node for s in shapes]
            assert sizes == sorted(set(sizes)) and 1 in sizes, (g.id, region, sizes)
            for s in shapes:  # a clustered shape says how fast the network between its machines is
                assert not s.multi_node or (s.network_gbps or 0) > 0, (g.id, region, s)


def test_node_shapes_name_only_catalog_gpus_and_regions():
    from advisor.catalog.schema import DATA_DIR, gpu_rows, shape_rows

    gpus = {r["id"]: r for r in gpu_rows()}
    regions = {r.split(",")[0] for r in (DATA_DIR / "regions.csv").read_text().splitlines()[1:]}
    for s in shape_rows():
        assert s["gpu"] in gpus and gpus[s["gpu"]]["offered"] and s["region"] in regions, s


def test_a_gpu_offered_after_the_shapes_were_written_gets_default_shapes(cli, scratch_db):
    """The admin paths keep working: set-offered on a GPU without shapes, add, remove."""
    assert cli("catalog", "set-offered", "h200", "yes", "--price", "3.5", "--db", str(scratch_db)).exit_code == 0
    cat = Catalog.open(scratch_db)
    shapes = cat.node_shapes("h200", "eu-west")
    assert [s.gpus_per_node for s in shapes] == [1, 2, 4, 8] and {s.source for s in shapes} == {"default"}
    assert cli("catalog", "remove", "h100-sxm", "--db", str(scratch_db)).exit_code == 0
    conn = sqlite3.connect(scratch_db)
    assert conn.execute("SELECT count(*) FROM node_shapes WHERE gpu = 'h100-sxm'").fetchone()[0] == 0


def test_a_schema_3_catalog_is_migrated_to_node_shapes(tmp_path):
    from advisor.catalog.schema import MIGRATIONS, SCHEMA_VERSION

    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    for number, script in enumerate(MIGRATIONS[:3]):
        conn.executescript(script)
        conn.execute(f"PRAGMA user_version = {number + 1}")
    conn.commit()
    conn.close()
    ro = Catalog.open(path)  # read-only, before migration 4: default shapes, no error
    assert ro.gpus() == [] and ro.version == 1
    ro.close()
    cat = Catalog.open(path, writable=True)
    assert cat._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert cat._conn.execute("SELECT count(*) FROM node_shapes").fetchone()[0] == 0
