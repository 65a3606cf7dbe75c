"""Write a launch config as its tool reads it: YAML with the plan and what the tool cannot
express as leading comments; a Ray job as a shell script around ``ray job submit``; JSON for
programs (``LaunchConfig.to_json``)."""

from __future__ import annotations

import json
import shlex

import yaml

from advisor.launch.config import LaunchConfig


class _Dumper(yaml.SafeDumper):
    """Block-style YAML; multi-line strings (a SkyPilot ``run:``) as literal blocks."""


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _str)


def comments(config: LaunchConfig) -> list[str]:
    lines = [f"# {h}" for h in config.header]
    lines.append(f"# run: {config.command}")
    if config.unexpressed:
        lines.append(f"# not expressed in this {config.tool} config (set or check by hand):")
        lines += [f"#   - {u}" for u in config.unexpressed]
    return lines


def to_yaml(body: dict) -> str:
    return yaml.dump(body, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)


def render(config: LaunchConfig) -> str:
    """The file's text."""
    if config.syntax == "yaml":
        return "\n".join(comments(config)) + "\n" + to_yaml(config.body)
    if config.syntax == "json":
        return json.dumps(config.body, indent=2) + "\n"
    return "\n".join(["#!/usr/bin/env bash", *comments(config), "set -euo pipefail",
                      ray_submit_command(config)]) + "\n"


def ray_submit_command(config: LaunchConfig) -> str:
    """``ray job submit`` with the same arguments (Ray 2.60 ``ray job submit --help``); the
    script's own arguments go first (``bash job.sh --no-wait --submission-id ID``)."""
    b = config.body
    parts = ['ray job submit "$@"', '--address "${RAY_ADDRESS:?set RAY_ADDRESS to the cluster dashboard}"',
             f"--entrypoint-num-gpus {b['entrypoint_num_gpus']}"]
    if b.get("entrypoint_resources"):
        parts.append("--entrypoint-resources " + shlex.quote(json.dumps(b["entrypoint_resources"])))
    parts.append("--runtime-env-json " + shlex.quote(json.dumps(b["runtime_env"])))
    parts.append("--metadata-json " + shlex.quote(json.dumps(b["metadata"])))
    # the CLI joins the words after "--" with shlex.join (ray/dashboard/modules/job/cli.py)
    parts.append("-- sh -c " + shlex.quote(b["entrypoint"]))
    return " \\\n  ".join(parts)
