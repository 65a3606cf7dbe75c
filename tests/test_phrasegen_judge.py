"""tests.phrasegen.judge, the one judge of every parse benchmark, on conventions the label sets differ in.

Tables 2-5 label a can_i_gpu FAQ with the GPU both in ``params`` and as the request's ``gpu``; tables 6 and 7, as
their docstrings say, in ``params`` only. The GPU is said either way: the judge counts the request's ``gpu`` as
invented only where no label names it, in the row's fields or, with the same value, in its ``params``.
"""

from __future__ import annotations

import pytest

from advisor.parse import parse_message
from tests.phrasegen import judge


@pytest.mark.parametrize("text,gpu", [("can I fine-tune on an L4?", "l4"),
                                      ("¿puedo hacer fine-tuning en una RTX 4090?", "rtx-4090")])
def test_the_judge_reads_a_rows_params_as_said_values(text, gpu, catalog):
    """A can_i_gpu FAQ labelled by ``params`` only (tables 6 and 7) or also by the request's ``gpu`` (tables 2-5) is
    the same right answer; a GPU other than the labelled one is still invented."""
    result = parse_message(text, catalog)
    for expected in ({"intent": "faq", "faq": "can_i_gpu", "params": {"gpu": gpu}},
                     {"intent": "faq", "faq": "can_i_gpu", "params": {"gpu": gpu}, "gpu": gpu}):
        verdict = judge({"text": text, "lang": "en", "kind": ["question"], "expected": expected}, result)
        assert verdict["ok"] and not verdict["unsaid"], (expected, verdict)
    other = {"intent": "faq", "faq": "can_i_gpu", "params": {"gpu": "h100-sxm"}}
    verdict = judge({"text": text, "lang": "en", "kind": ["question"], "expected": other}, result)
    assert verdict["invented"] == ["gpu"] and verdict["unsaid"] and not verdict["ok"]
