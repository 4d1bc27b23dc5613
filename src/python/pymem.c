/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pymem: the one read of a profiled process's memory the Python frame reader makes (py_read,
 * pyint.h says what it answers). A file of its own so that everything else of src/python can be
 * linked with a fake of it: fuzz/fuzz_pyread.c runs the reader over process images it makes up.
 */
#include <errno.h>
#include <sys/uio.h>

#include "python/pyint.h"

int py_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == len ? 0 : -EFAULT;
}
