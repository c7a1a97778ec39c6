/* SPDX-License-Identifier: MIT */
/*
 * The active plugin, LITMUS^RT's /proc/litmus/active_plugin: the environment
 * variable RTSCHED_LITMUS_PLUGIN, else the first line of the file named by
 * RTSCHED_LITMUS_PLUGIN_FILE (default LITMUS_PLUGIN_FILE_DEFAULT, written by
 * litmus-setsched), else "Linux". C-EDF carries its clusters after the name
 * ("C-EDF L2"), as LITMUS^RT's C-EDF its "cluster" setting. Read at every
 * call: setsched may change it between two tasks, as in LITMUS^RT. Also the
 * plugin's domains (/proc/litmus/domains), from litmus_clusters.c;
 * RTSCHED_LITMUS_SYSFS_CPU moves the sysfs folder C-EDF's cache levels are
 * read from (tests).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "litmus_clusters.h"
#include "litmus_internal.h"

#define LITMUS_PLUGIN_FILE_DEFAULT "/run/rtsched/litmus-plugin"

static const struct {
	enum litmus_plugin plugin;
	const char *name;
} plugins[] = {
	{ LITMUS_PLUGIN_LINUX, "Linux" },
	{ LITMUS_PLUGIN_PFP, "P-FP" },
	{ LITMUS_PLUGIN_PSN_EDF, "PSN-EDF" },
	{ LITMUS_PLUGIN_GSN_EDF, "GSN-EDF" },
	{ LITMUS_PLUGIN_CEDF, "C-EDF" },
};

int litmus_plugin_parse(const char *name, enum litmus_plugin *plugin)
{
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++) {
		if (strcmp(name, plugins[i].name) == 0) {
			*plugin = plugins[i].plugin;
			return 0;
		}
	}
	return litmus_fail(EINVAL, "unknown LITMUS plugin \"%s\" (known: Linux, P-FP, PSN-EDF, "
				   "GSN-EDF, C-EDF)",
			   name);
}

const char *litmus_plugin_name(enum litmus_plugin plugin)
{
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		if (plugins[i].plugin == plugin)
			return plugins[i].name;
	return "?";
}

/* "NAME" or "NAME SPEC" (C-EDF's clusters) into PLUGIN and SPEC. */
static int parse_line(const char *line, const char *where, enum litmus_plugin *plugin, char *spec,
		      size_t len)
{
	char name[64];
	size_t n = strcspn(line, " \t\r\n");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, line, n);
	name[n] = '\0';
	const char *rest = line + strcspn(line, " \t\r\n");
	rest += strspn(rest, " \t");
	snprintf(spec, len, "%.*s", (int)strcspn(rest, " \t\r\n"), rest);
	if (litmus_plugin_parse(name, plugin) != 0)
		return litmus_fail(EINVAL, "%s: \"%s\" is not a plugin (write one of Linux, P-FP, "
					   "PSN-EDF, GSN-EDF, \"C-EDF CLUSTERS\" with litmus-setsched)",
				   where, name);
	if (*plugin == LITMUS_PLUGIN_CEDF && !*spec)
		return litmus_fail(EINVAL, "%s: C-EDF needs its clusters: \"C-EDF L2\" (CPUs that "
					   "share a cache level: L1, L2, L3), \"C-EDF ALL\" or \"C-EDF 2\" "
					   "(a size in CPUs)",
				   where);
	if (*plugin != LITMUS_PLUGIN_CEDF && *spec)
		return litmus_fail(EINVAL, "%s: %s takes no argument (got \"%s\")", where, name, spec);
	return 0;
}

int litmus_plugin_current_spec(enum litmus_plugin *plugin, char *spec, size_t len)
{
	const char *env = getenv("RTSCHED_LITMUS_PLUGIN");
	if (env && *env)
		return parse_line(env, "RTSCHED_LITMUS_PLUGIN", plugin, spec, len);
	const char *path = getenv("RTSCHED_LITMUS_PLUGIN_FILE");
	if (!path || !*path)
		path = LITMUS_PLUGIN_FILE_DEFAULT;
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT) {
			*plugin = LITMUS_PLUGIN_LINUX;
			spec[0] = '\0';
			return 0;
		}
		return litmus_fail(errno, "reading the LITMUS plugin file %s: %s", path,
				   strerror(errno));
	}
	char line[128] = "";
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return parse_line(line, path, plugin, spec, len);
}

int litmus_plugin_current(enum litmus_plugin *plugin)
{
	char spec[64];
	return litmus_plugin_current_spec(plugin, spec, sizeof(spec));
}

int litmus_domains_current(enum litmus_plugin *plugin, struct litmus_domain_map *map)
{
	char spec[64], why[256];
	if (litmus_plugin_current_spec(plugin, spec, sizeof(spec)) != 0)
		return -1;
	int n_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	switch (*plugin) {
	case LITMUS_PLUGIN_GSN_EDF:
		litmus_domains_global(n_cpus, map);
		return 0;
	case LITMUS_PLUGIN_CEDF: {
		int err = litmus_domains_clusters(spec, n_cpus, getenv("RTSCHED_LITMUS_SYSFS_CPU"), map,
						  why, sizeof(why));
		return err ? litmus_fail(err, "%s", why) : 0;
	}
	default:
		litmus_domains_per_cpu(n_cpus, map);
		return 0;
	}
}
