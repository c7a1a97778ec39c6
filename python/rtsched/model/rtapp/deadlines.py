"""The relative deadline of an imported task without a timer: what a miss means for a loop rt-app paces by others.

rt-app gives a loop without a timer no deadline. What goes wrong with one, in rt-app, is seen in two ways:

- a **lost wake-up**: a ``resume``/``signal``/``broad`` that comes while the woken thread still runs its
  loop (rtsched's event task with ``activation_queue`` 0 loses the activation the same way);
- a loop that **loses its pace**: it takes longer than the file lets it.

So an imported deadline says one of these, and the job's own runs and sleeps (its ``period``, the least
time between its releases, which the analysis needs) is not it: a job that waited for another thread, or
was preempted, takes longer than its runs and sleeps without anything going wrong.

Event tasks (woken.py). The deadline is the least time between the task's activations that the file
implies: a job released by one activation that still runs at the next loses it, and no job can end
later than the next activation without that. Derived from the one task that activates it (the tasks
that never run left out: an event task no running task activates and that does not start by itself):

- a periodic activator (a timer): its period;
- a self-paced activator: its period (its loop's runs and sleeps, the least time between its jobs);
- an event activator A: A's jobs come no closer than A's own activations (derived the same way, so along
  a chain) nor than A's runs and sleeps (an activation while A runs is lost): the larger of the two;
- several activations in each of the activator's jobs: the least of the runs and sleeps between two of
  them and, from the last to the next job's first, the rest of the time between the activator's jobs;
- a ring of event tasks, each activating the next once per job (rt-app's tutorial ``example4.json``, two
  threads that resume each other): from a job's release to the next activation of its task, the wake-up
  goes once round the ring, each member releasing the next when it gets to its activation (the runs and
  sleeps before it): at least the sum of those. Sound while one wake-up goes round: at most one member
  runs at the start (``activated_at_start``), or a ring of two (each one's first activation of the other
  comes while the other runs or has not started, and is lost, unless the other has already finished its
  first job, which means that the other's activation came while this one ran: at most one goes on).

The gaps are nominal: an activator's activations come at the same place in each of its jobs, a job
running its runs and sleeps. An activator whose jobs end at different times can bring two activations
closer; the trace counts every activation kept and lost (summary.json ``activations``). That is why the
period stays the job's runs and sleeps, which always separate two releases: the analysis takes the
period as a least gap that always holds. Anything else falls back to the job's runs and sleeps, with a
warning that says why: several tasks activating it (their activations may come at any distance from one
another), none that runs, a ring of more than two with several members running at the start.

Self-paced tasks whose job waits (a ``barrier``, a ``sem_wait``, a ``suspend`` or ``wait`` inside the
loop). Such a loop is paced by the threads it waits for: its job ends when they let it. It has no
wake-up to lose (barriers and semaphores count; a wait inside the job is a condition wait), so its
deadline says when it lost its pace: one loop took longer than its own runs and sleeps plus one loop of
every thread it waits for, directly or through others (a timer thread's loop is its period; a
self-paced one's its runs and sleeps). That is the most the waits can take when every thread runs its
runs and sleeps and wakes it once per loop: at a barrier, the partners the loop waits for are at most one
loop of theirs away, whatever CPUs they share. The nominal pace (rt-app's tutorial ``example7.json``: 9 ms
for both threads, 8 + 7 = 15 ms the deadline) has no slack: a deadline that tight would count every
microsecond of overhead on the loop's critical path as a miss. A loop that waits for an event task falls
back to its runs and sleeps (warning): the event task's loops come only when it is woken, which the file
bounds by no loop of its.

SCHED_DEADLINE tasks keep deadline = period (their ``dl-*`` keys give the reservation, and SCHED_DEADLINE
needs deadline <= period); the derived deadlines are for FP and best-effort tasks, where rtsched takes
any deadline (docs/taskset.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.model.durations import format_duration, parse_duration
from rtsched.model.rtapp.events import Problems
from rtsched.model.rtapp.threads import ThreadTask

__all__ = ["set_deadlines"]

def _length_us(action: dict[str, Any]) -> int:
    """What an action surely takes: a run or sleep its length; a write, wait or activation nothing."""
    for key in ("sleep", "compute"):
        if key in action and isinstance(action[key], str):
            return parse_duration(action[key]) // 1000
    return 0


def _ms(us: int) -> str:
    return format_duration(us * 1000)


def _name(task: ThreadTask) -> str:
    return str(task.doc["name"])


def _spacing_us(places_us: list[int], jobs_us: int) -> int:
    """The least time between activations at ``places_us`` in each job of a task whose jobs come at least
    ``jobs_us`` apart: between two in one job, the runs and sleeps between them; from the last of a job to
    the first of the next, the rest of the gap between the jobs."""
    between = [b - a for a, b in zip(places_us, places_us[1:])]
    return min([*between, jobs_us - (places_us[-1] - places_us[0])])


def _times(places_us: list[int]) -> str:
    return "once" if len(places_us) == 1 else f"{len(places_us)} times"


@dataclass(frozen=True)
class _Gap:
    """The least time between an event task's activations (None: not in the file) and why. ``origin`` is
    about the task's activator, or with a ``chain``, about the first of the chain: event tasks each woken
    by the one before, the last of them the task's activator."""

    gap_us: int | None
    origin: str
    chain: tuple[tuple[ThreadTask, int], ...] = ()  # (event task, its activations of the next per job)

    def through(self, activator: ThreadTask, places_us: list[int]) -> _Gap:
        """The gap of a task woken at ``places_us`` in each job of event task ``activator``, whose own gap
        this is: its jobs come no closer than its activations, nor than its runs and sleeps (an
        activation while one runs is lost)."""
        gap_us = None if self.gap_us is None else _spacing_us(places_us, max(self.gap_us, activator.period_us))
        return _Gap(gap_us, self.origin, (*self.chain, (activator, len(places_us))))

    def explained(self) -> str:
        if not self.chain:
            return self.origin
        last, times = self.chain[-1]
        names = " -> ".join(f'"{_name(t)}"' for t, _ in self.chain)
        return (f'woken {"once" if times == 1 else f"{times} times"} per job of event task "{_name(last)}", '
                + (f"the last of {names}, each woken by the one before, " if len(self.chain) > 1 else "")
                + f'whose jobs come no closer than its wake-ups nor than its runs and sleeps; "{_name(self.chain[0][0])}" '
                f"is {self.origin}")


