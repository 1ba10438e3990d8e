"""A kernel run's measurements as a tcpstart Result: the files and columns of a simulated run.

- `flows`: one row per ACK from `tcp_probe` (each record holds the state left by the previous
  ACK, so its values are placed at that ACK's time; the first at the SYN), cwnd and ssthresh
  in bytes (segments x MSS), inflight = SND.NXT - SND.UNA, srtt; `rtt` (per-ACK samples) is not
  traced (NaN); pacing rate, retransmissions and the phase come from the sender's 1 ms TCP_INFO
  samples, as of each row.
- completion: the SYN to the ACK that acknowledged the last byte (the simulator's definition);
  slow-start exit: the first ACK after which ssthresh is finite (BBR: the first sample whose
  pacing gain is no longer STARTUP's), with the window before it.
- queues: the bottleneck's backlog sampled from the qdisc, without the packet the token
  bucket holds at its head (a simulated link has that one in transmission), and a sojourn
  estimate, backlog / rate.
"""

from __future__ import annotations

import bisect
import math
import platform
from typing import Any

import polars as pl

from tcpstart.results import TYPES, Result
from tcpstart.kernel import disturbance
from tcpstart.kernel.plan import ETHERNET_HEADER, Plan
from tcpstart.kernel.probe import ProbeRecord

INFINITE_SSTHRESH = 0x7FFFFFFF
# BBR's STARTUP pacing gain in BBR_UNIT (256): 2/ln(2), tcp_bbr.c bbr_high_gain.
BBR_HIGH_GAIN = 256 * 2885 // 1000 + 1
CA_RECOVERY = 3


def _mod32(x: int) -> int:
    return x % (1 << 32)


def _as_of(times: list[float], t: float) -> int:
    """Index of the last sample at or before t (-1 if none)."""
    return bisect.bisect_right(times, t) - 1


