"""The exact fake-tensor trace: equal to a real run, sums exactly, switches move it, real
shapes give the published figures of docs/DESIGN.md."""

import dataclasses
import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from advisor.arch import Architecture  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402
from advisor.stacks import PROFILES  # noqa: E402
from advisor.trace import trace_step  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.torch
GIB = 1024**3
TINY = Architecture(layers=2, hidden=64, intermediate=128, heads=4, kv_heads=2, head_dim=16, vocab=160)
SMALL = Architecture(layers=2, hidden=256, intermediate=512, heads=4, kv_heads=2, head_dim=64, vocab=2048)
REF = PROFILES["reference"]


def _spec(**kw) -> FinetuneSpec:
    return FinetuneSpec(**{"params_b": 1, "seq_len": 32, "micro_batch": 2, "precision": "fp32", **kw})


@pytest.mark.parametrize("kw", [
    dict(method="full", gradient_checkpointing=False), dict(method="full", attention="eager"),
    dict(method="lora", stack="hf"), dict(method="qlora", stack="hf", gradient_checkpointing=False),
    dict(method="full", optimizer="adamw-8bit", optimizer_impl="for-loop"),
])
def test_fake_trace_equals_the_real_tensor_run(kw):
    fake, real = trace_step(_spec(**kw), TINY), trace_step(_spec(**kw), TINY, fake=False)
    assert fake.allocated_bytes == real.allocated_bytes
    assert fake.breakdown == real.breakdown and fake.by_phase == real.by_phase


@pytest.mark.parametrize("kw", [dict(method="full", precision="bf16-mixed"), dict(method="qlora", precision="bf16"),
                                dict(method="lora", precision="fp16-mixed", optimizer="sgd")])
def test_breakdown_sums_exactly_to_the_peak(kw):
    result = trace_step(_spec(**kw), TINY)
    assert sum(result.breakdown.values()) == result.allocated_bytes
    assert max(result.by_phase.values()) == result.allocated_bytes


# (switch, value, spec, profile it is flipped from, direction of the peak)
SWITCHES = [
    ("loss_upcast_fp32", True, dict(method="lora"), {}, +1),
    ("loss_chunks", 8, dict(method="lora"), dict(loss_upcast_fp32=True), -1),
    ("kbit_prep_fp32", True, dict(method="qlora"), {}, +1),
    ("keep_quant_input", True, dict(method="qlora", lora_targets="attention", gradient_checkpointing=False), {}, +1),
    ("lora_dropout_copy", True, dict(method="lora", lora_dropout=0.1), {}, +1),
]


@pytest.mark.parametrize("switch,value,kw,base,direction", SWITCHES)
def test_each_stack_switch_moves_the_peak_the_expected_way(switch, value, kw, base, direction):
    spec = FinetuneSpec(params_b=1, seq_len=256, micro_batch=1, **kw)
    off = dataclasses.replace(REF, **base)
    on = dataclasses.replace(off, **{switch: value})
    delta = trace_step(spec, SMALL, stack=on).allocated_bytes - trace_step(spec, SMALL, stack=off).allocated_bytes
    assert delta * direction > 0



def test_a_4bit_head_quantized_from_fp16_is_stored_in_nf4_and_dequantized_into_two_copies():
    """litgpt under Lightning's BitsandbytesPrecision (StackProfile.quant_head, quant_dequant_fp16):
    the head's packed NF4 bytes replace its 16-bit weight, and its dequantized fp16 weight and the
    bf16 cast are alive together when its matmul runs."""
    spec = FinetuneSpec(params_b=1, seq_len=96, micro_batch=1, method="qlora", precision="bf16",
                        gradient_checkpointing=False)  # no other tensor of the head's 16-bit size
    plain = trace_step(spec, SMALL, stack=REF)
    quant = trace_step(spec, SMALL, stack=dataclasses.replace(REF, quant_head=True))
    fp16 = trace_step(spec, SMALL, stack=dataclasses.replace(REF, quant_head=True, quant_dequant_fp16=True,
                                                            quant_forward_direct=False))
    direct = trace_step(spec, SMALL, stack=dataclasses.replace(REF, quant_head=True, quant_dequant_fp16=True))
    head = SMALL.vocab * SMALL.hidden
    assert plain.breakdown["weights"] - quant.breakdown["weights"] == 2 * head - head // 2
    # every dequantization of the head (its forward matmul, its backward) makes one 16-bit copy,
    # or two (the fp16 one and its bf16 cast) when it was quantized from fp16; bitsandbytes >= 0.50
    # dequantizes straight to bf16 in forward
    def copies(result):
        return sum(1 for st in result.tracker.storages if st.nbytes == 2 * head and st.phase in ("forward", "backward"))

    assert (copies(quant), copies(direct), copies(fp16)) == (2, 3, 4)
    assert fp16.allocated_bytes >= quant.allocated_bytes

