/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linetab: a compile unit's line table, decoded from the .debug_line bytes into flat arrays.
 *
 * Why: srcinfo needs, for a cold address, the line table row that covers it (dwarf_getsrc_die) and
 * the names of the CU's files (dwarf_getsrcfiles, for DW_AT_call_file). In elfutils 0.188 both
 * decode the CU's whole line program the first time, with one malloc per row (a linked list of
 * rows), then copy the rows to an array and qsort it. In a cold replay of a `--call-graph dwarf`
 * recording of a Python loop (-s dso,sym,srcline), that was 35% of all instructions (~300 M of 880 M
 * for about 100 CUs of libpython3.11 and libc's debug file). Here the same program is run into
 * arrays grown by doubling (16 bytes a row), and sorted by a natural merge sort (the sequences
 * come in order, or in a few ordered runs).
 *
 * What it must give is exactly what libdw gives, since the tests and the replay compare with it:
 *   - rows are ordered by address; at one address an end_sequence row comes before the others, and
 *     otherwise rows keep the order the program emitted them (libdw's stable comparison);
 *   - after sorting, libdw marks the last row (the highest address) as ending a sequence whatever it
 *     was: when a sequence's last row is at the address of its end_sequence, that row sorts after
 *     the end_sequence and becomes one;
 *   - dwarf_getsrc_die(pc) takes the last row whose address is <= pc, and gives nothing when that
 *     row ends a sequence (so pc in a gap between sequences, or past the last one, has no line);
 *   - a row's file is an index into the file table: for DWARF < 5 entry 0 is libdw's "???" and the
 *     header's entries start at 1; for DWARF 5 the header's entries start at 0. An index past the
 *     table names nothing. Only basenames are kept: a file's name is its directory, '/', and its
 *     name, so the basename is the name's own, whatever the directory.
 *   - libdw rejects a whole table whose values overflow its Dwarf_Line fields (column > 65535,
 *     isa > 255, discriminator >= 2^24): so does this decoder, and the caller asks libdw.
 * Anything not understood (a version other than 2-5, a form not listed below, a vendor extended
 * opcode that changes state, DW_LNE_define_file, max_ops_per_instr != 1, an opcode whose operand
 * count differs from the standard, truncated or inconsistent data) makes linetab_decode return NULL
 * and the caller uses libdw for that CU: giving up is always exact. Every read is bounded by the
 * section's data.
 *
 * The section bytes come from the Elf libdw opened (dwarf_getelf): libdw decompressed its
 * SHF_COMPRESSED debug sections in place when it opened them, so elf_getdata gives the same bytes
 * libdw reads. A section still flagged compressed, .zdebug sections and relocatable files are left to
 * libdw.
 */
#include "symbolize/linetab.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct lt_row {
	uint64_t addr;
	uint32_t file;         /* LT_END: the row ends a sequence */
	int32_t line;
};
#define LT_END UINT32_MAX

struct linetab {
	struct lt_row *rows;
	size_t nrows;
	uint32_t *file_off;    /* into names: each file's basename, NUL-terminated */
	size_t nfiles;
	char *names;
};

/* ---- reading bounded data ---- */

struct lt_rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_uleb_long(struct lt_rd *r);

/* One byte inline (nearly all operands), the rest out of line. */
static inline uint64_t rd_uleb(struct lt_rd *r)
{
	if (r->p < r->end && !(*r->p & 0x80))
		return *r->p++;
	return rd_uleb_long(r);
}

/* The LEB128 bits of a value and, in *nbits, how many there were (0 when bad or truncated). */
static uint64_t rd_leb_bits(struct lt_rd *r, unsigned *nbits)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (r->p >= r->end)
			break;
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*nbits = 7 * (i + 1);
			return v;
		}
	}
	r->bad = true;  /* truncated, or longer than any 64-bit value */
	*nbits = 0;
	return 0;
}

