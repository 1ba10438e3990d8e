"""Python controllers in a campaign on Ray: the workers know nothing of the driver's
registrations nor of this test module, so the classes travel with the tasks, and the results
are the local backend's bit for bit."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

import tcpstart as ts


class HalvingFixed(ts.Controller):
    """A fixed window of `segments`, halved on loss; its receiver echoes every segment's mark."""

    name = "py-ray-fixed"
    segments = ts.Param(12, min=1, max=1000, integer=True, doc="window in segments")

    class Echo(ts.Receiver):
        def on_segment(self, seg: Any) -> Optional[int]:
            return seg.mark

    receiver = Echo

    def __init__(self, params: dict[str, Any], mss: int, initial_cwnd: int, initial_ssthresh: int) -> None:
        super().__init__(params, mss, initial_cwnd, initial_ssthresh)
        self.cwnd = self.segments * mss
        self.phase = "fixed"

    def segment_mark(self, seq: int) -> int:
        return 1 + (seq // self.mss) % 3

    def on_ack(self, ev: Any) -> None:
        # The echo must be a mark the sender set: proves the receiver ran in the worker too.
        if ev.receiver_echo is not None and ev.receiver_echo not in (1, 2, 3):
            raise ValueError(f"echo {ev.receiver_echo}")

    def on_congestion(self, ev: Any) -> None:
        self.cwnd = max(self.mss, self.cwnd // 2)

    def on_rto(self, ev: Any) -> None:
        self.cwnd = self.mss


ts.register(HalvingFixed)


def test_a_python_controller_runs_in_a_ray_sweep_as_it_does_locally(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'tcpstart[ray]')")
    base = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", loss=0.01), flows=[ts.Flow("py-ray-fixed", size="150KB")])
    axes = {"network.rtt": ["20ms", "60ms"], "flows[0].params.segments": [4, 16]}
    remote = ts.Sweep(base, axes, replications=2, out=tmp_path / "ray")
    local = ts.Sweep(base, axes, replications=2, out=tmp_path / "local")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    try:
        assert remote.run(backend="ray").simulated == 8
    finally:
        ray.shutdown()
    assert local.run().simulated == 8
    got, expected = remote.results().drop("date"), local.results().drop("date")
    assert got["algorithm"].unique().to_list() == ["py-ray-fixed"]
    assert got.equals(expected)
    # The window parameter mattered: the runs are not all alike.
    assert got["completion_time"].n_unique() > 2
