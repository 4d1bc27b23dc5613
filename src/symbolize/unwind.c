/*
 * unwind: libunwind in remote mode over a sample's registers and stack copy.
 *
 * DESIGN
 * - Images: each binary a walk touches is mapped read-only from the file its dso was opened from
 *   (dso_file: --symfs, deleted binaries and our vdso copy included) and its ELF program headers are
 *   read once: the PT_LOAD segments (to turn a runtime address into file bytes) and PT_GNU_EH_FRAME
 *   (the .eh_frame_hdr binary-search table libunwind's dwarf_search_unwind_table walks). An image
 *   is kept per dso (one per build-id/inode, so each file is read once); at most UNWIND_MAPPED are
 *   mapped at a time, the least recently used unmapped between two walks (and mapped again when
 *   needed: the rows cached from it stay, they are numbers, not pointers into it).
 * - A walk's memory reads: inside [SP, SP + copied size) from the stack copy; elsewhere from the
 *   images the walk already used (their read-only segments, which is where the unwind tables live:
 *   .eh_frame_hdr sits in a segment the MMAP records never mention, because only executable
 *   mappings are recorded), else from the image of whatever mapping holds the address. Every read is
 *   bounds-checked against the copy or the file: a garbage stack ends the walk, never the process.
 * - libunwind caches what it parsed per address space, by IP. Addresses mean different code in
 *   different processes, so there is one address space per process (a bounded set, the least
 *   recently used one recycled) and an exec drops its process's space.
 * - Why a walk stopped is noted by the accessors as they fail (no mapping, no table, a read past the
 *   stack copy) and reported with the result.
 * - .debug_frame: code that .eh_frame does not cover (a binary built with
 *   -fno-asynchronous-unwind-tables, hand-written assembly) is unwound from the .debug_frame of the
 *   binary or of its separate debug file, which libdwfl finds (debugcache_find, as the symbolizer
 *   does); libdw parses it (dwarf_cfi_addrframe) and we evaluate the rules it gives on the walk's
 *   registers and memory. libunwind has no remote .debug_frame lookup, so when it reaches such a
 *   frame our find_proc_info stops it (UNW_ESTOPUNWIND, which it returns as is rather than guessing
 *   a frame-pointer frame), we step that frame ourselves from the registers libunwind had, and
 *   libunwind starts again from the caller. The fast path takes .debug_frame rows too, whenever
 *   they have its compact form. The binary's libdwfl handle is opened on the first address that
 *   needs it, once per image.
 */
#include "symbolize/unwind.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debugcache.h"
#include "symbolize/debuginfo.h"
#include "symbolize/dso.h"
#include "symbolize/maps.h"
#include "util/hash.h"
#include "util/util.h"

/* Not in libunwind's public headers, but exported: the search of an .eh_frame_hdr table, given as
 * UNW_INFO_FORMAT_REMOTE_TABLE and read through our access_mem. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);

#define UNWIND_SPACES 64     /* per-process libunwind address spaces kept */
#define UNWIND_MAPPED 128    /* images mapped at once (least recently used unmapped past it) */
#define UNWIND_TOUCHED 8     /* images remembered during one walk */
#define UNWIND_MAX_LOADS 16  /* PT_LOAD segments read per binary */

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PREG_AX, PREG_BX, PREG_CX, PREG_DX, PREG_SI, PREG_DI, PREG_BP, PREG_SP, PREG_IP,
	PREG_R8 = 16,
	PREG_NR = 24,
};

struct image_load {
	uint64_t vaddr, off, filesz;
};

struct image {
	struct dso *dso;        /* key */
	bool tried, ok;         /* mapped, with a usable .eh_frame_hdr */
	const uint8_t *data;
	size_t size;
	struct image_load loads[UNWIND_MAX_LOADS];
	int nloads;
	uint64_t hdr_vaddr;     /* .eh_frame_hdr */
	uint64_t table_vaddr;   /* its sorted (initial location, FDE) pairs */
	uint64_t fde_count;
	/* .debug_frame, for addresses .eh_frame does not cover: opened on the first such address */
	bool dbg_tried;
	Dwfl *dwfl;
	Dwarf_CFI *dbg_cfi;
	uint64_t dbg_bias;      /* CFI address = file virtual address - dbg_bias */
	uint64_t used;          /* the unwinder's clock at its last use */
};

struct space {
	uint32_t pid;
	bool used;
	uint64_t last_use;
	unw_addr_space_t as;
};

struct touched {
	struct image *img;
	uint64_t bias;          /* runtime address = file virtual address + bias */
	uint64_t start, end;    /* the executable mapping it came from */
};

/* ---- the fast path: our own CFI rows, cached per (binary, address) ----
 *
 * libunwind re-runs a frame's CFI program (or probes its cache under a lock taken with signals
 * masked: two sigprocmask calls per step) for every frame of every sample, yet a profile's samples
 * go through a few thousand return addresses again and again. So the common case is done here: the
 * .eh_frame row for an address is computed once from the FDE (found through the same .eh_frame_hdr
 * table) and cached per (image, address) in a compact form: CFA = RSP or RBP + offset, the return
 * address and RBP saved at CFA + offset (or RBP unchanged). A walk is then a hash probe and two
 * loads from the stack copy per frame. Anything this form cannot express (CFA or register
 * expressions, other CFA registers, signal frames, an address without an FDE, a read outside the
 * stack copy that is not just past its end) sends the whole sample to libunwind, so the chains are
 * the ones libunwind gives; the tests compare both on every sample of a recording. */

#define FAST_SLOTS (1u << 16)   /* cached rows; the table starts over when 3/4 full */
#define FAST_STATES 8           /* DW_CFA_remember_state nesting we follow */
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

enum { RULE_NONE, RULE_SAME, RULE_OFFSET, RULE_UNDEF, RULE_BAD };

struct fast_row {
	const struct image *img; /* key with va; NULL = empty slot */
	uint64_t va;             /* the address of the row, | FAST_CALLER for a caller's */
	uint8_t ok;              /* a row this path can use; 0: libunwind does this address */
	uint8_t cfa_reg;         /* DW_RSP or DW_RBP */
	uint8_t ra_rule, bp_rule;
	int32_t cfa_off, ra_off, bp_off;
};

struct fast_cache {
	struct fast_row *rows;
	size_t used;
	uint64_t fallbacks;      /* samples handed to libunwind */
};

/* One walk: what the accessors read from. */
struct walk {
	struct unwind *u;
	uint32_t pid;
	uint64_t regs[17];      /* libunwind's numbering, UNW_X86_64_RAX .. RIP */
	uint32_t have;          /* bit per register in regs */
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_len;
	struct touched t[UNWIND_TOUCHED];
	int nt, next_t;
	enum unwind_stop why;   /* set by an accessor that failed */
	const char *why_dso;
	/* find_proc_info stopped libunwind at code only .debug_frame describes: that row (malloc'd) */
	Dwarf_Frame *dbg_row;
};

struct unwind {
	struct maps *maps;
	struct image **imgs;    /* open addressing on the dso pointer */
	size_t nimgs, cap;
	size_t mapped;          /* images whose file is mapped (or whose .debug_frame is open) */
	struct space spaces[UNWIND_SPACES];
	uint64_t clock;
	unw_accessors_t acc;
	uint64_t images, no_info;
	struct fast_cache fast;
	bool fast_off;           /* PERFTOP_UNWIND=libunwind: every sample through libunwind */
	bool check;              /* PERFTOP_UNWIND=check: both, libunwind's kept, differences counted */
	uint64_t checked, mismatched;
	uint64_t dbg_steps;      /* frames the slow path stepped through .debug_frame itself */
};

/* ---- images ---- */

static size_t ptr_hash(const void *p, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & mask;
}

static struct image **image_slot(struct unwind *u, const struct dso *d)
{
	size_t mask = u->cap - 1, i = ptr_hash(d, mask);
	while (u->imgs[i] && u->imgs[i]->dso != d)
		i = (i + 1) & mask;
	return &u->imgs[i];
}

static bool image_bytes(const struct image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

/* Reads an .eh_frame_hdr encoded value we know how to read (4-byte forms, absolute or pc-relative);
 * false for anything else, and libunwind then gets no table for this binary. */
static bool hdr_value(const struct image *img, uint64_t file_off, uint64_t vaddr, uint8_t enc,
		      uint64_t *out)
{
	if (!image_bytes(img, file_off, 4))
		return false;
	uint32_t raw;
	memcpy(&raw, img->data + file_off, 4);
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x03: v = raw; break;                         /* udata4 */
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)raw; break; /* sdata4 */
	default: return false;
	}
	switch (enc & 0x70) {
	case 0x00: break;                                  /* absolute */
	case 0x10: v += vaddr; break;                      /* pc-relative */
	default: return false;
	}
	*out = v;
	return true;
}

