/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crash: what perftop says when it dies of a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): one
 * line naming the signal and the faulting address, the return addresses of the faulting thread (as
 * module+offset, which addr2line or perftop's own build-id turn into lines), then the terminal put
 * back when the view had it, and the signal raised again so the exit status and a core dump are
 * the fault's. Everything in the handler is async-signal-safe: no stdio, no malloc.
 */
#ifndef PERFTOP_UTIL_CRASH_H
#define PERFTOP_UTIL_CRASH_H

/* Installs the handlers (on an alternate stack, so a stack overflow is reported too). */
void crash_report_install(void);

/* The terminal's state to put back on a crash: a descriptor and the bytes that leave the view
 * (the alternate screen, the hidden cursor, the mouse), plus the termios saved before raw mode.
 * fd < 0 forgets it. */
struct termios;
void crash_set_terminal(int fd, const struct termios *saved, const char *leave_seq);

#endif
