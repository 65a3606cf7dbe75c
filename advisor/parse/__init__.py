"""Chat text in English or Spanish -> what to compute (``advisor.parse``).

    from advisor.parse import parse_message, ParseResult
    result = parse_message("can we QLoRA llama 3 70b at 8k on a 4090?", catalog)
    result.intent, result.request.model, result.request.seq_len   # "estimate", "llama-3-70b", 8192
    parse_message("¿y con 16k?", catalog, previous=result.request).request.seq_len  # 16384

Conventions (documented for users in the answers and for the bot in ``ParseResult``):
- k = 1024 for sequence lengths ("128k" = 131072) and 1000 for token counts and examples
  ("200k examples of 512 tokens" = 102.4M tokens); "2,048" and "2.048" are both 2048, "1,5B" is
  1.5B (``numbers``).
- a bare "NNk" with no tokens/examples word after it ("qlora phi3 mini 128k", "llama 70b 8k") is a
  sequence length (k = 1024). A context size inside a model name is part of the name:
  "phi-3-mini-128k-instruct" (or "phi-3-mini-128k") is phi-3-mini and sets no sequence length; the
  size is also the sequence length only when typed apart from the name ("phi3 mini 128k") or
  followed by a sequence word ("phi-3-mini-128k context") (``names._context_variant``).
- "N examples of M tokens" (also "averaging", "x", "~", "con una media de", or "M tokens per
  example" said apart) is a dataset of N x M tokens and leaves the sequence length alone; "M
  tokens per example" with no count is the sequence length; a count with no length is counted at
  the sequence length, with a warning.
- gradient accumulation and the global batch do not change memory: they are not read as the
  micro-batch ("per_device_train_batch_size: 4, gradient_accumulation_steps 8" is micro-batch 4)
  and the answer says so.
- a named catalog model leaves ``params_b`` None; a bare size ("13B", "7 mil millones") sets it.
- in a thread, "double the context" / "la mitad de GPUs" scale the thread's value (or its default,
  ``relative``), and "cheaper option?" / "¿algo más rápido?" re-rank every GPU: a follow-up without
  the thread's GPU and GPU count, with ``params["goal"]`` "cost" or "speed".
- GPUs and models are catalog ids; "8 x H100" sets ``num_gpus`` 8 and ``gpu`` "h100-sxm". A Hugging
  Face id the catalog does not know ("HuggingFaceTB/SmolLM3-3B") is the model as typed, and a pasted
  ``config.json`` is ``config:<sha>`` (its JSON in ``ParseResult.configs``); ``advisor.hub`` reads them.
- every number is typed by its unit and bound to the words on either side of it, all together
  (``slots``): "13b seq 2048", "seq 2048 13b" and "13B model, 2k context" read the same.
- what the text did not say stays None; defaults are filled later by ``advisor.spec.resolve``.
  What it said but cannot be read is a question, never a default: "seq len: max" (clarify code
  "unreadable"), a number nothing explains ("llama 3 8b 64": "number"), a name one edit from ours
  is read and said ("read 'mistrl 7b' as Mistral 7B v0.3"), two edits away or unknown before a size
  ("mstrl 7b", "Pythia 12B") is "did you mean ...?" ("did_you_mean", ``fuzzy``).
- the only exception raised is ``advisor.errors.ParseError`` (empty or over-long messages).
"""

from advisor.parse.describe import assumed, example_message, understood
from advisor.parse.lang import detect_language
from advisor.parse.request import merge, parse_message
from advisor.parse.result import CONTRACT_KEYS, INTENTS, ParseResult

__all__ = ["parse_message", "ParseResult", "detect_language", "merge", "understood", "assumed",
           "example_message", "CONTRACT_KEYS", "INTENTS"]
