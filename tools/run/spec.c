/* SPDX-License-Identifier: MIT */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rtsched/rpc.h>

#include "spec.h"

#define PATH_MAX_LEN 128

/* The error sink: the first failure wins. */
struct reader {
	char *error;
	size_t error_len;
	bool failed;
};

__attribute__((format(printf, 3, 4))) static bool fail(struct reader *r, const char *path,
						       const char *format, ...)
{
	if (r->failed)
		return false;
	r->failed = true;
	int used = snprintf(r->error, r->error_len, "%s: ", path);
	va_list args;
	va_start(args, format);
	if (used >= 0 && (size_t)used < r->error_len)
		vsnprintf(r->error + used, r->error_len - (size_t)used, format, args);
	va_end(args);
	return false;
}

static bool check_keys(struct reader *r, json_t *object, const char *path,
		       const char *const *allowed)
{
	if (!json_is_object(object))
		return fail(r, path, "expected an object");
	const char *key;
	json_t *value;
	json_object_foreach(object, key, value) {
		bool known = false;
		for (const char *const *a = allowed; *a; a++)
			known = known || strcmp(*a, key) == 0;
		if (!known) {
			char at[PATH_MAX_LEN];
			snprintf(at, sizeof(at), "%s.%s", path, key);
			return fail(r, at, "unknown key");
		}
	}
	return true;
}

static json_t *member(struct reader *r, json_t *object, const char *path, const char *key,
		      char at[PATH_MAX_LEN])
{
	snprintf(at, PATH_MAX_LEN, "%s.%s", path, key);
	json_t *value = json_object_get(object, key);
	if (!value)
		fail(r, at, "missing");
	return value;
}

/*
 * An index in [0, end) or null (-1 in *out) at object.key, its path in at;
 * out_of_range and not_index are the errors for a number outside [0, end) and
 * for anything but a number or null.
 */
static bool get_index_or_null(struct reader *r, json_t *object, const char *path, const char *key,
			      json_int_t end, const char *out_of_range, const char *not_index, int *out,
			      char at[PATH_MAX_LEN])
{
	json_t *value = member(r, object, path, key, at);
	if (!value)
		return false;
	*out = -1;
	if (json_is_integer(value)) {
		if (json_integer_value(value) < 0 || json_integer_value(value) >= end)
			return fail(r, at, "%s", out_of_range);
		*out = (int)json_integer_value(value);
	} else if (!json_is_null(value)) {
		return fail(r, at, "%s", not_index);
	}
	return true;
}

static bool get_int(struct reader *r, json_t *object, const char *path, const char *key,
		    int64_t min, int64_t max, int64_t *out)
{
	char at[PATH_MAX_LEN];
	json_t *value = member(r, object, path, key, at);
	if (!value)
		return false;
	if (!json_is_integer(value))
		return fail(r, at, "expected an integer");
	json_int_t number = json_integer_value(value);
	if (number < min || number > max)
		return fail(r, at, "%lld is out of range [%lld, %lld]", (long long)number,
			    (long long)min, (long long)max);
	*out = number;
	return true;
}

static bool get_string(struct reader *r, json_t *object, const char *path, const char *key,
		       char *out, size_t out_len)
{
	char at[PATH_MAX_LEN];
	json_t *value = member(r, object, path, key, at);
	if (!value)
		return false;
	if (!json_is_string(value))
		return fail(r, at, "expected a string");
	if (strlen(json_string_value(value)) >= out_len)
		return fail(r, at, "longer than %zu characters", out_len - 1);
	snprintf(out, out_len, "%s", json_string_value(value));
	return true;
}

static json_t *get_array(struct reader *r, json_t *object, const char *path, const char *key,
			 char at[PATH_MAX_LEN])
{
	json_t *value = member(r, object, path, key, at);
	if (value && !json_is_array(value)) {
		fail(r, at, "expected an array");
		return NULL;
	}
	return value;
}

static bool get_cpus(struct reader *r, json_t *object, const char *path, cpu_set_t *cpus)
{
	char at[PATH_MAX_LEN];
	json_t *array = get_array(r, object, path, "cpus", at);
	if (!array)
		return false;
	CPU_ZERO(cpus);
	size_t i;
	json_t *cpu;
	json_array_foreach(array, i, cpu) {
		if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
		    json_integer_value(cpu) >= CPU_SETSIZE)
			return fail(r, at, "item %zu: expected a CPU number", i);
		CPU_SET((int)json_integer_value(cpu), cpus);
	}
	if (CPU_COUNT(cpus) == 0)
		return fail(r, at, "no CPU");
	return true;
}

/* An array member whose items are read by `read_item` into `*items` (calloc'd). */
static bool get_items(struct reader *r, json_t *object, const char *path, const char *key,
		      size_t item_size, void **items, size_t *count,
		      bool (*read_item)(struct reader *, json_t *, const char *, void *, void *),
		      void *context)
{
	char at[PATH_MAX_LEN];
	json_t *array = get_array(r, object, path, key, at);
	if (!array)
		return false;
	*count = json_array_size(array);
	*items = calloc(*count ? *count : 1, item_size);
	if (!*items)
		return fail(r, at, "out of memory");
	size_t i;
	json_t *item;
	json_array_foreach(array, i, item) {
		char item_path[PATH_MAX_LEN];
		snprintf(item_path, sizeof(item_path), "%s[%zu]", at, i);
		if (!read_item(r, item, item_path, (char *)*items + i * item_size, context))
			return false;
	}
	return true;
}

