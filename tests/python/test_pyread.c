/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pyread: the reader of CPython's memory on a fake interpreter built in this process's own
 * memory with 3.11's layout (the table's): a runtime, an interpreter, two thread states, a chain
 * of frames with an entry frame (two eval-loop calls), code objects whose type is named "code",
 * names in ASCII and in UCS-2, a location table. process_vm_readv on our own pid reads it as it
 * reads a Python's. Also: a 3.13 _Py_DebugOffsets image read into a layout (and what is refused),
 * and the watcher thread (pywatch) reading the fake thread on its clock, idle once it is no longer
 * sampled and woken by the next sample (its TSan twin checks the handover under the mutex).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "python/pyread.h"
#include "python/pywatch.h"
#include "util/util.h"

static uint8_t runtime[0x100], interp[0x100], ts_a[0x200], ts_b[0x200], cframe[0x20];
static uint8_t frames[4][80], code[3][0x100], type[0x40], strs[6][0x80], linetable[0x40];

static void put64(uint8_t *base, uint64_t off, const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;
	memcpy(base + off, &v, 8);
}

static void put_u64(uint8_t *base, uint64_t off, uint64_t v)
{
	memcpy(base + off, &v, 8);
}

/* A compact str of the 3.11 layout: ASCII, or UCS-2 (kind 2) from 16-bit units. */
static void make_str(uint8_t *o, const struct pylayout *l, const char *ascii, const uint16_t *ucs2,
		     size_t n)
{
	uint32_t state = ascii ? (1u << 2) | (1u << 5) | (1u << 6) : (2u << 2) | (1u << 5);
	memcpy(o + l->u_state, &state, 4);
	put_u64(o, l->u_length, n);
	if (ascii)
		memcpy(o + l->u_ascii_size, ascii, n);
	else
		memcpy(o + l->u_compact_size, ucs2, 2 * n);
}

static const uint16_t FUNC_UCS2[] = { 'f', 0x0192, 'n' }; /* "fƒn" */

static void build(const struct pylayout *l)
{
	put64(runtime, l->rt_interp_head, interp);
	put64(interp, l->is_threads_head, ts_a);
	put64(ts_a, l->ts_next, ts_b);
	put_u64(ts_a, l->ts_native_tid, 111);
	put_u64(ts_b, l->ts_native_tid, 222);
	put64(ts_b, l->ts_cframe, cframe);
	put64(cframe, l->cf_current_frame, frames[0]);
	/* frames: inner (code 0) <- mid (code 1, entry) <- outer (code 2) <- top (code 2) */
	const int codes[4] = { 0, 1, 2, 2 };
	for (int i = 0; i < 4; i++) {
		put64(frames[i], l->fr_code, code[codes[i]]);
		put64(frames[i], l->fr_previous, i < 3 ? frames[i + 1] : NULL);
		put64(frames[i], l->fr_instr, code[codes[i]] + l->co_code_adaptive + 2 * 6);
	}
	frames[1][l->fr_is_entry] = 1;
	put64(type, 24, "code");
	for (int c = 0; c < 3; c++) {
		put64(code[c], 8, type);
		put64(code[c], l->co_qualname, strs[2 * c]);
		put64(code[c], l->co_filename, strs[2 * c + 1]);
		put64(code[c], l->co_linetable, linetable);
		int32_t first = 10 * (c + 1);
		memcpy(code[c] + l->co_firstlineno, &first, 4);
	}
	make_str(strs[0], l, "inner", NULL, 5);
	make_str(strs[1], l, "/x/a.py", NULL, 7);
	make_str(strs[2], l, NULL, FUNC_UCS2, 3);
	make_str(strs[3], l, "/x/b.py", NULL, 7);
	make_str(strs[4], l, "<module>", NULL, 8);
	make_str(strs[5], l, "/x/c.py", NULL, 7);
	/* bytes object: ob_size at 16, data at 32; one entry (code 13: line delta +2) of 8 units */
	put_u64(linetable, 16, 2);
	linetable[32] = 0x80 | (13 << 3) | 7;
	linetable[33] = 4; /* svarint +2 */
}

