/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_jitdump: the jitdump reader on dumps made here by hand: loads, moves and debug info named
 * and looked up (later loads at an address replace older ones), a dump read while it grows (a record
 * cut short waits for the rest), its code bytes for annotate, and hostile files: truncated, sizes
 * that lie, huge names, a million records, a symlink, a file of another owner, a FIFO. Then through
 * the symbolizer (a replay's: nothing read from /proc): the dump found by its mapping and preferred
 * to the perf map, srclines, annotate's instructions, and the hint for a node without either. Run
 * under ASan+UBSan too (the _asan twin).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mkrec.h"
#include "symbolize/disasm.h"
#include "symbolize/intern.h"
#include "symbolize/jitdump.h"
#include "symbolize/symbolizer.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/perftop-jitdump-XXXXXX";
static char path[256];

/* A dump being built in memory. */
struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	xgrow((void **)&b->p, &b->cap, b->n + n, 1);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void header(struct buf *b)
{
	put32(b, JITDUMP_MAGIC);
	put32(b, 1);
	put32(b, 40);
	put32(b, 62);  /* EM_X86_64 */
	put32(b, 0);
	put32(b, 4242);
	put64(b, 1);
	put64(b, 0);
}

static void prefix(struct buf *b, uint32_t id, uint32_t size)
{
	put32(b, id);
	put32(b, size);
	put64(b, 2);
}

static void load(struct buf *b, uint64_t addr, const char *name, const uint8_t *code, uint64_t len)
{
	size_t nl = strlen(name) + 1;
	prefix(b, JITDUMP_CODE_LOAD, (uint32_t)(56 + nl + len));
	put32(b, 4242);
	put32(b, 4242);
	put64(b, addr);
	put64(b, addr);
	put64(b, len);
	put64(b, 7);
	put(b, name, nl);
	put(b, code, len);
}

static void move(struct buf *b, uint64_t from, uint64_t to, uint64_t len)
{
	prefix(b, JITDUMP_CODE_MOVE, 64);
	put32(b, 4242);
	put32(b, 4242);
	put64(b, to);
	put64(b, from);
	put64(b, to);
	put64(b, len);
	put64(b, 7);
}

struct dline {
	uint64_t addr;
	uint32_t line;
	const char *file;
};

static void debug(struct buf *b, uint64_t addr, const struct dline *l, size_t n)
{
	size_t size = 32;
	for (size_t i = 0; i < n; i++)
		size += 16 + strlen(l[i].file) + 1;
	prefix(b, JITDUMP_CODE_DEBUG_INFO, (uint32_t)size);
	put64(b, addr);
	put64(b, n);
	for (size_t i = 0; i < n; i++) {
		put64(b, l[i].addr);
		put32(b, l[i].line);
		put32(b, 0);
		put(b, l[i].file, strlen(l[i].file) + 1);
	}
}

static void write_dump(const struct buf *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, b->p, n) == (ssize_t)n);
	close(fd);
}

static struct jitdump *open_static(struct intern *in)
{
	struct jitdump *j = jitdump_new(path, 0, UINT32_MAX, in);
	jitdump_set_static(j);
	return j;
}

static const char *name_at(struct jitdump *j, uint64_t addr, uint64_t *start, const char **line)
{
	struct jitdump_hit h;
	if (!jitdump_lookup(j, addr, true, &h))
		return NULL;
	if (start)
		*start = h.start;
	if (line)
		*line = h.srcline;
	return h.name;
}

static const uint8_t code_a[] = { 0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3 }; /* push rbp.. ret */
static const uint8_t code_b[] = { 0x48, 0x83, 0xc0, 0x01, 0xc3, 0x90, 0x90, 0x90 };