static uint64_t rd_uleb_long(struct lt_rd *r)
{
	unsigned nbits;
	return rd_leb_bits(r, &nbits);
}

static int64_t rd_sleb(struct lt_rd *r)
{
	unsigned nbits;
	uint64_t v = rd_leb_bits(r, &nbits);
	if (nbits && nbits < 64 && (v >> (nbits - 1)) & 1)
		v |= ~0ull << nbits;  /* the last byte's sign bit (0x40) */
	return (int64_t)v;
}

/* n bytes little-endian (x86 and the other hosts perftop runs on read their own files). */
static uint64_t rd_fixed(struct lt_rd *r, size_t n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A NUL-terminated string at the cursor, or NULL (bad) when none ends before end. */
static const char *rd_str(struct lt_rd *r)
{
	if (r->p >= r->end) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
	if (!z) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

/* The string at off in a string section, or NULL. */
static const char *sec_str(const Elf_Data *d, uint64_t off)
{
	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	const char *s = (const char *)d->d_buf + off;
	return memchr(s, 0, d->d_size - off) ? s : NULL;
}

/* ---- the sections ---- */

struct lt_secs {
	Elf_Data *line, *line_str, *str;
};

/* The decompressed data of the named debug sections of the Elf libdw reads; false when .debug_line
 * is not there as plain data. */
static bool lt_sections(Dwarf *dbg, struct lt_secs *s)
{
	*s = (struct lt_secs){ 0 };
	Elf *elf = dbg ? dwarf_getelf(dbg) : NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type == ET_REL || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	bool bad = false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		Elf_Data **slot = NULL;
		if (strcmp(name, ".debug_line") == 0)
			slot = &s->line;
		else if (strcmp(name, ".debug_line_str") == 0)
			slot = &s->line_str;
		else if (strcmp(name, ".debug_str") == 0)
			slot = &s->str;
		else if (strcmp(name, ".zdebug_line") == 0 || strcmp(name, ".zdebug_line_str") == 0 ||
			 strcmp(name, ".zdebug_str") == 0)
			bad = true;  /* GNU-compressed: leave it to libdw */
		if (!slot || *slot)
			continue;
		if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED)) {
			bad = true;
			continue;
		}
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || elf_getdata(scn, d) != NULL) {  /* one plain buffer only */
			bad = true;
			continue;
		}
		*slot = d;
	}
	return !bad && s->line;
}

/* ---- building ---- */

struct lt_build {
	struct linetab *t;
	size_t rows_cap, files_cap, names_len, names_cap;
};

static __attribute__((noinline)) void lt_grow_rows(struct lt_build *b)
{
	b->rows_cap = b->rows_cap ? b->rows_cap * 2 : 256;
	b->t->rows = xrealloc(b->t->rows, b->rows_cap * sizeof(*b->t->rows));
}

static inline void lt_add_row(struct lt_build *b, uint64_t addr, uint32_t file, int32_t line)
{
	struct linetab *t = b->t;
	if (t->nrows == b->rows_cap)
		lt_grow_rows(b);
	t->rows[t->nrows++] = (struct lt_row){ addr, file, line };
}

/* Names past this size (a damaged table naming one long string again and again) are left to libdw. */
#define LT_NAMES_MAX (64u << 20)

static bool lt_add_file(struct lt_build *b, const char *name)
{
	struct linetab *t = b->t;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t len = strlen(base);
	if (len >= LT_NAMES_MAX || b->names_len + len + 1 > LT_NAMES_MAX)
		return false;
	if (t->nfiles == b->files_cap) {
		b->files_cap = b->files_cap ? b->files_cap * 2 : 32;
		t->file_off = xrealloc(t->file_off, b->files_cap * sizeof(*t->file_off));
	}
	while (b->names_len + len + 1 > b->names_cap) {
		b->names_cap = b->names_cap ? b->names_cap * 2 : 1024;
		t->names = xrealloc(t->names, b->names_cap);
	}
	memcpy(t->names + b->names_len, base, len + 1);
	t->file_off[t->nfiles++] = (uint32_t)b->names_len;
	b->names_len += len + 1;
	return true;
}

