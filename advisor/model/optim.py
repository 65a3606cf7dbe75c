"""Optimizers for the reference decoder, with the implementation set explicitly.

AdamW and SGD are torch's; ``foreach`` / ``fused`` / for-loop is passed explicitly because the
default differs between CPU and CUDA and moves the peak (foreach materializes full-size
temporaries; docs/DESIGN.md measured 74.8 GiB foreach vs 60.1 GiB fused for an 8B bf16 full step).
8-bit AdamW is bitsandbytes' when it is installed and the parameters are on CUDA, otherwise a
byte-faithful stand-in: uint8 states with one fp32 absmax per 2048 values (bitsandbytes
Optimizer2State with optim_bits=8, block-wise), fp32 states for tensors under 4096 values
(min_8bit_size), and an update that, like bitsandbytes' fused kernel, allocates nothing the
caller can see (a registered custom op that works in bounded chunks).
"""



import math

import torch

from advisor.model.quant import OPT8_BLOCK, OPT8_MIN_SIZE, dynamic_map
from advisor.spec import FinetuneSpec

# Learning rates: HF TrainingArguments' default 5e-5 for full fine-tuning; 2e-4 for adapters
# (QLoRA paper, Table 9, for 7B-13B models). Memory does not depend on them.
LR_FULL = 5e-5
LR_ADAPTERS = 2e-4
BETAS = (0.9, 0.999)  # torch.optim.AdamW / bitsandbytes AdamW8bit defaults
EPS = 1e-8
WEIGHT_DECAY = 0.0  # HF TrainingArguments weight_decay default
_CHUNK = OPT8_BLOCK * 512  # values updated per chunk by the stand-in kernel (1M)

_REGISTERED = False


def _register() -> None:
    global _REGISTERED
    if _REGISTERED:
        return

    def _maps(device):
        signed = torch.tensor(dynamic_map(True), dtype=torch.float32, device=device)
        unsigned = torch.tensor(dynamic_map(False), dtype=torch.float32, device=device)
        return signed, unsigned

    def _quant(x, levels):
        blocks = x.view(-1, OPT8_BLOCK) if x.numel() % OPT8_BLOCK == 0 else None
        if blocks is None:
            pad = math.ceil(x.numel() / OPT8_BLOCK) * OPT8_BLOCK - x.numel()
            blocks = torch.nn.functional.pad(x, (0, pad)).view(-1, OPT8_BLOCK)
        absmax = blocks.abs().amax(dim=1).clamp_min(1e-30)
        mids = (levels[1:] + levels[:-1]) / 2
        codes = torch.bucketize((blocks / absmax[:, None]).reshape(-1), mids)[: x.numel()]
        return codes.to(torch.uint8), absmax

    def _dequant(codes, absmax, levels):
        vals = levels[codes.long()]
        pad = absmax.numel() * OPT8_BLOCK - vals.numel()
        return (torch.nn.functional.pad(vals, (0, pad)).view(-1, OPT8_BLOCK) * absmax[:, None]).reshape(-1)[: codes.numel()]

    @torch.library.custom_op("advisor::adamw8bit_step_", mutates_args=("param", "state1", "state2", "absmax1", "absmax2"))
    def adamw8bit_step_(param: torch.Tensor, grad: torch.Tensor, state1: torch.Tensor, state2: torch.Tensor,
                        absmax1: torch.Tensor, absmax2: torch.Tensor, lr: float, beta1: float, beta2: float,
                        eps: float, weight_decay: float, step: int) -> None:
        signed, unsigned = _maps(param.device)
        p, g = param.view(-1), grad.reshape(-1)
        bc1, bc2 = 1 - beta1**step, 1 - beta2**step
        for start in range(0, p.numel(), _CHUNK):
            stop = min(start + _CHUNK, p.numel())
            b0, b1 = start // OPT8_BLOCK, math.ceil(stop / OPT8_BLOCK)
            gc = g[start:stop].float()
            m = _dequant(state1[start:stop], absmax1[b0:b1], signed) * beta1 + (1 - beta1) * gc
            v = _dequant(state2[start:stop], absmax2[b0:b1], unsigned) * beta2 + (1 - beta2) * gc * gc
            pc = p[start:stop].float()
            pc = pc * (1 - lr * weight_decay) - lr * (m / bc1) / ((v / bc2).sqrt() + eps)
            p[start:stop] = pc.to(p.dtype)
            state1[start:stop], absmax1[b0:b1] = _quant(m, signed)
            state2[start:stop], absmax2[b0:b1] = _quant(v, unsigned)

    @adamw8bit_step_.register_fake
    def _(param, grad, state1, state2, absmax1, absmax2, lr, beta1, beta2, eps, weight_decay, step):
        return None

    _REGISTERED = True