static void test_read(const struct pyproc *p)
{
	pid_t self = getpid();
	uint64_t ts = 0, frame = 0;
	CHECK(pyread_thread(self, p, 222, &ts, &frame) == 0);
	CHECK(ts == (uint64_t)(uintptr_t)ts_b && frame == (uint64_t)(uintptr_t)frames[0]);
	/* the thread state found is checked again at the next read, and a tid with none is ESRCH */
	CHECK(pyread_thread(self, p, 222, &ts, &frame) == 0);
	uint64_t none = 0;
	CHECK(pyread_thread(self, p, 333, &none, &frame) < 0 && none == 0);

	struct pyraw raw[8];
	int n = pyread_frames(self, p, (uint64_t)(uintptr_t)frames[0], raw, 8);
	CHECK(n == 4);
	CHECK(raw[0].group == 0 && raw[1].group == 0 && raw[2].group == 1 && raw[3].group == 1);
	CHECK(raw[1].code == (uint64_t)(uintptr_t)code[1]);
	/* a torn read: the outermost frame's previous pointer is garbage near the top of the address
	 * space (addr + the frame's size wraps); the walk ends there with what it read */
	uint8_t *saved;
	memcpy(&saved, frames[3] + p->lay.fr_previous, sizeof(saved));
	put_u64(frames[3], p->lay.fr_previous, UINT64_MAX - 16);
	CHECK(pyread_frames(self, p, (uint64_t)(uintptr_t)frames[0], raw, 8) == 4);
	put64(frames[3], p->lay.fr_previous, saved);

	uint64_t code_type = 0;
	struct pycode_head h;
	CHECK(pyread_code_head(self, p, raw[1].code, &code_type, &h) == 0);
	CHECK(code_type == (uint64_t)(uintptr_t)type && h.firstlineno == 20);
	char q[64], f[64];
	CHECK(pyread_names(self, p, &h, q, sizeof(q), f, sizeof(f)) == 0);
	CHECK_STR(q, "f\xc6\x92n");
	CHECK_STR(f, "/x/b.py");
	/* a frame whose code pointer is not a code object: refused, not named */
	CHECK(pyread_code_head(self, p, (uint64_t)(uintptr_t)strs[0], &code_type, &h) < 0);

	uint8_t t[64];
	int len = pyread_linetable(self, p, h.linetable, t, sizeof(t));
	CHECK(len == 2);
	CHECK(pyread_line(t, len, h.firstlineno, 6) == 22);
}

static void test_debug_offsets(void)
{
	uint8_t img[584] = { 0 };
	memcpy(img, "xdebugpy", 8);
	put_u64(img, 8, 0x030d00f0);       /* 3.13.0 final */
	put_u64(img, 40, 0x278);           /* runtime_state.interpreters_head */
	put_u64(img, 72, 0x1cb0);          /* interpreter_state.threads_head */
	put_u64(img, 184, 0x48);           /* thread_state.current_frame */
	put_u64(img, 200, 0xa0);           /* thread_state.native_thread_id */
	put_u64(img, 240, 0);              /* interpreter_frame.executable */
	put_u64(img, 264, 70);             /* interpreter_frame.owner */
	put_u64(img, 560, 40);             /* unicode_object.asciiobject_size */
	struct pylayout l;
	CHECK(pylayout_from_debug(img, sizeof(img), &l) == 0);
	CHECK(l.minor == 13 && l.rt_interp_head == 0x278 && l.ts_current_frame == 0x48);
	CHECK(l.ts_cframe == PY_NO_FIELD && l.fr_is_entry == PY_NO_FIELD && l.fr_owner == 70);
	CHECK(l.u_compact_size == 56);
	put_u64(img, 16, 1);               /* free-threaded: another layout */
	CHECK(pylayout_from_debug(img, sizeof(img), &l) < 0);
	put_u64(img, 16, 0);
	put_u64(img, 8, 0x030e00f0);       /* 3.14: its struct differs */
	CHECK(pylayout_from_debug(img, sizeof(img), &l) < 0);
	put_u64(img, 8, 0x030d00f0);
	put_u64(img, 200, 1u << 20);       /* an offset past any object */
	CHECK(pylayout_from_debug(img, sizeof(img), &l) < 0);
	CHECK(pylayout_known(3, 11) && pylayout_known(3, 12) && !pylayout_known(3, 7));
}

