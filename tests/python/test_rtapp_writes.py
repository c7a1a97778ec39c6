"""rt-app's mem and iorun: memwrite and iowrite with global mem_buffer_size and io_device, each event's WCET
from a ``wcet`` object beside it (rt-app ignores it), and every error with the key's position."""

from rtapp_helpers import TIMER, errors, fifo, imported, pos, text_of

from rtsched.model import Compute, IoWrite, MemWrite
from rtsched.model.rtapp import event_kind

MIB = 1 << 20


def test_wcet_is_not_an_rt_app_event_so_rt_app_ignores_it():
    assert event_kind("wcet") is None
    assert event_kind("mem0") == "mem" and event_kind("iorun_log") == "iorun"


def test_mem_and_iorun_with_rt_app_defaults():
    ts, _, warnings = imported({"tasks": {"t": fifo(run=100, mem=1000, iorun=5000, wcet={"mem": 20, "iorun": 400},
                                                     timer=TIMER)}})
    assert ts.tasks[0].body == (Compute(100_000), MemWrite(1000, 4 * MIB, 20_000),
                                IoWrite(5000, 4 * MIB, 400_000, "/dev/null"))
    assert ts.tasks[0].wcet_ns == 520_000
    assert warnings == []


def test_global_buffer_and_device_are_used():
    ts, doc, warnings = imported({"global": {"mem_buffer_size": 65536, "io_device": "/tmp/rt-app.io"},
                                  "tasks": {"t": fifo(mem0=10, iorun0=20, mem1=30, wcet={"mem0": 5, "mem1": 6,
                                                                                         "iorun0": 7},
                                                      timer=TIMER)}})
    assert ts.tasks[0].body == (MemWrite(10, 65536, 5_000), IoWrite(20, 65536, 7_000, "/tmp/rt-app.io"),
                                MemWrite(30, 65536, 6_000))
    assert doc["tasks"][0]["body"][1] == {"iowrite": {"bytes": 20, "device": "/tmp/rt-app.io", "buffer": 65536,
                                                      "wcet": "7us"}}
    assert warnings == []  # the two global keys are read now, not ignored


def test_numbered_keys_have_their_own_wcet_and_a_repeated_key_is_one_write():
    text = ('{"tasks": {"t": {"policy": "SCHED_FIFO", "mem0": 10, "run": 5, "mem1": 20, "mem": 7, "mem": 8,'
            ' "wcet": {"mem0": 3, "mem1": 4, "mem": 2}, "timer": {"ref": "x", "period": 1000}}}}')
    ts, _, _ = imported(text)
    assert ts.tasks[0].body == (MemWrite(10, 4 * MIB, 3_000), Compute(5_000), MemWrite(20, 4 * MIB, 4_000),
                                MemWrite(8, 4 * MIB, 2_000))  # as rt-app reads it: "mem" once, its last value


def test_a_write_without_its_wcet_says_what_to_add():
    text = text_of({"tasks": {"t": fifo(run=10, iorun0=100, timer=TIMER)}})
    assert errors(text) == [f'{pos(text, "iorun0")}: tasks.t.iorun0: rtsched needs the time this iorun may take '
                            '(its size does not say it): add "wcet": {"iorun0": MICROSECONDS} to the same thread '
                            "or phase (rt-app ignores that key)"]


def test_bad_wcet_tables_are_errors_at_their_keys():
    text = text_of({"tasks": {"t": fifo(run=10, mem=100, wcet={"mem": 0, "run": 5}, timer=TIMER)}})
    assert errors(text) == [
        f'{pos(text, "mem", 1)}: tasks.t.wcet.mem: expected microseconds > 0, got 0',
        f'{pos(text, "run", 1)}: tasks.t.wcet.run: no mem or iorun event "run" to give a WCET to (its events: mem)',
        f'{pos(text, "mem")}: tasks.t.mem: rtsched needs the time this mem may take (its size does not say it): '
        'add "wcet": {"mem": MICROSECONDS} to the same thread or phase (rt-app ignores that key)',
    ]
    text = text_of({"tasks": {"t": fifo(mem=100, wcet=[5], timer=TIMER)}})
    assert errors(text)[0] == (f'{pos(text, "wcet")}: tasks.t.wcet: expected an object '
                               '{"<mem or iorun key>": microseconds, ...}, got a list')


