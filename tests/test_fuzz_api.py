"""Hypothesis over the Python API: scenarios built from the package's objects and plain dicts,
mixed, with values users get wrong (wrong types, NaN and infinity, huge and negative numbers,
empty and odd strings, unknown fields, nested wrong shapes).

Property: checking a scenario gives the resolved scenario or a ScenarioError of one line that
names a field, never another exception. The campaign here is short (`FUZZ_EXAMPLES`, a few
seconds); a longer one: TCPSTART_FUZZ_EXAMPLES=100000 pytest -q tests/test_fuzz_api.py
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcpstart as ts

FUZZ_EXAMPLES = int(os.environ.get("TCPSTART_FUZZ_EXAMPLES", "300"))

TOP_LEVEL = {"seed", "duration", "network", "tcp", "algorithm", "flows", "udp", "web", "trace"}

numbers_text = st.one_of(
    st.integers(-5, 5000).map(str),
    st.floats(0, 1e4, allow_nan=False).map(lambda x: f"{x:.3g}"),
    st.sampled_from(["", "-1", "1e6", "1e999", "nan", "inf", "-inf", ".5", "1..2", "0x10", " 3 "]),
)


def unit_strings(*units: str) -> st.SearchStrategy[str]:
    return st.builds(lambda n, u: n + u, numbers_text, st.sampled_from([*units, "", "parsecs"]))


# Integers beyond every range (a count of 50 000 would be valid, and slow to expand).
odd_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**70), -1),
    st.integers(2**33, 2**70),
    st.sampled_from([0, 2**32, 2**64, 1e20, float("nan"), float("inf")]),
)

anything = st.recursive(
    st.one_of(st.none(), st.booleans(), odd_numbers, st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)

rates = st.one_of(unit_strings("bps", "Kbps", "Mbps", "Gbps"), odd_numbers)
times = st.one_of(unit_strings("us", "ms", "s", "min"), odd_numbers)
sizes = st.one_of(unit_strings("B", "KB", "MB", "KiB"), st.sampled_from(["unlimited", "inf"]), odd_numbers)
queues = st.one_of(unit_strings("pkt", "bdp", "KB"), odd_numbers)
small_ints = st.one_of(st.integers(0, 5), odd_numbers)
words = st.one_of(st.sampled_from(["newreno", "cubic", "reno", "bbr", "warp", ""]), st.text(max_size=5))


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The field unset (None), set, or of the wrong type altogether."""
    return st.one_of(st.none(), strategy, anything)


tcps = st.builds(
    ts.Tcp,
    mss=maybe(st.integers(0, 70_000)),
    initial_window=maybe(sizes),
    sack=maybe(st.booleans()),
    rto_min=maybe(times),
    recovery=maybe(st.sampled_from(["prr", "rfc6675", "x"])),
)
flows = st.builds(
    ts.Flow,
    algorithm=maybe(words),
    size=maybe(sizes),
    start=maybe(times),
    params=st.one_of(st.dictionaries(st.sampled_from(["abc", "beta", "nope"]), odd_numbers, max_size=2), anything),
    count=small_ints,
    tcp=st.one_of(st.none(), tcps, anything),
    direction=maybe(st.sampled_from(["forward", "reverse", "up"])),
    starts=maybe(st.lists(times, max_size=3)),
)
flow_dicts = st.dictionaries(
    st.sampled_from(["algorithm", "size", "count", "start", "params", "tcp", "colour"]), anything, max_size=3
)
udps = st.builds(ts.Udp, rate=maybe(rates), packet_size=maybe(small_ints), stop=maybe(times), count=maybe(small_ints))
webs = st.builds(
    ts.Web,
    sessions=maybe(small_ints),
    pages=maybe(small_ints),
    # Any valid mean above a few objects stands for millions of flows: out-of-range ones only.
    page_objects_mean=maybe(st.one_of(st.floats(0.5, 8), st.sampled_from([float("nan"), float("inf"), -1.0, 0, 1e7]))),
    object_packets_shape=maybe(odd_numbers),
)
aqms = st.one_of(
    st.builds(ts.Aqm, kind=st.sampled_from(["red", "codel", "droptail", "pie"]), max_p=maybe(odd_numbers)),
    st.dictionaries(st.sampled_from(["kind", "min_th", "target", "colour"]), anything, max_size=3),
)
networks = st.builds(
    ts.Dumbbell,
    rate=maybe(rates),
    rtt=maybe(times),
    queue=maybe(queues),
    loss=maybe(odd_numbers),
    hosts=maybe(small_ints),
    aqm=st.one_of(st.none(), aqms),
)
scenarios = st.builds(
    ts.Scenario,
    network=st.one_of(networks, anything),
    flows=st.one_of(st.lists(st.one_of(flows, flow_dicts), max_size=3), anything),
    udp=st.lists(udps, max_size=1),
    web=st.lists(webs, max_size=1),
    algorithm=maybe(words),
    tcp=st.one_of(st.none(), tcps),
    duration=maybe(times),
    seed=st.one_of(st.integers(0, 10), odd_numbers),
    trace=st.one_of(st.builds(ts.Trace, pcap=maybe(st.lists(st.sampled_from(["bottleneck", "x"])))), anything),
)


def _check(error: ts.ScenarioError) -> None:
    message = str(error)
    assert "\n" not in message, message
    field = message.split(": ", 1)[0]
    first = re.split(r"[.\[]", field)[0]
    named = first in TOP_LEVEL or message.startswith(f"{field}: unknown field `{field.rsplit('.', 1)[-1]}`")
    assert named or message.startswith("a scenario must be"), message
    # serde's phrases, not words a user's own string may hold.
    for jargon in ("invalid type:", "invalid value:", "expected u32", "expected u64", "expected f64", "expected struct", "expected value"):
        assert jargon not in message, message


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(scenarios)
def test_a_scenario_object_validates_or_names_its_field(scenario: ts.Scenario) -> None:
    try:
        scenario.validate()
    except ts.ScenarioError as e:
        _check(e)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.one_of(scenarios.map(lambda s: s.to_dict()), st.dictionaries(st.sampled_from(sorted(TOP_LEVEL)), anything)))
def test_a_scenario_dict_validates_or_names_its_field(d: dict[str, Any]) -> None:
    try:
        ts.scenario.validate(d)
    except ts.ScenarioError as e:
        _check(e)
        return
    # A dict that validates also builds the objects.
    assert dataclasses.is_dataclass(ts.Scenario.from_dict(d))
