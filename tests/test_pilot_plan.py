"""Issue #16 item 7: "Run pilot" pilots the answer's plan. An answer whose plan is 2 x H100 (FSDP)
proposes a pilot that says plainly why it runs on one card and what that card measures, and warns
that the unsharded step does not fit one H100; a one-GPU plan is piloted as it is. Through the
real bot and the fake Slack, in English and Spanish; advisor.pilot.plan's rules as unit tests."""

from __future__ import annotations

import json

import pytest

from advisor.pilot.plan import pilot_plan
from advisor.pilot.spec import one_gpu_only
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from tests.fakeslack import BotProcess, assert_valid_blocks, message_text

REQUEST = SpecRequest(method="full", model="llama-3.1-8b", seq_len=4096, gpu="h100-sxm")


def test_a_sharded_plan_is_piloted_unsharded_on_one_gpu_which_the_runner_accepts(catalog):
    plan = pilot_plan(REQUEST, 2, "fsdp")
    assert (plan.plan_gpus, plan.plan_sharding, plan.code, plan.fewer) == (2, "fsdp", "unsharded", True)
    spec = resolve_request(plan.request, catalog).spec
    assert spec.num_gpus == 1
    one_gpu_only(spec)  # not refused


def test_a_ddp_plan_measures_one_replica_and_a_one_gpu_plan_is_itself(catalog):
    replica = pilot_plan(REQUEST, 4, "ddp")
    assert (replica.code, replica.request.num_gpus, replica.request.sharding) == ("replica", 4, "ddp")
    one_gpu_only(resolve_request(replica.request, catalog).spec)
    same = pilot_plan(REQUEST, 1, None)
    assert (same.code, same.fewer, same.request.num_gpus) == ("same", False, 1)
    assert pilot_plan(REQUEST, None, None).code == "same"


def test_more_gpus_without_a_sharding_are_fsdp_as_the_ranking_shards_them():
    assert pilot_plan(REQUEST, 8, None).code == "unsharded"


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    work = tmp_path_factory.mktemp("planbot")
    env = {"ADVISOR_PILOT_USERS": "UALICE", "ADVISOR_PILOT_STEPS": "3", "ADVISOR_PILOT_DIR": str(work / "runs")}
    process = BotProcess(slack, work, env=env).start()
    yield process
    process.stop()


def _in(channel, thread=None):
    return lambda c: c.args.get("channel") == channel and (thread is None or c.args.get("thread_ts") == thread)


def _ask_and_click_run_pilot(bot, slack, channel, question):
    assert bot.command(question, channel=channel, response_url=slack.response_url(channel)).status == 200
    [answer] = slack.wait_for("chat.postMessage", _in(channel))
    root = answer.result["ts"]
    bot.wait_remembered(channel, root)
    blocks = assert_valid_blocks(answer.args["blocks"])
    [button] = [e for b in blocks if b["type"] == "actions" for e in b["elements"] if e["action_id"] == "pilot_run"]
    assert bot.action("pilot_run", button["value"], channel=channel, message_ts=root, user="UALICE").status == 200
    [confirm] = slack.wait_for("chat.postMessage", _in(channel, root), timeout=60)
    return json.loads(button["value"]), message_text(assert_valid_blocks(confirm.args["blocks"]))


CASES = [
    ("CPLAN", "full fine-tune llama-3.1-8b seq 4096",
     ["Run a measured pilot on NVIDIA H100 SXM 80 GB?",
      "The plan is 2 × NVIDIA H100 SXM 80 GB with FSDP", "a pilot is one training process on one GPU",
      "runs the unsharded step of the same micro-batch on 1 GPU",
      ":warning: The estimate says this does not fit on one NVIDIA H100 SXM 80 GB"]),
    ("CPLANES", "ajuste fino completo de llama-3.1-8b con secuencia de 4096",
     ["¿Lanzar un piloto medido en NVIDIA H100 SXM 80 GB?",
      "El plan es 2 × NVIDIA H100 SXM 80 GB con FSDP", "un piloto es un proceso de entrenamiento en una GPU",
      "ejecuta el paso sin fragmentar del mismo micro-lote en 1 GPU",
      ":warning: La estimación dice que esto no cabe en una NVIDIA H100 SXM 80 GB"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("channel, question, says", CASES)
def test_run_pilot_on_a_two_h100_plan_says_why_it_pilots_one_and_warns_it_does_not_fit(bot, slack, channel,
                                                                                      question, says):
    value, text = _ask_and_click_run_pilot(bot, slack, channel, question)
    assert value == {"gpu": "h100-sxm", "num_gpus": 2}  # the answer's plan, as its button carries it
    for words in says:
        assert words in text, (words, text)
    shard = text.split("(", 2)[2]  # the plan's per-GPU memory, as the answer's table shows it
    assert "GiB per GPU" in shard or "GiB por GPU" in shard


@pytest.mark.slow
def test_run_pilot_on_a_one_gpu_plan_proposes_it_without_a_plan_note_or_a_warning(bot, slack):
    value, text = _ask_and_click_run_pilot(bot, slack, "CPLANONE", "lora tiny-test seq 128")
    assert value["num_gpus"] == 1
    assert "Run a measured pilot on" in text and "The plan is" not in text and ":warning:" not in text


def test_the_cli_words_the_plan_and_the_warning_as_plain_text(catalog):
    """The CLI's surface: the same keys as the Slack confirmation, without icons or markup."""
    from advisor.pilot.plan import plan_json
    from advisor.pilot.predict import predict
    from advisor.pilot.report import PLAIN, plan_lines
    from advisor.pilot.spec import pilot_spec_for

    plan = pilot_plan(REQUEST, 2, "fsdp")
    gpu = catalog.gpu("h100-sxm")
    pspec = pilot_spec_for(resolve_request(plan.request, catalog), gpu, steps=3)
    prediction = {**predict(pspec, gpu), "plan": plan_json(plan, REQUEST, catalog)}
    note, warning = plan_lines(prediction, gpu.display_name, gpu.usable_memory_bytes, "en", PLAIN)
    assert note.startswith("The plan is 2 × NVIDIA H100 SXM 80 GB with FSDP") and ":" not in note[:30]
    assert warning.startswith("The estimate says this does not fit on one NVIDIA H100 SXM 80 GB")
    assert "79.11 GiB usable" in warning and "*" not in note + warning


def test_run_pilot_runs_the_plans_per_gpu_batch_and_levers(catalog):
    """Run pilot on an answer whose plan is a lever plan (Mistral 7B at batch 4 on one RTX 4090:
    micro-batch 2 x accumulation 2) or a split batch (micro-batch per GPU on more GPUs) runs what
    one card of that plan runs, not the request's micro-batch (which does not fit there)."""
    from advisor.answer import Advisor
    from bot.pilot.flow import _planned

    answer = Advisor(catalog).ask("can we LoRA Mistral 7B at 4k with batch 4 on a 4090?").answer
    plan = answer.option("rtx-4090").plan
    n, sharding, fields = _planned({}, answer.dump(), "rtx-4090")
    assert n == 1 and fields["micro_batch"] == plan.micro_batch < answer.spec.micro_batch
    assert fields["micro_batch"] * fields["gradient_accumulation_steps"] == answer.global_batch
    assert "num_gpus" not in fields and "gpu" not in fields
    # an answer stored before plans (schema 2): the button's count, the request as asked
    assert _planned({"num_gpus": 2}, {"options": [{"gpu": "l4", "num_gpus": 2, "sharding": "fsdp"}]}, "l4") \
        == (2, "fsdp", {})
