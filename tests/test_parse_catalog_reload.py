"""The chat's name matcher follows the catalog: built once per catalog, rebuilt when the catalog
reloads its tables (``Catalog.version`` counts the loads; an admin's edit from Slack reloads)."""

import json

from advisor.catalog import Catalog
from advisor.parse import parse_message
from advisor.parse.names import matcher_for


def test_the_matcher_is_reused_until_the_catalog_reloads():
    catalog = Catalog.in_memory()
    first = matcher_for(catalog)
    assert matcher_for(catalog) is first
    version = catalog.version
    catalog.reload()
    assert catalog.version == version + 1
    assert matcher_for(catalog) is not first


def test_a_new_alias_is_read_after_a_reload():
    catalog = Catalog.in_memory()
    assert parse_message("lora llama 3 8b on a sparkle-9000", catalog).delta.gpu is None
    row = catalog.db["gpus"].get("l40s")
    catalog.db["gpus"].update("l40s", {"aliases": json.dumps([*json.loads(row["aliases"]), "sparkle-9000"])})
    catalog.reload()
    assert parse_message("lora llama 3 8b on a sparkle-9000", catalog).delta.gpu == "l40s"
