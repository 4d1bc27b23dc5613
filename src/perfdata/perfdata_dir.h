/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_dir: the directory a perf record --threads recording is (DIR/data and DIR/data.N), or the
 * files of one --switch-output session, put together as one perf.data file in memory that the
 * reader opens as it opens any file.
 */
#ifndef PERFTOP_PERFDATA_DIR_H
#define PERFTOP_PERFDATA_DIR_H

#include <stddef.h>

/* A memory file (memfd, at offset 0) holding DIR as one perf.data file, or -1 with a one-line
 * message in err (not such a directory, a piece unreadable, too big). */
int perfdata_dir_open(const char *dir, char *err, size_t errlen);
/* The same for n files of one session (perf record --switch-output): the first, then the data of
 * the others, which must have its events. */
int perfdata_files_open(const char *const *paths, size_t n, char *err, size_t errlen);

#endif
