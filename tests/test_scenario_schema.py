"""The Python dataclasses and the core's one table of fields and defaults (`_core.scenario_fields()`,
crates/tcpstart-sim/src/scenario/defaults.rs) agree: the same fields in every table, and no
default of Python's own, so a scenario written in Python, in TOML or as a dict gets the same
defaults."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import tcpstart as ts
from tcpstart import _core
from tcpstart import scenario as sc

CLASSES: dict[str, Any] = {
    "": sc.Scenario,
    "network": sc.Dumbbell,
    "network.aqm": sc.Aqm,
    "network.ack_compression": sc.AckCompression,
    "network.quick_start": sc.QuickStart,
    "tcp": sc.Tcp,
    "flows": sc.Flow,
    "udp": sc.Udp,
    "web": sc.Web,
    "trace": sc.Trace,
    "limits": sc.Limits,
}

# Tables that Python writes as plain dicts (`Dumbbell.schedule` and `Dumbbell.hops` are lists of them).
DICT_TABLES = {"network.schedule", "network.hops"}

FIELDS: list[dict[str, Any]] = json.loads(_core.scenario_fields())


def _row(table: str, name: str) -> dict[str, Any]:
    return next(f for f in FIELDS if f["table"] == table and f["name"] == name)


def test_every_table_has_the_cores_fields() -> None:
    assert {f["table"] for f in FIELDS} == set(CLASSES) | DICT_TABLES
    for table, cls in CLASSES.items():
        core = {f["name"] for f in FIELDS if f["table"] == table}
        python = {f.name.rstrip("_") for f in dataclasses.fields(cls)}
        assert python == core, f"{cls.__name__} against the core's table {table!r}"


@pytest.mark.parametrize("table", CLASSES)
def test_python_has_no_default_of_its_own(table: str) -> None:
    for f in dataclasses.fields(CLASSES[table]):
        row = _row(table, f.name.rstrip("_"))
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            assert row["default"] == "required", f"{table}.{f.name} is required in Python only"
            continue
        assert row["default"] != "required", f"{table}.{f.name} has a default in Python only"
        value = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        # Unset (None, empty) or an object whose fields are all unset: the core fills it in.
        written = value.to_dict() if dataclasses.is_dataclass(value) else value
        assert written in (None, [], {}), f"{table}.{f.name} defaults to {value!r} in Python"


def test_a_python_scenario_resolves_as_the_same_toml() -> None:
    from_python = ts.Scenario(flows=[ts.Flow(size="1MB")], udp=[ts.Udp(stop="1s")]).validate()
    from_toml = sc.validate({"flows": [{"size": "1MB"}], "udp": [{"stop": "1s"}]})
    assert from_python == from_toml
    # The defaults the Python API used to hold itself, now the core's.
    assert from_toml["network"]["rate"] == "20Mbps" and from_toml["network"]["rtt"] == "200ms"
    assert from_toml["udp"][0]["rate"] == "1Mbps"
