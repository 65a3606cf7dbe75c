#!/usr/bin/env bash
# The GPU verification grid (issue 7, item 7; issue 11: --runtime hf rows), as one short script for
# a node with a CUDA GPU: full 1B, LoRA and QLoRA 8B at two sequence lengths, with and without
# gradient checkpointing, on the reference runtime and on the hf runtime (transformers + PEFT +
# bitsandbytes; needs the hf extra: pip install -e ".[pilot,hf]"). Writes $OUT/pilot_grid.json
# (estimate, trace of the same runtime, and measurement per row) and the CUDA-marked tests' output
# to $OUT/gpu_tests.txt. Commit the JSON as tests/data/pilot_grid_<gpu>.json afterwards.
#
#   OUT=/some/dir scripts/gpu_pilot_grid.sh [--only qlora] [--steps 5] [--runtime hf]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the directory for results}"
mkdir -p "$OUT"
python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA GPU visible to torch')"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/nvidia_smi.csv"
python -m pytest -q -m gpu tests/ 2>&1 | tee "$OUT/gpu_tests.txt" || true
python benchmarks/pilot_grid.py --out "$OUT/pilot_grid.json" "$@"
