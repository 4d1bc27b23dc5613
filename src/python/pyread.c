/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pyread: a thread's Python frames, read from its process's memory.
 *
 * The thread state is the one whose native_thread_id is the sampled tid (in the interpreter's list
 * of thread states; the caller keeps the last one found per thread, checked again at each read).
 * Its current frame leads along previous pointers through the _PyInterpreterFrames of every Python
 * call of the thread. Frames the interpreter runs for its own C stack (owner FRAME_OWNED_BY_CSTACK,
 * 3.12+) are not Python functions: they, or 3.11's is_entry flag, mark where one C call of the eval
 * loop ends and the next one outward begins (pysplice.c uses that). Every pointer followed is read
 * with a bounded length and checked where it can be (the code object's type is "code"), so that a
 * torn read (the thread moved on while we read) ends the walk instead of following garbage; a walk
 * that comes back to a frame it passed (a cycle: only a torn read makes one) is refused whole.
 *
 * 3.8-3.10 differ: a thread state names its thread by pthread_t only, whose tid is read from
 * glibc's struct pthread (pyproc.c says where); its frame is a PyFrameObject, whose f_back leads
 * outward, and every Python call is a C call of the eval loop of its own (each frame is a run of
 * one). The instruction is f_lasti, an index into the code's bytes (3.10: in code units), and the
 * line comes from co_lnotab (3.8, 3.9) or 3.10's co_linetable (Objects/lnotab_notes.txt of each
 * version).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "python/pyread.h"

#define TS_READ 0x100       /* bytes of a PyThreadState read at once: every field we follow */
#define FR_READ 80          /* of an _PyInterpreterFrame */
#define FR_MAX 128          /* of any frame (a PyFrameObject: what the layout's fields need) */
#define CO_READ 0xd0        /* of a PyCodeObject at most (what the layout's fields need) */
#define THREADS_MAX 4096    /* thread states walked at most */
#define TYPE_TP_NAME 24     /* PyTypeObject.tp_name (after PyVarObject's head) */
#define BYTES_SVAL 32       /* PyBytesObject.ob_sval (3.11 to 3.13) */
#define PY_USER_END (1ull << 56) /* no user address is this high (x86-64 with 5-level tables) */

static uint64_t at_u64(const uint8_t *buf, uint64_t off)
{
	uint64_t v;
	memcpy(&v, buf + off, sizeof(v));
	return v;
}

static bool fits(uint64_t off, size_t size, size_t len)
{
	return off != PY_NO_FIELD && off + size <= len;
}

/* Is the thread state in buf thread tid's? By its native id, else (3.8-3.10) by the tid in the
 * struct pthread its pthread_t points at. */
static bool py_ts_tid(pid_t pid, const struct pyproc *p, const uint8_t *buf, uint32_t tid)
{
	const struct pylayout *l = &p->lay;
	if (l->ts_native_tid != PY_NO_FIELD)
		return fits(l->ts_native_tid, 8, TS_READ) && at_u64(buf, l->ts_native_tid) == tid;
	if (!fits(l->ts_pthread, 8, TS_READ) || p->pthread_tid >= 4096)
		return false;
	uint64_t thread = at_u64(buf, l->ts_pthread);
	int32_t got = 0;
	return thread && thread < PY_USER_END &&
	       py_read(pid, thread + p->pthread_tid, &got, sizeof(got)) == 0 && (uint32_t)got == tid;
}

/* Thread state at ts, read into buf: 1 when it is thread tid's (its current frame in *frame), 0
 * when it is not or its frame cannot be read (buf holds the state), -1 when it cannot be read. */
static int py_ts_is(pid_t pid, const struct pyproc *p, uint64_t ts, uint32_t tid, uint8_t *buf,
		    uint64_t *frame)
{
	const struct pylayout *l = &p->lay;
	if (ts >= PY_USER_END || py_read(pid, ts, buf, TS_READ) < 0)
		return -1;
	if (!py_ts_tid(pid, p, buf, tid))
		return 0;
	if (l->ts_current_frame != PY_NO_FIELD) {
		*frame = fits(l->ts_current_frame, 8, TS_READ) ? at_u64(buf, l->ts_current_frame) : 0;
		return 1;
	}
	uint64_t cf = fits(l->ts_cframe, 8, TS_READ) ? at_u64(buf, l->ts_cframe) : 0;
	*frame = 0;
	return !cf || py_read(pid, cf + l->cf_current_frame, frame, 8) == 0 ? 1 : 0;
}

