/* SPDX-License-Identifier: MIT */
/*
 * The active plugin, LITMUS^RT's /proc/litmus/active_plugin: the environment
 * variable RTSCHED_LITMUS_PLUGIN, else the first line of the file named by
 * RTSCHED_LITMUS_PLUGIN_FILE (default LITMUS_PLUGIN_FILE_DEFAULT, written by
 * litmus-setsched), else "Linux". Read at every call: setsched may change it
 * between two tasks, as in LITMUS^RT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int litmus_plugin_current(enum litmus_plugin *plugin)
{
	const char *env = getenv("RTSCHED_LITMUS_PLUGIN");
	if (env && *env) {
		if (litmus_plugin_parse(env, plugin) != 0)
			return litmus_fail(EINVAL, "RTSCHED_LITMUS_PLUGIN=%s: not a plugin (known: "
						   "Linux, P-FP, PSN-EDF, GSN-EDF, C-EDF)",
					   env);
		return 0;
	}
	const char *path = getenv("RTSCHED_LITMUS_PLUGIN_FILE");
	if (!path || !*path)
		path = LITMUS_PLUGIN_FILE_DEFAULT;
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT) {
			*plugin = LITMUS_PLUGIN_LINUX;
			return 0;
		}
		return litmus_fail(errno, "reading the LITMUS plugin file %s: %s", path,
				   strerror(errno));
	}
	char line[64] = "";
	char *got = fgets(line, sizeof(line), f);
	fclose(f);
	if (got)
		line[strcspn(line, " \t\r\n")] = '\0';
	if (litmus_plugin_parse(line, plugin) != 0)
		return litmus_fail(EINVAL, "%s: \"%s\" is not a plugin (write one of Linux, P-FP, "
					   "PSN-EDF, GSN-EDF, C-EDF with litmus-setsched)",
				   path, line);
	return 0;
}
