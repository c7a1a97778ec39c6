"""LITMUS^RT programs on rtsched (-llitmus, docs/from-litmus.md).

``rtsched.litmus.jobstats``: their traces (RTSCHED_LITMUS_TRACE) as one job
table and an ``st-job-stats`` CSV.
"""
