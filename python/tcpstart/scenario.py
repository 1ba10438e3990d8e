"""Scenarios as plain Python objects, and loading them from TOML files.

These classes only describe a scenario: every check (units, ranges, unknown names) happens in the
Rust core, so a scenario written in Python, in TOML or on the command line gets the same one-line
error naming the field. Values with units are strings ("20Mbps", "200ms", "1MB", "1bdp").
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from tcpstart import _core

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

Quantity = Union[str, int, float]
"""A number, or a string with a unit such as "20Mbps", "200ms", "1MB", "100pkt", "1bdp"."""

ScenarioLike = Union["Scenario", Dict[str, Any], str, "os.PathLike[str]"]


class ScenarioError(ValueError):
    """A scenario that cannot be run; the message is one line naming the file or field."""


def _set_fields(obj: Any) -> dict[str, Any]:
    """The fields of a dataclass that were given, as the JSON shape the core reads.

    None means "use the core's default", and empty tables are left out so that the output stays
    as short as the TOML a person would write.
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            value = value.to_dict()
        elif isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
            value = [v.to_dict() for v in value]
        if value is None or value == {}:
            continue
        out[f.name] = value
    return out


@dataclass
class Aqm:
    """A queue discipline: `kind` is "droptail", "red" or "codel".

    RED fields (ns-3 `RedQueueDisc` defaults): `min_th` 5 and `max_th` 15 packets, `weight` 0.002,
    `max_p` 0.02, `gentle` and `wait` on, `mean_packet_size` 500 bytes. CoDel fields (RFC 8289):
    `target` "5ms", `interval` "100ms". The buffer limit is the link's `queue` (packets or bytes).
    """

    kind: str
    min_th: Optional[float] = None
    max_th: Optional[float] = None
    weight: Optional[float] = None
    max_p: Optional[float] = None
    gentle: Optional[bool] = None
    wait: Optional[bool] = None
    mean_packet_size: Optional[int] = None
    target: Optional[Quantity] = None
    interval: Optional[Quantity] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class AckCompression:
    """ACKs of a flow arriving within `interval` are released back-to-back ("release") or
    merged into the latest one ("merge")."""

    mode: str
    interval: Quantity

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Dumbbell:
    """Senders and receivers joined by one bottleneck link in each direction.

    Give either `rtt` (base round-trip time of the path) or `delay` (one-way delay of the
    bottleneck); `rtt` is 200 ms when neither is given.
    """

    rate: Quantity = "20Mbps"
    rtt: Optional[Quantity] = None
    delay: Optional[Quantity] = None
    queue: Optional[Quantity] = "1bdp"
    reverse_rate: Optional[Quantity] = None
    reverse_queue: Optional[Quantity] = None
    loss: Optional[float] = None
    reverse_loss: Optional[float] = None
    access_rate: Optional[Quantity] = None
    access_delay: Optional[Quantity] = None
    access_queue: Optional[Quantity] = None
    # Network elements, per bottleneck direction (`reverse_*` is the ACK path of the flows);
    # see docs/network-elements.md.
    aqm: Optional[Aqm] = None
    reverse_aqm: Optional[Aqm] = None
    ber: Optional[float] = None
    reverse_ber: Optional[float] = None
    router_pps: Optional[float] = None
    reverse_router_pps: Optional[float] = None
    ack_compression: Optional[AckCompression] = None
    reverse_ack_compression: Optional[AckCompression] = None

    def __post_init__(self) -> None:
        if self.rtt is None and self.delay is None:
            self.rtt = "200ms"
        # Tables read from TOML or JSON become the dataclasses above.
        for name, cls in _ELEMENT_TABLES.items():
            value = getattr(self, name)
            if isinstance(value, dict):
                setattr(self, name, cls(**value))

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


_ELEMENT_TABLES: Dict[str, type] = {
    "aqm": Aqm,
    "reverse_aqm": Aqm,
    "ack_compression": AckCompression,
    "reverse_ack_compression": AckCompression,
}


