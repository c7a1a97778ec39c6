/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskgroups.h"

/* The cgroup v1 cpu controller's mount, as rt-app finds it (cgroup v2 has none of its own). */
static int cpu_controller_mount(char *mount, size_t len)
{
	FILE *mounts = setmntent("/proc/mounts", "re");
	if (!mounts)
		return errno;
	int err = ENOENT;
	struct mntent *ent;
	while ((ent = getmntent(mounts))) {
		if (strcmp(ent->mnt_type, "cgroup") == 0 && hasmntopt(ent, "cpu")) {
			snprintf(mount, len, "%s", ent->mnt_dir);
			err = 0;
			break;
		}
	}
	endmntent(mounts);
	return err;
}

/* mkdir -p of mount + path, each folder made recorded in groups. */
static int make_folders(const char *mount, const char *path, struct run_taskgroups *groups)
{
	char dir[RUN_PATH_MAX];
	size_t base = (size_t)snprintf(dir, sizeof(dir), "%s", mount);
	for (const char *p = path + 1; base < sizeof(dir); p++) {
		if (*p != '/' && *p != '\0')
			continue;
		snprintf(dir + base, sizeof(dir) - base, "%.*s", (int)(p - path), path);
		if (mkdir(dir, 0755) == 0) {
			void *more = realloc(groups->made, (groups->n_made + 1) * sizeof(*groups->made));
			if (!more) {
				rmdir(dir);
				return ENOMEM;
			}
			groups->made = more;
			snprintf(groups->made[groups->n_made++], RUN_PATH_MAX, "%s", dir);
		} else if (errno != EEXIST) {
			return errno;
		}
		if (*p == '\0')
			return 0;
	}
	return ENAMETOOLONG;
}

/* *path ("/a/b") made and replaced by its whole path (mount + path). */
static int resolve(const char *mount, char **path, struct run_taskgroups *groups)
{
	int err = make_folders(mount, *path, groups);
	if (err)
		return err;
	size_t len = strlen(mount) + strlen(*path) + 1;
	char *whole = malloc(len);
	if (!whole)
		return ENOMEM;
	snprintf(whole, len, "%s%s", mount, *path);
	free(*path);
	*path = whole;
	return 0;
}

int run_taskgroups_create(struct run_spec *spec, struct run_taskgroups *groups, char *error,
			  size_t error_len)
{
	char mount[RUN_PATH_MAX / 2] = "";
	for (size_t i = 0; i < spec->n_tasks; i++) {
		struct run_task *task = &spec->tasks[i];
		for (size_t a = 0; a <= task->body_len; a++) {
			char **path = a < task->body_len ? &task->body[a].taskgroup : &task->taskgroup;
			if (!*path)
				continue;
			if (!mount[0] && cpu_controller_mount(mount, sizeof(mount)) != 0) {
				snprintf(error, error_len,
					 "task %s: taskgroup %s: no cgroup v1 cpu controller is mounted "
					 "(rt-app needs one too; cgroup v2 has no taskgroups of this kind)",
					 task->name, *path);
				return ENOENT;
			}
			int err = resolve(mount, path, groups);
			if (err) {
				snprintf(error, error_len, "task %s: taskgroup %s under %s: %s", task->name,
					 *path, mount, strerror(err));
				return err;
			}
		}
	}
	return 0;
}

void run_taskgroups_remove(struct run_taskgroups *groups)
{
	while (groups->n_made)
		rmdir(groups->made[--groups->n_made]);
	free(groups->made);
	groups->made = NULL;
}
