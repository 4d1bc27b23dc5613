/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind_image: the binaries a walk touches, mapped read-only, and what their program headers say.
 *
 * Each binary is mapped from the file its dso was opened from (dso_file: --symfs, deleted binaries
 * and our vdso copy included) and its ELF program headers are read once: the PT_LOAD segments (to
 * turn a runtime address into file bytes) and PT_GNU_EH_FRAME (the .eh_frame_hdr binary-search table
 * libunwind's dwarf_search_unwind_table walks, and the fast path too). A binary without it (GCC's
 * -static executables) has its .eh_frame section found through the section headers instead, and
 * unwind_ehframe.c builds the table. An image is kept per dso (one
 * per build-id/inode, so each file is read once); at most UNWIND_MAPPED are mapped at a time, the
 * least recently used unmapped between two walks (and mapped again when needed: the rows cached from
 * it stay, they are numbers, not pointers into it). Every read is bounds-checked against the file.
 */
#include "symbolize/unwind_int.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/dso.h"
#include "util/hash.h"
#include "util/util.h"

static size_t image_hash(const void *p, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & mask;
}

static struct image **image_slot(struct unwind *u, const struct dso *d)
{
	size_t mask = u->cap - 1, i = image_hash(d, mask);
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
static bool image_hdr_value(const struct image *img, uint64_t file_off, uint64_t vaddr, uint8_t enc,
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

/* The .eh_frame section from the section headers (a binary without .eh_frame_hdr): its address
 * and size into img when its bytes are in a PT_LOAD segment of the file. */
static void image_find_eh_frame(struct image *img, const Elf64_Ehdr *eh)
{
	if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr))
		return;
	Elf64_Shdr sh0;
	if (!image_bytes(img, eh->e_shoff, sizeof(sh0)))
		return;
	memcpy(&sh0, img->data + eh->e_shoff, sizeof(sh0));
	/* Past 0xff00 sections the count and the string table's index are in section 0. */
	uint64_t shnum = eh->e_shnum ? eh->e_shnum : sh0.sh_size;
	uint32_t strndx = eh->e_shstrndx == SHN_XINDEX ? sh0.sh_link : eh->e_shstrndx;
	if (shnum > (img->size - eh->e_shoff) / sizeof(Elf64_Shdr) || strndx >= shnum)
		return;
	const uint8_t *shdrs = img->data + eh->e_shoff;
	Elf64_Shdr strs;
	memcpy(&strs, shdrs + (uint64_t)strndx * sizeof(strs), sizeof(strs));
	if (strs.sh_type != SHT_STRTAB || !image_bytes(img, strs.sh_offset, strs.sh_size))
		return;
	static const char want[] = ".eh_frame";
	for (uint64_t i = 1; i < shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, shdrs + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC) || sh.sh_size < 8 ||
		    sh.sh_name >= strs.sh_size || strs.sh_size - sh.sh_name < sizeof(want) ||
		    memcmp(img->data + strs.sh_offset + sh.sh_name, want, sizeof(want)) != 0)
			continue;
		if (image_ptr(img, sh.sh_addr, sh.sh_size)) {
			img->ehf_vaddr = sh.sh_addr;
			img->ehf_size = sh.sh_size;
		}
		return;
	}
}

void image_read_elf(struct image *img)
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
	    img->data[hdr_off] != 1) {
		image_find_eh_frame(img, &eh);
		return;
	}
	uint8_t ptr_enc = img->data[hdr_off + 1], cnt_enc = img->data[hdr_off + 2],
		tab_enc = img->data[hdr_off + 3];
	uint64_t eh_frame, count;
	/* libunwind's remote table wants datarel sdata4 entries, which is what linkers write. */
	if (tab_enc != 0x3b || !image_hdr_value(img, hdr_off + 4, img->hdr_vaddr + 4, ptr_enc, &eh_frame) ||
	    !image_hdr_value(img, hdr_off + 8, img->hdr_vaddr + 8, cnt_enc, &count) || count == 0 ||
	    count > (hdr_size - 12) / 8) {
		image_find_eh_frame(img, &eh);
		return;
	}
	img->table_vaddr = img->hdr_vaddr + 12;
	img->fde_count = count;
	img->ok = true;
}

struct image *image_get(struct unwind *u, struct dso *d)
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
		if (!img->ok && !img->ehf_size)
			u->no_info++;
	}
	return img->data ? img : NULL;
}

void image_spans_free(struct unwind *u, struct image *img)
{
	u->fast.spans -= img->nspans;
	free(img->spans);
	img->spans = NULL;
	img->nspans = img->spans_cap = img->nsorted = 0;
}

/* Lets go of what an image holds: its file's mapping, its built table, its .debug_frame handle and
 * image_sigreturn's bits (of pages no longer mapped). */
static void image_unmap(struct image *img)
{
	if (img->data)
		munmap((void *)img->data, img->size);
	free(img->ehf_tab);
	free(img->sigpages);
	if (img->dwfl)
		dwfl_end(img->dwfl);
}