/* One attribute value of a DWARF 5 directory or file entry: a string (path) or a number
 * (directory index), or skipped. false when the form is not one this decoder knows. */
struct lt_val {
	const char *str;
	uint64_t num;
	bool is_str, is_num;
};

static bool lt_form(struct lt_rd *r, uint64_t form, unsigned offset_size, const struct lt_secs *s,
		    struct lt_val *v)
{
	*v = (struct lt_val){ 0 };
	switch (form) {
	case DW_FORM_string:
		v->str = rd_str(r);
		v->is_str = true;
		break;
	case DW_FORM_line_strp:
		v->str = sec_str(s->line_str, rd_fixed(r, offset_size));
		v->is_str = true;
		if (!v->str)
			r->bad = true;
		break;
	case DW_FORM_strp:
		v->str = sec_str(s->str, rd_fixed(r, offset_size));
		v->is_str = true;
		if (!v->str)
			r->bad = true;
		break;
	case DW_FORM_udata:
		v->num = rd_uleb(r);
		v->is_num = true;
		break;
	case DW_FORM_data1:
		v->num = rd_fixed(r, 1);
		v->is_num = true;
		break;
	case DW_FORM_data2:
		v->num = rd_fixed(r, 2);
		v->is_num = true;
		break;
	case DW_FORM_data4:
		rd_fixed(r, 4);
		break;
	case DW_FORM_data8:
		rd_fixed(r, 8);
		break;
	case DW_FORM_data16:
		rd_fixed(r, 16);
		break;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);
		if (r->bad || n > (uint64_t)(r->end - r->p))
			return false;
		r->p += n;
		break;
	}
	default:
		return false;
	}
	return !r->bad;
}

/* A DWARF 5 entry format: (content type, form) pairs. */
#define LT_MAX_FORMATS 16
struct lt_fmt {
	uint64_t type[LT_MAX_FORMATS], form[LT_MAX_FORMATS];
	unsigned n;
};

static bool lt_read_fmt(struct lt_rd *r, struct lt_fmt *f)
{
	f->n = (unsigned)rd_fixed(r, 1);
	if (r->bad || f->n > LT_MAX_FORMATS)
		return false;
	bool path = false, dir = false;
	for (unsigned i = 0; i < f->n; i++) {
		f->type[i] = rd_uleb(r);
		f->form[i] = rd_uleb(r);
		if (f->type[i] == DW_LNCT_path) {
			if (path)
				return false;
			path = true;
		} else if (f->type[i] == DW_LNCT_directory_index) {
			if (dir)
				return false;
			dir = true;
		}
	}
	return !r->bad;
}

/* One DWARF 5 entry: its path (required) and directory index. */
static bool lt_read_entry(struct lt_rd *r, const struct lt_fmt *f, unsigned offset_size,
			  const struct lt_secs *s, const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (unsigned i = 0; i < f->n; i++) {
		struct lt_val v;
		if (!lt_form(r, f->form[i], offset_size, s, &v))
			return false;
		if (f->type[i] == DW_LNCT_path) {
			if (!v.is_str)
				return false;
			*path = v.str;
		} else if (f->type[i] == DW_LNCT_directory_index) {
			if (!v.is_num)
				return false;
			*dir = v.num;
		}
	}
	return *path != NULL;
}

/* Stable sort by (address, end_sequence first). Sequences are each in order, and most follow each
 * other in order too: a natural merge sort finds the ordered runs in one pass (one run: done) and
 * merges neighbouring runs pairwise, so its cost grows with the log of the runs, not of the rows. */
static bool lt_less(const struct lt_row *a, const struct lt_row *b)
{
	return a->addr < b->addr || (a->addr == b->addr && a->file == LT_END && b->file != LT_END);
}

