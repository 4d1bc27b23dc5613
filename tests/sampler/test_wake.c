/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_wake: the hand-off's wake descriptor (sampler_wake_clear) is never left readable with
 * nothing to say. The sampler thread raises the wake flag, then writes the eventfd; a clear that
 * runs between the two finds nothing to read. If it lowered the flag then, the write that follows
 * would stay unread (later clears skip the read while the flag is down) and a view waiting on the
 * descriptor would wake at once, again and again, until the thread's next push: on an idle target,
 * never. The thread's two steps are played here by hand, so the interleaving is the exact one.
 */
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "check.h"
#include "sampler/sampler_int.h"

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1;
}

/* What the thread does after a push (sampler_thread.c's wake_consumer), in its two steps. */
static bool raise_flag(struct sampler *s)
{
	return !atomic_exchange(&s->wake_pending, true);
}

static void write_wake(struct sampler *s)
{
	uint64_t one = 1;
	CHECK(write(s->wake_fd, &one, sizeof(one)) == sizeof(one));
}

int main(void)
{
	static struct sampler s;
	s.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(s.wake_fd >= 0);
	atomic_store(&s.wake_pending, false);

	/* The ordinary turn: flag, write, clear. */
	CHECK(raise_flag(&s));
	write_wake(&s);
	CHECK(readable(s.wake_fd));
	sampler_wake_clear(&s);
	CHECK(!readable(s.wake_fd));
	CHECK(!atomic_load(&s.wake_pending));

	/* The clear between the thread's flag and its write. */
	CHECK(raise_flag(&s));
	sampler_wake_clear(&s);  /* nothing to read yet */
	write_wake(&s);
	CHECK(readable(s.wake_fd));  /* the view wakes once for it... */
	sampler_wake_clear(&s);
	CHECK(!readable(s.wake_fd)); /* ...and the next clear takes it */
	CHECK(!atomic_load(&s.wake_pending));

	/* And the thread's next push still wakes the view. */
	CHECK(raise_flag(&s));
	write_wake(&s);
	CHECK(readable(s.wake_fd));
	sampler_wake_clear(&s);
	CHECK(!readable(s.wake_fd));

	close(s.wake_fd);
	return CHECK_DONE();
}
