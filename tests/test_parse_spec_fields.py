"""Settings other issues added to the spec, read in chat in English and Spanish: #12's ``compile``
and ``packing``, #17's ``length_distribution`` (advisor.spec.LengthDistribution) and
``expandable_segments``. Each is read on and off, in words and as the config keys that set it, and
what the parser says back reads back to the same value (advisor/parse/describe.py)."""

import pytest

from advisor.parse import describe, parse_message
from advisor.spec import LengthDistribution, SpecRequest

BASE = {"method": "lora", "model": "llama-3-8b"}


def _said(text, catalog):
    result = parse_message(text, catalog)
    assert result.intent == "estimate", (text, result.question)
    return result.delta.said()


@pytest.mark.parametrize("text,value", [
    ("lora llama 3 8b, torch.compile", True),
    ("lora llama 3 8b with torch.compile on", True),
    ("lora llama 3 8b, torch_compile: true", True),
    ("lora llama 3 8b con torch.compile", True),
    ("lora llama 3 8b, without torch.compile", False),
    ("lora llama 3 8b, torch.compile: false", False),
    ("lora llama 3 8b, disable torch compile", False),
    ("lora llama 3 8b, sin compilar", False),
    ("lora llama 3 8b, sin torch.compile", False),
])
def test_torch_compile_on_and_off(text, value, catalog):
    assert _said(text, catalog) == {**BASE, "compile": value}


@pytest.mark.parametrize("text,value", [
    ("lora llama 3 8b with packing", True),
    ("lora llama 3 8b, sample_packing: true", True),
    ("lora llama 3 8b, packed sequences", True),
    ("lora llama 3 8b con packing", True),
    ("lora llama 3 8b, secuencias empaquetadas", True),
    ("lora llama 3 8b, no packing", False),
    ("lora llama 3 8b, packing off", False),
    ("lora llama 3 8b, packing: false", False),
    ("lora llama 3 8b, sin packing", False),
    ("lora llama 3 8b, sin empaquetado de muestras", False),
    ("lora llama 3 8b, empaquetado desactivado", False),
])
def test_packing_on_and_off(text, value, catalog):
    """An off value after the word ("packing off") or a negation before it is off, never the word alone (on)."""
    assert _said(text, catalog) == {**BASE, "packing": value}


@pytest.mark.parametrize("text,value", [
    ("lora llama 3 8b, expandable segments", True),
    ("lora llama 3 8b, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", True),
    ("lora llama 3 8b con segmentos expandibles", True),
    ("lora llama 3 8b, expandable_segments: false", False),
    ("lora llama 3 8b, expandable segments disabled", False),
    ("lora llama 3 8b, sin segmentos expandibles", False),
    ("lora llama 3 8b, desactiva los segmentos expandibles", False),
])
def test_expandable_segments_on_and_off(text, value, catalog):
    assert _said(text, catalog) == {**BASE, "expandable_segments": value}


@pytest.mark.parametrize("text,dist", [
    ("lora llama 3 8b, samples between 200 and 2048 tokens, mean 600", {"min": 200, "max": 2048, "mean": 600}),
    ("lora llama 3 8b, muestras de 200 a 2048 tokens, media 600", {"min": 200, "max": 2048, "mean": 600}),
    ("lora llama 3 8b, sequences of 128-4096 tokens (avg 900)", {"min": 128, "max": 4096, "mean": 900}),
    ("lora llama 3 8b, samples from 100 to 1000 tokens averaging 400", {"min": 100, "max": 1000, "mean": 400}),
    ("lora llama 3 8b, muestras entre 50 y 1500 tokens con una media de 350", {"min": 50, "max": 1500, "mean": 350}),
    ("lora llama 3 8b, average sample length 700 tokens", {"mean": 700}),
    ("lora llama 3 8b, longitud media de 700 tokens", {"mean": 700}),
])
def test_sample_lengths_are_the_length_distribution(text, dist, catalog):
    said = _said(text, catalog)
    assert said.pop("length_distribution") == LengthDistribution(**dist).model_dump(exclude_none=True)
    assert said == BASE and "seq_len" not in said  # the samples' lengths are not the sequence length


@pytest.mark.parametrize("text", ["lora llama 3 8b, 200k examples averaging 512 tokens",
                                  "lora llama 3 8b, 200.000 conversaciones con una media de 512 tokens",
                                  "lora llama 3 8b; we have 200,000 rows, avg length 512 tokens",
                                  "lora llama 3 8b: 200 mil filas, longitud media 512 tokens"])
def test_a_count_times_a_mean_is_the_dataset_size_only(text, catalog):
    """The sentence states how big the dataset is; how the lengths spread (and so how batches pad)
    is read only where the message speaks of the lengths themselves."""
    assert _said(text, catalog) == {**BASE, "dataset_tokens": 200_000 * 512}


@pytest.mark.parametrize("text", ["qlora llama 3 8b, secuencia de 2048 y 20.000.000 tokens de datos",
                                  "qlora llama 3 8b, sequences of 4096 and 2 GPUs"])
def test_two_settings_joined_by_and_are_not_a_range(text, catalog):
    said = _said(text, catalog)
    assert "length_distribution" not in said and said["seq_len"] in (2048, 4096)


@pytest.mark.parametrize("text", ["lora llama 3 8b, samples between 200 and 2048 tokens",
                                  "lora llama 3 8b, muestras de 200 a 2048 tokens",
                                  "lora llama 3 8b, samples between 200 and 2048 tokens, mean 4000"])
def test_a_range_without_its_mean_or_with_a_mean_outside_it_is_a_question(text, catalog):
    result = parse_message(text, catalog)
    assert (result.intent, result.clarify_code) == ("clarify", "unreadable")
    assert "length_distribution" not in result.delta.said()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("update", [{"compile": True}, {"compile": False}, {"packing": True}, {"packing": False},
                                    {"expandable_segments": True}, {"expandable_segments": False},
                                    {"length_distribution": LengthDistribution(min=200, max=2048, mean=600)},
                                    {"length_distribution": LengthDistribution(mean=750)}])
def test_what_the_parser_says_back_reads_back(update, lang, catalog):
    request = SpecRequest(**BASE, **update)
    said = parse_message(describe.example_message(request, lang), catalog, lang_hint=lang).delta.said()
    assert said == request.said()


# Fields #11 adds (gradient_accumulation_steps, the unsloth and Liger stacks, ZeRO-2/3 sharding) are read
# only once the spec accepts them (rules._optional_field / _spec_accepts); until then they are never
# turned into another setting's value.
@pytest.mark.parametrize("text", ["lora llama 3 8b, grad accum 8", "lora llama 3 8b, acumulación de gradientes 8",
                                  "lora llama 3 8b with unsloth", "lora llama 3 8b con liger kernel"])
def test_settings_the_spec_does_not_model_yet_invent_nothing(text, catalog):
    said = _said(text, catalog)
    fields = SpecRequest.model_fields
    extra = {k: v for k, v in said.items() if k not in BASE}
    assert all(k in ("gradient_accumulation_steps", "stack", "liger", "liger_kernel") and k in fields for k in extra), extra
