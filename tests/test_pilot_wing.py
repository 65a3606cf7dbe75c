"""The pilot wing (bot/pilot/) and what it shares with the CLI: the FSDP "one GPU only" refusal
raised in one place before anything is proposed or launched (advisor.pilot.spec.one_gpu_only),
the one fit rule in the pilot's confirmation (advisor.fit), every state change through
advisor.pilot.tracking."""

from __future__ import annotations

import ast

import pytest

from advisor.errors import PilotError
from advisor.fit import memory_fits
from advisor.memory import estimate_memory
from advisor.pilot import tracking
from advisor.pilot.predict import predict
from advisor.pilot.spec import pilot_spec_for
from advisor.pilot.store import PilotStore
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from tests.conftest import ROOT, run_advisor

REFUSAL = "A pilot runs on one GPU"


def _resolved(catalog, **said):
    return resolve_request(SpecRequest(**said), catalog)


def test_a_sharded_spec_is_refused_before_a_pilot_spec_exists(catalog):
    gpu = catalog.gpu("a100-80gb")
    with pytest.raises(PilotError, match=REFUSAL):
        pilot_spec_for(_resolved(catalog, model="llama-3.1-8b", method="lora", num_gpus=2, sharding="fsdp"), gpu)
    assert pilot_spec_for(_resolved(catalog, model="llama-3.1-8b", method="lora"), gpu).spec.num_gpus == 1


def test_the_cli_pilots_one_card_of_a_sharded_plan_and_says_what_it_measures(tmp_path):
    """#16 item 7: `advisor pilot run --num-gpus 2 --sharding fsdp` pilots the plan as "Run pilot"
    does (advisor.pilot.plan): one process on one card, never a sharded spec (one_gpu_only still
    guards the runner), and it says on stderr what that card measures of the plan."""
    from advisor.pilot.store import PilotStore

    result = run_advisor("pilot", "run", "--model", "tiny-test", "--method", "lora", "--seq-len", "128",
                         "--num-gpus", "2", "--sharding", "fsdp", "--state-db", str(tmp_path / "state.db"),
                         "--out-dir", str(tmp_path / "runs"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "not the plan's per-GPU shard" in result.stderr
    [rec] = PilotStore(tmp_path / "state.db").records()
    assert rec.pilot_spec.spec.num_gpus == 1 and REFUSAL not in result.stderr


def test_the_refusal_is_written_once():
    """Its words live in advisor.pilot.spec alone; the bot and the runner call it."""
    sources = [p for d in ("advisor", "bot") for p in (ROOT / d).rglob("*.py")]
    holders = [p.relative_to(ROOT).as_posix() for p in sources if REFUSAL in p.read_text(encoding="utf-8")]
    assert holders == ["advisor/pilot/spec.py"]


@pytest.mark.parametrize("model, method, gpu", [("llama-3.1-8b", "lora", "a10g"), ("llama-3.1-8b", "qlora", "a10g"),
                                                ("llama-3.1-70b", "qlora", "rtx-4090")])
def test_the_pilot_prediction_uses_the_rankings_fit_rule(catalog, model, method, gpu):
    g = catalog.gpu(gpu)
    resolved = _resolved(catalog, model=model, method=method)
    pred = predict(pilot_spec_for(resolved, g), g)
    one = estimate_memory(resolved.spec.model_copy(update={"num_gpus": 1}), resolved.arch)
    assert pred["fits"] == memory_fits(one, g.usable_memory_bytes)
    from advisor.recommend import recommend

    option = recommend(resolved, catalog).option(gpu)
    assert pred["fits"] == (option.fits and option.num_gpus == 1)


def test_the_confirmation_warns_when_the_estimate_says_it_will_not_fit(catalog, tmp_path):
    from bot.pilot.render import confirmation

    store = PilotStore(tmp_path / "state.db")
    g = catalog.gpu("a10g")
    for method, warned in (("lora", True), ("qlora", False)):  # the A10G case of issue #15
        pspec = pilot_spec_for(_resolved(catalog, model="llama-3.1-8b", method=method), g)
        pred = predict(pspec, g)
        rec = store.create(pspec, launcher="local", prediction=pred, estimated_cost_usd=pred["cost_usd"],
                           estimated_duration_s=pred["duration_s"])
        text, _ = confirmation(rec, "Llama 3.1 8B", "en")
        assert ("does not fit" in text) == warned, method


def test_pilot_states_change_only_in_tracking_and_the_store():
    """``PilotStore.transition`` is called by advisor.pilot.tracking (and the store's own
    ``apply_status``) alone: the bot and the CLI call tracking."""
    callers = []
    for path in [p for d in ("advisor", "bot") for p in (ROOT / d).rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "transition":
                callers.append(path.relative_to(ROOT).as_posix())
    assert set(callers) == {"advisor/pilot/tracking.py", "advisor/pilot/store.py"}


def test_a_declined_proposal_is_declined_once(catalog, tmp_path):
    store = PilotStore(tmp_path / "state.db")
    pspec = pilot_spec_for(_resolved(catalog, model="tiny-test", method="lora", seq_len=128))
    rec = store.create(pspec, launcher="local")
    assert tracking.decline(store, rec.id, notified=True) and not tracking.decline(store, rec.id)
    assert store.require(rec.id).state == "declined" and not tracking.confirm(store, rec.id, "U1")


def test_the_wing_is_one_package():
    assert not [p for p in (ROOT / "bot").glob("pilots*.py")]
    assert {p.name for p in (ROOT / "bot" / "pilot").glob("*.py")} >= {"__init__.py", "flow.py", "policy.py", "render.py",
                                                                     "listeners.py"}
