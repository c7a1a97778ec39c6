/* SPDX-License-Identifier: MIT */
/*
 * liblitmus (LITMUS^RT 2017 user API) built from rtsched, on a stock kernel.
 * Installed as <litmus.h>; link with -llitmus. docs/from-litmus.md has the
 * whole mapping; in short:
 *
 *   The active "plugin" is read at init_litmus()/task_mode() from the
 *   environment variable RTSCHED_LITMUS_PLUGIN, else from the file
 *   RTSCHED_LITMUS_PLUGIN_FILE (default /run/rtsched/litmus-plugin) that
 *   `litmus-setsched` writes; neither: "Linux" (no real-time plugin).
 *     P-FP     SCHED_FIFO, pinned to rt_task.cpu; LITMUS priority 1..97 maps
 *              to SCHED_FIFO 98..2 (1 is the highest in LITMUS), and
 *              LITMUS_LOWEST_PRIORITY (the default) to SCHED_FIFO 1; 98..510
 *              are refused (EINVAL): SCHED_FIFO has no room to keep them apart.
 *     PSN-EDF  SCHED_DEADLINE pinned to rt_task.cpu. The kernel admits a pinned
 *              SCHED_DEADLINE thread only when its CPU is a root domain of its
 *              own: `litmus-setsched PSN-EDF` makes one exclusive cpuset per
 *              CPU; without them task_mode fails with EPERM and says so.
 *     GSN-EDF  SCHED_DEADLINE over every online CPU (rt_task.cpu is ignored,
 *              as LITMUS's GSN-EDF does).
 *     C-EDF    "C-EDF CLUSTERS" (L1, L2, L3: the CPUs sharing that cache;
 *              ALL; or a size in CPUs): SCHED_DEADLINE over the CPUs of the
 *              cluster holding rt_task.cpu, in the cluster's exclusive cpuset
 *              that `litmus-setsched C-EDF CLUSTERS` makes (a root domain:
 *              global EDF inside each cluster). EPERM without it.
 *   Under the EDF plugins the kernel's CBS always enforces exec_cost per
 *   period (as PRECISE_ENFORCEMENT), whatever budget_policy says; a job that
 *   stays within exec_cost sees no difference. P-FP cannot enforce budgets:
 *   PRECISE_ENFORCEMENT and QUANTUM_ENFORCEMENT are refused there (EINVAL).
 *
 *   A real-time task is the calling thread: set_rt_task_param, then
 *   task_mode(LITMUS_RT_TASK) releases its job 1 at once (plus phase);
 *   sleep_next_period completes the job and sleeps (absolute CLOCK_MONOTONIC)
 *   to the next release. Parameters may be set for another thread of this
 *   process (by TID). A thread of another process of the user is made a
 *   task as under LITMUS^RT: set_rt_task_param(TID), then
 *   sched_setscheduler(TID, SCHED_LITMUS) (interposed by -llitmus; other
 *   policies go to the kernel); the thread takes it up at its next
 *   sched_getscheduler or sleep_next_period, and sched_getscheduler
 *   answers SCHED_LITMUS (docs/from-litmus.md).
 *
 *   Synchronous release: wait_for_ts_release / release_ts /
 *   get_nr_ts_release_waiters meet in a POSIX shared-memory object per
 *   user, "/rtsched-litmus-ts.UID" or "/" + RTSCHED_LITMUS_TS_NAME (mode
 *   0600; another user's object of the name is refused, EACCES), so tasks in
 *   any process of the user are released together, as in LITMUS^RT. The
 *   last process to leave it (exit_litmus, or a normal exit) removes it;
 *   after a crash the next user finds no live user and starts it afresh.
 *
 *   Locks are named by (file, id) as in LITMUS: the file's device and inode
 *   name a shared table of rtsched ceiling mutexes ("/rtsched-litmus-lk.*")
 *   and its rtsched lock domain ("litmus.NONCE") shared by every process
 *   that opens the same file; its last process removes both (exit_litmus,
 *   or a normal exit), the next opener after a crash replaces them, and a
 *   lock whose holder died is released (docs/from-litmus.md). FMLP_SEM is rtsched's FMLP+, SRP_SEM SRP,
 *   PCP_SEM PCP (partition = the CPU given), MPCP_SEM MPCP. Ceilings are
 *   computed from the tasks that open a lock, as LITMUS does; so open every
 *   lock before the first job locks it (an open that raises the ceiling of a
 *   held lock fails with EBUSY). DPCP_SEM, DFLP_SEM and MPCP_VS_SEM are
 *   refused (ENOTSUP): rtsched has no agent or virtual-spinning protocol.
 *   Protocols a LITMUS plugin does not offer fail as LITMUS fails them
 *   (ENXIO: PSN-EDF offers FMLP and SRP, GSN-EDF FMLP, P-FP all four).
 *
 *   Tracing: with RTSCHED_LITMUS_TRACE=DIR each real-time task writes an
 *   rtsched trace DIR/litmus-PID-TID.rtst (release, start, completion of
 *   every job); `python -m rtsched.litmus.jobstats DIR` turns them into
 *   LITMUS^RT's st-job-stats CSV. A trace that cannot be written makes
 *   task_mode fail (with the file and the reason).
 *
 *   Declared so that LITMUS^RT programs build unchanged, but refused at run
 *   time (-1, errno ENOTSUP, the reason in litmus_last_error):
 *   reservations (reservation_create), null_call. The control page
 *   (get_ctrl_page) is a page of the thread's own that -llitmus keeps: the
 *   current job's release, deadline and job_index, enter_np's nesting;
 *   no kernel reads it, irq_count and np.preempt stay 0.
 *   Non-preemptive sections (enter_np / exit_np) have no stock-kernel
 *   mechanism: the section runs preemptible, enter_np says so once on
 *   stderr, requested_to_preempt is always 0. TASK_EARLY release is refused
 *   (EINVAL). liblitmus's tree headers "migration.h", "internal.h" and
 *   "asm/cycles.h" are in rtsched/liblitmus/ (pkg-config --variable=treedir
 *   liblitmus) for programs built inside a liblitmus tree.
 *
 * Functions report failure as liblitmus does: -1 with errno set (or a
 * negative value where liblitmus returns one). litmus_last_error() (an
 * rtsched extension) explains the calling thread's last failure in words.
 */
