/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolizer: the facade that ties the pieces together: records go to maps, user addresses go
 * maps -> dso, kernel addresses go to kallsyms, and whatever cannot be named becomes the address in
 * hex, the way perf prints it, so a row always has a name: relative to its binary inside one (the
 * same code in every process is one row), absolute elsewhere.
 *
 * Callchains: the kernel writes PERF_CONTEXT_* markers into the chain to say whose addresses follow;
 * they switch our mode and are never frames. The chain normally starts (after its first marker) with
 * the sample's own IP, which we have already written, so that one entry is skipped.
 *
 * User addresses are answered from a cache keyed by (dso, file offset), which is what a name depends
 * on (not the process, not where the file is mapped): a profile, and above all its unwound DWARF
 * chains, looks the same few thousand return addresses up again and again, and the symbol table's
 * bisection (a cache miss per step in a big binary) was the largest cost of a live --call-graph
 * dwarf session's main thread. Direct-mapped, so bounded; emptied when what a lookup gives changes
 * (symbolizer_set_names, a debug file arriving). Only single frames are kept (an address with inline
 * frames is looked up each time), and unresolved ones by the address, whose hex is their name.
 */
#include "symbolize/symbolizer.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/debuginfo.h"
#include "symbolize/demangle.h"
#include "symbolize/disasm.h"
#include "symbolize/dso.h"
#include "symbolize/intern.h"
#include "symbolize/kernel.h"
#include "symbolize/maps.h"
#include "symbolize/unwind.h"
#include "util/util.h"

struct symbolizer {
	struct intern *in;
	struct dso_set *dsos;
	struct maps *maps;
	struct kernel *kernel;
	const char *unknown;  /* "[unknown]" */
	struct symbolizer_stats st;
	struct demangler *dm; /* raw -> display names, for the view (names stay raw in frames) */
	bool demangle;
	bool srclines;        /* kernel frames get "sym+off" srclines as perf's */
	struct unwind *uw;    /* DWARF unwinding of sampled user stacks; made on the first such sample */
	uint64_t release_calls; /* symbolizer_release_pages */
	const char *roots[10]; /* interned names of the functions a thread's stack starts in */
	const char *why[UNWIND_ERROR + 1]; /* the frame that ends a chain cut short, by reason */
	struct sym_cached *cache;  /* SYM_CACHE_SLOTS, made on first use */
	void *cache_mem;           /* what to free */
	struct hex_cached *hex;    /* HEX_CACHE_SLOTS */
	struct kern_cached *kcache; /* KERN_CACHE_SLOTS, made on first use */
	uint64_t kgen;             /* a kcache entry of another generation is empty */
	bool offline;         /* a replay: this machine's kernel is not the recording's */
	/* A replay's kernel: whether this machine's kallsyms may name it
	 * (recorded_kernel_named_here). */
	enum { KBID_UNKNOWN, KBID_SAME, KBID_OTHER } kernel_bid;
	enum { KTEXT_UNCHECKED, KTEXT_SAME, KTEXT_OTHER } kernel_text;
	bool kallsyms_given;  /* --kallsyms FILE: s->kernel is that file's, for any recorded kernel */
	const char *kmod_last_path; /* the last module map's dso path and the name made of it */
	const char *kmod_last_name;
	void *head_rec;       /* symbolizer_fp_head's record, HEAD_REC_MAX bytes */
	char jit_hint[160];   /* symbolizer_hint's: how a node process would get JavaScript names */
	uint32_t jit_hint_pid; /* ... that process */
};

#define SYM_CACHE_SLOTS (1u << 14)
#define HEX_CACHE_SLOTS (1u << 12)
#define KERN_CACHE_SLOTS (1u << 12)
/* The end of user space: above it no address of a process can be (x86-64 with 5-level page
 * tables: 2^56; AArch64 with 52-bit addresses: 2^52), a chain entry there is not a return address. */
#define USER_ADDR_END (1ull << 56)

/* What dso_lookup gave for (dso, off): one frame, or nothing (unresolved). A cache line each (56
 * bytes rounded up, the table on a line): most 56-byte entries lay across two, and every frame
 * of every sample reads one. */
struct sym_cached {
	_Alignas(64) const struct dso *dso;  /* NULL: empty */
	uint64_t off;
	const char *sym;        /* NULL: unresolved */
	const char *hex;        /* unresolved: its name, when that depends on the key alone (a file's) */
	const char *srcline;
	uint64_t sym_start, va;
	bool inlined;
};

struct hex_cached {
	uint64_t addr;
	const char *hex;        /* NULL: empty */
};

/* What a kernel address gave (its one frame, whole: kernel frames are never inline), and whether
 * it was unresolved and in no map, for the counts. */
struct kern_cached {
	uint64_t gen;           /* symbolizer.kgen when made */
	uint64_t addr;
	struct frame f;
	bool unresolved, no_map;
};

static void symbolizer_forget_names(struct symbolizer *s)
{
	if (s->cache)
		memset(s->cache, 0, SYM_CACHE_SLOTS * sizeof(*s->cache));
	s->kgen++;
}