class _Pacing:
    """The set's activations and condition wake-ups, and the gaps derived from them (memoised)."""

    def __init__(self, tasks: list[ThreadTask]) -> None:
        self.tasks = tasks
        # event task name -> [(activating task, the activation's place in its job, µs)]
        self.activations: dict[str, list[tuple[ThreadTask, int]]] = {}
        for task in tasks:
            at_us = 0
            for action in task.doc["body"]:
                if "activate" in action:
                    self.activations.setdefault(action["activate"], []).append((task, at_us))
                at_us += _length_us(action)
        self.gaps: dict[str, _Gap] = {}
        # the tasks that ever run: all but the event tasks no running task activates (and that do not
        # start by themselves): a thread whose resume never comes (rt-app's browser files' Event-Browser)
        self.running = {_name(t) for t in tasks if t.doc.get("kind") != "event" or t.doc.get("activated_at_start")}
        grown = True
        while grown:
            grown = False
            for woken, sources in self.activations.items():
                if woken not in self.running and any(_name(a) in self.running for a, _ in sources):
                    self.running.add(woken)
                    grown = True

    # -- event tasks --------------------------------------------------------------------------------
    def _activator(self, task: ThreadTask) -> tuple[ThreadTask | None, list[int], str]:
        """The one task that activates ``task`` and the places of its activations in its job, or None and
        why there is no one."""
        sources = [(a, at) for a, at in self.activations.get(_name(task), []) if _name(a) in self.running]
        activators = list(dict.fromkeys(_name(a) for a, _ in sources))
        if not activators:
            return None, [], "no task that runs wakes it (only its first job, if any, runs)"
        if len(activators) > 1:
            return None, [], (f"woken by several tasks ({', '.join(activators)}), whose wake-ups may come at any "
                              "distance from one another")
        return sources[0][0], [at for _, at in sources], ""

    def _ring_gap(self, ring: tuple[ThreadTask, ...]) -> _Gap:
        """``ring[i]`` woken by ``ring[i + 1]``, the last by ``ring[0]``."""
        flow = " -> ".join(f'"{_name(t)}"' for t in (ring[0], *ring[:0:-1], ring[0]))
        places = [self.activations[_name(t)] for t in ring]
        if any(len(p) > 1 for p in places):
            return _Gap(None, f"woken in a ring ({flow}) in which a task wakes the next more than once per job")
        starters = [t for t in ring if t.doc.get("activated_at_start")]
        if len(starters) > 1 and len(ring) > 2:
            return _Gap(None, f"woken in a ring ({flow}) in which {len(starters)} run at the start: their wake-ups "
                        "may come at any distance from one another")
        gap_us = sum(at for (_, at), in places)
        if gap_us <= 0:
            return _Gap(None, f"woken in a ring ({flow}) whose wake-ups take no time to go round")
        return _Gap(gap_us, f"woken in a ring ({flow}): from a job's release its next wake-up goes once round, "
                    f"each task running its runs and sleeps before it wakes the next, {_ms(gap_us)}"
                    + (" (both run at the start; the first to wake the other finds it running or not yet "
                       "started, so at most one wake-up goes round)" if len(starters) > 1 else ""))

    def activation_gap(self, task: ThreadTask, visiting: tuple[ThreadTask, ...] = ()) -> _Gap:
        """The least time between the activations of event task ``task`` and how it follows from the
        file (module docstring). ``visiting``: the tasks whose gap waits for this one (each woken by the
        next, the last by ``task``)."""
        name = _name(task)
        if name in self.gaps:
            return self.gaps[name]
        activator, places, why = self._activator(task)
        if activator is None:
            result = _Gap(None, why)
        elif activator.doc.get("kind") in (None, "self-paced"):
            jobs = (f"released every {_ms(activator.period_us)} by its timer" if activator.doc.get("kind") is None
                    else f"a self-paced loop whose jobs come at least {_ms(activator.period_us)} apart (its runs "
                    "and sleeps)")
            gap_us = _spacing_us(places, activator.period_us)
            result = _Gap(gap_us if gap_us > 0 else None, f'woken {_times(places)} per job of "{_name(activator)}", '
                          f"{jobs}" + ("" if len(places) == 1 else f", at least {_ms(gap_us)} apart (the runs "
                                       "and sleeps between them)"))
        elif activator in visiting:
            ring = (*visiting[visiting.index(activator):], task)
            for member in ring:
                self.gaps[_name(member)] = self._ring_gap(ring)
            return self.gaps[name]
        else:
            up = self.activation_gap(activator, (*visiting, task))
            if name in self.gaps:  # a member of the ring found further on
                return self.gaps[name]
            result = up.through(activator, places)
            if result.gap_us is not None and result.gap_us <= 0:
                result = _Gap(None, f'woken {len(places)} times at once in each job of "{_name(activator)}"')
        self.gaps[name] = result
        return result

    # -- self-paced tasks that wait -----------------------------------------------------------------
    def waited_for(self, task: ThreadTask) -> tuple[list[ThreadTask] | None, str]:
        """The tasks ``task``'s job waits for, directly or through others, or None and why not."""
        group = [task]
        for member in group:  # grows as it goes
            conditions = dict.fromkeys(a["wait"] for a in member.doc["body"] if "wait" in a)
            for cond in conditions:
                wakers = [t for t in self.tasks if t is not member and any(
                    a.get("signal") == cond or a.get("broadcast") == cond for a in t.doc["body"])]
                if not wakers:
                    return None, f'"{_name(member)}" waits on "{cond}", which no other task signals'
                for waker in wakers:
                    if waker.doc.get("kind") == "event":
                        return None, (f'"{_name(member)}" waits for event task "{_name(waker)}", whose loops come '
                                      "only when it is woken: the file bounds that wait by no loop of its")
                    if waker not in group:
                        group.append(waker)
        return group[1:], ""


