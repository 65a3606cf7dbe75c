"""torch FSDP2 over N fake ranks in the real-stack trace (``--num-gpus N --sharding fsdp``):
rank 0's view of the hf step, sharded by torch's own ``fully_shard`` as accelerate applies it,
instead of dividing the single-GPU trace by N.

The anchor is torchtitan's memory estimator (scripts/estimate/estimation.py, pytorch/torchtitan
at 038d5fd): a fake process group of the job's world size in one process
(``torch.distributed.init_process_group("fake", store=FakeStore())``), the mesh built outside
``FakeTensorMode`` ("ParallelDims.build_mesh has to happen outside of the FakeTensorMode"), the
model built and parallelised under fake tensors, one step run under a ``TorchDispatchMode``
tracker (there ``FSDPMemTracker``). The fake group (torch/testing/_internal/distributed/
fake_pg.py, torch 2.13: ``FakeProcessGroup``) "hallucinates" every collective: the sizes each
rank allocates are real, the values are not, which is all a memory trace needs.

How the model is sharded: as accelerate 1.15 does for the HF Trainer with
``fsdp_config={"fsdp_version": 2}`` (``accelerate/utils/fsdp_utils.py fsdp2_prepare_model``), by
calling that very function (``shard``). What it does, read from that source:

* ``fsdp_auto_wrap_policy=TRANSFORMER_BASED_WRAP``: every module whose class is in the model's
  ``_no_split_modules`` (transformers' Llama: ``LlamaDecoderLayer``; a PEFT model forwards the
  attribute to its base model) gets its own ``fully_shard``, bottom-up
  (``fsdp2_prepare_auto_wrap_policy``, ``get_module_children_bottom_up``);
* an untied input embedding is its own unit; the tail ``[final_norm, lm_head]`` is one unit with
  ``reshard_after_forward=False``; the root gets ``fully_shard`` last with torch's default for it
  (``reshard_after_forward=None`` resolves to False for the root). On a PEFT model
  ``_find_final_norm`` looks under ``base_model_prefix`` ("model", which a PeftModel resolves to
  the ``LlamaForCausalLM``, whose children hold no norm), so the final norm stays in the root
  unit there: that is what accelerate does, and what is traced;
* ``reshard_after_forward=True`` for the layers (``FullyShardedDataParallelPlugin``:
  ``FSDP_RESHARD_AFTER_FORWARD`` defaults to "true" for fsdp_version 2): each layer's unsharded
  parameters are freed after its forward and all-gathered again in backward;
* mixed precision: ``set_mixed_precision("bf16")`` gives ``MixedPrecisionPolicy(param_dtype=bf16,
  reduce_dtype=bf16, output_dtype=bf16)`` (dataclasses.py ``set_mixed_precision``): the
  all-gathered parameters are bf16 (so autocast makes no weight copies), the unsharded gradients
  bf16, reduce-scattered in bf16 and cast to the fp32 sharded gradient; trainable parameters that
  are not fp32 are upcast first ("FSDP2 requires uniform orig_dtype among trainable params in each
  group"). LoRA's frozen bf16 base and fp32 adapters share one unit: FSDP2 checks a uniform dtype
  only over the *trainable* parameters (``FSDPParamGroup._init_mp_dtypes``), and frozen and
  trainable parameters are all-gathered together (``foreach_all_gather``: one flat buffer, as
  bytes when the dtypes differ);
* QLoRA is refused (``unavailable``). With transformers' default ``bnb_4bit_quant_storage=uint8``
  accelerate puts the "non-floating frozen Params4bit" in ``ignored_params`` (fsdp_utils.py, the
  ``incompatible_params4bit`` branch: "Default uint8 quant_storage cannot survive fully_shard's
  DTensor conversion"): every rank keeps the whole 4-bit base, which is not the run anyone
  shards a QLoRA model for, and not what the estimate models. The FSDP-QLoRA recipe (PEFT's
  "Use PEFT QLoRA and FSDP" guide: ``bnb_4bit_quant_storage=torch.bfloat16``) shards the packed
  bytes; that cannot run on fake tensors: ``fully_shard`` replaces each parameter by a DTensor
  shard and its unsharded view by a new plain ``nn.Parameter`` (``FSDPParam.init_unsharded_param``),
  which has no ``quant_state``, so bitsandbytes' ``Linear4bit.forward`` rebuilds a ``Params4bit``
  from it (bitsandbytes/nn/modules.py ``fix_4bit_weight_quant_state_from_module``), and
  ``Params4bit`` is made with ``torch.Tensor._make_subclass``, which refuses a FakeTensor (the same
  reason advisor.hftrace.bnb4bit needs its stand-in).

What the tracker sees (``FsdpLiveBytes``, the project's live-storage tracker with three FSDP
facts added, as ``FSDPMemTracker`` handles them in torch/distributed/_tools/fsdp2_mem_tracker.py):

* sharded parameters, their gradients and optimizer states are ``DTensor`` wrappers: the
  tracker returns ``NotImplemented`` for ops on them so that DTensor runs the local ops it stands
  for, which the tracker then sees (``FSDPMemTracker.__torch_dispatch__``), and labels the local
  shard of each (``DTensor._local_tensor``);
* FSDP2 frees and re-makes the unsharded parameters by resizing their storages in place
  (``_fsdp_param.py free_storage``/``alloc_storage``: ``storage.resize_(0)`` /
  ``resize_(size)``), which no dispatch mode sees; ``UntypedStorage.resize_`` is wrapped while
  the step runs (as ``MemTracker._track_resize`` does) and each resize becomes a free and, when it
  grows, a new allocation;
* the all-gather and reduce-scatter buffers (``FSDPParamGroup.unshard``, ``wait_for_unshard``,
  ``post_backward``) are labelled ``transient`` (docs: "FSDP/ZeRO gather and reduce buffers");
  the sharded gradient made in ``post_backward`` becomes ``gradients`` when the optimizer phase
  labels gradients.

With Liger kernel (``--liger-kernel``) the order is the Trainer's: Liger's monkey patch is applied
to the prepared model (``hf_stack.prepare``, as ``Trainer.train`` does before
``accelerator.prepare``), then ``fsdp2_prepare_model`` shards it; the stand-ins of
advisor.hftrace.liger run on the plain local tensors FSDP2 hands each module's forward (the
unsharded parameters are plain ``nn.Parameter``s, ``FSDPParam.init_unsharded_param``), so they
need nothing FSDP-specific. Checked against the estimate: tests/test_hftrace_fsdp.py
``LIGER_GRID``, ``benchmarks/hf_fsdp_agreement.py --liger-kernel``.

Rank 0 is traced. With fully_shard's even chunking (``torch.chunk`` along dim 0, padded to equal
size: _fsdp_param.py ``_init_sharded_param``) rank 0 holds the largest shard, so its peak is the
largest of the ranks'.
"""

