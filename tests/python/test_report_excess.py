"""Jobs above their bound, explained from the kernel's schedule and host steal (issue 13 item 5).

The trace and the kernel's schedule are written by hand: task b (tid 101, on
CPU 1, bound 3 ms) has a job released at T0 that takes 12 ms.
"""

from __future__ import annotations

from rtsched.analysis import bounds_for
from rtsched.model import taskset_from_dict
from rtsched.model.placement import place
from rtsched.report import build_report
from rtsched.report.excess import BROKEN, DISTURBED, MOSTLY_DISTURBED, UNEXPLAINED
from rtsched.trace import read_trace
from rtsched.trace.kernel_sched import parse_sched_text

from test_report_from_trace import TASKSET
from test_run_offline import MS, T0, job, write_trace

US = 1000


def _stamp(ns: int) -> str:
    return f"{ns // 1_000_000_000}.{(ns % 1_000_000_000) // 1000:06d}"


def _kernel(*stretches: tuple[str, int, int, int]) -> str:
    """tracefs text for CPU 1: (comm, pid, prio, start offset from T0 in ns), in order, to 13 ms."""
    lines = ["# tracer: nop"]
    for (comm, pid, prio, at), nxt in zip(stretches, list(stretches[1:]) + [("end", 0, 120, 13 * MS)]):
        if not lines[1:]:
            lines.append(f"{comm}-{pid} [001] d..2. {_stamp(T0 + at)}: sched_wakeup: comm={comm} pid={pid} "
                         f"prio={prio} target_cpu=001")
        lines.append(f"{comm}-{pid} [001] d..2. {_stamp(T0 + nxt[3])}: sched_switch: prev_comm={comm} "
                     f"prev_pid={pid} prev_prio={prio} prev_state=R ==> next_comm={nxt[0]} next_pid={nxt[1]} "
                     f"next_prio={nxt[2]}")
    return "\n".join(lines) + "\n"


def _report(tmp_path, kernel_text=None, steal=(), b_cpu_time=None):
    a = job(0, 0, 1, 0, 2 * MS)
    b = job(0, 0, 1, 1, 12 * MS, cpu_time=b_cpu_time)
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 10 * MS, b)])
    taskset = taskset_from_dict(TASKSET)
    kernel = parse_sched_text(kernel_text) if kernel_text else None
    return build_report(read_trace(path), taskset, bounds_for(taskset), place(taskset, cpus_online=(0, 1)),
                        kernel=kernel, steal=steal)


def test_a_fair_task_run_ahead_of_the_job_disturbs_it(tmp_path):
    text = _kernel(("b", 101, 89, 0), ("stress-ng", 500, 120, 1 * MS), ("b", 101, 89, 10 * MS))
    (excess,) = _report(tmp_path, text).excess
    assert (excess.task, excess.job, excess.response_ns, excess.bound_ns) == ("b", 1, 12 * MS, 3 * MS)
    assert excess.cpus == (1,)
    assert excess.verdict == DISTURBED
    assert excess.others_fair == (("stress-ng", 500, 9 * MS),) and excess.others_rt == ()
    assert excess.set_ns == 3 * MS
    assert "SCHED_OTHER threads ran 9.000 ms" in excess.cause and "fair server" in excess.cause


def test_another_real_time_thread_that_covers_half_the_excess(tmp_path):
    text = _kernel(("b", 101, 89, 0), ("hog", 600, 9, 1 * MS), ("b", 101, 89, 6 * MS))
    (excess,) = _report(tmp_path, text).excess
    assert excess.verdict == MOSTLY_DISTURBED
    assert excess.others_rt == (("hog", 600, 5 * MS),)
    assert "real-time threads outside the set ran 5.000 ms (hog[600] 5.000 ms)" in excess.cause
    assert "the set's own threads ran 7.000 ms" in excess.cause


def test_the_set_alone_in_its_window_breaks_the_bound(tmp_path):
    text = _kernel(("b", 101, 89, 0), ("swapper/1", 0, 120, 12 * MS))
    (excess,) = _report(tmp_path, text).excess
    assert excess.verdict == BROKEN and excess.outside_ns == 0
    assert excess.set_ns == 12 * MS and excess.idle_ns == 0
    assert excess.set_threads == (("b", 12 * MS),)  # which of the set's threads: by the trace's TIDs
    assert "the set's own threads ran 12.000 ms of the window (b 12.000 ms)" in excess.cause
    assert excess.cause.startswith("nothing came from outside, of an excess of 9.000 ms")