static size_t cache_slot(uint64_t a, uint64_t b, unsigned bits)
{
	uint64_t h = (a ^ (b * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> (64 - bits));
}

/* A dso evicted from the set (dso.h): the caches keyed by its pointer forget it. */
static void symbolizer_dso_evicted(void *ctx, struct dso *d)
{
	struct symbolizer *s = ctx;
	symbolizer_forget_names(s);
	unwind_forget_dso(s->uw, d);
	s->kmod_last_path = s->kmod_last_name = NULL;
}

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	s->in = intern_new();
	/* Tests make compactions, closes and evictions frequent with small bounds. */
	const char *floor = getenv("PERFTOP_NAMES_FLOOR");
	if (floor && *floor)
		intern_set_floor(s->in, (size_t)strtoull(floor, NULL, 10));
	s->dsos = dso_set_new(s->in);
	dso_set_on_evict(s->dsos, symbolizer_dso_evicted, s);
	const char *open_max = getenv("PERFTOP_DSO_MAX_OPEN"), *kept_max = getenv("PERFTOP_DSO_MAX_KEPT");
	if (open_max && *open_max)
		dso_set_max_open(s->dsos, (size_t)strtoull(open_max, NULL, 10));
	if (kept_max && *kept_max)
		dso_set_max_kept(s->dsos, (size_t)strtoull(kept_max, NULL, 10));
	s->maps = maps_new(s->dsos, s->in);
	s->kernel = kernel_new(s->in, NULL);
	s->unknown = intern_str(s->in, "[unknown]");
	s->dm = demangler_new(s->in, false);
	s->demangle = true;
	static const char *const roots[] = { "_start", "__libc_start_call_main", "__libc_start_main",
					     "__libc_start_main_impl", "clone3", "__clone3", "clone",
					     "__clone", "start_thread", "thread_start" };
	for (size_t i = 0; i < ARRAY_SIZE(roots) && i < ARRAY_SIZE(s->roots); i++)
		s->roots[i] = intern_str(s->in, roots[i]);
	s->why[UNWIND_SHORT_STACK] = intern_str(s->in, "[stack copy too short]");
	s->why[UNWIND_UNMAPPED] = intern_str(s->in, "[unmapped address]");
	s->why[UNWIND_TOO_DEEP] = intern_str(s->in, "[too deep]");
	s->why[UNWIND_ERROR] = intern_str(s->in, "[unwind failed]");
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	demangler_free(s->dm);
	unwind_free(s->uw);
	maps_free(s->maps);
	kernel_free(s->kernel);
	dso_set_free(s->dsos);
	intern_free(s->in);
	free(s->cache_mem);
	free(s->hex);
	free(s->kcache);
	free(s->head_rec);
	free(s);
}

bool symbolizer_names_due(const struct symbolizer *s)
{
	return intern_due(s->in);
}

void symbolizer_compact_begin(struct symbolizer *s)
{
	intern_compact_begin(s->in);
	s->unknown = intern_move(s->in, s->unknown);
	for (size_t i = 0; i < ARRAY_SIZE(s->roots); i++)
		s->roots[i] = intern_move(s->in, s->roots[i]);
	for (size_t i = 0; i < ARRAY_SIZE(s->why); i++)
		s->why[i] = intern_move(s->in, s->why[i]);
	/* The caches fill again with the new pointers. */
	symbolizer_forget_names(s);
	s->kmod_last_path = s->kmod_last_name = NULL;
	if (s->hex)
		memset(s->hex, 0, HEX_CACHE_SLOTS * sizeof(*s->hex));
	demangler_forget(s->dm);
	kernel_move_names(s->kernel);
	maps_move_names(s->maps);
	dso_set_move_names(s->dsos);
}

const char *symbolizer_name(void *symbolizer, const char *name)
{
	struct symbolizer *s = symbolizer;
	return name ? intern_str(s->in, name) : NULL;
}

void symbolizer_compact_end(struct symbolizer *s)
{
	intern_compact_end(s->in);
	s->st.name_compactions++;
}

uint64_t symbolizer_names_generation(const struct symbolizer *s)
{
	return intern_generation(s->in);
}

void *symbolizer_names_hold(struct symbolizer *s)
{
	return intern_hold(s->in);
}

void symbolizer_names_release(void *hold)
{
	intern_release(hold);
}

void symbolizer_set_offline(struct symbolizer *s)
{
	s->offline = true;
	maps_set_offline(s->maps, true);
}

void symbolizer_set_jit_attach(struct symbolizer *s, bool on)
{
	maps_set_jit_attach(s->maps, on);
}

int symbolizer_jvm_due(struct symbolizer *s, struct symbolizer_jvm *out, int max)
{
	struct maps_jvm_due due[MAPS_JVM_DUE_MAX];
	int n = maps_jvm_take(s->maps, due, max < MAPS_JVM_DUE_MAX ? max : MAPS_JVM_DUE_MAX);
	for (int i = 0; i < n; i++)
		out[i] = (struct symbolizer_jvm){ .pid = due[i].pid, .first = due[i].first };
	return n;
}

bool symbolizer_jvm_answer(struct symbolizer *s, uint32_t pid, enum symbolizer_jvm_answer a)
{
	static const enum maps_jvm_outcome o[] = {
		[SYMBOLIZER_JVM_DONE] = MAPS_JVM_DONE, [SYMBOLIZER_JVM_SOON] = MAPS_JVM_SOON,
		[SYMBOLIZER_JVM_LATER] = MAPS_JVM_LATER, [SYMBOLIZER_JVM_NEVER] = MAPS_JVM_NEVER,
	};
	return maps_jvm_result(s->maps, pid, o[a]);
}

