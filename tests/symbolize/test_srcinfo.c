/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_srcinfo: inline frames and source lines against eu-addr2line, and demangling.
 *
 * For every byte address of the fixture's hot function (compiled -g -O2, with always_inline helpers
 * two levels deep inside its loop), the frames the dso gives must be what `eu-addr2line -a -f -i`
 * prints: the same number of frames, the inline functions' names in the same order, and each frame's
 * "file:line" (perf's srcline form is the basename and the line, without the column). The last frame
 * is the function that holds the address; its name is the ELF symbol's, which for the fixture is the
 * DWARF subprogram's too. Then the cache: a second pass is all hits and gives the same pointers; and
 * with inline frames off, one frame whose srcline is the address's own line.
 * The store (srcstore.c): a second session answers every address as the first did without opening
 * the DWARF; a store of another identity is not used; a damaged store file gives no answer or a
 * well-formed one, never a read outside it (ASan twin), whatever byte is changed.
 *
 * usage: test_srcinfo (the fixture path is compiled in)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "symbolize/demangle.h"
#include "symbolize/dso.h"
#include "symbolize/intern.h"
#include "symbolize/srcstore.h"

#define MAXF 16

struct ref {
	int n;
	char name[MAXF][256];
	char line[MAXF][256];
};

/* "file.c:16:16" or "/dir/file.c:16" -> "file.c:16". */
static void ref_srcline(char *out, size_t cap, const char *loc)
{
	const char *base = strrchr(loc, '/');
	base = base ? base + 1 : loc;
	snprintf(out, cap, "%.200s", base);
	char *c1 = strchr(out, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2)
		*c2 = 0;
}

static int fixture_range(const char *bin, const char *fn, unsigned long *start, unsigned long *size)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", bin);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[512];
	int found = -1;
	while (fgets(line, sizeof(line), p)) {
		char name[256], type;
		if (sscanf(line, "%lx %lx %c %255s", start, size, &type, name) == 4 && strcmp(name, fn) == 0) {
			found = 0;
			break;
		}
	}
	pclose(p);
	return found;
}

/* Runs eu-addr2line once for all addresses; refs[i] gets address i's frames. */
static int addr2line_all(const char *bin, unsigned long start, unsigned long n, struct ref *refs)
{
	char path[] = "/tmp/perftop-srcinfo-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	for (unsigned long i = 0; i < n; i++)
		fprintf(f, "0x%lx\n", start + i);
	fclose(f);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "eu-addr2line -a -f -i -e '%s' < %s", bin, path);
	FILE *p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -1;
	}
	char line[1024];
	long cur = -1;
	bool want_name = true;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "0x", 2) == 0 && !strchr(line, ' ')) {
			cur++;
			want_name = true;
			continue;
		}
		if (cur < 0 || cur >= (long)n)
			continue;
		struct ref *r = &refs[cur];
		if (want_name) {
			if (r->n >= MAXF)
				continue;
			char *in = strstr(line, " inlined at ");
			if (in)
				*in = 0;
			snprintf(r->name[r->n], sizeof(r->name[0]), "%.200s", line);
		} else {
			ref_srcline(r->line[r->n], sizeof(r->line[0]), line);
			r->n++;
		}
		want_name = !want_name;
	}
	int rc = pclose(p);
	unlink(path);
	return rc == 0 && cur + 1 == (long)n ? 0 : -1;
}

