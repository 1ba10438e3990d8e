"""Campaigns: axes and designs, paired seeds, the store that resumes, tidy tables and intervals."""

from __future__ import annotations

import math
import pickle
import random
import threading
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import tcpstart as ts
from tcpstart import _core
from tcpstart.scenario import ScenarioError
from tcpstart.sweep import ReplicationWarning, aggregate, campaign
from tcpstart.scenario import to_json
from tcpstart.sweep.cache import Index, Store, resolve, run_key, seeded_keys
from tcpstart.sweep.spec import Range, cells, parse_axes, replication_seed, set_path


pytestmark = pytest.mark.filterwarnings("ignore::tcpstart.sweep.ReplicationWarning")


def small(**network: Any) -> ts.Scenario:
    return ts.Scenario(network=ts.Dumbbell(rate="10Mbps", rtt="20ms", **network), flows=[ts.Flow(size="30KB")])


@pytest.fixture
def simulated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many scenarios reach the core, call by call (counted on top of conftest's check)."""
    calls: list[int] = []
    real = _core.run_all

    def counting(scenarios: list[Any]) -> Any:
        calls.append(len(scenarios))
        return real(scenarios)

    monkeypatch.setattr(_core, "run_all", counting)
    return calls


# --- axes and designs ------------------------------------------------------------------------


def test_paths_set_fields_in_lists_and_make_missing_tables() -> None:
    d = {"flows": [{"size": "1MB"}, {"size": "2MB"}]}
    set_path(d, "flows[*].algorithm", "cubic")
    set_path(d, "flows[1].params.beta", 0.5)
    set_path(d, "network.rtt", "30ms")
    assert d == {
        "flows": [{"size": "1MB", "algorithm": "cubic"}, {"size": "2MB", "algorithm": "cubic", "params": {"beta": 0.5}}],
        "network": {"rtt": "30ms"},
    }
    with pytest.raises(ScenarioError, match=r"^axes: flows\[3\]\.size: the base scenario has 2 entries in flows$"):
        set_path(d, "flows[3].size", "1MB")


def test_ranges_linear_and_log_keep_their_unit() -> None:
    assert Range("10ms", "30ms", 3).values() == ["10ms", "20ms", "30ms"]
    # sqrt(20 * 600) = 109.5445..., six significant digits.
    assert Range("20ms", "600ms", 3, scale="log").values() == ["20ms", "109.545ms", "600ms"]
    assert Range(1, 4, 4).values() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="same unit"):
        Range("1ms", "1s", 3)


def test_grid_varies_the_last_axis_fastest_and_zips_tuples() -> None:
    axes = parse_axes({"network.rtt": ["10ms", "20ms"], ("network.rate", "network.queue"): [("1Mbps", 10), ("2Mbps", 20)]})
    assert cells(axes) == [
        {"network.rtt": "10ms", "network.rate": "1Mbps", "network.queue": 10},
        {"network.rtt": "10ms", "network.rate": "2Mbps", "network.queue": 20},
        {"network.rtt": "20ms", "network.rate": "1Mbps", "network.queue": 10},
        {"network.rtt": "20ms", "network.rate": "2Mbps", "network.queue": 20},
    ]
    with pytest.raises(ScenarioError, match="needs 2 parts"):
        parse_axes({"network.rate,network.queue": [["1Mbps"]]})


def test_latin_hypercube_uses_every_stratum_of_every_axis_once() -> None:
    axes = parse_axes({"flows[0].params.beta": Range(0.0, 1.0), "flows[0].algorithm": ["a", "b", "c", "d", "e"]})
    design = cells(axes, "lhs", samples=5, seed=7)
    betas = sorted(c["flows[0].params.beta"] for c in design)
    assert [math.floor(b * 5) for b in betas] == [0, 1, 2, 3, 4]
    assert sorted(c["flows[0].algorithm"] for c in design) == ["a", "b", "c", "d", "e"]
    assert cells(axes, "lhs", samples=5, seed=7) == design
    assert cells(axes, "lhs", samples=5, seed=8) != design