#ifndef LITMUS_H
#define LITMUS_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's TID (glibc's own since 2.30; declared here as liblitmus does). */
#ifndef __cplusplus
pid_t gettid(void);
#endif

/* ---- task parameters (LITMUS^RT's <litmus/rt_param.h>) ------------------ */

typedef unsigned long long lt_t; /* nanoseconds */

typedef enum {
	RT_CLASS_HARD,
	RT_CLASS_SOFT,
	RT_CLASS_BEST_EFFORT
} task_class_t;

typedef enum {
	NO_ENFORCEMENT,
	QUANTUM_ENFORCEMENT,
	PRECISE_ENFORCEMENT
} budget_policy_t;

typedef enum {
	TASK_SPORADIC,
	TASK_PERIODIC,
	TASK_EARLY /* refused: no stock-kernel scheduler releases jobs early */
} release_policy_t;

/* Fixed priorities: 1 is the highest, as in LITMUS^RT (see P-FP above). */
#define LITMUS_MAX_PRIORITY 512
#define LITMUS_HIGHEST_PRIORITY 1
#define LITMUS_LOWEST_PRIORITY (LITMUS_MAX_PRIORITY - 1)
#define LITMUS_NO_PRIORITY 0xffffffffu /* "none given" (rtspin -q); not a valid priority */
#define litmus_higher_fixed_prio(a, b) ((a) < (b))
#define litmus_lower_fixed_prio(a, b) ((a) > (b))
#define litmus_is_valid_fixed_prio(p) \
	((p) >= LITMUS_HIGHEST_PRIORITY && (p) <= LITMUS_LOWEST_PRIORITY)

struct rt_task {
	lt_t exec_cost;
	lt_t period;
	lt_t relative_deadline; /* 0: the period */
	lt_t phase;
	unsigned int cpu;       /* partition (P-FP, PSN-EDF) */
	unsigned int priority;  /* P-FP */
	task_class_t cls;
	budget_policy_t budget_policy;
	release_policy_t release_policy;
};

