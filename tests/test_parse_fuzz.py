"""Property tests: nothing a person can type makes the parser fail other than with a ParseError,
and every result is a request the spec accepts, in one of our two languages."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.errors import ParseError
from advisor.parse import CONTRACT_KEYS, INTENTS, parse_message
from advisor.spec import SpecRequest
from tests.conftest import DATA

TEXTS = [e["text"] for e in json.loads((DATA / "phrasings.json").read_text(encoding="utf-8"))]
PIECES = ["8k", "128k", "10^9", "1e999", "9" * 60, "2,048", "2.048", "1,5B", "0", "-3", "x", "8x", "8x7b", "§G0§",
          "§", "<@U1>", "<#C1|gen>", "<!here>", "<http://x.y|z>", "```", "`", "*", "_", "~", ":rocket:", "🚀", "¿", "¡",
          "ñ", "é", "\n", "\t", "\x00", "lora", "qlora", "full", "and", "y", "or", "o", "vs", "instead", "sin", "no",
          "without", "rank", "r=", "bs", "lote", "seq", "contexto de", "epochs", "épocas", "%", "failed runs", "tokens",
          "examples of", "ejemplos de", "GPUs", "H100", "4090", "a100", "llama", "llama 3 70b", "mistral", "70B",
          "billones", "mil millones", "start over", "help", "?", "=", ":", "0.0", "1e-9", "nan", "inf", "١٢٣"]
SETTINGS = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)
PREVIOUS = st.none() | st.builds(SpecRequest, method=st.sampled_from(["lora", "qlora", "full"]),
                                 model=st.sampled_from(["llama-3-70b", "phi-4"]), seq_len=st.integers(1, 1 << 20))


def _check(text, catalog, previous=None):
    try:
        result = parse_message(text, catalog, previous=previous)
    except ParseError as exc:
        assert exc.code in ("empty", "too_long") and exc.example
        return
    assert result.lang in ("en", "es") and result.intent in INTENTS
    SpecRequest.model_validate(result.request.model_dump())  # every value within the spec's bounds
    SpecRequest.model_validate(result.delta.model_dump())
    out = json.loads(json.dumps(result.to_json()))
    assert tuple(out)[:13] == CONTRACT_KEYS
    if result.intent == "clarify":
        assert result.question and result.example


@SETTINGS
@given(text=st.text(max_size=200), previous=PREVIOUS)
def test_random_text_never_breaks_the_parser(text, previous, catalog):
    _check(text, catalog, previous)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "upper", "repeat"]))
        piece = draw(st.sampled_from(PIECES) | st.text(max_size=3))
        if op == "insert":
            text = text[:at] + piece + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 5)):]
        elif op == "replace":
            text = text[:at] + piece + text[at + len(piece):]
        elif op == "upper":
            text = text.upper()
        else:
            text = text + " " + text[: at]
    return text


@SETTINGS
@given(text=mutated(), previous=PREVIOUS)
def test_mutated_phrasings_never_break_the_parser(text, previous, catalog):
    _check(text, catalog, previous)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(size=st.integers(9_000, 60_000), piece=st.sampled_from(PIECES))
def test_huge_messages_are_refused_quickly(size, piece, catalog):
    _check((piece + " ") * (size // (len(piece) + 1) + 1), catalog)
