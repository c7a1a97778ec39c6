"""The calibration's OS-interference loss split by cause (rtsched.measure.interference_causes), on a
kernel schedule written by hand: each window's loss goes to the interrupts, other threads (real-time
and fair) and the measuring command's own threads the schedule shows in it, then to host steal;
what is left is unattributed."""

from rtsched.measure.interference_causes import causes_line, interference_causes, quiet_machine_note
from rtsched.trace.kernel_sched import parse_sched_text

LOOP, KWORKER, OTHER_RT, MEASURING = 500, 77, 600, 900
MS = 1_000_000


def _line(comm: str, pid: int, t_ns: int, event: str, rest: str) -> str:
    return f"{comm}-{pid} [001] d.... {t_ns // 10**9}.{t_ns % 10**9:09d}: {event}: {rest}"


def _switch(prev: tuple[str, int, int], nxt: tuple[str, int, int], t_ns: int) -> str:
    (pc, pp, pprio), (nc, np_, nprio) = prev, nxt
    return _line(pc, pp, t_ns, "sched_switch", f"prev_comm={pc} prev_pid={pp} prev_prio={pprio} prev_state=R ==> "
                 f"next_comm={nc} next_pid={np_} next_prio={nprio}")


LOOP_T = ("rtsched-overhea", LOOP, 9)
KWORKER_T = ("kworker/1:1", KWORKER, 120)
OTHER_T = ("other-rt", OTHER_RT, 4)
MEASURING_T = ("rtsched", MEASURING, 120)

# Window 0: 10 ms from t = 1 s, nothing else: the shortest, the base. Window 1: 10 ms + 1.5 ms from
# t = 2 s: an interrupt of 0.2 ms, a kworker run by the fair server 0.5 ms, another program's RT
# thread 0.3 ms, the measuring command 0.1 ms; 0.4 ms not in the schedule.
S1, S2 = 1 * 10**9, 2 * 10**9
TEXT = "\n".join([
    _line("rtsched-overhea", LOOP, S1 - MS, "sched_wakeup", f"comm=rtsched-overhea pid={LOOP} prio=9 target_cpu=001"),
    _line("rtsched-overhea", LOOP, S2 + 1 * MS, "irq_handler_entry", "irq=24 name=virtio0-input.0"),
    _line("rtsched-overhea", LOOP, S2 + 1 * MS + 200_000, "irq_handler_exit", "irq=24 ret=handled"),
    _switch(LOOP_T, KWORKER_T, S2 + 2 * MS),
    _switch(KWORKER_T, OTHER_T, S2 + 2 * MS + 500_000),
    _switch(OTHER_T, MEASURING_T, S2 + 2 * MS + 800_000),
    _switch(MEASURING_T, LOOP_T, S2 + 2 * MS + 900_000),
    _line("rtsched-overhea", LOOP, S2 + 20 * MS, "sched_wakeup", f"comm=kworker/1:1 pid={KWORKER} prio=120 target_cpu=001"),
])


def _causes(steal=()):
    return interference_causes([S1, S2], [10 * MS, 11_500_000], 1, LOOP, parse_sched_text(TEXT), list(steal),
                               {MEASURING})


def test_the_worst_window_is_split_by_cause_and_the_rest_is_unattributed():
    worst = _causes()["worst_window"]
    assert worst["lost_ns"] == 1_500_000
    assert worst["interrupts"] == {"irq virtio0-input.0": 200_000}
    assert worst["threads_fair"] == {"kworker/1:1": 500_000}
    assert worst["threads_rt"] == {"other-rt": 300_000}
    assert worst["measuring_ns"] == 100_000
    assert worst["steal_ns"] == 0 and worst["unattributed_ns"] == 400_000


def test_host_steal_takes_what_the_schedule_leaves_and_no_more():
    # 20 ms of steal over a 100 ms span around the window: 2.3 ms scaled to the 11.5 ms window,
    # capped at the 0.4 ms the schedule leaves unexplained
    steal = [(S2 - 50 * MS, {1: 0}), (S2 + 50 * MS, {1: 20 * MS})]
    worst = _causes(steal)["worst_window"]
    assert worst["steal_ns"] == 400_000 and worst["unattributed_ns"] == 0
    assert "host steal 0.400 ms" in causes_line(worst, "worst window")
    note = quiet_machine_note(worst)
    assert note is not None and note.startswith("1.000 ms of the worst window's 1.500 ms")


def test_all_windows_sum_and_without_a_schedule_only_steal_is_known():
    causes = _causes()
    assert causes["windows"] == 2 and causes["all_windows"]["lost_ns"] == 1_500_000
    bare = interference_causes([S1, S2], [10 * MS, 11_500_000], 1, LOOP, None, [], set())
    assert not bare["kernel_schedule"]
    assert bare["worst_window"]["interrupts"] == {} and bare["worst_window"]["unattributed_ns"] == 1_500_000
