/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pymem: the reads of a profiled process's memory the Python frame reader makes (py_read and
 * py_readv, pyint.h says what they answer), counted per thread. A file of its own so that
 * everything else of src/python can be linked with a fake of it: fuzz/fuzz_pyread.c runs the
 * reader over process images it makes up.
 */
#include <errno.h>
#include <sys/uio.h>

#include "python/pyint.h"

/* Each thread counts its own reads (the watcher's and the session's), so no lock is needed. */
static _Thread_local struct py_io io;

int py_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	io.calls++;
	io.bytes += got > 0 ? (uint64_t)got : 0;
	if (got < 0 || (size_t)got != len)
		io.failed++;
	if (got < 0)
		return -errno;
	return (size_t)got == len ? 0 : -EFAULT;
}

int py_readv(pid_t pid, const struct py_span *s, int n)
{
	struct iovec local[PY_SPANS_MAX], remote[PY_SPANS_MAX];
	if (n > PY_SPANS_MAX)
		n = PY_SPANS_MAX;
	for (int i = 0; i < n; i++) {
		local[i] = (struct iovec){ s[i].buf, s[i].len };
		remote[i] = (struct iovec){ (void *)(uintptr_t)s[i].addr, s[i].len };
	}
	ssize_t got = n > 0 ? process_vm_readv(pid, local, (unsigned long)n, remote,
					      (unsigned long)n, 0) : 0;
	io.calls++;
	/* the kernel stops at the first span it cannot read, and never splits one */
	int whole = 0;
	size_t left = got > 0 ? (size_t)got : 0;
	io.bytes += left;
	while (whole < n && left >= s[whole].len)
		left -= s[whole++].len;
	if (whole < n)
		io.failed++;
	return whole;
}

void py_io_take(struct py_io *out)
{
	*out = io;
	io = (struct py_io){ 0 };
}