static void lt_sort(struct linetab *t)
{
	size_t n = t->nrows;
	size_t nruns = 0, cap = 0;
	size_t *bound = NULL;  /* run k is [bound[k], bound[k + 1]) */
	for (size_t i = 0; i <= n; i++) {
		if (i == 0 || i == n || lt_less(&t->rows[i], &t->rows[i - 1])) {
			if (nruns + 1 >= cap) {
				cap = cap ? cap * 2 : 64;
				bound = xrealloc(bound, cap * sizeof(*bound));
			}
			bound[nruns++] = i;
		}
	}
	nruns--;  /* bound[nruns] == n ends the last run */
	if (nruns <= 1) {
		free(bound);
		return;
	}
	struct lt_row *a = t->rows, *tmp = xmalloc(n * sizeof(*tmp));
	while (nruns > 1) {
		size_t m = 0;
		for (size_t k = 0; k < nruns; k += 2) {
			size_t lo = bound[k], mid = bound[k + 1], hi = k + 2 <= nruns ? bound[k + 2] : mid;
			size_t x = lo, y = mid, w = lo;
			while (x < mid && y < hi)
				tmp[w++] = lt_less(&a[y], &a[x]) ? a[y++] : a[x++];
			memcpy(tmp + w, a + x, (mid - x) * sizeof(*a));
			w += mid - x;
			memcpy(tmp + w, a + y, (hi - y) * sizeof(*a));
			bound[m++] = lo;
		}
		bound[m] = n;
		nruns = m;
		struct lt_row *sw = a;
		a = tmp;
		tmp = sw;
	}
	t->rows = a;
	free(tmp);
	free(bound);
}

/* Runs the line program at off. false: not understood. */
/* What a unit's header says about its program. */
struct lt_hdr {
	unsigned version, offset_size, addr_size;
	unsigned min_insn, line_range, opcode_base;
	int line_base;
	uint8_t oplen[256];           /* operand counts of the standard opcodes */
	struct lt_rd files;           /* the directory and file tables */
	const uint8_t *prog, *end;    /* the line number program */
};

/* The fixed part of the unit header at off; false for anything this decoder leaves to libdw. */
static bool lt_read_header(const struct lt_secs *s, uint64_t off, unsigned cu_addr_size,
			   struct lt_hdr *hd)
{
	const Elf_Data *d = s->line;
	if (off >= d->d_size)
		return false;
	struct lt_rd r = { (const uint8_t *)d->d_buf + off, (const uint8_t *)d->d_buf + d->d_size, false };
	uint64_t unit_length = rd_fixed(&r, 4);
	hd->offset_size = 4;
	if (unit_length == 0xffffffffu) {
		unit_length = rd_fixed(&r, 8);
		hd->offset_size = 8;
	} else if (unit_length >= 0xfffffff0u) {
		return false;
	}
	if (r.bad || unit_length > (uint64_t)(r.end - r.p))
		return false;
	r.end = r.p + unit_length;
	hd->version = (unsigned)rd_fixed(&r, 2);
	if (r.bad || hd->version < 2 || hd->version > 5)
		return false;
	hd->addr_size = cu_addr_size;
	if (hd->version >= 5) {
		hd->addr_size = (unsigned)rd_fixed(&r, 1);
		unsigned seg = (unsigned)rd_fixed(&r, 1);
		if (r.bad || seg != 0 || hd->addr_size != cu_addr_size)
			return false;
	}
	if (hd->addr_size != 4 && hd->addr_size != 8)
		return false;
	uint64_t header_length = rd_fixed(&r, hd->offset_size);
	if (r.bad || header_length > (uint64_t)(r.end - r.p))
		return false;
	hd->prog = r.p + header_length;
	hd->end = r.end;
	hd->min_insn = (unsigned)rd_fixed(&r, 1);
	unsigned max_ops = hd->version >= 4 ? (unsigned)rd_fixed(&r, 1) : 1;
	rd_fixed(&r, 1);  /* default_is_stmt: rows are kept whatever is_stmt says */
	hd->line_base = (int8_t)rd_fixed(&r, 1);
	hd->line_range = (unsigned)rd_fixed(&r, 1);
	hd->opcode_base = (unsigned)rd_fixed(&r, 1);
	if (r.bad || max_ops != 1 || hd->line_range == 0 || hd->opcode_base < 10)
		return false;
	memset(hd->oplen, 0, sizeof(hd->oplen));
	for (unsigned i = 1; i < hd->opcode_base; i++)
		hd->oplen[i] = (uint8_t)rd_fixed(&r, 1);
	if (r.bad)
		return false;
	static const uint8_t std_len[13] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	/* Operand counts of the standard opcodes this decoder runs must be the standard ones. */
	for (unsigned i = 1; i < 13 && i < hd->opcode_base; i++)
		if (hd->oplen[i] != std_len[i])
			return false;
	hd->files = (struct lt_rd){ r.p, hd->prog, false };
	return true;
}

