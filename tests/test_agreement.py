"""The analytic model agrees with the exact fake-tensor trace (advisor.trace) within 3%.

Both run one optimizer step per micro-batch here (the trace zeroes gradients each step), so the
analytic side is asked for ``accumulates_gradients=False``. A disagreement is fixed in the
formula or reported to the trace's author, never by widening TOLERANCE; the cases that disagree
today are listed in KNOWN_GAPS with the reason, as strict xfails, so fixing either side shows.
"""

import pytest

pytest.importorskip("torch")
trace = pytest.importorskip("advisor.trace")

from advisor.memory import estimate_memory  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402

TOLERANCE = 0.03

# (method, stack, gradient checkpointing, precision, optimizer, seq_len, micro_batch)
GRID = [
    ("full", "reference", False, "bf16", "adamw", 256, 2),
    ("full", "reference", False, "bf16-mixed", "adamw", 256, 2),
    ("full", "hf", False, "bf16-mixed", "sgd", 128, 1),
    ("full", "reference", True, "bf16", "adamw", 256, 2),
    ("full", "reference", True, "bf16-mixed", "adamw", 256, 2),
    ("lora", "reference", False, "bf16-mixed", "adamw", 256, 2),
    ("lora", "hf", False, "bf16-mixed", "adamw", 256, 2),
    ("lora", "hf", False, "bf16", "adamw", 256, 2),
    ("lora", "reference", True, "bf16", "adamw", 256, 2),
    ("lora", "hf", True, "bf16", "adamw", 256, 2),
    ("qlora", "reference", False, "bf16-mixed", "adamw", 128, 1),
    ("qlora", "reference", True, "bf16", "sgd", 256, 2),
]
KNOWN_GAPS = {
    ("lora", "hf", False, "bf16", "adamw", 256, 2):
        "trace runs dropout on CPU, where aten keeps a float noise tensor and the input; CUDA's "
        "fused native_dropout keeps a bool mask (the model follows CUDA)",
    ("lora", "hf", True, "bf16", "adamw", 256, 2):
        "same CPU dropout decomposition, recomputed under checkpointing",
    ("lora", "reference", True, "bf16", "adamw", 256, 2):
        "activation gradients inside a recomputed layer's backward: the model counts two "
        "intermediate-sized tensors (layer_peak_extra_per_token), the trace sees more",
    ("qlora", "reference", True, "bf16", "sgd", 256, 2):
        "same recomputed-layer backward gap as the LoRA checkpointing case",
    ("full", "reference", True, "bf16", "adamw", 256, 2):
        "+3.9%: the model takes the whole first layer's recomputed activations at the end of "
        "backward; the trace peaks after down_proj's backward has freed the MLP product",
    ("full", "reference", True, "bf16-mixed", "adamw", 256, 2):
        "+4.0%: the same end-of-backward moment as the bf16 case",
    ("lora", "hf", False, "bf16-mixed", "adamw", 256, 2):
        "-4.1%: the CPU dropout decomposition again (noise tensor in the activation dtype)",
}


def _case(catalog, case, model="tiny-test"):
    method, stack, gc, precision, optimizer, seq, mb = case
    spec = FinetuneSpec(model=model, method=method, stack=stack, gradient_checkpointing=gc,
                        precision=precision, optimizer=optimizer, seq_len=seq, micro_batch=mb)
    arch = catalog.model(model).arch
    traced = trace.trace_step(spec, arch).allocated_bytes
    ours = estimate_memory(spec, arch, accumulates_gradients=False).allocated_bytes
    return ours, traced


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_GAPS[c], strict=True)) if c in KNOWN_GAPS else c
    for c in GRID
], ids=lambda c: "-".join(map(str, c)))
def test_tiny_shapes_agree_with_the_trace(catalog, case):
    ours, traced = _case(catalog, case)
    assert ours == pytest.approx(traced, rel=TOLERANCE)


@pytest.mark.slow  # ~90 s on 2 shared cores: the NF4 trace of 8B (DESIGN.md expects a few seconds)
def test_llama_8b_qlora_agrees_with_the_trace(catalog):
    ours, traced = _case(catalog, ("qlora", "reference", True, "bf16-mixed", "adamw", 1024, 1), "llama-3.1-8b")
    assert ours == pytest.approx(traced, rel=TOLERANCE)


@pytest.mark.slow
def test_llama_70b_full_fsdp_agrees_with_the_trace(catalog):
    ours, traced = _case(catalog, ("full", "reference", True, "bf16", "adamw", 2048, 1), "llama-3.1-70b")
    assert ours == pytest.approx(traced, rel=TOLERANCE)
