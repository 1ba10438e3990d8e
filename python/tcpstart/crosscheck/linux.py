"""The Linux cross-check: the same scenarios on the kernel (tcpstart testbed, several runs each)
and in tcpstart, compared against the kernel's own run-to-run spread.

Both sides get one scenario dict. Its TCP settings are tcpstart's Linux profile
(`tcp.profile = "linux"`: MSS 1448 = MTU 1500 with timestamps, initial window 10, minimum RTO
200 ms, delayed-ACK timeout 40 ms = TCP_ATO_MIN, 16 quick ACKs = TCP_MAX_QUICKACKS, PRR recovery,
Linux's receiver and ssthresh rules); the testbed maps the ones the kernel can be given and runs
the kernel's own behaviour for the rest.
The kernel's reno is tcpstart's newreno with abc = 0 (every acknowledged segment counts).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import asdict, dataclass, replace
from statistics import mean
from typing import Any, Callable, Optional

import numpy as np

MSS = 1448
WIRE = MSS + 52  # on a tcpstart link: payload, IP/TCP header and timestamp option
TOLERANCE = 0.02  # completion time, relative to the kernel's mean
WIDEN = 0.10  # the kernel's min-max range, widened by this much on each side
DISTANCE_FACTOR = 2.0  # tcpstart's cwnd distance to the kernel against the kernel's to itself
SEEDS = 5  # tcpstart's runs of a BBR case (the kernel draws BBR's first PROBE_BW phase at random)


@dataclass(frozen=True)
class LinuxCase:
    name: str
    algorithm: str
    rate_mbps: float
    rtt_ms: float
    queue_bdp: float
    size_mb: float
    flows: int = 1
    stagger: float = 0.5  # flow i starts at i * stagger seconds

    @property
    def queue_packets(self) -> int:
        return max(2, round(self.queue_bdp * self.rate_mbps * 1e6 / 8 * self.rtt_ms / 1e3 / WIRE))

    def describe(self) -> str:
        flows = f", {self.flows} flows every {self.stagger:g} s" if self.flows > 1 else ""
        algorithm = "newreno abc=0 (Linux reno)" if self.algorithm == "newreno" else self.algorithm
        return (f"{algorithm}, {self.rate_mbps:g} Mbps, {self.rtt_ms:g} ms, {self.queue_bdp:g} BDP "
                f"({self.queue_packets} pkt), {self.size_mb:g} MB{flows}")


MATRIX = [
    LinuxCase("L1", "cubic", 10, 50, 1, 2),
    LinuxCase("L2", "cubic", 20, 100, 0.5, 4),
    LinuxCase("L3", "cubic", 50, 20, 1, 5),
    LinuxCase("L4", "cubic", 100, 10, 2, 8),
    LinuxCase("L5", "cubic", 5, 300, 1, 2),
    LinuxCase("L6", "newreno", 10, 50, 0.5, 2),
    LinuxCase("L7", "newreno", 20, 100, 2, 4),
    LinuxCase("L8", "newreno", 50, 40, 0.25, 4),
    LinuxCase("L9", "newreno", 5, 200, 1, 1.5),
    LinuxCase("L10", "bbr", 10, 50, 1, 2),
    LinuxCase("L11", "bbr", 20, 100, 2, 2),
    LinuxCase("L12", "bbr", 50, 20, 0.5, 4),
    LinuxCase("L13", "bbr", 100, 40, 1, 8),
    LinuxCase("L14", "bbr", 5, 300, 0.25, 2),
    LinuxCase("L15", "cubic", 20, 50, 1, 3, flows=2),
    LinuxCase("L16", "newreno", 30, 60, 1, 2, flows=3, stagger=0.3),
    LinuxCase("L17", "bbr", 10, 100, 2, 3, flows=2),
]
QUICK = ["L10", "L11", "L7"]


# tcpstart before its Linux profile: the RFC model with Linux's values where it has a knob.
RFC_KNOBS = {"profile": "rfc", "mss": MSS, "rto_min": "200ms", "delack_timeout": "40ms", "quickack": 16,
             "recovery": "prr"}


def scenario(case: LinuxCase, profile: str = "linux", seed: int = 1, rtt_excess: float = 0.0) -> dict[str, Any]:
    """The case's scenario, for both sides; `profile="rfc"`: tcpstart's RFC model with Linux's
    knob values instead of the Linux profile (the comparison the report makes). `seed` is BBR's
    (flow i gets seed + 100 i): the kernel draws each BBR flow's first PROBE_BW phase at random,
    tcpstart from its seed; the testbed ignores it. `rtt_excess` (seconds) lengthens tcpstart's
    path to the one the kernel ran on (`path_excess`)."""
    def params(i: int) -> dict[str, Any]:
        if case.algorithm == "newreno":
            return {"params": {"abc": 0}}
        return {"params": {"seed": seed + 100 * i}} if case.algorithm == "bbr" else {}

    # Whole microseconds: the excess is measured to a few microseconds at best.
    rtt = f"{case.rtt_ms}ms" if not rtt_excess else f"{round(case.rtt_ms * 1e3 + rtt_excess * 1e6)}us"
    return {
        "seed": 1,
        "network": {"rate": f"{case.rate_mbps}Mbps", "rtt": rtt, "queue": case.queue_packets},
        "tcp": {"profile": "linux", "mss": MSS} if profile == "linux" else RFC_KNOBS,
        "flows": [{"algorithm": case.algorithm, "size": int(case.size_mb * 1e6), "start": f"{i * case.stagger}s",
                   **params(i)}
                  for i in range(case.flows)],
        "trace": {"interval": "1ms"},
    }


def metrics(result: Any) -> dict[str, Any]:
    """What the report compares, from one run's Result (kernel or tcpstart)."""
    flows = result.raw_summary["flows"]
    done = [f["completion_time"] for f in flows]
    table = result.flows
    curves = []
    for fid in range(len(flows)):
        part = table.filter(table["flow"] == fid)
        curves.append((part["t"].to_list(), part["cwnd"].to_list()))
    first = flows[0]
    srtt = table.filter((table["flow"] == 0) & table["srtt"].is_not_nan())["srtt"]
    return {
        # The first smoothed RTT is the handshake's sample: the path's base RTT as the sender saw it.
        "handshake_rtt": float(srtt[0]) if len(srtt) else None,
        "completion": mean(done) if all(d is not None for d in done) else None,
        "goodput_bps": mean(f["goodput_bps"] for f in flows),
        "retransmissions": sum(f["retransmissions"] for f in flows),
        "timeouts": sum(f["timeouts"] or 0 for f in flows),
        "ss_exit_cwnd": first["ss_exit_cwnd"] / MSS if first["ss_exit_cwnd"] is not None else None,
        "ss_exit_time": first["ss_exit_time"],
        "curves": curves,
        "testbed": result.raw_summary.get("testbed"),
    }


