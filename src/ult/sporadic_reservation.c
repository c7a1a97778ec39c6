/* SPDX-License-Identifier: MIT */
/*
 * A sporadic reservation's budget (docs/reservations.md, "Sporadic servers"):
 * the sporadic server of Sprunt, Sha and Lehoczky with the corrections of
 * Stanovich, Baker, Wang and González Harbour (RTAS 2010), the rules of the
 * simulator's python/rtsched/sim/sporadic_server.py and
 * sporadic_reservation.py, driven by the cluster's decisions
 * (ult/reservation.c):
 *
 *  1. Activation: it is active from the decision that finds a task inside
 *     ready while none was until the one that finds none.
 *  2. Consumption: only while a task inside runs (from the decision that
 *     entered it to the next), from the refills oldest first. The next
 *     decision is at the latest when its eligible budget is used up or the
 *     next refill becomes eligible, so a run draws on one set of refills.
 *  3. Replenishment: what a run took from a refill eligible since e, in an
 *     activation that began at a, is posted again at max(a, e) + period. So
 *     budget that came back while it waited with work is posted at its own
 *     time + period (no premature replenishment), and what is posted is what
 *     ran (no budget amplification).
 *
 * Invariants: the refills are sorted by time with distinct times, positive
 * amounts summing to the budget (only ever moved later, never created). A
 * run that overran its limit (the decision comes late by the timer's
 * latency) takes the excess from the next refills, oldest first, and posts
 * it after them: budget is deferred, never created; beyond the whole budget
 * it is not charged (as a periodic reservation's depletion). seen_ns is the
 * eligible budget as the last decision left it, less what runs took from it
 * since: what is eligible above it at a decision came back since, and is
 * traced once, as one REPLENISH (arg0 the amount).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal/sporadic_reservation.h"

#include <rtsched/trace.h>

int rts_ult_sporadic_create(struct rts_reservation *r)
{
	struct rts_sporadic_state *s = calloc(1, sizeof(*s));
	if (!s)
		return ENOMEM;
	s->refills[0] = (struct rts_sporadic_refill){.at_ns = 0, .amount_ns = r->budget_ns};
	s->n_refills = 1;
	s->running_since_ns = -1;
	r->sporadic = s;
	return 0;
}

static int64_t eligible_ns(const struct rts_sporadic_state *s, int64_t now_ns)
{
	int64_t sum = 0;
	for (size_t i = 0; i < s->n_refills && s->refills[i].at_ns <= now_ns; i++)
		sum += s->refills[i].amount_ns;
	return sum;
}

/* Rule 3's posting: merged with a refill at the same time; with the list full, into the last
 * one at the later of the two times. */
static void post(struct rts_sporadic_state *s, struct rts_sporadic_refill p)
{
	size_t i = 0;
	while (i < s->n_refills && s->refills[i].at_ns < p.at_ns)
		i++;
	if (i < s->n_refills && s->refills[i].at_ns == p.at_ns) {
		s->refills[i].amount_ns += p.amount_ns;
		return;
	}
	if (s->n_refills == RTS_SPORADIC_MAX_REFILLS) {
		struct rts_sporadic_refill *last = &s->refills[s->n_refills - 1];
		if (p.at_ns > last->at_ns)
			last->at_ns = p.at_ns;
		last->amount_ns += p.amount_ns;
		return;
	}
	memmove(&s->refills[i + 1], &s->refills[i], (s->n_refills - i) * sizeof(s->refills[0]));
	s->refills[i] = p;
	s->n_refills++;
}

/* Take used_ns from the refills oldest first and post each part back (rule 3); returns what
 * was taken from refills eligible at now_ns. */
static int64_t consume(struct rts_sporadic_state *s, int64_t period_ns, int64_t used_ns, int64_t now_ns)
{
	struct rts_sporadic_refill postings[RTS_SPORADIC_MAX_REFILLS];
	size_t n_postings = 0;
	int64_t taken_eligible = 0;
	while (used_ns > 0 && s->n_refills > 0) {
		struct rts_sporadic_refill *head = &s->refills[0];
		int64_t take = used_ns < head->amount_ns ? used_ns : head->amount_ns;
		int64_t from = head->at_ns > s->activation_ns ? head->at_ns : s->activation_ns;
		postings[n_postings++] = (struct rts_sporadic_refill){.at_ns = from + period_ns, .amount_ns = take};
		if (head->at_ns <= now_ns)
			taken_eligible += take;
		used_ns -= take;
		if (take == head->amount_ns) {
			s->n_refills--;
			memmove(&s->refills[0], &s->refills[1], s->n_refills * sizeof(s->refills[0]));
		} else {
			head->amount_ns -= take;
		}
	}
	for (size_t i = 0; i < n_postings; i++)
		post(s, postings[i]);
	return taken_eligible;
}

void rts_ult_sporadic_stop(struct rts_reservation *r, int64_t used, int64_t now_ns)
{
	struct rts_sporadic_state *s = r->sporadic;
	int64_t since = s->running_since_ns;
	if (since < 0)
		return;
	s->running_since_ns = -1;
	if (used <= 0)
		return;
	r->stats.consumed_ns += used;
	s->seen_ns -= consume(s, r->period_ns, used, now_ns);
	if (eligible_ns(s, now_ns) > 0)
		return;
	r->stats.depletions++;
	if (r->stream) { /* at the instant its eligible budget ran out, if the decision came late */
		int64_t at = since + r->remaining_ns < now_ns ? since + r->remaining_ns : now_ns;
		rts_trace_event_at(r->stream, at, RTS_EV_RESERVATION_DEPLETE, r->stats.replenishments, 0,
				   r->budget_ns);
	}
}

static void trace_replenish(struct rts_reservation *r, int64_t at_ns, int64_t amount_ns)
{
	r->stats.replenishments++;
	if (r->stream)
		rts_trace_event_at(r->stream, at_ns, RTS_EV_RESERVATION_REPLENISH, r->stats.replenishments,
				   amount_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)amount_ns, r->budget_ns);
}

void rts_ult_sporadic_update(struct rts_reservation *r, bool backlogged, int64_t t0_ns, int64_t now_ns)
{
	struct rts_sporadic_state *s = r->sporadic;
	if (!s->started) { /* the whole budget at t0, as a periodic reservation's first period */
		s->started = true;
		s->seen_ns = r->budget_ns;
		trace_replenish(r, t0_ns, 0);
	}
	if (backlogged && !s->active) {
		s->active = true;
		s->activation_ns = now_ns;
	} else if (!backlogged) {
		s->active = false;
	}
	int64_t eligible = eligible_ns(s, now_ns);
	if (eligible > s->seen_ns)
		trace_replenish(r, now_ns, eligible - s->seen_ns);
	s->seen_ns = eligible;
	r->remaining_ns = eligible;
}

void rts_ult_sporadic_start(struct rts_reservation *r, int64_t now_ns)
{
	r->sporadic->running_since_ns = now_ns;
}

int64_t rts_ult_sporadic_next_ns(const struct rts_reservation *r, int64_t t0_ns, int64_t after_ns)
{
	const struct rts_sporadic_state *s = r->sporadic;
	if (!s->started)
		return t0_ns > 0 ? t0_ns : INT64_MAX;
	for (size_t i = 0; i < s->n_refills; i++)
		if (s->refills[i].at_ns > after_ns)
			return s->refills[i].at_ns;
	return INT64_MAX;
}
