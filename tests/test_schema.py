"""The trace tables' columns come from the core's one definition of them (`_core.schema()`)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

import tcpstart as ts
from tcpstart import _core

POLARS = {"float": pl.Float64, "int": pl.Int64, "text": pl.String, "link": pl.String}


def test_every_table_has_the_schemas_columns_in_order_with_their_types(tmp_path: Path) -> None:
    schema = {t["table"]: t["columns"] for t in json.loads(_core.schema())}
    assert list(schema) == ["flows", "queues", "packets"]
    scenario = ts.Scenario(
        network=ts.Dumbbell(rate="20Mbps", rtt="40ms", queue="10pkt"),
        flows=[ts.Flow("newreno", size="200kB")],
        trace=ts.Trace(packets=True),
    )
    res = ts.run(scenario)
    loaded = ts.Result.load(res.save(tmp_path / "out"))
    for name, columns in schema.items():
        expected = ([c["name"] for c in columns], [POLARS[c["dtype"]] for c in columns])
        for table in (getattr(res, name), getattr(loaded, name)):
            assert table.height > 0, name
            assert (table.columns, table.dtypes) == expected, name
    # Every column says what it holds; a time is in seconds.
    assert all(c["doc"] for columns in schema.values() for c in columns)
    assert {c["name"]: c["unit"] for c in schema["flows"]}["t"] == "s"
