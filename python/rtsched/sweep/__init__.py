"""Schedulability experiments: ``rtsched sweep`` (docs/sweep.md).

An experiment file (:mod:`.experiment`) names a generator, a grid and tests
of the analysis registry; every set is a pure function of (seed, point,
sample) (:mod:`.sets`); a chunk of sets becomes tidy rows (:mod:`.rows`),
written as Parquet parts of a results folder (:mod:`.store`), by local
processes or a Dask cluster (:mod:`.execute`); :mod:`.curves` turns the rows
into schedulability curves with confidence intervals.
"""

from rtsched.sweep.execute import DEFAULT_CHUNK_SETS, SweepSummary, run_sweep
from rtsched.sweep.experiment import PARAMS, Experiment, ExperimentError, load_experiment, loads_experiment
from rtsched.sweep.rows import AnalysisFailed
from rtsched.sweep.sets import GenerationError, regenerate, set_seed
from rtsched.sweep.store import ResultsDir, SweepError, read_results

__all__ = ["AnalysisFailed", "DEFAULT_CHUNK_SETS", "PARAMS", "Experiment", "ExperimentError", "GenerationError", "ResultsDir", "SweepError",
           "SweepSummary", "load_experiment", "loads_experiment", "read_results", "regenerate", "run_sweep",
           "set_seed"]