static bool read_cpuset(struct reader *r, json_t *json, const char *path, void *out, void *context)
{
	(void)context;
	static const char *const keys[] = { "name", "cpus", "exclusive", NULL };
	struct run_cpuset *cpuset = out;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", cpuset->name, sizeof(cpuset->name)) ||
	    !get_cpus(r, json, path, &cpuset->cpus))
		return false;
	json_t *exclusive = json_object_get(json, "exclusive");
	if (exclusive && !json_is_true(exclusive))
		return fail(r, path, "exclusive: only exclusive cpusets are supported");
	return true;
}

static const struct {
	const char *name;
	enum rts_protocol protocol;
} protocols[] = {
	{ "none", RTS_PROTO_NONE }, { "pip", RTS_PROTO_PIP },   { "pcp", RTS_PROTO_PCP },
	{ "srp", RTS_PROTO_SRP },   { "ipcp", RTS_PROTO_IPCP }, { "mpcp", RTS_PROTO_MPCP },
	{ "fmlp+", RTS_PROTO_FMLP }, { "fifo", RTS_PROTO_FIFO },
};

static bool read_protocol(struct reader *r, json_t *json, const char *path,
			  struct run_resource *resource)
{
	char protocol[16];
	if (!get_string(r, json, path, "protocol", protocol, sizeof(protocol)))
		return false;
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++) {
		if (strcmp(protocol, protocols[i].name) == 0) {
			resource->protocol = protocols[i].protocol;
			return true;
		}
	}
	return fail(r, path, "protocol \"%s\" is not none, pip, pcp, srp, ipcp, mpcp or fmlp+",
		    protocol);
}

static bool read_resource(struct reader *r, json_t *json, const char *path, void *out,
			  void *context)
{
	(void)context;
	static const char *const keys[] = { "name", "protocol", "variant", "ceiling",
					    "partition_cpu", NULL };
	struct run_resource *resource = out;
	char variant[16];
	int64_t ceiling;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", resource->name, sizeof(resource->name)) ||
	    !read_protocol(r, json, path, resource) ||
	    !get_string(r, json, path, "variant", variant, sizeof(variant)) ||
	    !get_int(r, json, path, "ceiling", 0, RTS_LOCK_MAX_LEVEL, &ceiling))
		return false;
	if (strcmp(variant, "deferred") == 0)
		resource->variant = RTS_CEILING_DEFERRED;
	else if (strcmp(variant, "eager") == 0)
		resource->variant = RTS_CEILING_EAGER;
	else
		return fail(r, path, "variant \"%s\" is not deferred or eager", variant);
	resource->ceiling = (int)ceiling;
	char at[PATH_MAX_LEN], range[64];
	snprintf(range, sizeof(range), "expected a CPU in [0, %d)", RTS_LOCK_MAX_PARTITIONS);
	if (!get_index_or_null(r, json, path, "partition_cpu", RTS_LOCK_MAX_PARTITIONS, range,
			       "expected a CPU number or null", &resource->partition_cpu, at))
		return false;
	bool local = resource->protocol == RTS_PROTO_PCP || resource->protocol == RTS_PROTO_SRP ||
		     resource->protocol == RTS_PROTO_IPCP;
	if (local != (resource->partition_cpu >= 0))
		return fail(r, at, local ? "a local ceiling protocol needs its CPU"
					 : "only for pcp, srp and ipcp");
	return true;
}

static bool read_condvar(struct reader *r, json_t *json, const char *path, void *out,
			 void *context)
{
	static const char *const keys[] = { "name", "mutex", NULL };
	const struct run_spec *spec = context;
	struct run_condvar *condvar = out;
	int64_t mutex;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", condvar->name, sizeof(condvar->name)) ||
	    !get_int(r, json, path, "mutex", 0, (int64_t)spec->n_resources - 1, &mutex))
		return false;
	condvar->mutex = (uint32_t)mutex;
	return true;
}

static bool read_server(struct reader *r, json_t *json, const char *path, void *out, void *context)
{
	(void)context;
	static const char *const keys[] = { "name", "priority", "cpus", "queue_capacity", NULL };
	struct run_server *server = out;
	int64_t priority, capacity;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", server->name, sizeof(server->name)) ||
	    !get_int(r, json, path, "priority", 1, 99, &priority) ||
	    !get_cpus(r, json, path, &server->cpus) ||
	    !get_int(r, json, path, "queue_capacity", 1, RTS_RPC_CAPACITY_MAX, &capacity))
		return false;
	server->priority = (int)priority;
	server->queue_capacity = (uint32_t)capacity;
	return true;
}