static void image_read_elf(struct image *img)
{
	Elf64_Ehdr eh;
	if (!image_bytes(img, 0, sizeof(eh)))
		return;
	memcpy(&eh, img->data, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr))
		return;
	uint64_t hdr_off = 0, hdr_size = 0;
	bool have_hdr = false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t at = eh.e_phoff + (uint64_t)i * sizeof(ph);
		if (at < eh.e_phoff || !image_bytes(img, at, sizeof(ph)))
			return;
		memcpy(&ph, img->data + at, sizeof(ph));
		if (ph.p_type == PT_LOAD && img->nloads < UNWIND_MAX_LOADS) {
			img->loads[img->nloads++] =
				(struct image_load){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			have_hdr = true;
			img->hdr_vaddr = ph.p_vaddr;
			hdr_off = ph.p_offset;
			hdr_size = ph.p_filesz;
		}
	}
	/* version 1, then the encodings of eh_frame_ptr, fde_count and the table entries. */
	if (!have_hdr || hdr_size < 12 || !image_bytes(img, hdr_off, hdr_size) ||
	    img->data[hdr_off] != 1)
		return;
	uint8_t ptr_enc = img->data[hdr_off + 1], cnt_enc = img->data[hdr_off + 2],
		tab_enc = img->data[hdr_off + 3];
	uint64_t eh_frame, count;
	/* libunwind's remote table wants datarel sdata4 entries, which is what linkers write. */
	if (tab_enc != 0x3b || !hdr_value(img, hdr_off + 4, img->hdr_vaddr + 4, ptr_enc, &eh_frame) ||
	    !hdr_value(img, hdr_off + 8, img->hdr_vaddr + 8, cnt_enc, &count))
		return;
	if (count == 0 || count > (hdr_size - 12) / 8)
		return;
	img->table_vaddr = img->hdr_vaddr + 12;
	img->fde_count = count;
	img->ok = true;
}

/* The image of d, mapped and read on first use; NULL when its file cannot be read at all. */
static struct image *image_get(struct unwind *u, struct dso *d)
{
	if (!u->cap) {
		u->cap = 64;
		u->imgs = xcalloc(u->cap, sizeof(*u->imgs));
	}
	struct image **sl = image_slot(u, d);
	if (!*sl) {
		struct image *img = xcalloc(1, sizeof(*img));
		img->dso = d;
		*sl = img;
		if (++u->nimgs * 2 > u->cap) {
			struct image **old = u->imgs;
			size_t ocap = u->cap;
			u->cap *= 2;
			u->imgs = xcalloc(u->cap, sizeof(*u->imgs));
			for (size_t i = 0; i < ocap; i++)
				if (old[i])
					*image_slot(u, old[i]->dso) = old[i];
			free(old);
			sl = image_slot(u, d);
		}
	}
	struct image *img = *sl;
	img->used = u->clock;
	if (!img->tried) {
		img->tried = true;
		u->mapped++;
		const char *file = dso_file(d);
		int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p != MAP_FAILED) {
				img->data = p;
				img->size = (size_t)st.st_size;
				image_read_elf(img);
			}
		}
		if (fd >= 0)
			close(fd);
		u->images++;
		if (!img->ok)
			u->no_info++;
	}
	return img->data ? img : NULL;
}

/* Lets go of what an image holds: its file's mapping and its .debug_frame handle. */
static void image_unmap(struct image *img)
{
	if (img->data)
		munmap((void *)img->data, img->size);
	if (img->dwfl)
		dwfl_end(img->dwfl);
}

/* Runtime minus file virtual address for a mapping of img at start from file offset pgoff. */
static bool image_bias(const struct image *img, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	for (int i = 0; i < img->nloads; i++) {
		const struct image_load *l = &img->loads[i];
		/* A mapping starts at the page that holds the segment's first byte. */
		uint64_t page_off = l->off & ~(uint64_t)4095;
		if (pgoff >= page_off && pgoff < l->off + (l->filesz ? l->filesz : 1)) {
			*bias = start - (l->vaddr - (l->off - pgoff));
			return true;
		}
	}
	return false;
}

static bool image_read(const struct image *img, uint64_t vaddr, void *out, size_t len)
{
	for (int i = 0; i < img->nloads; i++) {
		const struct image_load *l = &img->loads[i];
		if (vaddr < l->vaddr || vaddr - l->vaddr > l->filesz || len > l->filesz - (vaddr - l->vaddr))
			continue;
		uint64_t off = l->off + (vaddr - l->vaddr);
		if (!image_bytes(img, off, len))
			return false;
		memcpy(out, img->data + off, len);
		return true;
	}
	return false;
}

/* ---- .debug_frame, through libdwfl and libdw ---- */

static char *unwind_debuginfo_path;  /* NULL: libdwfl's default */

/* As the symbolizer's dsos: our find_debuginfo (build-id, debuglink, --symfs, debuginfod). */
static const Dwfl_Callbacks dbg_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugcache_find,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &unwind_debuginfo_path,
};

static bool elf_has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Whether mod's file (elf, already open) or its separate debug file has a .debug_frame.
 * Asked before libdwfl loads the DWARF, which costs tens of ms for a big debug file (libdw inflates
 * its compressed sections when it opens it) and which distributions' binaries do not need: their
 * debug files have no .debug_frame (gcc writes .eh_frame), yet a few addresses of theirs have no
 * .eh_frame entry (ld.so's entry point, some PLT stubs). */
static bool module_has_debug_frame(Dwfl_Module *mod, Elf *elf, const char *file)
{
	if (elf_has_section(elf, ".debug_frame"))
		return true;
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	void *ud = NULL;
	char *name = NULL;
	int fd = debuginfo_find(mod, &ud, file, 0, file, link, crc, &name);
	free(name);
	if (fd < 0)
		return false;
	Elf *dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool has = elf_has_section(dbg, ".debug_frame");
	elf_end(dbg);
	close(fd);
	return has;
}

/* img's .debug_frame (its own or its separate debug file's), opened on first use; NULL if none. */
static Dwarf_CFI *image_debug_frame(struct unwind *u, struct image *img)
{
	if (img->dbg_tried)
		return img->dbg_cfi;
	img->dbg_tried = true;
	const char *file = dso_file(img->dso);
	if (!file || !(img->dwfl = dwfl_begin(&dbg_callbacks)))
		return NULL;
	dwfl_report_begin(img->dwfl);
	Dwfl_Module *mod = dwfl_report_elf(img->dwfl, dso_name(img->dso), file, -1, 0, true);
	dwfl_report_end(img->dwfl, NULL, NULL);
	GElf_Addr elf_bias = 0;
	Dwarf_Addr cfi_bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &elf_bias) : NULL;
	if (elf && module_has_debug_frame(mod, elf, file))
		img->dbg_cfi = dwfl_module_dwarf_cfi(mod, &cfi_bias);
	if (!img->dbg_cfi) {
		dwfl_end(img->dwfl);
		img->dwfl = NULL;
		return NULL;
	}
	/* module address = file virtual address + elf_bias = CFI address + cfi_bias */
	img->dbg_bias = cfi_bias - elf_bias;
	if (!img->ok && u->no_info)
		u->no_info--;  /* it has unwind tables after all */
	return img->dbg_cfi;
}

/* The .debug_frame row of img's code at file address va (free() it), or NULL. */
static Dwarf_Frame *dbg_frame(struct unwind *u, struct image *img, uint64_t va)
{
	Dwarf_CFI *cfi = image_debug_frame(u, img);
	Dwarf_Frame *f = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, va - img->dbg_bias, &f) != 0)
		return NULL;
	return f;
}

/* ---- one walk ---- */

