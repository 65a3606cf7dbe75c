"""Derive the schemas tests/test_launch.py validates axolotl, torchtune and SkyPilot configs
against, from the tools' own code, for the tools that cannot be installed beside this project's
pinned stack (axolotl 0.19.0 pins transformers==5.16.1 and peft==0.20.0; SkyPilot 0.14.1 pins
click<8.2 and uvicorn<0.36; torchtune 0.6.1 needs torchao<0.16, which peft 0.21 refuses).

Each tool goes into a throwaway directory, never into the project's environment:

    pip download --no-deps axolotl==0.19.0 -d /tmp/w && unzip -q /tmp/w/axolotl-*.whl -d /tmp/axolotl
    pip install --target /tmp/sky skypilot==0.14.1
    pip install --no-deps --target /tmp/tt torchtune==0.6.1 torchao==0.15.0 torchdata==0.11.0 \\
        omegaconf antlr4-python3-runtime==4.9.3 tiktoken sentencepiece blobfile kagglehub
    python scripts/derive_launch_schemas.py --axolotl /tmp/axolotl --skypilot /tmp/sky --torchtune /tmp/tt

What is derived (written to tests/data/launch_schemas/):
- axolotl-0.19.0.schema.json: ``AxolotlInputConfig.model_json_schema()`` (axolotl/utils/schemas/
  config.py), torch.dtype fields as strings, and ``additionalProperties: false`` at the top:
  axolotl's model ignores unknown keys, so a misspelt key would silently do nothing.
- skypilot-0.14.1-task.schema.json: ``sky.utils.schemas.get_task_schema()`` with
  ``get_resources_schema()`` in place of its bare ``resources`` object: the two schemas
  ``sky.Task.from_yaml`` validates a task against.
- torchtune-0.6.1.json: for each ``_component_`` a launch config can name, its parameters as
  ``inspect.signature`` reports them (what ``tune validate`` binds); for each recipe the
  top-level keys its source reads from the config.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "launch_schemas"

AXOLOTL = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from pydantic.json_schema import GenerateJsonSchema
from axolotl.utils.schemas.config import AxolotlInputConfig

class Gen(GenerateJsonSchema):
    def enum_schema(self, schema):
        if any(isinstance(m.value, torch.dtype) for m in schema["members"]):
            return {"type": "string", "enum": [m.name for m in schema["members"]]}
        return super().enum_schema(schema)
    def is_instance_schema(self, schema):
        return {}

s = AxolotlInputConfig.model_json_schema(schema_generator=Gen, mode="validation")
s["additionalProperties"] = False
s["$comment"] = "derived from axolotl 0.19.0 AxolotlInputConfig by scripts/derive_launch_schemas.py"
print(json.dumps(s, sort_keys=True))
'''

SKYPILOT = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from sky.utils import schemas
s = schemas.get_task_schema()
# Task.from_yaml_config checks the task against this schema and its resources (a bare object
# here) against get_resources_schema() in Resources.from_yaml_config: one schema for both
s["properties"]["resources"] = schemas.get_resources_schema()
s["$comment"] = ("sky.utils.schemas.get_task_schema() with get_resources_schema() for resources, skypilot 0.14.1, "
                 "by scripts/derive_launch_schemas.py")
print(json.dumps(s, sort_keys=True, default=str))
'''

TORCHTUNE = r'''
import inspect, json, re, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from torchtune.config._utils import _get_component_from_path
from advisor.launch import names
paths = {"torchtune.training.FullModelHFCheckpointer", "torchtune.modules.loss.CEWithChunkedOutputLoss",
         "torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup",
         "torchtune.training.metric_logging.DiskLogger", "torch.optim.AdamW", "torch.optim.SGD",
         "bitsandbytes.optim.AdamW8bit", "bitsandbytes.optim.PagedAdamW8bit",
         "torchtune.datasets.chat_dataset", "torchtune.datasets.instruct_dataset",
         "torchtune.datasets.text_completion_dataset"}
for m in names.TORCHTUNE_MODELS.values():
    paths.add(m.tokenizer)
    for method in ("full", "lora") + (("qlora",) if m.qlora else ()):
        paths.add(m.component(method))
components = {}
for p in sorted(paths):
    try:
        obj = _get_component_from_path(p)
    except Exception as exc:
        components[p] = {"error": repr(exc)}
        continue
    sig = inspect.signature(obj)
    ps = sig.parameters.values()
    components[p] = {
        "params": [q.name for q in ps if q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY)],
        "required": [q.name for q in ps if q.default is q.empty and q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY)],
        "var_kwargs": any(q.kind == q.VAR_KEYWORD for q in ps),
    }
recipes = {}
root = Path(sys.argv[1]) / "recipes"
for name in ("lora_finetune_single_device", "lora_finetune_distributed", "full_finetune_single_device",
             "full_finetune_distributed"):
    src = (root / f"{name}.py").read_text()
    keys = set(re.findall(r"cfg\.get\(\s*[\"']([a-z_0-9]+)[\"']", src)) | set(re.findall(r"\bcfg\.([a-z_][a-z_0-9]*)\b", src))
    keys -= {"get", "pop", "items", "keys"}
    recipes[name] = sorted(keys)
print(json.dumps({"$comment": "torchtune 0.6.1 components and recipe keys, by scripts/derive_launch_schemas.py",
                  "components": components, "recipes": recipes}, sort_keys=True, indent=1))
'''


def _run(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, timeout=900)
    return out.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--axolotl", help="directory with the unpacked axolotl 0.19.0 wheel")
    ap.add_argument("--skypilot", help="pip --target directory with skypilot 0.14.1")
    ap.add_argument("--torchtune", help="pip --target directory with torchtune 0.6.1")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.axolotl:
        (OUT / "axolotl-0.19.0.schema.json").write_text(_run(AXOLOTL, args.axolotl))
    if args.skypilot:
        (OUT / "skypilot-0.14.1-task.schema.json").write_text(_run(SKYPILOT, args.skypilot))
    if args.torchtune:
        (OUT / "torchtune-0.6.1.json").write_text(_run(TORCHTUNE, args.torchtune, str(ROOT)))


if __name__ == "__main__":
    main()