static void test_basic(struct intern *in)
{
	struct buf b = { 0 };
	header(&b);
	struct dline dl[] = { { 0x1000, 10, "/src/app.js" }, { 0x1004, 12, "/src/app.js" },
			      { 0x9999999, 1, "/src/app.js" } /* outside the code: dropped */ };
	debug(&b, 0x1000, dl, 3);
	load(&b, 0x1000, "JS:*alpha /src/app.js:9:1", code_a, sizeof(code_a));
	load(&b, 0x2000, "beta", code_b, sizeof(code_b));
	move(&b, 0x2000, 0x3000, sizeof(code_b));
	load(&b, 0x1000, "alpha2", code_a, sizeof(code_a)); /* same start: replaces alpha */
	load(&b, 0x1f00, "wide", code_a, sizeof(code_a));
	/* a newer load over the end of "wide": wide is cut at its start */
	load(&b, 0x1f04, "over", code_b, sizeof(code_b));
	prefix(&b, 99, 24);  /* an unknown type: skipped */
	put64(&b, 0);
	prefix(&b, JITDUMP_CODE_CLOSE, 16);
	write_dump(&b, b.n);
	struct jitdump *j = open_static(in);
	uint64_t start = 0;
	const char *line = NULL;
	CHECK_STR(name_at(j, 0x1005, &start, &line), "alpha2");
	CHECK_EQ_U64(start, 0x1000);
	CHECK(line == NULL); /* alpha's lines went with it */
	CHECK_STR(name_at(j, 0x2003, NULL, NULL), "beta");
	CHECK_STR(name_at(j, 0x3007, &start, NULL), "beta");
	CHECK_EQ_U64(start, 0x3000);
	CHECK(name_at(j, 0x3008, NULL, NULL) == NULL);
	CHECK_STR(name_at(j, 0x1f03, NULL, NULL), "wide");
	CHECK_STR(name_at(j, 0x1f05, NULL, NULL), "over");
	uint8_t *code = NULL;
	char err[256];
	CHECK_EQ_U64(jitdump_code(j, 0x3000, 1024, &code, err, sizeof(err)), sizeof(code_b));
	CHECK(code && !memcmp(code, code_b, sizeof(code_b)));
	free(code);
	CHECK_EQ_U64(jitdump_code(j, 0x1000, 3, &code, err, sizeof(err)), 3);
	free(code);
	CHECK_EQ_U64(jitdump_code(j, 0x1001, 64, &code, err, sizeof(err)), 0);
	struct jitdump_stats st;
	jitdump_get_stats(j, &st);
	CHECK(!st.stopped);
	CHECK_EQ_U64(st.records, 9);
	jitdump_free(j);

	/* lines: the record's file, else the one in the code's name (node 20 writes garbage names) */
	b.n = 0;
	header(&b);
	struct dline dl2[] = { { 0x1000, 10, "/src/app.js" }, { 0x1004, 12, "/src/lib.js" } };
	debug(&b, 0x1000, dl2, 2);
	load(&b, 0x1000, "JS:*alpha /src/app.js:9:1", code_a, sizeof(code_a));
	struct dline dl3[] = { { 0x2000, 5, "\xbe\tB\x0f" } };
	debug(&b, 0x2000, dl3, 1);
	load(&b, 0x2000, "JS:*beta /src/v8.js:4:2", code_b, sizeof(code_b));
	write_dump(&b, b.n);
	j = open_static(in);
	name_at(j, 0x1002, NULL, &line);
	CHECK_STR(line, "app.js:10");
	name_at(j, 0x1006, NULL, &line);
	CHECK_STR(line, "lib.js:12");
	name_at(j, 0x2001, NULL, &line);
	CHECK_STR(line, "v8.js:5");
	const char *file;
	unsigned ln;
	CHECK(jitdump_line(j, 0x2001, &file, &ln) && ln == 5);
	CHECK_STR(file, "/src/v8.js");
	jitdump_free(j);
	free(b.p);
}

/* A dump read while it grows, a byte at a time at the end: a record cut short waits. */
static void test_growing(struct intern *in)
{
	struct buf b = { 0 };
	header(&b);
	load(&b, 0x1000, "first", code_a, sizeof(code_a));
	size_t first_end = b.n;
	load(&b, 0x2000, "second", code_b, sizeof(code_b));
	struct jitdump *j = jitdump_new(path, 0, UINT32_MAX, in);
	write_dump(&b, 20); /* half a header */
	jitdump_refresh(j, 1, true);
	CHECK(!name_at(j, 0x1000, NULL, NULL));
	write_dump(&b, first_end + 30); /* the second record cut short */
	jitdump_refresh(j, 1, true);
	CHECK_STR(name_at(j, 0x1000, NULL, NULL), "first");
	jitdump_refresh(j, 1, true);
	CHECK(!name_at(j, 0x2000, NULL, NULL));
	write_dump(&b, b.n);
	jitdump_refresh(j, 1, true);
	CHECK_STR(name_at(j, 0x2000, NULL, NULL), "second");
	struct jitdump_stats st;
	jitdump_get_stats(j, &st);
	CHECK(!st.stopped && st.skipped == 0);
	jitdump_free(j);
	free(b.p);
}