/* The image and bias for the executable mapping holding addr, remembered for this walk. */
static struct touched *walk_touch(struct walk *w, uint64_t addr)
{
	for (int i = 0; i < w->nt; i++)
		if (addr >= w->t[i].start && addr < w->t[i].end)
			return &w->t[i];
	const struct map *m = maps_find(w->u->maps, w->pid, addr);
	if (!m || !m->dso || m->kind == MAP_KIND_ANON || m->kind == MAP_KIND_OTHER) {
		w->why = UNWIND_UNMAPPED;
		return NULL;
	}
	struct image *img = image_get(w->u, m->dso);
	uint64_t bias;
	if (!img || !image_bias(img, m->start, m->pgoff, &bias)) {
		w->why = UNWIND_NO_INFO;
		w->why_dso = dso_name(m->dso);
		return NULL;
	}
	struct touched *t;
	if (w->nt < UNWIND_TOUCHED) {
		t = &w->t[w->nt++];
	} else {
		t = &w->t[w->next_t];
		w->next_t = (w->next_t + 1) % UNWIND_TOUCHED;
	}
	*t = (struct touched){ img, bias, m->start, m->end };
	return t;
}

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			      int need_unwind_info, void *arg)
{
	struct walk *w = arg;
	struct touched *t = walk_touch(w, ip);
	if (!t)
		return -UNW_ENOINFO;
	int r = -UNW_ENOINFO;
	if (t->img->ok) {
		unw_dyn_info_t di;
		memset(&di, 0, sizeof(di));
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.start_ip = t->start;
		di.end_ip = t->end;
		di.u.rti.segbase = t->img->hdr_vaddr + t->bias;
		di.u.rti.table_data = t->img->table_vaddr + t->bias;
		/* In words: each entry is two int32s, one unw_word_t. */
		di.u.rti.table_len = t->img->fde_count * 8 / sizeof(unw_word_t);
		r = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	}
	if (r == -UNW_ENOINFO) {
		/* No .eh_frame entry for ip: .debug_frame's, if it has one, stepped by unwind_slow. Any
		 * error but UNW_ENOINFO makes unw_step return it as it is, with the cursor still on this
		 * frame (UNW_ENOINFO would make it guess a frame-pointer frame). */
		Dwarf_Frame *f = dbg_frame(w->u, t->img, ip - t->bias);
		if (f) {
			free(w->dbg_row);
			w->dbg_row = f;
			return -UNW_ESTOPUNWIND;
		}
	}
	if (r < 0 && w->why == UNWIND_END) {
		w->why = UNWIND_NO_INFO;
		w->why_dso = dso_name(t->img->dso);
	}
	return r;
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the table-format info it allocated itself; we hand out nothing. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	/* No dynamically registered unwind info: JIT code has none we could read. */
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* n bytes at addr of the walk's memory: the stack copy, else the binaries' files. Notes why not. */
static bool walk_read(struct walk *w, uint64_t addr, void *out, size_t n)
{
	if (addr >= w->sp && addr - w->sp < w->stack_len && w->stack_len - (addr - w->sp) >= n) {
		memcpy(out, w->stack + (addr - w->sp), n);
		return true;
	}
	for (int i = 0; i < w->nt; i++)
		if (image_read(w->t[i].img, addr - w->t[i].bias, out, n))
			return true;
	/* Above SP and near it: stack the kernel did not copy. Stacks grow down from far above. */
	if (addr >= w->sp && addr - w->sp < (64u << 20)) {
		w->why = UNWIND_SHORT_STACK;
		return false;
	}
	enum unwind_stop before = w->why;
	struct touched *t = walk_touch(w, addr);
	if (t && image_read(t->img, addr - t->bias, out, n))
		return true;
	if (before == UNWIND_END && w->why == UNWIND_END)
		w->why = UNWIND_UNMAPPED;
	return false;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			  void *arg)
{
	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	return walk_read(arg, addr, valp, 8) ? 0 : -UNW_EINVAL;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write,
			  void *arg)
{
	struct walk *w = arg;
	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg > UNW_X86_64_RIP || !(w->have & (1u << reg)))
		return -UNW_EBADREG;
	*valp = w->regs[reg];
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			    void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			     unw_word_t *offp, void *arg)
{
	/* Names come from the symbolizer, not from libunwind. */
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)offp;
	(void)arg;
	return -UNW_EINVAL;
}

struct cfi_state {
	uint8_t cfa_reg, ra_rule, bp_rule, bad;
	int64_t cfa_off, ra_off, bp_off;
};

struct cfi_cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t cfi_uleb(struct cfi_cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t cfi_sleb(struct cfi_cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		if (c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
}

static uint64_t cfi_fixed(struct cfi_cursor *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* A pointer in encoding enc at file virtual address va (the field's own, for pc-relative values).
 * Only what .eh_frame uses for code addresses; anything else marks the cursor bad. */
static uint64_t cfi_pointer(struct cfi_cursor *c, uint8_t enc, uint64_t va, bool apply)
{
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = cfi_fixed(c, 8); break;
	case 0x01: v = cfi_uleb(c); break;
	case 0x02: v = cfi_fixed(c, 2); break;
	case 0x03: v = cfi_fixed(c, 4); break;
	case 0x04: v = cfi_fixed(c, 8); break;
	case 0x09: v = (uint64_t)cfi_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)cfi_fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)cfi_fixed(c, 4); break;
	case 0x0c: v = cfi_fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	if (!apply)
		return v;
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += va; break;
	default: c->bad = true; break;
	}
	return v;
}

/* The bytes of [va, va + len) of img's file, or NULL. */
static const uint8_t *image_ptr(const struct image *img, uint64_t va, uint64_t len)
{
	for (int i = 0; i < img->nloads; i++) {
		const struct image_load *l = &img->loads[i];
		if (va < l->vaddr || va - l->vaddr > l->filesz || len > l->filesz - (va - l->vaddr))
			continue;
		uint64_t off = l->off + (va - l->vaddr);
		return image_bytes(img, off, len) ? img->data + off : NULL;
	}
	return NULL;
}

/* One CFI record (CIE or FDE) at va: its content after the length, and the va of that content. */
static bool cfi_record(const struct image *img, uint64_t va, struct cfi_cursor *c, uint64_t *body_va)
{
	const uint8_t *p = image_ptr(img, va, 4);
	if (!p)
		return false;
	uint32_t len32;
	memcpy(&len32, p, 4);
	if (len32 == 0 || len32 >= 0xfffffff0u)  /* terminator, or the 64-bit form .eh_frame never uses */
		return false;
	const uint8_t *b = image_ptr(img, va + 4, len32);
	if (!b)
		return false;
	*c = (struct cfi_cursor){ b, b + len32, false };
	*body_va = va + 4;
	return true;
}

/*
 * A DW_CFA_def_cfa_expression that is RSP + a constant at this address: the one of every PLT
 * (DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3;
 * DW_OP_shl; DW_OP_plus: 8 or 16 by where in its 16-byte entry the IP is). Evaluated for the row's
 * own IP (rip, a file address; have_rip false in a CIE): RSP stays symbolic, and the IP may only be
 * masked down to its low bits, which a mapping's page-aligned bias does not change. Anything else
 * (memory, other registers) is no constant offset: false.
 */
static bool cfi_static_cfa(const uint8_t *p, const uint8_t *end, uint64_t rip, bool have_rip,
			   int64_t *off)
{
	enum { V_CONST, V_RSP, V_RIP };
	struct { uint8_t kind; uint64_t v; } st[16];
	int sp = 0;
	struct cfi_cursor c = { p, end, false };
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t n;
		if (op >= 0x30 && op <= 0x4f) {               /* lit0..lit31 */
			n = op - 0x30;
			goto push_const;
		}
		switch (op) {
		case 0x08: n = cfi_fixed(&c, 1); goto push_const;                        /* const1u */
		case 0x09: n = (uint64_t)(int64_t)(int8_t)cfi_fixed(&c, 1); goto push_const;
		case 0x0a: n = cfi_fixed(&c, 2); goto push_const;
		case 0x0b: n = (uint64_t)(int64_t)(int16_t)cfi_fixed(&c, 2); goto push_const;
		case 0x0c: n = cfi_fixed(&c, 4); goto push_const;
		case 0x0d: n = (uint64_t)(int64_t)(int32_t)cfi_fixed(&c, 4); goto push_const;
		case 0x10: n = cfi_uleb(&c); goto push_const;                             /* constu */
		case 0x11: n = (uint64_t)cfi_sleb(&c); goto push_const;                   /* consts */
		case 0x77: case 0x80:                                                     /* breg7, breg16 */
			if (sp == 16 || (op == 0x80 && !have_rip))
				return false;
			st[sp].kind = op == 0x77 ? V_RSP : V_RIP;
			st[sp].v = (uint64_t)cfi_sleb(&c) + (op == 0x80 ? rip : 0);
			sp++;
			continue;
		case 0x23:                                                                /* plus_uconst */
			if (sp < 1 || st[sp - 1].kind == V_RIP)
				return false;
			st[sp - 1].v += cfi_uleb(&c);
			continue;
		default:
			break;
		}
		/* Binary operations: constants, except RSP + constant, RSP - constant and a masked IP. */
		if (sp < 2)
			return false;
		uint8_t ka = st[sp - 2].kind, kb = st[sp - 1].kind;
		uint64_t a = st[sp - 2].v, b = st[sp - 1].v, r;
		uint8_t kind = V_CONST;
		switch (op) {
		case 0x1a:                                                                /* and */
			if (ka == V_CONST && kb == V_RIP && a < 4096) r = a & b;
			else if (ka == V_RIP && kb == V_CONST && b < 4096) r = a & b;
			else if (ka == V_CONST && kb == V_CONST) r = a & b;
			else return false;
			break;
		case 0x22:                                                                /* plus */
			if (ka == V_RIP || kb == V_RIP || (ka == V_RSP && kb == V_RSP))
				return false;
			kind = ka == V_RSP || kb == V_RSP ? V_RSP : V_CONST;
			r = a + b;
			break;
		case 0x1c:                                                                /* minus */
			if (kb != V_CONST || ka == V_RIP)
				return false;
			kind = ka;
			r = a - b;
			break;
		default:
			if (ka != V_CONST || kb != V_CONST)
				return false;
			switch (op) {
			case 0x24: r = b >= 64 ? 0 : a << b; break;                        /* shl */
			case 0x25: r = b >= 64 ? 0 : a >> b; break;                        /* shr */
			case 0x1e: r = a * b; break;                                       /* mul */
			case 0x21: r = a | b; break;                                       /* or */
			case 0x27: r = a ^ b; break;                                       /* xor */
			case 0x29: r = a == b; break;                                      /* eq */
			case 0x2a: r = (int64_t)a >= (int64_t)b; break;                    /* ge */
			case 0x2b: r = (int64_t)a > (int64_t)b; break;                     /* gt */
			case 0x2c: r = (int64_t)a <= (int64_t)b; break;                    /* le */
			case 0x2d: r = (int64_t)a < (int64_t)b; break;                     /* lt */
			case 0x2e: r = a != b; break;                                      /* ne */
			default: return false;
			}
			break;
		}
		sp--;
		st[sp - 1].kind = kind;
		st[sp - 1].v = r;
		continue;
	push_const:
		if (sp == 16)
			return false;
		st[sp].kind = V_CONST;
		st[sp].v = n;
		sp++;
	}
	if (c.bad || sp != 1 || st[0].kind != V_RSP || (int64_t)st[0].v < INT32_MIN ||
	    (int64_t)st[0].v > INT32_MAX)
		return false;
	*off = (int64_t)st[0].v;
	return true;
}