/* Defaults: RT_CLASS_SOFT, NO_ENFORCEMENT, TASK_SPORADIC, LITMUS_LOWEST_PRIORITY, zeros. */
void init_rt_task_param(struct rt_task *param);
/*
 * pid 0 or a TID of this process. EINVAL: NULL or bad values (exec_cost 0,
 * period 0, exec_cost above the deadline or the period, unknown class or
 * policy, a CPU that is not online, pid < 0); ESRCH: no such thread; EPERM:
 * a thread of another process; EBUSY: the thread is already real-time.
 */
int set_rt_task_param(pid_t pid, struct rt_task *param);
/* EINVAL: no parameters set for that thread. */
int get_rt_task_param(pid_t pid, struct rt_task *param);

/* The calling thread's parameters, defaults otherwise; times in ns. */
int sporadic_global(lt_t e_ns, lt_t p_ns);
int sporadic_partitioned(lt_t e_ns, lt_t p_ns, int partition);
int sporadic_clustered(lt_t e_ns, lt_t p_ns, int cluster); /* cpu = the domain's first CPU */

#define s2ns(s) ((s)*1000000000LL)
#define s2us(s) ((s)*1000000LL)
#define s2ms(s) ((s)*1000LL)
#define ms2ns(ms) ((ms)*1000000LL)
#define ms2us(ms) ((ms)*1000LL)
#define us2ns(us) ((us)*1000LL)
#define ns2s(ns) ((ns) / 1000000000LL)
#define ns2ms(ns) ((ns) / 1000000LL)
#define ns2us(ns) ((ns) / 1000LL)

/* "hrt", "srt", "be" (liblitmus's names; "hard" and "soft" also); -1 otherwise. */
task_class_t str2class(const char *str);
/* Prints exec_cost, period and cpu to stdout (as liblitmus). */
void show_rt_param(struct rt_task *tp);

/* The scheduling policy number of LITMUS^RT's class; a stock kernel refuses it (EINVAL). */
#define SCHED_LITMUS 7

/* ---- life cycle and jobs ------------------------------------------------ */

/* Reads the plugin; EINVAL (with litmus_last_error) for an unknown plugin name. */
int init_litmus(void);
int init_rt_thread(void);
/* Closes this process's locks and shared objects (a normal exit leaves them too). */
void exit_litmus(void);

enum rt_task_mode_t {
	BACKGROUND_TASK = 0,
	LITMUS_RT_TASK = 1
};
/*
 * LITMUS_RT_TASK: apply the plugin's policy to the calling thread (see the
 * top of this file) and release job 1 now + phase. EINVAL: no parameters,
 * the "Linux" plugin, a value the plugin refuses, C-EDF without clusters; EPERM /
 * EBUSY: the kernel refused (privilege, root domain, admission), explained
 * by litmus_last_error(). BACKGROUND_TASK: back to the policy and affinity
 * the thread had before.
 */
int task_mode(int target_mode);

/* Complete the job; sleep to the next release. EINVAL if not real-time. */
int sleep_next_period(void);
/* Sleep until job job_no is released (at once if it was). EINVAL if not real-time. */
int wait_for_job_release(unsigned int job_no);
/* The current job's number, 1 for the first. EPERM if not real-time. */
int get_job_no(unsigned int *job_no);
/* CPU time used by the current job and what is left of exec_cost (0 once overrun). */
int get_current_budget(lt_t *expended, lt_t *remaining);

/* ---- synchronous release ------------------------------------------------ */

/*
 * Complete the current job and wait for release_ts (from any process); the
 * next job is released at the release time + phase. EPERM if not real-time.
 */
int wait_for_ts_release(void);
/*
 * Release every waiting task at *when (CLOCK_MONOTONIC ns, as LITMUS^RT;
 * a time already past releases them now): returns how many, or -1 (EFAULT: NULL).
 */
int release_ts(lt_t *when);
int get_nr_ts_release_waiters(void);
/*
 * LITMUS reads /proc/litmus/stats: *ready = tasks waiting for release_ts,
 * *total = real-time tasks. rtsched knows only the waiters, so *total is
 * set to *ready (release_ts -w cannot wait for tasks that have not yet
 * arrived: give their number with -f). Returns 1 (liblitmus: non-zero = read).
 */