/* DWARF 2-4 directory and file tables: directory 0 is the compilation directory; the names only
 * matter for their count. */
static bool lt_read_files_v4(struct lt_build *b, struct lt_rd *h)
{
	uint64_t ndirs = 1;
	for (;;) {
		const char *dir = rd_str(h);
		if (h->bad)
			return false;
		if (!*dir)
			break;
		ndirs++;
	}
	if (!lt_add_file(b, "???"))
		return false;
	for (;;) {
		const char *name = rd_str(h);
		if (h->bad)
			return false;
		if (!*name)
			break;
		uint64_t dir = rd_uleb(h);
		rd_uleb(h);  /* mtime */
		rd_uleb(h);  /* length */
		if (h->bad || dir >= ndirs || !lt_add_file(b, name))
			return false;
	}
	return true;
}

/* DWARF 5 directory and file tables, described by their entry formats. */
static bool lt_read_files_v5(struct lt_build *b, struct lt_rd *h, const struct lt_secs *s,
			     unsigned offset_size)
{
	struct lt_fmt f;
	if (!lt_read_fmt(h, &f))
		return false;
	uint64_t ndirs = rd_uleb(h);
	if (h->bad || (ndirs > 0 && f.n == 0))
		return false;
	for (uint64_t i = 0; i < ndirs; i++) {
		const char *path;
		uint64_t dir;
		if (!lt_read_entry(h, &f, offset_size, s, &path, &dir))
			return false;
	}
	if (!lt_read_fmt(h, &f))
		return false;
	uint64_t nfiles = rd_uleb(h);
	if (h->bad || (nfiles > 0 && f.n == 0))
		return false;
	for (uint64_t i = 0; i < nfiles; i++) {
		const char *path;
		uint64_t dir;
		if (!lt_read_entry(h, &f, offset_size, s, &path, &dir) || dir >= ndirs ||
		    !lt_add_file(b, path))
			return false;
	}
	return true;
}

/* The line number state machine's registers. */
struct lt_regs {
	uint64_t addr;
	uint32_t file, line, column, isa, discr;
};

static void lt_regs_reset(struct lt_regs *g)
{
	*g = (struct lt_regs){ .file = 1, .line = 1 };
}

/* Appends the row the registers describe (end: the end of a sequence); false for registers this
 * decoder's rows cannot hold, which libdw then decodes. */
static bool lt_emit(struct lt_build *b, const struct lt_regs *g, bool end)
{
	if (g->column > 0xffff || g->isa > 0xff || g->discr >= (1u << 24) || (!end && g->file == LT_END))
		return false;
	lt_add_row(b, g->addr, end ? LT_END : g->file, (int32_t)g->line);
	return true;
}

