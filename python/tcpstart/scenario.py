"""Scenarios as plain Python objects, and loading them from TOML files.

These classes only describe a scenario: every check (units, ranges, unknown names) and every
default lives in the Rust core, so a scenario written in Python, in TOML or on the command line
gets the same defaults and the same one-line error naming the field. A field left as None takes
the core's default (docs/scenario-reference.md lists them all; `Scenario.validate()` shows them
filled in). Values with units are strings ("20Mbps", "200ms", "1MB", "1bdp").
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import numbers
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
    as short as the TOML a person would write. A trailing underscore names a field whose TOML
    name is a Python keyword (`class_` is `class`).
    """
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = _as_data(getattr(obj, f.name))
        if isinstance(value, list):
            # Objects and tables may be mixed: [Flow("reno"), {"algorithm": "cubic"}].
            value = [_as_data(v) for v in value]
        if value is None or value == {} or value == []:
            continue
        out[f.name.rstrip("_")] = value
    return out


def _as_data(value: Any) -> Any:
    """A dataclass of this module as its dict; anything else as it is, for the core to check."""
    return value.to_dict() if dataclasses.is_dataclass(value) and not isinstance(value, type) else value


def _from_toml_names(d: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments for a dataclass from a TOML table (`class` becomes `class_`)."""
    return {("class_" if k == "class" else k): v for k, v in d.items()}


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
class QuickStart:
    """A Quick-Start router (RFC 4782) at the bottleneck: it approves, reduces or refuses the
    rate a SYN asks for, keeping offered load plus the rates approved within `interval` below
    `threshold` of the capacity (defaults 0.8 and 1 s)."""

    threshold: Optional[float] = None
    interval: Optional[Quantity] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Dumbbell:
    """Senders and receivers joined by one bottleneck link in each direction.

    Give either `rtt` (base round-trip time of the path) or `delay` (one-way delay of the
    bottleneck). Unset: 20 Mbps, an rtt of 200 ms, a queue of one bandwidth-delay product.
    """

    rate: Optional[Quantity] = None
    rtt: Optional[Quantity] = None
    delay: Optional[Quantity] = None
    queue: Optional[Quantity] = None
    reverse_rate: Optional[Quantity] = None
    reverse_queue: Optional[Quantity] = None
    loss: Optional[float] = None
    reverse_loss: Optional[float] = None
    access_rate: Optional[Quantity] = None
    access_delay: Optional[Quantity] = None
    access_queue: Optional[Quantity] = None
    hosts: Optional[int] = None
    """Host pairs that flows, web sessions and UDP sources share (round robin unless they name
    one); unset: each gets a pair of its own."""
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
    ack_jitter: Optional[Quantity] = None
    """Receiver hosts' processing jitter: each packet a receiver sends (the flows' ACKs) waits an
    extra uniform draw in [0, ack_jitter), in order; makes replications of a campaign differ."""
    quick_start: Optional[QuickStart] = None
    # Time-varying bottleneck (docs/network-elements.md, "Time-varying links"): changes of rate
    # and delay, `[{"at": "10s", "rate": "5Mbps", "rtt": "40ms"}, ...]`, repeating every
    # `schedule_period` if set; mahimahi delivery trace files for each direction.
    schedule: Optional[list[dict[str, Any]]] = None
    schedule_period: Optional[Quantity] = None
    trace: Optional[str] = None
    reverse_trace: Optional[str] = None
    hops: Optional[list[dict[str, Any]]] = None
    """A parking lot instead of the dumbbell: a chain of routers joined by these hops, in order,
    each `{"rate": ..., "reverse_rate": ..., "delay": ..., "queue": ..., "reverse_queue": ...}`
    (what a hop leaves out is the bottleneck's above); flows and UDP sources cross the hops
    their `hops` list (every hop when unset). See docs/topologies.md."""

    def __post_init__(self) -> None:
        # Tables read from TOML or JSON become the dataclasses above. A table that does not fit
        # stays a table, for the core to name the field at fault when the scenario is checked.
        for name, cls in _ELEMENT_TABLES.items():
            value = getattr(self, name)
            if isinstance(value, dict):
                with contextlib.suppress(TypeError):
                    setattr(self, name, cls(**value))

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


_ELEMENT_TABLES: Dict[str, type] = {
    "aqm": Aqm,
    "reverse_aqm": Aqm,
    "ack_compression": AckCompression,
    "reverse_ack_compression": AckCompression,
    "quick_start": QuickStart,
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
    unpaced_segments: Optional[int] = None
    rto_initial: Optional[Quantity] = None
    rto_min: Optional[Quantity] = None
    rto_max: Optional[Quantity] = None
    clock_granularity: Optional[Quantity] = None
    clock_tick: Optional[Quantity] = None
    fast_retransmit: Optional[bool] = None
    limited_transmit: Optional[bool] = None
    dupthresh: Optional[int] = None
    # Window during SACK recovery: "rfc6675" (default: cwnd = ssthresh at once) or "prr" (RFC 6937).
    recovery: Optional[str] = None
    # Retransmission timer in recovery: "every_ack" (default with SACK) or "first_partial_ack".
    rto_restart: Optional[str] = None
    # Whose TCP the endpoints model: "rfc" (default) or "linux" (docs/linux-profile.md).
    profile: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Flow:
    """One TCP connection (or `count` identical ones); `size=None` means a bulk flow that never ends.

    `count` flows start every `interval` from `start` (`arrivals="poisson"`: exponential gaps of
    mean `interval`), or at the times listed in `starts` (which replaces start and count).
    `algorithm=None` takes the scenario's `algorithm` (newreno by default).
    `direction="reverse"` sends the data from the receivers' side. `class_` labels the flow in
    the summary's per-class metrics (the algorithm's name by default). `drop_transmissions`
    lists the data transmissions of this flow (1 = its first data packet to reach the bottleneck)
    that the bottleneck drops, for scripted-loss experiments.
    """

    algorithm: Optional[str] = None
    size: Optional[Quantity] = None
    start: Optional[Quantity] = None
    params: Dict[str, float] = field(default_factory=dict)
    count: Optional[int] = None
    tcp: Optional[Tcp] = None
    access_rate: Optional[Quantity] = None
    access_delay: Optional[Quantity] = None
    class_: Optional[str] = None
    direction: Optional[str] = None
    host: Optional[int] = None
    interval: Optional[Quantity] = None
    arrivals: Optional[str] = None
    starts: Optional[List[Quantity]] = None
    drop_transmissions: Optional[List[int]] = None
    hops: Optional[List[int]] = None
    """The parking lot's hops the flow crosses, consecutive and in order (`[1]`: the second
    only); every hop when unset. Needs `Dumbbell.hops`."""

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Udp:
    """A UDP source sending `packet_size`-byte datagrams at `rate` (IP bytes, like a link rate).

    With `on` and `off` it alternates on and off periods, of fixed lengths or (`on_off=
    "exponential"`) exponentially distributed with those means. `stop=None` sends until the
    scenario's duration. Unset, `rate` is 1 Mbps.
    """

    rate: Optional[Quantity] = None
    packet_size: Optional[int] = None
    start: Optional[Quantity] = None
    stop: Optional[Quantity] = None
    on: Optional[Quantity] = None
    off: Optional[Quantity] = None
    on_off: Optional[str] = None
    direction: Optional[str] = None
    host: Optional[int] = None
    class_: Optional[str] = None
    count: Optional[int] = None
    hops: Optional[List[int]] = None
    """As `Flow.hops`."""
    tick: Optional[Quantity] = None
    """The sender's clock tick: datagrams leave only on its ticks, all those due since the last
    one together ("10ms": iperf on a 100 Hz kernel). Unset: each datagram when it is due."""

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Web:
    """Web sessions of pages of objects (ns-2 PagePool/WebTraf), each object one TCP flow.

    Defaults are the Jump Start paper's (section IV-A): 50 sessions 5 ms apart, 5 pages each,
    Pareto II objects per page (mean 4, shape 1.5) and packets per object (mean 4, shape 1.2),
    exponential gaps between objects (mean 50 ms) and pages (mean 500 ms).
    """

    sessions: Optional[int] = None
    session_interval: Optional[Quantity] = None
    start: Optional[Quantity] = None
    pages: Optional[int] = None
    page_objects_mean: Optional[float] = None
    page_objects_shape: Optional[float] = None
    page_interval: Optional[Quantity] = None
    object_packets_mean: Optional[float] = None
    object_packets_shape: Optional[float] = None
    object_interval: Optional[Quantity] = None
    algorithm: Optional[str] = None
    params: Dict[str, float] = field(default_factory=dict)
    tcp: Optional[Tcp] = None
    direction: Optional[str] = None
    host: Optional[int] = None
    class_: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Trace:
    """What the run records besides the summary; `pcap` lists link names such as "bottleneck".

    `interval` and `queue_interval` are the grid steps of the flow and queue series (default
    1 ms, or the duration / 10000 if longer; "0s" writes a row at every change instead).
    """

    interval: Optional[Quantity] = None
    queue_interval: Optional[Quantity] = None
    packets: Optional[bool] = None
    pcap: Optional[List[str]] = None

    def to_dict(self) -> dict[str, Any]:
        return _set_fields(self)


@dataclass
class Limits:
    """What a run may use; a scenario whose estimated size exceeds them is refused before it
    starts (`tcpstart.estimate` shows the estimate). Unset fields take the values of the
    TCPSTART_LIMITS environment variable ("memory=8GB,packets=5e9"), else 4 GB and 1e9 packets.
    """

    memory: Optional[Quantity] = None
    packets: Optional[float] = None

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
    udp: List[Udp] = field(default_factory=list)
    web: List[Web] = field(default_factory=list)
    algorithm: Optional[str] = None
    """Algorithm of the flows and web workloads that name none (newreno when unset)."""
    tcp: Optional[Tcp] = None
    duration: Optional[Quantity] = None
    seed: Optional[int] = None
    """Seed of every random stream (1 when unset)."""
    trace: Trace = field(default_factory=Trace)
    limits: Optional[Limits] = None

    def to_dict(self) -> dict[str, Any]:
        """The scenario in the shape of a TOML file, with only the fields that were set."""
        return _set_fields(self)

    def validate(self) -> dict[str, Any]:
        """The scenario with every default filled in, in user units ("20Mbps", "40ms"): a dict
        that `run` takes as the same scenario. Raises ScenarioError naming a bad field."""
        return validate(self.to_dict())

    def to_toml(self) -> str:
        """The scenario as TOML with every default filled in (`tcpstart validate`'s output)."""
        return validate_toml(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Scenario:
        """Builds the objects from the TOML/JSON shape; the core checks `d` first."""
        validate(d)

        def with_tcp(kind: Any, t: dict[str, Any]) -> Any:
            return kind(**{**_from_toml_names(t), "tcp": Tcp(**t["tcp"]) if "tcp" in t else None})

        return cls(
            network=Dumbbell(**d.get("network", {})),
            flows=[with_tcp(Flow, f) for f in d.get("flows", [])],
            udp=[Udp(**_from_toml_names(u)) for u in d.get("udp", [])],
            web=[with_tcp(Web, w) for w in d.get("web", [])],
            algorithm=d.get("algorithm"),
            tcp=Tcp(**d["tcp"]) if "tcp" in d else None,
            duration=d.get("duration"),
            seed=d.get("seed"),
            trace=Trace(**d.get("trace", {})),
            limits=Limits(**d["limits"]) if "limits" in d else None,
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Scenario:
        return load_scenario(path)


def validate(d: dict[str, Any]) -> dict[str, Any]:
    """Asks the core to check a scenario dict; returns it with every default filled in, in user
    units, as a dict that reads back as the same scenario."""
    return json.loads(_validated(d, toml=False))


def validate_toml(d: dict[str, Any]) -> str:
    """`validate` as TOML text."""
    return _validated(d, toml=True)


def expanded(d: dict[str, Any]) -> dict[str, Any]:
    """The scenario as the simulator runs it: every flow, host pair and page expanded, in the
    simulator's units (bits per second, {"secs", "nanos"}). For the tools that translate a
    scenario to another simulator or a testbed; it does not read back as a scenario."""
    try:
        return json.loads(_core.expand(to_json(d)))
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _validated(d: dict[str, Any], toml: bool) -> str:
    if not isinstance(d, dict):
        raise ScenarioError(f"a scenario must be a table (dict), got {type(d).__name__}")
    try:
        return _core.validate(to_json(d), toml)
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def to_json(d: Any) -> str:
    """A scenario dict as the JSON text the core reads: the one way scenarios go in."""
    if not isinstance(d, dict):
        # serde reads a struct from a list of its fields in order; a scenario never is one.
        raise ScenarioError(f"a scenario must be a table, got {'a list' if isinstance(d, (list, tuple)) else type(d).__name__}")
    return _ENCODE(d)


def _json_default(value: Any) -> Any:
    """What JSON holds of a value it has no form for: a dataclass of this module as its dict,
    a number of another type (numpy's, an IntEnum) as the number, anything else (TOML dates) as
    its text, which the core then refuses naming the field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return str(value)


# json.dumps(d, default=_json_default) with an encoder made once: json.dumps builds a new one
# whenever an option is given (0.5 us of the 4.4 us that B5's scenario took, warm).
_ENCODE = json.JSONEncoder(default=_json_default).encode


def read_scenario_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A scenario file as a dict, unchecked: TOML, or JSON for a `.json` file (the scenario.json a
    result folder holds). File and syntax problems become a ScenarioError."""
    try:
        with open(path, "rb") as f:
            if Path(path).suffix.lower() == ".json":
                data = json.load(f)
                if not isinstance(data, dict):
                    raise ScenarioError(f"{path}: a scenario is a JSON object, got {type(data).__name__}")
                return data
            return _trace_files_from(Path(path).parent, tomllib.load(f))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        # The message already says "(at line L, column C)".
        raise ScenarioError(f"{path}: invalid TOML: {e}") from None
    except json.JSONDecodeError as e:
        raise ScenarioError(f"{path}: invalid JSON: {e}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None


def _trace_files_from(folder: Path, d: dict[str, Any]) -> dict[str, Any]:
    """A scenario file names its trace files relative to itself; the core reads them relative to
    the current directory, so they become absolute (and the scenario.json of a result names
    them wherever it is read from)."""
    network = d.get("network")
    if isinstance(network, dict):
        for key in ("trace", "reverse_trace"):
            if isinstance(network.get(key), str):
                network[key] = str((folder / network[key]).resolve())
    return d


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Reads and checks a scenario file; every problem is a ScenarioError starting with the path."""
    d = read_scenario_file(path)
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
        return read_scenario_file(scenario), str(Path(scenario))
    raise ScenarioError(f"a scenario must be a Scenario, a dict or the path of a TOML file, got {type(scenario).__name__}")