/* {"op": "prem", "ns": compute, "length_ns", "buffers_bytes": [...], "access": "linear"|"random"} */
static bool read_prem(struct reader *r, json_t *json, const char *path, struct run_action *action)
{
	static const char *const keys[] = { "op", "ns", "length_ns", "buffers_bytes", "access", NULL };
	action->op = RUN_OP_PREM;
	char access[16], at[PATH_MAX_LEN];
	if (!check_keys(r, json, path, keys) ||
	    !get_int(r, json, path, "ns", 1, INT64_MAX / 4, &action->ns) ||
	    !get_int(r, json, path, "length_ns", action->ns + 1, INT64_MAX / 4, &action->length_ns) ||
	    !get_string(r, json, path, "access", access, sizeof(access)))
		return false;
	if (strcmp(access, "linear") != 0 && strcmp(access, "random") != 0)
		return fail(r, path, "access \"%s\" is not linear or random", access);
	action->random_access = access[0] == 'r';
	json_t *sizes = get_array(r, json, path, "buffers_bytes", at);
	if (!sizes)
		return false;
	if (json_array_size(sizes) < 1 || json_array_size(sizes) > RUN_PREM_BUFFERS_MAX)
		return fail(r, at, "expected 1 to %d buffers", RUN_PREM_BUFFERS_MAX);
	size_t i;
	json_t *size;
	json_array_foreach(sizes, i, size) {
		if (!json_is_integer(size) || json_integer_value(size) < RUN_LINE_BYTES ||
		    json_integer_value(size) > RUN_BUFFER_MAX_BYTES ||
		    json_integer_value(size) % RUN_LINE_BYTES)
			return fail(r, at, "item %zu: expected a size in bytes, a multiple of 64 in [%d, %lld]",
				    i, RUN_LINE_BYTES, (long long)RUN_BUFFER_MAX_BYTES);
		action->buffer_bytes[i] = (uint64_t)json_integer_value(size);
	}
	action->n_buffers = (uint32_t)json_array_size(sizes);
	return true;
}

/* A compute's "per_job_ns": 1 to RUN_PER_JOB_MAX durations, each in [0, ns]. */
static bool read_per_job(struct reader *r, json_t *json, const char *path, struct run_action *action)
{
	char at[PATH_MAX_LEN];
	json_t *values = get_array(r, json, path, "per_job_ns", at);
	if (!values)
		return false;
	size_t n = json_array_size(values);
	if (n < 1 || n > RUN_PER_JOB_MAX)
		return fail(r, at, "expected 1 to %d durations, got %zu", RUN_PER_JOB_MAX, n);
	action->per_job_ns = calloc(n, sizeof(int64_t));
	if (!action->per_job_ns)
		return fail(r, at, "out of memory");
	action->n_per_job = n;
	size_t i;
	json_t *value;
	json_array_foreach(values, i, value) {
		if (!json_is_integer(value) || json_integer_value(value) < 0 ||
		    json_integer_value(value) > action->ns)
			return fail(r, at, "item %zu: expected a duration in ns in [0, %lld] (the compute's ns)",
				    i, (long long)action->ns);
		action->per_job_ns[i] = json_integer_value(value);
	}
	return true;
}

/* {"op": "memwrite", "bytes", "buffer_bytes"} or {"op": "iowrite", "bytes", "buffer_bytes", "device"} */
static bool read_write(struct reader *r, json_t *json, const char *path, struct run_action *action,
		       bool io)
{
	static const char *const mem_keys[] = { "op", "bytes", "buffer_bytes", NULL };
	static const char *const io_keys[] = { "op", "bytes", "buffer_bytes", "device", NULL };
	action->op = io ? RUN_OP_IOWRITE : RUN_OP_MEMWRITE;
	int64_t bytes, chunk;
	if (!check_keys(r, json, path, io ? io_keys : mem_keys) ||
	    !get_int(r, json, path, "bytes", 1, INT64_MAX / 4, &bytes) ||
	    !get_int(r, json, path, "buffer_bytes", 1, RUN_BUFFER_MAX_BYTES, &chunk))
		return false;
	action->write_bytes = (uint64_t)bytes;
	action->chunk_bytes = (uint64_t)chunk;
	if (!io)
		return true;
	char device[RUN_PATH_MAX];
	if (!get_string(r, json, path, "device", device, sizeof(device)))
		return false;
	if (device[0] != '/')
		return fail(r, path, "device: \"%s\" is not an absolute path", device);
	action->device = strdup(device);
	return action->device ? true : fail(r, path, "out of memory");
}

struct body_context {
	const struct run_spec *spec;
};

/* A taskgroup: null (key allowed) or a path "/a/b" under the cpu controller's mount, with no empty,
 * "." or ".." component; *out malloc'd, NULL for null. */
static bool read_taskgroup(struct reader *r, json_t *json, const char *path, const char *key, bool nullable,
			   char **out)
{
	char at[PATH_MAX_LEN];
	json_t *value = member(r, json, path, key, at);
	if (!value)
		return false;
	*out = NULL;
	if (nullable && json_is_null(value))
		return true;
	const char *text = json_is_string(value) ? json_string_value(value) : NULL;
	if (!text || text[0] != '/' || strlen(text) >= RUN_PATH_MAX / 2 || strstr(text, "//") ||
	    strstr(text, "/./") || strstr(text, "/../") || !strcmp(text + strlen(text) - 2, "/.") ||
	    (strlen(text) >= 3 && !strcmp(text + strlen(text) - 3, "/..")))
		return fail(r, at, "expected a taskgroup path such as \"/tg1/tg11\"%s", nullable ? " or null" : "");
	*out = strdup(text);
	return *out ? true : fail(r, at, "out of memory");
}

/* A sched op's policy: fifo at priority 1..99, other or batch at nice -20..19, idle (SCHED_DEADLINE: a
 * task keeps the reservation it starts with). */