/* Runs CFI instructions from c while the row's location is <= pc. rip: the frame's own IP (file
 * address), for a CFA expression that reads it (have_rip false: none known, in a CIE). */
static void cfi_run(struct cfi_cursor *c, struct cfi_state *st, const struct cfi_state *init,
		    uint64_t loc, uint64_t pc, uint64_t rip, bool have_rip, uint64_t caf, int64_t daf)
{
	struct cfi_state stack[FAST_STATES];
	int depth = 0;
	while (c->p < c->end && !c->bad && !st->bad) {
		uint8_t op = *c->p++;
		uint8_t low = op & 0x3f;
		uint64_t reg = 0, adv = 0;
		int64_t off = 0;
		bool advance = false;
		switch (op & 0xc0) {
		case 0x40: adv = low * caf; advance = true; break;
		case 0x80: reg = low; off = (int64_t)cfi_uleb(c) * daf; goto set_offset;
		case 0xc0: reg = low; goto restore;
		default: break;
		}
		if (!advance) {
			switch (op) {
			case 0x00: break;                                      /* nop */
			case 0x01: st->bad = 1; break;                         /* set_loc: not in gcc's .eh_frame */
			case 0x02: adv = cfi_fixed(c, 1) * caf; advance = true; break;
			case 0x03: adv = cfi_fixed(c, 2) * caf; advance = true; break;
			case 0x04: adv = cfi_fixed(c, 4) * caf; advance = true; break;
			case 0x05: reg = cfi_uleb(c); off = (int64_t)cfi_uleb(c) * daf; goto set_offset;
			case 0x06: reg = cfi_uleb(c); goto restore;
			case 0x07: reg = cfi_uleb(c);
				if (reg == DW_RA) st->ra_rule = RULE_UNDEF;
				else if (reg == DW_RBP) st->bp_rule = RULE_UNDEF;
				else if (reg == DW_RSP) st->bad = 1;
				break;
			case 0x08: reg = cfi_uleb(c);
				if (reg == DW_RA) st->ra_rule = RULE_SAME;
				else if (reg == DW_RBP) st->bp_rule = RULE_SAME;
				break;
			case 0x09: reg = cfi_uleb(c); (void)cfi_uleb(c); goto bad_reg;
			case 0x0a:
				if (depth == FAST_STATES) { st->bad = 1; break; }
				stack[depth++] = *st;
				break;
			case 0x0b: {
				if (depth == 0) { st->bad = 1; break; }
				/* The CFA is part of the state too (DWARF 5 says so, and gcc relies on it). */
				*st = stack[--depth];
				break;
			}
			case 0x0c: st->cfa_reg = (uint8_t)cfi_uleb(c); st->cfa_off = (int64_t)cfi_uleb(c); break;
			case 0x0d: st->cfa_reg = (uint8_t)cfi_uleb(c); break;
			case 0x0e: st->cfa_off = (int64_t)cfi_uleb(c); break;
			case 0x11: reg = cfi_uleb(c); off = cfi_sleb(c) * daf; goto set_offset;
			case 0x12: st->cfa_reg = (uint8_t)cfi_uleb(c); st->cfa_off = cfi_sleb(c) * daf; break;
			case 0x13: st->cfa_off = cfi_sleb(c) * daf; break;
			case 0x2e: (void)cfi_uleb(c); break;                   /* GNU_args_size */
			case 0x2f: reg = cfi_uleb(c); off = -(int64_t)cfi_uleb(c) * daf; goto set_offset;
			case 0x10: case 0x16: /* register expressions: harmless unless RA, RBP or RSP */
				reg = cfi_uleb(c);
				{ uint64_t n = cfi_uleb(c); if ((uint64_t)(c->end - c->p) < n) c->bad = true; else c->p += n; }
				goto bad_reg;
			case 0x14: reg = cfi_uleb(c); (void)cfi_uleb(c); goto bad_reg;
			case 0x15: reg = cfi_uleb(c); (void)cfi_sleb(c); goto bad_reg;
			case 0x0f: {                                           /* def_cfa_expression */
				uint64_t n = cfi_uleb(c);
				int64_t off;
				if ((uint64_t)(c->end - c->p) < n ||
				    !cfi_static_cfa(c->p, c->p + n, rip, have_rip, &off)) {
					st->bad = 1;
					break;
				}
				c->p += n;
				st->cfa_reg = DW_RSP;
				st->cfa_off = off;
				break;
			}
			default: st->bad = 1; break;                            /* the unknown */
			}
		}
		if (advance) {
			if (loc + adv > pc)
				return;
			loc += adv;
		}
		continue;
	set_offset:
		if (reg == DW_RA) { st->ra_rule = RULE_OFFSET; st->ra_off = off; }
		else if (reg == DW_RBP) { st->bp_rule = RULE_OFFSET; st->bp_off = off; }
		else if (reg == DW_RSP) st->bad = 1;
		continue;
	restore:
		if (reg == DW_RA) { st->ra_rule = init->ra_rule; st->ra_off = init->ra_off; }
		else if (reg == DW_RBP) { st->bp_rule = init->bp_rule; st->bp_off = init->bp_off; }
		else if (reg == DW_RSP) st->bad = 1;
		continue;
	bad_reg:
		if (reg == DW_RA || reg == DW_RBP || reg == DW_RSP)
			st->bad = 1;
		continue;
	}
	if (c->bad)
		st->bad = 1;
}

/* ---- .debug_frame rules, evaluated ----
 *
 * libdw gives a row as DWARF expressions (dwarf_frame_cfa: the CFA; dwarf_frame_register: where
 * each register of the caller is, an offset rule being DW_OP_call_frame_cfa, DW_OP_plus_uconst N).
 * libunwind numbers the x86-64 registers as DWARF does, so the walk's registers are indexed by DWARF
 * number as they are. */

_Static_assert(UNW_X86_64_RAX == 0 && UNW_X86_64_RDX == 1 && UNW_X86_64_RBX == 3 &&
	       UNW_X86_64_RBP == DW_RBP && UNW_X86_64_RSP == DW_RSP && UNW_X86_64_R8 == 8 &&
	       UNW_X86_64_R15 == 15 && UNW_X86_64_RIP == DW_RA, "libunwind's x86-64 registers are DWARF's");

