/*
 * SPDX-License-Identifier: MIT
 *
 * A Promela model of the FIFO mutex and its condition variable (seed 000,
 * Züpke; src/lock/fifo_queue.c, fifo_mutex.c, src/sync/cond_fifo.c), for
 * spin to explore exhaustively: NTHREADS threads, 2 objects (mutex M and
 * condvar C), each thread ITERS rounds of lock -> (wait | signal | broadcast
 * | nothing) -> unlock, every lock and wait possibly timed (a timeout may
 * come at any moment).
 *
 * User steps (one CAS each) and the library's queue operations (one atomic
 * block each: they run under a queue lock and touch nothing but the words
 * and records of M and C) are modelled as in the code:
 *   S = (S_owner, S_W), Q, Q' (QC), per-thread records nxt/prv/head_of/st.
 *
 * Checked:
 *   mutual exclusion      in_cs <= 1, and the one inside owns S;
 *   FIFO order            the mutex queue, from its head, is in order of
 *                         arrival (ghost tickets), and MUTEX_WAKE grants the head;
 *   no lost wake-up       a non-empty mutex queue has an owner with WAITERS set
 *                         (its unlock will hand over); spin's end-state check:
 *                         no thread sleeps forever;
 *   no waiter left behind a record that is idle or granted is in no queue,
 *                         and every record reachable from Q or Q' is waiting;
 *   queue words           Q / Q' name exactly the records marked as heads, and
 *                         the condvar's count is its queue's length.
 * Seeded bug (spin -DBUG_KEEP_QPRIME): the broadcast does not clear Q'.
 */
#ifndef NTHREADS
#define NTHREADS 3
#endif
#ifndef ITERS
#define ITERS 1
#endif

#define NONE 0
#define HEAD_M 1
#define HEAD_C 2

#define IDLE 0
#define MQUEUED 1
#define CQUEUED 2
#define MOVED 3
#define GRANTED 4

byte S_owner = 0;
bool S_W = false;
byte Q = 0;
byte QC = 0;
byte nxt[NTHREADS + 1];
byte prv[NTHREADS + 1];
byte head_of[NTHREADS + 1];
byte st[NTHREADS + 1];
/* ghost: inq[t] t is in the mutex queue; before[a * 4 + b] a entered it before b */
bool inq[NTHREADS + 1];
bool before[16];
byte cond_waiters = 0;
byte in_cs = 0;
/* scratch of the atomic steps (always 0 between them) */
byte at, tail, last, first, h, n, n2, t, u;

#define waiting(r) (st[r] == MQUEUED || st[r] == CQUEUED || st[r] == MOVED)

/* Walk one queue from its word: every record waiting, each a head only if first; count it. */
inline walk(word, kind, count, ordered) {
	count = 0;
	if
	:: word != 0 ->
		at = word;
		do
		:: count <= NTHREADS ->
			assert(waiting(at));
			assert((at == word && head_of[at] == kind) || (at != word && head_of[at] == NONE));
			assert(prv[nxt[at]] == at);
			if
			:: ordered && nxt[at] != word -> assert(!before[nxt[at] * 4 + at])
			:: else
			fi;
			count++;
			at = nxt[at];
			if
			:: at == word -> break
			:: else
			fi
		:: else -> assert(false) /* a cycle that never returns to the head */
		od
	:: else
	fi
}

inline check_invariants() {
	walk(Q, HEAD_M, n, true);
	walk(QC, HEAD_C, n2, false);
	assert(n2 == cond_waiters);
	assert(Q == 0 || (S_owner != 0 && S_W)); /* someone will hand over */
	t = 1;
	do
	:: t <= NTHREADS ->
		if
		:: st[t] == IDLE || st[t] == GRANTED -> assert(nxt[t] == t && head_of[t] == NONE)
		:: else
		fi;
		assert(head_of[t] != HEAD_M || Q == t);
		assert(head_of[t] != HEAD_C || QC == t);
		t++
	:: else -> break
	od;
	t = 0; n = 0; n2 = 0; at = 0
}

/* Append the circular list headed by first to the queue whose word is word. */
inline append(word, first, kind) {
	if
	:: word == 0 -> head_of[first] = kind; word = first
	:: else ->
		tail = prv[word]; last = prv[first];
		nxt[tail] = first; prv[first] = tail;
		nxt[last] = word; prv[word] = last;
		head_of[first] = NONE
	fi;
	tail = 0; last = 0
}

inline unlink(word, r) {
	if
	:: nxt[r] == r -> word = 0
	:: else ->
		nxt[prv[r]] = nxt[r]; prv[nxt[r]] = prv[r];
		if
		:: head_of[r] != NONE -> head_of[nxt[r]] = head_of[r]; word = nxt[r]
		:: else
		fi
	fi;
	head_of[r] = NONE; nxt[r] = r; prv[r] = r
}

/* Ghost: r enters the mutex queue behind everybody in it. */
inline arrive(r) {
	u = 1;
	do
	:: u <= NTHREADS -> before[u * 4 + r] = inq[u]; u++
	:: else -> break
	od;
	inq[r] = true; u = 0
}

