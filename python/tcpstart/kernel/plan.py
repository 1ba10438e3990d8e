"""What a scenario means on the kernel: each field mapped to a kernel setting, or refused.

The scenario is resolved by the core first (every default filled in, units in SI), so that a
scenario the simulator rejects is rejected here with the same message. Then each field is either
mapped (rate, delay, queue, MSS, initial window, SACK, timestamps, window scaling, receive buffer,
minimum and maximum RTO, duplicate-ACK threshold, delayed ACKs on/off), accepted as a model knob
that says how the simulator models something the kernel does its own way (the delayed-ACK
timeout, quick-ACK count, recovery window rule, RTO restart, clock granularity and tick), or
refused in one line naming the field when the kernel has nothing like it at that value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcpstart.kernel import bpfcc, capture
from tcpstart.scenario import ScenarioError

# tcpstart's algorithms that the kernel has: the module, and the parameters that make tcpstart's
# the same algorithm. Linux's reno is NewReno recovery with every acknowledged segment counted
# in slow start (abc = 0); tcpstart's cubic and bbr follow tcp_cubic.c and tcp_bbr.c by default.
KERNEL_ALGORITHMS: dict[str, tuple[str, dict[str, float]]] = {
    "newreno": ("reno", {"abc": 0}),
    "cubic": ("cubic", {}),
    "bbr": ("bbr", {}),
}
# Parameters any value of which the kernel's module has too (BBR's random start of its gain cycle).
FREE_PARAMS = {"seed"}
# Above this the measurement (a Python delay line on shared cores) is no longer the bottleneck's.
MAX_RATE_BPS = 1e9
IP_TCP_HEADER, TIMESTAMP_OPTION, ETHERNET_HEADER = 40, 12, 14
BUCKET_S = 0.001
PEAK_OVER = 1.05
INFINITE_SSTHRESH = 2**64 - 1
# Values of the simulator's fields that the kernel has at all (anything else is refused).
FIXED = {
    "delack_count": (2, "the kernel acknowledges every second full segment"),
    "rto_initial": (1.0, "the kernel's initial RTO is 1 s (TCP_TIMEOUT_INIT)"),
    "fast_retransmit": (True, "the kernel always retransmits fast"),
    "limited_transmit": (True, "the kernel always uses limited transmit"),
}
# Model knobs: how the simulator approximates what the kernel does by itself.
KERNEL_OWN = ("delack_timeout", "quickack", "recovery", "rto_restart", "clock_granularity", "clock_tick",
              "unpaced_segments", "profile")


def _secs(d: dict[str, int]) -> float:
    return d["secs"] + d["nanos"] / 1e9


def refuse(path: str, why: str) -> ScenarioError:
    return ScenarioError(f"{path}: {why}")


def available_algorithms() -> set[str]:
    try:
        return set(Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split())
    except OSError:
        return set()


@dataclass
class FlowPlan:
    id: int
    host: int
    algorithm: str  # the scenario's name
    kernel_algorithm: str  # a BPF algorithm's is the name its run registers it under
    size: int
    start: float
    port: int = 0
    # A BPF algorithm's parameter values, in its object's order (None: a kernel module).
    bpf_params: tuple[float, ...] | None = None


@dataclass
class HostPlan:
    mss: int
    timestamps: bool
    sack: bool
    window_scaling: bool
    initial_window: int  # segments
    rcv_buf: int
    rto_min_ms: float
    rto_max_ms: int
    dupthresh: int
    delayed_ack: bool
    # The host pair's flows run BPF start-up algorithms (bpfcc). Its receiver then advertises its
    # buffer from the SYN-ACK on, as the simulator's receiver does (Jump Start sends what that
    # allows), up to the kernel's cap of an unscaled SYN window (65,535 bytes rounded down to
    # whole segments). Other receivers keep the kernel's own first window (no `initrwnd`: 65,160
    # bytes from a 128 KB buffer on 6.18, which the Linux profile models; `initrwnd 10` would
    # offer 14,480).
    bpf: bool = field(default=False, compare=False)

    @property
    def route(self) -> str:
        rwnd = f" initrwnd {-(-self.rcv_buf // self.mss)}" if self.bpf else ""
        return f"initcwnd {self.initial_window}{rwnd} rto_min {self.rto_min_ms:g}ms"

    def sysctls(self, receiver: bool) -> dict[str, str]:
        s = {
            "net.ipv4.tcp_sack": str(int(self.sack)),
            "net.ipv4.tcp_timestamps": str(int(self.timestamps)),
            "net.ipv4.tcp_window_scaling": str(int(self.window_scaling)),
            "net.ipv4.tcp_ecn": "0",
            "net.ipv4.tcp_no_metrics_save": "1",
            "net.ipv4.tcp_reordering": str(self.dupthresh),
            "net.ipv4.tcp_rto_max_ms": str(self.rto_max_ms),
            # The sender's buffer never limits it (the simulator has none).
            "net.ipv4.tcp_wmem": f"4096 16384 {64 << 20}",
        }
        if receiver:
            # Autotuning grows the buffer up to this; the kernel advertises about half of it.
            s["net.ipv4.tcp_rmem"] = f"4096 131072 {max(2 * self.rcv_buf, 131072)}"
        elif self.bpf:
            # After every ACK the kernel sets the pacing rate to ratio x cwnd / srtt, over what a
            # congestion control without cong_control set (tcp_update_pacing_rate). At 100 % that
            # is the paced window over one RTT, the rate the paced start-ups set themselves.
            s["net.ipv4.tcp_pacing_ss_ratio"] = s["net.ipv4.tcp_pacing_ca_ratio"] = "100"
        return s


@dataclass
class Plan:
    resolved: dict[str, Any]
    rate_bps: float
    reverse_rate_bps: float
    delay_s: float
    access_delay_s: list[float]  # per host pair
    queue: tuple[str, int]  # the simulator's: ("Packets", n) or ("Bytes", n)
    reverse_queue: tuple[str, int]
    mtu: int
    flows: list[FlowPlan]
    hosts: list[HostPlan]
    duration: float | None
    queue_interval: float
    kernel_own: dict[str, Any] = field(default_factory=dict)
    pcap: list[str] = field(default_factory=list)  # link names, as the simulator's

    @property
    def wire(self) -> int:
        """A full data segment's bytes on a simulated link (IP packet)."""
        return self.mtu

    @property
    def frame(self) -> int:
        """The same segment as the qdisc counts it (with its Ethernet header)."""
        return self.mtu + ETHERNET_HEADER

    def kernel_rate(self, rate_bps: float) -> float:
        """The token-bucket rate that sends full segments at the simulated link's packet rate."""
        return rate_bps * self.frame / self.wire

    def kernel_queue(self, queue: tuple[str, int]) -> tuple[str, int]:
        """The fifo behind the token bucket, holding one packet more than the simulated queue:
        the token bucket keeps the packet it waits to send at the head of its queue, where a
        simulated link has it in transmission, outside its queue."""
        kind, n = queue
        if kind == "Packets":
            return "pfifo", n + 1
        return "bfifo", round(n * self.frame / self.wire) + self.frame

    @property
    def burst_bytes(self) -> int:
        """The token bucket's depth: a millisecond at the bottleneck rate, at least one frame.

        A bucket of one frame loses the tokens of every late dequeue (the qdisc's timer and
        softirq run late under load): at 100 Mbps that took the bottleneck down to 80 % of its
        rate. A millisecond's worth absorbs that, at the cost of up to a millisecond of data
        leaving back to back after the link was idle."""
        return max(self.frame + 100, round(max(self.rate_bps, self.reverse_rate_bps) / 8 * BUCKET_S))

    @property
    def peak_bytes(self) -> int:
        """A second bucket of one frame, filled at PEAK_OVER x the rate, when a flow's algorithm
        measures a packet pair (0: none). The millisecond bucket lets the first segments after an
        idle link leave back to back, closer than the rate spaces them, and the pair's gap is the
        estimate: at 20 Mbps the kernel's Swift Start measured 180 segments where the link's
        spacing gives 41. The one-frame bucket spaces frames by 1 / PEAK_OVER of their
        serialisation time, so a pair reads 5 % fast; a dequeue later than that loses the rest
        (see burst_bytes): at 1.001 x the rate a loaded machine took 10 % off a 50 Mbps
        bottleneck (Swift Start's 2 MB in 0.45-0.46 s against 0.41-0.42 s), at 1.05 x none was
        seen. Only these scenarios get it. (The kernel refuses a peak rate not above the rate.)"""
        pair = any(bpfcc.BPF_ALGORITHMS[f.algorithm].packet_pair for f in self.flows if f.bpf_params is not None)
        return self.frame if pair else 0

    @property
    def bdp_bytes(self) -> int:
        return int(self.rate_bps / 8 * 2 * self.delay_s)