void symbolizer_set_kallsyms(struct symbolizer *s, const char *path)
{
	kernel_free(s->kernel);
	s->kernel = kernel_new(s->in, path);
	s->kallsyms_given = true;
	symbolizer_forget_names(s);
}

void symbolizer_feed(struct symbolizer *s, const struct rec *r)
{
	/* An exec changes what every address of the process means: libunwind's cache for it goes. */
	if (s->uw && r->type == REC_COMM && r->u.comm.exec)
		unwind_forget(s->uw, r->u.comm.pid);
	/* the kernel's and its modules' maps (a replay's) name kernel addresses */
	if (r->type == REC_MMAP &&
	    (r->u.mmap.pid == UINT32_MAX || rec_cpumode(r) == PERF_RECORD_MISC_KERNEL))
		s->kgen++;
	maps_feed(s->maps, r);
}

/* "0x%016" PRIx64 by hand: unresolved addresses can be most of a profile (JIT code), and printf's
 * machinery was the largest cost of those lookups. */
static const char *symbolizer_hex(struct symbolizer *s, uint64_t addr)
{
	static const char digits[] = "0123456789abcdef";
	if (!s->hex)
		s->hex = xcalloc(HEX_CACHE_SLOTS, sizeof(*s->hex));
	struct hex_cached *e = &s->hex[cache_slot(addr, 0, 12)];
	if (e->hex && e->addr == addr)
		return e->hex;
	char buf[18];
	buf[0] = '0';
	buf[1] = 'x';
	for (uint64_t a = addr, i = 17; i >= 2; i--, a >>= 4)
		buf[i] = digits[a & 15];
	*e = (struct hex_cached){ addr, intern_strn(s->in, buf, sizeof(buf)) };
	return e->hex;
}

/* A frame named by an address: addr itself, or shown (the address in its binary). */
static void frame_unresolved_named(struct symbolizer *s, struct frame *f, uint64_t addr, const char *name,
				   const char *dso, bool kernel)
{
	*f = (struct frame){ .sym = name, .dso = dso, .addr = addr, .kernel = kernel };
	s->st.unresolved++;
}

static void frame_unresolved_as(struct symbolizer *s, struct frame *f, uint64_t addr, uint64_t shown,
				const char *dso, bool kernel)
{
	frame_unresolved_named(s, f, addr, symbolizer_hex(s, shown), dso, kernel);
}

static void frame_unresolved(struct symbolizer *s, struct frame *f, uint64_t addr, const char *dso,
			     bool kernel)
{
	frame_unresolved_as(s, f, addr, addr, dso, kernel);
}

/*
 * An address of a mapping that no symbol covers. Inside a binary it is named by where it is in that
 * binary (addr - start + pgoff, what perf report prints for it), so the same code in two processes,
 * loaded at two addresses, is one row. Memory that is not a file's ([heap], [stack], anonymous
 * memory) keeps the absolute address, as perf's maps of it do.
 */
static bool unresolved_in_file(const struct map *m, const char *dname)
{
	return m->kind != MAP_KIND_ANON && (dname[0] != '[' || m->kind == MAP_KIND_VDSO);
}

static void frame_unresolved_in(struct symbolizer *s, struct frame *f, uint64_t addr,
				const struct map *m, const char *dname)
{
	bool in_file = unresolved_in_file(m, dname);
	frame_unresolved_as(s, f, addr, in_file ? addr - m->start + m->pgoff : addr, dname, false);
}

bool symbolizer_mapping(struct symbolizer *s, uint32_t pid, uint64_t addr,
			struct symbolizer_mapping *out)
{
	const struct map *m = maps_find(s->maps, pid, addr);
	if (!m || m->kind == MAP_KIND_ANON || m->kind == MAP_KIND_OTHER || !m->dso)
		return false;
	out->start = m->start;
	out->limit = m->end;
	out->offset = m->pgoff;
	out->path = dso_path(m->dso);
	out->build_id = dso_build_id(m->dso, &out->build_id_size);
	return true;
}

/* The pid of the kernel's MMAP records (perf writes -1). */
#define KERNEL_MAPS_PID UINT32_MAX

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/*
 * The dso name perf gives a kernel map of a recording: "[kernel.kallsyms]" for the kernel's own
 * ("[kernel.kallsyms]_text" and the like), "[NAME]" for a module's file (its base name without
 * .ko and a compression suffix, '-' as '_', as the kernel names modules), a "[...]" name as it is.
 */
static const char *kernel_map_name(struct symbolizer *s, const char *path)
{
	if (has_prefix(path, "[kernel.kallsyms]") || !*path)
		return kernel_dso_name(s->kernel);
	if (path[0] == '[')
		return intern_str(s->in, path);
	if (path == s->kmod_last_path && s->kmod_last_name)
		return s->kmod_last_name;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char buf[80];
	size_t n = 0;
	buf[n++] = '[';
	for (const char *c = base; *c && *c != '.' && n < sizeof(buf) - 2; c++)
		buf[n++] = *c == '-' ? '_' : *c;
	buf[n++] = ']';
	s->kmod_last_path = path;
	s->kmod_last_name = intern_strn(s->in, buf, n);
	return s->kmod_last_name;
}

