"""The pilot's checkpoint (safetensors) and its provenance manifest.

LoRA/QLoRA save the adapter only (the trainable tensors), a full fine-tune saves the whole state,
as the stacks teams use do (PEFT ``save_pretrained``; HF Trainer ``save_model``). The save time
includes the device-to-host copy and an fsync, because that is what a checkpoint to a persistent
volume costs. The manifest next to it follows our provider's advice: pin the base revision, record
the adapter rank and precision, store the configuration with every checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MANIFEST_FORMAT = "advisor-pilot-checkpoint/1"
# Checkpoints up to this size get a sha256 in the manifest (hashing runs at ~1 GB/s on one core;
# an 8B full state of 16 GB would add ~15 s to every pilot, so large ones record size only).
HASH_LIMIT_BYTES = 2 * 1024**3


def checkpoint_tensors(model, method: str) -> dict[str, Any]:
    """Tensors to save: trainable parameters for adapters, the whole state otherwise; shared
    storages (tied embeddings) kept once, every tensor contiguous (safetensors requires it)."""
    if method in ("lora", "qlora"):
        items = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    else:
        items = list(model.state_dict().items())
    out: dict[str, Any] = {}
    seen: set[tuple[int, int]] = set()
    for name, tensor in items:
        t = tensor.detach()
        key = (t.untyped_storage().data_ptr(), t.storage_offset()) if t.numel() else (id(t), 0)
        if key in seen:
            continue
        seen.add(key)
        out[name] = t.contiguous()
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def save_checkpoint(model, pspec, out_dir: Path, environment: dict[str, Any],
                    extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Save, time and describe the checkpoint; returns the result's ``checkpoint`` object."""
    from safetensors.torch import save_file

    spec = pspec.spec
    out_dir.mkdir(parents=True, exist_ok=True)
    kind = "adapter" if spec.trains_adapters else "full"
    path = out_dir / ("adapter_model.safetensors" if kind == "adapter" else "model.safetensors")
    start = time.perf_counter()
    tensors = checkpoint_tensors(model, spec.method)
    save_file(tensors, str(path), metadata={"format": "pt", "pilot_id": pspec.pilot_id})
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    seconds = time.perf_counter() - start
    size = path.stat().st_size
    manifest_path = out_dir / "manifest.json"
    manifest = build_manifest(pspec, path, size, environment, extra or {})
    if size <= HASH_LIMIT_BYTES:
        manifest["checkpoint"]["sha256"] = _sha256(path)
    manifest_path.write_text(json.dumps(manifest, indent=2, default=str))
    return {"kind": kind, "path": str(path), "bytes": size, "save_s": seconds,
            "tensors": len(tensors), "manifest": str(manifest_path)}


def build_manifest(pspec, path: Path, size: int, environment: dict[str, Any],
                   extra: dict[str, Any]) -> dict[str, Any]:
    spec = pspec.spec
    adapter = None
    if spec.trains_adapters:
        adapter = {"method": spec.method, "rank": spec.lora_rank, "alpha": spec.lora_alpha,
                   "dropout": spec.lora_dropout, "targets": spec.lora_targets,
                   "precision": "fp32 adapters" + (f", base {spec.quant}" if spec.quant else ""),
                   "base_quant": spec.quant, "double_quant": spec.double_quant if spec.quant else None}
    return {
        "format": MANIFEST_FORMAT,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "pilot_id": pspec.pilot_id,
        "checkpoint": {"file": path.name, "bytes": size, "format": "safetensors",
                       "contents": "adapter weights only" if adapter else "full model state"},
        "base_model": {"id": pspec.model_id, "hub_id": pspec.hub_id, "revision": pspec.revision,
                       "weights": "local directory " + pspec.weights_dir if pspec.weights_dir
                       else "random initialisation (pilot: shapes and speed, not quality)"},
        "adapter": adapter,
        "training": {"precision": spec.precision, "optimizer": spec.optimizer,
                     "seq_len": spec.seq_len, "micro_batch": spec.micro_batch,
                     "gradient_checkpointing": spec.gradient_checkpointing, "stack": spec.stack,
                     "seed": pspec.seed},
        "spec": spec.model_dump(mode="json"),
        "architecture": pspec.arch.model_dump(mode="json"),
        "code_version": environment.get("code_version"),
        "hardware": {k: environment.get(k) for k in ("device", "gpu_name", "gpu_total_memory_bytes",
                                                     "driver", "torch", "cuda", "host")},
        **extra,
    }