def test_random_design_draws_within_the_range_on_its_scale() -> None:
    axes = parse_axes({"network.rtt": Range("10ms", "1000ms", scale="log")})
    values = [float(c["network.rtt"][:-2]) for c in cells(axes, "random", samples=200, seed=1)]
    assert all(10 <= v <= 1000 for v in values)
    # Log-uniform: about half below the geometric middle, 100 ms (a linear draw: about 9 %).
    assert 70 < sum(v < 100 for v in values) < 130
    with pytest.raises(ScenarioError, match="^samples: a random design needs samples"):
        cells(axes, "random")


def test_replications_are_paired_across_algorithms_not_across_paths() -> None:
    paired = ["flows[0].algorithm"]
    cubic = {"network.rtt": "20ms", "flows[0].algorithm": "cubic"}
    reno = {"network.rtt": "20ms", "flows[0].algorithm": "newreno"}
    longer = {"network.rtt": "40ms", "flows[0].algorithm": "cubic"}
    for r in range(3):
        assert replication_seed(1, r, cubic, paired) == replication_seed(1, r, reno, paired)
        assert replication_seed(1, r, cubic, paired) != replication_seed(1, r, longer, paired)
    assert len({replication_seed(1, r, cubic, paired) for r in range(3)}) == 3
    assert replication_seed(1, 0, cubic, paired) != replication_seed(2, 0, cubic, paired)


def test_a_sweep_pairs_algorithm_axes_by_default(tmp_path: Path) -> None:
    sweep = ts.Sweep(
        small(),
        {"network.rtt": ["20ms", "40ms"], "flows[0].algorithm": ["cubic", "newreno"]},
        replications=2,
        out=tmp_path,
    )
    sweep.run()
    seeds = sweep.results().group_by("network.rtt", "replication").agg(pl.col("seed").n_unique().alias("seeds"))
    assert seeds["seeds"].to_list() == [1, 1, 1, 1]
    assert sweep.results()["seed"].n_unique() == 4


# --- the store -------------------------------------------------------------------------------


def test_rerun_simulates_only_what_the_store_lacks(tmp_path: Path, simulated: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(campaign, "BATCH", 4)
    axes = {"network.rtt": ["20ms", "40ms", "60ms"], "flows[0].algorithm": ["cubic", "newreno"]}
    sweep = ts.Sweep(small(), axes, replications=2, out=tmp_path)
    assert (sweep.run().simulated, sum(simulated)) == (12, 12)
    packs = sorted(sweep.store.packs.glob("*.parquet"))
    assert len(packs) == 3  # a file per batch

    table, tidy = sweep.results(), campaign.tidy
    monkeypatch.setattr(campaign, "tidy", None)  # building the table again would fail
    stats = sweep.run()
    assert (stats.simulated, stats.cached, sum(simulated)) == (0, 12, 12)
    assert sweep.results().equals(table)  # the same table, its date too: it was kept
    monkeypatch.setattr(campaign, "tidy", tidy)

    packs[1].unlink()
    assert sweep.run().simulated == 4 and sum(simulated) == 16

    # A changed axis: the two RTTs it keeps are reused, the new one is simulated.
    changed = ts.Sweep(small(), {**axes, "network.rtt": ["40ms", "60ms", "80ms"]}, replications=2, out=tmp_path)
    stats = changed.run()
    assert (stats.simulated, stats.cached) == (4, 8)

    assert changed.run(rerun=True).simulated == 12

    # A stray file among the packs is left out; every pack is still read.
    (changed.store.packs / "stray.parquet").write_text("not a pack")
    assert changed.run().cached == 12

    # A changed base scenario is a new set of runs, whatever the folder remembers.
    bigger = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", rtt="20ms"), flows=[ts.Flow(size="31KB")])
    assert ts.Sweep(bigger, axes, replications=2, out=tmp_path).run().simulated == 12
    assert not list(sweep.store.root.rglob(".*.tmp"))


def test_an_interrupted_campaign_keeps_every_finished_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(campaign, "BATCH", 2)
    real = _core.run_all
    batches: list[int] = []

    def interrupted(scenarios: list[Any]) -> Any:
        batches.append(len(scenarios))
        if len(batches) == 3:
            raise KeyboardInterrupt
        return real(scenarios)

    monkeypatch.setattr(_core, "run_all", interrupted)
    sweep = ts.Sweep(small(), {"network.rtt": ["10ms", "20ms", "30ms", "40ms", "50ms"]}, replications=2, out=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        sweep.run(workers=1)
    assert len(list(sweep.store.packs.glob("*.parquet"))) == 2
    assert len(sweep.store.index(reread=True)) == 4
    assert not list(tmp_path.glob(".parts-*"))  # the design's parts are cleaned up

    monkeypatch.setattr(_core, "run_all", real)
    stats = sweep.run()
    assert (stats.simulated, stats.cached) == (6, 4)


def test_the_index_finds_every_stored_run_across_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Index, "MERGE", 50)
    rng = random.Random(7)
    index, packs = Index(), {}
    for pack in range(40):  # 1,480 keys, merged into the sorted arrays 29 times
        keys = [f"{rng.getrandbits(256):064x}" for _ in range(37)]
        index.add(keys, pack)
        packs.update(dict.fromkeys(keys, pack))
    assert len(index) == len(packs)
    assert all(index.get(key) == pack for key, pack in packs.items())
    assert index.get(f"{rng.getrandbits(256):064x}") is None


def test_the_index_answers_for_many_keys_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Index, "MERGE", 50)
    rng = random.Random(8)
    index = Index()
    stored = [f"{rng.getrandbits(256):064x}" for _ in range(120)]
    index.add(stored[:100], 0)  # merged into the sorted arrays
    index.add(stored[100:], 1)  # still among the recent ones
    absent = [f"{rng.getrandbits(256):064x}" for _ in range(30)]
    asked = stored + absent
    rng.shuffle(asked)
    assert index.contains(asked).tolist() == [key in stored for key in asked]
    assert Index().contains(absent).tolist() == [False] * 30
    # Rebuilt from its parts (as the store saves it), merged and recent runs alike.
    again = Index(index.parts())
    assert again.contains(asked).tolist() == [key in stored for key in asked]
    assert [again.get(key) for key in stored] == [0] * 100 + [1] * 20