static bool read_sched_change(struct reader *r, json_t *json, const char *path,
			      struct rts_sched_params *sched)
{
	char policy[16];
	int64_t priority, nice;
	if (!get_string(r, json, path, "policy", policy, sizeof(policy)) ||
	    !get_int(r, json, path, "priority", 0, 99, &priority) ||
	    !get_int(r, json, path, "nice", -20, 19, &nice))
		return false;
	*sched = (struct rts_sched_params){ .priority = (int)priority, .nice = (int)nice };
	if (strcmp(policy, "fifo") == 0)
		sched->policy = RTS_POLICY_FIFO;
	else if (strcmp(policy, "other") == 0)
		sched->policy = RTS_POLICY_OTHER;
	else if (strcmp(policy, "batch") == 0)
		sched->policy = RTS_POLICY_BATCH;
	else if (strcmp(policy, "idle") == 0)
		sched->policy = RTS_POLICY_IDLE;
	else
		return fail(r, path, "sched: policy \"%s\" is not fifo, other, batch or idle", policy);
	if ((sched->policy == RTS_POLICY_FIFO) != (priority != 0))
		return fail(r, path, "sched: a priority 1..99 for fifo only");
	if (nice && !(sched->policy == RTS_POLICY_OTHER || sched->policy == RTS_POLICY_BATCH))
		return fail(r, path, "sched: a nice for other and batch only");
	return true;
}

static bool read_action(struct reader *r, json_t *json, const char *path, void *out, void *context)
{
	const struct run_spec *spec = ((struct body_context *)context)->spec;
	struct run_action *action = out;
	char op[16];
	if (!json_is_object(json))
		return fail(r, path, "expected an object");
	if (!get_string(r, json, path, "op", op, sizeof(op)))
		return false;
	static const char *const timed[] = { "op", "ns", NULL };
	static const char *const varying[] = { "op", "ns", "per_job_ns", NULL };
	static const char *const on_resource[] = { "op", "resource", NULL };
	static const char *const on_condvar[] = { "op", "condvar", NULL };
	static const char *const on_server[] = { "op", "server", "ns", NULL };
	static const char *const on_task[] = { "op", "task", NULL };
	static const char *const on_cpus[] = { "op", "cpus", NULL };
	static const char *const on_policy[] = { "op", "policy", "priority", "nice", NULL };
	static const char *const on_taskgroup[] = { "op", "taskgroup", NULL };
	int64_t value;
	if (strcmp(op, "compute") == 0 || strcmp(op, "sleep") == 0) {
		action->op = op[0] == 'c' ? RUN_OP_COMPUTE : RUN_OP_SLEEP;
		if (!check_keys(r, json, path, action->op == RUN_OP_COMPUTE ? varying : timed) ||
		    !get_int(r, json, path, "ns", 1, INT64_MAX / 2, &value))
			return false;
		action->ns = value;
		return !json_object_get(json, "per_job_ns") || read_per_job(r, json, path, action);
	}
	if (strcmp(op, "lock") == 0 || strcmp(op, "unlock") == 0) {
		action->op = op[0] == 'l' ? RUN_OP_LOCK : RUN_OP_UNLOCK;
		if (!check_keys(r, json, path, on_resource) ||
		    !get_int(r, json, path, "resource", 0, (int64_t)spec->n_resources - 1, &value))
			return false;
		action->index = (uint32_t)value;
		return true;
	}
	if (strcmp(op, "wait") == 0 || strcmp(op, "signal") == 0 || strcmp(op, "broadcast") == 0) {
		action->op = op[0] == 'w' ? RUN_OP_WAIT : op[0] == 's' ? RUN_OP_SIGNAL : RUN_OP_BROADCAST;
		if (!check_keys(r, json, path, on_condvar) ||
		    !get_int(r, json, path, "condvar", 0, (int64_t)spec->n_condvars - 1, &value))
			return false;
		action->index = (uint32_t)value;
		return true;
	}
	if (strcmp(op, "call") == 0) {
		action->op = RUN_OP_CALL;
		if (!check_keys(r, json, path, on_server) ||
		    !get_int(r, json, path, "server", 0, (int64_t)spec->n_servers - 1, &value) ||
		    !get_int(r, json, path, "ns", 1, INT64_MAX / 2, &action->ns))
			return false;
		action->index = (uint32_t)value;
		return true;
	}
	if (strcmp(op, "activate") == 0) { /* its task's kind is checked once every task is read */
		action->op = RUN_OP_ACTIVATE;
		if (!check_keys(r, json, path, on_task) ||
		    !get_int(r, json, path, "task", 0, UINT32_MAX, &value))
			return false;
		action->index = (uint32_t)value;
		return true;
	}
	if (strcmp(op, "affinity") == 0) {
		action->op = RUN_OP_AFFINITY;
		if (strcmp(spec->backend, "threads") != 0) /* a ULT has no affinity of its own: its worker's */
			return fail(r, path, "affinity: only under backend threads");
		if (!check_keys(r, json, path, on_cpus) || !get_cpus(r, json, path, &action->cpus))
			return false;
		cpu_set_t outside;
		CPU_XOR(&outside, &action->cpus, &spec->cpus);
		CPU_AND(&outside, &outside, &action->cpus);
		if (CPU_COUNT(&outside) != 0)
			return fail(r, path, "cpus: a CPU outside the set's cpus");
		return true;
	}
	if (strcmp(op, "sched") == 0) {
		action->op = RUN_OP_SCHED;
		if (strcmp(spec->backend, "threads") != 0) /* a ULT has no policy of its own: its worker's */
			return fail(r, path, "sched: only under backend threads");
		return check_keys(r, json, path, on_policy) && read_sched_change(r, json, path, &action->sched);
	}
	if (strcmp(op, "taskgroup") == 0) {
		action->op = RUN_OP_TASKGROUP;
		if (strcmp(spec->backend, "threads") != 0) /* a ULT has no cgroup of its own: its worker's */
			return fail(r, path, "taskgroup: only under backend threads");
		return check_keys(r, json, path, on_taskgroup) &&
		       read_taskgroup(r, json, path, "taskgroup", false, &action->taskgroup);
	}
	if (strcmp(op, "prem") == 0)
		return read_prem(r, json, path, action);
	if (strcmp(op, "memwrite") == 0 || strcmp(op, "iowrite") == 0)
		return read_write(r, json, path, action, op[0] == 'i');
	return fail(r, path, "unknown op \"%s\"", op);
}

