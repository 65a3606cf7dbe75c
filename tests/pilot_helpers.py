"""Helpers shared by the pilot tests: tiny pilot specs that run in a second or two on CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from advisor.catalog import Catalog
from advisor.pilot.events import read_events
from advisor.pilot.spec import PilotSpec, pilot_spec_for
from advisor.resolve import resolve_request
from advisor.spec import SpecRequest
from tests.conftest import ROOT

# fp32 and short sequences: real bf16 on this CPU is 20-40x slower than fp32 (docs/DESIGN.md).
TINY = {"model": "tiny-test", "precision": "fp32", "seq_len": 32, "micro_batch": 1}

_catalog = Catalog.in_memory()


def tiny_pilot(tmp_path: Path, *, gpu: str | None = "a100", steps: int = 3, **fields) -> PilotSpec:
    options = {k: fields.pop(k) for k in list(fields) if k in PilotSpec.model_fields}
    request = SpecRequest(**{**TINY, "method": "lora", **fields})
    resolved = resolve_request(request, _catalog)
    return pilot_spec_for(resolved, _catalog.gpu(gpu) if gpu else None, steps=steps,
                          output_dir=str(tmp_path / "run"), progress_every_s=0.05, **options)


def run_runner(pspec: PilotSpec, tmp_path: Path, timeout: float = 120) -> tuple[int, list]:
    """`python -m advisor.pilot` in a subprocess, as a launcher runs it; (exit status, events)."""
    spec_path, events_path = tmp_path / "spec.json", tmp_path / "events.jsonl"
    spec_path.write_text(pspec.model_dump_json())
    proc = subprocess.run([sys.executable, "-m", "advisor.pilot", "--spec", str(spec_path), "--events",
                           str(events_path)], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, read_events(events_path)[0]