#define DW_EVAL_STACK 32
#define DW_EVAL_STEPS 512  /* DW_OP_skip and DW_OP_bra can loop */

/* Evaluates a DWARF expression of a CFI row on registers regs (have: bit per known register) with
 * cfa the frame's CFA (NULL while the CFA itself is computed). *out: the result; *value: it is the
 * register's value itself (DW_OP_stack_value, or a register rule), not the address that holds it.
 * False for what cannot be evaluated: unknown operations, unknown registers, unreadable memory. */
static bool dw_eval(struct walk *w, const Dwarf_Op *ops, size_t nops, const uint64_t *regs,
		    uint32_t have, const uint64_t *cfa, uint64_t *out, bool *value)
{
	uint64_t st[DW_EVAL_STACK];
	int sp = 0;
	unsigned steps = 0;
	*value = false;
#define NEED(k) do { if (sp < (k)) return false; } while (0)
#define PUSH(v) do { uint64_t v_ = (v); if (sp == DW_EVAL_STACK) return false; st[sp++] = v_; } while (0)
	for (size_t i = 0; i < nops; i++) {
		if (++steps > DW_EVAL_STEPS)
			return false;
		const Dwarf_Op *op = &ops[i];
		unsigned a = op->atom, r;
		uint64_t x, y;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(a - DW_OP_lit0);
			continue;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			r = a == DW_OP_bregx ? (unsigned)op->number : a - DW_OP_breg0;
			if (r > DW_RA || !(have & (1u << r)))
				return false;
			PUSH(regs[r] + (a == DW_OP_bregx ? op->number2 : op->number));
			continue;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			/* A register rule: the caller's value is in that register of this frame. */
			r = a == DW_OP_regx ? (unsigned)op->number : a - DW_OP_reg0;
			if (nops != 1 || r > DW_RA || !(have & (1u << r)))
				return false;
			*out = regs[r];
			*value = true;
			return true;
		}
		switch (a) {
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
			PUSH(op->number);  /* libdw sign-extends the signed forms */
			break;
		case DW_OP_call_frame_cfa:
			if (!cfa)
				return false;
			PUSH(*cfa);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			if (op->number >= (uint64_t)sp)
				return false;
			PUSH(st[sp - 1 - (int)op->number]);
			break;
		case DW_OP_swap: NEED(2); x = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = x; break;
		case DW_OP_rot:  /* the top becomes the third, the second the top, the third the second */
			NEED(3);
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = x;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			NEED(1);
			size_t n = a == DW_OP_deref ? 8 : (size_t)op->number;
			uint64_t v = 0;
			if (n == 0 || n > 8 || !walk_read(w, st[sp - 1], &v, n))
				return false;
			st[sp - 1] = v;  /* little-endian: the n bytes, zero-extended */
			break;
		}
		case DW_OP_abs: NEED(1); if ((int64_t)st[sp - 1] < 0) st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
		case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt:
		case DW_OP_ne:
			NEED(2);
			y = st[--sp];  /* the top */
			x = st[sp - 1];
			switch (a) {
			case DW_OP_and: x &= y; break;
			case DW_OP_div:
				if (y == 0 || ((int64_t)y == -1 && x == (uint64_t)INT64_MIN))
					return false;
				x = (uint64_t)((int64_t)x / (int64_t)y);
				break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mod: if (y == 0) return false; x %= y; break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_plus: x += y; break;
			case DW_OP_shl: x = y >= 64 ? 0 : x << y; break;
			case DW_OP_shr: x = y >= 64 ? 0 : x >> y; break;
			case DW_OP_shra:
				x = (uint64_t)((int64_t)x >> (y >= 64 ? 63 : y));
				break;
			case DW_OP_xor: x ^= y; break;
			case DW_OP_eq: x = x == y; break;
			case DW_OP_ge: x = (int64_t)x >= (int64_t)y; break;
			case DW_OP_gt: x = (int64_t)x > (int64_t)y; break;
			case DW_OP_le: x = (int64_t)x <= (int64_t)y; break;
			case DW_OP_lt: x = (int64_t)x < (int64_t)y; break;
			case DW_OP_ne: x = x != y; break;
			}
			st[sp - 1] = x;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (a == DW_OP_bra) {
				NEED(1);
				if (st[--sp] == 0)
					break;
			}
			/* The target is a byte offset in the expression: after this 3-byte operation, plus
			 * the signed operand. libdw gives each operation its offset. */
			uint64_t to = op->offset + 3 + op->number;
			size_t j = 0;
			while (j < nops && ops[j].offset != to)
				j++;
			if (j == nops) {
				if (to <= ops[nops - 1].offset)
					return false;  /* into the middle of an operation */
				i = nops - 1;          /* past the last one: the end */
				break;
			}
			i = j - 1;  /* the loop's i++ lands on it (j == 0: i wraps to SIZE_MAX, then 0) */
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			NEED(1);
			*out = st[sp - 1];
			*value = true;
			return true;
		default:
			return false;  /* DW_OP_piece, TLS, calls, typed operations... */
		}
	}
	NEED(1);
	*out = st[sp - 1];
	return true;
#undef NEED
#undef PUSH
}

/* One frame up through .debug_frame row f: the caller's registers from this frame's (regs, have: bit
 * per known register, DWARF numbering). Registers the row leaves undefined or that cannot be read
 * are unknown in the caller; the return address must be known, and says the caller's RIP. The
 * caller's RSP is the CFA unless a rule says otherwise (the x86-64 convention). False when the CFA
 * or the return address cannot be had; *outermost when the return address is undefined (the end).
 */
static bool dbg_step(struct walk *w, Dwarf_Frame *f, const uint64_t *regs, uint32_t have,
		     uint64_t *nregs, uint32_t *nhave, bool *outermost)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	uint64_t cfa, v;
	bool is_value;
	*outermost = false;
	*nhave = 0;
	if (dwarf_frame_info(f, NULL, NULL, NULL) != DW_RA)
		return false;
	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops == 0 ||
	    !dw_eval(w, ops, nops, regs, have, NULL, &cfa, &is_value))
		return false;
	bool rsp_rule = false;
	for (unsigned r = 0; r <= DW_RA; r++) {
		if (dwarf_frame_register(f, (int)r, mem, &ops, &nops) != 0)
			return false;
		if (nops == 0) {
			if (r == DW_RA && !ops)
				return false;  /* the same return address again: no frame */
			if (!ops && (have & (1u << r))) {  /* same value */
				nregs[r] = regs[r];
				*nhave |= 1u << r;
			} else if (ops && r == DW_RA) {    /* undefined return address: the outermost frame */
				*outermost = true;
				return true;
			}
			continue;
		}
		if (r == DW_RSP)
			rsp_rule = true;
		if (!dw_eval(w, ops, nops, regs, have, &cfa, &v, &is_value) ||
		    (!is_value && !walk_read(w, v, &v, 8))) {
			if (r == DW_RA)
				return false;
			continue;  /* a callee-saved register we cannot recover: unknown above */
		}
		nregs[r] = v;
		*nhave |= 1u << r;
	}
	if (!rsp_rule || !(*nhave & (1u << DW_RSP))) {
		nregs[DW_RSP] = cfa;
		*nhave |= 1u << DW_RSP;
	}
	return (*nhave & (1u << DW_RA)) != 0;
}

/* cfa + N, as libdw gives an offset rule: N in *off. */
static bool dbg_offset_rule(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The fast path's compact form of .debug_frame row f, when it has one (row->ok). */
static void dbg_compact(Dwarf_Frame *f, struct fast_row *row)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool signal = false;
	int64_t cfa_off, ra_off = 0, bp_off = 0;
	row->ok = 0;
	if (dwarf_frame_info(f, NULL, NULL, &signal) != DW_RA || signal)
		return;
	/* CFA = register + offset: libdw says DW_OP_bregx REG OFFSET. */
	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops != 1)
		return;
	uint64_t cfa_reg;
	if (ops[0].atom == DW_OP_bregx) {
		cfa_reg = ops[0].number;
		cfa_off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		cfa_reg = ops[0].atom - DW_OP_breg0;
		cfa_off = (int64_t)ops[0].number;
	} else {
		return;
	}
	if (cfa_reg != DW_RSP && cfa_reg != DW_RBP)
		return;
	uint8_t ra_rule, bp_rule;
	if (dwarf_frame_register(f, DW_RA, mem, &ops, &nops) != 0)
		return;
	if (nops == 0 && ops)
		ra_rule = RULE_UNDEF;
	else if (dbg_offset_rule(ops, nops, &ra_off))
		ra_rule = RULE_OFFSET;
	else
		return;
	if (dwarf_frame_register(f, DW_RBP, mem, &ops, &nops) != 0)
		return;
	if (nops == 0 && !ops)
		bp_rule = RULE_SAME;
	else if (dbg_offset_rule(ops, nops, &bp_off))
		bp_rule = RULE_OFFSET;
	else
		return;
	/* The caller's RSP: the CFA (libdw's x86-64 default says so as a value rule) or no rule. */
	if (dwarf_frame_register(f, DW_RSP, mem, &ops, &nops) != 0)
		return;
	if (nops != 0 && !(nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
			   ops[1].atom == DW_OP_stack_value))
		return;
	if (!fits32(cfa_off) || !fits32(ra_off) || !fits32(bp_off))
		return;
	row->ok = 1;
	row->cfa_reg = (uint8_t)cfa_reg;
	row->ra_rule = ra_rule;
	row->bp_rule = bp_rule;
	row->cfa_off = (int32_t)cfa_off;
	row->ra_off = (int32_t)ra_off;
	row->bp_off = (int32_t)bp_off;
}

