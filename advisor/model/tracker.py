"""A live-storage byte tracker: a TorchDispatchMode that sees every tensor an op returns and
counts each *storage* once (views share storage), from its first appearance until its
``weakref.finalize`` fires. Works the same on fake and real tensors.

It records an event log (alloc / free / phase) and labels storages by role; ``replay`` turns
the log into the peak, its composition by category and the peak per phase. Keeping the log and
classifying afterwards lets a role learned late (a tensor that becomes ``.grad`` or optimizer
state) apply to the storage's whole lifetime, and lets sharding rescale categories exactly.

Frees that follow one another with no allocation or phase mark between them are kept in storage
order (``_settle``): such a burst is one moment for every consumer (live bytes only rise at an
allocation), and its order can be arbitrary in the run itself. Autocast's weight-cast cache is
the case met: ``torch.clear_autocast_cache()`` (torch/amp/autocast_mode.py ``autocast.__exit__``)
destroys ``cached_casts``, a ``ska::flat_hash_map<TensorImpl*, ...>`` keyed by address
(aten/src/ATen/autocast_mode.cpp ``get_cached_casts``, torch 2.13), so the casts die in hash
order, which differs between runs; settled, the same step traced at two lengths logs the same
program (what advisor.allocator.events.StepProgram checks).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from advisor.model import inbuffer

CATEGORIES = ("weights", "quant_constants", "adapters", "master_weights", "gradients",
              "optimizer_states", "activations", "logits_loss", "transient")

_DEVICE = torch.ops.prim.device.default
_SKIP = {_DEVICE}
_TO_COPY = torch.ops.aten._to_copy.default
_ADD = inbuffer.ADD
_UNSAFE_VIEW = torch.ops.aten._unsafe_view.default
_VIEW = torch.ops.aten.view.default
_NO_KERNEL = object()


# custom-operator namespaces whose fake kernels only check their arguments and allocate their
# outputs (bitsandbytes/_ops.py ``register_fake`` kernels, 0.50; advisor/model/quant.py). Not
# torch's own non-ATen namespaces: FSDP2's collectives (``_c10d_functional``, ``fsdp``) take
# other paths in FakeTensorMode before their fake kernel (seen: a different build-phase log)
DIRECT_FAKE_NAMESPACES = ("bitsandbytes", "advisor")


def _registered_fake_kernel(func):
    """The fake kernel a custom operator of ``DIRECT_FAKE_NAMESPACES`` registered with
    ``torch.library.register_fake`` (or ``custom_op``'s ``register_fake``), or None: what
    FakeTensorMode looks up for it (torch/_subclasses/fake_tensor.py ``_dispatch_impl``, torch
    2.13: ``torch._library.simple_registry.singleton.find(func.name()).fake_impl.kernel``)."""
    if not isinstance(func, torch._ops.OpOverload) or func.namespace not in DIRECT_FAKE_NAMESPACES:
        return None
    return torch._library.simple_registry.singleton.find(func.name()).fake_impl.kernel


@dataclass(slots=True)
class _Storage:
    nbytes: int
    phase: str
    hint: str | None  # "logits", "weight_copy", "dequant" from the op that made it
    label: str | None = None  # role learned later (weights, gradients, ...)


@dataclass(frozen=True)
class Event:
    """One entry of the tracker's log: a storage allocated or freed.

    ``storage`` is the storage's index (its alloc and its free share it), ``nbytes`` its size
    (after any sharding ``scale``), ``phase`` the phase running when the event happened (build,
    batch, forward, backward, optimizer, idle), ``category`` the storage's category at the end of
    the run (advisor.trace's categories)."""

    kind: str  # "alloc" or "free"
    storage: int
    nbytes: int
    phase: str
    category: str


@dataclass
class Replay:
    peak_bytes: int
    breakdown: dict[str, int]
    by_phase: dict[str, int]
    baseline_bytes: int  # live when the first phase began (model + batch)


@dataclass
class LiveBytes(TorchDispatchMode):
    """Track live storages. ``vocab`` marks 2-D/3-D tensors whose last dimension is the
    vocabulary as logits/loss; ``dequant_ops`` are ops whose outputs are dequantized weight tiles."""

    vocab: int | None = None
    storages: list[_Storage] = field(default_factory=list)
    events: list[int] = field(default_factory=list)  # i >= 0 alloc of storages[i], ~i its free
    phase_marks: list[tuple[int, str]] = field(default_factory=list)  # (event index, phase)
    _live: dict[int, int] = field(default_factory=dict)  # id(storage) -> index
    _param_ids: set[int] = field(default_factory=set)
    phase: str = "build"
    _settled: int = 0  # events before this index are settled (see _settle)
    fast: bool = True  # False: the original path (every query down the mode stack), kept to
    # check that the fast one records byte for byte the same log (tests/test_trace.py)

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """No ``torch._disable_dynamo`` wrapper around ``__torch_dispatch__``
        (TorchDispatchMode.__init_subclass__, torch/utils/_python_dispatch.py, torch 2.13): the
        tracker runs only in eager traces, never inside a compiled region, and the wrapper (set
        and restore of the eval-frame callback, torch/_dynamo/eval_frame.py DisableContext._fn)
        costs two more Python calls on every op. ``fast=False`` goes through the same wrapper
        as before (``_slow_dispatch``)."""
        return False

    def __post_init__(self):
        super().__init__()
        if not self.fast:  # the original path: dynamo disabled around each dispatch
            import functools  # noqa: PLC0415

            self._slow_dispatch = torch._disable_dynamo(functools.partial(LiveBytes._dispatch, self), recursive=True)
        # one weak reference per live storage, all with the same callback (cheaper than a
        # weakref.finalize each): id(ref) -> (id(storage), index, ref)
        self._refs: dict[int, tuple[int, int, weakref.ref]] = {}
        self._on_dead = self._dead
        self._fake_kernels: dict = {}  # custom operator -> its registered fake kernel or None
        self._inbuffer = None  # a gradient sum autograd makes in place on a GPU (advisor.model.inbuffer)
        # advisor's own dequantize ops (the reference decoder's QLoRA). Registered here, not
        # looked up if present: a tracker made before the first advisor.model layer registered
        # them (the first trace of every process) saw none, and filed the dequantized weight
        # tiles of that trace under activations instead of transients
        from advisor.model import quant  # noqa: PLC0415

        quant.register_ops()
        self.dequant_ops = {torch.ops.advisor.dequantize_nf4.default, torch.ops.advisor.dequantize_int8.default}

    # --- recording -------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not self.fast:
            return self._slow_dispatch(func, types, args, kwargs)
        return self._dispatch(func, types, args, kwargs)

    def _dispatch(self, func, types, args=(), kwargs=None):
        if func is _DEVICE and self.fast:
            # ``tensor.device`` of a fake tensor dispatches prim.device (FakeTensor is made with
            # dispatch_device=True): about half of all calls. Answer it as FakeTensorMode would
            # (fake_tensor.py _device_handler, torch 2.13: the fake device, "meta" inside a
            # kernel invocation) instead of a second trip down the mode stack; it makes no storage.
            t = args[0] if len(args) == 1 else None
            if isinstance(t, FakeTensor):
                return torch.device("meta") if t.fake_mode.in_kernel_invocation else t.fake_device
        if func is _UNSAFE_VIEW and self.fast:
            # matmul's reshape of its mm output (aten/src/ATen/native/LinearAlgebra.cpp
            # _matmul_impl). Below autograd, where dispatch modes run, ``_unsafe_view`` is
            # ``view``: both call ``view_impl`` and return an alias of the same storage
            # (TensorShape.cpp, torch 2.13); they differ only in the autograd view tracking done
            # above this level. FakeTensorMode never caches ``_unsafe_view``
            # (fake_tensor.py ``_validate_cache_key``: "unsafe view"), so each of the ~1,400 in an
            # 8B step took its uncached path, about 1 ms; ``view`` is cached.
            func = _VIEW
        kernel = self._fake_kernels.get(func, _NO_KERNEL) if self.fast else None
        if kernel is _NO_KERNEL:
            kernel = self._fake_kernels[func] = _registered_fake_kernel(func)
        if kernel is not None and args and isinstance(args[0], FakeTensor):
            # a custom operator (bitsandbytes' quantize/dequantize and gemm ops, advisor's
            # dequantize ops): FakeTensorMode never caches these ("non-builtin",
            # ``_validate_cache_key``) and runs a long uncached prologue before reaching their
            # registered fake kernel, about 1 ms a call. Call that kernel as ``_dispatch_impl``
            # does at its end (fake_tensor.py, torch 2.13: a ``FakeImplCtx`` as the
            # ``get_ctx()`` of the kernel, under the fake mode, which is still active below this
            # mode): the same outputs, made by the kernel's own ``torch.empty`` calls, which the
            # fake mode caches. tests/test_trace.py checks the event logs byte for byte against
            # the original path.
            from torch._library import fake_impl  # noqa: PLC0415

            ctx = fake_impl.FakeImplCtx(args[0].fake_mode, func)
            with fake_impl.set_ctx_getter(lambda: ctx):
                out = kernel(*args, **(kwargs or {}))
        else:
            out = func(*args, **(kwargs or {}))
        if func in _SKIP:
            return out
        hint = None
        if func in self.dequant_ops:
            hint = "dequant"
        elif func is _TO_COPY and args and isinstance(args[0], torch.Tensor) \
                and id(args[0].untyped_storage()) in self._param_ids:
            hint = "weight_copy"
        if isinstance(out, torch.Tensor):  # the common case, without walking a pytree
            self.track(out, hint)
            if func is _ADD and self.phase == "backward":  # autograd's in-place sum (advisor.model.inbuffer)
                inbuffer.noted(self, args, kwargs, out)
        else:
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    self.track(t, hint)
        return out

    def track(self, t: torch.Tensor, hint: str | None = None) -> None:
        st = t.untyped_storage()
        key = id(st)
        idx = self._live.get(key)
        nbytes = st.nbytes()
        if idx is not None:
            rec = self.storages[idx]
            if rec.nbytes != nbytes:  # resized in place: free the old size, allocate the new
                self._settle()
                self.events.append(~idx)
                rec.nbytes = nbytes
                self.events.append(idx)
                self._settled = len(self.events)
            return
        # logits are (batch, seq, vocab) or (tokens, vocab); eager attention scores are 4-D
        # (batch, heads, seq, seq) and must not be taken for logits when seq_len == vocab
        if hint is None and self.vocab and 2 <= t.dim() <= 3 and t.shape[-1] == self.vocab and self.phase != "build":
            hint = "logits"
        self._settle()
        idx = len(self.storages)
        self.storages.append(_Storage(nbytes, self.phase, hint))
        self._live[key] = idx
        self.events.append(idx)
        self._settled = len(self.events)
        ref = weakref.ref(st, self._on_dead)
        self._refs[id(ref)] = (key, idx, ref)

    def _dead(self, ref: weakref.ref) -> None:
        key, idx, _ = self._refs.pop(id(ref))
        self._free(key, idx)

    def _free(self, key: int, idx: int) -> None:
        if self._inbuffer is not None and inbuffer.freed(self, key, idx):
            return
        if self._live.get(key) == idx:
            del self._live[key]
            self.events.append(~idx)

    def _settle(self) -> None:
        """Put the frees logged since the last allocation or phase mark in storage order."""
        events, start = self.events, self._settled
        if len(events) - start > 1:
            events[start:] = sorted(events[start:], reverse=True)  # ~i descending = i ascending
        self._settled = len(events)

    def settle(self) -> None:
        """Settle the last burst of frees (call when the run is over, before reading ``events``)."""
        self._settle()

    def set_phase(self, phase: str) -> None:
        self._settle()
        self.phase = phase
        self.phase_marks.append((len(self.events), phase))

    # --- labels ----------------------------------------------------------------------------
    def label(self, t: torch.Tensor | None, category: str) -> None:
        if t is None:
            return
        idx = self._live.get(id(t.untyped_storage()))
        if idx is not None:
            self.storages[idx].label = category

    def label_model(self, model: torch.nn.Module, constants=()) -> None:
        """Parameters and buffers as stored: adapters, quantization constants, weights.
        ``constants``: quantization-state tensors kept outside parameters and buffers
        (bitsandbytes' ``weight.quant_state``), labelled as quant_constants."""
        from advisor.model.layers import QuantizedWeight

        constants = {id(c.untyped_storage()) for c in constants}
        for mod in model.modules():
            if isinstance(mod, QuantizedWeight):
                constants |= {id(c.untyped_storage()) for c in mod.constant_buffers()}
        for key in constants:
            idx = self._live.get(key)
            if idx is not None:
                self.storages[idx].label = "quant_constants"
        for name, p in list(model.named_parameters()) + list(model.named_buffers()):
            key = id(p.untyped_storage())
            self._param_ids.add(key)
            cat = "adapters" if "lora_" in name else "quant_constants" if key in constants else "weights"
            self.label(p, cat)

    def label_grads(self, model: torch.nn.Module) -> None:
        for p in model.parameters():
            self.label(p.grad, "gradients")

    def label_optimizer(self, optimizer: torch.optim.Optimizer) -> None:
        for state in optimizer.state.values():
            for v in state.values():
                if isinstance(v, torch.Tensor):
                    self.label(v, "optimizer_states")

    # --- analysis --------------------------------------------------------------------------
    def category(self, rec: _Storage) -> str:
        if rec.label:
            return rec.label
        if rec.hint == "logits":
            return "logits_loss"
        if rec.hint in ("dequant", "weight_copy"):
            return "transient"
        if rec.phase in ("forward", "batch"):
            return "activations"
        if rec.phase == "build":
            return "weights"
        return "transient"

    def event_log(self, scale: dict[str, float] | None = None) -> list[Event]:
        """Every alloc and free in order, with size, phase and category (what an allocator
        model replays; ``replay`` below is the same walk summed)."""
        scale = scale or {}
        marks = dict(self.phase_marks)
        phase = "build"
        out = []
        for i, ev in enumerate(self.events):
            phase = marks.get(i, phase)
            idx = ev if ev >= 0 else ~ev
            rec = self.storages[idx]
            cat = self.category(rec)
            out.append(Event("alloc" if ev >= 0 else "free", idx, int(-(-rec.nbytes * scale.get(cat, 1.0) // 1)),
                             phase, cat))
        return out

    def replay(self, scale: dict[str, float] | None = None, phases: tuple[str, ...] = ("forward", "backward", "optimizer")) -> Replay:
        """Walk the event log: the peak after the first phase mark, its composition, and the
        peak within each phase. ``scale`` multiplies a category's bytes (FSDP sharding)."""
        scale = scale or {}
        cats = [self.category(r) for r in self.storages]
        sizes = [int(-(-r.nbytes * scale.get(c, 1.0) // 1)) for r, c in zip(self.storages, cats)]
        live = {c: 0 for c in CATEGORIES}
        total = 0
        marks = dict(self.phase_marks)
        start = self.phase_marks[0][0] if self.phase_marks else 0
        peak, at_peak, baseline = -1, dict(live), 0
        by_phase: dict[str, int] = {p: 0 for p in phases}
        phase = "build"
        for i, ev in enumerate(self.events + [None]):
            if i in marks:
                phase = marks[i]
                if i == start:
                    baseline, peak, at_peak = total, total, dict(live)
                if phase in by_phase:
                    by_phase[phase] = max(by_phase[phase], total)
            if ev is None:
                break
            idx = ev if ev >= 0 else ~ev
            delta = sizes[idx] if ev >= 0 else -sizes[idx]
            total += delta
            live[cats[idx]] += delta
            if i >= start and total > peak:
                peak, at_peak = total, dict(live)
            if phase in by_phase and total > by_phase[phase]:
                by_phase[phase] = total
        return Replay(peak_bytes=max(peak, baseline), breakdown=at_peak, by_phase=by_phase, baseline_bytes=baseline)