/*
 * Whether the kallsyms read may name the kernel of a recording whose kernel map m is: always when
 * the user gave the recording's own (--kallsyms FILE, as perf report's option); this machine's when
 * the recording's kernel build-id is this machine's; without one (perf record --no-buildid, a
 * stream before its build-ids at the end), when the recording's _text (the pgoff of perf's
 * "[kernel.kallsyms]_text" map) is where this machine's kallsyms has a symbol starting: the same
 * kernel at the same place. Otherwise another kernel's names would be given to its addresses.
 */
static bool recorded_kernel_named_here(struct symbolizer *s, const struct map *m)
{
	if (s->kallsyms_given)
		return true;
	if (s->kernel_bid != KBID_UNKNOWN)
		return s->kernel_bid == KBID_SAME;
	if (s->kernel_text == KTEXT_UNCHECKED) {
		struct frame f;
		bool text = m->dso && has_prefix(dso_path(m->dso), "[kernel.kallsyms]_text") && m->pgoff;
		s->kernel_text = text && kernel_lookup(s->kernel, m->pgoff, &f) && f.sym_start == m->pgoff
			? KTEXT_SAME : KTEXT_OTHER;
	}
	return s->kernel_text == KTEXT_SAME;
}

/*
 * A kernel address of a replayed recording, mapped with the recording's own kernel and module
 * maps (its MMAP records of pid -1), as perf report does: in none of them it is [unknown] (a
 * recording made without access to kernel addresses has none; a kernel-mode sample at a user
 * address is in none), in one it is that map's dso, named from this machine's kallsyms only when
 * that is the recording's kernel, else by its address.
 */
static int symbolizer_recorded_kernel(struct symbolizer *s, uint64_t addr, struct frame *out)
{
	const struct map *m = maps_find(s->maps, KERNEL_MAPS_PID, addr);
	if (!m) {
		s->st.no_map++;
		frame_unresolved(s, &out[0], addr, s->unknown, true);
		return 1;
	}
	if (m->kind == MAP_KIND_KSYM && m->dso) {
		/* perf report's map of a KSYMBOL record: the symbol's name is its dso's and its one
		 * symbol's, from its start (never this machine's kallsyms: the recording's own) */
		const char *name = intern_str(s->in, dso_path(m->dso));
		out[0] = (struct frame){ .sym = name, .dso = name, .addr = addr, .sym_start = m->start,
					 .kernel = true };
		return 1;
	}
	const char *dname = kernel_map_name(s, m->dso ? dso_path(m->dso) : "");
	if (!recorded_kernel_named_here(s, m) || !kernel_lookup(s->kernel, addr, &out[0])) {
		/* perf prints a module's address as where it is in the module, the kernel's as is */
		bool module = dname != kernel_dso_name(s->kernel);
		frame_unresolved_as(s, &out[0], addr, module ? addr - m->start + m->pgoff : addr, dname,
				    true);
		return 1;
	}
	return 0;  /* named from kallsyms: the caller completes the frame */
}

/* A node process whose JIT code has no names (no perf map, no jitdump) gets them from a flag of
 * node's own: the first such process is said once (its comm is node's, the name it gives its main
 * thread). */
static void symbolizer_jit_hint(struct symbolizer *s, uint32_t pid)
{
	const char *comm = maps_comm(s->maps, pid, pid);
	if (!comm || (strcmp(comm, "node") != 0 && strcmp(comm, "nodejs") != 0) ||
	    !maps_jit_unnamed(s->maps, pid))
		return;
	s->jit_hint_pid = pid;
	snprintf(s->jit_hint, sizeof(s->jit_hint),
		 "%s (pid %" PRIu32 ") has no JavaScript names: run it with --perf-basic-prof "
		 "(or --perf-prof: a jitdump, with source lines)", comm, pid);
}

const char *symbolizer_hint(struct symbolizer *s)
{
	/* a process that mapped its dump (or wrote its perf map) after its first JIT samples: the
	 * hint was early, not wrong, and goes */
	if (s->jit_hint[0] && !maps_jit_unnamed(s->maps, s->jit_hint_pid))
		s->jit_hint[0] = 0;
	return s->jit_hint[0] ? s->jit_hint : NULL;
}

/* A kernel address's frame, made (the recording's kernel maps, then kallsyms). */
static void symbolizer_kernel_frame(struct symbolizer *s, uint64_t addr, struct frame *out)
{
	if (s->offline) {
		if (symbolizer_recorded_kernel(s, addr, out))
			return;
	} else if (!kernel_lookup(s->kernel, addr, &out[0])) {
		frame_unresolved(s, &out[0], addr, kernel_dso_name(s->kernel), true);
		return;
	}
	out[0].addr = addr;
	out[0].srcline = NULL;
	out[0].inlined = false;
	out[0].kernel = true;
	out[0].va = 0;
	if (s->srclines) {
		/* No kernel DWARF is read: perf's fallback form, SYM+OFFSET in decimal. */
		char buf[256];
		int n = snprintf(buf, sizeof(buf), "%s+%" PRIu64, out[0].sym, addr - out[0].sym_start);
		if (n > 0 && (size_t)n < sizeof(buf))
			out[0].srcline = intern_strn(s->in, buf, (size_t)n);
	}
}

