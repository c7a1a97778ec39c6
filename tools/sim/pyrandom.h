/* SPDX-License-Identifier: MIT */
/*
 * CPython's random.Random (the Mersenne Twister MT19937 and its integer
 * draws), so that the compiled loop draws the very numbers
 * rtsched.sim.draws.ExecutionTimes draws: seeding by init_by_array with the
 * 32-bit words of |seed| (least significant first; 0 is one word 0), and
 * randint(a, b) = a + _randbelow(b - a + 1), _randbelow(n) drawing
 * getrandbits(n.bit_length()) until below n (CPython 3.11, Lib/random.py and
 * Modules/_randommodule.c).
 */
#ifndef RTS_SIM_PYRANDOM_H
#define RTS_SIM_PYRANDOM_H

#include <stddef.h>
#include <stdint.h>

#define PY_RANDOM_N 624

struct py_random {
	uint32_t mt[PY_RANDOM_N];
	unsigned index; /* next word of mt; PY_RANDOM_N: the next draw regenerates the block */
};

/* random.Random(seed) with |seed| given as n_words (>= 1) 32-bit words, least significant first. */
void py_random_seed(struct py_random *r, const uint32_t *key_words, size_t n_words);

/* random.randint(low, high) for 0 <= low <= high with high - low < 2^63. */
uint64_t py_random_randint(struct py_random *r, uint64_t low, uint64_t high);

#endif
