/* SPDX-License-Identifier: MIT */
#include "loop.h"

__attribute__((noinline)) uint64_t ovh_loop(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x)); /* one dependent multiply-add per step, kept */
	}
	return x;
}