def test_the_store_keeps_its_index_and_reads_only_the_packs_it_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(campaign, "BATCH", 2)
    first = ts.Sweep(small(), {"network.rtt": ["10ms", "20ms", "30ms"]}, replications=2, out=tmp_path / "first", store=tmp_path / "store")
    first.run()
    saved = tmp_path / "store" / "index"
    before = saved.read_bytes()  # names the first campaign's 3 packs
    read: list[str] = []
    real = Store._keys_of

    def reading(self: Store, names: list[str]) -> Any:
        read.extend(names)
        return real(self, names)

    monkeypatch.setattr(Store, "_keys_of", reading)
    keys = first.results()["run"].to_list()
    assert Store(tmp_path / "store").contains(keys).all() and read == []

    # A pack that the saved index does not name (another campaign's, saved before it) is read.
    second = ts.Sweep(small(), {"network.rtt": ["40ms"]}, replications=2, out=tmp_path / "second", store=tmp_path / "store")
    second.run()
    saved.write_bytes(before)
    read.clear()
    everything = keys + second.results()["run"].to_list()
    assert Store(tmp_path / "store").contains(everything).all()
    packs = sorted((tmp_path / "store" / "packs").glob("*.parquet"))
    assert len(packs) == 4 and len(read) == 1 and read[0] in {p.name for p in packs}
    assert saved.read_bytes() != before  # brought up to date, and saved

    # A pack named in the saved index but deleted: its runs are gone, nothing is read.
    read.clear()
    gone = set(pl.read_parquet(packs[0], columns=["run"])["run"])
    packs[0].unlink()
    assert Store(tmp_path / "store").contains(everything).tolist() == [key not in gone for key in everything] and read == []

    # A saved index that is not one is left aside: every pack is read.
    saved.write_bytes(b"not an index")
    assert Store(tmp_path / "store").contains(everything).tolist() == [key not in gone for key in everything]
    assert len(read) == 3