def set_deadlines(tasks: list[ThreadTask], problems: Problems) -> None:
    """Give each event task, and each self-paced task whose job waits, the deadline its failure in rt-app
    means (module docstring), with a warning that says what it is and why."""
    pacing = _Pacing(tasks)
    for task in tasks:
        kind = task.doc.get("kind")
        if task.policy == "deadline" or kind not in ("event", "self-paced"):
            continue
        path = f"tasks.{_name(task)}"
        own = _ms(task.period_us)
        if kind == "event":
            gap = pacing.activation_gap(task)
            gap_us, why = gap.gap_us, gap.explained()
            if gap_us is None:
                problems.warn(task.where, path, f"deadline {own}, its job's runs and sleeps: the least time between "
                              f"its wake-ups is not in the file ({why})")
                continue
            task.doc["deadline"] = _ms(gap_us)
            problems.warn(task.where, path, f"deadline {_ms(gap_us)}, the least time between its wake-ups: {why}; "
                          "a job still running at its next wake-up loses it, as in rt-app (a miss is that lost "
                          f"wake-up, or a job later than it); period {own} (its runs and sleeps) for the analysis")
            continue
        if not any("wait" in a for a in task.doc["body"]):
            continue
        group, why = pacing.waited_for(task)
        if group is None:
            problems.warn(task.where, path, f"deadline {own}, its loop's runs and sleeps: its job waits, and how "
                          f"long is not in the file ({why})")
            continue
        deadline_us = task.period_us + sum(t.period_us for t in group)
        terms = ", ".join(f"{_name(t)} {_ms(t.period_us)}" for t in group)
        task.doc["deadline"] = _ms(deadline_us)
        problems.warn(task.where, path, f"deadline {_ms(deadline_us)}: its job waits for {terms} (a loop of "
                      f"each, a timer thread's its period); with its own runs and sleeps {own}, the most its "
                      "waits take when every thread keeps its runs and sleeps, so a miss is a loop that lost its "
                      f"pace; period {own} (its runs and sleeps) for the analysis")