/* One extended opcode (after its 0 byte): a length, then the sub-opcode and its operands. */
static bool lt_extended(struct lt_build *b, struct lt_rd *r, const struct lt_hdr *hd, struct lt_regs *g)
{
	if (r->end - r->p < 2)
		return false;
	uint8_t len = *r->p++;
	if (len & 0x80 || len == 0 || len > (size_t)(r->end - r->p))
		return false;  /* a multi-byte length: not seen in practice, left to libdw */
	const uint8_t *next = r->p + len;
	unsigned sub = *r->p++;
	switch (sub) {
	case DW_LNE_end_sequence:
		if (!lt_emit(b, g, true))
			return false;
		lt_regs_reset(g);
		break;
	case DW_LNE_set_address:
		g->addr = rd_fixed(r, hd->addr_size);
		break;
	case DW_LNE_set_discriminator:
		g->discr = (uint32_t)rd_uleb(r);
		break;
	case DW_LNE_define_file:
		return false;
	default:
		if (sub >= DW_LNE_lo_user)
			return false;  /* vendor opcodes (NVIDIA's change state): libdw */
		r->p = next;
		break;
	}
	return !r->bad && r->p == next;
}

/* One standard opcode (below opcode_base, not 0). */
static bool lt_standard(struct lt_build *b, struct lt_rd *r, const struct lt_hdr *hd, unsigned op,
			struct lt_regs *g)
{
	switch (op) {
	case DW_LNS_copy:
		if (!lt_emit(b, g, false))
			return false;
		g->discr = 0;
		break;
	case DW_LNS_advance_pc: {
		/* libdw computes the advance in 32 bits: larger ones are left to it. */
		uint64_t adv = (uint64_t)hd->min_insn * rd_uleb(r);
		if (adv > UINT32_MAX)
			return false;
		g->addr += adv;
		break;
	}
	case DW_LNS_advance_line:
		g->line += (uint32_t)rd_sleb(r);
		break;
	case DW_LNS_set_file:
		g->file = (uint32_t)rd_uleb(r);
		break;
	case DW_LNS_set_column:
		g->column = (uint32_t)rd_uleb(r);
		break;
	case DW_LNS_negate_stmt:
	case DW_LNS_set_basic_block:
	case DW_LNS_set_prologue_end:
	case DW_LNS_set_epilogue_begin:
		break;
	case DW_LNS_const_add_pc:
		g->addr += (uint64_t)hd->min_insn * ((255 - hd->opcode_base) / hd->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		g->addr += rd_fixed(r, 2);
		break;
	case DW_LNS_set_isa:
		g->isa = (uint32_t)rd_uleb(r);
		break;
	default:
		for (unsigned i = 0; i < hd->oplen[op] && !r->bad; i++)
			rd_uleb(r);
		break;
	}
	return !r->bad;
}

/* The line number program into rows. */
static bool lt_run(struct lt_build *b, const struct lt_hdr *hd)
{
	struct lt_rd r = { hd->prog, hd->end, false };
	struct lt_regs g;
	lt_regs_reset(&g);
	while (r.p < r.end) {
		unsigned op = *r.p++;
		if (op >= hd->opcode_base) {
			unsigned adj = op - hd->opcode_base;
			g.line += (uint32_t)(hd->line_base + (int)(adj % hd->line_range));
			g.addr += (uint64_t)hd->min_insn * (adj / hd->line_range);
			if (!lt_emit(b, &g, false))
				return false;
			g.discr = 0;
		} else if (!(op == 0 ? lt_extended(b, &r, hd, &g) : lt_standard(b, &r, hd, op, &g))) {
			return false;
		}
	}
	return true;
}

static bool lt_parse(struct lt_build *b, const struct lt_secs *s, uint64_t off, unsigned cu_addr_size)
{
	struct lt_hdr hd;
	if (!lt_read_header(s, off, cu_addr_size, &hd))
		return false;
	struct lt_rd h = hd.files;
	bool ok = hd.version < 5 ? lt_read_files_v4(b, &h) : lt_read_files_v5(b, &h, s, hd.offset_size);
	if (!ok || h.p != hd.prog)
		return false;
	return lt_run(b, &hd);
}

struct linetab *linetab_decode(Dwarf_Die *cu)
{
	if (!cu || !cu->cu)
		return NULL;
	int tag = dwarf_tag(cu);
	if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)
		return NULL;
	Dwarf_Half version;
	uint8_t unit_type, addr_size = 0;
	if (dwarf_cu_info(cu->cu, &version, &unit_type, NULL, NULL, NULL, &addr_size, NULL) != 0 ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial))
		return NULL;
	Dwarf_Attribute a;
	Dwarf_Word off;
	if (!dwarf_attr(cu, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off) != 0)
		return NULL;
	struct lt_secs s;
	if (!lt_sections(dwarf_cu_getdwarf(cu->cu), &s))
		return NULL;
	struct linetab *t = xcalloc(1, sizeof(*t));
	struct lt_build b = { .t = t };
	if (!lt_parse(&b, &s, off, addr_size)) {
		linetab_free(t);
		return NULL;
	}
	lt_sort(t);
	/* libdw marks the highest row as ending a sequence, whatever it was (a row at the address of
	 * the end_sequence that follows it sorts after that end_sequence). */
	if (t->nrows)
		t->rows[t->nrows - 1].file = LT_END;
	return t;
}