int pyread_thread(pid_t pid, const struct pyproc *p, uint32_t tid, uint64_t *ts, uint64_t *frame)
{
	const struct pylayout *l = &p->lay;
	uint8_t buf[TS_READ];
	if (*ts && py_ts_is(pid, p, *ts, tid, buf, frame) > 0)
		return 0;
	uint64_t interp = 0, cur = 0;
	int rc = py_read(pid, p->runtime + l->rt_interp_head, &interp, 8);
	if (rc < 0)
		return rc;
	if (!interp || (rc = py_read(pid, interp + l->is_threads_head, &cur, 8)) < 0)
		return rc < 0 ? rc : -ESRCH;
	for (int i = 0; cur && i < THREADS_MAX; i++) {
		int is = py_ts_is(pid, p, cur, tid, buf, frame);
		if (is > 0) {
			*ts = cur;
			return 0;
		}
		if (!fits(l->ts_next, 8, TS_READ))
			break;
		/* next from the state py_ts_is read; when it could not read that much, next alone */
		if (is == 0)
			cur = at_u64(buf, l->ts_next);
		else if (py_read(pid, cur + l->ts_next, &cur, 8) < 0)
			break;
	}
	*ts = 0;
	return -ESRCH;  /* a thread that runs no Python (or not yet) */
}

/* The frame at addr: from a span read before (frames of one thread lie together in its data
 * stack: one read brings the frames of a page, all of them for most stacks; a generator's frame
 * lies in its object), else read with the rest of its page below it into the next of the spans.
 * size: the bytes of a frame the layout reads (at most FR_MAX). */
#define SPAN_MAX (4096 + FR_MAX)
#define HINT_DEEPER 512     /* a few frames of 3.11+ (80 bytes and the locals each) */

struct frame_pages {
	struct fspan {
		uint64_t lo, hi;   /* remote addresses held in buf; lo == hi: none */
		bool used;         /* a frame of this walk came from it: */
		uint64_t ulo, uhi; /* from these addresses */
		uint8_t buf[SPAN_MAX];
	} s[PY_HINT_SPANS];
	int next;                  /* the span a miss reads into when all were used */
	size_t size;
};

static void span_use(struct fspan *f, uint64_t addr, size_t size)
{
	if (!f->used || addr < f->ulo)
		f->ulo = addr;
	if (!f->used || addr + size > f->uhi)
		f->uhi = addr + size;
	f->used = true;
}

static const uint8_t *frame_at(pid_t pid, struct frame_pages *pg, uint64_t addr)
{
	/* A frame pointer read while the thread moved on can be anything: one past the end of user
	 * space (2^56 on x86-64) would make addr + size wrap, pass the test below and send the
	 * read far outside buf (a crash of the watcher thread, seen in CI); it ends the walk. */
	if (addr >= PY_USER_END)
		return NULL;
	for (int i = 0; i < PY_HINT_SPANS; i++) {
		struct fspan *f = &pg->s[i];
		if (addr >= f->lo && addr + pg->size <= f->hi) {
			span_use(f, addr, pg->size);
			return f->buf + (addr - f->lo);
		}
	}
	/* into a span no frame of this walk came from yet (empty, or a guess that missed) */
	int k = -1;
	for (int i = 0; i < PY_HINT_SPANS && k < 0; i++)
		if (!pg->s[i].used)
			k = i;
	if (k < 0) {
		k = pg->next;
		pg->next = (pg->next + 1) % PY_HINT_SPANS;
	}
	struct fspan *f = &pg->s[k];
	uint64_t lo = addr & ~(uint64_t)4095, hi = addr + pg->size;
	f->lo = f->hi = 0;
	if (py_read(pid, lo, f->buf, hi - lo) < 0) {
		lo = addr;  /* the page start may lie in another mapping: the frame alone */
		if (py_read(pid, lo, f->buf, pg->size) < 0)
			return NULL;
	}
	f->lo = lo;
	f->hi = hi;
	f->used = false;
	span_use(f, addr, pg->size);
	return f->buf + (addr - lo);
}

