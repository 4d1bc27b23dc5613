/*
 * unwind: libunwind in remote mode over a sample's registers and stack copy.
 *
 * DESIGN
 * - Images: each binary a walk touches is mapped read-only from the file its dso was opened from
 *   (dso_file: --symfs, deleted binaries and our vdso copy included) and its ELF program headers are
 *   read once: the PT_LOAD segments (to turn a runtime address into file bytes) and PT_GNU_EH_FRAME
 *   (the .eh_frame_hdr binary-search table libunwind's dwarf_search_unwind_table walks). Images are
 *   kept per dso for the whole session; a dso is one per build-id/inode, so each file is read once.
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
 */
#include "symbolize/unwind.h"

#include <elf.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/dso.h"
#include "symbolize/maps.h"
#include "util/util.h"

/* Not in libunwind's public headers, but exported: the search of an .eh_frame_hdr table, given as
 * UNW_INFO_FORMAT_REMOTE_TABLE and read through our access_mem. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);

#define UNWIND_SPACES 64     /* per-process libunwind address spaces kept */
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
	const struct dso *dso;  /* key */
	bool tried, ok;         /* mapped, with a usable .eh_frame_hdr */
	const uint8_t *data;
	size_t size;
	struct image_load loads[UNWIND_MAX_LOADS];
	int nloads;
	uint64_t hdr_vaddr;     /* .eh_frame_hdr */
	uint64_t table_vaddr;   /* its sorted (initial location, FDE) pairs */
	uint64_t fde_count;
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
};

struct unwind {
	struct maps *maps;
	struct image **imgs;    /* open addressing on the dso pointer */
	size_t nimgs, cap;
	struct space spaces[UNWIND_SPACES];
	uint64_t clock;
	unw_accessors_t acc;
	uint64_t images, no_info;
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
	if (!img->tried) {
		img->tried = true;
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
	if (!t->img->ok) {
		w->why = UNWIND_NO_INFO;
		w->why_dso = dso_name(t->img->dso);
		return -UNW_ENOINFO;
	}
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = t->start;
	di.end_ip = t->end;
	di.u.rti.segbase = t->img->hdr_vaddr + t->bias;
	di.u.rti.table_data = t->img->table_vaddr + t->bias;
	/* In words: each entry is two int32s, one unw_word_t. */
	di.u.rti.table_len = t->img->fde_count * 8 / sizeof(unw_word_t);
	int r = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
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

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
			  void *arg)
{
	struct walk *w = arg;
	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (addr >= w->sp && addr - w->sp < w->stack_len && w->stack_len - (addr - w->sp) >= 8) {
		memcpy(valp, w->stack + (addr - w->sp), 8);
		return 0;
	}
	for (int i = 0; i < w->nt; i++)
		if (image_read(w->t[i].img, addr - w->t[i].bias, valp, 8))
			return 0;
	struct touched *t = NULL;
	/* Above SP and near it: stack the kernel did not copy. Stacks grow down from far above. */
	if (addr >= w->sp && addr - w->sp < (64u << 20)) {
		w->why = UNWIND_SHORT_STACK;
		return -UNW_EINVAL;
	}
	enum unwind_stop before = w->why;
	t = walk_touch(w, addr);
	if (t && image_read(t->img, addr - t->bias, valp, 8))
		return 0;
	if (before == UNWIND_END && w->why == UNWIND_END)
		w->why = UNWIND_UNMAPPED;
	return -UNW_EINVAL;
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
		if (img->data)
			munmap((void *)img->data, img->size);
		free(img);
	}
	free(u->imgs);
	free(u);
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
	unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
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

int unwind_sample(struct unwind *u, const struct rec *r, uint64_t *ips, int max,
		  struct unwind_result *res)
{
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
	return n;
}

void unwind_counts(const struct unwind *u, uint64_t *images, uint64_t *no_info)
{
	*images = u ? u->images : 0;
	*no_info = u ? u->no_info : 0;
}
