"""A scenario dict reaches the core without being written out as JSON (crates/tcpstart-py/src/
pyde.rs); it must give what its JSON text gives: the same runs, bit for bit, and the same errors."""

from __future__ import annotations

import copy
import datetime
import enum
import json
from typing import Any

import numpy as np
import pytest

from tcpstart import _core
from tcpstart.scenario import to_json


def _outcome(scenario: Any) -> tuple[list[tuple[str, dict[str, bytes]]], str | None]:
    runs, error = _core.run_all([scenario])
    return [(json.dumps(r.summary(), indent=2), {k: v[1] for k, v in r.take_flows().items()}) for r in runs], error


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


SAME_AS_TEXT = [
    # Runs: floats that decimal text does not hold exactly, floats for integers, tuples, subclasses.
    _edit("network.loss", 0.1 + 0.2),
    _edit("network.rate", 1.5e7),
    _edit("flows.0.size", 2e5),
    _edit("flows.0.params", {"beta": 0.7000000000000001, "c": 0.4}),
    {**_base(), "flows": ({"algorithm": "newreno", "size": "100KB", "count": Level.TWO},)},
    _edit("network.queue", np.float64(30.0)),
    # Errors, each naming its field.
    _edit("seed", -1),
    _edit("seed", 2**70),
    _edit("seed", True),
    _edit("seed", 1.5),
    _edit("network.rate", None),
    _edit("network.rate", [1, 2]),
    _edit("network.rtt", datetime.date(2024, 5, 1)),
    _edit("network.rtt", np.int64(40)),
    _edit("network.speed", "1Gbps"),
    _edit("network", {1: "x"}),
    _edit("flows.0.algorithm", "\ud800"),
    _edit("flows", {"algorithm": "cubic"}),
    _edit("flows.0.tcp", {"mss": 70_000}),
    _edit("flows.0.tcp", {"mss": "1460"}),
    {"network": {"rate": "20Mbps"}},
    {"flows": [{"size": "1MB"}], "network": {"rate": "20Mbps", "rtt": "40ms"}, "trace": {"pcap": ["bottleneck"]}},
]


@pytest.mark.parametrize("scenario", SAME_AS_TEXT, ids=range(len(SAME_AS_TEXT)))
def test_a_dict_gives_what_its_json_text_gives(scenario: dict[str, Any]) -> None:
    text = to_json(scenario)
    before = copy.deepcopy(scenario)
    assert _outcome(scenario) == _outcome(text)
    assert scenario == before or text == to_json(scenario)  # read, not changed


@pytest.mark.parametrize(
    "scenario, error",
    [
        (_edit("network.loss", float("nan")), "network.loss: must be a probability in [0, 1), got NaN"),
        (_edit("network.loss", float("inf")), "network.loss: must be a probability in [0, 1), got inf"),
        (_edit("network.rate", float("-inf")), "network.rate: must be between 1Kbps and 10000Gbps, got -inf"),
        # Not plain data (a date) beside the NaN: read from its text's data.
        (
            {**_edit("network.ber", float("nan")), "duration": datetime.date(2024, 5, 1)},
            "network.ber: must be a bit-error rate between 0 and 0.01, got NaN",
        ),
        (_edit("network.ber", np.float32("nan")), "network.ber: must be a bit-error rate between 0 and 0.01, got NaN"),
    ],
)
def test_nan_and_infinity_are_named_with_the_range_which_json_text_cannot_say(scenario: Any, error: str) -> None:
    assert _outcome(scenario) == ([], error)
    # JSON has no NaN: serde_json only says "expected value" (or "invalid number") of the text.
    assert _outcome(to_json(scenario))[1] in {f"{error.split(':')[0]}: {m}" for m in ("expected value", "invalid number")}


def test_a_dict_inside_itself_fails_as_json_dumps_does() -> None:
    d = _base()
    d["network"]["loop"] = d["network"]
    with pytest.raises(ValueError, match="Circular reference"):
        to_json(d)
    with pytest.raises(ValueError, match="Circular reference"):
        _core.run_all([d])


def test_runs_before_an_unreadable_dict_are_kept() -> None:
    runs, error = _core.run_all([_base(), _base(), _edit("seed", "x"), _base()])
    assert len(runs) == 2 and error == 'seed: must be a whole number from 0 to 18446744073709551615, got "x"'


def test_only_a_dict_of_other_than_plain_data_is_written_out(monkeypatch: pytest.MonkeyPatch) -> None:
    import tcpstart.scenario

    written: list[Any] = []
    real = tcpstart.scenario.to_json
    monkeypatch.setattr(tcpstart.scenario, "to_json", lambda d: written.append(d) or real(d))
    plain = [_base(), _edit("network.loss", 0.01), _edit("network.loss", float("nan")), _edit("seed", 2**70)]
    for scenario in plain[:2]:
        assert _core.run_all([scenario])[1] is None
    for scenario in plain[2:]:
        assert _core.run_all([scenario])[1] is not None
    assert written == []
    other = [_edit("network.rtt", datetime.date(2024, 5, 1)), _edit("network", {1: "x"})]
    for scenario in other:
        _core.run_all([scenario])
    assert written == other


def test_data_nested_too_deep_goes_through_the_text() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(RecursionError):
        to_json({"network": deep})
    with pytest.raises(RecursionError):
        _core.run_all([{"network": deep}])