/* Brent's cycle finder over the frames a walk passes: true when addr was passed before (found
 * within twice the cycle's length and its start, in constant memory). */
struct cycle {
	uint64_t saved;
	unsigned power, steps;
};

static bool cycle_seen(struct cycle *c, uint64_t addr)
{
	if (addr == c->saved)
		return true;
	if (++c->steps == c->power) {
		c->saved = addr;
		c->power *= 2;
		c->steps = 0;
	}
	return false;
}

/* The byte offset of the instruction a PyFrameObject's f_lasti (an int in buf) says: -1 (not
 * started) and garbage below it are its first instruction. */
static uint64_t lasti_offset(const struct pylayout *l, const uint8_t *buf)
{
	int32_t lasti;
	memcpy(&lasti, buf + l->fr_instr, sizeof(lasti));
	return lasti > 0 ? (uint64_t)lasti * (uint64_t)l->lasti_unit : 0;
}

/* 3.8-3.10: each frame object is a C call of the eval loop of its own, so a group of its own. */
static int frames_objects(pid_t pid, const struct pylayout *l, struct frame_pages *pg,
			  uint64_t frame, struct pyraw *out, int max)
{
	struct cycle cy = { .saved = 0, .power = 1, .steps = 0 };
	uint64_t need = l->fr_instr + 4;
	if (l->fr_code + 8 > need)
		need = l->fr_code + 8;
	if (l->fr_previous + 8 > need)
		need = l->fr_previous + 8;
	if (l->fr_code == PY_NO_FIELD || l->fr_previous == PY_NO_FIELD || l->fr_instr == PY_NO_FIELD ||
	    need > FR_MAX || l->lasti_unit < 1)
		return -EINVAL;
	pg->size = (size_t)need;
	int n = 0;
	for (; frame && n < max; n++) {
		if (cycle_seen(&cy, frame))
			return -ELOOP;
		const uint8_t *buf = frame_at(pid, pg, frame);
		if (!buf)
			return n > 0 ? n : -EFAULT;
		out[n].code = at_u64(buf, l->fr_code);
		out[n].instr = lasti_offset(l, buf);
		out[n].group = n;
		frame = at_u64(buf, l->fr_previous);
	}
	return n;
}

/* The walk of pyread_frames, from the spans in pg. */
static int frames_walk(pid_t pid, const struct pyproc *p, struct frame_pages *pg, uint64_t frame,
		       struct pyraw *out, int max)
{
	const struct pylayout *l = &p->lay;
	if (l->frame_objects)
		return frames_objects(pid, l, pg, frame, out, max);
	int n = 0, group = 0;
	bool seen_py = false;
	pg->size = FR_READ;
	struct cycle cy = { .saved = 0, .power = 1, .steps = 0 };
	if (!fits(l->fr_owner, 1, FR_READ) || !fits(l->fr_previous, 8, FR_READ) ||
	    !fits(l->fr_code, 8, FR_READ) || !fits(l->fr_instr, 8, FR_READ))
		return -EINVAL;
	for (int hops = 0; frame && n < max && hops < 4 * max; hops++) {
		if (cycle_seen(&cy, frame))
			return -ELOOP;
		const uint8_t *buf = frame_at(pid, pg, frame);
		if (!buf)
			return n > 0 ? n : -EFAULT;
		uint8_t owner = buf[l->fr_owner];
		uint64_t next = at_u64(buf, l->fr_previous);
		if (owner == PY_OWNED_BY_CSTACK) {
			/* the eval loop's entry shim: the next frame out is run by another C call */
			if (seen_py)
				group++;
			seen_py = false;
			frame = next;
			continue;
		}
		out[n].code = at_u64(buf, l->fr_code);
		out[n].instr = at_u64(buf, l->fr_instr);
		out[n].group = group;
		n++;
		seen_py = true;
		if (l->fr_is_entry != PY_NO_FIELD && buf[l->fr_is_entry]) {
			group++;
			seen_py = false;
		}
		frame = next;
	}
	return n;
}

