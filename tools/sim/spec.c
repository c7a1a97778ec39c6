/* SPDX-License-Identifier: MIT */
/* The parser of rtsched-sim-loop's input (spec.h): every token checked, the first error named. */
#include "spec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	char *next;        /* the rest of the text */
	const char *token; /* the last token taken, for the messages */
	char *error;
	size_t error_size;
};

static int fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->error, c->error_size, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *take(struct cursor *c)
{
	char *p = c->next;
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	if (!*p)
		return NULL;
	char *start = p;
	while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
		p++;
	if (*p)
		*p++ = '\0';
	c->next = p;
	c->token = start;
	return start;
}

static int take_i64(struct cursor *c, const char *what, int64_t min, int64_t *out)
{
	*out = 0; /* set on every path, so that no caller reads it uninitialized */
	const char *s = take(c);
	if (!s)
		return fail(c, "%s: missing (end of input)", what);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < min)
		return fail(c, "%s: not an integer >= %lld: '%s'", what, (long long)min, s);
	*out = v;
	return 0;
}

static int take_u64(struct cursor *c, const char *what, uint64_t *out)
{
	*out = 0;
	const char *s = take(c);
	if (!s)
		return fail(c, "%s: missing (end of input)", what);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s || *s == '-')
		return fail(c, "%s: not an unsigned integer: '%s'", what, s);
	*out = v;
	return 0;
}

static int take_count(struct cursor *c, const char *what, size_t max, size_t *out)
{
	int64_t v;
	if (take_i64(c, what, 0, &v))
		return -1;
	if ((uint64_t)v > max)
		return fail(c, "%s: %lld is more than %zu", what, (long long)v, max);
	*out = (size_t)v;
	return 0;
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* A name in hex ("-": empty), its first SIM_NAME_MAX bytes kept. */
static int take_name(struct cursor *c, const char *what, char *out, size_t *len)
{
	const char *s = take(c);
	if (!s)
		return fail(c, "%s: missing (end of input)", what);
	*len = 0;
	if (!strcmp(s, "-"))
		return 0;
	size_t n = strlen(s);
	if (n % 2)
		return fail(c, "%s: not hex bytes: '%s'", what, s);
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return fail(c, "%s: not hex bytes: '%s'", what, s);
		if (*len < SIM_NAME_MAX)
			out[(*len)++] = (char)(hi << 4 | lo);
	}
	return 0;
}

static int expect(struct cursor *c, const char *word)
{
	const char *s = take(c);
	if (!s || strcmp(s, word))
		return fail(c, "expected '%s', got '%s'", word, s ? s : "(end of input)");
	return 0;
}

static int parse_domain(struct cursor *c, struct sim_spec_domain *d)
{
	if (expect(c, "domain") || take_count(c, "domain: CPU count", 4096, &d->n_cpus))
		return -1;
	if (!d->n_cpus)
		return fail(c, "domain: no CPU");
	d->cpus = calloc(d->n_cpus, sizeof(*d->cpus));
	if (!d->cpus)
		return fail(c, "out of memory");
	for (size_t i = 0; i < d->n_cpus; i++) {
		int64_t cpu;
		if (take_i64(c, "domain: CPU", 0, &cpu))
			return -1;
		if (cpu >= 0xffff)
			return fail(c, "domain: CPU %lld out of the trace's range", (long long)cpu);
		d->cpus[i] = (uint16_t)cpu;
	}
	return 0;
}

