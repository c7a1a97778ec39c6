/* SPDX-License-Identifier: MIT */
/* CPython's Mersenne Twister and randint (pyrandom.h), word for word. */
#include "pyrandom.h"

#define MT_M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER_MASK 0x80000000u
#define LOWER_MASK 0x7fffffffu

static void init_genrand(struct py_random *r, uint32_t s)
{
	uint32_t *mt = r->mt;
	mt[0] = s;
	for (unsigned i = 1; i < PY_RANDOM_N; i++)
		mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
	r->index = PY_RANDOM_N;
}

void py_random_seed(struct py_random *r, const uint32_t *key_words, size_t n_words)
{
	uint32_t *mt = r->mt;
	init_genrand(r, 19650218u);
	size_t i = 1, j = 0;
	for (size_t k = PY_RANDOM_N > n_words ? PY_RANDOM_N : n_words; k; k--) {
		mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key_words[j] + (uint32_t)j;
		i++;
		j++;
		if (i >= PY_RANDOM_N) {
			mt[0] = mt[PY_RANDOM_N - 1];
			i = 1;
		}
		if (j >= n_words)
			j = 0;
	}
	for (size_t k = PY_RANDOM_N - 1; k; k--) {
		mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
		i++;
		if (i >= PY_RANDOM_N) {
			mt[0] = mt[PY_RANDOM_N - 1];
			i = 1;
		}
	}
	mt[0] = 0x80000000u;
}

static uint32_t genrand_uint32(struct py_random *r)
{
	static const uint32_t mag01[2] = {0u, MATRIX_A};
	uint32_t *mt = r->mt;
	uint32_t y;
	if (r->index >= PY_RANDOM_N) {
		unsigned kk;
		for (kk = 0; kk < PY_RANDOM_N - MT_M; kk++) {
			y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
			mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
		}
		for (; kk < PY_RANDOM_N - 1; kk++) {
			y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
			mt[kk] = mt[kk + MT_M - PY_RANDOM_N] ^ (y >> 1) ^ mag01[y & 1u];
		}
		y = (mt[PY_RANDOM_N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
		mt[PY_RANDOM_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
		r->index = 0;
	}
	y = mt[r->index++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

/* getrandbits(k), 1 <= k <= 64: 32-bit words from the least significant, the last one cut to
 * its top bits (CPython fills a long integer that way). */
static uint64_t getrandbits(struct py_random *r, unsigned k)
{
	if (k <= 32)
		return genrand_uint32(r) >> (32 - k);
	uint64_t low = genrand_uint32(r);
	uint64_t high = genrand_uint32(r) >> (64 - k);
	return low | high << 32;
}

static unsigned bit_length(uint64_t n)
{
	return n ? 64u - (unsigned)__builtin_clzll(n) : 0u;
}

uint64_t py_random_randint(struct py_random *r, uint64_t low, uint64_t high)
{
	uint64_t n = high - low + 1; /* >= 1 */
	unsigned k = bit_length(n);
	uint64_t x = getrandbits(r, k);
	while (x >= n)
		x = getrandbits(r, k);
	return low + x;
}
