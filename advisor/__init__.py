"""The fine-tuning GPU advisor: which rentable GPU to fine-tune an LLM on, how much memory each
part of the run takes, how long it runs and what it costs to an accepted checkpoint.

This package is the domain library; it never imports Slack or reads environment variables.
Heavy dependencies (torch, ray, matplotlib) are imported only inside the features that need them.
"""

__version__ = "0.1.0"