/* A reservation's "controller": null (a fixed budget) or its budget controller's parameters. */
static bool read_controller(struct reader *r, json_t *json, const char *path,
			    struct run_reservation *res)
{
	static const char *const keys[] = { "period_ns", "min_budget_ns", "max_budget_ns",
					    "headroom_percent", "importance", NULL };
	char at[PATH_MAX_LEN];
	json_t *value = member(r, json, path, "controller", at);
	if (!value)
		return false;
	if (json_is_null(value))
		return true;
	if (!json_is_object(value))
		return fail(r, at, "expected an object or null");
	int64_t importance, headroom;
	if (!check_keys(r, value, at, keys) ||
	    !get_int(r, value, at, "period_ns", res->period_ns, INT64_MAX / 4, &res->control.period_ns) ||
	    !get_int(r, value, at, "min_budget_ns", 1, res->budget_ns, &res->control.min_budget_ns) ||
	    !get_int(r, value, at, "max_budget_ns", res->budget_ns, res->period_ns,
		     &res->control.max_budget_ns) ||
	    !get_int(r, value, at, "headroom_percent", 0, 1000, &headroom) ||
	    !get_int(r, value, at, "importance", 1, INT32_MAX, &importance))
		return false;
	if (res->control.period_ns % res->period_ns)
		return fail(r, at, "period_ns %lld is not a whole number of the reservation's periods",
			    (long long)res->control.period_ns);
	res->control.importance = (int)importance;
	res->control.headroom_percent = (int)headroom;
	return true;
}

/* What a reservation's reader needs besides its JSON. */
struct reservation_context {
	size_t index;     /* its own: its parent comes before it */
	size_t n_cpusets; /* the run's cpusets, read before */
};

static bool read_reservation(struct reader *r, json_t *json, const char *path, void *out,
			     void *context)
{
	static const char *const keys[] = { "name", "kind", "period_ns", "budget_ns", "order",
					    "priority", "cpu", "parent", "controller", "enforcement",
					    "cpuset", NULL };
	const struct reservation_context *ctx = context;
	struct run_reservation *res = out;
	char order[8], kind[16], enforcement[16];
	int64_t priority, cpu;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", res->name, sizeof(res->name)) ||
	    !get_string(r, json, path, "kind", kind, sizeof(kind)) ||
	    !get_int(r, json, path, "period_ns", 1, INT64_MAX / 4, &res->period_ns) ||
	    !get_int(r, json, path, "budget_ns", 1, res->period_ns, &res->budget_ns) ||
	    !get_string(r, json, path, "order", order, sizeof(order)) ||
	    !get_int(r, json, path, "priority", 0, 99, &priority) ||
	    !get_int(r, json, path, "cpu", 0, CPU_SETSIZE - 1, &cpu) ||
	    !get_string(r, json, path, "enforcement", enforcement, sizeof(enforcement)))
		return false;
	if (strcmp(enforcement, "user") == 0)
		res->enforcement = RTS_RESERVATION_BY_USER;
	else if (strcmp(enforcement, "kernel") == 0)
		res->enforcement = RTS_RESERVATION_BY_KERNEL;
	else
		return fail(r, path, "enforcement \"%s\" is not user or kernel", enforcement);
	if (strcmp(kind, "periodic") == 0)
		res->kind = RTS_RESERVATION_PERIODIC;
	else if (strcmp(kind, "cbs") == 0)
		res->kind = RTS_RESERVATION_CBS;
	else if (strcmp(kind, "hard-cbs") == 0)
		res->kind = RTS_RESERVATION_HARD_CBS;
	else if (strcmp(kind, "sporadic") == 0)
		res->kind = RTS_RESERVATION_SPORADIC;
	else
		return fail(r, path, "kind \"%s\" is not periodic, cbs, hard-cbs or sporadic", kind);
	if (strcmp(order, "FP") == 0)
		res->order = RTS_RESERVATION_FP;
	else if (strcmp(order, "EDF") == 0)
		res->order = RTS_RESERVATION_EDF;
	else
		return fail(r, path, "order \"%s\" is not FP or EDF", order);
	res->priority = (int)priority;
	res->cpu = (int)cpu;
	char at[PATH_MAX_LEN];
	if (!get_index_or_null(r, json, path, "parent", (json_int_t)ctx->index,
			       "expected the index of a reservation listed before this one",
			       "expected a reservation index or null", &res->parent, at) ||
	    !get_index_or_null(r, json, path, "cpuset", (json_int_t)ctx->n_cpusets, "no such cpuset",
			       "expected a cpuset index or null", &res->cpuset, at))
		return false;
	if (res->cpuset >= 0 && res->enforcement != RTS_RESERVATION_BY_KERNEL)
		return fail(r, at, "only a reservation enforced by the kernel has a cpuset (its worker's)");
	return read_controller(r, json, path, res);
}