/* Each hostile dump: no crash, no hang, what came before the bad part kept. */
static void test_hostile(struct intern *in)
{
	struct buf b = { 0 };
	struct jitdump_stats st;
	/* a size past the end of the file, in a replay: refused, the earlier record kept */
	header(&b);
	load(&b, 0x1000, "ok", code_a, sizeof(code_a));
	prefix(&b, JITDUMP_CODE_LOAD, 100000);
	put64(&b, 0);
	write_dump(&b, b.n);
	struct jitdump *j = open_static(in);
	CHECK_STR(name_at(j, 0x1000, NULL, NULL), "ok");
	jitdump_get_stats(j, &st);
	CHECK(st.stopped);
	jitdump_free(j);
	/* a record smaller than its prefix, one over the record cap, sizes inside a record that lie */
	uint32_t bad_sizes[] = { 8, JITDUMP_MAX_RECORD + 1 };
	for (size_t k = 0; k < 2; k++) {
		b.n = 0;
		header(&b);
		load(&b, 0x1000, "ok", code_a, sizeof(code_a));
		prefix(&b, JITDUMP_CODE_LOAD, bad_sizes[k]);
		write_dump(&b, b.n);
		j = open_static(in);
		CHECK_STR(name_at(j, 0x1000, NULL, NULL), "ok");
		jitdump_get_stats(j, &st);
		CHECK(st.stopped);
		jitdump_free(j);
	}
	b.n = 0;
	header(&b);
	load(&b, 0x1000, "ok", code_a, sizeof(code_a));
	/* a load whose code_size claims more than its record holds, and one without a NUL */
	size_t at = b.n;
	load(&b, 0x5000, "liar", code_a, sizeof(code_a));
	uint64_t big = 1u << 30;
	memcpy(b.p + at + 40, &big, 8);
	at = b.n;
	load(&b, 0x6000, "nonul", code_a, 0 + 1);
	memset(b.p + at + 56, 'x', b.n - at - 56);
	/* debug info whose count lies, and a move of nothing */
	prefix(&b, JITDUMP_CODE_DEBUG_INFO, 40);
	put64(&b, 0x1000);
	put64(&b, 1ull << 40);
	put64(&b, 0);
	move(&b, 0x9000, 0xa000, 16);
	/* unwinding info whose sizes lie */
	prefix(&b, JITDUMP_CODE_UNWINDING_INFO, 40);
	put64(&b, 1u << 20);
	put64(&b, 0);
	put64(&b, 0);
	write_dump(&b, b.n);
	j = open_static(in);
	CHECK_STR(name_at(j, 0x1000, NULL, NULL), "ok");
	CHECK(!name_at(j, 0x5000, NULL, NULL));
	CHECK(!name_at(j, 0x6000, NULL, NULL));
	CHECK(!name_at(j, 0xa000, NULL, NULL));
	jitdump_get_stats(j, &st);
	CHECK_EQ_U64(st.skipped, 4);
	CHECK(!st.stopped);
	jitdump_free(j);
	/* a huge name: cut */
	b.n = 0;
	header(&b);
	char *huge = xmalloc(1u << 20);
	memset(huge, 'n', (1u << 20) - 1);
	huge[(1u << 20) - 1] = 0;
	load(&b, 0x1000, huge, code_a, sizeof(code_a));
	free(huge);
	write_dump(&b, b.n);
	j = open_static(in);
	const char *n = name_at(j, 0x1000, NULL, NULL);
	CHECK(n && strlen(n) == JITDUMP_MAX_NAME);
	jitdump_free(j);
	/* not a jitdump, and a big-endian one */
	b.n = 0;
	header(&b);
	uint32_t swapped = __builtin_bswap32(JITDUMP_MAGIC);
	memcpy(b.p, &swapped, 4);
	write_dump(&b, b.n);
	j = open_static(in);
	CHECK(!name_at(j, 0x1000, NULL, NULL));
	jitdump_get_stats(j, &st);
	CHECK(st.stopped);
	jitdump_free(j);
	free(b.p);
}

/* A million loads at a thousand addresses: the later load wins, the index stays bounded. Then
 * the entry cap: the oldest go. */