static int parse_task(struct cursor *c, const struct sim_spec *spec, struct sim_spec_task *t)
{
	int64_t edf, max_jobs, tid;
	if (expect(c, "task") || take_count(c, "task: domain", spec->n_domains - 1, &t->domain) ||
	    take_i64(c, "task: edf", 0, &edf) || take_i64(c, "task: priority", 0, &t->priority) ||
	    take_i64(c, "task: period", 1, &t->period_ns) || take_i64(c, "task: deadline", 1, &t->deadline_ns) ||
	    take_i64(c, "task: offset", 0, &t->offset_ns) || take_i64(c, "task: max_jobs", 0, &max_jobs) ||
	    take_i64(c, "task: gap max", -1, &t->gap_max_ns) || take_u64(c, "task: gap seed", &t->gap_seed) ||
	    take_i64(c, "task: low ppm", -1, &t->low_ppm))
		return -1;
	if (edf > 1)
		return fail(c, "task: edf is 0 or 1, got %lld", (long long)edf);
	if (t->priority > UINT32_MAX)
		return fail(c, "task: priority %lld out of the trace's range", (long long)t->priority);
	if (t->low_ppm > 1000000)
		return fail(c, "task: low ppm above 1000000: %lld", (long long)t->low_ppm);
	t->is_edf = (int)edf;
	t->max_jobs = (uint64_t)max_jobs;
	if (take_count(c, "task: seed words", 1024, &t->n_seed_words))
		return -1;
	if (t->low_ppm >= 0 && !t->n_seed_words)
		return fail(c, "task: drawn execution times need a seed");
	t->seed_words = calloc(t->n_seed_words + 1, sizeof(*t->seed_words));
	if (!t->seed_words)
		return fail(c, "out of memory");
	for (size_t i = 0; i < t->n_seed_words; i++) {
		int64_t w;
		if (take_i64(c, "task: seed word", 0, &w))
			return -1;
		if (w > UINT32_MAX)
			return fail(c, "task: seed word above 2^32: %lld", (long long)w);
		t->seed_words[i] = (uint32_t)w;
	}
	if (take_count(c, "task: computes", 1 << 20, &t->n_computes))
		return -1;
	t->computes_ns = calloc(t->n_computes + 1, sizeof(*t->computes_ns));
	if (!t->computes_ns)
		return fail(c, "out of memory");
	for (size_t i = 0; i < t->n_computes; i++)
		if (take_i64(c, "task: compute", t->low_ppm >= 0 ? 1 : 0, &t->computes_ns[i]))
			return -1;
	if (take_i64(c, "task: tid", 0, &tid))
		return -1;
	if (tid > UINT32_MAX)
		return fail(c, "task: tid above 2^32: %lld", (long long)tid);
	t->tid = (uint32_t)tid;
	return take_name(c, "task: name", t->name, &t->name_len);
}

static int parse(struct cursor *c, struct sim_spec *spec)
{
	int64_t version;
	if (expect(c, SIM_SPEC_MAGIC) || take_i64(c, "version", 0, &version))
		return -1;
	if (version != SIM_SPEC_VERSION)
		return fail(c, "version %lld, this program reads %d", (long long)version, SIM_SPEC_VERSION);
	size_t domains = 0, tasks = 0;
	if (expect(c, "run") || take_i64(c, "run: end", 0, &spec->end_ns) ||
	    take_i64(c, "run: duration", 1, &spec->duration_ns) || take_count(c, "run: domains", 4096, &domains) ||
	    take_count(c, "run: tasks", 1 << 20, &tasks) || take_name(c, "run: name", spec->name, &spec->name_len))
		return -1;
	if (!domains)
		return fail(c, "run: no domain");
	spec->domains = calloc(domains, sizeof(*spec->domains));
	spec->tasks = calloc(tasks ? tasks : 1, sizeof(*spec->tasks));
	if (!spec->domains || !spec->tasks)
		return fail(c, "out of memory");
	spec->n_domains = domains; /* from here sim_spec_free frees every entry, parsed or not */
	spec->n_tasks = tasks;
	for (size_t i = 0; i < domains; i++)
		if (parse_domain(c, &spec->domains[i]))
			return -1;
	for (size_t i = 0; i < tasks; i++)
		if (parse_task(c, spec, &spec->tasks[i]))
			return -1;
	const char *rest = take(c);
	if (rest)
		return fail(c, "unexpected '%s' after the last task", rest);
	return 0;
}

int sim_spec_parse(char *text, struct sim_spec *spec, char *error, size_t error_size)
{
	struct cursor c = {.next = text, .error = error, .error_size = error_size};
	memset(spec, 0, sizeof(*spec));
	if (parse(&c, spec) == 0)
		return 0;
	sim_spec_free(spec);
	return -1;
}

void sim_spec_free(struct sim_spec *spec)
{
	for (size_t i = 0; i < spec->n_domains; i++)
		free(spec->domains[i].cpus);
	for (size_t i = 0; i < spec->n_tasks; i++) {
		free(spec->tasks[i].seed_words);
		free(spec->tasks[i].computes_ns);
	}
	free(spec->domains);
	free(spec->tasks);
	memset(spec, 0, sizeof(*spec));
}