static bool read_policy(struct reader *r, json_t *json, const char *path, struct run_task *task)
{
	char policy[16];
	if (!get_string(r, json, path, "policy", policy, sizeof(policy)))
		return false;
	int64_t value;
	if (strcmp(policy, "fifo") == 0)
		task->params.policy = RTS_POLICY_FIFO;
	else if (strcmp(policy, "deadline") == 0)
		task->params.policy = RTS_POLICY_DEADLINE;
	else if (strcmp(policy, "other") == 0)
		task->params.policy = RTS_POLICY_OTHER;
	else if (strcmp(policy, "batch") == 0)
		task->params.policy = RTS_POLICY_BATCH;
	else if (strcmp(policy, "idle") == 0)
		task->params.policy = RTS_POLICY_IDLE;
	else
		return fail(r, path, "policy \"%s\" is not fifo, deadline, other, batch or idle",
			    policy);
	if (!get_int(r, json, path, "priority", 0, 99, &value))
		return false;
	task->params.priority = (int)value;
	if (!get_int(r, json, path, "nice", -20, 19, &value))
		return false;
	task->params.nice = (int)value;
	return get_int(r, json, path, "dl_runtime_ns", 0, INT64_MAX / 2, &task->params.dl_runtime_ns) &&
	       get_int(r, json, path, "dl_deadline_ns", 0, INT64_MAX / 4, &task->params.dl_deadline_ns) &&
	       get_int(r, json, path, "dl_period_ns", 0, INT64_MAX / 4, &task->params.dl_period_ns) &&
	       get_int(r, json, path, "slice_ns", 0, INT64_MAX / 4, &task->params.slice_ns);
}

static bool read_task(struct reader *r, json_t *json, const char *path, void *out, void *context)
{
	static const char *const keys[] = {
		"name", "kind", "period_ns", "deadline_ns", "offset_ns", "wcet_ns",
		"sporadic_max_extra_ns", "seed", "max_jobs", "policy", "priority",
		"dl_runtime_ns", "dl_deadline_ns", "dl_period_ns", "slice_ns", "taskgroup", "cpus", "cpuset", "budget_ns", "lock_level", "reservation", "body", "prem_priority",
		"peripheral_buffer_bytes", "stack_bytes", "activation_queue", "activated_at_start", "started_by_activation", "nice", NULL
	};
	const struct run_spec *spec = context;
	struct run_task *task = out;
	struct rts_task_params *p = &task->params;
	char kind[16];
	int64_t value, wcet_ns;
	if (!check_keys(r, json, path, keys) ||
	    !get_string(r, json, path, "name", task->name, sizeof(task->name)) ||
	    !get_string(r, json, path, "kind", kind, sizeof(kind)))
		return false;
	if (strcmp(kind, "periodic") == 0)
		p->kind = RTS_TASK_PERIODIC;
	else if (strcmp(kind, "sporadic") == 0)
		p->kind = RTS_TASK_SPORADIC;
	else if (strcmp(kind, "self-paced") == 0)
		p->kind = RTS_TASK_SELF_PACED;
	else if (strcmp(kind, "event") == 0)
		p->kind = RTS_TASK_EVENT;
	else
		return fail(r, path, "kind \"%s\" is not periodic, sporadic, self-paced or event", kind);
	const int64_t max_ns = INT64_MAX / 4;
	bool timer = p->kind == RTS_TASK_PERIODIC || p->kind == RTS_TASK_SPORADIC;
	if (!get_int(r, json, path, "period_ns", timer ? 1 : 0, max_ns, &p->period_ns) ||
	    !get_int(r, json, path, "deadline_ns", 1, max_ns, &p->deadline_ns) ||
	    !get_int(r, json, path, "offset_ns", 0, max_ns, &p->offset_ns) ||
	    !get_int(r, json, path, "wcet_ns", 0, max_ns, &wcet_ns) ||
	    !get_int(r, json, path, "budget_ns", 0, max_ns, &p->budget_ns) ||
	    !get_int(r, json, path, "sporadic_max_extra_ns", 0, max_ns, &p->sporadic_max_extra_ns) ||
	    !get_int(r, json, path, "seed", 0, INT64_MAX, &value))
		return false;
	p->seed = (uint64_t)value;
	if (!get_int(r, json, path, "max_jobs", 0, UINT32_MAX, &value))
		return false;
	p->max_jobs = (uint32_t)value;
	if (!get_int(r, json, path, "lock_level", 0, RTS_LOCK_MAX_LEVEL, &value))
		return false;
	task->lock_level = (int)value;
	if (!get_int(r, json, path, "prem_priority", 0, 99, &value))
		return false;
	task->prem_priority = (int)value;
	if (!get_int(r, json, path, "peripheral_buffer_bytes", 0, RUN_BUFFER_MAX_BYTES, &value))
		return false;
	if (value != 0 && (value < RUN_LINE_BYTES || value % RUN_LINE_BYTES))
		return fail(r, path, "peripheral_buffer_bytes: %lld is not 0 or a multiple of %d",
			    (long long)value, RUN_LINE_BYTES);
	task->peripheral_buffer_bytes = (uint64_t)value;
	if (!get_int(r, json, path, "stack_bytes", 0, (int64_t)RTS_TASK_STACK_MAX_BYTES, &value))
		return false;
	if (value != 0 && value < (int64_t)RTS_TASK_STACK_MIN_BYTES)
		return fail(r, path, "stack_bytes: %lld is not 0 (the default) or at least %zu",
			    (long long)value, RTS_TASK_STACK_MIN_BYTES);
	p->stack_bytes = (size_t)value;
	if (!get_int(r, json, path, "activation_queue", 0,
		     p->kind == RTS_TASK_EVENT ? RTS_TASK_ACTIVATION_QUEUE_MAX : 0, &value))
		return false;
	p->activation_queue = (uint32_t)value;
	if (!get_int(r, json, path, "activated_at_start", 0, p->kind == RTS_TASK_EVENT ? 1 : 0, &value))
		return false;
	p->activated_at_start = value != 0;
	if (!get_int(r, json, path, "started_by_activation", 0, p->kind == RTS_TASK_EVENT ? 0 : 1, &value))
		return false;
	p->started_by_activation = value != 0;
	if (!read_policy(r, json, path, task) || !get_cpus(r, json, path, &task->cpus) ||
	    !read_taskgroup(r, json, path, "taskgroup", true, &task->taskgroup))
		return false;
	if (task->taskgroup && strcmp(spec->backend, "threads") != 0)
		return fail(r, path, "taskgroup: only under backend threads");
	char at[PATH_MAX_LEN];
	if (!get_index_or_null(r, json, path, "cpuset", (json_int_t)spec->n_cpusets, "no such cpuset",
			       "expected a cpuset index or null", &task->cpuset, at) ||
	    !get_index_or_null(r, json, path, "reservation", (json_int_t)spec->n_reservations,
			       "no such reservation", "expected a reservation index or null",
			       &task->reservation, at))
		return false;
	struct body_context body = { spec };
	void *actions = NULL;
	bool ok = get_items(r, json, path, "body", sizeof(struct run_action), &actions,
			    &task->body_len, read_action, &body);
	task->body = actions;
	p->name = task->name;
	p->cpus = &task->cpus;
	return ok;
}

