/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_file.h: for the fuzz targets whose parser reads a file (jitmap, jitdump, buildid): one file
 * in a directory of the run's own, rewritten with each input, removed at exit. On tmpfs where
 * there is one: ext4 writes a file truncated and written again out to the disk at its close
 * (auto_da_alloc), which made a run wait on the disk. Header-only: each target is its own program.
 */
#ifndef PERFTOP_FUZZ_FILE_H
#define PERFTOP_FUZZ_FILE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_dir[64], fuzz_path[96];

static void must(int cond)
{
	if (!cond)
		abort();
}

static void fuzz_file_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

/* The file's path, made (with its directory, fuzz-TAG-XXXXXX) on the first call. */
static const char *fuzz_file(const char *tag, const char *name)
{
	if (!fuzz_path[0]) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-%s-XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", tag);
		must(mkdtemp(fuzz_dir) != NULL);
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/%s", fuzz_dir, name);
		atexit(fuzz_file_cleanup);
	}
	return fuzz_path;
}

/* The file now holds data[0..size) only. */
static void fuzz_file_write(const uint8_t *data, size_t size)
{
	int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	must(fd >= 0);
	must(write(fd, data, size) == (ssize_t)size);
	close(fd);
}

#endif
