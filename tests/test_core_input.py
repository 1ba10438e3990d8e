"""A scenario reaches the core one way: as the JSON text `tcpstart.scenario.to_json` writes. Values
JSON has no form for (numpy numbers, IntEnums, tuples, dates) get one there, and the core checks
the result, naming the field."""

from __future__ import annotations

import datetime
import enum
import json
from typing import Any

import numpy as np
import pytest

import tcpstart as ts
from tcpstart import _core
from tcpstart.scenario import ScenarioError, to_json


def _base() -> dict[str, Any]:
    return {"seed": 3, "network": {"rate": "20Mbps", "rtt": "40ms"}, "flows": [{"algorithm": "cubic", "size": "200KB"}]}


class Level(enum.IntEnum):
    TWO = 2


def _edit(path: str, value: Any) -> dict[str, Any]:
    d = _base()
    *parents, last = path.split(".")
    target: Any = d
    for p in parents:
        target = target[int(p)] if isinstance(target, list) else target[p]
    target[last] = value
    return d


def _summary(scenario: dict[str, Any]) -> str:
    return json.dumps(ts.run(scenario).raw_summary, sort_keys=True)


def test_the_core_takes_json_text_only() -> None:
    with pytest.raises(TypeError):
        _core.run_all([_base()])  # type: ignore[list-item]
    runs, error = _core.run_all([to_json(_base())])
    assert error is None and len(runs) == 1


@pytest.mark.parametrize(
    "odd, plain",
    [
        (_edit("network.queue", np.float64(30.0)), _edit("network.queue", 30)),
        (_edit("network.rate", 1.5e7), _edit("network.rate", "15Mbps")),
        (_edit("flows.0.size", 2e5), _edit("flows.0.size", "200KB")),
        (
            {**_base(), "flows": ({"algorithm": "newreno", "size": "100KB", "count": Level.TWO},)},
            {**_base(), "flows": [{"algorithm": "newreno", "size": "100KB", "count": 2}]},
        ),
    ],
)
def test_values_json_has_no_form_for_run_as_their_plain_twins(odd: dict[str, Any], plain: dict[str, Any]) -> None:
    assert _summary(odd) == _summary(plain)


@pytest.mark.parametrize(
    "scenario, error",
    [
        (_edit("network.loss", float("nan")), "network.loss: must be a finite value (0 to 1, 1 excluded), got NaN"),
        (_edit("network.rate", float("-inf")), "network.rate: must be a finite value (1Kbps to 10000Gbps), got -Infinity"),
        (_edit("network.ber", np.float32("nan")), "network.ber: must be a finite value (0 to 0.01), got NaN"),
        (_edit("network.rtt", datetime.date(2024, 5, 1)), 'network.rtt: unrecognised unit in "2024-05-01"'),
        (_edit("network.rtt", np.int64(40)), 'network.rtt: give a unit, e.g. "40ms" or "40s"'),
        (_edit("seed", 2**70), "seed: must be a whole number from 0 to 18446744073709551615, got 1.1805916207174113e+21"),
        (_edit("network", {1: "x"}), "network.1: unknown field `1`, expected one of `rate`"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_field(scenario: Any, error: str) -> None:
    with pytest.raises(ScenarioError) as e:
        ts.run(scenario)
    assert str(e.value).startswith(error), str(e.value)
    assert "\n" not in str(e.value)


def test_runs_before_an_invalid_scenario_are_kept() -> None:
    runs, error = _core.run_all([to_json(d) for d in [_base(), _base(), _edit("seed", "x"), _base()]])
    assert len(runs) == 2 and error == 'seed: must be a whole number from 0 to 18446744073709551615, got "x"'


def test_a_dict_inside_itself_fails_as_json_dumps_does() -> None:
    d = _base()
    d["network"]["loop"] = d["network"]
    with pytest.raises(ValueError, match="Circular reference"):
        ts.run(d)