static bool read_trace(struct reader *r, json_t *root, struct run_spec *spec)
{
	static const char *const keys[] = { "path", "buffer_events", "ftrace_markers", NULL };
	char at[PATH_MAX_LEN];
	json_t *trace = member(r, root, "$", "trace", at);
	if (!trace)
		return false;
	if (json_is_null(trace))
		return true;
	int64_t events;
	if (!check_keys(r, trace, at, keys) ||
	    !get_string(r, trace, at, "path", spec->trace_path, sizeof(spec->trace_path)) ||
	    !get_int(r, trace, at, "buffer_events", 0, 1 << 26, &events))
		return false;
	spec->trace_buffer_events = (uint32_t)events;
	json_t *markers = json_object_get(trace, "ftrace_markers");
	if (markers && !json_is_boolean(markers))
		return fail(r, at, "ftrace_markers: expected true or false");
	spec->trace_ftrace_markers = markers && json_is_true(markers);
	return true;
}

/*
 * What the ult backend does not run yet (docs/ult.md), refused here with the
 * feature named (rtsched.model refuses the same at validation): servers
 * under its EDF forms (a service task has no deadline), cpusets
 * (rts_task_create refuses them too, but only at run time). Sleeps, locks,
 * condition variables and iowrite actions (through the task's proxy thread,
 * <rtsched/blocking.h>) run: they block only the ULT.
 */
static bool check_backend(struct reader *r, const struct run_spec *spec)
{
	if (strcmp(spec->backend, "threads") == 0)
		return spec->n_reservations == 0 ||
		       fail(r, "$.reservations", "reservations need the ult backend (docs/reservations.md)");
	const char *why = " not under the ult backend yet (docs/ult.md)";
	bool fixed_priority = strncmp(spec->backend, "ult:gfp", 7) == 0 ||
			      strncmp(spec->backend, "ult:pfp", 7) == 0 ||
			      strncmp(spec->backend, "ult:cfp", 7) == 0;
	if (spec->n_servers && !fixed_priority)
		return fail(r, "$.servers", "RPC servers need a fixed-priority ult form (ult:gfp, "
			    "ult:pfp, ult:cfp:C), got %s: a server has no deadline to be ordered by",
			    spec->backend);
	if (spec->n_reservations && strcmp(spec->backend, "ult:pfp") != 0 &&
	    strcmp(spec->backend, "ult:pedf") != 0)
		return fail(r, "$.reservations", "reservations need backend ult:pfp or ult:pedf "
			    "(one CPU per cluster; docs/reservations.md), got %s", spec->backend);
	for (size_t i = 0; i < spec->n_tasks; i++) {
		const struct run_task *task = &spec->tasks[i];
		char at[PATH_MAX_LEN];
		if (task->cpuset >= 0) {
			snprintf(at, sizeof(at), "$.tasks[%zu].cpuset", i);
			return fail(r, at, "cpusets:%s", why);
		}
	}
	return true;
}

/* Every activate action names an event-triggered task of the run, or one started by an activation. */
static bool check_activations(struct reader *r, const struct run_spec *spec)
{
	for (size_t i = 0; i < spec->n_tasks; i++) {
		const struct run_task *task = &spec->tasks[i];
		for (size_t k = 0; k < task->body_len; k++) {
			const struct run_action *action = &task->body[k];
			if (action->op != RUN_OP_ACTIVATE)
				continue;
			char at[PATH_MAX_LEN];
			snprintf(at, sizeof(at), "$.tasks[%zu].body[%zu].task", i, k);
			if (action->index >= spec->n_tasks)
				return fail(r, at, "no task %u (the run has %zu)", action->index, spec->n_tasks);
			const struct rts_task_params *target = &spec->tasks[action->index].params;
			if (target->kind != RTS_TASK_EVENT && !target->started_by_activation)
				return fail(r, at, "task %u (%s) is not an event task nor started by an "
					    "activation: only those are activated",
					    action->index, spec->tasks[action->index].name);
		}
	}
	return true;
}