def test_autocast_weight_cache_keeps_a_16bit_copy_of_the_block_weights_through_the_forward():
    spec = FinetuneSpec(params_b=1, seq_len=256, micro_batch=1, method="full", optimizer="sgd")
    off = trace_step(spec, SMALL, stack=REF).by_phase["forward"]
    on = trace_step(spec, SMALL, stack=dataclasses.replace(REF, autocast_weight_cache=True)).by_phase["forward"]
    # with checkpointing the copies would otherwise die with each layer; the head's copy is
    # alive at the forward peak (the loss) either way
    assert on - off == 2 * SMALL.params_linear


def test_fsdp_divides_parameters_gradients_and_states_but_not_activations():
    one = trace_step(_spec(method="full", optimizer_impl="fused"), TINY)
    four = trace_step(_spec(method="full", optimizer_impl="fused", num_gpus=4, sharding="fsdp"), TINY)
    assert four.breakdown["weights"] == pytest.approx(one.breakdown["weights"] / 4, abs=64)
    assert four.allocated_bytes < one.allocated_bytes
    ddp = trace_step(_spec(method="full", optimizer_impl="fused", num_gpus=4, sharding="ddp"), TINY)
    assert ddp.allocated_bytes == one.allocated_bytes


def _recorded(result) -> tuple:
    """Everything a trace reports or hands on: peak, breakdown, phases, baseline, and the
    tracker's whole log (storages with size, phase, hint and label; events; phase marks)."""
    tr = result.tracker
    return (result.allocated_bytes, result.breakdown, result.by_phase, result.baseline_bytes,
            result.event_log(), [(st.nbytes, st.phase, st.hint, st.label) for st in tr.storages],
            list(tr.events), list(tr.phase_marks))


FAST_GRID = [dict(method=m, gradient_checkpointing=ckpt, micro_batch=mb, seq_len=seq, precision=prec, **extra)
             for m in ("full", "lora", "qlora") for ckpt in (True, False)
             for mb, seq, prec, extra in ((1, 16, "fp32", {}), (2, 48, "bf16-mixed", dict(lora_dropout=0.1)),
                                          (1, 80, "bf16", {}))]


