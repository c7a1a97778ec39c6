"""I/O flows on a shared bus (seed 002, chapters 3 and 4): the COTS bus where
concurrent transfers slow each other, and the reservation controller that
serves each peripheral or virtual flow through a sporadic server. See docs/io.md.

    from rtsched.model.io_load import load_io_system
    from rtsched.sim.io import simulate_unscheduled, simulate_controller
    system = load_io_system("examples/io/table-3-1.yaml")
    simulate_unscheduled(system).outcome("ml555").worst_transfer_ns   # Fraction ns
    simulate_controller(system).misses                                # 0
"""

from rtsched.sim.io.controller import simulate_controller
from rtsched.sim.io.results import BusSegment, Chunk, FlowOutcome, IoRun
from rtsched.sim.io.unscheduled import simulate_unscheduled

__all__ = ["simulate_controller", "simulate_unscheduled", "IoRun", "Chunk", "BusSegment", "FlowOutcome"]