/*
 * A kernel address's frame, from a direct-mapped cache of them: a profile's kernel frames are a
 * few thousand addresses (entry code, interrupts, the scheduler) under most samples of a
 * system-wide recording, where the maps' search and kallsyms' bisection were each frame's largest
 * cost. What a frame depends on (the names, the recording's kernel maps, its kernel's build-id,
 * the options) bumps s->kgen, which empties the cache.
 */
static void symbolizer_kernel(struct symbolizer *s, uint64_t addr, struct frame *out)
{
	if (!s->kcache)
		s->kcache = xcalloc(KERN_CACHE_SLOTS, sizeof(*s->kcache));
	struct kern_cached *e = &s->kcache[cache_slot(addr, 1, 12)];
	if (e->gen == s->kgen && e->addr == addr && e->f.sym) {
		*out = e->f;
		s->st.unresolved += e->unresolved;
		s->st.no_map += e->no_map;
		return;
	}
	uint64_t unresolved = s->st.unresolved, no_map = s->st.no_map;
	symbolizer_kernel_frame(s, addr, out);
	*e = (struct kern_cached){ .gen = s->kgen, .addr = addr, .f = *out,
				   .unresolved = s->st.unresolved != unresolved,
				   .no_map = s->st.no_map != no_map };
}

static int lookup_user(struct symbolizer *s, uint32_t pid, uint64_t addr, bool return_address,
		       struct frame *out, int max);

/* symbolizer_lookup; with return_address (a frame-pointer chain's user entry past the first), an
 * address in no mapping and no JIT's code gives no frame (0): see symbolizer_sample. */
static int lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
		  bool return_address, struct frame *out, int max)
{
	if (max < 1)
		return 0;
	s->st.lookups++;
	if (kernel) {
		symbolizer_kernel(s, addr, out);
		return 1;
	}
	return lookup_user(s, pid, addr, return_address, out, max);
}

int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
		      struct frame *out, int max)
{
	return lookup(s, pid, addr, kernel, false, out, max);
}

static int lookup_user(struct symbolizer *s, uint32_t pid, uint64_t addr, bool return_address,
		       struct frame *out, int max)
{
	const struct map *m = maps_find(s->maps, pid, addr);
	if (!m || m->kind == MAP_KIND_ANON) {
		/* JIT code: anonymous executable memory (or none we know of) named by the jitdump or
		 * the perf map. Code whose bytes the dump holds gets its address as va, so that
		 * annotate counts it (its "dso address space" is the process's own). */
		struct maps_jit_hit h;
		if (maps_jit_lookup(s->maps, pid, addr, s->srclines, &h)) {
			s->st.jit++;
			out[0] = (struct frame){ .sym = h.sym, .dso = maps_jit_dso(s->maps, pid), .addr = addr,
						 .sym_start = h.start, .va = h.code ? addr : 0,
						 .srcline = h.srcline };
			return 1;
		}
		if (!s->jit_hint[0])
			symbolizer_jit_hint(s, pid);
		if (m) {
			frame_unresolved(s, &out[0], addr, maps_jit_dso(s->maps, pid), false);
			return 1;
		}
	}
	if (!m) {
		s->st.no_map++;
		if (return_address)
			return 0;
		frame_unresolved(s, &out[0], addr, s->unknown, false);
		return 1;
	}
	const char *dname = dso_name(m->dso);
	uint64_t off = addr - m->start + m->pgoff;
	if (!s->cache)
		s->cache = xcalloc_lines(SYM_CACHE_SLOTS, sizeof(*s->cache), &s->cache_mem);
	struct sym_cached *e = &s->cache[cache_slot((uint64_t)(uintptr_t)m->dso, off, 14)];
	if (e->dso == m->dso && e->off == off) {
		if (!e->sym) {
			if (e->hex)  /* a stripped binary's addresses can be most rows: no rehash */
				frame_unresolved_named(s, &out[0], addr, e->hex, dname, false);
			else
				frame_unresolved_in(s, &out[0], addr, m, dname);
			return 1;
		}
		out[0] = (struct frame){ .sym = e->sym, .dso = dname, .srcline = e->srcline, .addr = addr,
					 .sym_start = e->sym_start, .va = e->va, .inlined = e->inlined };
		return 1;
	}
	int n = dso_lookup(m->dso, off, out, max);
	if (n <= 0) {
		frame_unresolved_in(s, &out[0], addr, m, dname);
		*e = (struct sym_cached){ .dso = m->dso, .off = off,
					  .hex = unresolved_in_file(m, dname) ? out[0].sym : NULL };
		return 1;
	}
	if (n == 1 && max > 1)  /* with max 1, an inline chain would be cut to its first frame */
		*e = (struct sym_cached){ .dso = m->dso, .off = off, .sym = out[0].sym,
					  .srcline = out[0].srcline, .sym_start = out[0].sym_start,
					  .va = out[0].va, .inlined = out[0].inlined };
	for (int i = 0; i < n; i++) {
		out[i].dso = dname;
		out[i].addr = addr;
		out[i].kernel = false;
	}
	return n;
}