def _queue(q: dict[str, int]) -> tuple[str, int]:
    ((kind, n),) = q.items()
    return kind, int(n)


def make_plan(resolved: dict[str, Any]) -> Plan:
    """Maps a resolved scenario to the kernel; raises ScenarioError naming the first field the
    testbed cannot honour."""
    net = resolved["network"]
    if resolved.get("pages") or resolved.get("web"):
        raise refuse("web", "web workloads have no kernel counterpart in the testbed")
    if resolved.get("udp"):
        raise refuse("udp", "the testbed sends TCP transfers only")
    for key, limit in (("rate_bps", "rate"), ("reverse_rate_bps", "reverse_rate")):
        if net[key] > MAX_RATE_BPS:
            raise refuse(f"network.{limit}", f"the testbed carries at most 1Gbps, got {net[key] / 1e9:g}Gbps")
    for key, name in (("loss", "loss"), ("reverse_loss", "reverse_loss"), ("ber", "ber"), ("reverse_ber", "reverse_ber")):
        if net[key]:
            raise refuse(f"network.{name}", "random loss is not available in the testbed (no netem)")
    for key in ("aqm", "reverse_aqm"):
        if net[key]["kind"] != "droptail":
            raise refuse(f"network.{key}", f"the testbed's bottleneck is a drop-tail fifo, not {net[key]['kind']}")
    for key in ("router_pps", "reverse_router_pps", "ack_compression", "reverse_ack_compression", "quick_start"):
        if net[key] is not None:
            raise refuse(f"network.{key}", "has no kernel counterpart in the testbed")
    if net.get("ack_jitter") is not None:  # left out of the resolved scenario when off
        raise refuse("network.ack_jitter", "has no kernel counterpart in the testbed")
    if net["access_queue"] != {"Packets": 10000}:
        raise refuse("network.access_queue", "the testbed's access links are veths without a queue of their own")
    trace = resolved["trace"]
    if trace["packets"]:
        raise refuse("trace.packets", "the testbed records no packet events")

    available = available_algorithms()
    flows: list[FlowPlan] = []
    hosts: dict[int, HostPlan] = {}
    for i, f in enumerate(resolved["flows"]):
        where = f"flows[{i}]"
        if f["algorithm"] == "reno":
            raise refuse(f"{where}.algorithm", "the kernel's reno is tcpstart's newreno with params = { abc = 0 } "
                         "(NewReno recovery, every acknowledged segment counted)")
        bpf_params = None
        if f["algorithm"] in bpfcc.BPF_ALGORITHMS:
            why = bpfcc.missing_for(f["algorithm"])
            if why:
                raise refuse(f"{where}.algorithm", f"{f['algorithm']!r} runs on the kernel as BPF, and {why}")
            kernel, bpf_params = "", _bpf_params(f["algorithm"], f["params"])
            spec = bpfcc.BPF_ALGORITHMS[f["algorithm"]]
            defaults = _defaults(f["algorithm"])
            for name, value in f["params"].items():
                if name not in spec.params and float(value) != defaults[name]:
                    raise refuse(f"{where}.params.{name}", f"the BPF version takes only {', '.join(spec.params)}; "
                                 f"give {name} = {defaults[name]:g} (its default) on the kernel")
            for name, value, _ in spec.fixed:
                if bpf_params[spec.params.index(name)] != value:
                    raise refuse(f"{where}.params.{name}", f"must be {value:g} on the kernel: {why_fixed(spec, name)}")
        else:
            kernel = _kernel_module(f, where, available)
        if f["size"] is None:
            raise refuse(f"{where}.size", "the testbed runs finite transfers; give a size")
        if f["direction"] != "forward":
            raise refuse(f"{where}.direction", "the testbed sends data forward only")
        if f["drop_transmissions"]:
            raise refuse(f"{where}.drop_transmissions", "scripted drops have no kernel counterpart")
        if f["access_rate_bps"] != 1e9:
            raise refuse(f"{where}.access_rate", "the testbed's access links are unlimited veths (1Gbps in the scenario)")
        host = _host_plan(f["tcp"], where)
        if f["host"] in hosts and hosts[f["host"]] != host:
            raise refuse(f"{where}.tcp", f"TCP settings are per host in the testbed; flows of host {f['host']} differ")
        host = hosts.setdefault(f["host"], host)
        host.bpf = host.bpf or bpf_params is not None
        flows.append(FlowPlan(i, f["host"], f["algorithm"], kernel, int(f["size"]), _secs(f["start"]), bpf_params=bpf_params))
    mtus = {h.mss + IP_TCP_HEADER + (TIMESTAMP_OPTION if h.timestamps else 0) for h in hosts.values()}
    if len(mtus) > 1:
        raise refuse("tcp.mss", "the testbed has one MTU: every flow needs the same mss and timestamps setting")
    n_hosts = max(hosts) + 1
    access = [0.0] * n_hosts
    for f in resolved["flows"]:
        access[f["host"]] = _secs(f["access_delay"])
    first = resolved["flows"][0]["tcp"]
    kernel_own = {k: first[k] for k in KERNEL_OWN}
    return Plan(
        resolved=resolved,
        rate_bps=net["rate_bps"],
        reverse_rate_bps=net["reverse_rate_bps"],
        delay_s=_secs(net["delay"]),
        access_delay_s=access,
        queue=_queue(net["queue"]),
        reverse_queue=_queue(net["reverse_queue"]),
        mtu=mtus.pop(),
        flows=flows,
        hosts=[hosts.get(h, next(iter(hosts.values()))) for h in range(n_hosts)],
        duration=_secs(resolved["duration"]) if resolved.get("duration") else None,
        queue_interval=max(_secs(trace["queue_interval"]), 0.001),
        kernel_own=kernel_own,
        pcap=_pcap_links(trace["pcap"]),
    )