bool image_bias(const struct image *img, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	/* A mapping starts at the page that holds its segment's first byte. That page may also hold
	 * the end of the segment before (a binary whose segments are not page-aligned in the file:
	 * rustc's and lld's links, the R segment ending at 0x169b0 and the code starting there, both
	 * in the page at 0x16000): the segment that starts in the mapping's first page is the one
	 * mapped, and only when none does is one that merely covers it taken. Taking the earlier one
	 * put every address of such code a page off, and each walk into [unmapped address]. */
	const struct image_load *cover = NULL;
	for (int i = 0; i < img->nloads; i++) {
		const struct image_load *l = &img->loads[i];
		uint64_t page_off = l->off & ~(uint64_t)4095;
		if (pgoff == page_off) {
			cover = l;
			break;
		}
		if (!cover && pgoff >= page_off && pgoff < l->off + (l->filesz ? l->filesz : 1))
			cover = l;
	}
	if (!cover)
		return false;
	*bias = start - (cover->vaddr - (cover->off - pgoff));
	return true;
}

bool image_read(const struct image *img, uint64_t vaddr, void *out, size_t len)
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

const uint8_t *image_ptr(const struct image *img, uint64_t va, uint64_t len)
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

/* rt_sigreturn's trampoline (mov $15,%rax; syscall), which libunwind treats as a signal frame. */
static const uint8_t sigreturn_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* Whether a trampoline starts in p[0, len - 9]: each syscall's second byte (memchr, which is
 * fast), then the 8 bytes before it; a fifth of memmem's instructions on code. */
static bool sigreturn_in(const uint8_t *p, size_t len)
{
	const size_t last = sizeof(sigreturn_code) - 1;
	for (size_t i = last; i < len;) {
		const uint8_t *s = memchr(p + i, sigreturn_code[last], len - i);
		if (!s)
			return false;
		if (memcmp(s - last, sigreturn_code, last) == 0)
			return true;
		i = (size_t)(s - p) + 1;
	}
	return false;
}

/*
 * Each first sight of an address asks this, and reading the code there faults its page in (the
 * unwinder's binaries are mapped, and their pages let go of now and then): so each page of the file
 * is searched once for a trampoline starting in it, two bits remembering that it was and whether
 * one was found, and an address in a page without one is answered without its code.
 */
bool image_sigreturn(struct image *img, uint64_t va)
{
	const uint8_t *p = image_ptr(img, va, sizeof(sigreturn_code));
	if (!p)
		return false;
	uint64_t page = (uint64_t)(p - img->data) >> 12;
	if (!img->sigpages)
		img->sigpages = xcalloc((img->size >> 12) / 4 + 1, 1);
	uint8_t *bits = &img->sigpages[page / 4];
	unsigned shift = (unsigned)(page % 4) * 2;
	if (!(*bits >> shift & 1)) {
		/* the page, and the bytes after it where a trampoline starting in it ends */
		uint64_t from = page << 12, len = 4096 + sizeof(sigreturn_code) - 1;
		len = len < img->size - from ? len : img->size - from;
		bool found = sigreturn_in(img->data + from, len);
		*bits |= (uint8_t)((1u | (unsigned)found << 1) << shift);
	}
	return (*bits >> shift & 2) && memcmp(p, sigreturn_code, sizeof(sigreturn_code)) == 0;
}

bool image_drop(struct unwind *u, const struct dso *d)
{
	if (!u->cap)
		return false;
	size_t mask = u->cap - 1, i = image_hash(d, mask);
	while (u->imgs[i] && u->imgs[i]->dso != d)
		i = (i + 1) & mask;
	struct image *img = u->imgs[i];
	if (!img)
		return false;
	if (img->tried)
		u->mapped--;
	image_unmap(img);
	image_spans_free(u, img);
	free(img);
	u->imgs[i] = NULL;
	u->nimgs--;
	/* Later entries of the probe run move back into the hole (no tombstones). */
	for (size_t j = (i + 1) & mask; u->imgs[j]; j = (j + 1) & mask) {
		size_t h = image_hash(u->imgs[j]->dso, mask);
		if (!probe_must_move(h, i, j))
			continue;
		u->imgs[i] = u->imgs[j];
		u->imgs[j] = NULL;
		i = j;
	}
	return true;
}

void image_reset(struct unwind *u, struct image *img)
{
	image_unmap(img);
	/* The fast path's spans hold for the file, mapped or not: they stay too. */
	*img = (struct image){ .dso = img->dso, .spans = img->spans, .nspans = img->nspans,
			       .spans_cap = img->spans_cap, .nsorted = img->nsorted };
	u->mapped--;
}

/* Down to 3/4 of UNWIND_MAPPED; between walks, so no walk holds one. */
void image_trim(struct unwind *u)
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
		image_reset(u, lru);
	}
}

void image_free_all(struct unwind *u)
{
	for (size_t i = 0; i < u->cap; i++) {
		struct image *img = u->imgs[i];
		if (!img)
			continue;
		image_unmap(img);
		image_spans_free(u, img);
		free(img);
	}
	free(u->imgs);
	u->imgs = NULL;
	u->cap = u->nimgs = u->mapped = 0;
}