class AdamW8bit(torch.optim.Optimizer):
    """Stand-in for bitsandbytes.optim.AdamW8bit (block-wise 8-bit states, same bytes)."""

    def __init__(self, params, lr: float, betas=BETAS, eps: float = EPS, weight_decay: float = WEIGHT_DECAY):
        _register()
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    self._init_state(p, st)
                st["step"] += 1
                if "state1" in st:
                    torch.ops.advisor.adamw8bit_step_(p, p.grad, st["state1"], st["state2"], st["absmax1"],
                                                      st["absmax2"], lr, beta1, beta2, eps, wd, st["step"])
                else:
                    self._fp32_update(p, st, lr, beta1, beta2, eps, wd)
        return None

    @staticmethod
    def _init_state(p, st) -> None:
        st["step"] = 0
        if p.numel() < OPT8_MIN_SIZE:
            st["exp_avg"] = torch.zeros_like(p, dtype=torch.float32)
            st["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32)
            return
        blocks = math.ceil(p.numel() / OPT8_BLOCK)
        for i in (1, 2):
            st[f"state{i}"] = torch.zeros(p.numel(), dtype=torch.uint8, device=p.device)
            st[f"absmax{i}"] = torch.zeros(blocks, dtype=torch.float32, device=p.device)

    @staticmethod
    def _fp32_update(p, st, lr, beta1, beta2, eps, wd) -> None:
        g = p.grad.float()
        st["exp_avg"].mul_(beta1).add_(g, alpha=1 - beta1)
        st["exp_avg_sq"].mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (st["exp_avg_sq"] / (1 - beta2 ** st["step"])).sqrt_().add_(eps)
        upd = (st["exp_avg"] / (1 - beta1 ** st["step"])) / denom
        p.mul_(1 - lr * wd).add_(upd.to(p.dtype), alpha=-lr)


def _bnb_optimizer(name: str, params, lr: float):
    """bitsandbytes' own 8-bit AdamW when installed and the parameters are on CUDA."""
    if not params or params[0].device.type != "cuda":
        return None
    try:
        import bitsandbytes as bnb  # noqa: PLC0415 - optional, GPU nodes only
    except ImportError:
        return None
    cls = bnb.optim.PagedAdamW8bit if name == "paged-adamw-8bit" else bnb.optim.AdamW8bit
    return cls(params, lr=lr, betas=BETAS, eps=EPS, weight_decay=WEIGHT_DECAY)


class InBackward:
    """The optimizer step fused into backward, as torchtune's ``optimizer_in_bwd`` does
    (torchtune/training/memory.py register_optim_in_bwd_hooks): one optimizer per parameter,
    stepped and zeroed by a post-accumulate-grad hook the moment backward has made that
    parameter's gradient, so gradients never pile up. ``step``/``zero_grad`` are then no-ops;
    ``state`` gathers the per-parameter optimizers' states (what the tracker labels)."""

    def __init__(self, params: list, make_one):
        self.optimizers = {p: make_one([p]) for p in params}
        self._hooks = [p.register_post_accumulate_grad_hook(self._step) for p in params]

    def _step(self, p) -> None:
        opt = self.optimizers[p]
        opt.step()
        opt.zero_grad(set_to_none=True)

    @property
    def state(self) -> dict:
        return {p: st for opt in self.optimizers.values() for p, st in opt.state.items()}

    def step(self, closure=None) -> None:
        return None

    def zero_grad(self, set_to_none: bool = True) -> None:
        return None


def make_optimizer(model: torch.nn.Module, spec: FinetuneSpec, lr: float | None = None):
    """The spec's optimizer over the model's trainable parameters, implementation explicit
    (stepped inside backward when ``spec.optimizer_in_backward``)."""
    params = [p for p in model.parameters() if p.requires_grad]
    if spec.optimizer_in_backward:
        return InBackward(params, lambda ps: _make(ps, spec, lr))
    return _make(params, spec, lr)


def _make(params: list, spec: FinetuneSpec, lr: float | None) -> torch.optim.Optimizer:
    if lr is None:
        lr = LR_ADAPTERS if spec.trains_adapters else LR_FULL
    impl = {"foreach": dict(foreach=True, fused=False), "fused": dict(foreach=False, fused=True),
            "for-loop": dict(foreach=False, fused=False)}[spec.optimizer_impl]
    if spec.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=BETAS, eps=EPS, weight_decay=WEIGHT_DECAY, **impl)
    if spec.optimizer == "sgd":
        # HF Trainer optim="sgd": torch.optim.SGD with momentum 0 -> no optimizer state
        return torch.optim.SGD(params, lr=lr, momentum=0.0, **impl)
    return _bnb_optimizer(spec.optimizer, params, lr) or AdamW8bit(params, lr=lr)
