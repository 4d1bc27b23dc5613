/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pyread: the reader of CPython's memory on a fake interpreter built in this process's own
 * memory with 3.11's layout (the table's): a runtime, an interpreter, two thread states, a chain
 * of frames with an entry frame (two eval-loop calls), code objects whose type is named "code",
 * names in ASCII and in UCS-2, a location table. process_vm_readv on our own pid reads it as it
 * reads a Python's. Also: a 3.13 _Py_DebugOffsets image read into a layout (and what is refused),
 * and the watcher thread (pywatch) reading the fake thread on its clock, idle once it is no longer
 * sampled and woken by the next sample (its TSan twin checks the handover under the mutex).
 *
 * And 3.9's layout (3.8-3.10: frame objects, thread states named by pthread_t, whose tid is read
 * from a fake struct pthread), then made hostile: frame chains that loop, wild and unmapped
 * pointers, lengths of 2^62 at the end of a mapping, a thread-state list that loops, garbage
 * f_lasti; the three line-table decoders on the tables of pysplit.py's inner and of functions with
 * ranges without a line, as pyenv's 3.9.18 and 3.10.13 compiled them, and on random bytes (under
 * ASan in the _asan twin: every read must stay inside the table given).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* pyread_stack against pyread_thread and pyread_frames: the same frames; calls > 0: in that many
 * reads of process memory. */
static void check_stack(const struct pyproc *p, uint32_t tid, struct pyread_hint *h, uint64_t calls)
{
	pid_t self = getpid();
	struct pyraw want[8], got[8];
	struct py_io io;
	uint64_t ts = 0, frame = 0;
	int n = pyread_thread(self, p, tid, &ts, &frame);
	if (n == 0 && frame)
		n = pyread_frames(self, p, frame, want, 8);
	py_io_take(&io);
	int m = pyread_stack(self, p, tid, h, got, 8);
	py_io_take(&io);
	CHECK(n == m);
	for (int i = 0; i < n && i < m; i++)
		CHECK(want[i].code == got[i].code && want[i].instr == got[i].instr &&
		      want[i].group == got[i].group);
	if (calls && io.calls != calls)
		fprintf(stderr, "tid %u: %llu reads, not %llu\n", tid, (unsigned long long)io.calls,
			(unsigned long long)calls);
	if (calls)
		CHECK(io.calls == calls);
}

/* A thread's stack read again from what its last read went through: one read when nothing moved,
 * right when its frame, its _PyCFrame or its thread state did. */
static void test_stack(const struct pyproc *p)
{
	static uint8_t cframe2[0x20];
	const struct pylayout *l = &p->lay;
	struct pyread_hint h = { 0 };
	check_stack(p, 222, &h, 0);
	check_stack(p, 222, &h, 0);  /* the walk from the interpreter does not say the _PyCFrame */
	check_stack(p, 222, &h, 1);
	put64(cframe, l->cf_current_frame, frames[1]);
	check_stack(p, 222, &h, 0);
	put64(cframe2, l->cf_current_frame, frames[2]);
	put64(ts_b, l->ts_cframe, cframe2);
	check_stack(p, 222, &h, 0);
	put64(ts_b, l->ts_cframe, cframe);
	check_stack(p, 222, &h, 0);
	check_stack(p, 222, &h, 1);  /* both _PyCFrames are guessed, the frames' spans too */
	put64(cframe, l->cf_current_frame, frames[0]);
	/* the thread state found last is another thread's now */
	put_u64(ts_b, l->ts_native_tid, 111);
	put_u64(ts_a, l->ts_native_tid, 222);
	check_stack(p, 222, &h, 0);
	put_u64(ts_a, l->ts_native_tid, 111);
	put_u64(ts_b, l->ts_native_tid, 222);
	check_stack(p, 222, &h, 0);
	/* these frames lie outward at higher addresses (a data stack's the other way): the walk
	 * reads one more time before its spans hold them all */
	check_stack(p, 222, &h, 0);
	check_stack(p, 222, &h, 1);
	check_stack(p, 333, &h, 0);  /* none */
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
	put_u64(img, 200, 0xa0);
	/* a field that says it is absent (no 3.13's does): as u_ascii_size, a read's length of
	 * 2^64 - 1 into a 96-byte buffer */
	put_u64(img, 560, UINT64_MAX);
	CHECK(pylayout_from_debug(img, sizeof(img), &l) < 0);
	CHECK(pylayout_known(3, 11) && pylayout_known(3, 12) && !pylayout_known(3, 7));
}

