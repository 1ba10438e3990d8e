"""The Rust core. Scenarios cross this boundary as dicts or JSON text; results as a `Run` whose
summary and columns are converted when asked for."""

from typing import Any, Callable, Optional, Sequence, final

__all__ = [
    "validate",
    "expand",
    "scenario_fields",
    "algorithms",
    "estimate",
    "schema",
    "run_all",
    "Run",
    "Stop",
    "InvariantError",
    "ControllerError",
    "register_controller",
    "EstablishedEvent",
    "SentEvent",
    "AckEvent",
    "RateSample",
    "CongestionEvent",
    "RecoveryExitEvent",
    "RtoEvent",
    "SegmentArrival",
    "__version__",
    "__build__",
    "__debug_build__",
]

def validate(scenario: str, toml: bool = False) -> str:
    """Parses and checks a scenario given as JSON text; returns it with every default filled in,
    in user units ("20Mbps", "40ms"), as JSON (keys sorted) or, with `toml`, as TOML text: either
    reads back as the same scenario.

    Raises ValueError with one line, "<field path>: <message>", for a scenario that is not valid.
    """

def expand(scenario: str) -> str:
    """The run's scenario (given as JSON text) as JSON: every flow, host pair and page expanded,
    in the simulator's units (bits per second, {"secs", "nanos"}). Raises ValueError like
    `validate`."""

def scenario_fields() -> str:
    """Every scenario field as JSON: a list of {table, name, kind, default, range, meaning}, the
    core's one table of fields and defaults; `default` is {"value": JSON literal}, {"rule": text}
    or "required"."""

def estimate(scenario: str) -> dict[str, Any]:
    """The estimated size of the scenario's run (connections, packets, rows, memory_bytes,
    cpu_seconds, ...), its limits and `refusal`: None or the one-line reason a run is refused.
    Raises ValueError for a scenario within its limits that is not valid."""

def run_all(
    scenarios: Sequence[str],
    stop: Optional[Stop] = None,
    progress: Optional[Callable[[int, float, Optional[float]], None]] = None,
) -> tuple[list[Run], Optional[str]]:
    """Simulates scenarios, each given as JSON text (`tcpstart.scenario.to_json`), one after
    another without the GIL.

    Returns the runs in order and None, or, when a scenario is not valid, the runs before it and
    its one-line error, "<field path>: <message>".

    On the main thread the runs let Python handle signals every 50 ms: Ctrl-C raises
    KeyboardInterrupt. Setting `stop` from another thread raises KeyboardInterrupt too.
    `progress(index in the batch, simulated seconds, end seconds or None)` is called every
    50 ms. A run that breaks an invariant raises InvariantError.
    """

@final
class Stop:
    """A flag shared by runs: setting it stops each within milliseconds."""

    def set(self) -> None: ...
    def is_set(self) -> bool: ...

class InvariantError(RuntimeError):
    """A run broke one of the simulator's invariants (a simulator bug): the message names the
    invariant, the simulated time and the flow."""

@final
class Run:
    """A finished run held in Rust. Columns are a dict of name -> (numpy type code, bytes) or
    ("str", u32 codes as bytes, distinct strings); each take_* hands its columns over once (a
    second call raises RuntimeError)."""

    core_seconds: float
    """Wall time of the simulation alone."""

    def summary(self) -> dict[str, Any]:
        """The summary as a new dict, equal to json.loads of summary.json."""
    def take_flows(self) -> dict[str, Any]: ...
    def take_queues(self) -> dict[str, Any]: ...
    def take_packets(self) -> Optional[dict[str, Any]]: ...
    def pcaps(self) -> dict[str, bytes]:
        """The pcap files by link name."""

__version__: str
__build__: str
"""JSON object from the build backend: git_commit, git_dirty, pgo ("{}" when built otherwise)."""
__debug_build__: bool

def schema() -> str:
    """JSON list of the trace tables, each {"table", "columns"}, a column {"name", "dtype" (float,
    int, text or link), "unit", "doc"}, in the order the tables hold them."""

def algorithms() -> str:
    """JSON list of the algorithms: name, summary, reference and params with default/min/max."""

class ControllerError(RuntimeError):
    """A controller registered from Python failed: the message names the algorithm, the flow,
    the simulated time and the callback; the controller's own exception is the __cause__."""

def register_controller(
    name: str,
    summary: str,
    reference: str,
    params: list[tuple[str, float, float, float, bool, str]],
    cls: Any,
    receiver: Any = None,
) -> None:
    """Registers a tcpstart.Controller subclass under `name`, with its tcpstart.Receiver subclass
    if it has one (tcpstart.register calls it)."""

# The events of a Python controller's callbacks (times in seconds, sizes in bytes), as the Rust
# structs of crates/tcpstart-cc/src/events.rs.
@final
class EstablishedEvent:
    now: float
    handshake_rtt: Optional[float]
    queued_bytes: int
    rwnd: int

@final
class SentEvent:
    now: float
    seq: int
    len: int
    is_retransmission: bool
    bytes_in_flight: int
    app_limited: bool

@final
class RateSample:
    delivered: int
    interval: Optional[float]
    send_elapsed: float
    ack_elapsed: float
    prior_delivered: int
    prior_time: float
    rtt: Optional[float]
    is_app_limited: bool
    is_retrans: bool
    losses: int
    acked_sacked: int
    total_delivered: int
    total_lost: int
    delivered_time: float
    dupack_credit: int
    delivery_rate: Optional[float]

@final
class AckEvent:
    now: float
    bytes_acked: int
    bytes_sacked: int
    rtt_sample: Optional[float]
    srtt: Optional[float]
    min_rtt: Optional[float]
    prior_in_flight: int
    bytes_in_flight: int
    in_recovery: bool
    cwnd_limited: bool
    snd_una: int
    snd_nxt: int
    timestamps: Optional[tuple[int, int]]
    receiver_echo: Optional[int]
    rate: Optional[RateSample]

@final
class CongestionEvent:
    now: float
    flight_size: int
    high_data: int

@final
class RecoveryExitEvent:
    now: float
    retransmitted_bytes: int
    bytes_in_flight: int

@final
class RtoEvent:
    now: float
    flight_size: int
    consecutive: int

@final
class SegmentArrival:
    now: float
    seq: int
    len: int
    mark: int