def _kernel_module(f: dict[str, Any], where: str, available: set[str]) -> str:
    """The kernel module that is this flow's algorithm with its parameters, or a refusal."""
    if f["algorithm"] not in KERNEL_ALGORITHMS:
        runs = sorted([*KERNEL_ALGORITHMS, *bpfcc.BPF_ALGORITHMS])
        raise refuse(f"{where}.algorithm", f"{f['algorithm']!r} has no kernel version; the testbed runs {', '.join(runs)}")
    kernel, required = KERNEL_ALGORITHMS[f["algorithm"]]
    if kernel not in available:
        raise refuse(f"{where}.algorithm", f"this kernel lacks tcp_{kernel} "
                     f"(tcp_available_congestion_control: {' '.join(sorted(available))})")
    for name, value in required.items():
        if f["params"].get(name) != value:
            raise refuse(f"{where}.params.{name}", f"the kernel's {kernel} is {f['algorithm']} with {name} = {value:g}")
    defaults = _defaults(f["algorithm"])
    for name, value in f["params"].items():
        # The core fills in every parameter: only one set away from its default asks for more.
        if name not in required and name not in FREE_PARAMS and value != defaults.get(name):
            raise refuse(f"{where}.params.{name}", f"the kernel's {kernel} module takes no per-flow parameters")
    return kernel


