"""The analytic model agrees with the exact fake-tensor trace (advisor.trace) within 3%.

Both run one optimizer step per micro-batch here (the trace zeroes gradients each step), so the
analytic side is asked for ``accumulates_gradients=False``. The grid crosses method x stack x
gradient checkpointing x precision x optimizer (and its implementation) x attention x seq_len x
micro_batch at the tiny catalog shape (each trace takes about a second on 2 shared cores). A
disagreement is fixed in the formula (or in the decoder where the decoder was not what CUDA
training does), never by widening TOLERANCE. Cases still open are in KNOWN_GAPS with the measured
error and what is alive at the trace's peak, as strict xfails, so fixing either side shows.
"""

import pytest

pytest.importorskip("torch")
trace = pytest.importorskip("advisor.trace")

from advisor.memory import estimate_memory  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402

TOLERANCE = 0.03


def _c(method, stack, gc, precision, optimizer="adamw", seq=256, mb=2, **extra):
    return (method, stack, gc, precision, optimizer, seq, mb, tuple(sorted(extra.items())))


GRID = [
    # full fine-tune: every stack, checkpointing on/off, pure and mixed bf16
    *[_c("full", st, gc, p) for st in ("reference", "hf") for gc in (False, True) for p in ("bf16", "bf16-mixed")],
    *[_c("full", st, gc, "bf16") for st in ("torchtune", "litgpt") for gc in (False, True)],
    _c("full", "reference", True, "bf16", optimizer_impl="fused"),
    _c("full", "reference", True, "bf16", "adamw-8bit"),
    _c("full", "reference", True, "bf16", "sgd"),
    _c("full", "hf", False, "bf16-mixed", "sgd", 128, 1),
    _c("full", "reference", False, "fp32", seq=128),
    _c("full", "hf", False, "bf16-mixed", seq=128, mb=4, attention="eager"),
    # LoRA
    *[_c("lora", st, gc, p) for st in ("reference", "hf", "litgpt") for gc in (False, True) for p in ("bf16", "bf16-mixed")],
    *[_c("lora", "torchtune", gc, "bf16") for gc in (False, True)],
    _c("lora", "hf", False, "bf16-mixed", lora_dropout=0.0),
    _c("lora", "hf", True, "bf16-mixed", "sgd"),
    _c("lora", "hf", True, "bf16-mixed", "adamw-8bit"),
    _c("lora", "hf", False, "fp16-mixed", seq=128),
    _c("lora", "hf", True, "bf16-mixed", seq=128, mb=4, attention="eager"),
    # QLoRA
    *[_c("qlora", st, gc, p) for st in ("reference", "hf", "litgpt") for gc in (False, True) for p in ("bf16", "bf16-mixed")],
    *[_c("qlora", "torchtune", gc, "bf16") for gc in (False, True)],
    _c("qlora", "reference", True, "bf16", "sgd"),
    # gradient accumulation: the previous micro-batches' gradients live through the next forward
    _c("lora", "hf", False, "bf16-mixed", gradient_accumulation_steps=4),
    _c("full", "reference", True, "bf16", gradient_accumulation_steps=2),
    _c("qlora", "hf", True, "bf16-mixed", seq=512, mb=1, gradient_accumulation_steps=8),
    _c("qlora", "hf", False, "bf16-mixed", seq=512, mb=1, attention="eager"),
]
_RECOMPUTE_GAP = (
    "the recomputed top layer at down_proj's adapter (fp32 gate/up/act/product with PEFT-bnb's fp32 "
    "dropout output) keeps two hidden-sized tensors per token more than itemised (an fp32 _to_copy and "
    "a 16-bit mul, not yet attributed); negligible at real shapes, where the hf trace agrees "
    "(test_hf_estimate_agrees_with_the_real_stack)")
KNOWN_GAPS: dict = {
    _c("qlora", "hf", True, "bf16-mixed"): "-3.4%: " + _RECOMPUTE_GAP,
    _c("qlora", "hf", True, "bf16-mixed", seq=512, mb=1, gradient_accumulation_steps=8): "-3.3%: " + _RECOMPUTE_GAP,
}


