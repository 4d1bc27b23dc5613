/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_annotate_view: the annotate view without a terminal. A fixed fake data set (a profile, a
 * call tree and the annotate histogram fed the same samples of leaf_a, whose made-up code is eight
 * instructions over lines 27-33 of a fixture.c and one line inlined from a header) is rendered
 * into surfaces and compared with golden files under tests/ui/golden/: source, assembly and both
 * interleaved at 80x24, the source at 200x60, and the cases with nothing to show (no code, a
 * source file that cannot be read, a session without annotate). Keys drive it as a user would:
 * a opens it from the table and from the function view, s cycles the modes and keeps the cursor
 * on the same code, H goes to the hottest line, Tab to the next hot one (wrapping), the arrows and
 * pages move, Esc / q get out, and a new snapshot keeps the cursor where it was.
 *
 *   test_annotate_view GOLDEN_DIR            compare
 *   PERFTOP_UPDATE_GOLDEN=1 ...              rewrite the golden files (then review them)
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "frame_golden.h"
#include "model/annotate.h"
#include "model/calltree.h"
#include "model/profile.h"
#include "model/snapshot.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "ui/view.h"
#include "util/util.h"

static char s_main[] = "main", s_mid[] = "mid", s_la[] = "leaf_a", s_mix[] = "mix (inlined)";
static char d_app[] = "fixture", s_comm[] = "fixture";

static const char *src_lines[] = {
	"/* fixture.c */", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "",
	"", "", "", "", "", "",
	"__attribute__((noinline)) unsigned long leaf_a(unsigned long seed)", /* 27 */
	"{",
	"        unsigned long x = finish_ptr(seed);",
	"        for (int i = 0; i < 200000; i++)",
	"                x = x * 2862933555777941757UL + 3037000493UL;",
	"        return x;",
	"}",
};

static struct an_insn insns[] = {
	{ 0x1180, 4, "push rbp", "/src/fixture.c", 28 },
	{ 0x1184, 3, "mov rbp, rsp", "/src/fixture.c", 28 },
	{ 0x1187, 6, "call qword ptr [rip + 0x2e8b]", "/src/fixture.c", 29 },
	{ 0x118d, 5, "mov edx, 0x30d40", "/src/fixture.c", 30 },
	{ 0x1192, 4, "imul rax, rcx", "/src/fixture.c", 31 },
	{ 0x1196, 4, "add rax, rsi", "/src/mix.h", 7 },
	{ 0x119a, 3, "sub edx, 1", "/src/fixture.c", 30 },
	{ 0x119d, 2, "jne 0x1192", "/src/fixture.c", 30 },
	{ 0x119f, 1, "pop rbp", "/src/fixture.c", 33 },
	{ 0x11a0, 1, "ret", "/src/fixture.c", 33 },
};

struct fake {
	struct annotate *an;
	struct an_snapshot *snap;
	bool no_code, no_src;
	int calls;
};

static struct frame fr(const char *sym, uint64_t start, uint64_t va)
{
	return (struct frame){ .sym = sym, .dso = d_app, .sym_start = start, .va = va };
}

static struct an_doc *fake_fetch(void *ctx, const char *raw_sym, const char *dso)
{
	struct fake *f = ctx;
	f->calls++;
	struct an_count *counts;
	uint64_t start;
	size_t n = an_snapshot_func(f->snap, dso, raw_sym, &counts, &start);
	struct an_code code = { .insns = insns, .ninsns = ARRAY_SIZE(insns), .file = "/src/fixture.c",
				.decl_line = 27, .src = src_lines, .nsrc = ARRAY_SIZE(src_lines) };
	if (f->no_src) {
		code.src = NULL;
		code.src_err = "/src/fixture.c: No such file or directory (--prefix OLD=NEW remaps a "
			       "build path)";
	}
	if (f->no_code)
		code = (struct an_code){ .err = "fixture: cannot read the function's code" };
	struct an_doc *d = annotate_doc(&code, counts, n, f->snap->total);
	free(counts);
	return d;
}