static void test_many(struct intern *in)
{
	struct buf b = { 0 };
	header(&b);
	char name[32];
	for (unsigned i = 0; i < 1000000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		load(&b, 0x100000 + (uint64_t)(i % 1000) * 16, name, code_a, sizeof(code_a));
	}
	write_dump(&b, b.n);
	struct jitdump *j = open_static(in);
	CHECK_STR(name_at(j, 0x100000 + 5 * 16, NULL, NULL), "f999005");
	struct jitdump_stats st;
	jitdump_get_stats(j, &st);
	CHECK_EQ_U64(st.entries, 1000);
	CHECK_EQ_U64(st.records, 1000000);
	jitdump_free(j);
	b.n = 0;
	header(&b);
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "g%u", i);
		load(&b, 0x100000 + (uint64_t)i * 16, name, code_a, sizeof(code_a));
	}
	write_dump(&b, b.n);
	j = open_static(in);
	jitdump_set_limits(j, 0, 1000, 0);
	CHECK_STR(name_at(j, 0x100000 + 4999 * 16, NULL, NULL), "g4999");
	CHECK(!name_at(j, 0x100000, NULL, NULL));
	jitdump_get_stats(j, &st);
	CHECK(st.entries <= 1000 && st.evicted >= 4000);
	jitdump_free(j);
	/* the byte cap: what lies past it is not read */
	j = open_static(in);
	jitdump_set_limits(j, 40 + 2000 * (56 + 6 + 8), 0, 0);
	CHECK(name_at(j, 0x100000 + 100 * 16, NULL, NULL));
	CHECK(!name_at(j, 0x100000 + 3000 * 16, NULL, NULL));
	jitdump_get_stats(j, &st);
	CHECK(st.stopped);
	jitdump_free(j);
	/* 100,000 debug records of 10 lines each over 1,000 pieces of code, lines capped at 5,000:
	 * the cap holds, every name is still found, and it takes no n^2 */
	b.n = 0;
	header(&b);
	struct dline dl[10];
	for (unsigned i = 0; i < 100000; i++) {
		uint64_t at = 0x100000 + (uint64_t)(i % 1000) * 16;
		for (unsigned k = 0; k < 10; k++)
			dl[k] = (struct dline){ at + k % 8, i, "/src/x.js" };
		debug(&b, at, dl, 10);
		load(&b, at, "h", code_a, sizeof(code_a));
	}
	write_dump(&b, b.n);
	j = open_static(in);
	jitdump_set_limits(j, 0, 0, 5000);
	CHECK_STR(name_at(j, 0x100000 + 999 * 16 + 1, NULL, NULL), "h");
	jitdump_get_stats(j, &st);
	CHECK(st.lines <= 5000);
	jitdump_free(j);
	free(b.p);
}

/* Files the reader must not open: a symlink to a dump, one in a symlinked directory, a FIFO, a
 * file of another owner. */
static void test_files(struct intern *in)
{
	struct buf b = { 0 };
	header(&b);
	load(&b, 0x1000, "ok", code_a, sizeof(code_a));
	write_dump(&b, b.n);
	char link[300], dir[300], fifo[300];
	snprintf(link, sizeof(link), "%s/jit-2.dump", tmpdir);
	snprintf(dir, sizeof(dir), "%s/d", tmpdir);
	snprintf(fifo, sizeof(fifo), "%s/jit-3.dump", tmpdir);
	CHECK(symlink(path, link) == 0);
	CHECK(symlink(tmpdir, dir) == 0);
	CHECK(mkfifo(fifo, 0644) == 0);
	char via_dir[400];
	snprintf(via_dir, sizeof(via_dir), "%s/jit-1.dump", dir);
	const char *bad[] = { link, via_dir, fifo };
	for (size_t i = 0; i < 3; i++) {
		struct jitdump *j = jitdump_new(bad[i], 0, UINT32_MAX, in);
		jitdump_set_static(j);
		struct jitdump_hit h;
		CHECK(!jitdump_lookup(j, 0x1000, false, &h));
		CHECK(!jitdump_found(j));
		jitdump_free(j);
	}
	CHECK(chown(path, 4321, 4321) == 0);
	struct jitdump *j = jitdump_new(path, 0, 1234, in);
	jitdump_set_static(j);
	CHECK(!name_at(j, 0x1000, NULL, NULL));
	jitdump_free(j);
	j = jitdump_new(path, 0, 4321, in); /* the process's own uid */
	jitdump_set_static(j);
	CHECK_STR(name_at(j, 0x1000, NULL, NULL), "ok");
	jitdump_free(j);
	unlink(link);
	unlink(dir);
	unlink(fifo);
	free(b.p);
}