static void test_against_addr2line(void)
{
	setenv("PERFTOP_DEBUG_CACHE", "0", 1);  /* DWARF itself, not an earlier run's store */
	unsigned long start, size;
	if (fixture_range(INLINE_FIXTURE_PATH, "work", &start, &size) != 0) {
		fprintf(stderr, "no symbol 'work' in %s\n", INLINE_FIXTURE_PATH);
		CHECK(0);
		return;
	}
	struct ref *refs = calloc(size, sizeof(*refs));
	CHECK(addr2line_all(INLINE_FIXTURE_PATH, start, size, refs) == 0);

	struct intern *in = intern_new();
	struct dso_set *set = dso_set_new(in);
	dso_set_want(set, true, true);
	struct dso *d = dso_set_get(set, INLINE_FIXTURE_PATH, NULL);
	int with_inlines = 0, mismatches = 0;
	for (unsigned long i = 0; i < size; i++) {
		struct frame fr[MAXF];
		/* PIE text: file offsets equal virtual addresses, as ld lays it out */
		int n = dso_lookup(d, start + i, fr, MAXF);
		const struct ref *r = &refs[i];
		bool ok = n == r->n && n >= 1;
		for (int k = 0; ok && k < n; k++) {
			char want[300];
			snprintf(want, sizeof(want), k < n - 1 ? "%s (inlined)" : "%s", r->name[k]);
			ok = strcmp(fr[k].sym, want) == 0 && fr[k].srcline && strcmp(fr[k].srcline, r->line[k]) == 0 &&
			     fr[k].inlined == (k < n - 1);
		}
		if (!ok && mismatches++ < 5) {
			fprintf(stderr, "0x%lx: perftop %d frames, eu-addr2line %d:\n", start + i, n, r->n);
			for (int k = 0; k < n; k++)
				fprintf(stderr, "  ours %s @ %s\n", fr[k].sym, fr[k].srcline ? fr[k].srcline : "-");
			for (int k = 0; k < r->n; k++)
				fprintf(stderr, "  ref  %s @ %s\n", r->name[k], r->line[k]);
		}
		CHECK(ok);
		with_inlines += n > 1;
	}
	/* The fixture is built so that most of its hot function is inlined code. */
	CHECK(with_inlines > (int)size / 3);

	/* Second pass: all from the cache, same interned strings. */
	uint64_t h0, m0, h1, m1;
	dso_srcinfo_counts(set, &h0, &m0);
	struct frame a[MAXF], b[MAXF];
	int na = dso_lookup(d, start + size / 2, a, MAXF);
	int nb = dso_lookup(d, start + size / 2, b, MAXF);
	dso_srcinfo_counts(set, &h1, &m1);
	CHECK(na == nb && na >= 1 && a[0].sym == b[0].sym && a[0].srcline == b[0].srcline);
	CHECK_EQ_U64(m1, m0);
	CHECK_EQ_U64(h1, h0 + 2);

	/* Inline frames off: one frame, the ELF function, with the address's own line (eu-addr2line's
	 * first line). */
	dso_set_want(set, false, true);
	mismatches = 0;
	for (unsigned long i = 0; i < size; i++) {
		struct frame fr[MAXF];
		int n = dso_lookup(d, start + i, fr, MAXF);
		bool ok = n == 1 && !fr[0].inlined && strcmp(fr[0].sym, "work") == 0 && fr[0].srcline &&
			  refs[i].n && strcmp(fr[0].srcline, refs[i].line[0]) == 0;
		if (!ok && mismatches++ < 3)
			fprintf(stderr, "no-inline 0x%lx: %s @ %s, want work @ %s\n", start + i, fr[0].sym,
				fr[0].srcline ? fr[0].srcline : "-", refs[i].line[0]);
		CHECK(ok);
	}
	/* Neither: the plain ELF lookup. */
	dso_set_want(set, false, false);
	struct frame fr[MAXF];
	CHECK(dso_lookup(d, start, fr, MAXF) == 1 && strcmp(fr[0].sym, "work") == 0 && !fr[0].srcline);

	/* Too little room for the inline frames: the ELF frame alone, with the address's line. */
	dso_set_want(set, true, true);
	for (unsigned long i = 0; i < size; i++) {
		if (refs[i].n < 2)
			continue;
		CHECK(dso_lookup(d, start + i, fr, 1) == 1 && strcmp(fr[0].sym, "work") == 0 &&
		      fr[0].srcline && strcmp(fr[0].srcline, refs[i].line[0]) == 0);
		break;
	}
	dso_set_free(set);
	intern_free(in);
	free(refs);
	unsetenv("PERFTOP_DEBUG_CACHE");
}

/* All frames of every address of work, as one string per address. */
static char **session_frames(unsigned long start, unsigned long size, bool *dwarf_loaded)
{
	struct intern *in = intern_new();
	struct dso_set *set = dso_set_new(in);
	dso_set_want(set, true, true);
	struct dso *d = dso_set_get(set, INLINE_FIXTURE_PATH, NULL);
	char **out = calloc(size, sizeof(*out));
	for (unsigned long i = 0; i < size; i++) {
		struct frame fr[MAXF];
		int n = dso_lookup(d, start + i, fr, MAXF);
		char buf[4096];
		size_t len = 0;
		for (int k = 0; k < n && len < sizeof(buf); k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s@%s%s;", fr[k].sym,
						fr[k].srcline ? fr[k].srcline : "-", fr[k].inlined ? "i" : "");
		out[i] = strdup(buf);
	}
	*dwarf_loaded = dso_dwarf_loaded(d);
	dso_set_free(set);  /* writes the store */
	intern_free(in);
	return out;
}

