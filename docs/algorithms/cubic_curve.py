"""Draws a CUBIC run's window after its first loss next to W(t) = C (t - K)^3 + W_max.

Usage: python docs/algorithms/cubic_curve.py RESULT_DIR OUT.png
(RESULT_DIR from `tcpstart run scenarios/cubic-window-curve.toml --out RESULT_DIR`.)
W_max is the window when slow start ended, t = 0 the first congestion-avoidance sample,
C = 0.4 and beta = 0.7 as in RFC 9438.
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

C, BETA = 0.4, 0.7

result, out = Path(sys.argv[1]), sys.argv[2]
summary = json.loads((result / "summary.json").read_text())
scenario = json.loads((result / "scenario.json").read_text())
# The scenario as written: a flow's own tcp table wins over the global one; 1460 is the default.
mss = scenario["flows"][0].get("tcp", {}).get("mss") or scenario.get("tcp", {}).get("mss", 1460)
w_max = summary["flows"][0]["ss_exit_cwnd"] / mss
flows = pl.read_parquet(result / "flows.parquet")
ca = flows.filter(pl.col("phase") == "congestion_avoidance")
t0 = ca["t"][0]
t = ca["t"].to_numpy() - t0
k = (w_max * (1 - BETA) / C) ** (1 / 3)
grid = np.linspace(0, t.max(), 400)

fig, ax = plt.subplots(figsize=(8, 4.5))
ax.plot(t, ca["cwnd"].to_numpy() / mss, label="simulated cwnd (cubic)", lw=2)
ax.plot(grid, C * (grid - k) ** 3 + w_max, "--", color="black", label="W(t) = C (t - K)^3 + W_max")
ax.axhline(w_max, color="grey", lw=0.8)
ax.axvline(k, color="grey", lw=0.8)
ax.annotate(f"W_max = {w_max:.0f}", (0.1, w_max), textcoords="offset points", xytext=(0, 4))
ax.annotate(f"K = {k:.2f} s", (k, ax.get_ylim()[0]), textcoords="offset points", xytext=(4, 6))
ax.set_xlabel("time since congestion avoidance began (s)")
ax.set_ylabel("cwnd (segments)")
ax.set_title("CUBIC after one loss: concave up to W_max, then convex")
ax.legend(loc="upper left")
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(out, dpi=120)