static void feed(struct symbolizer *s, struct rec *r)
{
	symbolizer_feed(s, r);
	free(r);
}

/* Pids no process here has (above the kernel's largest pid_max): their perf maps are the test's. */
#define FAKE_PID 4200001u
#define NODE_PID 4200002u

static void test_symbolizer(void)
{
	struct buf b = { 0 };
	header(&b);
	uint64_t base = 0x7f0000000000ull;
	struct dline dl[] = { { base + 0x1000, 3, "/src/app.js" } };
	debug(&b, base + 0x1000, dl, 1);
	load(&b, base + 0x1000, "fromdump", code_a, sizeof(code_a));
	write_dump(&b, b.n);
	char map[64];
	snprintf(map, sizeof(map), "/tmp/perf-%u.map", FAKE_PID);
	FILE *f = fopen(map, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%llx 100 frommap\n%llx 10 maponly\n", (unsigned long long)base + 0x1000,
			(unsigned long long)base + 0x5000);
		fclose(f);
	}
	struct symbolizer *s = symbolizer_new();
	symbolizer_set_offline(s);
	symbolizer_set_names(s, false, true);
	feed(s, mk_mmap(FAKE_PID, base, 0x10000, 0, 0, 0, 0, "//anon"));
	feed(s, mk_mmap(FAKE_PID, base + 0x100000, 0x1000, 0, 8, 1, 77, path));
	struct frame fr;
	CHECK(symbolizer_lookup(s, FAKE_PID, base + 0x1004, false, &fr, 1) == 1);
	CHECK_STR(fr.sym, "fromdump");
	CHECK_STR(fr.srcline, "app.js:3");
	CHECK_EQ_U64(fr.va, base + 0x1004);
	CHECK(symbolizer_lookup(s, FAKE_PID, base + 0x5004, false, &fr, 1) == 1);
	CHECK_STR(fr.sym, "maponly"); /* the perf map where the dump has nothing */
	CHECK_EQ_U64(fr.va, 0);
	char dso[32];
	snprintf(dso, sizeof(dso), "[JIT] tid %u", FAKE_PID);
	struct disasm_func fn;
	CHECK(disasm_function(s, dso, base + 0x1000, &fn) == 0);
	CHECK(fn.n >= 4 && !strcmp(fn.insns[0].text, "push rbp") &&
	      fn.insns[fn.n - 1].va == base + 0x1007 && !strcmp(fn.insns[fn.n - 1].text, "ret"));
	CHECK(fn.insns[0].line == 3 && fn.file && !strcmp(fn.file, "/src/app.js"));
	disasm_func_done(&fn);
	CHECK(disasm_function(s, dso, base + 0x5000, &fn) != 0 && fn.err[0]); /* a perf map's: no code */
	disasm_func_done(&fn);
	CHECK(symbolizer_hint(s) == NULL);
	/* node with neither a perf map nor a dump: the hint names it */
	struct rec c = { .size = sizeof(struct rec), .type = REC_COMM, .pid = NODE_PID, .tid = NODE_PID };
	c.u.comm.pid = c.u.comm.tid = NODE_PID;
	strcpy(c.u.comm.comm, "node");
	symbolizer_feed(s, &c);
	feed(s, mk_mmap(NODE_PID, base, 0x10000, 0, 0, 0, 0, "//anon"));
	CHECK(symbolizer_lookup(s, NODE_PID, base + 0x1004, false, &fr, 1) == 1);
	const char *hint = symbolizer_hint(s);
	char want[32];
	snprintf(want, sizeof(want), "pid %u", NODE_PID);
	CHECK(hint && strstr(hint, want) && strstr(hint, "--perf-basic-prof") && strstr(hint, "--perf-prof:"));
	symbolizer_free(s);
	unlink(map);
	free(b.p);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/jit-1.dump", tmpdir);
	struct intern *in = intern_new();
	test_basic(in);
	test_growing(in);
	test_hostile(in);
	test_many(in);
	test_symbolizer();
	if (geteuid() == 0)
		test_files(in);
	else
		printf("not root: the owner checks are not tested\n");
	intern_free(in);
	unlink(path);
	rmdir(tmpdir);
	return CHECK_DONE();
}
