"""Write a launch config as its tool reads it: YAML with the plan and what the tool cannot
express as leading comments; a Ray job as a shell script around ``ray job submit``; JSON for
programs (``LaunchConfig.to_json``)."""

from __future__ import annotations

import json

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
    from advisor.launch.cluster import ray_submit_command

    return "\n".join(["#!/usr/bin/env bash", *comments(config), "set -euo pipefail",
                      ray_submit_command(config)]) + "\n"
