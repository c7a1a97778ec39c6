"""TLB locking (Ishikawa, Kato, Honda, Takada, OSPERT 2013; seed 000), in a trace-driven model.

A user-space program on Linux cannot lock TLB entries, so rtsched studies the
paper's three policies — no locking, static locking at initialisation, dynamic
locking at job activation (method 1 and method 2) — on a model of a TLB fed
with memory-access traces of real programs (valgrind's lackey) or with the
paper's own published parameters. See docs/tlb.md.

- ``tlb``: the TLB (entries, ways, replacement rule, locked entries);
- ``replacement``: the replacement rules of one set (SH-4's replace counter,
  LRU, FIFO, seeded random);
- ``pages``: run-length page traces; ``lackey``: the streaming lackey parser
  and the valgrind runner;
- ``costs``: the miss handler and the locking methods' cost lines;
- ``schedule``: the paper's micro-benchmark flow (a chain of real-time jobs
  each period, the non-real-time task in between) under one policy;
- ``metric``: the paper's metric E_H / (E_T − E_H);
- ``paper``: the study from the paper's published parameters;
- ``study``: the study table for any pair of traces, with locked WCETs fed
  into the fixed-priority response-time analysis.
"""