int pyread_frames(pid_t pid, const struct pyproc *p, uint64_t frame, struct pyraw *out, int max)
{
	static _Thread_local struct frame_pages pg;  /* 13 KiB: not on the stack of every caller */
	for (int i = 0; i < PY_HINT_SPANS; i++)
		pg.s[i].lo = pg.s[i].hi = 0;
	pg.next = 0;
	return frames_walk(pid, p, &pg, frame, out, max);
}

/* The spans of pg the walk took frames from, as h's spans for the next read: from the outermost
 * frame read from each to HINT_DEEPER bytes past its innermost, where the next deeper frames of
 * the data stack will be, within its page (mapped, since a frame was read from it). */
static void hint_spans(struct pyread_hint *h, const struct frame_pages *pg)
{
	int k = 0;
	for (int i = 0; i < PY_HINT_SPANS; i++) {
		const struct fspan *f = &pg->s[i];
		if (!f->used || f->hi <= f->lo)
			continue;
		uint64_t end = (f->ulo & ~(uint64_t)4095) + 4096;
		uint64_t hi = f->uhi + HINT_DEEPER < end ? f->uhi + HINT_DEEPER : end;
		h->lo[k] = f->ulo;
		h->hi[k] = f->uhi > hi ? f->uhi : hi;
		k++;
	}
	for (; k < PY_HINT_SPANS; k++)
		h->lo[k] = h->hi[k] = 0;
}

/* The thread state and current frame from the speculative read (ts in tsb, the pthread's tid in
 * ptid, the guessed _PyCFrames' current frames in cfv: what of them was read, by got): 1 when
 * it is thread tid's with *frame set, 0 when the reads do not say so. */
static int stack_guessed(pid_t pid, const struct pyproc *p, struct pyread_hint *h, uint32_t tid,
			 const uint8_t *tsb, uint32_t ptid, const uint64_t *cfv, const bool *cfok,
			 uint64_t *frame)
{
	const struct pylayout *l = &p->lay;
	if (l->ts_native_tid != PY_NO_FIELD) {
		if (!fits(l->ts_native_tid, 8, TS_READ) || at_u64(tsb, l->ts_native_tid) != tid)
			return 0;
	} else if (!fits(l->ts_pthread, 8, TS_READ) || !h->pthread ||
		   at_u64(tsb, l->ts_pthread) != h->pthread || ptid != tid) {
		return 0;
	}
	if (l->ts_current_frame != PY_NO_FIELD) {
		*frame = fits(l->ts_current_frame, 8, TS_READ) ? at_u64(tsb, l->ts_current_frame) : 0;
		return 1;
	}
	uint64_t cf = fits(l->ts_cframe, 8, TS_READ) ? at_u64(tsb, l->ts_cframe) : 0;
	*frame = 0;
	if (!cf)
		return 1;
	for (int i = 0; i < 2; i++)
		if (cfok[i] && h->cframe[i] == cf) {
			*frame = cfv[i];
			return 1;
		}
	if (cf >= PY_USER_END || py_read(pid, cf + l->cf_current_frame, frame, 8) < 0)
		return 0;
	h->cframe[1] = h->cframe[0];
	h->cframe[0] = cf;
	return 1;
}

