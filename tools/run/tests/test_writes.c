/* SPDX-License-Identifier: MIT */
/*
 * rtsched-run's memwrite and iowrite (writes.h) on real memory, a real file,
 * a real FIFO and real failing devices: bytes stored and written are counted
 * and compared with what was asked; errors name the path and the errno.
 */
#include "../../../tests/c/harness.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "writes.h"

#define CANARY 0xAA

static size_t count_value(const uint8_t *buffer, size_t len, uint8_t value)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += buffer[i] == value;
	return n;
}

/* Fewer bytes than the buffer: exactly those bytes, from the start, are stored. */
static void test_memwrite_stores_exactly_the_bytes_asked(void)
{
	static uint8_t buffer[4096 + 64];
	memset(buffer, CANARY, sizeof(buffer));
	run_memwrite(buffer, 4096, 1000, 0x5C);
	CHECK_EQ(count_value(buffer, sizeof(buffer), 0x5C), 1000);
	CHECK_EQ(count_value(buffer, 1000, 0x5C), 1000);
	CHECK_EQ(count_value(buffer + 1000, sizeof(buffer) - 1000, CANARY), sizeof(buffer) - 1000);
}

/* More bytes than the buffer: the writes wrap inside it and never pass its end. */
static void test_memwrite_wraps_inside_the_buffer(void)
{
	static uint8_t buffer[4096 + 64];
	memset(buffer, CANARY, sizeof(buffer));
	run_memwrite(buffer, 4096, 2 * 4096 + 808, 0x33);
	CHECK_EQ(count_value(buffer, 4096, 0x33), 4096);
	CHECK_EQ(count_value(buffer + 4096, 64, CANARY), 64);
}

static char *temp_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "/tmp/rtsched-test-writes-%d-%s", (int)getpid(), name);
	unlink(path);
	return path;
}

/* A task of one action, body[0], with its device. */
static struct run_task one_action_task(struct run_action *action, enum run_op op, const char *device,
				       uint64_t bytes, uint64_t chunk)
{
	memset(action, 0, sizeof(*action));
	action->op = op;
	action->write_bytes = bytes;
	action->chunk_bytes = chunk;
	action->device = (char *)device;
	struct run_task task = { .body = action, .body_len = 1 };
	snprintf(task.name, sizeof(task.name), "writer");
	return task;
}

/* Two jobs' iowrite to a regular file: the file grows by exactly twice the bytes, in order. */
static void test_iowrite_appends_the_bytes_to_a_file(void)
{
	char *path = temp_path("file");
	struct run_action action;
	struct run_task task = one_action_task(&action, RUN_OP_IOWRITE, path, 10000, 4096);
	struct run_writes writes;
	char error[512] = "";
	CHECK_OK(run_writes_init(&writes, &task, 0, error, sizeof(error)));
	CHECK_EQ(writes.buffer_bytes, 4096);
	run_iowrite_action(&writes, &task, 0);
	run_iowrite_action(&writes, &task, 0);
	CHECK_EQ(writes.attempts[0], 2);
	CHECK_EQ(writes.failures[0], 0);
	run_writes_destroy(&writes);
	struct stat st;
	CHECK_SYS(stat(path, &st));
	CHECK_EQ(st.st_size, 20000);
	unlink(path);
}

struct fifo_reader {
	int fd;
	uint64_t bytes;
};

static void *read_to_eof(void *arg)
{
	struct fifo_reader *reader = arg;
	static char chunk[8192];
	for (;;) {
		ssize_t got = read(reader->fd, chunk, sizeof(chunk));
		if (got > 0)
			reader->bytes += (uint64_t)got;
		else if (got == 0 || errno != EINTR)
			return NULL;
	}
}

/* Through a FIFO, larger than its pipe buffer: the reader counts every byte written, no more. */
static void test_iowrite_through_a_fifo_is_read_back_whole(void)
{
	char *path = temp_path("fifo");
	CHECK_SYS(mkfifo(path, 0600));
	struct fifo_reader reader = { .fd = open(path, O_RDONLY | O_NONBLOCK) };
	CHECK(reader.fd >= 0);
	struct run_action action;
	const uint64_t bytes = 3 * 65536 + 5;
	struct run_task task = one_action_task(&action, RUN_OP_IOWRITE, path, bytes, 65536);
	struct run_writes writes;
	char error[512] = "";
	CHECK_OK(run_writes_init(&writes, &task, 0, error, sizeof(error)));
	int flags = fcntl(reader.fd, F_GETFL);
	CHECK_SYS(fcntl(reader.fd, F_SETFL, flags & ~O_NONBLOCK));
	pthread_t thread;
	CHECK_OK(pthread_create(&thread, NULL, read_to_eof, &reader));
	run_iowrite_action(&writes, &task, 0);
	run_writes_destroy(&writes); /* closes the writing end: the reader sees EOF */
	CHECK_OK(pthread_join(thread, NULL));
	CHECK_EQ(reader.bytes, bytes);
	close(reader.fd);
	unlink(path);
}

