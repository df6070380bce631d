/* The same-machine schedule of one run; see schedule.h for the rules. */
#include "run/schedule.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

void sched_init(struct sched *s, int n, int concurrent)
{
	memset(s, 0, sizeof(*s));
	s->n = n > 0 ? n : 0;
	s->concurrent = concurrent;
	s->hosts = bf_xcalloc((size_t)s->n + 1, sizeof(*s->hosts));
	s->ids = bf_xcalloc((size_t)s->n + 1, sizeof(*s->ids));
	for (int i = 0; i < s->n; i++)
		s->hosts[i].group = i;
}

void sched_free(struct sched *s)
{
	free(s->hosts);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

/* Each host's group from the identified ones (machine_groups). */
static void regroup(struct sched *s)
{
	int *known = bf_xcalloc((size_t)s->n + 1, sizeof(*known));
	int *group = bf_xcalloc((size_t)s->n + 1, sizeof(*group));

	for (int i = 0; i < s->n; i++)
		known[i] = s->hosts[i].identified;
	machine_groups(s->ids, known, s->n, group);
	for (int i = 0; i < s->n; i++)
		s->hosts[i].group = group[i];
	free(group);
	free(known);
}

int sched_answered(struct sched *s, int k, const struct machine_id *id,
		   int failed)
{
	struct sched_host *h;

	if (k < 0 || k >= s->n || s->hosts[k].answered)
		return 0;
	h = &s->hosts[k];
	h->answered = 1;
	h->failed = failed != 0;
	h->identified = id != NULL && !failed;
	if (h->identified)
		s->ids[k] = *id;
	regroup(s);
	return ++s->answered == s->n;
}

void sched_said(struct sched *s)
{
	s->identified_all = 1;
}

int sched_may_start(const struct sched *s, int k, int *blocker)
{
	const struct sched_host *h = &s->hosts[k];

	*blocker = -1;
	if (!h->answered)
		return 0;
	if (h->failed)
		return 1;
	for (int j = 0; j < k; j++)
		if (!s->hosts[j].answered)
			return 0;
	if (s->concurrent || !h->identified)
		return 1;
	for (int j = 0; j < s->n; j++) {
		const struct sched_host *o = &s->hosts[j];

		if (j == k || !o->identified || o->group != h->group)
			continue;
		if (!s->identified_all)
			return 0; /* the machines are said first */
		if (o->started && !o->ended) {
			*blocker = j;
			return 0;
		}
		if (j < k && !o->started && *blocker < 0)
			*blocker = j;
	}
	return *blocker < 0;
}

int sched_next(const struct sched *s, int *wait_for)
{
	int left = 0;

	for (int k = 0; k < s->n; k++) {
		int blocker;

		if (wait_for)
			wait_for[k] = -1;
		if (s->hosts[k].started)
			continue;
		left++;
		if (sched_may_start(s, k, &blocker)) {
			for (int j = k + 1; wait_for && j < s->n; j++)
				wait_for[j] = -1;
			return k;
		}
		if (wait_for && blocker >= 0 && s->identified_all)
			wait_for[k] = blocker;
	}
	return left ? SCHED_NONE_NOW : SCHED_NONE_LEFT;
}

void sched_started(struct sched *s, int k)
{
	if (k >= 0 && k < s->n)
		s->hosts[k].started = 1;
}

void sched_ended(struct sched *s, int k)
{
	if (k >= 0 && k < s->n)
		s->hosts[k].ended = 1;
}
