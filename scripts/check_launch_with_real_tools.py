"""Read the LoRA 8B and QLoRA 70B launch configs with the real axolotl, torchtune and SkyPilot,
each from its own throwaway directory (they cannot be installed beside this project's stack;
scripts/derive_launch_schemas.py says how to make the directories). Prints one line per check.

    python scripts/check_launch_with_real_tools.py --axolotl /tmp/axolotl --skypilot /tmp/sky --torchtune /tmp/tt

torchtune: ``tune validate``'s function on the config, then the model built on the meta device
(no weights, no memory). SkyPilot: ``sky.Task.from_yaml``. axolotl: ``AxolotlInputConfig``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {"lora-8b": dict(method="lora", model="llama-3.1-8b"),
         "qlora-70b": dict(method="qlora", model="llama-3.1-70b", seq_len=8192)}

WRITE = r'''
import sys
from advisor.catalog import Catalog
from advisor.launch import LaunchOptions, choose_plan, launch_config, render
from advisor.spec import SpecRequest
case, fmt, path = sys.argv[1], sys.argv[2], sys.argv[3]
cases = {"lora-8b": dict(method="lora", model="llama-3.1-8b"),
         "qlora-70b": dict(method="qlora", model="llama-3.1-70b", seq_len=8192)}
plan = choose_plan(SpecRequest(**cases[case]), Catalog.in_memory())
open(path, "w").write(render(launch_config(plan, fmt, LaunchOptions(dataset="trl-lib/Capybara", cloud="aws"))))
'''

CHECKS = {
    "axolotl": r'''
import sys, yaml
sys.path.insert(0, sys.argv[1])
from axolotl.utils.schemas.config import AxolotlInputConfig
cfg = AxolotlInputConfig(**yaml.safe_load(open(sys.argv[2])))
print("AxolotlInputConfig ok:", cfg.adapter, cfg.sequence_len, cfg.optimizer)
''',
    "skypilot": r'''
import sys
sys.path.insert(0, sys.argv[1])
import sky
task = sky.Task.from_yaml(sys.argv[2])
print("sky.Task.from_yaml ok:", task.name, task.num_nodes, task.resources)
''',
    "torchtune": r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import torch
from omegaconf import OmegaConf
from torchtune import config
from torchtune.config._validate import validate
cfg = OmegaConf.load(sys.argv[2])
validate(cfg)
t = time.monotonic()
with torch.device("meta"):
    model = config.instantiate(cfg.model)
n = sum(p.numel() for p in model.parameters())
print(f"tune validate ok; {cfg.model._component_} built on meta: {n / 1e9:.2f}B parameters "
      f"({time.monotonic() - t:.0f} s)")
''',
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for tool in CHECKS:
        ap.add_argument(f"--{tool}", metavar="DIR")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for tool, code in CHECKS.items():
            where = getattr(args, tool)
            if not where:
                continue
            for case in CASES:
                path = str(Path(tmp) / f"{case}-{tool}.yaml")
                subprocess.run([sys.executable, "-c", WRITE, case, tool, path], check=True, cwd=ROOT)
                out = subprocess.run([sys.executable, "-c", code, where, path], capture_output=True, text=True, cwd=tmp)
                last = (out.stdout.strip().splitlines() or out.stderr.strip().splitlines() or ["(no output)"])[-1]
                print(f"{tool:9} {case:9} {'ok  ' if out.returncode == 0 else 'FAIL'} {last}")


if __name__ == "__main__":
    main()