def test_a_thread_on_its_cpu_longer_than_its_job_ran_was_stolen_from(tmp_path):
    """The schedule shows b running its whole 12 ms window, its job consumed 2.99 ms of CPU time:
    the guest kernel keeps the host's steal out of a thread's CPU time (paravirtual time
    accounting), and /proc/stat's 10 ms ticks saw none of it."""
    text = _kernel(("b", 101, 89, 0), ("swapper/1", 0, 120, 12 * MS))
    (excess,) = _report(tmp_path, text, b_cpu_time=2_990 * US).excess
    assert excess.held_not_run_ns == 12 * MS - 10 * US - 2_990 * US == excess.excess_ns  # from its start
    assert excess.steal_ns is None and excess.stolen_ns == excess.held_not_run_ns
    assert excess.verdict == DISTURBED and "while the job's thread held its CPU" in excess.cause
    (ran_all,) = _report(tmp_path, text).excess  # CPU time = start to completion: nothing held back
    assert ran_all.held_not_run_ns == 0 and ran_all.verdict == BROKEN


def test_without_a_kernel_schedule_steal_may_still_explain(tmp_path):
    (unexplained,) = _report(tmp_path).excess
    assert unexplained.verdict == UNEXPLAINED and "no kernel schedule" in unexplained.cause
    steal = ((T0 - 1 * MS, {0: 0, 1: 0}), (T0 + 20 * MS, {0: 0, 1: 9_500 * US}))
    (stolen,) = _report(tmp_path, steal=steal).excess
    assert stolen.steal_ns == 9_500 * US and stolen.verdict == DISTURBED
    assert "the host took 9.500 ms (steal)" in stolen.cause


def test_the_summary_lists_them(tmp_path):
    summary = _report(tmp_path).summary()
    (entry,) = summary["jobs_above_bound"]
    assert (entry["task"], entry["job"], entry["excess_ns"], entry["verdict"]) == ("b", 1, 9 * MS, UNEXPLAINED)


def _late_start_report(tmp_path, taskset_dict, release_latency_in_bounds_ns=0):
    """b's job released at T0 starts 9 ms later, its CPU idle meanwhile, and runs 3 ms."""
    a = job(0, 0, 1, 0, 2 * MS)
    b = job(0, 0, 1, 1, 12 * MS, start_delay=9 * MS)
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 10 * MS, b)])
    taskset = taskset_from_dict(taskset_dict)
    kernel = parse_sched_text(_kernel(("swapper/1", 0, 120, 0), ("b", 101, 89, 9 * MS)))
    return build_report(read_trace(path), taskset, bounds_for(taskset), place(taskset, cpus_online=(0, 1)),
                        kernel=kernel, release_latency_in_bounds_ns=release_latency_in_bounds_ns)


def test_an_idle_cpu_before_the_start_is_a_late_wake_up(tmp_path):
    """Nothing else ran, but the job could not start: only the platform delays a start here."""
    (excess,) = _late_start_report(tmp_path, TASKSET).excess
    assert excess.late_start_ns == 9 * MS and excess.idle_ns == 9 * MS
    assert excess.verdict == DISTURBED and excess.outside_ns == 9 * MS
    assert "its CPU was idle 9.000 ms between the job's release and its start (beyond any release latency the " \
           "bound counts): the wake-up's latency" in excess.cause


def test_an_idle_cpu_before_the_start_is_not_put_down_to_the_platform_where_the_model_waits(tmp_path):
    """With a job-start gate (IPCP's deferred form) the model itself may hold a job back before its
    start, so the same window is a broken bound, not a late wake-up."""
    gated = {**TASKSET, "resources": [{"name": "r", "protocol": "ipcp"}]}
    (excess,) = _late_start_report(tmp_path, gated).excess
    assert excess.late_start_ns is None
    assert excess.verdict == BROKEN and excess.outside_ns == 0


def test_the_release_latency_a_bound_counts_is_not_blamed_twice(tmp_path):
    """With an overhead profile's 4 ms release latency in the bound, 5 of the 9 idle ms remain."""
    (excess,) = _late_start_report(tmp_path, TASKSET, release_latency_in_bounds_ns=4 * MS).excess
    assert excess.late_start_ns == 5 * MS
    assert excess.verdict == MOSTLY_DISTURBED
