"""Jump Start (Liu, Allman, Jin, Wang, PFLDnet 2007), section III.

Setup of the paper (section III-A): ns-2 dumbbell, RTT 64 ms, 5 Mbps bottleneck, drop-tail queue of
60 packets, Slow Start with an initial window of 3 packets, SACK, 1500-byte packets (1460 bytes of
data), advertised window of 10,000 packets.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tcpstart.batch import run_many
from tcpstart.reproduce.report import Figure, Report, Value, judge
from tcpstart.scenario import Dumbbell, Flow, Scenario, Tcp

MSS = 1460
NETWORK = Dumbbell(rate="5Mbps", rtt="64ms", queue="60pkt")
TCP = Tcp(mss=MSS, initial_window=3, sack=True, rcv_buf=10_000 * MSS)

# Figure 1's transfer sizes are powers of two; footnote 4 says the next power of two after the
# largest one shown makes Slow Start win, so we run one size beyond the figure.
FIGURE1_SIZES = [1, 2, 4, 8, 16, 32, 64]
FOOTNOTE4_SIZE = 128


def _single_flow(algorithm: str, packets: int) -> Scenario:
    return Scenario(NETWORK, [Flow(algorithm, size=packets * MSS)], tcp=TCP, duration="60s")


def _figure1(report: Report) -> None:
    sizes = FIGURE1_SIZES + [FOOTNOTE4_SIZE]
    runs = [_single_flow(a, n) for n in sizes for a in ("newreno", "jump-start")]
    results = run_many(runs, progress="jump-start: single flows")
    rows = []
    for i, n in enumerate(sizes):
        ss, js = (r.raw_summary["flows"][0] for r in results[2 * i : 2 * i + 2])
        improvement = 100 * (ss["completion_time"] - js["completion_time"]) / ss["completion_time"]
        rows.append(
            {
                "packets": n,
                "slow_start_s": ss["completion_time"],
                "jump_start_s": js["completion_time"],
                "improvement_percent": improvement,
                "slow_start_drops": ss["drops"],
                "jump_start_drops": js["drops"],
            }
        )
    report.data["figure1"] = rows
    by_size = {r["packets"]: r for r in rows}

    one = by_size[1]["improvement_percent"]
    report.add(
        "Figure 1",
        "a 1-packet transfer takes the same time with both schemes",
        [Value("improvement, 1 packet", 0.0, one, "%")],
        judge(abs(one) < 1.0, False, f"Jump Start is {one:+.1f}% faster for one packet"),
    )
    two = by_size[2]["improvement_percent"]
    report.add(
        "Figure 1",
        "for 2 packets Slow Start is faster, because Jump Start paces the two packets",
        [Value("improvement, 2 packets", None, two, "%")],
        judge(two < 0, False, f"Jump Start is {two:+.1f}% faster for two packets"),
    )
    mid = [r for r in rows if 2 < r["packets"] <= FIGURE1_SIZES[-1]]
    values = [Value(f"improvement, {r['packets']} packets", None, r["improvement_percent"], "%") for r in mid]
    lo, hi = min(v.ours for v in values), max(v.ours for v in values)
    drops = sum(r["jump_start_drops"] + r["slow_start_drops"] for r in rows if r["packets"] <= FIGURE1_SIZES[-1])
    report.add(
        "Figure 1",
        "for transfers over 2 packets Jump Start improves the duration by 10-40+%, with no drops",
        values,
        judge(
            lo >= 10 and hi >= 40 and drops == 0,
            lo > 0 and drops == 0,
            f"improvements from {lo:.1f}% to {hi:.1f}%, {drops} drops in all these runs",
        ),
    )
    beyond = by_size[FOOTNOTE4_SIZE]
    report.add(
        "Footnote 4",
        "at the next power of two Slow Start outperforms Jump Start",
        [Value(f"improvement, {FOOTNOTE4_SIZE} packets", None, beyond["improvement_percent"], "%")],
        judge(
            beyond["improvement_percent"] < 0,
            False,
            f"Jump Start is {beyond['improvement_percent']:+.1f}% faster, with {beyond['jump_start_drops']} drops "
            f"(Slow Start: {beyond['slow_start_drops']})",
        ),
    )

    def draw(path: Path) -> None:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot([r["packets"] for r in rows], [r["improvement_percent"] for r in rows], "o-", label="tcpstart")
        ax.axhline(0, color="grey", lw=0.8)
        ax.axhspan(10, 40, color="tab:orange", alpha=0.15, label="paper: 10-40+% for > 2 packets")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("transfer size (packets)")
        ax.set_ylabel("improvement in duration (%)")
        ax.set_title("Jump Start vs Slow Start, one flow (Figure 1)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    report.figures.append(Figure("figure1.png", "Percent improvement of Jump Start over Slow Start vs transfer size", draw))


def reproduce(quick: bool) -> Report:
    report = Report(
        name="jump-start",
        title="Jump Start (PFLDnet 2007)",
        citation="D. Liu, M. Allman, S. Jin, L. Wang, \"Congestion Control Without a Startup Phase\", PFLDnet 2007",
        setup=(
            "One flow over a 5 Mbps / 64 ms dumbbell with a 60-packet drop-tail queue; MSS 1460 "
            "(1500-byte packets); initial window 3; SACK; receive window 10,000 packets. Slow Start is "
            "`newreno` with SACK recovery; Jump Start is `jump-start`. Durations run from the SYN to the "
            "ACK of the last byte."
        ),
        quick=quick,
    )
    _figure1(report)
    report.notes.append(
        "Figure 1's individual values are only drawn in the paper; the text gives the range (10-40+% "
        "for more than 2 packets), so the per-size rows compare with that range rather than with numbers."
    )
    return report