@dataclass
class Tcp:
    """TCP options; in `Scenario` they apply to all flows, in `Flow` they override those."""

    mss: Optional[int] = None
    initial_window: Optional[Quantity] = None
    initial_ssthresh: Optional[Quantity] = None
    sack: Optional[bool] = None
    timestamps: Optional[bool] = None
    window_scaling: Optional[bool] = None
    rcv_buf: Optional[Quantity] = None
    delayed_ack: Optional[bool] = None
    delack_count: Optional[int] = None
    delack_timeout: Optional[Quantity] = None
    quickack: Optional[int] = None
    rto_initial: Optional[Quantity] = None
    rto_min: Optional[Quantity] = None
    rto_max: Optional[Quantity] = None
    clock_granularity: Optional[Quantity] = None
    clock_tick: Optional[Quantity] = None
    fast_retransmit: Optional[bool] = None
    limited_transmit: Optional[bool] = None
    dupthresh: Optional[int] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Flow:
    """One TCP connection (or `count` identical ones); `size=None` means a bulk flow that never ends."""

    algorithm: str = "newreno"
    size: Optional[Quantity] = None
    start: Quantity = "0s"
    params: Dict[str, float] = field(default_factory=dict)
    count: int = 1
    tcp: Optional[Tcp] = None
    access_rate: Optional[Quantity] = None
    access_delay: Optional[Quantity] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Trace:
    """What the run records besides the summary; `pcap` lists link names such as "bottleneck"."""

    interval: Optional[Quantity] = None
    queue_interval: Optional[Quantity] = None
    packets: Optional[bool] = None
    pcap: Optional[List[str]] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Scenario:
    """A complete experiment: network, flows, shared TCP options, time limit, seed and tracing.

    `duration` is required when a flow has no size. The same scenario and seed always give the
    same result.
    """

    network: Dumbbell = field(default_factory=Dumbbell)
    flows: List[Flow] = field(default_factory=list)
    tcp: Optional[Tcp] = None
    duration: Optional[Quantity] = None
    seed: int = 1
    trace: Trace = field(default_factory=Trace)

    def to_dict(self) -> dict[str, Any]:
        """The scenario in the shape of a TOML file, with only the fields that were set."""
        return _set_fields(self)

    def validate(self) -> dict[str, Any]:
        """The scenario as the core resolves it (all defaults filled in, SI units)."""
        return validate(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Scenario:
        """Builds the objects from the TOML/JSON shape; the core checks `d` first."""
        validate(d)
        flows = [
            Flow(**{**f, "tcp": Tcp(**f["tcp"]) if "tcp" in f else None}) for f in d["flows"]
        ]
        return cls(
            network=Dumbbell(**d["network"]),
            flows=flows,
            tcp=Tcp(**d["tcp"]) if "tcp" in d else None,
            duration=d.get("duration"),
            seed=d.get("seed", 1),
            trace=Trace(**d.get("trace", {})),
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Scenario:
        return load_scenario(path)


def validate(d: dict[str, Any]) -> dict[str, Any]:
    """Asks the core to check a scenario dict; returns the resolved scenario."""
    try:
        return json.loads(_core.validate(to_json(d)))
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def to_json(d: dict[str, Any]) -> str:
    # TOML dates have no JSON form; as strings they reach the core, which names the field.
    return json.dumps(d, default=str)


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML file as a dict, unchecked; file and syntax problems become a ScenarioError."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        # The message already says "(at line L, column C)".
        raise ScenarioError(f"{path}: invalid TOML: {e}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Reads and checks a scenario file; every problem is a ScenarioError starting with the path."""
    d = read_toml(path)
    try:
        return Scenario.from_dict(d)
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}") from None


def scenario_dict(scenario: ScenarioLike) -> tuple[dict[str, Any], str | None]:
    """The JSON-shaped dict of a Scenario, dict or TOML path, and the path it came from if any."""
    if isinstance(scenario, Scenario):
        return scenario.to_dict(), None
    if isinstance(scenario, dict):
        return scenario, None
    if isinstance(scenario, (str, os.PathLike)):
        return read_toml(scenario), str(Path(scenario))
    raise TypeError(f"expected a Scenario, a dict or a path, got {type(scenario).__name__}")