/* The row of img's code at file address pc, computed from its .eh_frame FDE (rip: the frame's IP,
 * pc itself or, for a caller, pc + 1). False when no FDE covers pc (row->ok is then 0 too); true
 * when one does, whether or not the row fits row->ok. */
static bool eh_compute(const struct image *img, uint64_t pc, uint64_t rip, struct fast_row *row)
{
	row->ok = 0;
	if (!img->ok || !img->fde_count)
		return false;
	/* The .eh_frame_hdr table: (initial location, FDE) pairs, sdata4 relative to the table's
	 * section, sorted by location: the last entry at or below pc. */
	const uint8_t *tab = image_ptr(img, img->table_vaddr, img->fde_count * 8);
	if (!tab)
		return false;
	size_t lo = 0, hi = img->fde_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t loc;
		memcpy(&loc, tab + mid * 8, 4);
		if ((uint64_t)((int64_t)img->hdr_vaddr + loc) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	int32_t fde_rel;
	memcpy(&fde_rel, tab + (lo - 1) * 8 + 4, 4);
	uint64_t fde_va = (uint64_t)((int64_t)img->hdr_vaddr + fde_rel);
	struct cfi_cursor f;
	uint64_t fbody;
	if (!cfi_record(img, fde_va, &f, &fbody))
		return true;
	const uint8_t *fstart = f.p;
	uint32_t cie_ptr = (uint32_t)cfi_fixed(&f, 4);
	if (f.bad || cie_ptr == 0 || cie_ptr > fbody)
		return true;
	struct cfi_cursor c;
	uint64_t cbody;
	if (!cfi_record(img, fbody - cie_ptr, &c, &cbody))
		return true;
	/* The CIE: id 0, version, augmentation, alignment factors, return address column. */
	uint32_t id = (uint32_t)cfi_fixed(&c, 4);
	uint8_t version = (uint8_t)cfi_fixed(&c, 1);
	if (c.bad || id != 0 || (version != 1 && version != 3))
		return true;
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return true;
	c.p += auglen + 1;
	if (aug[0] && aug[0] != 'z')
		return true;  /* "eh" and other old forms */
	uint64_t caf = cfi_uleb(&c);
	int64_t daf = cfi_sleb(&c);
	uint64_t ra_col = version == 1 ? cfi_fixed(&c, 1) : cfi_uleb(&c);
	uint8_t fde_enc = 0;
	if (aug[0] == 'z') {
		uint64_t n = cfi_uleb(&c);
		if (c.bad || (uint64_t)(c.end - c.p) < n)
			return true;
		struct cfi_cursor a = { c.p, c.p + n, false };
		c.p += n;
		for (const char *k = aug + 1; *k; k++) {
			if (*k == 'R') {
				fde_enc = (uint8_t)cfi_fixed(&a, 1);
			} else if (*k == 'P') {
				uint8_t pe = (uint8_t)cfi_fixed(&a, 1);
				(void)cfi_pointer(&a, pe, 0, false);
			} else if (*k == 'L') {
				(void)cfi_fixed(&a, 1);
			} else {
				return true;  /* 'S' (a signal frame) and anything unknown: libunwind's */
			}
		}
		if (a.bad)
			return true;
	}
	if (c.bad || ra_col != DW_RA)
		return true;
	/* The FDE: its range, the augmentation data, then its instructions. */
	uint64_t field_va = fbody + (uint64_t)(f.p - fstart);
	uint64_t start = cfi_pointer(&f, fde_enc, field_va, true);
	uint64_t range = cfi_pointer(&f, fde_enc & 0x0f, 0, false);
	if (f.bad)
		return true;
	if (pc < start || pc - start >= range)
		return false;
	if (aug[0] == 'z') {
		uint64_t n = cfi_uleb(&f);
		if (f.bad || (uint64_t)(f.end - f.p) < n)
			return true;
		f.p += n;
	}
	struct cfi_state st = { .cfa_reg = DW_RSP, .ra_rule = RULE_NONE, .bp_rule = RULE_NONE };
	cfi_run(&c, &st, &st, start, UINT64_MAX, 0, false, caf, daf);
	struct cfi_state init = st;
	cfi_run(&f, &st, &init, start, pc, rip, true, caf, daf);
	if (st.bad || (st.cfa_reg != DW_RSP && st.cfa_reg != DW_RBP) ||
	    (st.ra_rule != RULE_OFFSET && st.ra_rule != RULE_UNDEF) ||
	    (st.bp_rule != RULE_NONE && st.bp_rule != RULE_SAME && st.bp_rule != RULE_OFFSET) ||
	    st.cfa_off < INT32_MIN || st.cfa_off > INT32_MAX || st.ra_off < INT32_MIN ||
	    st.ra_off > INT32_MAX || st.bp_off < INT32_MIN || st.bp_off > INT32_MAX)
		return true;
	*row = (struct fast_row){ .img = img, .va = pc, .ok = 1, .cfa_reg = st.cfa_reg,
				  .ra_rule = st.ra_rule, .bp_rule = st.bp_rule, .cfa_off = (int32_t)st.cfa_off,
				  .ra_off = (int32_t)st.ra_off, .bp_off = (int32_t)st.bp_off };
	return true;
}

/* The row of img's code at file address pc: from .eh_frame, else from .debug_frame. */
static void fast_compute(struct unwind *u, struct image *img, uint64_t pc, uint64_t rip,
			 struct fast_row *row)
{
	if (eh_compute(img, pc, rip, row))
		return;
	Dwarf_Frame *f = dbg_frame(u, img, pc);
	if (f) {
		dbg_compact(f, row);
		free(f);
	}
}

/* rt_sigreturn's trampoline (mov $15,%rax; syscall), which libunwind treats as a signal frame. */
static bool fast_sigreturn(const struct image *img, uint64_t va)
{
	static const uint8_t code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	const uint8_t *p = image_ptr(img, va, sizeof(code));
	return p && memcmp(p, code, sizeof(code)) == 0;
}

/* A caller's row is its call instruction's (the return address - 1), the first frame's its IP's: the
 * key tells them apart, as the same address may be either. */
#define FAST_CALLER (1ull << 63)

/* The cached row for the frame at file address va of img (first: the sample's own IP, else a return
 * address), computed on first use. The signal trampoline's row is never ok (libunwind's case). */
static const struct fast_row *fast_row(struct unwind *u, struct image *img, uint64_t va, bool first)
{
	struct fast_cache *fc = &u->fast;
	uint64_t key = first ? va : (va - 1) | FAST_CALLER;
	if (!fc->rows)
		fc->rows = xcalloc(FAST_SLOTS, sizeof(*fc->rows));
	uint64_t h = (key ^ ((uint64_t)(uintptr_t)img >> 4)) * 0x9e3779b97f4a7c15ull;
	size_t mask = FAST_SLOTS - 1, i = (size_t)(h >> 40) & mask;
	while (fc->rows[i].img && (fc->rows[i].img != img || fc->rows[i].va != key))
		i = (i + 1) & mask;
	struct fast_row *r = &fc->rows[i];
	if (r->img)
		return r;
	if (fc->used + 1 > FAST_SLOTS / 4 * 3) {
		/* Start over: bounded memory, and a profile's hot addresses come back at once. */
		memset(fc->rows, 0, FAST_SLOTS * sizeof(*fc->rows));
		fc->used = 0;
		i = (size_t)(h >> 40) & mask;
		r = &fc->rows[i];
	}
	fast_compute(u, img, first ? va : va - 1, va, r);
	if (r->ok && fast_sigreturn(img, va))
		r->ok = 0;
	r->img = img;
	r->va = key;
	fc->used++;
	return r;
}

/* The stack copy's 8 bytes at addr: 1 read, 0 just past the copy (a short copy), -1 elsewhere. */
static int fast_load(const struct walk *w, uint64_t addr, uint64_t *v)
{
	if (addr >= w->sp && addr - w->sp < w->stack_len && w->stack_len - (addr - w->sp) >= 8) {
		memcpy(v, w->stack + (addr - w->sp), 8);
		return 1;
	}
	return addr >= w->sp && addr - w->sp < (64u << 20) ? 0 : -1;
}

/* The walk through cached rows. Returns the frames, or -1 when libunwind must do this sample. */
static int fast_walk(struct walk *w, uint64_t *ips, int max, struct unwind_result *res)
{
	uint64_t ip = w->regs[UNW_X86_64_RIP], sp = w->sp;
	bool have_bp = w->have & (1u << UNW_X86_64_RBP);
	uint64_t bp = w->regs[UNW_X86_64_RBP];
	int n = 0;
	ips[n++] = ip;
	uint64_t prev_ip = ip, prev_sp = sp;
	for (bool first = true;; first = false) {
		if (n >= max) {
			res->stop = UNWIND_TOO_DEEP;
			return n;
		}
		struct touched *t = walk_touch(w, ip);
		if (!t)
			return -1;
		const struct fast_row *r = fast_row(w->u, t->img, ip - t->bias, first);
		if (!r->ok || (r->cfa_reg == DW_RBP && !have_bp))
			return -1;
		if (r->ra_rule == RULE_UNDEF)
			return n;  /* the outermost frame (_start, clone3): the end, as libunwind says */
		uint64_t cfa = (r->cfa_reg == DW_RSP ? sp : bp) + (uint64_t)(int64_t)r->cfa_off;
		uint64_t ra, nbp = bp;
		int k = fast_load(w, cfa + (uint64_t)(int64_t)r->ra_off, &ra);
		if (k == 0) {
			res->stop = UNWIND_SHORT_STACK;
			return n;
		}
		if (k < 0)
			return -1;
		if (r->bp_rule == RULE_OFFSET) {
			uint64_t at = cfa + (uint64_t)(int64_t)r->bp_off;
			k = fast_load(w, at, &nbp);
			if (k == 0) {
				res->stop = UNWIND_SHORT_STACK;
				return n;
			}
			if (k < 0 && at < w->sp) {
				/* A slot below the sample's SP: an epilogue already popped it (gcc does not say
				 * so in the CFI). The caller's RBP is unknown here, as to libunwind, which fails
				 * only if a later frame needs it: so does this walk (the CFA test above). */
				have_bp = false;
			} else if (k < 0) {
				return -1;
			} else {
				have_bp = true;
			}
		}
		ip = ra;
		sp = cfa;
		bp = nbp;
		if (ip == 0)
			return n;
		if (ip == prev_ip && sp == prev_sp)
			return -1;
		prev_ip = ip;
		prev_sp = sp;
		ips[n++] = ip - 1;
	}
}

/* ---- the unwinder ---- */

struct unwind *unwind_new(struct maps *maps)
{
	struct unwind *u = xcalloc(1, sizeof(*u));
	u->maps = maps;
	u->acc = (unw_accessors_t){
		.find_proc_info = acc_find_proc_info,
		.put_unwind_info = acc_put_unwind_info,
		.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
		.access_mem = acc_access_mem,
		.access_reg = acc_access_reg,
		.access_fpreg = acc_access_fpreg,
		.resume = acc_resume,
		.get_proc_name = acc_get_proc_name,
	};
	const char *mode = getenv("PERFTOP_UNWIND");
	u->fast_off = mode && !strcmp(mode, "libunwind");
	u->check = mode && !strcmp(mode, "check");
	return u;
}

void unwind_free(struct unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < UNWIND_SPACES; i++)
		if (u->spaces[i].used)
			unw_destroy_addr_space(u->spaces[i].as);
	for (size_t i = 0; i < u->cap; i++) {
		struct image *img = u->imgs[i];
		if (!img)
			continue;
		image_unmap(img);
		free(img);
	}
	free(u->imgs);
	free(u->fast.rows);
	if (u->check)
		fprintf(stderr, "unwind check: %" PRIu64 " samples by both paths, %" PRIu64 " differ; %" PRIu64
			" left to libunwind; %" PRIu64 " frames stepped through .debug_frame around it\n",
			u->checked, u->mismatched, u->fast.fallbacks, u->dbg_steps);
	free(u);
}