from __future__ import annotations

import contextlib
import types

import torch

from advisor.errors import MissingExtra, SpecError
from advisor.model.tracker import LiveBytes

FAKE_BACKEND = "fake"  # torch.distributed.Backend.FAKE, registered by fake_pg on import
MESH_DIM = "dp_shard"  # accelerate's ParallelismConfig name of the FSDP mesh dimension


def applies(spec) -> bool:
    """Does ``spec`` trace FSDP2 over fake ranks (``--num-gpus N --sharding fsdp``, N > 1)?"""
    return spec.num_gpus > 1 and spec.sharding == "fsdp"


def unavailable(spec) -> str | None:
    """Why FSDP2 cannot be traced here for ``spec`` (None when it can)."""
    if not applies(spec):
        return None
    try:
        import torch.distributed as dist
    except ImportError:  # pragma: no cover - every torch build the project pins has it
        return "this torch build has no torch.distributed"
    if not dist.is_available():
        return "this torch build has no torch.distributed"
    try:
        import accelerate  # noqa: F401
    except ImportError:
        return "FSDP2 is applied as accelerate applies it, and accelerate is not installed (the hf extra)"
    if spec.method == "qlora":
        return ("FSDP2 cannot shard the 4-bit stand-in: with the FSDP-QLoRA recipe's bf16 quant storage "
                "bitsandbytes rebuilds a Params4bit from each gathered shard (fix_4bit_weight_quant_state_from_module), "
                "which cannot hold a fake tensor; with the default uint8 storage accelerate leaves the 4-bit base "
                "unsharded on every rank (ignored_params). The estimate models the bf16-storage recipe")
    if spec.precision == "fp16-mixed":
        return ("accelerate's FSDP2 with fp16 uses a sharded gradient scaler that the hf step does not "
                "run; trace bf16-mixed, bf16 or fp32")
    return None


