/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfdata_write: recording a live session as a perf.data file (perf's PERFILE2 format), so that
 * perf report, perf script and every other perf.data reader can open what perftop recorded.
 *
 * The file is written while the session runs, by the sampler thread only: the raw ring records of
 * one pass over the rings go out in one write(2), followed by a FINISHED_ROUND record, and about
 * once a second the header's data size is rewritten in place (pwrite) so that a recording cut short
 * by SIGKILL is still a valid file covering everything up to that update (under its temporary name:
 * the file takes its name only at close, util/safefile.h). The first bytes of the
 * data are what a reader needs before any sample: the kernel's mapping ([kernel.kallsyms]_text, as
 * perf synthesizes it) and the COMM/MMAP2 records of the processes that existed at start.
 *
 * A write error (ENOSPC, EIO...) stops the recording, never the session: the header is left
 * covering the last complete pass and perfdata_writer_error says why. perfdata_writer_close (any
 * thread, after the writing thread is done) appends the feature sections (the tracepoints' formats
 * when the file has tracepoint events (perfdata_tracing.h), build-ids of the binaries samples hit,
 * hostname, OS release, version, arch, CPUs, CPU description and id, memory, command line, event
 * description) and writes the final header.
 *
 * Telling a finished recording from a cut one: the feature bitmap in the header stays all zero
 * until perfdata_writer_close sets it (a file perf record finished always has features too), so a
 * reader that finds no feature bits in a PERFILE2 file knows the writer never finished: the
 * header's data size is then a lower bound (the last sync), and complete records may follow it up
 * to the end of the file.
 *
 * Build-ids: the writer follows the mappings itself (MMAP/MMAP2, FORK, exec COMM, fed in time order
 * through perfdata_writer_note) and marks the file that each sample's IP falls in, as perf record
 * does; at close it takes the build-id from the kernel's MMAP2 record when it carried one, else
 * reads it from the file's ELF notes. This keeps the sampler free of the symbolizer.
 */
#ifndef PERFTOP_PERFDATA_WRITE_H
#define PERFTOP_PERFDATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "record/record.h"
#include "sampler/sampler.h"

struct perfdata_writer;

/*
 * Starts path: a new file under a temporary name beside it (mode 0600, the sudo user's when run
 * through sudo), renamed over path by perfdata_writer_close, an existing regular file becoming
 * path.old as perf's does (safefile.h); a FIFO or device at path is refused. Writes the header, the events' attrs with their ids
 * and the kernel's mapping. ev are the nev events as opened (at least one, at most
 * SAMPLER_MAX_EVENTS), each named in EVENT_DESC as perf record names a file's events; the first
 * carries the side-band, so its sample_type decides the sample_id trailer of the records we
 * synthesize, and they carry its first id. NULL with a one-line message in err on failure.
 */
struct perfdata_writer *perfdata_writer_open(const char *path, const struct sampler_tee_event *ev,
                                             size_t nev, char *err, size_t errlen);

/* The stream form (pipe mode, as perf record -o - writes it) to fd, which the writer owns from now
 * on (it is closed by perfdata_writer_close, also on failure); name is what messages call it. */
struct perfdata_writer *perfdata_writer_open_fd(int fd, const char *name,
                                                const struct sampler_tee_event *ev, size_t nev,
                                                char *err, size_t errlen);

/* Appends one raw record (perf_event_header first, len == header.size) to the current pass. */
void perfdata_writer_add(struct perfdata_writer *w, const void *raw, size_t len);

/* Encodes a synthesized COMM or MMAP record (struct rec form) and appends it. -EINVAL for other
 * types. */
int perfdata_writer_add_rec(struct perfdata_writer *w, const struct rec *r);

/* Follows mappings and marks the binaries samples hit (for BUILD_ID). Feed records in time order.
 */
void perfdata_writer_note(struct perfdata_writer *w, const struct rec *r);

/*
 * Ends a pass: appends FINISHED_ROUND when round is set and the pass holds records, writes the pass
 * with write(2), and rewrites the header's data size when a second has passed since the last time
 * (or when sync_header). Returns 0, or the -errno that stopped the recording (then and ever after).
 */
int perfdata_writer_end_pass(struct perfdata_writer *w, bool round, bool sync_header);

/* 0 while recording works, else the -errno that stopped it. */
int perfdata_writer_error(const struct perfdata_writer *w);
/* Data bytes on disk so far, and nanoseconds spent in write(2)/pwrite(2). */
uint64_t perfdata_writer_bytes(const struct perfdata_writer *w);
uint64_t perfdata_writer_write_ns(const struct perfdata_writer *w);

/* Writes the feature sections and the final header, closes and frees. 0, or -errno with a message
 * in err (the data written so far stays readable). */
int perfdata_writer_close(struct perfdata_writer *w, char *err, size_t errlen);

/*
 * Encodes a COMM, MMAP or MMAP2 record in struct rec form as the raw bytes the kernel would have
 * written, with the sample_id trailer sample_type asks for (when sample_id_all), id as its ID and
 * IDENTIFIER and time, cpu from the record (0 for unknown ones). Returns the record's size, 0 when
 * cap is too small or the type is not one of those.
 */
size_t perfdata_encode_rec(const struct rec *r, uint64_t sample_type, bool sample_id_all,
                           uint64_t id, void *out, size_t cap);

/* The writer as the sampler's tee (sampler.h): sampler_opts.tee = perfdata_tee(), tee_arg = the
 * path. */
const struct sampler_tee_ops *perfdata_tee(void);
/* The same in the stream form to a file descriptor: tee_arg = the fd, (void *)(intptr_t)fd. */
const struct sampler_tee_ops *perfdata_tee_fd(void);

#endif