/* w scales the loop's weight, so a second snapshot moves the numbers. */
static struct snapshot *make_data(struct fake *f, int w)
{
	struct profile *p = profile_new(NULL, 0);
	struct calltree *t = calltree_new(0);
	annotate_free(f->an);
	an_snapshot_free(f->snap);
	f->an = annotate_new(0);
	struct {
		uint64_t va, period;
	} hits[] = { { 0x1192, 4000 }, { 0x1194, 1000 }, { 0x119a, 900 }, { 0x119d, 300 },
		     { 0x1196, 700 },  { 0x118d, 100 },  { 0x11a0, 50 } };
	for (size_t i = 0; i < ARRAY_SIZE(hits); i++) {
		struct frame fs[4] = { fr(s_la, 0x1180, hits[i].va), fr(s_mid, 0x1200, 0x1230),
				       fr(s_main, 0x1300, 0x1340) };
		int n = 3;
		if (hits[i].va == 0x1196) { /* the inlined add: an inline frame first */
			fs[3] = fs[2], fs[2] = fs[1], fs[1] = fs[0];
			fs[0] = (struct frame){ .sym = s_mix, .dso = d_app, .inlined = true,
						.sym_start = 0x1180, .va = 0x1196 };
			n = 4;
		}
		uint64_t period = hits[i].period * (hits[i].va == 0x1192 ? (uint64_t)w : 2) / 2;
		struct sample_ctx s = { .comm = s_comm, .pid = 7, .tid = 7, .period = period,
					.frames = fs, .nframes = n };
		profile_add(p, &s);
		calltree_add(t, &s);
		annotate_add(f->an, &s);
	}
	/* leaf_a's call to finish: Total on the call instruction (return address 0x118d). */
	struct frame c[] = { { .sym = "finish", .dso = d_app }, fr(s_la, 0x1180, 0x118d),
			     fr(s_mid, 0x1200, 0x1230), fr(s_main, 0x1300, 0x1340) };
	struct sample_ctx cs = { .comm = s_comm, .pid = 7, .tid = 7, .period = 200, .frames = c,
				 .nframes = 4 };
	profile_add(p, &cs);
	calltree_add(t, &cs);
	annotate_add(f->an, &cs);
	struct snapshot *s = profile_snapshot(p, COL_SELF);
	s->tree = calltree_snapshot(t);
	f->snap = annotate_snapshot(f->an);
	profile_free(p);
	calltree_free(t);
	return s;
}

/* The text of the cursor's line (cells with ROLE_SELECTED from column 0). */
static bool selected_has(const struct snapshot *snap, const struct view_state *v, const char *text)
{
	struct view_header hd = header();
	struct surface *s = surface_new(100, 30);
	render_frame(s, snap, &hd, v);
	bool found = false;
	for (int y = 0; y < s->h && !found; y++) {
		if (surface_cell_const(s, 0, y)->role != ROLE_SELECTED)
			continue;
		char line[512] = "";
		size_t n = 0;
		for (int x = 0; x < s->w && n + 5 < sizeof(line); x++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s",
					      surface_cell_const(s, x, y)->ch);
		found = strstr(line, text) != NULL;
		if (!found)
			fprintf(stderr, "cursor on '%s', not on '%s'\n", line, text);
	}
	surface_free(s);
	return found;
}

static void init(struct view_state *v, const struct snapshot *s, struct fake *f)
{
	keys_state_init(v);
	v->refresh_secs = 1;
	v->color = true;
	v->annotate = fake_fetch;
	v->annotate_ctx = f;
	keys_follow(v, s, 20);
}

static void table_to(struct view_state *v, const struct snapshot *s, const char *sym)
{
	long at = -1;
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].sym && !strcmp(s->rows[i].sym, sym))
			at = (long)i;
	CHECK(at >= 0);
	keys_handle(v, KEYS_HOME, s, 20);
	for (long i = 0; i < at; i++)
		keys_handle(v, KEYS_DOWN, s, 20);
}

