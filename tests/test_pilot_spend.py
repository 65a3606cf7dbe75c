"""`advisor pilot spend`: what pilots actually cost per user and per day, from the pilot records'
node time x the GPU's catalog price x GPUs held, over a SQLite and a PostgreSQL state database
(a real server, tests/pgserver.py), in a real process (`python -m advisor`)."""

from __future__ import annotations

import json
import time

import pytest

from advisor.catalog import Catalog
from advisor.pilot.spend import pilot_cost, pilot_spend
from advisor.pilot.store import PilotStore
from tests.conftest import run_advisor
from tests.home_helpers import seed_pilot

A100_PRICE = Catalog.in_memory().gpu("a100").price_usd_per_hour


def _seed(store: PilotStore) -> None:
    seed_pilot(store, "p-alice-ok", user="UALICE", held_s=600)  # a Ray pilot that finished after 10 minutes
    seed_pilot(store, "p-alice-oom", user="UALICE", state="failed", reason="oom", held_s=300)
    seed_pilot(store, "p-bob-local", user="UBOB", launcher="local", held_s=900)
    seed_pilot(store, "p-bob-cpu", user="UBOB", device="cpu", held_s=120)
    seed_pilot(store, "p-bob-nostart", user="UBOB", state="failed", reason="error", started=False)


def test_spend_json_per_user_and_day_over_both_backends(state_target):
    store = PilotStore(state_target)
    _seed(store)
    proc = run_advisor("pilot", "spend", "--json", "--state-db", state_target)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    by_id = {p["pilot_id"]: p for p in report["pilots"]}
    assert set(by_id) == {"p-alice-ok", "p-alice-oom", "p-bob-local", "p-bob-cpu", "p-bob-nostart"}
    ok, oom = by_id["p-alice-ok"], by_id["p-alice-oom"]
    # node time x catalog price x GPUs; the failed pilot still cost its five minutes
    assert ok["basis"] == "rented" and ok["gpus"] == 1 and ok["wall_source"] == "store_cost"
    assert ok["wall_s"] == pytest.approx(600, abs=5) and ok["cost_usd"] == pytest.approx(600 * A100_PRICE / 3600, rel=0.01)
    assert oom["state"] == "failed" and oom["basis"] == "rented"
    assert oom["cost_usd"] == pytest.approx(300 * A100_PRICE / 3600, rel=0.02)
    # free pilots say why
    assert [by_id[i]["basis"] for i in ("p-bob-local", "p-bob-cpu", "p-bob-nostart")] == ["local", "cpu", "not_started"]
    assert all(by_id[i]["cost_usd"] == 0 for i in ("p-bob-local", "p-bob-cpu", "p-bob-nostart"))
    assert by_id["p-bob-cpu"]["gpus"] == 0 and by_id["p-bob-cpu"]["device"] == "cpu"
    # totals per user and per UTC day
    assert report["by_user"]["UALICE"] == pytest.approx(ok["cost_usd"] + oom["cost_usd"])
    assert report["by_user"]["UBOB"] == 0 and report["total_usd"] == pytest.approx(report["by_user"]["UALICE"])
    assert ok["day"] == time.strftime("%Y-%m-%d", time.gmtime(ok["started_at"]))
    assert sum(report["by_user_day"]["UALICE"].values()) == pytest.approx(report["by_user"]["UALICE"])
    assert sum(report["by_day"].values()) == pytest.approx(report["total_usd"])
    # --user and --since
    mine = json.loads(run_advisor("pilot", "spend", "--json", "--user", "UBOB", "--state-db", state_target).stdout)
    assert {p["pilot_id"] for p in mine["pilots"]} == {"p-bob-local", "p-bob-cpu", "p-bob-nostart"}
    later = json.loads(run_advisor("pilot", "spend", "--json", "--since", "2999-01-01", "--state-db", state_target).stdout)
    assert later["pilots"] == [] and later["total_usd"] == 0


def test_spend_text_in_both_languages(tmp_path):
    state = str(tmp_path / "state.db")
    _seed(PilotStore(state))
    en = run_advisor("pilot", "spend", "--state-db", state)
    es = run_advisor("pilot", "spend", "--lang", "es", "--user", "UALICE", "--state-db", state)
    assert en.returncode == 0 and es.returncode == 0, en.stderr + es.stderr
    assert "Pilot spend — Everyone's pilots" in en.stdout and "Per user" in en.stdout
    assert "local launcher: the bot's own machine, no GPU rented, costs 0" in en.stdout
    assert "ran on the CPU, no GPU held, costs 0" in en.stdout and "never got a node, costs 0" in en.stdout
    assert "10 min × $1.19/h × 1 GPU" in en.stdout
    assert "Gasto en pilotos — Pilotos de UALICE" in es.stdout and "fallido" in es.stdout and "p-bob" not in es.stdout
    assert "Per day" not in es.stdout and "Por día (UTC)" in es.stdout
    bad = run_advisor("pilot", "spend", "--since", "last week", "--state-db", state)
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.stderr


def test_a_running_pilot_costs_its_time_so_far_and_an_unpriced_gpu_says_so(tmp_path):
    store = PilotStore(str(tmp_path / "state.db"))
    rec = seed_pilot(store, "p-run", user="UALICE", held_s=1200)
    running = store.update(rec.id, state="running", cost_usd=None)
    cost = pilot_cost(running, now=running.confirmed_at + 1800)
    assert cost.basis == "running" and cost.wall_s == pytest.approx(1800)
    assert cost.cost_usd == pytest.approx(1800 * A100_PRICE / 3600)
    unpriced = running.pilot_spec.model_copy(update={"price_usd_per_hour": None})
    store.update(rec.id, pilot_spec=unpriced.model_dump(mode="json"), state="finished")
    report = pilot_spend(store)
    [p] = report.pilots
    assert p.basis == "no_price" and p.cost_usd is None and report.unpriced == 1 and report.total_usd == 0