void linetab_free(struct linetab *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->file_off);
	free(t->names);
	free(t);
}

bool linetab_line(const struct linetab *t, uint64_t pc, const char **base, int *line)
{
	size_t lo = 0, hi = t->nrows;
	while (lo < hi) {  /* the first row after pc */
		size_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const struct lt_row *r = &t->rows[lo - 1];
	if (r->file == LT_END || r->file >= t->nfiles)
		return false;
	*base = t->names + t->file_off[r->file];
	*line = r->line;
	return true;
}

const char *linetab_file(const struct linetab *t, uint64_t idx)
{
	return idx < t->nfiles ? t->names + t->file_off[idx] : NULL;
}

size_t linetab_nfiles(const struct linetab *t)
{
	return t->nfiles;
}

size_t linetab_nrows(const struct linetab *t)
{
	return t->nrows;
}

uint64_t linetab_row_addr(const struct linetab *t, size_t i)
{
	return i < t->nrows ? t->rows[i].addr : 0;
}

/* ---- the cache ---- */

struct lt_slot {
	Dwarf *dbg;            /* NULL: empty */
	Dwarf_Off cu;
	struct linetab *t;     /* NULL: the decoder gave up on this CU */
};

struct linetab_cache {
	struct lt_slot s[LINETAB_CACHE_CUS];
	size_t next;
	size_t last;           /* the slot of the last hit, tried first */
};

struct linetab_cache *linetab_cache_new(void)
{
	return xcalloc(1, sizeof(struct linetab_cache));
}

void linetab_cache_free(struct linetab_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < LINETAB_CACHE_CUS; i++)
		linetab_free(c->s[i].t);
	free(c);
}

const struct linetab *linetab_get(struct linetab_cache *c, Dwarf_Die *cu)
{
	Dwarf *dbg = cu && cu->cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	if (!dbg)
		return NULL;
	Dwarf_Off off = dwarf_dieoffset(cu);
	if (c->s[c->last].dbg == dbg && c->s[c->last].cu == off)
		return c->s[c->last].t;
	for (size_t i = 0; i < LINETAB_CACHE_CUS; i++)
		if (c->s[i].dbg == dbg && c->s[i].cu == off) {
			c->last = i;
			return c->s[i].t;
		}
	struct lt_slot *sl = &c->s[c->next];
	linetab_free(sl->t);
	*sl = (struct lt_slot){ .dbg = dbg, .cu = off, .t = linetab_decode(cu) };
	c->last = c->next;
	c->next = (c->next + 1) % LINETAB_CACHE_CUS;
	return sl->t;
}
