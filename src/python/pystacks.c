/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pystacks: the processes perftop has looked at, their code objects' names, and the splice of a
 * sample's Python frames into its native chain (pystacks.h says what, pysplice.c where).
 *
 * Both tables are bounded: the processes (PY_PROCS, least recently sampled replaced) and the code
 * objects' names (direct-mapped on pid and address, a collision replaces). A code object's entry is
 * checked every PY_CODE_TRUST_NS against what the code object points at then (its qualname,
 * filename and line table objects), so an address reused by another code object is named again. A
 * process is looked at again when its executable changes (exec: the pyenv shim is bash, then
 * pyenv, then python3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "python/pystacks.h"
#include "python/pywatch.h"
#include "util/util.h"

#define PY_PROCS 512           /* -a: every process sampled, each looked at once */
#define PY_HINTS 1024
#define PY_THREADS 64          /* thread states remembered per process (by tid, direct-mapped) */
/* A thread is told to the watcher again this often at most (it is watched for 200 ms after). */
#define PY_NOTE_NS (20 * 1000000ull)
#define PY_CODES 4096
#define PY_MAX_FRAMES 256      /* Python frames of a sample at most */
#define PY_LINETABLE_MAX 4096
/* The watcher's fastest period: the sampling period, within these. A read costs a few
 * microseconds, a wakeup ~20 on a VM: 1 kHz is the most it reads (above it, samples share reads),
 * and it reads 50 times a second even when samples come less often (-F 10). */
#define PY_PERIOD_MIN_NS 1000000ull
#define PY_PERIOD_MAX_NS 20000000ull
/* A code object's names are read again after this long: in between, a code object freed and
 * another made at its address (rare: code objects live as long as their functions) would keep the
 * old names. Reading them at every sample was most of the cost. */
#define PY_CODE_TRUST_NS (1000 * 1000000ull)
/* How often a process's executable is looked at again besides the events (exec, fork, exit), which
 * say when it changed: PY_EXE_CHECK_NS, for a change whose record went unseen some other way;
 * PY_EXE_RECHECK_NS once records were lost since the last look (pystacks_records_lost), since the
 * lost ones may have been its exec's. A look is a stat of /proc/PID/exe, ~57 us on a VM: every
 * 100 ms it was 1.65% of perftop's CPU beside one Python process. */
#define PY_EXE_CHECK_NS (2000 * 1000000ull)
#define PY_EXE_RECHECK_NS (100 * 1000000ull)

/* A thread state found for a tid. */
struct pythread {
	uint32_t tid;
	uint64_t ts;
	uint64_t noted;            /* told to the watcher last */
};

/* What a process is to us. Looking at one costs system calls (its executable, its maps, the ELF
 * symbols of its interpreter): a process is looked at only once a sample's chain runs through an
 * interpreter's file (python3.X, libpython3.X.so: what pyproc_find looks for), so the short
 * processes of a build or a shell loop cost nothing, and one already gone (most of them, by the
 * time their samples come in) costs one failed stat. The events say when to look again: an exec,
 * a fork that reuses the pid, an exit (pystacks_forget). */
enum { PY_UNSEEN = 2, PY_GONE = 3 };

struct pyprocess {
	uint32_t pid;
	/* 1 a CPython read; 0 not one; -1 one that cannot be read; PY_UNSEEN not looked at yet;
	 * PY_GONE gone when looked at */
	int state;
	uint64_t probed;           /* when it was looked at */
	uint64_t exe_dev, exe_ino, exe_checked;
	struct pyproc proc;
	uint64_t code_type;
	struct pythread threads[PY_THREADS];
};

struct pycode {
	uint32_t pid;
	uint64_t code;
	uint64_t checked;          /* when its head was last read and found the same */
	struct pycode_head h;
	char sym[280];             /* "qualname (file.py)" */
	const char *isym;          /* sym interned, in generation igen (0: not yet) */
	uint64_t igen;
	char file[104];            /* file's basename */
	uint8_t *lt;               /* location table (srclines only), or NULL */
	int ltlen;
};

struct pystacks {
	uint16_t hint[PY_HINTS];   /* pid % PY_HINTS -> the slot it was found in last */
	/* Each slot's pid + 1 (0: free) and last use, apart from the slots themselves: a pid not in
	 * its hint (every new process under churn, every fork and exit told to pystacks_forget) is
	 * looked for in these 6 KiB instead of in 512 entries of several KiB each. */
	uint32_t slot_key[PY_PROCS];
	uint64_t slot_use[PY_PROCS];
	frame_rename_fn intern;
	pystacks_gen_fn intern_gen;
	void *intern_ctx;
	const char *idso;          /* PYSTACKS_DSO interned, in generation idso_gen */
	uint64_t idso_gen;
	bool srclines;
	bool lt_read;              /* source lines were asked for once: codes[].lt may be set */
	struct pywatch *watch;
	struct pyprocess procs[PY_PROCS];
	uint64_t clock;
	struct pycode *codes;      /* PY_CODES */
	struct pyraw raw[PY_MAX_FRAMES];
	struct frame py[PY_MAX_FRAMES];
	int group[PY_MAX_FRAMES];
	struct frame *out;         /* the spliced chain, room for out_cap */
	int out_cap;
	char notice[256];
	uint64_t lost_at;          /* when records were last lost (pystacks_records_lost), or 0 */
	struct pystacks_stats st;
	int last_n;                /* pystacks_last */
	const char *last_dso;
};

struct pystacks *pystacks_new(frame_rename_fn intern, pystacks_gen_fn intern_gen, void *intern_ctx,
			      uint64_t period_ns, uint64_t rate_hz)
{
	struct pystacks *p = xcalloc(1, sizeof(*p));
	if (period_ns < PY_PERIOD_MIN_NS)
		period_ns = PY_PERIOD_MIN_NS;
	if (period_ns > PY_PERIOD_MAX_NS)
		period_ns = PY_PERIOD_MAX_NS;
	p->watch = pywatch_new(period_ns, rate_hz ? 1000000000ull / rate_hz : 0);
	p->intern = intern;
	p->intern_gen = intern_gen;
	p->intern_ctx = intern_ctx;
	p->codes = xcalloc(PY_CODES, sizeof(*p->codes));
	return p;
}

void pystacks_free(struct pystacks *p)
{
	if (!p)
		return;
	pywatch_free(p->watch);
	/* Only when one may have been read: the loop touches every page of the 2 MiB table,
	 * most of which a session never wrote (a page fault each, at exit). */
	for (int i = 0; p->lt_read && i < PY_CODES; i++)
		free(p->codes[i].lt);
	free(p->codes);
	free(p->out);
	free(p);
}

void pystacks_set_srclines(struct pystacks *p, bool on)
{
	p->srclines = on;
	p->lt_read |= on; /* location tables are read only for source lines */
}

int pystacks_last(const struct pystacks *p, const struct frame **py, const int **group,
		  const char **interp_dso)
{
	*py = p->py;
	*group = p->group;
	*interp_dso = p->last_dso;
	return p->last_n;
}

const char *pystacks_notice(const struct pystacks *p)
{
	return p->notice[0] ? p->notice : NULL;
}

void pystacks_get_stats(const struct pystacks *p, struct pystacks_stats *st)
{
	struct py_io io;
	*st = p->st;
	pywatch_counts(p->watch, &st->watcher_reads, &st->watcher_cpu_ns, &st->watcher_mean_ns, &io);
	st->watcher_calls = io.calls;
	st->watcher_failed = io.failed;
	st->watcher_bytes = io.bytes;
}

static void exe_id(uint32_t pid, uint64_t *dev, uint64_t *ino)
{
	char path[48];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	if (stat(path, &sb) == 0) {
		*dev = sb.st_dev;
		*ino = sb.st_ino;
	} else {
		*dev = *ino = 0;
	}
}

/* Looks at the process (again): is it a CPython we read? */
static void proc_probe(struct pystacks *p, struct pyprocess *e)
{
	char err[160];
	e->code_type = 0;
	memset(e->threads, 0, sizeof(e->threads));
	e->state = pyproc_find((pid_t)e->pid, &e->proc, err, sizeof(err));
	if (e->state < 0) {
		/* A process that exited while it was looked at (a short-lived python3: its maps read,
		 * its memory gone before the read) has nothing to tell the user: its /proc exe goes
		 * with its memory, so a failure after that is the exit, not an interpreter unread. */
		uint64_t dev, ino;
		exe_id(e->pid, &dev, &ino);
		if (!dev && !ino) {
			e->state = PY_GONE;
			return;
		}
		snprintf(p->notice, sizeof(p->notice), "python: pid %u (%.60s): %.150s, native frames only",
			 e->pid, e->proc.dso, err);
	}
}

/* Does the sample's chain run through an interpreter's file (pyproc.c's names)? */
static bool chain_in_interp(const struct frame *frames, int n)
{
	for (int i = 0; i < n; i++) {
		const char *d = frames[i].dso;
		if (!frames[i].kernel && d &&
		    (!strncmp(d, "python3", 7) || (!strncmp(d, "libpython3.", 11) && strstr(d, ".so"))))
			return true;
	}
	return false;
}

/* The slot of pid, or -1. */
static int proc_slot(const struct pystacks *p, uint32_t pid)
{
	uint32_t key = pid + 1;
	if (key == 0)
		return -1;  /* pid -1 (no process): kept as a free slot, never found */
	int h = p->hint[pid % PY_HINTS];
	if (p->slot_key[h] == key)
		return h;
	for (int i = 0; i < PY_PROCS; i++)
		if (p->slot_key[i] == key)
			return i;
	return -1;
}

void pystacks_records_lost(struct pystacks *p, uint64_t time)
{
	p->lost_at = time ? time : now_ns();
}

/* Is a look at a process's executable due, the last one made at last? */
static bool exe_due(const struct pystacks *p, uint64_t last, uint64_t now)
{
	uint64_t after = p->lost_at > last ? PY_EXE_RECHECK_NS : PY_EXE_CHECK_NS;
	return now - last > after;
}

/* The process's entry: looked at when a sample of it first runs through an interpreter, and again
 * when its executable changes (exec: the pyenv shim is bash, then pyenv, then python3; told by the
 * events, and checked besides them (exe_due) for an exec whose record was lost; not its command,
 * which differs between a process's threads). */
static struct pyprocess *proc_entry(struct pystacks *p, uint32_t pid, uint64_t now,
				    const struct frame *frames, int n)
{
	uint16_t *hint = &p->hint[pid % PY_HINTS];
	int i = proc_slot(p, pid);
	if (i < 0) {
		i = 0;  /* a free slot, else the least recently used */
		for (int j = 0; j < PY_PROCS && p->slot_key[i]; j++)
			if (!p->slot_key[j] || p->slot_use[j] < p->slot_use[i])
				i = j;
		struct pyprocess *e = &p->procs[i];
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->state = PY_UNSEEN;
		p->slot_key[i] = pid + 1;
	}
	struct pyprocess *e = &p->procs[i];
	*hint = (uint16_t)i;
	p->slot_use[i] = ++p->clock;
	bool probe = false;
	if (e->state == PY_UNSEEN || e->state == PY_GONE) {
		/* gone: its pid may be another's now, if the fork's record was lost */
		probe = (e->state == PY_UNSEEN || exe_due(p, e->probed, now)) &&
			chain_in_interp(frames, n);
	} else if (exe_due(p, e->exe_checked, now)) {
		uint64_t dev, ino;
		exe_id(pid, &dev, &ino);
		e->exe_checked = now;
		probe = dev != e->exe_dev || ino != e->exe_ino;
	}
	if (probe) {
		exe_id(pid, &e->exe_dev, &e->exe_ino);
		e->exe_checked = e->probed = now;
		if (!e->exe_dev && !e->exe_ino)
			e->state = PY_GONE;  /* nothing to look at (or a kernel thread) */
		else
			proc_probe(p, e);
	}
	return e;
}

void pystacks_forget(struct pystacks *p, uint32_t pid)
{
	int i = proc_slot(p, pid);
	if (i < 0)
		return;
	p->slot_key[i] = 0;
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The names of code object raw->code, from the cache or read. NULL when it is not readable. */
static struct pycode *code_names(struct pystacks *p, struct pyprocess *e, const struct pyraw *raw,
				 uint64_t now)
{
	struct pycode_head h;
	pid_t pid = (pid_t)e->pid;
	uint64_t key = (raw->code >> 4) * 0x9e3779b97f4a7c15ull ^ e->pid;
	struct pycode *c = &p->codes[(key >> 32) % PY_CODES];
	bool same = c->pid == e->pid && c->code == raw->code;
	if (same && now - c->checked < PY_CODE_TRUST_NS)
		return c;
	if (pyread_code_head(pid, &e->proc, raw->code, &e->code_type, &h) < 0)
		return NULL;
	if (same && c->h.qualname == h.qualname && c->h.filename == h.filename &&
	    c->h.linetable == h.linetable) {
		c->checked = now;
		return c;
	}
	char qual[160], file[512];
	if (pyread_names(pid, &e->proc, &h, qual, sizeof(qual), file, sizeof(file)) < 0)
		return NULL;
	free(c->lt);
	memset(c, 0, sizeof(*c));
	c->pid = e->pid;
	c->code = raw->code;
	c->checked = now;
	c->h = h;
	snprintf(c->file, sizeof(c->file), "%.100s", basename_of(file));
	snprintf(c->sym, sizeof(c->sym), "%s (%s)", qual, c->file);
	return c;
}

/* "file.py:LINE" of the frame, or NULL when the line cannot be told. */
static const char *code_line(struct pyprocess *e, struct pycode *c, const struct pyraw *raw,
			     char *buf, size_t cap)
{
	if (!c->lt && c->ltlen == 0) {
		uint8_t *t = xmalloc(PY_LINETABLE_MAX);
		int len = pyread_linetable((pid_t)e->pid, &e->proc, c->h.linetable, t, PY_LINETABLE_MAX);
		if (len <= 0) {
			free(t);
			c->ltlen = -1;
		} else {
			c->lt = t;
			c->ltlen = len;
		}
	}
	if (!c->lt)
		return NULL;
	int line = pyread_line_at(&e->proc.lay, c->code, c->lt, c->ltlen, c->h.firstlineno, raw->instr);
	if (line < 0)
		return NULL;
	snprintf(buf, cap, "%s:%d", c->file, line);
	return buf;
}

/* How far from its sample's time a stack was read. */
static void note_gap(struct pystacks *p, uint64_t gap)
{
	static const uint64_t edges_us[7] = { 100, 500, 1000, 2000, 5000, 20000, 50000 };
	int b = 0;
	while (b < 7 && gap >= edges_us[b] * 1000ull)
		b++;
	p->st.gap_hist[b]++;
	p->st.gap_n++;
	p->st.gap_sum_ns += gap;
	if (gap > p->st.gap_max_ns)
		p->st.gap_max_ns = gap;
}

/* The sampled thread's Python frames as read: the watcher's read nearest to the sample's time;
 * else, for a sample without a time, one made now. A sample the watcher has no read near (a
 * thread's first samples, before the watcher reads it: they come 10-35 ms late) keeps its native
 * frames: a stack read now would be another moment's (a process's start-up samples would get the
 * stack its script runs later). */
static int raw_stack(struct pystacks *p, struct pyprocess *e, uint32_t tid, uint64_t time)
{
	pid_t pid = (pid_t)e->pid;
	uint64_t now = now_ns(), gap = 0;
	struct pythread *t = &e->threads[tid % PY_THREADS];
	if (t->tid != tid)
		*t = (struct pythread){ .tid = tid };
	if (!t->noted || now - t->noted >= PY_NOTE_NS) {
		pywatch_note(p->watch, e->pid, tid, &e->proc, now);
		t->noted = now;
	}
	int nraw = time ? pywatch_lookup(p->watch, e->pid, tid, time, p->raw, PY_MAX_FRAMES, &gap) : -1;
	if (nraw >= 0) {
		note_gap(p, gap);
		return nraw;
	}
	p->st.late++;
	if (time)
		return 0;
	uint64_t ts = t->ts, frame = 0;
	int rc = pyread_thread(pid, &e->proc, tid, &ts, &frame);
	t->ts = ts;
	if (rc < 0 || !frame) {
		if (rc < 0 && rc != -ESRCH)
			p->st.read_failed++;
		return 0;
	}
	nraw = pyread_frames(pid, &e->proc, frame, p->raw, PY_MAX_FRAMES);
	if (nraw <= 0)
		p->st.read_failed++;
	return nraw > 0 ? nraw : 0;
}

/* The Python frames of the sampled thread into p->py and p->group: their count (0: none). */
static int read_stack(struct pystacks *p, struct pyprocess *e, uint32_t tid, uint64_t time)
{
	int nraw = raw_stack(p, e, tid, time);
	if (nraw == 0)
		return 0;
	/* Interning hashes the whole name: done at every frame of every sample, it was a fifth of the
	 * session's cost of Python frames. A name's pointer holds until the pool's next compaction. */
	uint64_t gen = p->intern_gen(p->intern_ctx), now = now_ns();
	if (!p->idso || p->idso_gen != gen) {
		p->idso = p->intern(p->intern_ctx, PYSTACKS_DSO);
		p->idso_gen = gen;
	}
	int n = 0;
	for (int i = 0; i < nraw; i++) {
		struct pycode *c = code_names(p, e, &p->raw[i], now);
		if (!c) {
			p->st.read_failed++;
			return 0;  /* a torn or misread stack: native frames rather than half of one */
		}
		char line[sizeof(c->file) + 16];
		const char *src = p->srclines ? code_line(e, c, &p->raw[i], line, sizeof(line)) : NULL;
		if (!c->isym || c->igen != gen) {
			c->isym = p->intern(p->intern_ctx, c->sym);
			c->igen = gen;
		}
		p->py[n] = (struct frame){
			.sym = c->isym,
			.dso = p->idso,
			.srcline = src ? p->intern(p->intern_ctx, src) : NULL,
			.addr = p->raw[i].code,
		};
		p->group[n] = p->raw[i].group;
		n++;
	}
	return n;
}

static int sample_python(struct pystacks *p, uint32_t pid, uint32_t tid, uint64_t time,
			 struct frame *frames, int n, int max)
{
	struct pyprocess *e = proc_entry(p, pid, time ? time : now_ns(), frames, n);
	p->last_n = 0;
	if (e->state != 1)
		return n;
	p->st.samples++;
	int npy = read_stack(p, e, tid, time);
	if (npy == 0)
		return n;
	p->st.with_python++;
	p->last_n = npy;
	p->last_dso = e->proc.dso;
	if (p->out_cap < max) {
		free(p->out);
		p->out = xmalloc((size_t)max * sizeof(*p->out));
		p->out_cap = max;
	}
	int k = pystacks_splice(frames, n, p->py, p->group, npy, e->proc.dso, p->out, max);
	memcpy(frames, p->out, (size_t)k * sizeof(*frames));
	return k;
}

int pystacks_sample(struct pystacks *p, uint32_t pid, uint32_t tid, uint64_t time,
		    struct frame *frames, int n, int max)
{
	int k = sample_python(p, pid, tid, time, frames, n, max);
	struct py_io io;
	py_io_take(&io);  /* this thread's reads, counted here to keep pymem.c lock-free */
	p->st.session_calls += io.calls;
	p->st.session_failed += io.failed;
	p->st.session_bytes += io.bytes;
	return k;
}