/* The index of the callchain's PERF_CONTEXT_USER mark, or -1 when it has no user part. */
static int user_part(const uint64_t *cc, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (cc[i] == PERF_CONTEXT_USER)
			return i + 1 < nr ? (int)i : -1;
	return -1;
}

enum sym_mode { MODE_USER, MODE_KERNEL, MODE_OTHER };

static bool symbolizer_is_root(const struct symbolizer *s, const char *sym)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->roots); i++)
		if (sym == s->roots[i])
			return true;
	return false;
}

/*
 * --call-graph dwarf: the user part of the chain, unwound from the sample's registers and stack copy,
 * after the kernel part (frames out[0..n)). When the sample's IP is the user IP it is out[0] already.
 * A chain cut short ends in a frame naming why: the outermost caller, so it counts in Total% (how
 * much of the profile has incomplete stacks) and never in Self. Counts the samples whose chain
 * reaches the thread's root.
 */
static int symbolizer_unwound(struct symbolizer *s, const struct rec *r, bool ip_user,
			      struct frame *out, int n, int max)
{
	uint64_t ips[UNWIND_MAX_FRAMES];
	struct unwind_result res;
	if (!s->uw)
		s->uw = unwind_new(s->maps);
	int k = unwind_sample(s->uw, r, ips, UNWIND_MAX_FRAMES, &res);
	if (k <= 0) {
		/* a kernel sample whose user registers are in no mapping: said once, as a chain that
		 * reaches such an address is */
		if (k == 0 && res.stop == UNWIND_UNMAPPED && !ip_user && n < max)
			out[n++] = (struct frame){ .sym = s->why[UNWIND_UNMAPPED], .dso = s->unknown };
		return n;
	}
	s->st.unwind_samples++;
	bool root = false;
	int first = n;
	for (int i = ip_user && ips[0] == r->u.sample.ip ? 1 : 0; i < k && n < max; i++)
		n += symbolizer_lookup(s, r->pid, ips[i], false, &out[n], max - n);
	if (ip_user)
		first = 0;
	for (int i = first; i < n && !root; i++)
		root = !out[i].kernel && symbolizer_is_root(s, out[i].sym);
	if (root) {
		s->st.unwind_root++;
	} else if (res.stop != UNWIND_END && n < max) {
		const char *why = s->why[res.stop];
		if (res.stop == UNWIND_NO_INFO) {
			char buf[300];
			int len = snprintf(buf, sizeof(buf), "[no unwind info: %s]", res.dso ? res.dso : "?");
			why = intern_strn(s->in, buf, len > 0 && (size_t)len < sizeof(buf) ? (size_t)len : 0);
		}
		out[n++] = (struct frame){ .sym = why, .dso = s->unknown };
	}
	return n;
}

/* Two frames of one function (their outermost frames, inline ones aside). */
static bool same_function(const struct frame *a, const struct frame *b)
{
	return a->sym == b->sym && a->dso == b->dso && a->kernel == b->kernel &&
	       a->sym_start == b->sym_start && !a->inlined && !b->inlined;
}

/* Frames of an address we cannot resolve by design (hypervisor, guest). */
static int symbolizer_other(struct symbolizer *s, uint64_t addr, bool kernel, struct frame *out)
{
	frame_unresolved(s, out, addr, s->unknown, kernel);
	s->st.lookups++;
	return 1;
}

int symbolizer_sample(struct symbolizer *s, const struct rec *r, struct frame *out, int max)
{
	if (max < 1)
		return 0;
	const struct rec_sample *smp = &r->u.sample;
	unsigned cpumode = rec_cpumode(r);
	bool ip_kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	int n;
	if (cpumode == PERF_RECORD_MISC_HYPERVISOR || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_USER)
		n = symbolizer_other(s, smp->ip, cpumode != PERF_RECORD_MISC_GUEST_USER, out);
	else
		n = symbolizer_lookup(s, r->pid, smp->ip, ip_kernel, out, max);

	uint32_t nr = smp->callchain_nr;
	if (!nr || smp->callchain_off < sizeof(struct rec) ||
	    (uint64_t)smp->callchain_off + (uint64_t)nr * 8 > r->size)
		nr = 0;  /* no (usable) callchain: the IP alone, and what unwinding adds */
	const uint64_t *cc = rec_callchain(r);
	enum sym_mode mode = ip_kernel ? MODE_KERNEL : MODE_USER;
	bool skip_ip = true;  /* the first address of the chain is normally the IP again */
	int n_ip = n;
	for (uint32_t i = 0; i < nr && n < max; i++) {
		uint64_t a = cc[i];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			switch (a) {
			case PERF_CONTEXT_KERNEL: mode = MODE_KERNEL; break;
			case PERF_CONTEXT_USER: mode = MODE_USER; break;
			default: mode = MODE_OTHER; break;  /* HV, GUEST* */
			}
			continue;
		}
		if (a == 0)
			continue;  /* where a kernel's walk ended: no frame */
		if (mode == MODE_USER && a >= USER_ADDR_END) {
			/* No user address is this high (x86-64's 5-level user space ends at 2^56): the
			 * kernel's frame-pointer walk read something else as a return address (a stack
			 * canary, where a binary without frame pointers left rbp as data). What follows
			 * is no chain either: it ends here, said once. */
			if (n < max)
				out[n++] = (struct frame){ .sym = s->why[UNWIND_UNMAPPED], .dso = s->unknown };
			break;
		}
		bool first = skip_ip;
		if (skip_ip) {
			skip_ip = false;
			if (a == smp->ip)
				continue;
		}
		int k = mode == MODE_OTHER
			? symbolizer_other(s, a, false, &out[n])
			: lookup(s, r->pid, a, mode == MODE_KERNEL, mode == MODE_USER && !first,
				 &out[n], max - n);
		if (k == 0) {
			/* A return address in no mapping (and no JIT's code) is data the kernel's
			 * walk read through a frame pointer that was not one (a binary built without
			 * them keeps anything in rbp): what follows it is no chain either, and each
			 * such value would be a row of its own. It ends here, said once, as a
			 * non-canonical one does above and an unwinder's walk does. */
			out[n++] = (struct frame){ .sym = s->why[UNWIND_UNMAPPED], .dso = s->unknown };
			break;
		}
		/* The chain's first address is the IP's function again when it differs from the IP
		 * only by a precise event's skid, or is that function's entry (an LBR call stack's
		 * first target): the leaf once, as perf report counts it. */
		if (first && k > 0 && n_ip > 0 && same_function(&out[n_ip - 1], &out[n + k - 1]))
			continue;
		n += k;
	}
	/* A user stack is unwound only where the kernel left the user part out (--call-graph
	 * dwarf); with a user part, it served symbolizer_fp_head. */
	if (unwind_possible(r) && user_part(cc, nr) < 0)
		n = symbolizer_unwound(s, r, !ip_kernel, out, n, max);
	return n;
}