def _case(catalog, case, model="tiny-test"):
    method, stack, gc, precision, optimizer, seq, mb, extra = case
    spec = FinetuneSpec(model=model, method=method, stack=stack, gradient_checkpointing=gc,
                        precision=precision, optimizer=optimizer, seq_len=seq, micro_batch=mb, **dict(extra))
    arch = catalog.model(model).arch
    traced = trace.trace_step(spec, arch).allocated_bytes
    ours = estimate_memory(spec, arch).allocated_bytes
    return ours, traced


def _id(case):
    *head, extra = case
    return "-".join(map(str, head + [f"{k}={v}" for k, v in extra]))


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN_GAPS[c], strict=True)) if c in KNOWN_GAPS else c
    for c in GRID
], ids=_id)
def test_tiny_shapes_agree_with_the_trace(catalog, case):
    ours, traced = _case(catalog, case)
    assert ours == pytest.approx(traced, rel=TOLERANCE)


def test_every_known_gap_is_in_the_grid():
    assert set(KNOWN_GAPS) <= set(GRID)


@pytest.mark.slow  # ~90 s on 2 shared cores: the NF4 trace of 8B (docs/DESIGN.md expects a few seconds)
def test_llama_8b_qlora_agrees_with_the_trace(catalog):
    ours, traced = _case(catalog, _c("qlora", "reference", True, "bf16-mixed", seq=1024, mb=1), "llama-3.1-8b")
    assert ours == pytest.approx(traced, rel=TOLERANCE)


@pytest.mark.slow
def test_llama_70b_full_fsdp_agrees_with_the_trace(catalog):
    ours, traced = _case(catalog, _c("full", "reference", True, "bf16", seq=2048, mb=1), "llama-3.1-70b")
    assert ours == pytest.approx(traced, rel=TOLERANCE)


