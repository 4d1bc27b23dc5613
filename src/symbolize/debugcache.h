/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debugcache: uncompressed copies of compressed separate debug files, by build-id.
 *
 * Debian's -dbg packages (libc6-dbg among them) ship their debug files with SHF_COMPRESSED
 * sections, and libdw inflates every DWARF section of a file when it opens it: libc's 4 MB file
 * becomes 10 MB of heap and 60 ms, more than the whole rest of a replay. So when a session that
 * needed such a file ends, a background process (eu-elfcompress -t none, from elfutils) writes an
 * uncompressed copy to <cache>/debug/BUILDID.debug; later sessions open that copy, which libdw maps
 * instead of inflating, and of which only the pages a lookup reads are ever loaded. The session
 * that queues the copy uses the compressed file as before and never waits for it.
 *
 * The copy is checked like any debug file (its build-id must equal the binary's) before it is
 * used; the directory is bounded (DEBUGCACHE_MAX_BYTES, oldest removed first).
 * PERFTOP_DEBUG_CACHE=0 turns the cache off.
 */
#ifndef PERFTOP_SYMBOLIZE_DEBUGCACHE_H
#define PERFTOP_SYMBOLIZE_DEBUGCACHE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

/* libdwfl's find_debuginfo callback: debuginfo_find, then the cached copy of what it found when
 * that file is compressed (or a background copy is started for the next session). */
int debugcache_find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		    char **debuginfo_file_name);

/* Whether a compressed debug file found now is worth a background copy: only when DWARF will be
 * read (inline frames or source lines wanted); a session that only reads symbol tables (libc's
 * local symbols are in its debug file) starts none. On by default. */
void debugcache_set_copying(bool on);

/* Starts the copies found wanting so far (the dso set calls it when it is freed, at the end of a
 * session): they are made in the background and outlive perftop. */
void debugcache_start(void);

/* Starts what is queued, then blocks until the background copies this process started are done
 * (tests). */
void debugcache_wait(void);
/* How many times a cached copy was used instead of the compressed file (tests). */
unsigned long debugcache_hits(void);

#endif
