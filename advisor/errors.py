"""The advisor's exception tree.

Every error raised on purpose by the library is an ``AdvisorError``; its message is written for a
person who can act on it (what is wrong, what to type instead). Boundaries (the CLI, the Slack
bot) translate these into a usage error or a reply; anything else is a bug and is logged with its
traceback.

    AdvisorError
    ├── SpecError            a fine-tuning spec that cannot be trained (bad numbers, bad combos)
    ├── CatalogError         catalog problems
    │   ├── UnknownModel     a model name we cannot resolve (carries the closest matches)
    │   ├── UnknownGpu       a GPU name we cannot resolve (carries the closest matches)
    │   └── CatalogMismatch  the committed catalog differs from its sources
    ├── ParseError           chat text we could not understand (carries an example that works)
    ├── MissingExtra         a feature needs an optional extra (torch, ray, matplotlib)
    ├── PilotError           a pilot could not be started, tracked or read back
    ├── LaunchError          no launch config for this plan and tool (says which would work)
    └── StateUnavailable     the state database cannot be written or reached (full or read-only
                             disk, a PostgreSQL server that does not answer)
"""

from __future__ import annotations


class AdvisorError(Exception):
    """Base of every error the advisor raises on purpose."""


class SpecError(AdvisorError, ValueError):
    """The fine-tuning spec is invalid; the message lists what to change."""


class CatalogError(AdvisorError):
    """Something is wrong with the catalog or a request against it."""


class _UnknownName(CatalogError, LookupError):
    kind = "name"

    def __init__(self, name: str, suggestions: list[str] | None = None):
        self.name = name
        self.suggestions = list(suggestions or [])
        hint = f" Closest matches: {', '.join(self.suggestions)}." if self.suggestions else ""
        super().__init__(f"Unknown {self.kind} {name!r}.{hint}")


class UnknownModel(_UnknownName):
    kind = "model"


class UnknownGpu(_UnknownName):
    kind = "GPU"


class CatalogMismatch(CatalogError):
    """The committed catalog.db is not what its source data builds."""


class ParseError(AdvisorError, ValueError):
    """Chat text could not be turned into a spec; ``example`` is a message that would work."""

    def __init__(self, message: str, example: str | None = None, code: str = "unparsed"):
        self.example = example
        self.code = code
        super().__init__(message)


class MissingExtra(AdvisorError, ImportError):
    """A feature needs an optional dependency that is not installed."""

    def __init__(self, feature: str, extra: str, module: str):
        self.feature, self.extra, self.module = feature, extra, module
        super().__init__(
            f"{feature} needs the optional '{extra}' extra ({module} is not installed). "
            f"Install it with: pip install 'finetune-advisor[{extra}]'"
        )


class PilotError(AdvisorError):
    """A pilot could not be started, tracked or read back."""


class LaunchError(AdvisorError):
    """A launch config cannot be written for this plan and tool; the message says what would work."""


class StateUnavailable(AdvisorError):
    """The state database cannot record anything right now; the message says what to check."""
