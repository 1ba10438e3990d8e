"""The Python path gives the Rust golden outputs: `ts.run` on a scenario file (read by tomllib,
checked and run through the extension) reproduces the summary and the trace and pcap digests that
crates/tcpstart-sim/tests/golden.rs pins for it (docs/testing.md, "Golden outputs")."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import tcpstart as ts

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT / "crates/tcpstart-sim/tests/golden/expected/scenarios"
# A link column holds names here and link indices in Rust; an event at an end host has no link
# ("" here, u32::MAX in Rust). An infinite ssthresh is null here, u64::MAX in Rust.
NO_LINK = 2**32 - 1
INFINITE = 2**64 - 1


def _digest(column: pl.Series, links: dict[str, int]) -> str:
    """The column's SHA-256 as golden.rs takes it: integers as 8 little-endian bytes, floats as
    their binary64 bits with one NaN, strings as UTF-8 and a zero byte."""
    if column.name == "link":
        column = column.replace_strict(links | {"": NO_LINK}, return_dtype=pl.UInt64)
    if column.dtype == pl.String:
        data = b"".join(s.encode() + b"\0" for s in column.to_list())
    elif column.dtype.is_float():
        values = column.to_numpy().astype("<f8")
        data = np.where(np.isnan(values), np.nan, values).tobytes()
    else:
        data = column.cast(pl.UInt64).fill_null(INFINITE).to_numpy().astype("<u8").tobytes()
    return hashlib.sha256(data).hexdigest()


def _golden(res: ts.Result) -> dict[str, Any]:
    links = {link["name"]: i for i, link in enumerate(res.raw_summary["links"])}
    golden: dict[str, Any] = {"summary": res.raw_summary}
    for name in ("flows", "queues", "packets"):
        table = getattr(res, name)
        if table is not None:
            columns = {c: _digest(table[c], links) for c in table.columns}
            golden[name] = {"rows": table.height, "columns": columns}
    if res.pcaps:
        golden["pcaps"] = {k: {"bytes": len(v), "sha256": hashlib.sha256(v).hexdigest()} for k, v in res.pcaps.items()}
    return golden


# Scenarios with every summary list short enough to be kept whole in the reference; between them
# the flow, queue and packet traces and two pcaps.
@pytest.mark.parametrize("name", ["pcap-example", "two-flows-shared"])
def test_python_run_gives_the_rust_golden_outputs(name: str) -> None:
    expected = json.loads((EXPECTED / f"{name}.json").read_text())
    assert _golden(ts.run(ROOT / "scenarios" / f"{name}.toml")) == expected
