"""The reference decoder trains for real on CPU and is built with the right shapes and bytes."""

import math

import pytest

torch = pytest.importorskip("torch")

from advisor.arch import Architecture  # noqa: E402
from advisor.model import build_model, make_optimizer, synthetic_batch, train_step  # noqa: E402
from advisor.model import quant  # noqa: E402
from advisor.model.layers import QuantizedWeight  # noqa: E402
from advisor.spec import FinetuneSpec  # noqa: E402

pytestmark = pytest.mark.torch

TINY = Architecture(layers=2, hidden=64, intermediate=128, heads=4, kv_heads=2, head_dim=16, vocab=128)
SHAPES = {
    "llama-gqa": TINY,
    "tied-bias": Architecture(layers=2, hidden=64, intermediate=160, heads=4, kv_heads=1, head_dim=16,
                              vocab=97, tied_embeddings=True, attn_bias=True),
    "neox-layernorm": Architecture(layers=1, hidden=64, intermediate=256, heads=4, kv_heads=4, head_dim=16,
                                   vocab=101, mlp_kind="plain", norm="layernorm"),
    "moe": Architecture(layers=1, hidden=64, intermediate=96, heads=4, kv_heads=2, head_dim=16, vocab=89,
                        experts=4, experts_per_token=2),
}


def _spec(**kw) -> FinetuneSpec:
    base = dict(params_b=1, seq_len=16, micro_batch=2, precision="fp32", stack="hf", lora_rank=16)
    return FinetuneSpec(**{**base, **kw})


@pytest.mark.parametrize("method,quant_kind,optimizer,shape", [
    ("full", None, "adamw", "llama-gqa"), ("full", None, "adamw-8bit", "tied-bias"),
    ("full", None, "sgd", "neox-layernorm"), ("full", None, "adamw", "moe"),
    ("lora", None, "adamw", "llama-gqa"),
    ("qlora", "nf4", "adamw", "llama-gqa"), ("qlora", "int8", "adamw-8bit", "tied-bias"),
])
def test_every_method_trains_for_real_on_cpu(method, quant_kind, optimizer, shape):
    arch, spec = SHAPES[shape], _spec(method=method, quant=quant_kind, optimizer=optimizer)
    torch.manual_seed(0)
    model = build_model(spec, arch, "cpu")
    opt = make_optimizer(model, spec, lr=1.0 if optimizer == "sgd" else 3e-3)
    batch = synthetic_batch(spec, arch, "cpu", seed=1)
    losses = [float(train_step(model, opt, batch, spec)) for _ in range(3)]
    assert all(math.isfinite(x) for x in losses)
    assert losses[-1] < losses[0] - 0.02, losses


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_full_model_parameter_count_equals_the_architecture(shape):
    arch = SHAPES[shape]
    model = build_model(_spec(method="full"), arch, "meta")
    assert sum(p.numel() for p in model.parameters()) == arch.params_total


MLP_LINEARS = {"gate_proj", "up_proj", "down_proj"}


def _lora_closed_form(arch: Architecture, rank: int, targets: set[str]) -> int:
    """r * (in + out) per adapted linear, once per expert for MoE MLP linears."""
    def copies(name):
        return arch.experts if arch.experts and name in MLP_LINEARS else 1
    return arch.layers * sum(rank * (i + o) * copies(name)
                             for name, (i, o) in arch.linear_shapes().items() if name in targets)