# --- the analytic hf profile against the real stack (advisor.hftrace: transformers + PEFT +
# bitsandbytes at the installed versions), at real shapes -----------------------------------------
HF_MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b")
HF_SEQ_LENS = (512, 2048, 8192)
HF_MICRO_BATCHES = (1, 2, 4)
# every (model, method, checkpointing, dropout) once; sequence length and micro-batch cycle
# through their values so each model meets each of them (24 traces, about 5 minutes on 2 cores)
HF_GRID = [
    (model, method, gc, dropout, HF_SEQ_LENS[i % 3], HF_MICRO_BATCHES[(i // 3) % 3])
    for i, (model, method, gc, dropout) in enumerate(
        (m, meth, g, d) for m in HF_MODELS for meth in ("lora", "qlora") for g in (True, False) for d in (0.0, 0.05))
]


def _hf_available() -> bool:
    from tests.conftest import have

    return have("transformers") and have("peft") and have("bitsandbytes")


@pytest.mark.slow
@pytest.mark.skipif(not _hf_available(), reason="needs the hf extra (transformers, peft, bitsandbytes)")
@pytest.mark.parametrize("model,method,gc,dropout,seq,mb", HF_GRID,
                         ids=["-".join(map(str, c)) for c in HF_GRID])
def test_hf_estimate_agrees_with_the_real_stack(catalog, model, method, gc, dropout, seq, mb):
    spec = FinetuneSpec(model=model, method=method, stack="hf", gradient_checkpointing=gc, lora_dropout=dropout,
                        seq_len=seq, micro_batch=mb)
    arch = catalog.model(model).arch
    traced = trace.trace_step(spec, arch, runtime="hf")
    ours = estimate_memory(spec, arch)
    assert traced.runtime == "hf" and "transformers" in traced.versions
    assert ours.allocated_bytes == pytest.approx(traced.allocated_bytes, rel=TOLERANCE)


# Liger kernel in the real stack (advisor.hftrace.liger: Liger's own monkey patch, its Triton
# kernels stood in for byte for byte): LoRA and QLoRA, checkpointing on/off, at the three shapes,
# sequence length 512-8192 and micro-batch 1-4 cycling as above (12 traces, about 3 minutes)
HF_LIGER_GRID = [
    (model, method, gc, HF_SEQ_LENS[i % 3], HF_MICRO_BATCHES[(i // 3) % 3])
    for i, (model, method, gc) in enumerate(
        (m, meth, g) for m in HF_MODELS for meth in ("lora", "qlora") for g in (True, False))
]


@pytest.mark.slow
@pytest.mark.skipif(not (_hf_available() and __import__("tests.conftest").conftest.have("liger_kernel")),
                    reason="needs the hf and liger extras (transformers, peft, bitsandbytes, liger_kernel)")
@pytest.mark.parametrize("model,method,gc,seq,mb", HF_LIGER_GRID, ids=["-".join(map(str, c)) for c in HF_LIGER_GRID])
def test_hf_liger_estimate_agrees_with_the_real_stack(catalog, model, method, gc, seq, mb):
    spec = FinetuneSpec(model=model, method=method, stack="hf", gradient_checkpointing=gc, seq_len=seq,
                        micro_batch=mb, liger_kernel=True)
    arch = catalog.model(model).arch
    traced = trace.trace_step(spec, arch, runtime="hf")
    ours = estimate_memory(spec, arch)
    assert traced.runtime == "hf" and "liger_kernel" in traced.versions
    assert ours.allocated_bytes == pytest.approx(traced.allocated_bytes, rel=TOLERANCE)


# a full fine-tune of a tied model on one GPU (advisor.memory._tied_sum): the LM head's fp32
# gradient waits in the tied weight's InputBuffer through backward and the embedding's is added
# into it in place at the end (the tracker replays InputBuffer::accumulate's add_, which no trace
# takes: advisor.model.inbuffer). Llama 3.2 1B and 3B and Qwen2.5 1.5B, checkpointing on/off,
# seq 512-4096, bf16-mixed (fp32 weights) and pure bf16, one row accumulating micro-batches
# (9 traces, about 3 minutes on 2 cores)
HF_TIED_GRID = [
    ("llama-3.2-1b", True, 512, 1, "bf16-mixed", 1),
    ("llama-3.2-1b", False, 4096, 1, "bf16-mixed", 1),
    ("llama-3.2-1b", True, 2048, 2, "bf16", 1),
    ("llama-3.2-1b", False, 1024, 2, "bf16-mixed", 2),
    ("llama-3.2-3b", True, 2048, 1, "bf16-mixed", 1),
    ("llama-3.2-3b", False, 512, 2, "bf16-mixed", 1),
    ("llama-3.2-3b", True, 4096, 1, "bf16-mixed", 2),
    ("llama-3.2-3b", False, 1024, 1, "bf16", 1),
    ("qwen2.5-1.5b", True, 2048, 1, "bf16-mixed", 1),
]


@pytest.mark.slow
@pytest.mark.skipif(not _hf_available(), reason="needs the hf extra (transformers, peft, bitsandbytes)")
@pytest.mark.parametrize("model,gc,seq,mb,precision,accumulation", HF_TIED_GRID,
                         ids=["-".join(map(str, c)) for c in HF_TIED_GRID])
def test_hf_tied_full_estimate_agrees_with_the_real_stack(catalog, model, gc, seq, mb, precision, accumulation):
    spec = FinetuneSpec(model=model, method="full", stack="hf", gradient_checkpointing=gc, seq_len=seq,
                        micro_batch=mb, precision=precision, gradient_accumulation_steps=accumulation)
    arch = catalog.model(model).arch
    assert arch.tied_embeddings
    traced = trace.trace_step(spec, arch, runtime="hf")
    ours = estimate_memory(spec, arch)
    assert ours.allocated_bytes == pytest.approx(traced.allocated_bytes, rel=TOLERANCE)


# the reference decoder at real shapes too (the tiny grid above cannot see real-shape terms)
REAL_REFERENCE = [
    ("llama-3.1-8b", _c("qlora", "hf", True, "bf16-mixed", seq=4096, mb=1)),
    ("llama-3.2-3b", _c("lora", "litgpt", False, "bf16", seq=1024, mb=2)),
    ("llama-3.2-1b", _c("qlora", "torchtune", True, "bf16", seq=2048, mb=2)),
    ("llama-3.2-1b", _c("full", "torchtune", True, "bf16", "paged-adamw-8bit", seq=2048, mb=2,
                        optimizer_in_backward=True)),
]


@pytest.mark.slow
@pytest.mark.parametrize("model,case", REAL_REFERENCE, ids=[f"{m}-{_id(c)}" for m, c in REAL_REFERENCE])
def test_reference_real_shapes_agree_with_the_trace(catalog, model, case):
    ours, traced = _case(catalog, case, model)
    assert ours == pytest.approx(traced, rel=TOLERANCE)