def test_two_spellings_of_one_scenario_are_one_run(tmp_path: Path, simulated: list[int]) -> None:
    # Paired over the RTT, so that both cells get the same seed.
    sweep = ts.Sweep(small(), {"network.rtt": ["200ms", "0.2s"]}, paired=["network.rtt"], out=tmp_path)
    assert sweep.run().simulated == 1
    assert sweep.results()["run"].n_unique() == 1 and sweep.results().height == 2


def test_the_key_is_the_resolved_scenario_and_the_version() -> None:
    a = resolve(to_json({"network": {"rate": "10Mbps", "rtt": "200ms"}, "flows": [{"size": "1MB"}]}))
    b = resolve(to_json({"network": {"rtt": "0.2s", "rate": "10000Kbps"}, "flows": [{"size": 1000000, "params": {}}]}))
    c = resolve(to_json({"network": {"rate": "10Mbps", "rtt": "201ms"}, "flows": [{"size": "1MB"}]}))
    assert run_key(a) == run_key(b) != run_key(c)
    assert run_key(a, version="0.0.0-other") != run_key(a)


def test_a_campaign_keys_each_run_by_its_own_resolved_scenario(tmp_path: Path) -> None:
    # The campaign resolves a cell once and puts each replication's seed into that text; the
    # keys must be those of resolving every run's scenario on its own.
    sweep = ts.Sweep(small(loss=0.01), {"network.rtt": ["20ms", "30ms"]}, replications=3, out=tmp_path)
    sweep.run()
    plan = sweep.plan
    expected = [run_key(resolve(to_json(plan.scenario(cell, seed, 0)))) for _, _, seed, cell in plan.runs()]
    assert sweep.results()["run"].to_list() == expected and len(set(expected)) == 6
    unseeded = resolve(to_json({**plan.scenario({"network.rtt": "20ms"}, 0, 0)}))
    assert seeded_keys(unseeded)(12345) == run_key(resolve(to_json(plan.scenario({"network.rtt": "20ms"}, 12345, 0))))


def test_campaigns_writing_one_store_at_once_agree(tmp_path: Path) -> None:
    axes = {"network.rtt": [f"{r}ms" for r in range(10, 30)]}
    sweeps = [ts.Sweep(small(), axes, out=tmp_path / f"c{i}", store=tmp_path / "store") for i in range(2)]
    threads = [threading.Thread(target=s.run, kwargs={"workers": 1}) for s in sweeps]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store = tmp_path / "store" / "packs"
    assert not list(store.glob(".*"))  # no temporary file left
    runs = pl.concat([pl.read_parquet(p) for p in store.glob("*.parquet")])["run"]
    assert runs.n_unique() == 20 and set(runs) == set(sweeps[0].results()["run"])
    assert sweeps[0].results().drop("date").equals(sweeps[1].results().drop("date"))


def test_time_series_are_stored_on_request(tmp_path: Path) -> None:
    sweep = ts.Sweep(small(), {"network.rtt": ["20ms"]}, out=tmp_path)
    sweep.run()
    key = sweep.results()["run"][0]
    with pytest.raises(ValueError, match="no time series stored"):
        sweep.result(key)
    traced = ts.Sweep(small(), {"network.rtt": ["20ms"]}, out=tmp_path, keep_traces=True)
    assert traced.run().simulated == 1  # the summary alone does not do
    res = traced.result(key)
    assert res.flows.height > 0 and res.raw_summary == ts.run(res.scenario).raw_summary


# --- tables and statistics -------------------------------------------------------------------


def test_the_table_has_a_row_per_run_and_flow_with_axes_metrics_and_provenance(tmp_path: Path) -> None:
    base = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", rtt="20ms"), flows=[ts.Flow(size="30KB"), ts.Flow(size="60KB")])
    sweep = ts.Sweep(base, {"flows[*].algorithm": ["cubic", "reno"]}, replications=2, out=tmp_path)
    sweep.run()
    table = pl.read_parquet(tmp_path / "results" / "part-00000.parquet")
    assert table.equals(sweep.results())
    assert table.height == 2 * 2 * 2
    assert table.filter(pl.col("flows[*].algorithm") == "reno")["algorithm"].unique().to_list() == ["reno"]
    for column in ("run", "seed", "flow", "completion_time", "goodput_bps", "bottleneck_utilization", "tcpstart_version", "git_commit", "host", "date"):
        assert column in table.columns
    assert table["tcpstart_version"].unique().to_list() == [_core.__version__]
    assert sorted(table.filter(pl.col("replication") == 0)["size"].to_list()) == [30000, 30000, 60000, 60000]


