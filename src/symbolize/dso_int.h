/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dso_int: what a dso and a dso set hold, for the files of symbolize/ that manage them beside dso.c
 * (opening, symbols, lookups), which is near its size bound: dso_idle.c (closing the binaries no
 * live process maps any more). Internal to symbolize/.
 */
#ifndef PERFTOP_SYMBOLIZE_DSO_INT_H
#define PERFTOP_SYMBOLIZE_DSO_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern;
struct srcinfo;
struct dso_go;
struct dso_sym;

enum dso_state {
	DSO_NEW,     /* not opened yet */
	DSO_OPEN,
	DSO_BROKEN,  /* cannot be opened or is not what the mapping said; never retried */
};

struct dso_seg {              /* one PT_LOAD: file bytes [off, off + size) are at vaddr */
	uint64_t off, vaddr, size;
};

struct dso {
	struct dso_set *set;
	struct dso *next_all;
	char *path;
	char *source;         /* the file to read when path is not it (dso_set_source), else NULL */
	char *file;           /* the file dso_open read (after --symfs): the unwinder maps it too */
	const char *name;
	const char *err;
	uint8_t build_id[20];
	uint8_t build_id_size;
	uint8_t state;
	bool tried;           /* dso_open ran (a dso broken from birth was never tried) */
	bool bid_from_file;   /* build_id is the file's own, not what the mapping or recording said */
	bool awaiting;        /* no file with its build-id here: a debuginfod fetch may bring one */
	bool sourced;         /* dso_set_source decided where to read it (or dso_open ran) */
	bool syms_loaded;
	bool dwarf_tried, has_dwarf, go_tried;  /* DWARF, .gopclntab: read when a lookup first wants them */
	struct dso_go *go;    /* a Go binary's function table (dso_gopcln), or NULL */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t bias;        /* module address = file virtual address + bias */
	struct srcinfo *si;   /* inline frames and srclines, cached; NULL until wanted */
	struct dso_seg *segs;
	size_t nsegs;
	struct dso_sym *syms;
	uint64_t *starts;     /* syms[i].start, dense: the bisection touches far fewer cache lines */
	size_t nsyms;
	size_t last;          /* index of the last symbol hit: samples come in runs */
	uint64_t used;        /* the set's clock at the last lookup: the least recently used closes */
	unsigned refs;        /* mappings that point to it (dso_ref) */
	uint64_t live_ns;     /* last seen mapped by a live process or looked up (dso_idle.c) */
	uint64_t idle_ns;     /* how long unused before it closes: DSO_IDLE_NS, more while it keeps
			       * coming back */
	uint64_t idle_closed_ns;  /* the sweep that last closed it for being idle, or 0 */
};

struct dso_slot {
	char *key;
	struct dso *dso;
};

/* A recording's build-id for a path (dso_set_expect). */
struct dso_expect {
	char *path;
	uint8_t bid[20];
	uint8_t len;
};

struct dso_set {
	struct intern *in;
	struct dso_expect *expect;  /* open addressing by path, DSO_MAX_EXPECTED * 2 slots */
	size_t nexpect;
	uint64_t mismatched;  /* binaries whose file here is another build than the recording's */
	char first_mismatch[64];  /* the notice names it */
	char notice[200];
	struct dso_slot *slots;
	size_t nslots, count;
	struct dso *all;
	uint64_t ndsos, opened;  /* opened: open now (each holds a libdwfl handle and its files) */
	uint64_t clock;
	uint64_t max_open, closed;
	uint64_t max_kept, evicted;
	uint64_t sweep_ns, sweep_clock;  /* the last idle sweep (dso_idle.c): its time, the clock then */
	uint64_t idle_closed;            /* binaries it closed */
	void (*on_evict)(void *ctx, struct dso *d);
	void *evict_ctx;
	unsigned want;        /* SRCINFO_INLINE | SRCINFO_SRCLINE: what lookups add to the ELF symbol */
	bool wait_fetches;    /* a binary opened by build-id waits for its debuginfod fetch */
};

/* Back to a dso never opened (dso.c); the next lookup opens it again. */
void dso_close(struct dso *d);

#endif
