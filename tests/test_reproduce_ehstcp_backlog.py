"""eHSTCP's backlog filter (`backlog_filter`, `tcpstart.reproduce.ehstcp_backlog`): the parameter
reaches the eHSTCP flows of Table 1's scenario only, and in Table 1's quick run filtering N' per
RTT keeps the flows out of the Reno increase that the per-ACK reading tips them into."""

from __future__ import annotations

from tcpstart.reproduce import ehstcp, ehstcp_backlog


def test_the_filter_is_set_on_the_ehstcp_flows_only() -> None:
    sc = ehstcp_backlog.table1_scenario(1, ehstcp.QUICK, 3.0, ehstcp_backlog.FILTERED)
    hs = [f for f in sc.flows if f.algorithm == "ehstcp"]
    assert len(hs) == 2 and all(f.params == {"backlog_filter": 1.0} for f in hs)
    assert all("backlog_filter" not in f.params for f in sc.flows if f.algorithm != "ehstcp")


def test_in_table1s_quick_run_the_per_rtt_reading_spends_less_time_in_reno_increase() -> None:
    # Table 1's network in quick mode (2.5 Gbps, 8 s, web and small-flow bursts): per ACK, single
    # samples of a short queue (0.2 ms is N* = 10 segments here) switch to Reno's increase while
    # the window is still small. (Over the full 60 s the filtered flows reach a larger window and
    # then sit in Reno's increase on a standing queue: the share is no longer smaller there.)
    filtered, raw = ehstcp_backlog.measure(ehstcp.QUICK)
    for seed, m in filtered.items():
        shares = m["phase_share"]
        assert abs(sum(shares.values()) - 1) < 1e-9 and abs(sum(raw[seed].values()) - 1) < 1e-9
        assert shares.get("reno_increase", 0) < raw[seed].get("reno_increase", 0), (shares, raw[seed])
        assert 0.5 < m["utilization"] <= 1.0 and m["loss_percent"] >= 0
