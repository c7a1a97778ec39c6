/* SPDX-License-Identifier: MIT */
/* rtsched-latency view: the run as JSON (format "rtsched-latency/1", see docs/measurement.md). */
#include "views.h"

#include "jsonw.h"

#include <unistd.h>
#include "clock_ns.h"

void lat_view_json(FILE *out, const struct lat_run *run)
{
	const struct lat_options *o = run->opts;
	struct jw w;
	jw_init(&w, out);
	jw_object_begin(&w);
	jw_key(&w, "format");
	jw_string(&w, "rtsched-latency/1");
	jw_key(&w, "config");
	jw_object_begin(&w);
	jw_key(&w, "cpus");
	jw_array_begin(&w);
	for (int i = 0; i < run->nthreads; i++)
		jw_int(&w, run->threads[i].cpu);
	jw_array_end(&w);
	jw_key(&w, "interval_us");
	jw_uint(&w, o->interval_us);
	jw_key(&w, "distance_us");
	jw_uint(&w, o->distance_us);
	jw_key(&w, "policy");
	jw_string(&w, rts_policy_name(o->policy));
	jw_key(&w, "priority");
	if (o->policy == RTS_POLICY_FIFO)
		jw_int(&w, o->priority);
	else
		jw_null(&w);
	jw_key(&w, "duration_s");
	jw_double(&w, o->duration_s);
	jw_key(&w, "loops");
	jw_uint(&w, o->loops);
	jw_key(&w, "histogram_us");
	jw_uint(&w, o->histogram_us);
	jw_key(&w, "bucket_us");
	jw_uint(&w, 1);
	jw_key(&w, "timerslack_ns");
	if (o->timerslack_ns >= 0)
		jw_int(&w, o->timerslack_ns);
	else
		jw_null(&w);
	jw_key(&w, "clock");
	jw_string(&w, "CLOCK_MONOTONIC");
	jw_key(&w, "timer");
	jw_string(&w, "clock_nanosleep TIMER_ABSTIME");
	jw_object_end(&w);

	jw_key(&w, "mlockall");
	jw_bool(&w, run->mlocked);
	jw_key(&w, "dma_latency_us");
	if (run->dma_latency_held)
		jw_int(&w, o->dma_latency_us);
	else
		jw_null(&w);
	jw_key(&w, "pid");
	jw_int(&w, (int64_t)getpid());
	jw_key(&w, "start_monotonic_ns");
	jw_uint(&w, run->start_ns);
	jw_key(&w, "elapsed_ns");
	jw_uint(&w, run->elapsed_ns);

	jw_key(&w, "threads");
	jw_array_begin(&w);
	for (int i = 0; i < run->nthreads; i++) {
		const struct lat_thread *t = &run->threads[i];
		const struct lat_histogram *h = &t->hist;
		jw_object_begin(&w);
		jw_key(&w, "index");
		jw_int(&w, t->index);
		jw_key(&w, "cpu");
		jw_int(&w, t->cpu);
		jw_key(&w, "tid");
		jw_int(&w, t->tid);
		jw_key(&w, "interval_us");
		jw_uint(&w, t->interval_ns / 1000u);
		jw_key(&w, "pinned");
		jw_bool(&w, t->pinned);
		jw_key(&w, "cpuset");
		if (t->cpuset)
			jw_string(&w, t->cpuset);
		else
			jw_null(&w);
		jw_key(&w, "timerslack_ns");
		jw_int(&w, t->timerslack_ns);
		jw_key(&w, "samples");
		jw_uint(&w, h->samples);
		jw_key(&w, "overflows");
		jw_uint(&w, h->overflows);
		jw_key(&w, "overruns");
		jw_uint(&w, t->overruns);
		jw_key(&w, "min_ns");
		if (h->samples)
			jw_uint(&w, h->min_ns);
		else
			jw_null(&w);
		jw_key(&w, "max_ns");
		if (h->samples)
			jw_uint(&w, h->max_ns);
		else
			jw_null(&w);
		jw_key(&w, "avg_ns");
		if (h->samples)
			jw_double(&w, (double)h->sum_ns / (double)h->samples);
		else
			jw_null(&w);
		jw_key(&w, "sum_ns");
		jw_uint(&w, h->sum_ns);
		jw_key(&w, "error");
		if (t->error) {
			char msg[256];
			snprintf(msg, sizeof(msg), "%s: %s", t->error_what, strerror(t->error));
			jw_string(&w, msg);
		} else {
			jw_null(&w);
		}
		jw_key(&w, "histogram");
		jw_array_begin(&w);
		uint64_t used = lat_histogram_used(h);
		for (uint64_t b = 0; b < used; b++)
			jw_uint(&w, h->buckets[b]);
		jw_array_end(&w);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_object_end(&w);
	fputc('\n', out);
}

void lat_view_progress(const struct lat_run *run, void *arg)
{
	(void)arg;
	uint64_t samples = 0, max_ns = 0;
	for (int i = 0; i < run->nthreads; i++) {
		const struct lat_thread *t = &run->threads[i];
		samples += atomic_load_explicit(&t->progress_samples, memory_order_relaxed);
		uint64_t m = atomic_load_explicit(&t->progress_max_ns, memory_order_relaxed);
		if (m > max_ns)
			max_ns = m;
	}
	fprintf(stderr, "progress %llu %llu %llu\n", (unsigned long long)((uint64_t)clock_ns(CLOCK_MONOTONIC) - run->start_ns),
		(unsigned long long)samples, (unsigned long long)max_ns);
	fflush(stderr);
}