@pytest.mark.parametrize("kw", FAST_GRID, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_the_fast_tracker_records_byte_for_byte_what_the_original_path_records(kw):
    """LiveBytes(fast=True) answers fake tensors' device queries itself and skips dynamo's
    disable wrapper; fast=False is the original path (every query down the mode stack). The
    result and the whole event log are identical."""
    arch = TINY.model_copy(update={"layers": 3}) if kw["micro_batch"] == 2 else TINY
    spec = _spec(stack="hf", **kw)
    fast, slow = trace_step(spec, arch), trace_step(spec, arch, fast=False)
    assert fast.tracker.fast and not slow.tracker.fast
    assert _recorded(fast) == _recorded(slow)


HF_FAST_GRID = [dict(method="qlora"), dict(method="qlora", gradient_checkpointing=False, lora_dropout=0.1),
                dict(method="lora", precision="bf16-mixed"), dict(method="lora", num_gpus=2, sharding="fsdp")]


@pytest.mark.parametrize("kw", HF_FAST_GRID, ids=lambda kw: "-".join(str(v) for v in kw.values()))
def test_the_fast_tracker_records_the_real_stack_byte_for_byte_too(catalog, kw):
    """The fast path on transformers + PEFT + bitsandbytes: bitsandbytes' custom operators run
    their registered fake kernels directly (LiveBytes._dispatch) instead of through
    FakeTensorMode's uncached path, and the whole event log is the same."""
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    pytest.importorskip("bitsandbytes")
    arch = catalog.model("tiny-test").arch
    spec = FinetuneSpec(**{"model": "tiny-test", "seq_len": 64, "micro_batch": 2, "stack": "hf", **kw})
    if spec.sharding == "fsdp":
        # the first FSDP2 trace of a process logs more build-phase allocations than the later
        # ones (on tiny-test 2226 events against 1904, fast or not; one-time work of the
        # process, never in the phases the peak is read from): warm it, so that both traces
        # below start from the same process state
        trace_step(spec, arch, runtime="hf")
    fast, slow = trace_step(spec, arch, runtime="hf"), trace_step(spec, arch, runtime="hf", fast=False)
    assert fast.tracker.fast and not slow.tracker.fast
    assert _recorded(fast) == _recorded(slow)


@pytest.mark.slow
@pytest.mark.parametrize("impl,gib", [("foreach", 74.8), ("fused", 60.1)])
def test_8b_pure_bf16_full_step_matches_the_design_measurement(catalog, impl, gib):
    # docs/DESIGN.md: 8B bf16 full fine-tune, 74.8 GiB with foreach AdamW vs 60.1 GiB fused
    spec = FinetuneSpec(model="llama-3.1-8b", method="full", precision="bf16", optimizer_impl=impl,
                        gradient_checkpointing=False)
    result = trace_step(spec, catalog.model("llama-3.1-8b").arch)
    assert result.allocated_bytes / GIB == pytest.approx(gib, abs=0.05)


@pytest.mark.slow
def test_8b_qlora_weights_are_nf4_blocks_plus_fp32_embeddings(catalog):
    arch = catalog.model("llama-3.1-8b").arch
    spec = FinetuneSpec(model="llama-3.1-8b", method="qlora", seq_len=1024)
    result = trace_step(spec, arch)
    # hf stack: PEFT k-bit preparation keeps embeddings, head and norms in fp32
    non_quantized = arch.params_total - arch.params_linear
    assert result.breakdown["weights"] == arch.params_linear // 2 + 4 * non_quantized


def test_trace_cli_json_has_the_contract_keys(cli):
    out = cli("trace", "--params-b", "0.1", "--layers", "1", "--seq-len", "64", "--json")
    data = json.loads(out.output)
    assert set(data["memory"]) >= {"allocated_bytes", "breakdown", "by_phase"}
    assert sum(data["memory"]["breakdown"].values()) == data["memory"]["allocated_bytes"]
    assert data["spec"]["layers"] == 1 and data["trace_seconds"] > 0


def test_trace_cli_human_output_is_a_table_in_spanish(cli):
    out = cli("trace", "--params-b", "0.1", "--layers", "1", "--seq-len", "64", "--lang", "es")
    assert "Pico asignado" in out.output and "activaciones" in out.output


def test_trace_without_torch_says_which_extra_to_install():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from advisor.cli import main\n"
            "main(['trace', '--params-b', '1'])\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "pilot" in proc.stderr and "Traceback" not in proc.stderr


_COLD = """
import json, sys
from advisor.arch import Architecture
from advisor.spec import FinetuneSpec
from advisor.trace import trace_step
arch = Architecture(**json.loads(sys.argv[1]))
r = trace_step(FinetuneSpec(**json.loads(sys.argv[2])), arch)
print(json.dumps([r.allocated_bytes, r.breakdown, r.by_phase]))
"""


def test_the_first_trace_of_a_process_files_dequantized_tiles_as_transients():
    """The tracker used to look advisor's dequantize ops up only if already registered, so the
    first reference QLoRA trace of a process (every ``advisor trace`` command) filed the
    dequantized weight tiles under activations. A fresh process must agree with this warm one."""
    kw = dict(params_b=1, seq_len=16, micro_batch=1, precision="fp32", method="qlora", stack="hf")
    warm = trace_step(FinetuneSpec(**kw), TINY)
    out = subprocess.run([sys.executable, "-c", _COLD, TINY.model_dump_json(), json.dumps(kw)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    peak, breakdown, by_phase = json.loads(out.stdout)
    assert (peak, breakdown, by_phase) == (warm.allocated_bytes, warm.breakdown, warm.by_phase)
    assert breakdown["transient"] > 0