def test_a_table_built_in_parts_is_the_table_built_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # At 600 ms the 30 KB do not finish within the second: that part's completion times are all
    # missing, which its own columns cannot tell from text; the table still has them as numbers.
    base = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", loss=0.02), flows=[ts.Flow(size="30KB")], duration="1s")
    axes = {"network.rtt": ["20ms", "40ms", "600ms"], "flows[0].algorithm": ["cubic", "newreno"]}
    whole = ts.Sweep(base, axes, replications=2, out=tmp_path / "whole")
    whole.run()
    monkeypatch.setattr(campaign, "BATCH", 4)
    monkeypatch.setattr(campaign, "CHUNK", 5)
    parts: list[tuple[list[int], int]] = []
    real = campaign.tidy

    def spy(design: pl.DataFrame, *rest: Any) -> pl.DataFrame:
        parts.append((design["cell"].unique(maintain_order=True).to_list(), design.height))
        return real(design, *rest)

    monkeypatch.setattr(campaign, "tidy", spy)
    split = ts.Sweep(base, axes, replications=2, out=tmp_path / "split")
    split.run()
    # Whole cells, and no more than CHUNK runs when the cells allow it.
    assert parts == [([0, 1], 4), ([2, 3], 4), ([4, 5], 4)]
    # A part file per part, never merged; read back as one table in the design's order.
    assert sorted(p.name for p in split.results_path().glob("part-*")) == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert sorted(p.name for p in whole.results_path().glob("part-*")) == ["part-00000.parquet"]
    table, reference = (s.results().drop("date") for s in (split, whole))
    assert table["cell"].to_list() == sorted(table["cell"].to_list())
    assert table.schema["completion_time"] == pl.Float64
    assert table.filter(pl.col("network.rtt") == "600ms")["completion_time"].null_count() == 4
    assert table.equals(reference)


def test_parts_with_other_columns_make_one_table(tmp_path: Path) -> None:
    # A metric null throughout a part, or absent from it, takes the type other parts give it.
    pl.DataFrame({"run": ["a"], "x": [None]}).write_parquet(tmp_path / "0.parquet")
    pl.DataFrame({"run": ["b"], "x": [1.5], "y": ["text"]}).write_parquet(tmp_path / "1.parquet")
    assert pl.read_parquet_schema(tmp_path / "0.parquet")["x"] == pl.Null
    parts = {tuple(pl.read_parquet_schema(p).items()): [p] for p in (tmp_path / "0.parquet", tmp_path / "1.parquet")}
    campaign._conform(parts)
    table = pl.read_parquet([tmp_path / "0.parquet", tmp_path / "1.parquet"])
    assert table.schema == pl.Schema({"run": pl.String, "x": pl.Float64, "y": pl.String})
    assert table.rows() == [("a", None, None), ("b", 1.5, "text")]


def test_intervals_use_student_t() -> None:
    # Hand-computed: values 1, 2, 3, 4: mean 2.5, std sqrt(5/3) = 1.290994; t(0.975, 3) = 3.182446
    # (statistical tables), half width 3.182446 * 1.290994 / 2 = 2.054260.
    table = pl.DataFrame({"cell": [0, 0, 0, 0, 1, 1, 2], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 7.0]})
    stats = aggregate(table, ["cell"], ["x"]).sort("cell")
    first = stats.row(0, named=True)
    assert first["n"] == 4 and first["mean"] == pytest.approx(2.5)
    assert first["std"] == pytest.approx(1.290994, abs=1e-6)
    assert first["ci_low"] == pytest.approx(2.5 - 2.054260, abs=1e-6)
    assert first["ci_high"] == pytest.approx(2.5 + 2.054260, abs=1e-6)
    assert not first["identical"]
    # Two equal values: a zero-wide interval, flagged; one value: no interval at all.
    assert stats["identical"].to_list() == [False, True, False]
    assert stats.row(2, named=True)["ci_low"] is None
    # 90 %: t(0.95, 3) = 2.353363.
    ninety = aggregate(table, ["cell"], ["x"], level=0.90).row(0, named=True)
    assert ninety["ci_high"] == pytest.approx(2.5 + 2.353363 * 1.290994 / 2, abs=1e-5)