/* Biggest record symbolizer_fp_head makes: a perf record is at most 64 KiB. */
#define HEAD_REC_MAX ((size_t)80 << 10)

const struct rec *symbolizer_fp_head(struct symbolizer *s, const struct rec *r)
{
	if (r->type != REC_SAMPLE || !unwind_possible(r))
		return r;
	const struct rec_sample *smp = &r->u.sample;
	uint32_t nr = smp->callchain_nr;
	if (!nr || smp->callchain_off < sizeof(struct rec) ||
	    (uint64_t)smp->callchain_off + (uint64_t)nr * 8 > r->size)
		return r;
	const uint64_t *cc = rec_callchain(r);
	int u = user_part(cc, nr);
	if (u < 0)
		return r;  /* the kernel left the user part out: a DWARF sample (symbolizer_unwound) */
	size_t raw = smp->raw_size && smp->raw_off >= sizeof(struct rec) &&
			     (uint64_t)smp->raw_off + smp->raw_size <= r->size
		     ? ((size_t)smp->raw_size + 7) & ~(size_t)7
		     : 0;
	size_t need = sizeof(struct rec) + ((size_t)nr + UNWIND_HEAD_MAX) * 8 + raw;
	if (need > HEAD_REC_MAX)
		return r;
	if (!s->head_rec)
		s->head_rec = xmalloc(HEAD_REC_MAX);
	if (!s->uw)
		s->uw = unwind_new(s->maps);
	const uint64_t *user = cc + u + 1;
	uint32_t nuser = nr - (uint32_t)u - 1;
	uint64_t ras[UNWIND_HEAD_MAX];
	int k = user[0] < USER_ADDR_END ? unwind_head(s->uw, r, user[0], ras, UNWIND_HEAD_MAX) : 0;
	bool complete = k & UNWIND_HEAD_COMPLETE;
	k &= ~UNWIND_HEAD_COMPLETE;

	/* The copy: the header, the chain, a tracepoint's fields; not the registers and stack. */
	struct rec *out = s->head_rec;
	memcpy(out, r, sizeof(struct rec));
	uint64_t *chain = (uint64_t *)((char *)out + sizeof(struct rec));
	memcpy(chain, cc, ((size_t)u + 1) * 8);
	uint32_t m = (uint32_t)u + 1;
	if (k > 1) {
		memcpy(chain + m, ras, (size_t)k * 8);
		m += (uint32_t)k;
		/* A kernel that reads the return address of a probe at a function's entry from the
		 * stack (x86 since 6.11) has the head's last frame already. */
		uint32_t j = nuser > 1 && user[1] == ras[k - 1] ? 2 : 1;
		if (!complete) {
			memcpy(chain + m, user + j, (size_t)(nuser - j) * 8);
			m += nuser - j;
		}
	} else {
		memcpy(chain + m, user, (size_t)nuser * 8);
		m += nuser;
	}
	uint32_t off = (uint32_t)sizeof(struct rec);
	out->u.sample.callchain_off = off;
	out->u.sample.callchain_nr = m;
	off += m * 8;
	if (raw) {
		memcpy((char *)out + off, rec_at(r, smp->raw_off), smp->raw_size);
		memset((char *)out + off + smp->raw_size, 0, raw - smp->raw_size);
		out->u.sample.raw_off = off;
		off += (uint32_t)raw;
	} else {
		out->u.sample.raw_off = 0;
		out->u.sample.raw_size = 0;
	}
	out->size = off;
	/* Named as a frame-pointer sample from here: nothing is unwound again, and the memo keys on
	 * the chain as completed. */
	out->u.sample.regs_user_nr = 0;
	out->u.sample.regs_user_abi = 0;
	out->u.sample.regs_user_off = 0;
	out->u.sample.stack_user_size = 0;
	out->u.sample.stack_user_off = 0;
	return out;
}