int read_litmus_stats(int *ready, int *total);

/* ---- domains and migration (LITMUS^RT's migration.h) -------------------- */

/* A domain is a CPU (P-FP, PSN-EDF), a cluster (C-EDF) or, under GSN-EDF, 0 = every
 * online CPU; one that does not exist: EINVAL. */
int be_migrate_thread_to_cpu(pid_t tid, int target_cpu);
int be_migrate_thread_to_domain(pid_t tid, int domain);
int be_migrate_to_cpu(int target_cpu);
int be_migrate_to_domain(int domain);
int num_online_cpus(void);
int release_master(void); /* -1: no release master */
int domain_to_first_cpu(int domain);
int partition_to_cpu(int partition);
int cluster_to_first_cpu(int cluster, int cluster_size); /* cluster * cluster_size, if online */
/* Deprecated LITMUS names: a cluster is a domain (cluster_sz is unused, as in LITMUS). */
int be_migrate_thread_to_cluster(pid_t tid, int domain);
int be_migrate_to_cluster(int cluster, int cluster_sz);
/* The CPUs of a domain / the domains of a CPU as a bit mask (CPUs 0..63); -1: EINVAL. */
int domain_to_cpus(int domain, unsigned long long int *mask);
int cpu_to_domains(int cpu, unsigned long long int *mask);
/*
 * Parse a kernel CPU mask ("1,00000000,00000000": 32-bit hex groups, most
 * significant first; the first group may be shorter) of len characters into
 * a new set (CPU_ALLOC: free with CPU_FREE) and its size in bytes. On bad
 * input *set is NULL and *sz 0.
 */
void set_mapping(char *buf, int len, cpu_set_t **set, size_t *sz);

/* ---- locks -------------------------------------------------------------- */

typedef enum {
	FMLP_SEM = 0,
	SRP_SEM = 1,
	MPCP_SEM = 2,
	MPCP_VS_SEM = 3, /* refused: ENOTSUP */
	DPCP_SEM = 4,    /* refused: ENOTSUP */
	PCP_SEM = 5,
	DFLP_SEM = 6,    /* refused: ENOTSUP */
} obj_type_t;

/* "FMLP", "SRP", "MPCP", "MPCP-VS" (or "MPCP_VS"), "DPCP", "PCP", "DFLP"; -1 otherwise. */
int lock_protocol_for_name(const char *name);
const char *name_for_lock_protocol(int id);

/*
 * Open lock obj_id of the file fd: an object descriptor (>= 0) or -1.
 * config: PCP, DPCP, DFLP: int * CPU (PCP: NULL is the caller's partition).
 * EBADF (fd), EINVAL (type, config), ENOTSUP (DPCP, DFLP, MPCP-VS, after the
 * caller's own errors EPERM / EINVAL), ENXIO (the plugin lacks the protocol),
 * EPERM (SRP, PCP, MPCP: the caller is not a real-time task), EBUSY (the
 * lock is held and this opener would raise its ceiling), ENOSPC (tables full).
 */
int od_openx(int fd, obj_type_t type, int obj_id, void *config);
int od_close(int od); /* EINVAL: not an open descriptor (as LITMUS^RT) */
static inline int od_open(int fd, obj_type_t type, int obj_id)
{
	return od_openx(fd, type, obj_id, 0);
}
/* As od_openx on the file name_space (created if missing). */
int litmus_open_lock(obj_type_t protocol, int lock_id, const char *name_space,
		     void *config_param);
/*
 * 0 or -1: EPERM (not a real-time task, or PCP/SRP from another partition),
 * EBUSY (LITMUS^RT's nesting rule: only PCP and SRP locks nest, in each
 * other; an FMLP/MPCP lock is taken holding none), EDEADLK (a held PCP/SRP
 * lock), EINVAL (unlock of a lock the caller does not hold, or an od that is
 * not open in this process: descriptors are not inherited across fork).
 */
int litmus_lock(int od);
int litmus_unlock(int od);

