"""Invariants of the parser, checked by hypothesis over messages built from parts (issue #13: robust by
construction, not by vocabulary):

- inserting neutral noise (Slack's "(edited)", emoji, a dashboard link, a "+1", thanks) never changes
  the request;
- reordering a message's clauses never changes it;
- no answer holds a number whose digits the message does not contain (or a scale of them: "4k" is 4096
  or 4000, "1.5B" is 1.5e9, a number word is its digits), so nothing is built on a value nobody said.
"""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.errors import ParseError
from advisor.parse import parse_message

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)

METHODS = ["lora", "qlora", "full fine-tune", "QLoRA", "LoRA adapters", "full-parameter training"]
MODELS = ["llama 3 8b", "Qwen/Qwen2.5-7B", "mistral 7b", "phi-4", "gemma 2 9b", "Llama-3.1-70B"]
GPUS = ["H100", "A100 80GB", "L40S", "RTX 4090", "H200", "A10G"]


@st.composite
def clauses(draw) -> list[str]:
    """A request as clauses, one setting each, every number in plain digits next to its own cue."""
    out = [draw(st.sampled_from(METHODS)) + " " + draw(st.sampled_from(MODELS))]
    seq = draw(st.sampled_from([512, 1024, 2048, 3072, 4096, 8192, 16384]))
    out.append(draw(st.sampled_from([f"seq {seq}", f"sequence length {seq}", f"{seq} token context",
                                     f"context of {seq} tokens"])))
    optional = [
        lambda c: draw(st.sampled_from([f"on {c} x {draw(st.sampled_from(GPUS))}", f"{c} {draw(st.sampled_from(GPUS))} GPUs"])),
        lambda r: draw(st.sampled_from([f"rank {r}", f"lora rank {r}", f"r={r}"])),
        lambda b: draw(st.sampled_from([f"batch size {b}", f"micro batch {b}", f"{b} samples per GPU"])),
        lambda e: draw(st.sampled_from([f"{e} epochs", f"epochs {e}"])),
    ]
    values = [draw(st.integers(2, 8)), draw(st.sampled_from([4, 8, 16, 32, 64])), draw(st.integers(1, 16)),
              draw(st.integers(2, 5))]
    for make, value in zip(optional, values):
        if draw(st.booleans()):
            out.append(make(value))
    return out


NOISE = [" (edited)", " :rocket:", " 🙏", " thanks!", "\nsee <https://wandb.ai/team/runs/3k9x2p7q|run 42>",
         " :thinking_face:", "\n\n(sent from my phone)", " <@U04ABCDEF>", " — any thoughts?"]
JOINS = [", ", "; ", "\n", ". "]


def _said(text, catalog):
    result = parse_message(text, catalog)
    return result.intent, result.delta.said()


@SETTINGS
@given(parts=clauses(), join=st.sampled_from(JOINS), data=st.data())
def test_reordering_clauses_never_changes_the_request(parts, join, data, catalog):
    shuffled = data.draw(st.permutations(parts))
    assert _said(join.join(parts), catalog) == _said(join.join(shuffled), catalog)


@SETTINGS
@given(parts=clauses(), join=st.sampled_from(JOINS), noise=st.lists(st.sampled_from(NOISE), min_size=1, max_size=3),
       where=st.lists(st.integers(0, 20), min_size=3, max_size=3), plus_one=st.booleans())
def test_neutral_noise_never_changes_the_request(parts, join, noise, where, plus_one, catalog):
    plain = join.join(parts)
    noisy = list(parts)
    for piece, at in zip(noise, where):
        i = at % len(noisy)
        noisy[i] = noisy[i] + piece
    text = ("+1 " if plus_one else "") + join.join(noisy)
    assert _said(text, catalog) == _said(plain, catalog), text


def _grounded(value: float, text: str) -> bool:
    """``value`` is written in ``text``: as its digits, or as digits times a scale people type."""
    digits = set(re.findall(r"\d+(?:[.,]\d+)?", text))
    plain = {d.replace(",", ".") for d in digits} | {d.replace(",", "") for d in digits}
    # a power of ten (k, M, B, T, a percent, billions of parameters) or k = 1024 for lengths
    for scale in (*(10.0 ** k for k in range(-12, 13)), 1024, 1024 * 1024):
        base = round(value / scale, 9)
        shown = f"{base:g}"
        if shown in plain or shown in text or (base.is_integer() and str(int(base)) in plain):
            return True
    return False


CUE_WORDS = ["seq", "rank", "batch", "epochs", "GPUs", "x", "tokens", "of", "on", "with", "context", "lora", "qlora",
             "llama 3 8b", "H100", "A100", "samples", "per", "GPU", "step", "dataset", "examples", "and", "r=", "bs",
             "épocas", "lote", "secuencia", "de", "por", "en", "nodes", "b", "k", "M", "-", ",", ";", "(", ")", "%"]


@SETTINGS
@given(words=st.lists(st.one_of(st.sampled_from(CUE_WORDS), st.integers(1, 99_999).map(str),
                                st.sampled_from(["2k", "4k", "1.5B", "50M", "8x", "x4"])), min_size=2, max_size=14))
def test_no_answer_holds_a_number_the_message_does_not_contain(words, catalog):
    text = " ".join(words)
    try:
        result = parse_message(text, catalog)
    except ParseError as exc:  # nothing to read ("- -"): refused with its own question
        assert exc.code == "empty"
        return
    said = result.delta.said()
    for name in ("seq_len", "micro_batch", "lora_rank", "epochs", "num_gpus", "dataset_tokens", "params_b",
                 "gradient_accumulation_steps"):
        if name == "dataset_tokens" and "parse.warn.examples_at_seq" in result.warning_codes:
            continue  # a count of examples at the stated length, the product said in the answer's first notes
        if name in said:
            assert _grounded(float(said[name]), text), (text, name, said[name])
