"""The SQLite catalog: GPUs we rent (and others we know), open model architectures, regions,
storage prices and the audit trail. See ``schema`` (tables, migrations, build) and ``store``."""

from advisor.catalog.schema import build, dump
from advisor.catalog.shapes import NodeShape
from advisor.catalog.store import DEFAULT_PATH, Catalog, Gpu, ModelEntry, Region

__all__ = ["Catalog", "Gpu", "ModelEntry", "NodeShape", "Region", "DEFAULT_PATH", "build", "dump"]