/* The reservations, each read knowing its index (a parent comes first). */
static bool read_reservations(struct reader *r, json_t *root, struct run_spec *spec)
{
	char at[PATH_MAX_LEN];
	json_t *array = get_array(r, root, "$", "reservations", at);
	if (!array)
		return false;
	spec->n_reservations = json_array_size(array);
	spec->reservations = calloc(spec->n_reservations ? spec->n_reservations : 1,
				    sizeof(*spec->reservations));
	if (!spec->reservations)
		return fail(r, at, "out of memory");
	size_t i;
	json_t *item;
	json_array_foreach(array, i, item) {
		char item_path[PATH_MAX_LEN];
		snprintf(item_path, sizeof(item_path), "%s[%zu]", at, i);
		struct reservation_context context = {.index = i, .n_cpusets = spec->n_cpusets};
		if (!read_reservation(r, item, item_path, &spec->reservations[i], &context))
			return false;
	}
	return true;
}

static bool read_spec(struct reader *r, json_t *root, struct run_spec *spec)
{
	static const char *const keys[] = { "format", "name", "duration_ns", "release_delay_ns",
					    "scheduler", "backend", "cpus", "cpusets", "resources",
					    "condvars", "picv", "servers", "reservations", "tasks", "trace",
					    NULL };
	char format[32];
	void *items = NULL;
	if (!check_keys(r, root, "$", keys) ||
	    !get_string(r, root, "$", "format", format, sizeof(format)))
		return false;
	if (strcmp(format, "rtsched-runner/14") != 0)
		return fail(r, "$.format", "\"%s\" is not rtsched-runner/14", format);
	if (!get_string(r, root, "$", "name", spec->name, sizeof(spec->name)) ||
	    !get_string(r, root, "$", "scheduler", spec->scheduler, sizeof(spec->scheduler)) ||
	    !get_string(r, root, "$", "backend", spec->backend, sizeof(spec->backend)) ||
	    !get_int(r, root, "$", "duration_ns", 1, INT64_MAX / 4, &spec->duration_ns) ||
	    !get_int(r, root, "$", "release_delay_ns", 0, INT64_MAX / 4, &spec->release_delay_ns) ||
	    !get_cpus(r, root, "$", &spec->cpus))
		return false;
	if (!get_items(r, root, "$", "cpusets", sizeof(struct run_cpuset), &items,
		       &spec->n_cpusets, read_cpuset, spec))
		return (spec->cpusets = items), false;
	spec->cpusets = items;
	if (!get_items(r, root, "$", "resources", sizeof(struct run_resource), &items,
		       &spec->n_resources, read_resource, spec))
		return (spec->resources = items), false;
	spec->resources = items;
	if (!get_items(r, root, "$", "condvars", sizeof(struct run_condvar), &items,
		       &spec->n_condvars, read_condvar, spec))
		return (spec->condvars = items), false;
	spec->condvars = items;
	char at[PATH_MAX_LEN];
	json_t *picv = member(r, root, "$", "picv", at);
	if (!picv)
		return false;
	if (!json_is_boolean(picv))
		return fail(r, at, "expected true or false");
	spec->picv = json_is_true(picv);
	if (!get_items(r, root, "$", "servers", sizeof(struct run_server), &items,
		       &spec->n_servers, read_server, spec))
		return (spec->servers = items), false;
	spec->servers = items;
	if (!read_reservations(r, root, spec))
		return false;
	bool ok = get_items(r, root, "$", "tasks", sizeof(struct run_task), &items,
			    &spec->n_tasks, read_task, spec);
	spec->tasks = items;
	return ok && check_activations(r, spec) && read_trace(r, root, spec) && check_backend(r, spec);
}

int run_spec_load(const char *file, struct run_spec *spec, char *error, size_t error_len)
{
	memset(spec, 0, sizeof(*spec));
	json_error_t json_error;
	json_t *root = json_load_file(file, JSON_REJECT_DUPLICATES, &json_error);
	if (!root) {
		snprintf(error, error_len, "%s:%d:%d: %s", file, json_error.line, json_error.column,
			 json_error.text);
		return -1;
	}
	struct reader r = { error, error_len, false };
	bool ok = read_spec(&r, root, spec);
	json_decref(root);
	if (!ok) {
		run_spec_free(spec);
		return -1;
	}
	return 0;
}

void run_spec_free(struct run_spec *spec)
{
	for (size_t i = 0; spec->tasks && i < spec->n_tasks; i++) {
		for (size_t a = 0; spec->tasks[i].body && a < spec->tasks[i].body_len; a++) {
			free(spec->tasks[i].body[a].per_job_ns);
			free(spec->tasks[i].body[a].device);
			free(spec->tasks[i].body[a].taskgroup);
		}
		free(spec->tasks[i].taskgroup);
		free(spec->tasks[i].body);
	}
	free(spec->tasks);
	free(spec->cpusets);
	free(spec->resources);
	free(spec->condvars);
	free(spec->servers);
	free(spec->reservations);
	memset(spec, 0, sizeof(*spec));
}