def _accelerate():
    try:
        from accelerate.utils import FullyShardedDataParallelPlugin
        from accelerate.utils.fsdp_utils import fsdp2_prepare_model
    except ImportError:
        raise MissingExtra("FSDP2 in the hf trace (accelerate's fsdp2_prepare_model)", "hf", "accelerate") from None
    return FullyShardedDataParallelPlugin, fsdp2_prepare_model


@contextlib.contextmanager
def fake_ranks(world_size: int):
    """A fake process group of ``world_size`` ranks in this process, seen as rank 0, and its 1-D
    CPU device mesh (built here, outside any FakeTensorMode); the group is always destroyed."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend

    if dist.is_initialized():
        raise SpecError("a torch.distributed process group is already initialized in this process; "
                        "the FSDP trace needs its own fake one")
    dist.init_process_group(FAKE_BACKEND, rank=0, world_size=world_size, store=FakeStore())
    try:
        yield init_device_mesh("cpu", (world_size,), mesh_dim_names=(MESH_DIM,))
    finally:
        dist.destroy_process_group()


def _mixed_precision(spec) -> str:
    """accelerate's ``mixed_precision`` for the spec's precision (HF Trainer: bf16=True -> "bf16")."""
    return {"bf16-mixed": "bf16", "fp16-mixed": "fp16"}.get(spec.precision, "no")


def shard(model, spec, mesh):
    """Apply FSDP2 to ``model`` as accelerate does for the HF Trainer (module docstring): its own
    ``fsdp2_prepare_model``, given the attributes of an ``Accelerator`` it reads (the FSDP plugin,
    the device mesh and its FSDP dimension name, the mixed-precision mode, the device)."""
    FullyShardedDataParallelPlugin, fsdp2_prepare_model = _accelerate()
    mixed = _mixed_precision(spec)
    plugin = FullyShardedDataParallelPlugin(
        fsdp_version=2, auto_wrap_policy="transformer_based_wrap", reshard_after_forward=True,
        cpu_ram_efficient_loading=False)
    if mixed != "no":
        plugin.set_mixed_precision(mixed)  # Accelerator does this from its mixed_precision (state.py)
    accelerator = types.SimpleNamespace(
        state=types.SimpleNamespace(fsdp_plugin=plugin), torch_device_mesh=mesh,
        parallelism_config=types.SimpleNamespace(fsdp_dim_names=[MESH_DIM]),
        mixed_precision=mixed, is_main_process=False, device=torch.device("cpu"))
    # fsdp2_prepare_model takes ``original_sd = model.state_dict()`` before sharding and reads it only
    # under cpu_ram_efficient_loading (fsdp2_load_full_state_dict), off here: skipped, so the
    # trace's event log holds no state-dict copies a GPU run would not make either way
    model.state_dict = lambda *args, **kwargs: {}
    try:
        return fsdp2_prepare_model(accelerator, model)
    finally:
        del model.state_dict


def units(model) -> list[str]:
    """Names of the modules that are FSDP units (``fully_shard`` applied), root first as ''."""
    from torch.distributed.fsdp import FSDPModule

    return [name for name, m in model.named_modules() if isinstance(m, FSDPModule)]


def _local(t):
    """The local shard of a DTensor (the tensor rank 0 stores), else ``t``."""
    return getattr(t, "_local_tensor", t)


class _LocalView:
    """A module seen through its local shards, for ``LiveBytes.label_model``."""

    def __init__(self, model):
        self._model = model

    def modules(self):
        return self._model.modules()

    def named_parameters(self):
        return [(n, _local(p)) for n, p in self._model.named_parameters()]

    def named_buffers(self):
        return [(n, _local(b)) for n, b in self._model.named_buffers()]


class FsdpLiveBytes(LiveBytes):
    """``advisor.model.tracker.LiveBytes`` that sees through DTensor to the local ops, follows
    FSDP2's storage resizes, and labels FSDP's communication buffers (module docstring)."""

    def __post_init__(self):
        super().__post_init__()
        self.buffer_depth = 0  # > 0 inside FSDP's all-gather / reduce-scatter methods
        self.resizes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from torch.distributed.tensor import DTensor

        if any(issubclass(t, DTensor) for t in types):
            return NotImplemented  # let DTensor desugar into local ops, which come back here
        return super().__torch_dispatch__(func, types, args, kwargs)

    def track(self, t: torch.Tensor, hint: str | None = None) -> None:
        known = id(t.untyped_storage()) in self._live
        super().track(t, hint)
        if self.buffer_depth and not known:
            self.label(t, "transient")

    def label(self, t, category: str) -> None:
        super().label(None if t is None else _local(t), category)

    def label_model(self, model, constants=()) -> None:
        super().label_model(_LocalView(model), constants)

    def resized(self, storage) -> None:
        """``storage`` was resized in place: free what it held; if it now holds bytes, a new
        allocation (its own record, so each gather of a layer is its own event pair)."""
        key = id(storage)
        idx = self._live.get(key)
        if idx is None:
            return  # not a storage this tracker saw made
        self.resizes += 1
        self._settle()
        self.events.append(~idx)
        del self._live[key]
        nbytes = storage.nbytes()
        if nbytes:
            old = self.storages[idx]
            new = len(self.storages)
            self.storages.append(type(old)(nbytes, self.phase, old.hint, "transient"))
            self._live[key] = new
            self.events.append(new)
            for ref_id, (k, i, ref) in self._refs.items():
                if k == key and i == idx:
                    self._refs[ref_id] = (k, new, ref)
                    break
        self._settled = len(self.events)


def unsharded_grads(fsdp_param) -> list:
    """The unsharded gradients one FSDP2 parameter keeps after a backward without gradient sync:
    ``unsharded_param.grad`` in ``param_dtype`` when no reduce dtype differs from it, else the
    ``unsharded_accumulated_grad`` upcast to ``reduce_dtype`` (torch 2.13 _fsdp_param.py
    ``to_accumulated_grad_if_needed``). ``_unsharded_param`` is read directly, as FSDP2 does
    there, since the parameter was already resharded (its storage freed, the gradient kept)."""
    out = [getattr(fsdp_param, "unsharded_accumulated_grad", None)]
    param = getattr(fsdp_param, "_unsharded_param", None)
    out.append(None if param is None else param.grad)
    return [g for g in out if g is not None]


def micro_batches(spec) -> int:
    """Micro-batches the trace runs per step under gradient accumulation: three under FSDP2 when
    the spec accumulates three or more, else two.

    On one GPU every micro-batch after the first keeps the same tensors alive (the summed
    gradients), so two show the peak. Under FSDP2 the Trainer runs every micro-batch but the
    last without gradient sync (advisor.pilot.hf_stack ``no_sync``): the unsharded gradients
    stay, and only the last backward reduce-scatters them, layer by layer, into the sharded
    gradients, freeing each unsharded one as it goes (torch 2.13 _fsdp_param_group.py
    ``post_backward``: ``fsdp_param.unsharded_param.grad = None`` before ``foreach_reduce``). A
    middle micro-batch therefore holds every unsharded gradient through its whole backward
    (the LM head's included, which the last one reduces first), the last one fewer: with two
    micro-batches the trace would see only the last."""
    accumulation = spec.gradient_accumulation_steps
    return min(accumulation, 3 if applies(spec) else 2)


@contextlib.contextmanager
def watching(trackers):
    """While the step runs: storage resizes reported to ``trackers`` (torch's
    ``MemTracker._track_resize`` does the same: "``torch.UntypedStorage.resize_`` is not captured
    by ``TorchDispatchMode``"), and FSDP's buffer-making methods marked for them."""
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

    trackers = [t for t in trackers if isinstance(t, FsdpLiveBytes)]
    original_resize = torch.UntypedStorage.resize_

    def resize_(storage, size):
        out = original_resize(storage, size)
        for tracker in trackers:
            tracker.resized(storage)
        return out

    def buffers(method):
        def wrapped(*args, **kwargs):
            for tracker in trackers:
                tracker.buffer_depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                for tracker in trackers:
                    tracker.buffer_depth -= 1
        return wrapped

    def kept(method):
        def wrapped(group, *args, **kwargs):
            out = method(group, *args, **kwargs)
            if not group.reduce_grads:  # no_sync: the unsharded gradients stay (accumulation)
                for fsdp_param in group.fsdp_params:
                    for grad in unsharded_grads(fsdp_param):
                        for tracker in trackers:
                            tracker.label(grad, "gradients")
            return out
        return wrapped

    names = ("unshard", "wait_for_unshard", "post_backward")
    saved = {name: getattr(FSDPParamGroup, name) for name in names}
    torch.UntypedStorage.resize_ = resize_
    for name in names:
        wrapped = buffers(saved[name])
        setattr(FSDPParamGroup, name, kept(wrapped) if name == "post_backward" else wrapped)
    try:
        yield
    finally:
        torch.UntypedStorage.resize_ = original_resize
        for name in names:
            setattr(FSDPParamGroup, name, saved[name])


@contextlib.contextmanager
def sharded(spec, modes):
    """The hook ``run_hf_step`` enters before its fake mode: for an FSDP spec, the fake ranks and
    the resize/buffer watch, yielding ``wrap(model) -> model`` (accelerate's FSDP2 wrapping);
    for any other spec, the identity."""
    if not applies(spec):
        yield lambda model: model
        return
    why = unavailable(spec)
    if why:
        raise SpecError(f"Cannot trace FSDP2 here: {why}.")
    with fake_ranks(spec.num_gpus) as mesh, watching(modes):
        yield lambda model: shard(model, spec, mesh)


def collect() -> None:
    """Free the sharded model once the trace dropped it. ``fully_shard`` leaves reference cycles
    (the module's ``FSDPState`` and its param group hold the module, the module holds its state
    through its hooks and ``_get_fsdp_state``), which reference counting alone never frees; a
    plain model dies at ``del``. Collected here so its frees end the event log the same way."""
    import gc

    gc.collect()


def versions() -> dict[str, str]:
    """The library that decided the wrapping, beside torch (which did the sharding)."""
    import accelerate

    return {"accelerate": accelerate.__version__}


def note(spec) -> str:
    """What the trace says it did."""
    return (f"FSDP2 traced over {spec.num_gpus} fake ranks (rank 0's memory): torch fully_shard as accelerate's "
            "fsdp2_prepare_model applies it (each decoder layer, the embedding and LM head, the root), "
            "all-gather and reduce-scatter buffers included")