def _defaults(algorithm: str) -> dict[str, float]:
    """The algorithm's parameters with their defaults, from its registration."""
    from tcpstart.simulate import algorithms

    info = next(a for a in algorithms() if a["name"] == algorithm)
    return {p["name"]: p["default"] for p in info["params"]}


def why_fixed(spec: bpfcc.BpfAlgorithm, name: str) -> str:
    return next(why for n, _, why in spec.fixed if n == name)


def _bpf_params(algorithm: str, given: dict[str, float]) -> tuple[float, ...]:
    """The parameters in the BPF object's order, defaults from the algorithm's registration (the
    core has checked names and ranges)."""
    defaults = _defaults(algorithm)
    return tuple(float(given.get(name, defaults[name])) for name in bpfcc.BPF_ALGORITHMS[algorithm].params)


def _pcap_links(links: list[str]) -> list[str]:
    """The links to capture (the core has checked the names; capture.where maps each)."""
    if links and capture.tool() is None:
        raise refuse("trace.pcap", "the testbed needs dumpcap or tcpdump to write pcap files")
    return list(dict.fromkeys(links))


def _host_plan(tcp: dict[str, Any], where: str) -> HostPlan:
    for key, (value, why) in FIXED.items():
        got = _secs(tcp[key]) if isinstance(tcp[key], dict) else tcp[key]
        if got != value:
            raise refuse(f"{where}.tcp.{key}", why)
    if tcp["initial_ssthresh"] != INFINITE_SSTHRESH:
        raise refuse(f"{where}.tcp.initial_ssthresh", "the kernel starts with an infinite ssthresh")
    if tcp["initial_window"] % tcp["mss"]:
        raise refuse(f"{where}.tcp.initial_window", "the kernel's initial window is a whole number of segments")
    rto_max_ms = round(_secs(tcp["rto_max"]) * 1e3)
    if not 1000 <= rto_max_ms <= 120_000:
        raise refuse(f"{where}.tcp.rto_max", "the kernel allows 1s to 120s (tcp_rto_max_ms)")
    if not 1 <= tcp["dupthresh"] <= 300:
        raise refuse(f"{where}.tcp.dupthresh", "the kernel's tcp_reordering allows 1 to 300")
    return HostPlan(
        mss=tcp["mss"],
        timestamps=tcp["timestamps"],
        sack=tcp["sack"],
        window_scaling=tcp["window_scaling"],
        initial_window=tcp["initial_window"] // tcp["mss"],
        rcv_buf=tcp["rcv_buf"],
        rto_min_ms=_secs(tcp["rto_min"]) * 1e3,
        rto_max_ms=rto_max_ms,
        dupthresh=tcp["dupthresh"],
        delayed_ack=tcp["delayed_ack"],
    )