static void test_store(void)
{
	unsigned long start, size;
	if (fixture_range(INLINE_FIXTURE_PATH, "work", &start, &size) != 0)
		return;
	char dir[] = "/tmp/perftop-srcstore-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	setenv("PERFTOP_CACHE_DIR", dir, 1);
	bool loaded1, loaded2;
	char **first = session_frames(start, size, &loaded1);
	char **second = session_frames(start, size, &loaded2);
	CHECK(loaded1);
	CHECK(!loaded2);  /* every answer came from the store */
	unsigned long same = 0;
	for (unsigned long i = 0; i < size; i++)
		same += strcmp(first[i], second[i]) == 0;
	CHECK_EQ_U64(same, size);

	/* The store file itself: find it, then damage it byte by byte. */
	char cmd[512], path[512] = "";
	snprintf(cmd, sizeof(cmd), "ls %s/srcinfo/*.si 2>/dev/null | head -1", dir);
	FILE *p = popen(cmd, "r");
	if (p && fgets(path, sizeof(path), p))
		path[strcspn(path, "\n")] = 0;
	if (p)
		pclose(p);
	CHECK(path[0] != 0);
	FILE *f = fopen(path, "rb");
	static unsigned char orig[1 << 20];
	size_t len = f ? fread(orig, 1, sizeof(orig), f) : 0;
	if (f)
		fclose(f);
	CHECK(len > 40 && len < sizeof(orig));
	uint64_t identity;
	memcpy(&identity, orig + 8, sizeof(identity));
	struct srcstore *st = srcstore_open(path, identity);
	CHECK(st && srcstore_count(st) > 0);
	srcstore_close(st);
	CHECK(srcstore_open(path, identity ^ 1) == NULL);  /* another identity: ignored */
	unsigned long opened = 0, answered = 0;
	for (size_t pos = 0; pos < len; pos += (pos < 4096 ? 1 : 61)) {
		orig[pos] ^= 0xa5;
		f = fopen(path, "wb");
		fwrite(orig, 1, len, f);
		fclose(f);
		orig[pos] ^= 0xa5;
		st = srcstore_open(path, identity);
		if (!st)
			continue;
		opened++;
		for (unsigned long i = 0; i < size; i += 7) {
			struct srcstore_frame fr[MAXF];
			unsigned want;
			const char *leaf;
			int n = srcstore_get(st, start + i, &want, &leaf, fr, MAXF);
			for (int k = 0; k < n && k < MAXF; k++)  /* touch every string: ASan sees bad reads */
				answered += (fr[k].sym ? strlen(fr[k].sym) : 0) + (fr[k].srcline ? strlen(fr[k].srcline) : 0);
			if (n > 0 && leaf)
				answered += strlen(leaf);
		}
		srcstore_close(st);
	}
	CHECK(opened > 0);
	printf("store: %lu addresses answered alike by a second session without DWARF; %lu damaged copies"
	       " opened, %lu bytes of answers read from them\n", same, opened, answered);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	for (unsigned long i = 0; i < size; i++) {
		free(first[i]);
		free(second[i]);
	}
	free(first);
	free(second);
	unsetenv("PERFTOP_CACHE_DIR");
}

static void test_demangle(void)
{
	struct intern *in = intern_new();
	struct demangler *dm = demangler_new(in, false);
	static const struct {
		const char *raw, *want;
	} cases[] = {
		{ "_ZN3geo4Grid6smoothEi", "geo::Grid::smooth" },
		{ "_ZN3geo6detail18accumulate_squaresIdEET_RKSt6vectorIS2_SaIS2_EE",
		  "geo::detail::accumulate_squares<double>" },
		{ "_ZN4util3mixEl@plt", "util::mix@plt" },
		{ "_ZNKSt6vectorIiSaIiEE4sizeEv (inlined)", "std::vector<int, std::allocator<int> >::size (inlined)" },
		{ "_ZNSt8ios_base4InitC1Ev@@GLIBCXX_3.4", "std::ios_base::Init::Init@@GLIBCXX_3.4" },
		/* Rust legacy (the hash is dropped as perf and rustfilt do) and v0 */
		{ "_ZN4core3fmt9Formatter3pad17h4e2c4a5b6c7d8e9fE", "core::fmt::Formatter::pad" },
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "main", "main" },
		{ "_Znot_really_mangled", "_Znot_really_mangled" },
		{ "0x00007f0000001234", "0x00007f0000001234" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *raw = intern_str(in, cases[i].raw);
		const char *got = demangler_name(dm, raw);
		CHECK_STR(got, cases[i].want);
		CHECK(demangler_name(dm, raw) == got);  /* cached: the same pointer */
	}
	/* With parameters, for those who ask for them. */
	char *full = demangle_str("_ZN4util3mixEl", true);
	CHECK_STR(full, "util::mix(long)");
	free(full);
	demangler_free(dm);
	intern_free(in);
}

int main(void)
{
	test_against_addr2line();
	test_store();
	test_demangle();
	return CHECK_DONE();
}
