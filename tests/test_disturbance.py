"""When the testbed says the machine, not the path, timed a kernel run (tcpstart.kernel.disturbance)."""

from __future__ import annotations

from tcpstart.kernel import disturbance

ON_TIME = {"mean_late_us": 80.0, "max_late_us": 900.0}


def test_steal_is_the_hosts_share_of_all_cpu_time_between_two_readings(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    monkeypatch.setattr(disturbance, "PROC_STAT", stat)
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text("cpu  100 0 50 800 10 0 5 35 7 0\ncpu0 50 0 25 400 5 0 2 18 0 0\n")
    before = disturbance.cpu_times()
    assert before == (35, 1000)  # guest time is within user: not counted twice
    stat.write_text("cpu  160 0 70 1040 10 0 5 65 7 0\n")
    assert disturbance.steal_share(before, disturbance.cpu_times()) == 30 / 350
    assert disturbance.steal_share(before, before) == 0.0


def test_a_run_on_time_and_not_robbed_gets_no_warning():
    assert disturbance.warning(ON_TIME, 0.02) is None


def test_each_disturbance_is_named_with_its_figure():
    late = disturbance.warning({"mean_late_us": 600.0, "max_late_us": 13_000.0}, 0.0)
    assert late == ("the delay line fell behind (mean lateness 0.6 ms, worst 13.0 ms): "
                    "the machine could not carry this path at full timing")
    robbed = disturbance.warning(ON_TIME, 0.031)
    assert robbed.startswith("the host took 3.1% of the CPU time (steal): ")
    both = disturbance.warning({"mean_late_us": 600.0, "max_late_us": 13_000.0}, 0.031)
    assert "fell behind" in both and " and the host took 3.1%" in both and "\n" not in both


def test_this_machines_counters_read():
    steal, total = disturbance.cpu_times()
    assert 0 <= steal <= total and total > 0