void unwind_forget_dso(struct unwind *u, const struct dso *d)
{
	if (!u || !u->cap)
		return;
	size_t mask = u->cap - 1, i = ptr_hash(d, mask);
	while (u->imgs[i] && u->imgs[i]->dso != d)
		i = (i + 1) & mask;
	struct image *img = u->imgs[i];
	if (!img)
		return;
	if (img->tried)
		u->mapped--;
	image_unmap(img);
	free(img);
	u->imgs[i] = NULL;
	u->nimgs--;
	/* Later entries of the probe run move back into the hole (no tombstones). */
	for (size_t j = (i + 1) & mask; u->imgs[j]; j = (j + 1) & mask) {
		size_t h = ptr_hash(u->imgs[j]->dso, mask);
		if (!probe_must_move(h, i, j))
			continue;
		u->imgs[i] = u->imgs[j];
		u->imgs[j] = NULL;
		i = j;
	}
	/* The fast path's rows are keyed on image pointers, which may come back for another file. */
	if (u->fast.rows)
		memset(u->fast.rows, 0, FAST_SLOTS * sizeof(*u->fast.rows));
	u->fast.used = 0;
}

void unwind_forget(struct unwind *u, uint32_t pid)
{
	for (int i = 0; u && i < UNWIND_SPACES; i++) {
		if (u->spaces[i].used && u->spaces[i].pid == pid) {
			unw_destroy_addr_space(u->spaces[i].as);
			u->spaces[i].used = false;
		}
	}
}

/* The libunwind address space of pid, made (or recycled) on demand; NULL when libunwind fails. */
static unw_addr_space_t unwind_space(struct unwind *u, uint32_t pid)
{
	struct space *victim = &u->spaces[0];
	u->clock++;
	for (int i = 0; i < UNWIND_SPACES; i++) {
		struct space *sp = &u->spaces[i];
		if (sp->used && sp->pid == pid) {
			sp->last_use = u->clock;
			return sp->as;
		}
		if (!sp->used || (victim->used && sp->last_use < victim->last_use))
			victim = sp;
	}
	if (victim->used)
		unw_destroy_addr_space(victim->as);
	victim->used = false;
	unw_addr_space_t as = unw_create_addr_space(&u->acc, 0);
	if (!as)
		return NULL;
	unw_set_caching_policy(as, UNW_CACHE_NONE);
	*victim = (struct space){ .pid = pid, .used = true, .last_use = u->clock, .as = as };
	return as;
}

bool unwind_possible(const struct rec *r)
{
	const struct rec_sample *s = &r->u.sample;
	return r->type == REC_SAMPLE && s->regs_user_abi != 0 && s->regs_user_nr > 0 &&
	       s->stack_user_size > 0;
}

/* Fills w's registers from the sample's (perf numbering, in mask bit order). */
static bool walk_regs(struct walk *w, const struct rec *r)
{
	static const int8_t to_unw[PREG_NR] = {
		[PREG_AX] = UNW_X86_64_RAX, [PREG_BX] = UNW_X86_64_RBX, [PREG_CX] = UNW_X86_64_RCX,
		[PREG_DX] = UNW_X86_64_RDX, [PREG_SI] = UNW_X86_64_RSI, [PREG_DI] = UNW_X86_64_RDI,
		[PREG_BP] = UNW_X86_64_RBP, [PREG_SP] = UNW_X86_64_RSP, [PREG_IP] = UNW_X86_64_RIP,
		[9] = -1, [10] = -1, [11] = -1, [12] = -1, [13] = -1, [14] = -1, [15] = -1,
		[PREG_R8] = UNW_X86_64_R8, [17] = UNW_X86_64_R9, [18] = UNW_X86_64_R10,
		[19] = UNW_X86_64_R11, [20] = UNW_X86_64_R12, [21] = UNW_X86_64_R13,
		[22] = UNW_X86_64_R14, [23] = UNW_X86_64_R15,
	};
	const struct rec_sample *s = &r->u.sample;
	if ((uint64_t)s->regs_user_off + (uint64_t)s->regs_user_nr * 8 > r->size ||
	    s->regs_user_off < sizeof(struct rec))
		return false;
	const uint8_t *vals = rec_at(r, s->regs_user_off);
	uint32_t k = 0;
	for (int bit = 0; bit < 64 && k < s->regs_user_nr; bit++) {
		if (!(s->regs_user_mask & (1ull << bit)))
			continue;
		uint64_t v;
		memcpy(&v, vals + 8 * k, 8);
		k++;
		if (bit < PREG_NR && to_unw[bit] >= 0 && (bit == PREG_AX || to_unw[bit] != 0)) {
			w->regs[to_unw[bit]] = v;
			w->have |= 1u << to_unw[bit];
		}
	}
	const uint32_t need = (1u << UNW_X86_64_RIP) | (1u << UNW_X86_64_RSP);
	return (w->have & need) == need;
}

