"""The environment a pilot runner starts with: explicit, never the bot's own.

A runner is a training process on a GPU node; it needs its PATH, Python, CUDA and Hugging Face
settings, never the bot's Slack credentials or the state database's password. Whoever builds a
launcher passes the parent environment through ``child_environment``: every ``SLACK_*``
variable goes, and so does every name (or fnmatch pattern, ``*_SECRET``) in ``deny``
(``ADVISOR_CHILD_ENV_DENY`` in the bot's settings). The local launcher hands the result to
``subprocess.Popen(env=...)``; on Ray the job's entrypoint runs the runner through
``python -m advisor.cli.clean_exec``, which ``execve``s it with the same filtering applied to the
node's environment, so ``/proc/<pid>/environ`` of the runner never shows them either.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

# Always removed, whatever the settings say.
DENY_PREFIXES = ("SLACK_",)
# Removed unless the settings name their own list: the state database URL carries its password.
# RAY_AUTH_TOKEN: the Ray cluster's token (Ray 2.5x token authentication), which the bot needs
# to submit jobs and a training process never does.
DEFAULT_DENY = ("ADVISOR_STATE_URL", "DATABASE_URL", "PGPASSWORD", "RAY_AUTH_TOKEN", "*_SECRET", "*_SECRET_KEY",
                "*PASSWORD*")


def denied(name: str, deny: Iterable[str] = DEFAULT_DENY) -> bool:
    if name.startswith(DENY_PREFIXES):
        return True
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in deny if pattern)


def child_environment(parent: Mapping[str, str], deny: Iterable[str] = DEFAULT_DENY,
                      extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``parent`` without SLACK_* and the ``deny`` names or patterns, plus ``extra``."""
    deny = tuple(deny)
    env = {k: v for k, v in parent.items() if not denied(k, deny)}
    env.update({k: v for k, v in (extra or {}).items() if not denied(k, deny)})
    return env