static void test_watch(const struct pyproc *p)
{
	struct pywatch *w = pywatch_new(1000000, 0);
	uint64_t gap = 0;
	struct pyraw raw[8];
	CHECK(pywatch_lookup(w, (uint32_t)getpid(), 222, now_ns(), raw, 8, &gap) == -1);
	pywatch_note(w, (uint32_t)getpid(), 222, p, now_ns());
	int n = -1;
	for (int i = 0; i < 200 && n < 0; i++) {
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
		n = pywatch_lookup(w, (uint32_t)getpid(), 222, now_ns(), raw, 8, &gap);
	}
	CHECK(n == 4);
	CHECK(gap < 100000000ull);
	uint64_t reads = 0, cpu = 0, mean = 0;
	pywatch_counts(w, &reads, &cpu, &mean);
	/* by budget: from 100 Hz (where it starts) up to the sampling rate at most */
	CHECK(mean >= 1000000 && mean <= 10000000);
	CHECK(reads > 0);
	/* not sampled for longer than the watch lasts (200 ms): no reads, no wakeups */
	struct timespec ts = { 0, 400000000 };
	nanosleep(&ts, NULL);
	uint64_t r1 = 0, r2 = 0;
	pywatch_counts(w, &r1, &cpu, &mean);
	ts.tv_nsec = 100000000;
	nanosleep(&ts, NULL);
	pywatch_counts(w, &r2, &cpu, &mean);
	CHECK(r2 == r1);
	/* sampled again: read again */
	pywatch_note(w, (uint32_t)getpid(), 222, p, now_ns());
	for (int i = 0; i < 200 && r2 == r1; i++) {
		ts.tv_nsec = 5000000;
		nanosleep(&ts, NULL);
		pywatch_counts(w, &r2, &cpu, &mean);
	}
	CHECK(r2 > r1);
	pywatch_free(w);
	/* --python-rate: the mean is the one asked for, but never under the sampling period */
	w = pywatch_new(1000000, 4000000);
	pywatch_counts(w, &r1, &cpu, &mean);
	CHECK(mean == 4000000);
	pywatch_free(w);
	w = pywatch_new(10000000, 1000000);
	pywatch_counts(w, &r1, &cpu, &mean);
	CHECK(mean == 10000000);
	pywatch_free(w);
	/* quitting does not wait out an interval of a low rate: 120 s here (each drawn from 60 to
	 * 180 s), so a free that waited for it takes a minute at least, far beyond the 30 s that
	 * only a hung machine takes */
	w = pywatch_new(1000000, 120000000000ull);
	pywatch_note(w, (uint32_t)getpid(), 222, p, now_ns());
	ts.tv_nsec = 50000000;
	nanosleep(&ts, NULL);
	uint64_t t0 = now_ns();
	pywatch_free(w);
	CHECK(now_ns() - t0 < 30000000000ull);
}

/* The budget's rule: rounds of 20 us against 5 ms a second of the rest of perftop: 8 ms; within
 * the bounds whatever the figures (none, negative, huge, NaN). */
static void test_budget(void)
{
	const uint64_t fast = 1000000, slow = 10000000;
	CHECK(pywatch_budget_interval(20000, 5e6, 1e9, fast, slow) == 8000000);
	CHECK(pywatch_budget_interval(20000, 0, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(20000, -3e6, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(0, 5e6, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(1, 1e12, 1e9, fast, slow) == fast);
	CHECK(pywatch_budget_interval(1e12, 1, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(NAN, 5e6, 1e9, fast, slow) == slow);
}

int main(void)
{
	struct pyproc p = { .runtime = (uint64_t)(uintptr_t)runtime };
	p.lay = *pylayout_known(3, 11);
	build(&p.lay);
	test_read(&p);
	test_debug_offsets();
	test_watch(&p);
	test_budget();
	return CHECK_DONE();
}