@pytest.mark.parametrize("shape,targets", [(s, t) for s in sorted(SHAPES) for t in ("all-linear", "attention")])
def test_lora_trainable_parameters_equal_the_closed_form(shape, targets):
    arch = SHAPES[shape]
    names = {"all-linear": {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"},
             "attention": {"q_proj", "k_proj", "v_proj", "o_proj"}}[targets]
    model = build_model(_spec(method="lora", lora_rank=8, lora_targets=targets), arch, "meta")
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == _lora_closed_form(arch, 8, names)


def test_lora_on_llama3_8b_matches_peft_published_count(catalog):
    # PEFT print_trainable_parameters for Llama-3-8B, r=16, all linear layers: 41,943,040
    arch = catalog.model("llama-3.1-8b").arch
    model = build_model(_spec(method="lora", lora_rank=16), arch, "meta")
    assert sum(p.numel() for p in model.parameters() if p.requires_grad) == 41_943_040


@pytest.mark.parametrize("rows,cols,double_quant", [(4096, 4096, False), (4096, 4096, True),
                                                    (14336, 4096, True), (7, 9, True), (64, 33, False)])
def test_nf4_stand_in_stores_bitsandbytes_byte_counts(rows, cols, double_quant):
    n = rows * cols
    blocks = -(-n // 64)
    # bitsandbytes quantize_4bit: ((n+1)//2) uint8 + absmax fp32 per 64-block, or with
    # compress_statistics uint8 per block + fp32 per 256 blocks + one fp32 offset
    expected_constants = blocks + 4 * -(-blocks // 256) + 4 if double_quant else 4 * blocks
    qw = QuantizedWeight(torch.empty(rows, cols, device="meta"), "nf4", double_quant)
    assert qw.data.dtype == torch.uint8 and qw.data.nbytes == (n + 1) // 2
    assert sum(c.nbytes for c in qw.constant_buffers()) == expected_constants
    assert quant.nf4_constant_bytes(n, double_quant) == expected_constants


@pytest.mark.parametrize("double_quant,bits_per_param", [(False, 0.5), (True, 0.127)])
def test_nf4_constants_cost_the_published_bits_per_parameter(double_quant, bits_per_param):
    n = 4096 * 14336  # QLoRA paper: 32/64 = 0.5 bit; 8/64 + 32/(64*256) = 0.127 bit
    assert 8 * quant.nf4_constant_bytes(n, double_quant) / n == pytest.approx(bits_per_param, abs=5e-4)


def test_int8_stand_in_stores_llm_int8_bytes():
    qw = QuantizedWeight(torch.empty(300, 128, device="meta"), "int8", False)
    assert qw.data.dtype == torch.int8 and qw.data.nbytes == 300 * 128
    assert sum(c.nbytes for c in qw.constant_buffers()) == 300 * 4  # SCB: one fp32 per row


@pytest.mark.parametrize("kind,double_quant,max_rel_rms", [("nf4", False, 0.12), ("nf4", True, 0.12), ("int8", False, 0.01)])
def test_quantized_weights_dequantize_close_to_the_original(kind, double_quant, max_rel_rms):
    torch.manual_seed(0)
    w = torch.randn(256, 320)
    back = QuantizedWeight(w, kind, double_quant).dequantize(torch.float32)
    assert ((back - w).pow(2).mean().sqrt() / w.pow(2).mean().sqrt()).item() < max_rel_rms


@pytest.mark.parametrize("numel", [100, 4095, 4096, 2048 * 3 + 1, 10**6])
def test_8bit_adamw_stand_in_keeps_bitsandbytes_state_bytes(numel):
    spec = _spec(method="full", optimizer="adamw-8bit")
    p = torch.nn.Parameter(torch.zeros(numel))
    opt = make_optimizer(torch.nn.ParameterList([p]), spec, lr=1e-3)
    p.grad = torch.ones(numel)
    opt.step()
    state = [v for v in opt.state[p].values() if isinstance(v, torch.Tensor)]
    assert sum(v.nbytes for v in state) == quant.opt8_state_bytes(numel)
    expected = 2 * 4 * numel if numel < 4096 else 2 * (numel + 4 * -(-numel // 2048))
    assert quant.opt8_state_bytes(numel) == expected


class _Ops(torch.utils._python_dispatch.TorchDispatchMode):
    """The ATen operators a computation dispatches, with their output shapes."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        shapes = tuple(tuple(t.shape) for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor))
        self.ops.append((str(func), shapes))
        return out


@pytest.mark.parametrize("shape, contiguous", [((2, 5, 8), True), ((2, 5, 8), False), ((5, 8), True)])
def test_rows_matmul_runs_matmuls_own_operators_ending_in_a_view(shape, contiguous):
    """advisor.model.layers.rows_matmul / linear: the operators (forward and backward) and values
    of torch.matmul / F.linear, with ``view`` where matmul's fold ends in ``_unsafe_view`` (which
    FakeTensorMode does not cache); inputs matmul would not fold go to matmul itself."""
    from advisor.model.layers import linear, rows_matmul

    def run(fn):
        torch.manual_seed(0)
        x = torch.randn(*shape, requires_grad=True)
        xin = x if contiguous else x.transpose(0, -2) if len(shape) == 3 else x
        w = torch.randn(8 if not contiguous and len(shape) == 3 else shape[-1], 6, requires_grad=True)
        with _Ops() as rec:
            y = fn(xin, w)
            y.sum().backward()
        return rec.ops, y.detach(), x.grad, w.grad

    if not contiguous:  # (5, 2, 8) transposed view: matmul would not fold it, nor does rows_matmul
        shape = (5, 2, 8)
    def same_ops(ref, mine):
        norm = lambda ops: [(op.replace("_unsafe_view", "view"), s) for op, s in ops]  # noqa: E731
        assert norm(ref[0]) == norm(mine[0])
        unsafe = lambda ops: any("_unsafe_view" in op for op, _ in ops)  # noqa: E731
        assert not unsafe(mine[0]) or not contiguous  # only inputs left to matmul itself keep it
        assert unsafe(ref[0]) == (len(shape) == 3)  # matmul folds 3-D inputs (a copy when strided)
        for a, b in zip(ref[1:], mine[1:]):
            assert torch.equal(a, b)

    same_ops(run(lambda x, w: x @ w), run(rows_matmul))
    same_ops(run(lambda x, w: torch.nn.functional.linear(x, w.t())), run(lambda x, w: linear(x, w.t())))
