/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfo: finding the separate debug file of a binary, as gdb and perf do, and fetching it from
 * debuginfod servers in the background.
 *
 * Where a debug file is looked for, in order (each path first under --symfs DIR when one is given):
 *   1. by build-id: a file fetched by debuginfod this session; DEBUG_ROOT/.build-id/xx/yyyy.debug
 *      (DEBUG_ROOT is /usr/lib/debug, or $PERFTOP_DEBUG_ROOT for tests); perf's build-id cache
 *      ~/.debug/.build-id/xx/yyyy/debug (and its copy of the binary, .../elf, when that has symbols);
 *   2. by .gnu_debuglink: beside the binary, in its .debug/ directory, under DEBUG_ROOT/<its dir>/.
 * A candidate is used only when its build-id equals the binary's (or, for a binary without one, when
 * its CRC32 equals the debuglink's): a debug file for another build would give wrong names.
 *
 * debuginfod: when nothing local is found, the binary has a build-id and DEBUGINFOD_URLS was given,
 * a fetch is started in a child process (perftop itself, re-executed in a fetch-only mode that calls
 * libdebuginfod) and the lookup goes on without the file. The main loop polls the children without
 * blocking (debuginfo_fetch_poll); when a file arrives, the binary is opened again with it. No thread
 * is added: the sampler's queue stays the only thread boundary, and nothing waits on the network.
 *
 * Configuration is process-wide (libdwfl's callbacks carry no context of ours); one thread only.
 */
#ifndef PERFTOP_SYMBOLIZE_DEBUGINFO_H
#define PERFTOP_SYMBOLIZE_DEBUGINFO_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* symfs: a directory whose copy of each path is tried first, or NULL. debuginfod_urls: the value of
 * DEBUGINFOD_URLS (NULL: no fetching). fetcher: the program run as "FETCHER --debuginfod-fetch HEX"
 * (NULL: /proc/self/exe, i.e. perftop). Copies the strings. */
void debuginfo_configure(const char *symfs, const char *debuginfod_urls, const char *fetcher);
const char *debuginfo_symfs(void);

/* The path to open for a binary mapped at path: the --symfs copy when it exists, else path.
 * Returns a malloc'd string. */
char *debuginfo_resolve_path(const char *path);

/* libdwfl's find_debuginfo callback (see the order above). Returns an fd or -1. */
int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		   char **debuginfo_file_name);

/* Checks a candidate debug file against a build-id (or, with bid_len 0, a debuglink CRC).
 * Returns an fd open on it, or -1. For tests. */
int debuginfo_open_checked(const char *path, const uint8_t *bid, size_t bid_len, bool check_crc,
			   uint32_t crc);

/* DEBUG_ROOT (/usr/lib/debug, or $PERFTOP_DEBUG_ROOT). */
const char *debuginfo_debug_root(void);

/* The GNU build-id of the ELF file at path into out (at most max bytes): its size, 0 when it has
 * none, -1 when path is not a readable regular ELF file. */
int debuginfo_build_id_of(const char *path, uint8_t *out, size_t max);

/* The debug file debuginfod fetched this session for a build-id, or NULL. */
const char *debuginfo_fetched_path(const uint8_t *bid, size_t len);
/* Asks the servers for a build-id's debug file (once a session, in the background, when
 * DEBUGINFOD_URLS was given): true when a fetch is running or queued for it. */
bool debuginfo_fetch_want(const uint8_t *bid, size_t len, const char *name);
/* Waits (at most secs) for that fetch to end, starting and reaping fetches meanwhile; true when it
 * brought a file. For a reader that may wait (a batch replay); other fetches that end meanwhile are
 * not reported to debuginfo_fetch_poll's callback. */
bool debuginfo_fetch_wait(const uint8_t *bid, size_t len, double secs);

/* The CRC32 .gnu_debuglink uses, of a whole file; false when it cannot be read. */
bool debuginfo_file_crc(int fd, uint32_t *crc);

/* ---- debuginfod in the background ---- */

/* Calls done(ctx, bid, len) for each fetch that ended with a file since the last call, reaps
 * children, starts queued fetches. Never blocks. Returns the number of fetches still running or
 * queued. */
size_t debuginfo_fetch_poll(void (*done)(void *ctx, const uint8_t *bid, size_t len), void *ctx);
/* "fetching debug info for libfoo.so.1 (3 more queued)", or NULL when nothing is being fetched. */
const char *debuginfo_fetch_status(void);
/* The fetch-only mode: asks the DEBUGINFOD_URLS servers for build-id hex's debug file, prints its
 * cached path on stdout. Returns the process exit status. */
int debuginfo_fetch_child(const char *hex);

#endif