static inline int open_fmlp_sem(int fd, int name)
{
	return od_open(fd, FMLP_SEM, name);
}
static inline int open_srp_sem(int fd, int name)
{
	return od_open(fd, SRP_SEM, name);
}
static inline int open_pcp_sem(int fd, int name, int cpu)
{
	return od_openx(fd, PCP_SEM, name, &cpu);
}
static inline int open_mpcp_sem(int fd, int name)
{
	return od_open(fd, MPCP_SEM, name);
}
static inline int open_dpcp_sem(int fd, int name, int cpu)
{
	return od_openx(fd, DPCP_SEM, name, &cpu);
}
static inline int open_dflp_sem(int fd, int name, int cpu)
{
	return od_openx(fd, DFLP_SEM, name, &cpu);
}

/* ---- clocks ------------------------------------------------------------- */

lt_t litmus_clock(void);            /* CLOCK_MONOTONIC, ns */
int lt_sleep(lt_t timeout);         /* relative, ns */
void lt_sleep_until(lt_t wake_up_time);
double cputime(void);               /* the thread's CPU time, s */
double wctime(void);                /* CLOCK_REALTIME, s */
double monotime(void);              /* CLOCK_MONOTONIC, s */
void sleep_until_mono(double wake_up_time); /* absolute CLOCK_MONOTONIC, s */
void sleep_until_wc(double wake_up_time);   /* absolute CLOCK_REALTIME, s */

/* ---- LITMUS^RT kernel features a stock kernel lacks (see the top) -------- */

/* Non-preemptive sections: not enforced (the section runs preemptible). */
void enter_np(void);
void exit_np(void);
int requested_to_preempt(void); /* always 0 */

/*
 * The control page's layout as LITMUS^RT shares it. get_ctrl_page: the
 * calling thread's page (one page, kept by -llitmus, unmapped at thread
 * exit): release, deadline (ns, CLOCK_MONOTONIC) and job_index of the
 * current job, np.flag counts enter_np's nesting; np.preempt, irq_count and
 * the syscall timestamps stay 0 (no kernel writes them). NULL only if it
 * cannot be mapped.
 */
struct control_page {
	union {
		uint64_t raw;
		struct {
			uint32_t flag;    /* non-preemptive section nesting */
			uint32_t preempt; /* the kernel asked for a preemption */
		} np;
	} sched;
	volatile uint64_t irq_count;
	uint64_t ts_syscall_start;
	uint64_t irq_syscall_start;
	lt_t deadline; /* of the current job */
	lt_t release;  /* of the current job */
	uint32_t job_index;
};
struct control_page *get_ctrl_page(void);

/* Reservations (LITMUS^RT's P-RES plugin): reservation_create refuses (ENOTSUP). */
typedef enum {
	PERIODIC_POLLING = 10,
	SPORADIC_POLLING,
	TABLE_DRIVEN,
} reservation_type_t;

struct lt_interval {
	lt_t start;
	lt_t end;
};

struct reservation_config {
	unsigned int id;
	lt_t priority; /* LITMUS_NO_PRIORITY: EDF */
	int cpu;
	union {
		struct {
			lt_t period;
			lt_t budget;
			lt_t relative_deadline;
			lt_t offset;
		} polling_params;
		struct {
			lt_t major_cycle_length;
			unsigned int num_intervals;
			struct lt_interval *intervals;
		} table_driven_params;
	};
};
int reservation_create(int rtype, void *config);

/* The CPU's cycle counter (LITMUS^RT's asm/cycles.h), for null_call and overhead figures. */
typedef unsigned long long cycles_t;
#define CYCLES_FMT "llu"
static inline cycles_t get_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((cycles_t)hi << 32) | lo;
#elif defined(__aarch64__)
	cycles_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return (cycles_t)litmus_clock(); /* no counter known: nanoseconds */
#endif
}
/* A system call that does nothing, timed in the kernel: refused (ENOTSUP). */
int null_call(cycles_t *timestamp);

/* ---- rtsched extension -------------------------------------------------- */

/* Why the calling thread's last failing call failed ("" if none). */
const char *litmus_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LITMUS_H */
