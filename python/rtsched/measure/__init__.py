"""Measurement and isolation: scheduling latency (seed 000, the cyclictest
method), OS overhead (seed 002 §2.5), background loads and CPU shielding.

One concern per module (CPU lists are ``rtsched.cpus``'): ``histogram`` (statistics from
1 us histograms), ``loads`` (background loads), ``latency`` (runs
rtsched-latency), ``cyclictest`` (runs and parses cyclictest), ``overhead``
(the calibrated-loop test), ``irqs`` (/proc/interrupts: device IRQs, the
local timer), ``kernel_facts`` (preemption model, nohz_full, isolcpus,
rcu_nocbs), ``shield`` (CPU shielding), ``report`` (tables and plots).
"""