static int unwind_slow(struct unwind *u, struct walk *wp, const struct rec *r, uint64_t *ips, int max,
		       struct unwind_result *res);

/* Unmaps the least recently used images past UNWIND_MAPPED, down to 3/4 of it; between walks, so
 * no walk holds one. The struct stays (the fast path's rows are keyed on it). */
static void unwind_trim_images(struct unwind *u)
{
	while (u->mapped > UNWIND_MAPPED * 3 / 4) {
		struct image *lru = NULL;
		for (size_t i = 0; i < u->cap; i++) {
			struct image *img = u->imgs[i];
			if (img && img->tried && (!lru || img->used < lru->used))
				lru = img;
		}
		if (!lru)
			return;
		image_unmap(lru);
		struct dso *d = lru->dso;
		*lru = (struct image){ .dso = d };
		u->mapped--;
	}
}

int unwind_sample(struct unwind *u, const struct rec *r, uint64_t *ips, int max,
		  struct unwind_result *res)
{
	u->clock++;
	if (u->mapped > UNWIND_MAPPED)
		unwind_trim_images(u);
	*res = (struct unwind_result){ UNWIND_END, NULL };
	if (max <= 0 || !unwind_possible(r))
		return 0;
	if (max > UNWIND_MAX_FRAMES)
		max = UNWIND_MAX_FRAMES;
	struct walk w = { .u = u, .pid = r->pid };
	if (!walk_regs(&w, r))
		return 0;
	const struct rec_sample *s = &r->u.sample;
	uint64_t len = s->stack_user_size;
	if (s->stack_user_dyn_size && s->stack_user_dyn_size < len)
		len = s->stack_user_dyn_size;
	if (s->stack_user_off < sizeof(struct rec) || (uint64_t)s->stack_user_off + len > r->size)
		len = 0;
	w.sp = w.regs[UNW_X86_64_RSP];
	w.stack = len ? rec_at(r, s->stack_user_off) : NULL;
	w.stack_len = len;

	if (!u->fast_off) {
		int n = fast_walk(&w, ips, max, res);
		if (n >= 0 && !u->check)
			return n;
		if (n < 0) {
			u->fast.fallbacks++;
		} else {
			/* The check: libunwind's walk of the same sample must give the same chain. */
			uint64_t fips[UNWIND_MAX_FRAMES];
			struct unwind_result fres = *res;
			memcpy(fips, ips, (size_t)n * sizeof(*ips));
			struct walk w2 = w;
			w2.nt = w2.next_t = 0;
			int m = unwind_slow(u, &w2, r, ips, max, res);
			u->checked++;
			if (m != n || memcmp(fips, ips, (size_t)n * sizeof(*ips)) != 0 || fres.stop != res->stop)
				u->mismatched++;
			return m;
		}
		*res = (struct unwind_result){ UNWIND_END, NULL };
		w.why = UNWIND_END;
		w.why_dso = NULL;
	}
	return unwind_slow(u, &w, r, ips, max, res);
}

/*
 * libunwind stopped at a frame only .debug_frame describes (w->dbg_row, taken): step it from the
 * registers libunwind has for it and start libunwind again from the caller. Returns 1 to go on, 0
 * at the end of the chain (res set when it ended early); appends the caller to ips.
 */
static int dbg_resume(struct unwind *u, struct walk *w, unw_cursor_t *c, unw_addr_space_t as,
		      uint64_t *ips, int *n, uint64_t *prev_ip, uint64_t *prev_sp,
		      struct unwind_result *res)
{
	Dwarf_Frame *f = w->dbg_row;
	w->dbg_row = NULL;
	uint64_t regs[17], nregs[17];
	uint32_t have = 0, nhave;
	for (int r = 0; r <= UNW_X86_64_RIP; r++) {
		unw_word_t v;
		if (unw_get_reg(c, r, &v) == 0) {
			regs[r] = v;
			have |= 1u << r;
		}
	}
	w->why = UNWIND_END;  /* registers libunwind could not read are just unknown */
	w->why_dso = NULL;
	bool outermost, signal = false;
	dwarf_frame_info(f, NULL, NULL, &signal);
	bool ok = dbg_step(w, f, regs, have, nregs, &nhave, &outermost);
	free(f);
	if (!ok) {
		res->stop = w->why != UNWIND_END ? w->why : UNWIND_ERROR;
		res->dso = w->why_dso;
		return 0;
	}
	u->dbg_steps++;
	uint64_t ip = nregs[UNW_X86_64_RIP], sp = nregs[UNW_X86_64_RSP];
	if (outermost || ip == 0)
		return 0;
	if (ip == *prev_ip && sp == *prev_sp) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	*prev_ip = ip;
	*prev_sp = sp;
	ips[(*n)++] = signal ? ip : ip - 1;
	/* libunwind takes a new walk's first IP as exact; a caller's row is the call instruction's, so
	 * it gets that (as it looks a caller up itself), except for a return into the signal
	 * trampoline, which libunwind recognizes by its address. */
	memcpy(w->regs, nregs, sizeof(w->regs));
	w->have = nhave;
	if (!signal) {
		struct touched *t = walk_touch(w, ip);
		if (!t || !fast_sigreturn(t->img, ip - t->bias))
			w->regs[UNW_X86_64_RIP] = ip - 1;
		w->why = UNWIND_END;
		w->why_dso = NULL;
	}
	if (unw_init_remote(c, as, w) < 0) {
		res->stop = UNWIND_ERROR;
		return 0;
	}
	return 1;
}

/* The walk by libunwind: what the fast path cannot do. */
static int unwind_slow(struct unwind *u, struct walk *wp, const struct rec *r, uint64_t *ips, int max,
		       struct unwind_result *res)
{
	struct walk w = *wp;
	w.dbg_row = NULL;
	int n = 0;
	ips[n++] = w.regs[UNW_X86_64_RIP];
	unw_addr_space_t as = unwind_space(u, r->pid);
	unw_cursor_t c;
	if (!as || unw_init_remote(&c, as, &w) < 0) {
		res->stop = UNWIND_ERROR;
		return n;
	}
	uint64_t prev_sp = w.sp, prev_ip = ips[0];
	for (;;) {
		if (n >= max) {
			res->stop = UNWIND_TOO_DEEP;
			break;
		}
		w.why = UNWIND_END;
		w.why_dso = NULL;
		int st = unw_step(&c);
		if (st == -UNW_ESTOPUNWIND && w.dbg_row) {
			if (dbg_resume(u, &w, &c, as, ips, &n, &prev_ip, &prev_sp, res))
				continue;
			break;
		}
		if (st <= 0) {
			/* 0: libunwind found no caller; a failure says why when an accessor knew. */
			if (st < 0) {
				res->stop = w.why != UNWIND_END ? w.why : UNWIND_ERROR;
				res->dso = w.why_dso;
			}
			break;
		}
		unw_word_t ip = 0, sp = 0;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || unw_get_reg(&c, UNW_REG_SP, &sp) < 0) {
			res->stop = UNWIND_ERROR;
			break;
		}
		if (ip == 0)
			break;
		/* A frame that did not move would repeat forever. */
		if (ip == prev_ip && sp == prev_sp) {
			res->stop = UNWIND_ERROR;
			break;
		}
		prev_ip = ip;
		prev_sp = sp;
		/* The caller is at the call instruction, one byte before where it returns to; a signal
		 * frame's IP is the interrupted instruction itself. */
		ips[n++] = unw_is_signal_frame(&c) > 0 ? ip : ip - 1;
	}
	free(w.dbg_row);
	return n;
}

void unwind_counts(const struct unwind *u, uint64_t *images, uint64_t *no_info)
{
	*images = u ? u->images : 0;
	*no_info = u ? u->no_info : 0;
}