def total_cwnd(curves: list, grid: np.ndarray) -> np.ndarray:
    """Sum over flows of each flow's step-function cwnd on `grid`, counting a flow only from its
    first sample to its last (its completion): a finished flow's last window is no window."""
    total = np.zeros_like(grid)
    for t, w in curves:
        if not len(t):
            continue
        t, w = np.asarray(t), np.asarray(w, dtype=float)
        idx = np.searchsorted(t, grid, side="right") - 1
        active = (idx >= 0) & (grid <= t[-1])
        total += np.where(active, w[np.clip(idx, 0, None)], 0.0)
    return total


def distance(a: dict[str, Any], b: dict[str, Any], points: int = 2000) -> float:
    """Normalised L1 distance of two total-cwnd curves up to the earlier completion (as the ns-3
    cross-check measures it)."""
    ends = [m["completion"] for m in (a, b) if m["completion"] is not None]
    horizon = min(ends) if ends else 10.0
    grid = np.linspace(0.0, horizon, points)
    ca, cb = total_cwnd(a["curves"], grid), total_cwnd(b["curves"], grid)
    scale = float(np.mean((ca + cb) / 2))
    return float(np.mean(np.abs(ca - cb)) / scale) if scale > 0 else 0.0


def run_case(case: LinuxCase, runs: int, progress: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    import tcpstart as ts

    load_before = os.getloadavg()
    kernel = [metrics(r) for r in ts.testbed(scenario(case), runs=runs)]
    load_after = os.getloadavg()
    return {"case": asdict(case), "kernel": kernel, **simulate(case, kernel), "load": [load_before[0], load_after[0]]}


def path_excess(case: LinuxCase, kernel: list[dict[str, Any]]) -> float:
    """How much longer the kernel's round trip was than tcpstart's on the nominal path, in seconds:
    the median over the kernel's runs of its handshake RTT less tcpstart's. The testbed's veth hops,
    routers and delay lines add most of a millisecond to every packet's round trip, and a path one
    packet longer moves where a drop-tail queue overflows (docs/validation-linux.md, S10)."""
    import tcpstart as ts

    samples = sorted(m["handshake_rtt"] for m in kernel if m.get("handshake_rtt"))
    if not samples:
        return 0.0
    probe = scenario(replace(case, size_mb=MSS / 1e6, flows=1))
    nominal = metrics(ts.run(probe))["handshake_rtt"]
    return max(0.0, samples[len(samples) // 2] - nominal)


def simulate(case: LinuxCase, kernel: list[dict[str, Any]]) -> dict[str, Any]:
    """tcpstart's side of a case: its Linux profile, and the RFC model with Linux's knob values,
    both on the path the kernel's runs measured."""
    excess = path_excess(case, kernel)
    return {"tcpstart": median_run(case, "linux", excess), "tcpstart_rfc": median_run(case, "rfc", excess),
            "rtt_excess": excess}


def median_run(case: LinuxCase, profile: str, rtt_excess: float = 0.0) -> dict[str, Any]:
    """tcpstart's run of the case; for BBR, whose first PROBE_BW phase the kernel draws at random,
    the run of median completion time over SEEDS seeds, with every seed's completion time in
    `seed_completions` (what the random draw alone spreads)."""
    import tcpstart as ts

    seeds = range(1, SEEDS + 1) if case.algorithm == "bbr" else [1]
    runs = sorted((metrics(ts.run(scenario(case, profile, s, rtt_excess))) for s in seeds),
                  key=lambda m: m["completion"] if m["completion"] is not None else float("inf"))
    return {**runs[len(runs) // 2], "seed_completions": [m["completion"] for m in runs]}


def resimulate(raw: dict[str, Any]) -> dict[str, Any]:
    """A case of an earlier cross-check with its tcpstart side run again (the kernel's runs kept):
    how a change to the model moves the comparison, without minutes of real time per case."""
    return {**raw, **simulate(LinuxCase(**raw["case"]), raw["kernel"])}


def disturbed(run: dict[str, Any]) -> bool:
    """Whether the testbed warned that the machine, not the path, timed this kernel run: its delay
    line fell behind or the host stole CPU time (tcpstart.kernel.disturbance)."""
    return bool((run.get("testbed") or {}).get("warning"))


def reference_runs(kernel: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The kernel runs tcpstart is held against: the undisturbed ones when there are at least two
    (a mean and a range need two), otherwise every run."""
    calm = [m for m in kernel if not disturbed(m)]
    return calm if len(calm) >= 2 else kernel


def compare(raw: dict[str, Any], side: str = "tcpstart", every_run: bool = False) -> dict[str, Any]:
    """The figures of one case: tcpstart (`side`: "tcpstart", its Linux profile, or "tcpstart_rfc")
    next to the kernel's mean and range, over its reference runs or, with `every_run`, over all."""
    k, s = raw["kernel"] if every_run else reference_runs(raw["kernel"]), raw[side]

    def values(key: str) -> list[float]:
        return [m[key] for m in k if m[key] is not None]

    def within(key: str) -> Optional[bool]:
        vs = values(key)
        if s[key] is None or not vs:
            return (s[key] is None) == (not vs)  # both never left slow start: agree
        lo, hi = min(vs), max(vs)
        return lo * (1 - WIDEN) - 0.5 <= s[key] <= hi * (1 + WIDEN) + 0.5

    ct = values("completion")
    kmean = mean(ct) if ct else None
    self_d = [distance(a, b) for a, b in itertools.combinations(k, 2)]
    sim_d = [distance(s, m) for m in k]
    out = {
        "completion_kernel": kmean,
        "completion_spread": (max(ct) - min(ct)) / kmean if ct else None,
        "completion_diff": (s["completion"] - kmean) / kmean if kmean and s["completion"] else None,
        "completion_range": (min(ct), max(ct)) if ct else None,
        "goodput_kernel": mean(values("goodput_bps")),
        "retx_range": (min(values("retransmissions")), max(values("retransmissions"))),
        "retx_within": within("retransmissions"),
        "exit_range": (min(values("ss_exit_cwnd")), max(values("ss_exit_cwnd"))) if values("ss_exit_cwnd") else None,
        "exit_time_range": (min(values("ss_exit_time")), max(values("ss_exit_time"))) if values("ss_exit_time") else None,
        "exit_within": within("ss_exit_cwnd"),
        "distance": mean(sim_d),
        "self_distance": mean(self_d) if self_d else 0.0,
        "timeouts_kernel": mean(values("timeouts")),
        "kernel_runs": len(k),
    }
    out["completion_ok"] = out["completion_diff"] is not None and abs(out["completion_diff"]) <= TOLERANCE
    # The distribution criterion: within the tolerance of the kernel's own range (fastest to
    # slowest run), as the other figures are held against the range widened. Where the kernel
    # spreads further than the tolerance (load slows runs down, flows interleave differently), a
    # miss of its mean there is the kernel's noise, not the model's.
    out["completion_in_range"] = (s["completion"] is not None and bool(ct)
                                  and min(ct) * (1 - TOLERANCE) <= s["completion"] <= max(ct) * (1 + TOLERANCE))
    out["distance_ok"] = out["distance"] <= DISTANCE_FACTOR * out["self_distance"]
    return out