/* Ghost: r leaves the mutex queue; when granted, nobody who came before it is still there. */
inline depart(r, granted) {
	u = 1;
	do
	:: u <= NTHREADS ->
		assert(!granted || !(inq[u] && before[u * 4 + r]));
		before[u * 4 + r] = false; before[r * 4 + u] = false; u++
	:: else -> break
	od;
	inq[r] = false; u = 0
}

/* Ghost: a list entering the mutex queue arrives in its order. */
inline arrive_list(first) {
	at = first;
	do
	:: arrive(at); at = nxt[at];
	   if
	   :: at == first -> break
	   :: else
	   fi
	od;
	at = 0
}

inline mutex_wake() {
	if
	:: Q == 0 -> S_owner = 0; S_W = false
	:: else ->
		h = Q;
		depart(h, true);
		unlink(Q, h);
		S_owner = h; S_W = (Q != 0);
		st[h] = GRANTED; h = 0
	fi;
	check_invariants()
}

inline in_cond_queue(r, result) {
	at = r;
	do
	:: head_of[at] != NONE -> result = (head_of[at] == HEAD_C); break
	:: else -> at = prv[at]
	od;
	at = 0
}

proctype thread(byte me)
{
	byte iter = 0;
	byte seen_owner;
	bool in_c;
	bool timed;

	do
	:: iter < ITERS ->
		iter++;
lock:
		if
		:: atomic { S_owner == 0 && !S_W -> S_owner = me }          /* CAS 0 -> me */
			goto owned
		:: atomic { S_owner != 0 -> seen_owner = S_owner }          /* S seen held */
		fi;
		/* CAS S -> S | W (or it is set already) */
		atomic {
			if
			:: S_owner == seen_owner -> S_W = true
			:: else -> goto lock
			fi
		}
		/* MUTEX_WAIT */
		atomic {
			if
			:: S_owner == seen_owner && S_W ->
				st[me] = MQUEUED; nxt[me] = me; prv[me] = me;
				arrive(me);
				append(Q, me, HEAD_M);
				check_invariants()
			:: else -> goto lock
			fi
		}
		if
		:: true -> timed = true
		:: true -> timed = false
		fi;
		if
		:: st[me] == GRANTED
		:: timed ->                                                 /* DEQUEUE */
			atomic {
				if
				:: st[me] == GRANTED
				:: else ->
					depart(me, false);
					unlink(Q, me);
					if
					:: Q == 0 -> S_W = false
					:: else
					fi;
					st[me] = IDLE;
					check_invariants();
					goto next_round
				fi
			}
		fi;
		st[me] = IDLE;
owned:
		atomic { in_cs++; assert(in_cs == 1 && S_owner == me) }
		in_cs--;
		if
		:: true -> skip
		:: atomic {                                                 /* COND_REQUEUE, one */
			QC != 0 ->
				at = QC; unlink(QC, at); cond_waiters--;
				st[at] = MOVED; arrive(at);
				append(Q, at, HEAD_M); S_W = true; at = 0;
				check_invariants()
		   }
		:: atomic {                                                 /* COND_REQUEUE, all */
			QC != 0 ->
				first = QC;
#ifndef BUG_KEEP_QPRIME
				QC = 0;
#endif
				cond_waiters = 0;
				arrive_list(first);
				append(Q, first, HEAD_M); S_W = true; first = 0;
				check_invariants()
		   }
		:: atomic {                                                 /* COND_WAIT (timed) */
			st[me] = CQUEUED; nxt[me] = me; prv[me] = me;
			append(QC, me, HEAD_C); cond_waiters++;
			check_invariants()
		   }
			/* unlock, then sleep */
			if
			:: atomic { S_owner == me && !S_W -> S_owner = 0 }
			:: atomic { S_W -> mutex_wake() }
			fi;
			if
			:: st[me] == GRANTED -> st[me] = IDLE; goto owned_again
			:: st[me] != GRANTED -> atomic {                     /* timeout: DEQUEUE */
				if
				:: st[me] == CQUEUED ->
					in_cond_queue(me, in_c);
					if
					:: in_c -> unlink(QC, me); cond_waiters--; st[me] = IDLE
					:: else
					fi
				:: else
				fi;
				check_invariants()
			   }
				if
				:: st[me] == IDLE -> goto lock              /* left the condvar: lock again */
				:: else -> st[me] == GRANTED; st[me] = IDLE  /* moved: wait for the hand-over */
				fi
			fi;
owned_again:
			atomic { in_cs++; assert(in_cs == 1 && S_owner == me) }
			in_cs--
		fi;
		/* unlock: CAS me -> 0, or MUTEX_WAKE */
		if
		:: atomic { S_owner == me && !S_W -> S_owner = 0 }
		:: atomic { S_W -> mutex_wake() }
		fi;
next_round:
		skip
	:: else -> break
	od
}

init {
	atomic {
		t = 1;
		do
		:: t <= NTHREADS -> nxt[t] = t; prv[t] = t; t++
		:: else -> break
		od;
		t = 0;
		run thread(1);
		run thread(2);
#if NTHREADS > 2
		run thread(3);
#endif
	}
}
