/* SPDX-License-Identifier: MIT */
/* User-level contexts: stacks with a guard page, the first frame, sanitizer fibers. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal/ult_context.h"

/* Every context enters here, on its own stack, from rts_ult_first_entry. */
static void context_start(void *arg)
{
	struct rts_ult_context *ctx = arg;
#if RTS_ULT_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	ctx->entry(ctx->arg);
}

int rts_ult_context_create(struct rts_ult_context *ctx, size_t stack_bytes,
			   void (*entry)(void *arg), void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t usable = (stack_bytes + page - 1) / page * page;
	size_t total = usable + page;
	void *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	if (mprotect(map, page, PROT_NONE) != 0) { /* the guard page, lowest */
		int err = errno;
		munmap(map, total);
		return -err;
	}
	memset(ctx, 0, sizeof(*ctx));
	ctx->entry = entry;
	ctx->arg = arg;
	ctx->mapping = map;
	ctx->mapping_bytes = total;
	ctx->stack_low = (char *)map + page;
	ctx->stack_bytes = usable;

	ctx->sp = rts_ult_first_frame((uintptr_t)ctx->stack_low + usable, context_start, ctx);
#if RTS_ULT_TSAN
	ctx->tsan_fiber = __tsan_create_fiber(0);
#endif
	return 0;
}

void rts_ult_context_destroy(struct rts_ult_context *ctx)
{
	if (!ctx->mapping)
		return;
#if RTS_ULT_TSAN
	if (ctx->tsan_fiber)
		__tsan_destroy_fiber(ctx->tsan_fiber);
#endif
#if RTS_ULT_ASAN
	/* Frames left on a stack that switched away for good stay poisoned;
	 * a later mapping at this address must not inherit that. */
	__asan_unpoison_memory_region(ctx->stack_low, ctx->stack_bytes);
#endif
	munmap(ctx->mapping, ctx->mapping_bytes);
	ctx->mapping = NULL;
}

int rts_ult_context_of_thread(struct rts_ult_context *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	pthread_attr_t attr;
	int err = pthread_getattr_np(pthread_self(), &attr);
	if (err)
		return -err;
	err = pthread_attr_getstack(&attr, &ctx->stack_low, &ctx->stack_bytes);
	pthread_attr_destroy(&attr);
#if RTS_ULT_TSAN
	ctx->tsan_fiber = __tsan_get_current_fiber();
#endif
	return -err;
}
