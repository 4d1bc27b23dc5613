/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pusher: the session's side of --push: when a window of the profile is due to go, under which
 * name and labels, and the report at the end. The sending itself is push/ (its own thread); the
 * body of a window is the session's to make (session_push_body in session.c).
 */
#ifndef PERFTOP_PUSHER_H
#define PERFTOP_PUSHER_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session_opts.h"
#include "push/push.h"

struct pusher;

/* For c->push_url (NULL when there is none: returns NULL with err empty). NULL with a one-line
 * message in err when the push cannot start. */
struct pusher *pusher_open(const struct session_opts *c, char *err, size_t errlen);
/* Whether a window ends now: its interval (jittered) has passed since the last, or final (the
 * session closes). Then true, with its start and end as Unix times in ns; the next window starts
 * at its end. The first window starts at the first call. */
bool pusher_due(struct pusher *pp, bool final, int64_t *from_ns, int64_t *until_ns);
/* Hands a window's body (malloc'd, becomes the push's) to the push thread; never blocks. series:
 * the labels of one series of the window ("k=v,k=v"), NULL for the push's alone. */
void pusher_submit(struct pusher *pp, void *body, size_t len, int64_t from_ns, int64_t until_ns,
		   unsigned hz, const char *series);
/* The series a window is split into at most (--push-per container): the containers of most
 * samples, the rest summed into one more, container=other. */
#define PUSHER_SERIES_MAX 64
void pusher_get_stats(struct pusher *pp, struct push_stats *st);
/* Sends what waits for a few seconds at most, then says on stderr what could not be sent. */
void pusher_close(struct pusher *pp);

#endif
