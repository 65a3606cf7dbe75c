"""`advisor`: a thin command-line skin over the library the Slack bot uses.

Each command opens what it needs, calls one library function, prints the result (``--json``: one
object on stdout; sizes in bytes, durations in seconds, money in USD) and turns an
``AdvisorError`` into a usage error with the library's message.
"""

from __future__ import annotations

import click

from advisor import __version__
from advisor.cli.common import AdvisorGroup


@click.group(cls=AdvisorGroup)
@click.version_option(__version__, prog_name="advisor")
def main() -> None:
    """Which GPU to fine-tune an LLM on, how much memory, how long, what it costs."""
