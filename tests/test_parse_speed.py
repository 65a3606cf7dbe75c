"""The parser's one-time costs are paid when its matcher is built, not by the first message that needs them
(benchmarks/parse_speed.py measured them as its slowest calls: the torchtune builder table, which imports
advisor.launch and PyYAML, and the message tables). No timing here: what is checked is that they are filled."""

from __future__ import annotations

import advisor.i18n as i18n
from advisor.catalog import Catalog
from advisor.parse import parse_message
from advisor.parse import pasted
from advisor.parse.names import matcher_for


def test_matcher_fills_the_tables_the_first_messages_would():
    pasted._builders.cache_clear()
    matcher_for(Catalog.in_memory())
    assert pasted._builders.cache_info().currsize == 1
    assert i18n._LOADED
    assert pasted._builders()["llama3_1_8b"]  # a torchtune builder the pasted-config reader maps


def test_a_pasted_torchtune_config_reads_the_same_after_the_fill():
    catalog = Catalog.in_memory()
    text = ("does this fit on an h100?\nmodel:\n  _component_: torchtune.models.llama3_1.qlora_llama3_1_8b\n"
            "  lora_rank: 16\n")
    first = parse_message(text, catalog).to_json()
    pasted._builders.cache_clear()
    matcher_for(catalog)
    assert parse_message(text, catalog).to_json() == first
    assert first["method"] == "qlora"
