/* A small real-time-like job for the TLB study (docs/tlb.md): a 32-tap integer FIR
 * filter over 1,024 samples, with constant input so every run touches the same
 * pages in the same order (as the paper's RT_TASK1 with its constant input).
 * Build it static, so the dynamic loader does not dominate the trace:
 *     cc -static -O2 -o fir_filter examples/tlb/fir_filter.c
 * The exit status depends on the result, so the compiler keeps the work. */
#include <stdint.h>

enum { SAMPLES = 1024, TAPS = 32 };

static int32_t input[SAMPLES], output[SAMPLES], taps[TAPS];

int main(void)
{
	for (int t = 0; t < TAPS; t++)
		taps[t] = (t * 37) % 19 - 9;
	for (uint32_t i = 0; i < SAMPLES; i++)
		input[i] = (int32_t)((i * 1103515245u + 12345u) >> 16 & 0xfff);
	int64_t checksum = 0;
	for (int i = TAPS; i < SAMPLES; i++) {
		int64_t acc = 0;
		for (int t = 0; t < TAPS; t++)
			acc += (int64_t)input[i - t] * taps[t];
		output[i] = (int32_t)(acc >> 8);
		checksum += output[i];
	}
	return checksum == 42;
}
