"""Configs the advisor writes for real trainers (advisor.launch: TRL, axolotl, torchtune), pasted back
into chat, read back into the plan's own settings. Text nobody tuned the parser on: another part of
the advisor writes it, shaped by each tool's own schema."""

import pytest

from advisor.errors import LaunchError
from advisor.launch import choose_plan, launch_config, render
from advisor.parse import parse_message
from advisor.spec import SpecRequest

SPECS = [
    SpecRequest(method="qlora", model="llama-3.1-8b", seq_len=4096, micro_batch=2, lora_rank=32, epochs=2),
    SpecRequest(method="lora", model="qwen2.5-7b", seq_len=8192, micro_batch=1, lora_rank=16, epochs=1),
    SpecRequest(method="full", model="llama-3.2-1b", seq_len=2048, micro_batch=4, epochs=3),
    SpecRequest(method="lora", model="mistral-7b-v0.3", seq_len=1024, micro_batch=8, lora_rank=64, epochs=3,
                gradient_checkpointing=False),
]


@pytest.mark.parametrize("fmt", ["trl", "axolotl", "torchtune"])
@pytest.mark.parametrize("request_", SPECS, ids=lambda r: f"{r.method}-{r.model}")
def test_a_pasted_launch_config_reads_back_into_its_plan(fmt, request_, catalog):
    plan = choose_plan(request_, catalog)
    try:
        config = launch_config(plan, fmt)
    except LaunchError as exc:  # the tool cannot run this model (torchtune lacks a builder for it)
        pytest.skip(str(exc))
    text = "will this fit?\n```\n" + render(config) + "\n```"
    result = parse_message(text, catalog)
    assert result.intent == "estimate", (result.clarify_code, result.question)
    got, spec = result.request, plan.spec
    assert (got.method, got.model, got.seq_len, got.micro_batch) == (spec.method, spec.model, spec.seq_len, spec.micro_batch)
    assert got.epochs == spec.epochs and got.num_gpus in (None, plan.num_gpus)
    if spec.method != "full":
        assert got.lora_rank == spec.lora_rank
    assert got.gradient_checkpointing in (None, spec.gradient_checkpointing)