static void test_goldens(void)
{
	struct fake f = { 0 };
	struct snapshot *s = make_data(&f, 2);
	struct view_state v;
	init(&v, s, &f);
	table_to(&v, s, "leaf_a");
	CHECK(keys_handle(&v, 'a', s, 20) & KEYS_ACT_REDRAW);
	CHECK(v.depth == 1 && !strcmp(view_top(&v)->ops->name, "annotate"));
	CHECK(f.calls == 1);
	golden("annotate_source_80x24.txt", 80, 24, s, &v);
	golden("annotate_source_200x60.txt", 200, 60, s, &v);
	keys_handle(&v, 's', s, 20);
	golden("annotate_asm_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, 's', s, 20);
	golden("annotate_both_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, '?', s, 20);
	golden("annotate_help_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, KEYS_ESC, s, 20);
	keys_handle(&v, KEYS_ESC, s, 20);
	CHECK(v.depth == 0);

	/* What is missing is said where the code would be. */
	f.no_src = true;
	keys_handle(&v, 'a', s, 20);
	golden("annotate_nosource_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, 'q', s, 20);
	f.no_src = false;
	f.no_code = true;
	keys_handle(&v, 'a', s, 20);
	golden("annotate_nocode_80x24.txt", 80, 24, s, &v);
	keys_handle(&v, 'q', s, 20);
	CHECK(v.depth == 0 && !v.quit);
	keys_state_done(&v);
	snapshot_free(s);
	annotate_free(f.an);
	an_snapshot_free(f.snap);
}

static void test_keys(void)
{
	struct fake f = { 0 };
	struct snapshot *s = make_data(&f, 2);
	struct view_state v;
	init(&v, s, &f);
	table_to(&v, s, "leaf_a");
	keys_handle(&v, 'a', s, 20);
	/* The first line at start; H: the hottest (line 31, the imul); Tab: the next hot one (the
	 * loop's line 30), again: the inlined mix.h:7, again: round to 31. */
	CHECK(selected_has(s, &v, "27  __attribute__"));
	CHECK(keys_handle(&v, 'H', s, 20) & KEYS_ACT_REDRAW);
	CHECK(selected_has(s, &v, "31                  x = x *"));
	CHECK(keys_handle(&v, 'H', s, 20) == 0); /* already there */
	keys_handle(&v, '\t', s, 20);
	CHECK(selected_has(s, &v, "mix.h:7"));
	keys_handle(&v, '\t', s, 20);
	CHECK(selected_has(s, &v, "30          for (int"));
	keys_handle(&v, '\t', s, 20);
	CHECK(selected_has(s, &v, "31                  x = x *"));
	/* s: the cursor stays on the same code (line 31 -> its first instruction, the imul). */
	keys_handle(&v, 's', s, 20);
	CHECK(selected_has(s, &v, "imul rax, rcx"));
	keys_handle(&v, KEYS_DOWN, s, 20);
	CHECK(selected_has(s, &v, "add rax, rsi"));
	keys_handle(&v, 's', s, 20); /* both: the same instruction */
	CHECK(selected_has(s, &v, "add rax, rsi"));
	keys_handle(&v, 's', s, 20); /* source: its line (mix.h:7) */
	CHECK(selected_has(s, &v, "mix.h:7"));
	/* Moves: Home / End / pages stop at the ends. */
	keys_handle(&v, KEYS_HOME, s, 20);
	CHECK(selected_has(s, &v, "27  __attribute__"));
	CHECK(keys_handle(&v, KEYS_UP, s, 20) == 0);
	keys_handle(&v, KEYS_PGDN, s, 20);
	keys_handle(&v, KEYS_END, s, 20);
	CHECK(keys_handle(&v, KEYS_DOWN, s, 20) == 0);
	/* A new snapshot with other weights: the document is asked for again, the cursor stays. */
	keys_handle(&v, 'H', s, 20);
	int calls = f.calls;
	struct snapshot *s2 = make_data(&f, 9);
	keys_follow(&v, s2, 20);
	CHECK(f.calls == calls + 1);
	CHECK(selected_has(s2, &v, "31                  x = x *"));
	/* Esc: back to the table. */
	keys_handle(&v, KEYS_ESC, s2, 20);
	CHECK(v.depth == 0 && !v.quit);

	/* From the function view: a annotates the node under the cursor (its first caller, mid),
	 * Backspace comes back to the function view. */
	table_to(&v, s2, "leaf_a");
	keys_handle(&v, KEYS_ENTER, s2, 20);
	CHECK(v.depth == 1 && !strcmp(view_top(&v)->ops->name, "function"));
	keys_handle(&v, 'a', s2, 20);
	CHECK(v.depth == 2 && !strcmp(view_top(&v)->ops->name, "annotate"));
	CHECK(!strcmp(view_top(&v)->label, "annotate mid"));
	keys_handle(&v, KEYS_BACKSPACE, s2, 20);
	CHECK(v.depth == 1);
	keys_state_done(&v);

	/* A session without annotate: the view says so. */
	keys_state_init(&v);
	keys_follow(&v, s2, 20);
	table_to(&v, s2, "leaf_a");
	keys_handle(&v, 'a', s2, 20);
	struct view_header hd = header();
	struct surface *sf = surface_new(80, 24);
	render_frame(sf, s2, &hd, &v);
	char *t = surface_to_text(sf);
	CHECK(strstr(t, "annotate is not available in this session") != NULL);
	free(t);
	surface_free(sf);
	keys_state_done(&v);
	snapshot_free(s);
	snapshot_free(s2);
	annotate_free(f.an);
	an_snapshot_free(f.snap);
}

int main(int argc, char **argv)
{
	unsetenv("NO_COLOR");
	golden_init(argc > 1 ? argv[1] : "tests/ui/golden");
	test_goldens();
	test_keys();
	return CHECK_DONE();
}