/* A device that cannot be opened fails at set-up with its path and the reason. */
static void test_a_device_that_cannot_be_opened_is_a_setup_error(void)
{
	struct run_action action;
	struct run_task task = one_action_task(&action, RUN_OP_IOWRITE, "/nonexistent-dir/out", 10, 10);
	struct run_writes writes;
	char error[512] = "";
	CHECK_ERR(ENOENT, run_writes_init(&writes, &task, 3, error, sizeof(error)));
	CHECK_MSG(strstr(error, "tasks[3] (writer): body[0] iowrite: cannot open /nonexistent-dir/out for "
				"writing: No such file or directory"), "%s", error);
	run_writes_destroy(&writes);

	char *path = temp_path("lonely-fifo");
	CHECK_SYS(mkfifo(path, 0600));
	task = one_action_task(&action, RUN_OP_IOWRITE, path, 10, 10);
	CHECK_ERR(ENXIO, run_writes_init(&writes, &task, 0, error, sizeof(error)));
	CHECK_MSG(strstr(error, path) && strstr(error, "a FIFO needs its reader first"), "%s", error);
	run_writes_destroy(&writes);
	unlink(path);
}

/* A write that fails during the run is counted per job and said once, with the path and errno. */
static void test_a_failing_write_is_reported_with_path_and_errno(void)
{
	char *log = temp_path("stderr");
	int saved = dup(STDERR_FILENO);
	int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(saved >= 0 && out >= 0);
	struct run_action action;
	struct run_task task = one_action_task(&action, RUN_OP_IOWRITE, "/dev/full", 100, 64);
	struct run_writes writes;
	char error[512] = "";
	CHECK_OK(run_writes_init(&writes, &task, 0, error, sizeof(error)));
	CHECK_SYS(dup2(out, STDERR_FILENO));
	for (int job = 0; job < 3; job++)
		run_iowrite_action(&writes, &task, 0);
	run_writes_report(&writes, &task);
	fflush(stderr);
	CHECK_SYS(dup2(saved, STDERR_FILENO));
	CHECK_EQ(writes.failures[0], 3);
	CHECK_EQ(writes.attempts[0], 3);
	run_writes_destroy(&writes);
	char text[1024] = "";
	int in = open(log, O_RDONLY);
	CHECK(in >= 0 && read(in, text, sizeof(text) - 1) > 0);
	close(in);
	CHECK_MSG(strstr(text, "rtsched-run: task writer: body[0] iowrite: write to /dev/full failed after 0 of "
			       "100 bytes: No space left on device (errno 28)\n"), "%s", text);
	CHECK_MSG(strstr(text, "rtsched-run: task writer: body[0] iowrite to /dev/full failed in 3 of 3 jobs\n"),
		  "%s", text);
	CHECK_MSG(strstr(strstr(text, "(errno 28)") + 1, "(errno 28)") == NULL, "said more than once: %s", text);
	unlink(log);
}

/* The buffer is the largest chunk of the task's writes; other actions get no device. */
static void test_the_task_buffer_is_its_largest_chunk(void)
{
	struct run_action body[3] = {
		{ .op = RUN_OP_MEMWRITE, .write_bytes = 5, .chunk_bytes = 128 },
		{ .op = RUN_OP_COMPUTE, .ns = 1000 },
		{ .op = RUN_OP_IOWRITE, .write_bytes = 5, .chunk_bytes = 512, .device = "/dev/null" },
	};
	struct run_task task = { .body = body, .body_len = 3 };
	struct run_writes writes;
	char error[512] = "";
	CHECK_OK(run_writes_init(&writes, &task, 0, error, sizeof(error)));
	CHECK_EQ(writes.buffer_bytes, 512);
	CHECK_EQ(writes.fds[0], -1);
	CHECK_EQ(writes.fds[1], -1);
	CHECK_GE(writes.fds[2], 0);
	run_writes_destroy(&writes);

	struct run_task none = { .body = &body[1], .body_len = 1 };
	CHECK_OK(run_writes_init(&writes, &none, 0, error, sizeof(error)));
	CHECK(writes.buffer == NULL);
}

static const struct h_case cases[] = {
	H_CASE(test_memwrite_stores_exactly_the_bytes_asked, 5000),
	H_CASE(test_memwrite_wraps_inside_the_buffer, 5000),
	H_CASE(test_iowrite_appends_the_bytes_to_a_file, 5000),
	H_CASE(test_iowrite_through_a_fifo_is_read_back_whole, 10000),
	H_CASE(test_a_device_that_cannot_be_opened_is_a_setup_error, 5000),
	H_CASE(test_a_failing_write_is_reported_with_path_and_errno, 5000),
	H_CASE(test_the_task_buffer_is_its_largest_chunk, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
