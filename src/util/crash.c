/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash: a fault's report on stderr, and the terminal given back (see crash.h).
 *
 * Thread boundary: the handler runs on whichever thread faulted (the sampler, the symbolizer's
 * helpers, the main loop); what it reads (the terminal's saved state) is written once by the main
 * thread before the view starts and read only here, through a sig_atomic_t flag.
 */
#include "util/crash.h"

#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t term_saved;
static int term_fd = -1;
static struct termios term_state;
static char term_leave[64];

void crash_set_terminal(int fd, const struct termios *saved, const char *leave_seq)
{
	term_saved = 0;
	if (fd < 0 || !saved)
		return;
	term_fd = fd;
	term_state = *saved;
	size_t n = leave_seq ? strlen(leave_seq) : 0;
	if (n >= sizeof(term_leave))
		n = sizeof(term_leave) - 1;
	memcpy(term_leave, leave_seq ? leave_seq : "", n);
	term_leave[n] = '\0';
	term_saved = 1;
}

static void put(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));
	(void)r;
}

/* A number in hex without printf (not async-signal-safe). */
static void put_hex(uintptr_t v)
{
	char buf[2 + 2 * sizeof(v) + 1], *p = buf + sizeof(buf) - 1;
	*p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	put(p);
}

static void put_dec(long v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;
	*p = '\0';
	unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	put(p);
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	/* The terminal first: the report must land on a usable screen. */
	if (term_saved) {
		ssize_t r = write(term_fd, term_leave, strlen(term_leave));
		(void)r;
		tcsetattr(term_fd, TCSANOW, &term_state);
	}
	put("perftop: crashed: ");
	put(sigabbrev_np(sig) ? sigabbrev_np(sig) : "signal");
	put(" (signal ");
	put_dec(sig);
	if (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE) {
		put(") sent by process ");
		put_dec((long)si->si_pid);
	} else {
		put(") at address ");
		put_hex((uintptr_t)si->si_addr);
	}
	put(", thread ");
	put_dec((long)gettid());
	put("; backtrace:\n");
	void *frames[64];
	int n = backtrace(frames, 64);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	/* SA_RESETHAND put the default action back: the fault again ends the process with its signal
	 * (and a core where the machine keeps them). */
	raise(sig);
}

void crash_report_install(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The sanitizers' own handlers say more (the access, the allocation): they are kept. */
	return;
#endif
	/* backtrace loads libgcc on its first call, which mallocs: done now, not in the handler. */
	void *warm[1];
	backtrace(warm, 1);
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