def test_identical_replications_are_reported(tmp_path: Path) -> None:
    sweep = ts.Sweep(small(), {"network.rtt": ["20ms", "30ms"]}, replications=3, out=tmp_path / "a")
    with pytest.warns(ReplicationWarning, match="replications of 2 of 2 cells are identical"):
        stats = sweep.run()
    assert stats.identical_cells == 2
    assert sweep.summary("completion_time")["identical"].all()

    # Start jitter moves a lone flow in time without changing what it does.
    jittered = ts.Sweep(small(), {"network.rtt": ["20ms"]}, replications=3, start_jitter="5ms", out=tmp_path / "j")
    with pytest.warns(ReplicationWarning, match="replications of 1 of 1 cells are identical"):
        jittered.run()
    assert jittered.results()["start"].n_unique() == 3

    # The receivers' processing jitter changes what a lone flow does, replication by replication.
    acks = ts.Sweep(small(ack_jitter="300us"), {"network.rtt": ["20ms"]}, replications=3, out=tmp_path / "k")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicationWarning)
        assert acks.run().identical_cells == 0
    assert acks.results()["completion_time"].n_unique() == 3

    lossy = ts.Sweep(small(loss=0.05), {"network.rtt": ["20ms", "30ms"]}, replications=3, out=tmp_path / "b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicationWarning)
        assert lossy.run().identical_cells == 0
    assert not lossy.summary("completion_time")["identical"].any()


def test_start_jitter_is_drawn_from_the_replication_seed(tmp_path: Path) -> None:
    base = ts.Scenario(
        network=ts.Dumbbell(rate="10Mbps", rtt="20ms"),
        flows=[ts.Flow(size="200KB", start="1s"), ts.Flow(size="200KB", starts=["0s", "2s"])],
    )
    sweep = ts.Sweep(base, {"flows[*].algorithm": ["cubic", "newreno"]}, replications=3, start_jitter="50ms", out=tmp_path)
    sweep.run()
    table = sweep.results()
    jittered = table.filter(pl.col("flow") == 0)
    assert ((jittered["start"] >= 1.0) & (jittered["start"] < 1.05)).all()
    # Paired: the same replication has the same delays whatever the algorithm; replications differ.
    per_rep = jittered.group_by("replication").agg(pl.col("start").n_unique().alias("starts"), pl.col("start").first())
    assert per_rep["starts"].to_list() == [1, 1, 1] and per_rep["start"].n_unique() == 3
    # A flow with a `starts` list keeps its schedule.
    assert sorted(table.filter(pl.col("flow").is_in([1, 2]))["start"].unique().to_list()) == [0.0, 2.0]


# --- entry points ----------------------------------------------------------------------------


def test_a_result_pickles_with_its_tables() -> None:
    res = ts.run(small())
    copy = pickle.loads(pickle.dumps(res))
    assert copy.raw_summary == res.raw_summary
    assert copy.flows.equals(res.flows) and copy.queues.equals(res.queues)


SPEC = """
replications = 2
metrics = ["completion_time", "goodput_bps"]
base = "base.toml"

[axes]
"network.rtt" = { from = "20ms", to = "80ms", num = 3 }
"flows[0].algorithm" = ["cubic", "newreno"]
"""


def test_cli_runs_a_sweep_file_resumes_it_and_plots_it(cli, tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text('[network]\nrate = "10Mbps"\n\n[[flows]]\nsize = "30KB"\n')
    (tmp_path / "rtt.toml").write_text(SPEC)
    status, out, err = cli("sweep", tmp_path / "rtt.toml")
    assert status == 0, err
    assert "12 runs: 6 cells x 2 replications" in out and "12 simulated, 0 from the store" in out
    assert "goodput_bps" in out and "50ms" in out
    assert "identical" in err  # a deterministic path: said, not hidden
    status, out, _ = cli("sweep", tmp_path / "rtt.toml")
    assert "0 simulated, 12 from the store" in out
    status, out, err = cli("sweep", "plot", "tcpstart-out/sweep-rtt", "--metric", "completion_time")
    assert status == 0, err
    assert Path(out.strip()).name == "completion_time-vs-network.rtt.png" and Path(out.strip()).stat().st_size > 0

    status, out, err = cli("sweep", "report", "tcpstart-out/sweep-rtt", "--metric", "goodput_bps")
    assert status == 0, err
    assert Path(out.strip()).name == "report.html" and "<table>" in Path(out.strip()).read_text()
    report = Path("tcpstart-out/sweep-rtt/report.md").read_text()
    assert "## goodput_bps" in report and "![goodput_bps against network.rtt](goodput_bps-vs-network.rtt.png)" in report
    # Six cells (3 RTTs x 2 algorithms), each a table row; a deterministic path says so.
    rows = [line for line in report.splitlines() if line.startswith("| 50ms |")]
    assert len(rows) == 2 and all("replications identical" in r for r in rows)
    assert Path("tcpstart-out/sweep-rtt/goodput_bps-vs-network.rtt.png").stat().st_size > 0
    status, _, err = cli("sweep", "report", "tcpstart-out/sweep-rtt", "--metric", "nope")
    assert status == 2 and "--metric: 'nope' is not a column" in err


@pytest.mark.parametrize(
    "spec, message",
    [
        ('{base}\n[axes]\n"network.rtt" = ["-5ms"]\n', r"cell 0 \(network.rtt=-5ms\): network.rtt: "),
        ('{base}\n[axes]\n"network.rtt" = []\n', r"axes: network.rtt: give a non-empty list of values or a range"),
        ('{base}\nreplication = 3\n[axes]\n"network.rtt" = ["5ms"]\n', r"replication: not a sweep setting"),
        ('{base}\n[axes]\n"flows[2].size" = ["5KB"]\n', r"axes: flows\[2\].size: the base scenario has 1 entries"),
        ('{base}\ndesign = "lhs"\n[axes]\n"network.rtt" = ["5ms"]\n', r"samples: a lhs design needs samples"),
    ],
)
def test_cli_reports_a_bad_sweep_in_one_line(cli, tmp_path: Path, spec: str, message: str) -> None:
    base = 'base = { network = { rate = "10Mbps" }, flows = [{ size = "30KB" }] }'
    (tmp_path / "bad.toml").write_text(spec.format(base=base))
    status, out, err = cli("sweep", tmp_path / "bad.toml")
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tcpstart: error: ")
    assert __import__("re").search(message, err), err


def test_ray_gives_the_local_backend_s_results_bit_for_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'tcpstart[ray]')")
    monkeypatch.setattr(campaign, "BATCH", 4)  # several tasks, so several packs
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    try:
        lossy = ts.Scenario(network=ts.Dumbbell(rate="10Mbps", loss=0.01), flows=[ts.Flow(size="100KB")])
        axes = {"network.rtt": ["20ms", "40ms", "80ms"], "flows[0].algorithm": ["cubic", "newreno"]}
        remote = ts.Sweep(lossy, axes, replications=3, out=tmp_path / "ray")
        local = ts.Sweep(lossy, axes, replications=3, out=tmp_path / "local")
        assert remote.run(backend="ray").simulated == 18
        assert local.run().simulated == 18
    finally:
        ray.shutdown()
    stored = sorted(p.relative_to(tmp_path / "ray") for p in (tmp_path / "ray" / "runs").rglob("*.parquet"))
    assert len(stored) == 5 and sum(pl.read_parquet(tmp_path / "ray" / p).height for p in stored) == 18
    for p in stored:
        assert (tmp_path / "ray" / p).read_bytes() == (tmp_path / "local" / p).read_bytes()
    assert remote.results().drop("date").equals(local.results().drop("date"))
