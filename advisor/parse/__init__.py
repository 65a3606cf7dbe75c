"""Chat text in English or Spanish -> what to compute (``advisor.parse``).

    from advisor.parse import parse_message, ParseResult
    result = parse_message("can we QLoRA llama 3 70b at 8k on a 4090?", catalog)
    result.intent, result.request.model, result.request.seq_len   # "estimate", "llama-3-70b", 8192
    parse_message("¿y con 16k?", catalog, previous=result.request).request.seq_len  # 16384

Conventions (documented for users in the answers and for the bot in ``ParseResult``):
- k = 1024 for sequence lengths ("128k" = 131072) and 1000 for token counts and examples
  ("200k examples of 512 tokens" = 102.4M tokens); "2,048" and "2.048" are both 2048, "1,5B" is
  1.5B (``numbers``).
- a named catalog model leaves ``params_b`` None; a bare size ("13B", "7 mil millones") sets it.
- GPUs and models are catalog ids; "8 x H100" sets ``num_gpus`` 8 and ``gpu`` "h100-sxm".
- what the text did not say stays None; defaults are filled later by ``advisor.spec.resolve``.
- the only exception raised is ``advisor.errors.ParseError`` (empty or over-long messages).
"""

from advisor.parse.describe import assumed, example_message, understood
from advisor.parse.lang import detect_language
from advisor.parse.request import merge, parse_message
from advisor.parse.result import CONTRACT_KEYS, INTENTS, ParseResult

__all__ = ["parse_message", "ParseResult", "detect_language", "merge", "understood", "assumed",
           "example_message", "CONTRACT_KEYS", "INTENTS"]