static void test_watch(const struct pyproc *p)
{
	struct pywatch *w = pywatch_new(1000000, 0);
	uint64_t gap = 0;
	struct pyraw raw[8];
	CHECK(pywatch_lookup(w, (uint32_t)getpid(), 222, now_ns(), raw, 8, &gap) == -1);
	/* noted again at each wait, as the session notes a thread it keeps sampling: a single note
	 * lapses after WATCH_IDLE_NS, and a thread started slowly (TSan on a loaded machine: 250 ms
	 * seen) would find nothing left to read */
	int n = -1;
	for (int i = 0; i < 200 && n < 0; i++) {
		pywatch_note(w, (uint32_t)getpid(), 222, p, now_ns());
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
		n = pywatch_lookup(w, (uint32_t)getpid(), 222, now_ns(), raw, 8, &gap);
	}
	CHECK(n == 4);
	CHECK(gap < 100000000ull);
	uint64_t reads = 0, cpu = 0, mean = 0;
	struct py_io io;
	pywatch_counts(w, &reads, &cpu, &mean, &io);
	/* by budget: from 100 Hz (where it starts) up to the sampling rate at most */
	CHECK(mean >= 1000000 && mean <= 10000000);
	CHECK(reads > 0);
	/* not sampled for longer than the watch lasts (200 ms): no reads, no wakeups */
	struct timespec ts = { 0, 400000000 };
	nanosleep(&ts, NULL);
	uint64_t r1 = 0, r2 = 0;
	pywatch_counts(w, &r1, &cpu, &mean, &io);
	ts.tv_nsec = 100000000;
	nanosleep(&ts, NULL);
	pywatch_counts(w, &r2, &cpu, &mean, &io);
	CHECK(r2 == r1);
	/* sampled again: read again */
	for (int i = 0; i < 200 && r2 == r1; i++) {
		pywatch_note(w, (uint32_t)getpid(), 222, p, now_ns());
		ts.tv_nsec = 5000000;
		nanosleep(&ts, NULL);
		pywatch_counts(w, &r2, &cpu, &mean, &io);
	}
	CHECK(r2 > r1);
	pywatch_free(w);
	/* --python-rate: the mean is the one asked for, but never under the sampling period */
	w = pywatch_new(1000000, 4000000);
	pywatch_counts(w, &r1, &cpu, &mean, &io);
	CHECK(mean == 4000000);
	pywatch_free(w);
	w = pywatch_new(10000000, 1000000);
	pywatch_counts(w, &r1, &cpu, &mean, &io);
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

/* The budget's rule: rounds of 20 us against 10 ms a second of the rest of perftop (a quarter of it:
 * 2.5 ms, 125 rounds): 8 ms; within the bounds whatever the figures (none, negative, huge, NaN). */
static void test_budget(void)
{
	const uint64_t fast = 1000000, slow = 10000000;
	CHECK(pywatch_budget_interval(20000, 1e7, 1e9, fast, slow) == 8000000);
	CHECK(pywatch_budget_interval(20000, 0, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(20000, -3e6, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(0, 5e6, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(1, 1e12, 1e9, fast, slow) == fast);
	CHECK(pywatch_budget_interval(1e12, 1, 1e9, fast, slow) == slow);
	CHECK(pywatch_budget_interval(NAN, 5e6, 1e9, fast, slow) == slow);
	/* never faster than 1 kHz, whatever the sampling rate; a slower sampling rate stands */
	CHECK(pywatch_fastest(250000) == 1000000);
	CHECK(pywatch_fastest(1000000) == 1000000);
	CHECK(pywatch_fastest(4000000) == 4000000);
}

/* The nearest read, as the walk from the newest read found it before the bisection: every read at
 * or after time is looked at, newest first, then the first one before it; a strictly nearer one
 * wins. */
static uint64_t nearest_walk(const uint64_t *times, uint64_t ring, uint64_t n, uint64_t have,
			     uint64_t time)
{
	uint64_t best = 0, best_gap = UINT64_MAX;
	for (uint64_t k = 1; k <= have; k++) {
		uint64_t t = times[(n - k) % ring];
		uint64_t d = t > time ? t - time : time - t;
		if (d < best_gap) {
			best_gap = d;
			best = k;
		}
		if (t < time)
			break;
	}
	return best;
}

/* pywatch_nearest against that walk: rings that wrapped or not, reads at equal times, sample
 * times before, among and after the reads, ties halfway between two. */
static void test_nearest(void)
{
	enum { RING = 16 };
	uint64_t times[RING], x = 88172645463325252ull;
	for (int round = 0; round < 2000; round++) {
		uint64_t n = 1 + (uint64_t)round % 40, have = n < RING ? n : RING;
		have -= (uint64_t)round % 3 == 0 && have > 1 ? (uint64_t)round % have : 0;
		uint64_t t = 1000;
		for (uint64_t i = n - have; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			t += (x % 4 == 0) ? 0 : 2 * (x % 7);  /* even steps: a tie can fall halfway */
			times[i % RING] = t;
		}
		for (uint64_t q = 990; q <= t + 10; q++) {
			uint64_t a = pywatch_nearest(times, RING, n, have, q);
			uint64_t b = nearest_walk(times, RING, n, have, q);
			if (a != b) {
				CHECK(a == b);
				return;
			}
		}
	}
}

/* 3.9's layout: runtime -> interpreter -> two thread states (pthread_t of tids 111, 222); 222's
 * frame objects inner (code 0) <- alpha (code 1) <- <module> (code 1), f_lasti 6 (bytes). */
static uint8_t o_runtime[0x100], o_interp[0x40], o_ts[2][0x200], o_pthread[2][0x400];
static uint8_t o_frames[3][0x80], o_code[2][0xc0], o_strs[4][0x80], o_lnotab[0x40];

static void build_old(const struct pyproc *p)
{
	const struct pylayout *l = &p->lay;
	put64(o_runtime, l->rt_interp_head, o_interp);
	put64(o_interp, l->is_threads_head, o_ts[0]);
	put64(o_ts[0], l->ts_next, o_ts[1]);
	for (int t = 0; t < 2; t++) {
		put64(o_ts[t], l->ts_pthread, o_pthread[t]);
		int32_t tid = 111 * (t + 1);
		memcpy(o_pthread[t] + p->pthread_tid, &tid, 4);
	}
	put64(o_ts[1], l->ts_current_frame, o_frames[0]);
	const int codes[3] = { 0, 1, 1 };
	for (int i = 0; i < 3; i++) {
		put64(o_frames[i], l->fr_code, o_code[codes[i]]);
		put64(o_frames[i], l->fr_previous, i < 2 ? o_frames[i + 1] : NULL);
		int32_t lasti = 6;
		memcpy(o_frames[i] + l->fr_instr, &lasti, 4);
	}
	for (int c = 0; c < 2; c++) {
		put64(o_code[c], 8, type);
		put64(o_code[c], l->co_name, o_strs[2 * c]);
		put64(o_code[c], l->co_filename, o_strs[2 * c + 1]);
		put64(o_code[c], l->co_linetable, o_lnotab);
		int32_t first = 13;
		memcpy(o_code[c] + l->co_firstlineno, &first, 4);
	}
	make_str(o_strs[0], l, "inner", NULL, 5);
	make_str(o_strs[1], l, "/x/pysplit.py", NULL, 13);
	make_str(o_strs[2], l, NULL, FUNC_UCS2, 3);
	make_str(o_strs[3], l, "/x/pysplit.py", NULL, 13);
	/* pysplit.py's inner as 3.9.18 compiles it: lines 14, 15 at 4, 16 at 16, 17 at 30 */
	static const uint8_t inner39[] = { 0, 1, 4, 1, 12, 1, 14, 1 };
	put_u64(o_lnotab, 16, sizeof(inner39));
	memcpy(o_lnotab + 32, inner39, sizeof(inner39));
}

/* 3.8-3.10: the pthread's tid is read in the same read; a thread state of another thread is not
 * taken for it. */
static void test_stack_old(const struct pyproc *p)
{
	struct pyread_hint h = { 0 };
	check_stack(p, 222, &h, 0);
	check_stack(p, 222, &h, 1);
	check_stack(p, 111, &h, 0);
	check_stack(p, 111, &h, 0);
	check_stack(p, 222, &h, 0);
}

static void test_read_old(const struct pyproc *p)
{
	pid_t self = getpid();
	uint64_t ts = 0, frame = 0;
	CHECK(pyread_thread(self, p, 222, &ts, &frame) == 0);
	CHECK(ts == (uint64_t)(uintptr_t)o_ts[1] && frame == (uint64_t)(uintptr_t)o_frames[0]);
	CHECK(pyread_thread(self, p, 222, &ts, &frame) == 0);
	uint64_t other = 0;
	CHECK(pyread_thread(self, p, 111, &other, &frame) == 0 && frame == 0);
	other = 0;
	CHECK(pyread_thread(self, p, 333, &other, &frame) == -ESRCH && other == 0);

	struct pyraw raw[8];
	CHECK(pyread_frames(self, p, (uint64_t)(uintptr_t)o_frames[0], raw, 8) == 3);
	/* one eval-loop call each */
	CHECK(raw[0].group == 0 && raw[1].group == 1 && raw[2].group == 2);
	CHECK(raw[0].code == (uint64_t)(uintptr_t)o_code[0] && raw[0].instr == 6);
	uint64_t code_type = 0;
	struct pycode_head h;
	CHECK(pyread_code_head(self, p, raw[0].code, &code_type, &h) == 0 && h.firstlineno == 13);
	char q[64], f[64];
	CHECK(pyread_names(self, p, &h, q, sizeof(q), f, sizeof(f)) == 0);
	CHECK_STR(q, "inner");
	CHECK_STR(f, "/x/pysplit.py");
	CHECK(pyread_code_head(self, p, raw[1].code, &code_type, &h) == 0);
	CHECK(pyread_names(self, p, &h, q, sizeof(q), f, sizeof(f)) == 0);
	CHECK_STR(q, "f\xc6\x92n");
	uint8_t t[64];
	int len = pyread_linetable(self, p, h.linetable, t, sizeof(t));
	CHECK(len == 8);
	CHECK(pyread_line_at(&p->lay, raw[0].code, t, len, 13, raw[0].instr) == 15);
	CHECK(pyread_line_at(&p->lay, raw[0].code, t, len, 13, 0) == 14);
	CHECK(pyread_line_at(&p->lay, raw[0].code, t, len, 13, 16) == 16);
	CHECK(pyread_line_at(&p->lay, raw[0].code, t, len, 13, 33) == 17);
	/* 3.10 counts f_lasti in code units: 3 is byte 6 */
	struct pyproc p310 = *p;
	p310.lay = *pylayout_known(3, 10);
	int32_t lasti = 3;
	memcpy(o_frames[0] + p310.lay.fr_instr, &lasti, 4);
	CHECK(pyread_frames(self, &p310, (uint64_t)(uintptr_t)o_frames[0], raw, 8) == 3);
	CHECK(raw[0].instr == 6);
}

/* The line decoders on real tables (pyenv's 3.10.13), then on random bytes of every length. */
static void test_lines_old(void)
{
	struct pylayout l310 = *pylayout_known(3, 10), l39 = *pylayout_known(3, 9);
	/* inner: (0, 4) 14, (4, 16) 15, (16, 30) 16, (30, 34) 17 */
	static const uint8_t inner310[] = { 4, 1, 12, 1, 14, 1, 4, 1 };
	CHECK(pyread_line_at(&l310, 0, inner310, 8, 13, 0) == 14);
	CHECK(pyread_line_at(&l310, 0, inner310, 8, 13, 6) == 15);
	CHECK(pyread_line_at(&l310, 0, inner310, 8, 13, 16) == 16);
	CHECK(pyread_line_at(&l310, 0, inner310, 8, 13, 32) == 17);
	CHECK(pyread_line_at(&l310, 0, inner310, 8, 13, 34) == -1);
	/* a with block: lines go back (deltas -1, -2) */
	static const uint8_t with310[] = { 6, 1, 6, 1, 10, 255, 4, 2, 16, 254, 4, 2 };
	const int with_at[] = { 0, 6, 12, 22, 26, 44 }, with_line[] = { 2, 3, 2, 4, 2, 4 };
	for (int i = 0; i < 6; i++)
		CHECK(pyread_line_at(&l310, 0, with310, 12, 1, (uint64_t)with_at[i]) == with_line[i]);
	/* a generator expression: its first range has no line (-128), and the next one's line is
	 * counted from the line before it */
	static const uint8_t gen310[] = { 2, 128, 22, 0 };
	CHECK(pyread_line_at(&l310, 0, gen310, 4, 681, 0) == -1);
	CHECK(pyread_line_at(&l310, 0, gen310, 4, 681, 10) == 681);
	/* garbage: every decoder reads only inside the table, whatever the bytes and the offset */
	uint64_t rng = 88172645463325252ull;
	struct pylayout l311 = *pylayout_known(3, 11);
	for (int round = 0; round < 20000; round++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int len = (int)(rng % 40);
		uint8_t *tab = malloc(len ? (size_t)len : 1);
		for (int i = 0; i < len; i++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			tab[i] = (uint8_t)rng;
		}
		uint64_t at = rng >> 40;
		int a = pyread_line_at(&l39, 0, tab, len, 1, at);
		int b = pyread_line_at(&l310, 0, tab, len, 1, at);
		int c = pyread_line_at(&l311, 0x1000, tab, len, 1, 0x1000 + l311.co_code_adaptive + at);
		CHECK(a >= -1 && a <= 1 + 127 * 20 && b >= -1 && b <= 1 + 127 * 20 && c >= -1);
		free(tab);
	}
}


/* A page of memory followed by one that cannot be read: what lies at its end is read short. */
static uint8_t *edge_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	CHECK(m != MAP_FAILED);
	CHECK(mprotect(m + pg, (size_t)pg, PROT_NONE) == 0);
	return m;
}

/* 3.9's layout, hostile: every walk ends, in bounded time, without reading outside what it was
 * given, and refuses what it cannot trust. */
static void test_hostile_old(const struct pyproc *p)
{
	const struct pylayout *l = &p->lay;
	pid_t self = getpid();
	struct pyraw raw[300];
	uint64_t f0 = (uint64_t)(uintptr_t)o_frames[0];
	/* cycles: to itself, and from the outermost back to the innermost */
	put64(o_frames[0], l->fr_previous, o_frames[0]);
	CHECK(pyread_frames(self, p, f0, raw, 300) == -ELOOP);
	put64(o_frames[0], l->fr_previous, o_frames[1]);
	put64(o_frames[2], l->fr_previous, o_frames[0]);
	CHECK(pyread_frames(self, p, f0, raw, 300) == -ELOOP);
	/* wild f_back: past user space (where addr + size wraps), unmapped, and at a page's end */
	const uint64_t wild[3] = { UINT64_MAX - 16, 0x10, 0 };
	uint8_t *edge = edge_page();
	long pg = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < 3; i++) {
		uint64_t w = wild[i] ? wild[i] : (uint64_t)(uintptr_t)(edge + pg - 40);
		put_u64(o_frames[2], l->fr_previous, w);
		CHECK(pyread_frames(self, p, f0, raw, 300) == 3);
		CHECK(pyread_frames(self, p, w, raw, 300) == -EFAULT);
	}
	put64(o_frames[2], l->fr_previous, NULL);
	/* garbage f_lasti: below -1 is the first instruction, a huge one no line of 3.10's */
	int32_t lasti = -77;
	memcpy(o_frames[0] + l->fr_instr, &lasti, 4);
	CHECK(pyread_frames(self, p, f0, raw, 300) == 3 && raw[0].instr == 0);
	lasti = INT32_MAX;
	memcpy(o_frames[0] + l->fr_instr, &lasti, 4);
	CHECK(pyread_frames(self, p, f0, raw, 300) == 3);
	static const uint8_t t310[] = { 4, 1, 12, 1 };
	CHECK(pyread_line_at(pylayout_known(3, 10), 0, t310, 4, 1, raw[0].instr * 2) == -1);
	/* a code pointer that is not one, or wild */
	uint64_t code_type = 0;
	struct pycode_head h;
	CHECK(pyread_code_head(self, p, (uint64_t)(uintptr_t)o_strs[0], &code_type, &h) == -EINVAL);
	CHECK(pyread_code_head(self, p, UINT64_MAX - 8, &code_type, &h) == -EFAULT);
	CHECK(pyread_code_head(self, p, (uint64_t)(uintptr_t)(edge + pg - 64), &code_type, &h) ==
	      -EFAULT);
	/* lengths of 2^62: a line table and a name at a mapping's end are refused, in a buffer they
	 * are cut to its capacity */
	uint8_t *bytes = edge + pg - 40, t[4096];
	put_u64(bytes, 16, 1ull << 62);
	CHECK(pyread_linetable(self, p, (uint64_t)(uintptr_t)bytes, t, sizeof(t)) == -EFAULT);
	put_u64(o_lnotab, 16, 1ull << 62);
	CHECK(pyread_linetable(self, p, (uint64_t)(uintptr_t)o_lnotab, t, 16) == 16);
	uint8_t *str = edge + pg - l->u_ascii_size - 4;
	make_str(str, l, "abcd", NULL, 4);
	put_u64(str, l->u_length, 1ull << 62);
	struct pycode_head bad = { .qualname = (uint64_t)(uintptr_t)str,
				   .filename = (uint64_t)(uintptr_t)o_strs[1] };
	char q[64], f[64];
	CHECK(pyread_names(self, p, &bad, q, sizeof(q), f, sizeof(f)) == -EFAULT);
	static uint8_t long_str[0x400];
	make_str(long_str, l, "/x/long.py", NULL, 10);
	put_u64(long_str, l->u_length, 1ull << 62);
	bad.qualname = (uint64_t)(uintptr_t)o_strs[0];
	bad.filename = (uint64_t)(uintptr_t)long_str;
	CHECK(pyread_names(self, p, &bad, q, sizeof(q), f, sizeof(f)) == 0);
	CHECK_STR(f, "/x/long.py");
	/* UCS-4 beyond Unicode (a forged str: fuzz_pyread's find) and a lone surrogate: U+FFFD, so
	 * that a name is always valid UTF-8; a real character as it is */
	static uint8_t ucs4[0x100];
	const uint32_t state = (4u << 2) | (1u << 5), cps[3] = { 0x1000000, 0xd800, 0x1f600 };
	memcpy(ucs4 + l->u_state, &state, 4);
	put_u64(ucs4, l->u_length, 3);
	memcpy(ucs4 + l->u_compact_size, cps, sizeof(cps));
	bad.filename = (uint64_t)(uintptr_t)ucs4;
	CHECK(pyread_names(self, p, &bad, q, sizeof(q), f, sizeof(f)) == 0);
	CHECK_STR(f, "\xef\xbf\xbd\xef\xbf\xbd\xf0\x9f\x98\x80");
	/* a layout whose str header is longer than the reader's buffer reads no name */
	struct pyproc wide = *p;
	wide.lay.u_ascii_size = UINT64_MAX;
	wide.lay.u_compact_size = 15;
	CHECK(pyread_names(self, &wide, &bad, q, sizeof(q), f, sizeof(f)) == -EINVAL);
	/* thread states: a wild pthread_t, a wild next, and a list that comes back on itself (walked
	 * THREADS_MAX states at most) find no thread */
	uint64_t ts = 0, frame = 0;
	put_u64(o_ts[0], l->ts_pthread, UINT64_MAX - 4);
	put_u64(o_ts[0], l->ts_next, 0x10);
	CHECK(pyread_thread(self, p, 111, &ts, &frame) == -ESRCH);
	put64(o_ts[0], l->ts_next, o_ts[1]);
	put64(o_ts[1], l->ts_next, o_ts[0]);
	CHECK(pyread_thread(self, p, 333, &ts, &frame) == -ESRCH);
	CHECK(pyread_thread(self, p, 222, &ts, &frame) == 0 && frame == f0);
	munmap(edge, 2 * (size_t)pg);
}

int main(void)
{
	struct pyproc p = { .runtime = (uint64_t)(uintptr_t)runtime };
	p.lay = *pylayout_known(3, 11);
	build(&p.lay);
	test_read(&p);
	test_stack(&p);
	test_debug_offsets();
	test_watch(&p);
	test_budget();
	test_nearest();

	struct pyproc old = { .runtime = (uint64_t)(uintptr_t)o_runtime, .pthread_tid = PY_PTHREAD_TID };
	old.lay = *pylayout_known(3, 9);
	build_old(&old);
	test_read_old(&old);
	test_stack_old(&old);
	test_lines_old();
	build_old(&old);
	test_hostile_old(&old);
	return CHECK_DONE();
}