int pyread_stack(pid_t pid, const struct pyproc *p, uint32_t tid, struct pyread_hint *h,
		 struct pyraw *out, int max)
{
	const struct pylayout *l = &p->lay;
	static _Thread_local struct frame_pages pg;
	uint8_t tsb[TS_READ];
	uint32_t ptid = 0;
	uint64_t cfv[2] = { 0, 0 }, frame = 0;
	bool cfok[2] = { false, false };
	struct py_span sp[PY_SPANS_MAX];
	int ns = 0, at_ptid = -1, at_cf[2] = { -1, -1 }, at_span[PY_HINT_SPANS];
	pg.next = 0;
	for (int i = 0; i < PY_HINT_SPANS; i++) {
		pg.s[i].lo = pg.s[i].hi = 0;
		pg.s[i].used = false;
		at_span[i] = -1;
	}
	/* What the last read of the thread went through, read again in one go: its thread state,
	 * what its tid or current frame was read from, the pages of its frames. */
	if (h->ts && h->ts < PY_USER_END) {
		sp[ns++] = (struct py_span){ h->ts, tsb, TS_READ };
		if (l->ts_native_tid == PY_NO_FIELD && h->pthread && h->pthread < PY_USER_END &&
		    p->pthread_tid < 4096) {
			at_ptid = ns;
			sp[ns++] = (struct py_span){ h->pthread + p->pthread_tid, &ptid, sizeof(ptid) };
		}
		for (int i = 0; i < 2 && l->ts_current_frame == PY_NO_FIELD; i++)
			if (h->cframe[i] && h->cframe[i] < PY_USER_END) {
				at_cf[i] = ns;
				sp[ns++] = (struct py_span){ h->cframe[i] + l->cf_current_frame, &cfv[i], 8 };
			}
		for (int i = 0; i < PY_HINT_SPANS; i++)
			if (h->hi[i] > h->lo[i] && h->hi[i] - h->lo[i] <= SPAN_MAX && h->hi[i] < PY_USER_END) {
				at_span[i] = ns;
				sp[ns++] = (struct py_span){ h->lo[i], pg.s[i].buf, h->hi[i] - h->lo[i] };
			}
	}
	int got = ns ? py_readv(pid, sp, ns) : 0;
	for (int i = 0; i < PY_HINT_SPANS; i++)
		if (at_span[i] >= 0 && at_span[i] < got) {
			pg.s[i].lo = h->lo[i];
			pg.s[i].hi = h->hi[i];
		}
	for (int i = 0; i < 2; i++)
		cfok[i] = at_cf[i] >= 0 && at_cf[i] < got;
	if (at_ptid >= 0 && at_ptid >= got)
		ptid = 0;
	int rc = 0;
	if (got < 1 || !stack_guessed(pid, p, h, tid, tsb, ptid, cfv, cfok, &frame)) {
		/* another thread state, or one that moved: looked for again */
		if ((rc = pyread_thread(pid, p, tid, &h->ts, &frame)) < 0)
			return rc;
		h->pthread = 0;
		if (l->ts_native_tid == PY_NO_FIELD && h->ts &&
		    py_read(pid, h->ts + l->ts_pthread, &h->pthread, 8) < 0)
			h->pthread = 0;
	}
	int n = frame ? frames_walk(pid, p, &pg, frame, out, max) : 0;
	if (n >= 0)
		hint_spans(h, &pg);
	return n;
}