def test_bad_sizes_and_globals_are_errors_at_their_keys():
    text = text_of({"global": {"mem_buffer_size": 0, "io_device": "out.log"},
                    "tasks": {"t": fifo(mem=-1, wcet={"mem": 5}, timer=TIMER)}})
    assert errors(text) == [
        f"{pos(text, 'mem_buffer_size')}: global.mem_buffer_size: expected a buffer size of 1 to 268435456 bytes "
        "(rtsched's largest write buffer), got 0",
        f'{pos(text, "io_device")}: global.io_device: expected an absolute path (at most 511 bytes), got "out.log": '
        "rt-app opens a relative one from where it runs, which the file does not say",
        f"{pos(text, 'mem')}: tasks.t.mem: expected a number of bytes (0 to 1099511627776), got -1",
    ]


def test_zero_bytes_is_left_out_with_a_warning():
    text = text_of({"tasks": {"t": fifo(run=10, iorun=0, timer=TIMER)}})
    ts, _, warnings = imported(text)
    assert ts.tasks[0].body == (Compute(10_000),)
    assert warnings == [f"{pos(text, 'iorun')}: tasks.t.iorun: iorun of 0 bytes does nothing: left out"]


def test_a_thread_wcet_serves_its_phases_and_a_phase_wcet_comes_first():
    ts, _, _ = imported({"tasks": {"t": {
        "policy": "SCHED_FIFO", "loop": 1, "wcet": {"mem": 50, "iorun": 60},
        "phases": {"a": {"loop": 2, "mem": 100, "timer": {"ref": "x", "period": 1000}},
                   "b": {"iorun": 200, "wcet": {"iorun": 70}, "timer": {"ref": "x", "period": 1000}}}}}})
    assert [t.body for t in ts.tasks] == [(MemWrite(100, 4 * MIB, 50_000),), (IoWrite(200, 4 * MIB, 70_000),)]


def test_a_self_paced_loop_with_writes_is_exact_without_a_sleep_at_its_ends():
    """rt-app's tutorial example6.json: run, mem, sleep, iorun in a loop with no timer. The next loop starts
    at the last one's end in both, whatever the writes take: a self-paced task whose least gap is its runs
    and sleeps (the writes' length is not known, so not counted). A SCHED_OTHER thread needs no wcet."""
    text = text_of({"global": {"io_device": "/dev/null", "mem_buffer_size": MIB},
                    "tasks": {"thread0": {"instance": 1, "loop": -1, "run": 1000, "mem": 1000, "sleep": 5000,
                                          "iorun": 100000}}})
    ts, _, warnings = imported(text)
    (task,) = ts.tasks
    assert (task.kind, task.policy, task.period_ns, task.offset_ns) == ("self-paced", "other", 6_000_000, 0)
    assert [a.op for a in task.body] == ["compute", "memwrite", "sleep", "iowrite"]
    assert [w.wcet_ns for w in task.writes] == [1000, 1000]
    assert [w for w in warnings if "no WCET" in w] == [
        f"{pos(text, key)}: tasks.thread0.{key}: no WCET for this {key}: 1us given, as its thread is best-effort "
        "(SCHED_OTHER, SCHED_IDLE: neither analysed nor simulated; the run does the write for real); to analyse it "
        f'under a real-time policy, add "wcet": {{"{key}": MICROSECONDS}}' for key in ("mem", "iorun")]


def test_a_self_paced_loop_with_writes_and_a_sleep_at_an_end_is_refused_with_the_reason():
    text = text_of({"tasks": {"thread0": {"loop": -1, "policy": "SCHED_FIFO", "run": 1000, "mem": 1000,
                                          "sleep": 5000, "wcet": {"mem": 10}}}})
    assert errors(text) == [
        f'{pos(text, "mem")}: tasks.thread0.mem: no timer, and "mem" is part of a loop that starts or ends with a '
        "sleep: the loop's pace then depends on how long the write takes, which the file does not give (a wcet "
        "bounds it from above, while the least gap needs the fastest pace); give the loop a timer event "
        '{"ref": ..., "period": ...} as its last event, or no sleep at its ends']
    # with a timer instead, the same thread imports
    ts, _, _ = imported({"tasks": {"thread0": {"policy": "SCHED_FIFO", "run": 1000, "mem": 1000, "sleep": 5000,
                                               "iorun": 100000, "wcet": {"mem": 10, "iorun": 100},
                                               "timer": {"ref": "t", "period": 10000}}}})
    assert ts.tasks[0].period_ns == 10_000_000 and len(ts.tasks[0].writes) == 2
