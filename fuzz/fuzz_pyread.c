/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_pyread: the Python frame reader (src/python/pyread.c) over made-up process images, through a
 * fake of py_read (the process_vm_readv of src/python/pymem.c, which is not linked). The input:
 *
 *   u8 layout (0..5: CPython 3.8, 3.9, 3.10, 3.11, 3.12, 3.13 from the _Py_DebugOffsets the image
 *   has at the runtime's address), 3 bytes unused, u32 the sampled tid, u64 _PyRuntime's address,
 *   u64 struct pthread's tid offset (3.8-3.10); then regions, each u64 address, u32 length and its
 *   bytes, up to 128 of them: the process's memory, nothing else readable.
 *
 * One sample's reads are made as pystacks.c makes them (pywalk.c), twice (the second from the
 * thread state found), then as the watcher makes them (pyread_stack), twice (the second from what
 * the first went through), which must find the same frames. Every read must be bounded in length, a sample's reads in number (whatever
 * cycles or lengths the image holds), frames within their maximum and groups in order, names
 * strings within their buffers and valid UTF-8, lines positive. pysnap makes seeds from real
 * processes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pywalk.h"

#define REGIONS 128
#define READ_MAX (4096 + 128)   /* frame_pages' buffer: the longest read the reader makes */
#define READS_MAX 20000         /* a sample's reads: 4096 thread states of 2-3 reads, 256 frames' 9 */

static struct { uint64_t addr; size_t len; const uint8_t *p; } reg[REGIONS];
static int nreg;
static unsigned long reads;

static void must(int cond)
{
	if (!cond)
		abort();
}

int py_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	(void)pid;
	must(len <= READ_MAX);
	must(++reads <= READS_MAX);
	for (int i = 0; i < nreg; i++)
		if (addr >= reg[i].addr && addr - reg[i].addr <= reg[i].len &&
		    len <= reg[i].len - (addr - reg[i].addr)) {
			memcpy(buf, reg[i].p + (addr - reg[i].addr), len);
			return 0;
		}
	return -EFAULT;
}

int py_readv(pid_t pid, const struct py_span *s, int n)
{
	must(n <= PY_SPANS_MAX);
	int whole = 0;
	while (whole < n && py_read(pid, s[whole].addr, s[whole].buf, s[whole].len) == 0)
		whole++;
	return whole;
}

/* Whether s is UTF-8 of Unicode scalar values (up to U+10FFFF, no surrogates). */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p, k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
			   : (c & 0xf8) == 0xf0 ? 3 : 9;
		if (k == 9)
			return false;
		uint32_t cp = k == 0 ? c : k == 1 ? (c & 0x1f) : k == 2 ? (c & 0x0f) : (c & 0x07);
		for (unsigned i = 1; i <= k; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += k + 1;
	}
	return true;
}

static void check(const struct pywalk *w)
{
	if (w->thread_rc < 0 || !w->frame)
		return;
	must(w->n <= PYWALK_MAX);
	for (int i = 0; i < w->n; i++) {
		const struct pywalk_frame *f = &w->f[i];
		must(f->raw.group >= 0 && f->raw.group <= i && (i == 0 || f->raw.group >= w->f[i - 1].raw.group));
		if (f->head_rc < 0 || f->names_rc < 0)
			continue;
		must(strlen(f->qual) < sizeof(f->qual) && strlen(f->file) < sizeof(f->file));
		must(utf8_ok(f->qual) && utf8_ok(f->file));
		must(f->lt_len <= PYWALK_LINETABLE);
		must(f->line >= -1);
	}
}

static const struct pylayout *layout(int sel, uint64_t runtime, struct pylayout *own)
{
	static const int minors[] = { 8, 9, 10, 11, 12 };
	if (sel < 5)
		return pylayout_known(3, minors[sel]);
	uint8_t buf[584];   /* 3.13's _Py_DebugOffsets, as pyproc.c reads them */
	if (py_read(1, runtime, buf, sizeof(buf)) < 0 || pylayout_from_debug(buf, sizeof(buf), own) < 0)
		return NULL;
	return own;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 24)
		return 0;
	uint32_t tid = (uint32_t)le(data + 4, 4);
	struct pyproc p = { .runtime = le(data + 8, 8), .pthread_tid = le(data + 16, 8) };
	nreg = 0;
	for (size_t off = 24; off + 12 <= size && nreg < REGIONS;) {
		size_t len = (size_t)le(data + off + 8, 4);
		if (len > size - off - 12)
			len = size - off - 12;
		reg[nreg].addr = le(data + off, 8);
		reg[nreg].len = len;
		reg[nreg].p = data + off + 12;
		nreg++;
		off += 12 + len;
	}
	reads = 0;
	struct pylayout own;
	const struct pylayout *l = layout(data[0] % 6, p.runtime, &own);
	if (!l)
		return 0;
	p.lay = *l;
	static struct pywalk w;
	reads = 0;
	pywalk_run(1, &p, tid, &w);
	check(&w);
	/* again from the thread state found, as the next sample of the thread reads */
	uint64_t ts = w.ts, frame;
	reads = 0;
	if (ts && pyread_thread(1, &p, tid, &ts, &frame) == 0)
		must(ts != 0);
	/* the watcher's reads (pyread_stack), cold then from what the first went through, must find
	 * what pywalk found: the image does not change between them */
	struct pyread_hint h = { 0 };
	static struct pyraw raw[PYWALK_MAX];
	int want = w.thread_rc < 0 ? w.thread_rc : w.frame ? w.n : 0;
	for (int round = 0; round < 2; round++) {
		reads = 0;
		int n = pyread_stack(1, &p, tid, &h, raw, PYWALK_MAX);
		must(n == want || (want < 0 && n < 0));
		for (int i = 0; i < n && i < w.n; i++)
			must(raw[i].code == w.f[i].raw.code && raw[i].instr == w.f[i].raw.instr &&
			     raw[i].group == w.f[i].raw.group);
	}
	return 0;
}
