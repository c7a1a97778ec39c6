"""Observed chain latencies (rtsched.report.chains, docs/chains.md) on a simulated set worked out by hand,
and their place in the pipeline's report and summary."""

from __future__ import annotations

from rtsched.model import taskset_from_dict
from rtsched.pipeline import ReportSettings, run_experiment
from rtsched.sim import SimOptions, SimProducer

MS = 1_000_000

SET = {
    "name": "chain-demo",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "tasks": [
        {"name": "sensor", "period": "10ms", "priority": 30, "partition": "cpu0",
         "body": [{"compute": "1ms"}, {"activate": "filter"}]},
        {"name": "filter", "kind": "event", "period": "8ms", "priority": 20, "partition": "cpu0",
         "body": [{"compute": "2ms"}]},
        {"name": "control", "period": "20ms", "priority": 25, "partition": "cpu1", "body": [{"compute": "3ms"}]},
        {"name": "logger", "period": "40ms", "priority": 10, "partition": "cpu0", "body": [{"compute": "4ms"}]},
    ],
    "chains": [{"name": "sense-log", "tasks": ["sensor", "filter", "logger"]},
               {"name": "sense-control", "tasks": ["sensor", "control", "logger"]}],
}


def test_observed_chains_match_the_schedule_worked_by_hand(tmp_path):
    # Every 40 ms: sensor [0, 1], filter [1, 3] (activated at 1), logger [3, 7]; control [0, 3] on CPU 1.
    # sense-log: a logger job reads the filter job of the same 40 ms (age 7); a cause just after the
    # sensor job at 40q starts, read by the job at 40q + 10, reaches the logger job at 40q + 40
    # (done at 40q + 47): reaction 47. sense-control: the logger reads the control job of its 40 ms
    # (done at 3, the logger starts at 3), which read the sensor job 10 ms before (age 17); the worst
    # reaction starts at the sensor job at 40q + 10 (control at 40q + 40, logger at 40q + 80): 57 ms.
    result = run_experiment(taskset_from_dict(SET), SimProducer(SimOptions(duration_ns=2_000 * MS)), tmp_path,
                            settings=ReportSettings(plots=False))
    log, control = result.report.chains
    assert (log.name, log.links, log.data_age_max_ns, log.data_age_mean_ns, log.reaction_max_ns) == (
        "sense-log", ("event", "register"), 7 * MS, 7 * MS, 47 * MS)
    assert (control.links, control.data_age_max_ns, control.reaction_max_ns) == (("register", "register"), 17 * MS,
                                                                                57 * MS)
    # 50 logger jobs in 2 s; the first one's control job (started at 0) read no sensor output yet.
    assert (log.ages, control.ages) == (50, 49)
    # The bounds beside them (docs/chains.md): reaction 10 + 1 + (0 + 40) + 7, data age 1 + (10 + 1) + 7;
    # sense-control crosses CPUs: Davare's sum 10 + 1 + 20 + 3 + 40 + 7.
    assert (log.bound.reaction_ns, log.bound.data_age_ns) == (58 * MS, 19 * MS)
    assert (control.bound.reaction_ns, control.bound.data_age_ns, control.bound.davare_ns) == (81 * MS, 41 * MS,
                                                                                            81 * MS)
    summary = {c["name"]: c for c in result.summary["chains"]}
    assert summary["sense-log"]["reaction_max_ns"] == 47 * MS and summary["sense-log"]["reaction_bound_ns"] == 58 * MS
    assert summary["sense-control"]["data_age_exceeded"] is False


def test_a_set_without_chains_reports_none(tmp_path):
    plain = {k: v for k, v in SET.items() if k != "chains"}
    result = run_experiment(taskset_from_dict(plain), SimProducer(SimOptions(duration_ns=100 * MS)), tmp_path,
                            settings=ReportSettings(plots=False))
    assert result.report.chains == () and result.summary["chains"] == []