def _flow(plan: Plan, flow_id: int, records: list[ProbeRecord], sent: dict[str, Any], t0: float, netstat: dict,
          alone_on_host: bool, alone: bool, drops: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    f = plan.flows[flow_id]
    mss = plan.hosts[f.host].mss
    recs = [r for r in records if r.port == f.port]
    syn = sent["syn"]
    samples = sent["samples"]
    s_times = [s[0] for s in samples]
    if not recs:
        raise ValueError(f"flow {flow_id}: tcp_probe recorded nothing for port {f.port}")
    isn1 = recs[0].snd_una
    acked = [_mod32(r.snd_una - isn1) for r in recs]
    # Record i shows the state after ACK i-1: the completing ACK is the one before the first
    # record that shows every byte acknowledged, or the last one (a FIN carrying that ACK).
    j = next((i for i, a in enumerate(acked) if a >= f.size), None)
    done_at = recs[j - 1].t if j else recs[-1].t
    completed = (j is not None and j > 0) or sent["info"]["bytes_acked"] >= f.size + 1
    times = [syn] + [r.t for r in recs[:-1]]

    rows = []
    for t, r, a in zip(times, recs, acked):
        k = _as_of(s_times, t)
        s = samples[k] if k >= 0 else None
        gain = s[4] if s else None
        phase = _phase(r, s, f.kernel_algorithm, gain)
        rows.append(
            {
                "t": t - t0,
                "flow": flow_id,
                "cwnd": r.cwnd * mss,
                "ssthresh": None if r.ssthresh >= INFINITE_SSTHRESH else r.ssthresh * mss,
                "inflight": _mod32(r.snd_nxt - r.snd_una),
                "srtt": r.srtt_us / 1e6,
                "rtt": math.nan,
                "pacing_rate": float(s[2]) if s else math.nan,
                "delivered": a,
                "retransmissions": s[1] if s else 0,
                "phase": phase,
            }
        )
    rows.append({**rows[-1], "t": done_at - t0, "phase": "done"})

    exit_t = exit_cwnd = None
    if f.kernel_algorithm == "bbr":
        k = _bbr_exit(samples)
        if k is not None:
            exit_t = samples[k][0]
            i = max(0, bisect.bisect_right(times, exit_t) - 1)
            exit_cwnd = recs[i].cwnd * mss
    else:
        i = next((i for i, r in enumerate(recs) if r.ssthresh < INFINITE_SSTHRESH), None)
        if i is not None:
            exit_t, exit_cwnd = times[i], recs[i - 1].cwnd * mss if i > 0 else recs[0].cwnd * mss
    info = sent["info"]
    completion = done_at - syn if completed else None
    acked_bytes = min(info["bytes_acked"] - 1, f.size) if info["bytes_acked"] else acked[-1]
    active = completion if completion else sent["eof"] - syn
    bdp = plan.bdp_bytes
    max_cwnd = max(r.cwnd for r in recs) * mss
    reached = next((t for t, r in zip(times, recs) if r.cwnd * mss >= bdp), None)
    summary = {
        "id": flow_id,
        "algorithm": f.algorithm,
        "class": plan.resolved["flows"][flow_id]["class"],
        "direction": "forward",
        "host": f.host,
        "start": f.start,
        "started": True,
        "size": f.size,
        "completed": completed,
        "completion_time": completion,
        "goodput_bps": acked_bytes * 8 / active if active > 0 else 0.0,
        "bytes_acked": acked_bytes,
        "segments_sent": info["data_segs_out"],
        "retransmissions": info["total_retrans"],
        # Per-namespace counters: the flow's own when it is alone on its host.
        "fast_recoveries": netstat.get("TCPSackRecovery", 0) + netstat.get("TCPRenoRecovery", 0)
        if alone_on_host else None,
        "timeouts": info.get("total_rto"),
        # The qdisc counts drops, not whose: known per flow only for a flow alone.
        "drops": drops if alone else None,
        "data_drops": drops if alone else None,
        "drop_rate": drops / info["data_segs_out"] if alone and info["data_segs_out"] else None,
        "max_cwnd": max_cwnd,
        "ss_exit_time": exit_t - syn if exit_t is not None else None,
        "ss_exit_cwnd": exit_cwnd,
        "bdp_bytes": bdp,
        "time_to_bdp": reached - syn if reached is not None else None,
        "base_rtt": 2 * plan.delay_s + 4 * plan.access_delay_s[f.host],
        "tlp_probes": netstat.get("TCPLossProbes", 0) if alone_on_host else None,
    }
    return summary, rows


def _bbr_exit(samples: list) -> int | None:
    """The first sample past STARTUP: its gain left the high gain after having had it (right
    after the handshake the kernel can report another gain before BBR's first ACK)."""
    seen = False
    for i, s in enumerate(samples):
        if s[4] == BBR_HIGH_GAIN:
            seen = True
        elif seen and s[4] is not None:
            return i
    return None


def _phase(r: ProbeRecord, sample: tuple | None, algorithm: str, gain: int | None) -> str:
    if sample is not None and sample[5] >= CA_RECOVERY:
        return "recovery"
    if algorithm == "bbr":
        if gain is None or gain == BBR_HIGH_GAIN:
            return "startup"
        return "drain" if gain < 256 else "probe_bw"
    return "slow_start" if r.ssthresh >= INFINITE_SSTHRESH or r.cwnd < r.ssthresh else "congestion_avoidance"


def _queue_rows(plan: Plan, samples: list[list[float]], t0: float, link: str, rate: float) -> list[dict[str, Any]]:
    rows = []
    for t, qlen, backlog, _ in samples:
        if t < t0:
            continue  # sampled while the hosts were starting
        qlen, backlog = int(qlen), int(backlog)
        packets = max(0, qlen - 1)
        # The head packet's bytes go with it (an average packet's), and each frame's Ethernet header.
        head = backlog // qlen if qlen else 0
        wire = max(0, backlog - head - packets * ETHERNET_HEADER)
        rows.append({"t": t - t0, "link": link, "packets": packets, "bytes": wire, "sojourn": wire * 8 / rate})
    return rows


def _link(name: str, rate: float, totals: dict[str, int], rows: list[dict[str, Any]], span: float) -> dict[str, Any]:
    sent, drops = totals["packets"], totals["drops"]
    ip_bytes = totals["bytes"] - sent * ETHERNET_HEADER
    packets = [r["packets"] for r in rows] or [0]
    sojourn = sorted(r["sojourn"] for r in rows) or [0.0]

    def q(p: float) -> float:
        return sojourn[min(len(sojourn) - 1, int(p * len(sojourn)))]

    return {
        "name": name,
        "rate_bps": rate,
        "utilization": ip_bytes * 8 / (rate * span) if span > 0 else 0.0,
        "arrivals": sent + drops,
        "packets_sent": sent,
        "drops": drops,
        "overflow_drops": drops,
        "early_drops": 0,
        "forced_drops": 0,
        "random_losses": 0,
        "bit_errors": 0,
        "drop_rate": drops / (sent + drops) if sent + drops else 0.0,
        "max_queue_packets": max(packets),
        "max_queue_bytes": max((r["bytes"] for r in rows), default=0),
        "mean_queue_packets": sum(packets) / len(packets),
        "sojourn": {"mean": sum(sojourn) / len(sojourn), "p50": q(0.5), "p95": q(0.95), "p99": q(0.99),
                    "max": sojourn[-1]},
        "ack_compression": None,
    }


def _classes(flows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in dict.fromkeys(f["class"] for f in flows):
        mine = [f for f in flows if f["class"] == name]
        done = sorted(f["completion_time"] for f in mine if f["completion_time"] is not None)
        goodputs = [f["goodput_bps"] for f in mine]

        def q(p: float) -> float:
            # Linear interpolation, as the simulator's metrics do.
            x = p * (len(done) - 1)
            lo = int(x)
            return done[lo] + (done[min(lo + 1, len(done) - 1)] - done[lo]) * (x - lo)

        out[name] = {
            "flows": len(mine),
            "completed": len(done),
            "bytes_delivered": sum(f["bytes_acked"] for f in mine),
            "goodput_bps": sum(goodputs),
            "jain_index": _jain(goodputs),
            "drop_rate": None,
            "completion_time": {"count": len(done), "min": done[0], "max": done[-1], "mean": sum(done) / len(done),
                                **{f"p{p}": q(p / 100) for p in (10, 25, 50, 75, 90, 99)}} if done else None,
            "udp": {"sources": 0, "sent_packets": 0, "delivered_packets": 0, "lost_packets": 0},
        }
    return out


def _jain(xs: list[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 1.0


def build(plan: Plan, raw: dict[str, Any], scenario: dict[str, Any]) -> Result:
    t0 = raw["t0"]
    sent = {fl["id"]: fl for s in raw["senders"] for fl in s["flows"]}
    netstat = {}
    for s in raw["senders"]:
        for fl in s["flows"]:
            netstat[fl["id"]] = s["netstat"]
    per_host = {h: sum(1 for f in plan.flows if f.host == h) for h in range(len(plan.hosts))}
    summaries, rows = [], []
    drops = raw["totals"]["bottleneck"]["drops"]
    for f in plan.flows:
        s, r = _flow(plan, f.id, raw["records"], sent[f.id], t0, netstat[f.id], per_host[f.host] == 1,
                     len(plan.flows) == 1, drops)
        summaries.append(s)
        rows.extend(r)
    end = max((r["t"] for r in rows), default=0.0)
    queue_rows = _queue_rows(plan, raw["queues"]["fwd"], t0, "bottleneck", plan.rate_bps)
    rev_rows = _queue_rows(plan, raw["queues"]["rev"], t0, "bottleneck_rev", plan.reverse_rate_bps)
    summary = {
        "flows": summaries,
        "links": [
            _link("bottleneck", plan.rate_bps, raw["totals"]["bottleneck"], queue_rows, end),
            _link("bottleneck_rev", plan.reverse_rate_bps, raw["totals"]["bottleneck_rev"], rev_rows, end),
        ],
        "classes": _classes(summaries),
        "jain_index": _jain([s["goodput_bps"] for s in summaries]),
        "udp": [],
        "sim": {"end_time": end, "events": None, "seed": plan.resolved["seed"]},
        # Packet accounting is the simulator's self-check; the kernel's books are its own.
        "invariants": {"ok": True},
        "testbed": {
            "warning": disturbance.warning(raw["delay_line"], raw["cpu_steal"]),
            "kernel": platform.release(),
            "delay_line": raw["delay_line"],
            "load_average": list(raw["load"]),
            "cpu_steal": raw["cpu_steal"],
            "kernel_own": plan.kernel_own,
            "mtu": plan.mtu,
        },
    }
    flows = pl.DataFrame(rows, schema=TYPES["flows"]).sort("t", "flow", maintain_order=True)
    queues = pl.DataFrame(queue_rows + rev_rows, schema=TYPES["queues"]).sort("t", maintain_order=True)
    return Result(raw_summary=summary, flows=flows, queues=queues, pcaps=raw["pcaps"], scenario=scenario)