void symbolizer_set_names(struct symbolizer *s, bool inlines, bool srclines)
{
	s->srclines = srclines;
	dso_set_want(s->dsos, inlines, srclines);
	symbolizer_forget_names(s);
}

void symbolizer_set_demangle(struct symbolizer *s, bool on)
{
	s->demangle = on;
}

bool symbolizer_demangling(const struct symbolizer *s)
{
	return s->demangle;
}

const char *symbolizer_display_name(struct symbolizer *s, const char *sym)
{
	return s->demangle ? demangler_name(s->dm, sym) : sym;
}

void symbolizer_configure_debuginfo(const char *symfs, const char *debuginfod_urls)
{
	debuginfo_configure(symfs, debuginfod_urls, NULL);
}

static void symbolizer_debug_arrived(void *ctx, const uint8_t *bid, size_t len)
{
	struct symbolizer *s = ctx;
	dso_set_reload(s->dsos, bid, len);
	symbolizer_forget_names(s);
}

void symbolizer_release_pages(struct symbolizer *s)
{
	/* The binaries' pages and the kernel's table only every sixtieth call (a minute at the default
	 * refresh): a walk comes back to the same few pages of the same libraries, and the kernel's
	 * table is looked up again at every process start and exit (a dozen pages a lookup), so the
	 * pages fault back in within seconds; and each release is a TLB flush on every CPU the sampler
	 * ran on. Every second cost a point of a CPU under the no-pause churn; every tenth call still
	 * 4% more of perftop's CPU there than every sixtieth (side by side), for a few MiB. */
	if (++s->release_calls % 60 == 0) {
		unwind_release_pages(s->uw);
		kernel_release_pages(s->kernel);
	}
	/* The binaries of processes gone (a churn runs new ones without end) close, their images go. */
	uint64_t now = now_ns();
	maps_mark_live(s->maps, now);
	dso_set_close_idle(s->dsos, now);
	unwind_release_idle(s->uw);
}

void symbolizer_poll(struct symbolizer *s)
{
	maps_sweep(s->maps);
	debuginfo_fetch_poll(symbolizer_debug_arrived, s);
}

const char *symbolizer_notice(struct symbolizer *s)
{
	const char *f = debuginfo_fetch_status();
	if (!f)
		f = dso_set_notice(s->dsos);
	return f ? f : symbolizer_hint(s);
}

void symbolizer_wait_fetches(struct symbolizer *s, bool on)
{
	dso_set_wait_fetches(s->dsos, on);
}

bool symbolizer_add_build_id(struct symbolizer *s, const char *path, const uint8_t *bid, size_t len)
{
	if (s->offline && has_prefix(path, "[kernel.kallsyms]")) {
		uint8_t here[64];
		size_t n = kernel_build_id(here, sizeof(here));
		s->kernel_bid = n && n == len && memcmp(here, bid, n) == 0 ? KBID_SAME : KBID_OTHER;
		symbolizer_forget_names(s);
		return true;
	}
	return dso_set_expect(s->dsos, path, bid, len);
}

int symbolizer_fetch_main(const char *build_id_hex)
{
	return debuginfo_fetch_child(build_id_hex);
}

const char *symbolizer_comm(struct symbolizer *s, uint32_t pid, uint32_t tid)
{
	/* Thread 0 is the idle task whatever pid the sample says (a sample taken as a thread exits
	 * can carry its pid with tid 0): perf names the thread by its tid, so swapper. */
	if (tid == 0)
		pid = 0;
	const char *c = maps_comm(s->maps, pid, tid);
	if (c)
		return c;
	/* The idle tasks have no /proc entry and no COMM record; the kernel calls them swapper. */
	if (pid == 0 && tid == 0)
		return intern_str(s->in, "swapper");
	/* perf shows a thread it knows nothing of as ":<tid>". */
	char buf[16];
	int n = snprintf(buf, sizeof(buf), ":%" PRId32, (int32_t)tid);
	return intern_strn(s->in, buf, (size_t)n);
}

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	*st = s->st;
	st->dsos_opened = dso_set_opened(s->dsos);
	st->dsos_closed = dso_set_closed(s->dsos);
	st->dsos_evicted = dso_set_evicted(s->dsos);
	st->processes = maps_alive(s->maps);
	st->interned_bytes = intern_bytes(s->in);
}

struct dso_set *symbolizer_dso_set(struct symbolizer *s)
{
	return s->dsos;
}

size_t symbolizer_kernel_build_id(const struct symbolizer *s, uint8_t *out, size_t max)
{
	return s->offline ? 0 : kernel_build_id(out, max);
}

size_t symbolizer_jit_code(struct symbolizer *s, uint32_t pid, uint64_t start, size_t max,
			   uint8_t **buf, char *err, size_t errlen)
{
	return maps_jit_code(s->maps, pid, start, max, buf, err, errlen);
}

bool symbolizer_jit_line(struct symbolizer *s, uint32_t pid, uint64_t addr, const char **file,
			 unsigned *line)
{
	return maps_jit_line(s->maps, pid, addr, file, line);
}