/* A str object's text as UTF-8 (compact ones: every name and file name of a code object). */
static int py_str(pid_t pid, const struct pylayout *l, uint64_t obj, char *out, size_t cap)
{
	uint8_t head[96];
	/* the ASCII header only (state and length are in it): a short name of 3.8-3.12, whose object
	 * is smaller than a PyCompactUnicodeObject, may end its mapping */
	if (!fits(l->u_state, 4, l->u_ascii_size) || !fits(l->u_length, 8, l->u_ascii_size) ||
	    l->u_ascii_size > sizeof(head) || l->u_compact_size > sizeof(head))
		return -EINVAL;
	if (!obj || obj >= PY_USER_END || py_read(pid, obj, head, l->u_ascii_size) < 0)
		return -EFAULT;
	uint32_t state;
	memcpy(&state, head + l->u_state, sizeof(state));
	uint64_t len = at_u64(head, l->u_length);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL;
	uint64_t data = obj + (ascii ? l->u_ascii_size : l->u_compact_size);
	uint8_t raw[512];
	size_t chars = len < sizeof(raw) / kind ? (size_t)len : sizeof(raw) / kind;
	if (py_read(pid, data, raw, chars * kind) < 0)
		return -EFAULT;
	size_t o = 0;
	for (size_t i = 0; i < chars; i++) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ? (uint32_t)(raw[2 * i] | raw[2 * i + 1] << 8)
			   : (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
				     (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		/* What is no Unicode scalar value (past U+10FFFF: no CPython str holds one, so a torn
		 * read or a forged object; a lone surrogate, which a str may hold) would make the name
		 * invalid UTF-8, which the exports and the terminal then choke on: U+FFFD instead. */
		if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			c = 0xfffd;
		char enc[4];
		size_t k;
		if (c < 0x80) {
			enc[0] = (char)c, k = 1;
		} else if (c < 0x800) {
			enc[0] = (char)(0xc0 | c >> 6), enc[1] = (char)(0x80 | (c & 0x3f)), k = 2;
		} else if (c < 0x10000) {
			enc[0] = (char)(0xe0 | c >> 12), enc[1] = (char)(0x80 | (c >> 6 & 0x3f));
			enc[2] = (char)(0x80 | (c & 0x3f)), k = 3;
		} else {
			enc[0] = (char)(0xf0 | (c >> 18 & 7)), enc[1] = (char)(0x80 | (c >> 12 & 0x3f));
			enc[2] = (char)(0x80 | (c >> 6 & 0x3f)), enc[3] = (char)(0x80 | (c & 0x3f)), k = 4;
		}
		if (o + k >= cap)
			break;
		memcpy(out + o, enc, k);
		o += k;
	}
	out[o] = 0;
	return 0;
}

/* Is the object at type the type named "code"? */
static bool py_is_code_type(pid_t pid, uint64_t type)
{
	uint64_t name = 0;
	char buf[5];
	return type && py_read(pid, type + TYPE_TP_NAME, &name, 8) == 0 && name &&
	       py_read(pid, name, buf, 5) == 0 && !memcmp(buf, "code", 5);
}

int pyread_code_head(pid_t pid, const struct pyproc *p, uint64_t code, uint64_t *code_type,
		     struct pycode_head *h)
{
	const struct pylayout *l = &p->lay;
	uint8_t buf[CO_READ];
	/* what the fields need, not more: a 3.8-3.10 code object (176 bytes) may end a mapping */
	uint64_t need = 16;
	const uint64_t ends[] = { l->co_qualname + 8, l->co_filename + 8, l->co_linetable + 8,
				  l->co_firstlineno + 4 };
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (ends[i] > need)
			need = ends[i];
	if (need > CO_READ)
		return -EINVAL;
	if (!code || code >= PY_USER_END || py_read(pid, code, buf, (size_t)need) < 0)
		return -EFAULT;
	uint64_t type = at_u64(buf, 8);
	if (!type || type != *code_type) {
		if (!py_is_code_type(pid, type))
			return -EINVAL;  /* not a code object: a torn read, or a layout that does not fit */
		*code_type = type;
	}
	if (!fits(l->co_qualname, 8, need) || !fits(l->co_filename, 8, need) ||
	    !fits(l->co_firstlineno, 4, need) || !fits(l->co_linetable, 8, need))
		return -EINVAL;
	h->qualname = at_u64(buf, l->co_qualname);
	h->filename = at_u64(buf, l->co_filename);
	h->linetable = at_u64(buf, l->co_linetable);
	int32_t first;
	memcpy(&first, buf + l->co_firstlineno, sizeof(first));
	h->firstlineno = first;
	return 0;
}

int pyread_names(pid_t pid, const struct pyproc *p, const struct pycode_head *h, char *qualname,
		 size_t qcap, char *filename, size_t fcap)
{
	int rc = py_str(pid, &p->lay, h->qualname, qualname, qcap);
	if (rc == 0)
		rc = py_str(pid, &p->lay, h->filename, filename, fcap);
	return rc;
}

int pyread_linetable(pid_t pid, const struct pyproc *p, uint64_t linetable, uint8_t *buf, size_t cap)
{
	(void)p;
	uint64_t len = 0;
	if (!linetable || py_read(pid, linetable + 16, &len, 8) < 0)
		return -EFAULT;
	if (len > cap)
		len = cap;  /* the lines of the first part of a very long function only */
	return py_read(pid, linetable + BYTES_SVAL, buf, (size_t)len) < 0 ? -EFAULT : (int)len;
}

/* Location table varints: 6 bits a byte, 0x40 says another byte follows. */
static uint32_t lt_varint(const uint8_t *t, int len, int *i)
{
	uint32_t v = 0;
	for (int shift = 0; *i < len && shift < 32; shift += 6) {
		uint8_t b = t[(*i)++];
		v |= (uint32_t)(b & 0x3f) << shift;
		if (!(b & 0x40))
			break;
	}
	return v;
}

static int32_t lt_svarint(const uint8_t *t, int len, int *i)
{
	uint32_t u = lt_varint(t, len, i);
	return u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/*
 * The line of code unit index unit in a 3.11+ location table (Objects/locations.md): entries of a
 * first byte 1CCCCLLL (code C, L+1 code units) and the code's operands. Codes 0-9: same line, one
 * column byte; 10-12: line + C-10, two column bytes; 13: line delta, no column; 14: line delta,
 * end line delta, two columns (varints); 15: no location.
 */
int pyread_line(const uint8_t *t, int len, int firstlineno, uint64_t unit)
{
	int64_t line = firstlineno;  /* wide: deltas of a hostile table add up past an int */
	int i = 0;
	uint64_t at = 0;
	while (i < len) {
		uint8_t b = t[i++];
		if (!(b & 0x80))
			return -1;  /* not at an entry's first byte: a table we misread */
		int code = (b >> 3) & 15, units = (b & 7) + 1;
		int64_t this_line = line;
		if (code <= 9) {
			i += 1;
		} else if (code <= 12) {
			this_line = line += code - 10;
			i += 2;
		} else if (code == 13) {
			this_line = line += lt_svarint(t, len, &i);
		} else if (code == 14) {
			this_line = line += lt_svarint(t, len, &i);
			lt_varint(t, len, &i);
			lt_varint(t, len, &i);
			lt_varint(t, len, &i);
		} else {
			this_line = -1;
		}
		if (unit < at + (uint64_t)units)
			return this_line >= 0 && this_line <= INT32_MAX ? (int)this_line : -1;
		at += (uint64_t)units;
	}
	return -1;
}

/* 3.8, 3.9's co_lnotab: pairs of (byte offset increment, signed line increment); the line of
 * offset at is the one reached before the offset passes it. */
static int lnotab_line(const uint8_t *t, int len, int firstlineno, uint64_t at)
{
	int64_t line = firstlineno;
	uint64_t addr = 0;
	for (int i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > at)
			break;
		line += (int8_t)t[i + 1];
	}
	return line >= 0 && line <= INT32_MAX ? (int)line : -1;
}

/* 3.10's co_linetable: pairs of (range length in bytes, signed line delta), -128 for a range
 * without a line (which leaves the running line as it was). */
static int linetable310_line(const uint8_t *t, int len, int firstlineno, uint64_t at)
{
	int64_t line = firstlineno;
	uint64_t start = 0;
	for (int i = 0; i + 1 < len; i += 2) {
		uint64_t end = start + t[i];
		int8_t delta = (int8_t)t[i + 1];
		if (delta != -128)
			line += delta;
		if (at >= start && at < end)
			return delta == -128 || line < 0 || line > INT32_MAX ? -1 : (int)line;
		start = end;
	}
	return -1;
}

int pyread_line_at(const struct pylayout *l, uint64_t code, const uint8_t *t, int len,
		   int firstlineno, uint64_t instr)
{
	if (l->lines == PY_LINES_LNOTAB)
		return lnotab_line(t, len, firstlineno, instr);
	if (l->lines == PY_LINES_310)
		return linetable310_line(t, len, firstlineno, instr);
	if (l->co_code_adaptive == PY_NO_FIELD || code >= PY_USER_END)
		return -1;
	uint64_t start = code + l->co_code_adaptive;
	if (instr < start)
		return -1;
	return pyread_line(t, len, firstlineno, (instr - start) / 2);
}
