/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_perfdata_write: the perf.data writer on its own. Encoding a synthesized struct rec back into
 * kernel record bytes must parse back to the same record (so perf and our reader see what the
 * kernel would have sent); a written file has perf's header layout, mode 0600, the previous file
 * kept as .old, feature sections at the end, and reads back through our perf.data reader with the
 * build-id of the binary a sample hit. The tracing data section, over a fake tracefs, has the
 * layout perf reads, only the recorded events' formats, and is not made when tracefs or a format
 * is missing. perf itself judges real recordings in the python tests next to this.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "check.h"
#include "record/parse.h"
#include "perfdata/format.h"
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_tracing.h"
#include "perfdata/perfdata_write.h"

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

union recbuf {
	struct rec rec;
	unsigned char bytes[sizeof(struct rec) + PATH_MAX + 64];
};

static void attr_init(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_freq = 999;
	a->freq = 1;
	a->sample_type = ST;
	a->sample_id_all = 1;
	a->mmap = a->mmap2 = a->comm = a->task = 1;
}

static struct rec *make_comm(union recbuf *b, uint32_t pid, uint32_t tid, const char *name,
                             bool exec)
{
	struct rec *r = &b->rec;
	memset(b, 0, sizeof(*b));
	r->size = sizeof(*r);
	r->type = REC_COMM;
	r->perf_type = PERF_RECORD_COMM;
	r->misc = PERF_RECORD_MISC_USER;
	r->pid = pid;
	r->tid = tid;
	r->cpu = REC_NO_CPU;
	r->u.comm.pid = pid;
	r->u.comm.tid = tid;
	r->u.comm.exec = exec;
	snprintf(r->u.comm.comm, sizeof(r->u.comm.comm), "%s", name);
	return r;
}

static struct rec *make_mmap(union recbuf *b, uint32_t pid, uint64_t start, uint64_t len,
                             const char *path, bool mmap2, bool build_id)
{
	struct rec *r = &b->rec;
	size_t n = strlen(path);
	memset(b, 0, sizeof(*b));
	r->type = REC_MMAP;
	r->perf_type = mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	r->misc = PERF_RECORD_MISC_USER;
	r->pid = r->tid = pid;
	r->cpu = REC_NO_CPU;
	r->u.mmap.pid = r->u.mmap.tid = pid;
	r->u.mmap.start = start;
	r->u.mmap.len = len;
	r->u.mmap.pgoff = 0x1000;
	r->u.mmap.is_mmap2 = mmap2;
	r->u.mmap.executable = 1;
	if (mmap2) {
		r->u.mmap.prot = PROT_READ | PROT_EXEC;
		r->u.mmap.flags = MAP_PRIVATE;
		if (build_id) {
			r->u.mmap.has_build_id = 1;
			r->u.mmap.build_id_size = 20;
			for (int i = 0; i < 20; i++)
				r->u.mmap.build_id[i] = (uint8_t)(0xa0 + i);
		} else {
			r->u.mmap.maj = 8;
			r->u.mmap.min = 3;
			r->u.mmap.ino = 123456;
			r->u.mmap.ino_generation = 7;
		}
	}
	r->u.mmap.filename_off = sizeof(*r);
	memcpy(b->bytes + sizeof(*r), path, n + 1);
	r->size = (uint32_t)(sizeof(*r) + ((n + 8) & ~(size_t)7));
	return r;
}

/* encode -> parse gives back the fields a reader needs. */
static void test_round_trip(void)
{
	struct perf_event_attr a;
	struct parse_cfg cfg;
	union recbuf in, out;
	unsigned char raw[512];
	size_t n;

	attr_init(&a);
	parse_cfg_init(&cfg, &a, 0);

	make_comm(&in, 42, 43, "worker", true);
	n = perfdata_encode_rec(&in.rec, ST, true, 777, raw, sizeof(raw));
	/* header 8 + pid/tid 8 + "worker\0" padded to 8 + trailer (tid 8, time 8, cpu 8, id 8) */
	CHECK_EQ_U64(n, 8 + 8 + 8 + 32);
	CHECK(parse_record(&cfg, raw, n, &out.rec, sizeof(out)) == 0);
	CHECK_EQ_U64(out.rec.type, REC_COMM);
	CHECK_EQ_U64(out.rec.u.comm.pid, 42);
	CHECK_EQ_U64(out.rec.u.comm.tid, 43);
	CHECK(out.rec.u.comm.exec);
	CHECK_STR(out.rec.u.comm.comm, "worker");
	CHECK_EQ_U64(out.rec.id, 777);
	CHECK_EQ_U64(out.rec.pid, 42);

	for (int form = 0; form < 3; form++) {
		bool mmap2 = form > 0, bid = form == 2;
		make_mmap(&in, 9, 0x400000, 0x2000, "/usr/lib/libexample.so.1", mmap2, bid);
		n = perfdata_encode_rec(&in.rec, ST, true, 5, raw, sizeof(raw));
		CHECK(n > 0 && n % 8 == 0);
		CHECK(parse_record(&cfg, raw, n, &out.rec, sizeof(out)) == 0);
		CHECK_EQ_U64(out.rec.type, REC_MMAP);
		CHECK_EQ_U64(out.rec.perf_type, mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP);
		CHECK_EQ_U64(out.rec.u.mmap.pid, 9);
		CHECK_EQ_U64(out.rec.u.mmap.start, 0x400000);
		CHECK_EQ_U64(out.rec.u.mmap.len, 0x2000);
		CHECK_EQ_U64(out.rec.u.mmap.pgoff, 0x1000);
		CHECK_STR(rec_filename(&out.rec), "/usr/lib/libexample.so.1");
		CHECK_EQ_U64(out.rec.id, 5);
		if (mmap2 && bid) {
			CHECK(out.rec.u.mmap.has_build_id);
			CHECK_EQ_U64(out.rec.u.mmap.build_id_size, 20);
			CHECK(memcmp(out.rec.u.mmap.build_id, in.rec.u.mmap.build_id, 20) == 0);
		} else if (mmap2) {
			CHECK_EQ_U64(out.rec.u.mmap.ino, 123456);
			CHECK_EQ_U64(out.rec.u.mmap.maj, 8);
			CHECK_EQ_U64(out.rec.u.mmap.prot, PROT_READ | PROT_EXEC);
		}
	}

	/* a cgroup, as the sampler synthesizes the existing ones: id and path, 8-aligned */
	memset(&in, 0, sizeof(in));
	in.rec.type = REC_CGROUP;
	in.rec.perf_type = PERF_RECORD_CGROUP;
	in.rec.cpu = REC_NO_CPU;
	in.rec.u.cgroup.id = 0x1234;
	in.rec.u.cgroup.path_off = sizeof(in.rec);
	memcpy(in.bytes + sizeof(in.rec), "/docker/abcdef", 15);
	in.rec.size = sizeof(in.rec) + 16;
	n = perfdata_encode_rec(&in.rec, ST, true, 6, raw, sizeof(raw));
	/* header 8 + id 8 + "/docker/abcdef\0" padded to 16 + trailer 32 */
	CHECK_EQ_U64(n, 8 + 8 + 16 + 32);
	CHECK(parse_record(&cfg, raw, n, &out.rec, sizeof(out)) == 0);
	CHECK_EQ_U64(out.rec.type, REC_CGROUP);
	CHECK_EQ_U64(out.rec.u.cgroup.id, 0x1234);
	CHECK_STR(rec_cgroup_path(&out.rec), "/docker/abcdef");
	CHECK_EQ_U64(out.rec.id, 6);

	/* no room, or a type that has no synthesized form */
	make_comm(&in, 1, 1, "x", false);
	CHECK_EQ_U64(perfdata_encode_rec(&in.rec, ST, true, 1, raw, 20), 0);
	in.rec.type = REC_SAMPLE;
	CHECK_EQ_U64(perfdata_encode_rec(&in.rec, ST, true, 1, raw, sizeof(raw)), 0);
	/* without sample_id_all there is no trailer */
	make_comm(&in, 1, 1, "x", false);
	CHECK_EQ_U64(perfdata_encode_rec(&in.rec, ST, false, 1, raw, sizeof(raw)), 8 + 8 + 8);
}

/* A raw SAMPLE as the kernel lays it out for ST: identifier, ip, pid/tid, time, cpu, period. */
static size_t raw_sample(unsigned char *p, uint64_t id, uint64_t ip, uint32_t pid, uint64_t time)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 6 * 8};
	uint64_t v[6] = {id, ip, (uint64_t)pid | ((uint64_t)pid << 32), time, 1, 1001001};
	memcpy(p, &h, 8);
	memcpy(p + 8, v, sizeof(v));
	return h.size;
}

/* The one name in dir starting with prefix (the writer's temporary), into out. */
static bool find_temporary(const char *dir, const char *prefix, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;
	while (d && (e = readdir(d)) != NULL)
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

static void test_file(void)
{
	char dir[] = "/tmp/perftop-pdw-XXXXXX", path[PATH_MAX], old[PATH_MAX + 8], exe[PATH_MAX];
	char err[256];
	struct perf_event_attr a;
	uint64_t ids[2] = {1001, 1002};
	union recbuf b;
	struct perfdata_writer *w;
	struct stat st;
	unsigned char raw[128];
	uint64_t hdr[PD_FILE_HEADER_SIZE / 8];
	ssize_t k;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.data", dir);
	snprintf(old, sizeof(old), "%s.old", path);
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(k > 0);
	exe[k > 0 ? k : 0] = '\0';

	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "old", 3) == 3);
	close(fd);

	attr_init(&a);
	struct sampler_tee_event tev = { .attr = &a, .ids = ids, .nids = 2, .name = "cpu-clock" };
	w = perfdata_writer_open(path, &tev, 1, err, sizeof(err));
	CHECK(w != NULL);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	/* while it is written it has a temporary name beside path, and path is still the old file */
	CHECK(stat(path, &st) == 0 && st.st_size == 3);
	char tmp[PATH_MAX];
	CHECK(find_temporary(dir, ".t.data.", tmp, sizeof(tmp)));
	CHECK(stat(tmp, &st) == 0 && (st.st_mode & 0777) == 0600);

	CHECK(perfdata_writer_add_rec(w, make_comm(&b, 77, 77, "tester", false)) == 0);
	perfdata_writer_note(w, &b.rec);
	CHECK(perfdata_writer_add_rec(w, make_mmap(&b, 77, 0x10000, 0x10000, exe, true, false)) ==
	      0);
	perfdata_writer_note(w, &b.rec);
	CHECK(perfdata_writer_end_pass(w, false, true) == 0);
	/* the header on disk already covers the first pass */
	fd = open(tmp, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, hdr, sizeof(hdr), 0) == PD_FILE_HEADER_SIZE);
	close(fd);
	CHECK(memcmp(&hdr[0], PD_MAGIC_TEXT, 8) == 0);
	CHECK_EQ_U64(hdr[1], PD_FILE_HEADER_SIZE);
	CHECK_EQ_U64(hdr[2], sizeof(struct perf_event_attr) + 16);
	CHECK_EQ_U64(hdr[6], perfdata_writer_bytes(w));
	CHECK(hdr[6] > 0);
	CHECK_EQ_U64(hdr[9], 0); /* no features until close: an unfinished file says so */

	{
		/* a sample in the mapping marks the test binary as hit; the parsed form feeds note
		 */
		struct parse_cfg cfg;
		union recbuf s;
		size_t n = raw_sample(raw, 1001, 0x10080, 77, 5000);
		parse_cfg_init(&cfg, &a, 0);
		CHECK(parse_record(&cfg, raw, n, &s.rec, sizeof(s)) == 0);
		perfdata_writer_add(w, raw, n);
		perfdata_writer_note(w, &s.rec);
		n = raw_sample(raw, 1002, 0x10100, 77, 6000);
		perfdata_writer_add(w, raw, n);
	}
	CHECK(perfdata_writer_end_pass(w, true, false) == 0);
	CHECK(perfdata_writer_error(w) == 0);
	CHECK(perfdata_writer_close(w, err, sizeof(err)) == 0);
	/* closed: renamed over path, the previous one kept as path.old (perf's) */
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(stat(old, &st) == 0 && st.st_size == 3);
	CHECK(!find_temporary(dir, ".t.data.", tmp, sizeof(tmp)));

	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, hdr, sizeof(hdr), 0) == PD_FILE_HEADER_SIZE);
	CHECK(fstat(fd, &st) == 0);
	close(fd);
	for (int bit = FEAT_BUILD_ID; bit <= FEAT_EVENT_DESC; bit++)
		CHECK(hdr[9] & (1ull << bit));
	CHECK((uint64_t)st.st_size > hdr[5] + hdr[6]); /* feature sections after the data */

	/* our own reader, as far as it goes */
	struct perfdata_reader *r = perfdata_open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		union recbuf o;
		int samples = 0, comms = 0, mmaps = 0, kernel = 0, ret;
		const struct perfdata_info *info = perfdata_info(r);
		CHECK_EQ_U64(perfdata_nevents(r), 1);
		CHECK_EQ_U64(perfdata_event(r, 0)->nids, 2);
		CHECK(info->hostname[0] != '\0');
		CHECK(info->nr_cpus_online > 0);
		while ((ret = perfdata_next(r, &o.rec, sizeof(o))) == 1) {
			if (o.rec.type == REC_SAMPLE)
				samples++;
			else if (o.rec.type == REC_COMM && strcmp(o.rec.u.comm.comm, "tester") == 0)
				comms++;
			else if (o.rec.type == REC_MMAP && strcmp(rec_filename(&o.rec), exe) == 0)
				mmaps++;
			else if (o.rec.type == REC_MMAP &&
			         strcmp(rec_filename(&o.rec), "[kernel.kallsyms]_text") == 0)
				kernel++;
		}
		CHECK_EQ_U64(ret, 0);
		CHECK_EQ_U64(samples, 2);
		CHECK_EQ_U64(comms, 1);
		CHECK_EQ_U64(mmaps, 1);
		CHECK_EQ_U64(kernel, 1);
		bool bid = false;
		for (size_t i = 0; i < info->nextra; i++)
			bid |= strstr(info->extra_lines[i], exe) != NULL;
		CHECK(bid); /* the build-id of the binary the sample hit */
		struct perfdata_stats ps;
		perfdata_get_stats(r, &ps);
		CHECK(!ps.truncated);
		perfdata_close(r);
	}

	/* not a regular file: refused, nothing created */
	CHECK(perfdata_writer_open(dir, &tev, 1, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a regular file") != NULL);

	unlink(path);
	unlink(old);
	rmdir(dir);
}

/* Two events: both attrs with their ids in the attr section, both names in EVENT_DESC, and each
 * sample read back as its event's (by its id); the synthesized records are the first event's. */
static void test_two_events(void)
{
	char dir[] = "/tmp/perftop-pdw2-XXXXXX", path[PATH_MAX], err[256];
	struct perf_event_attr a[2];
	uint64_t ids0[2] = { 11, 12 }, ids1[2] = { 21, 22 };
	unsigned char raw[128];
	union recbuf b;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/two.data", dir);
	attr_init(&a[0]);
	attr_init(&a[1]);
	a[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	a[1].mmap = a[1].mmap2 = a[1].comm = a[1].task = 0;
	struct sampler_tee_event tev[2] = {
		{ .attr = &a[0], .ids = ids0, .nids = 2, .name = "cpu-clock" },
		{ .attr = &a[1], .ids = ids1, .nids = 2, .name = "page-faults" },
	};
	struct perfdata_writer *w = perfdata_writer_open(path, tev, 2, err, sizeof(err));
	CHECK(w != NULL);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(perfdata_writer_add_rec(w, make_comm(&b, 77, 77, "tester", false)) == 0);
	static const uint64_t sample_ids[] = { 11, 22, 21, 12, 22 };
	for (int i = 0; i < 5; i++)
		perfdata_writer_add(w, raw, raw_sample(raw, sample_ids[i], 0x10080, 77, 5000 + i));
	CHECK(perfdata_writer_end_pass(w, true, true) == 0);
	CHECK(perfdata_writer_close(w, err, sizeof(err)) == 0);

	struct perfdata_reader *r = perfdata_open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_U64(perfdata_nevents(r), 2);
	CHECK_STR(perfdata_event(r, 0)->name, "cpu-clock");
	CHECK_STR(perfdata_event(r, 1)->name, "page-faults");
	CHECK_EQ_U64(perfdata_event(r, 1)->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_EQ_U64(perfdata_event(r, 1)->nids, 2);
	CHECK_EQ_U64(perfdata_event(r, 1)->ids[1], 22);
	union recbuf o;
	int per[2] = { 0, 0 }, comm_ev = -1, ret;
	while ((ret = perfdata_next(r, &o.rec, sizeof(o))) == 1) {
		if (o.rec.type == REC_SAMPLE && o.rec.evidx < 2)
			per[o.rec.evidx]++;
		else if (o.rec.type == REC_COMM)
			comm_ev = (int)o.rec.evidx;
	}
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(per[0], 2);
	CHECK_EQ_U64(per[1], 3);
	CHECK_EQ_U64(comm_ev, 0);
	perfdata_close(r);
	unlink(path);
	rmdir(dir);
}

/* ---- tracing data over a fake tracefs ---- */

static void put_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* the directories on the way */
	for (char *q = path + strlen(root) + 1; (q = strchr(q, '/')); q++) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(q - path), path);
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The next NUL-terminated string at *p (checked against want), then past it. */
static void td_str(const unsigned char **p, const char *want)
{
	CHECK_STR((const char *)*p, want);
	*p += strlen(want) + 1;
}

static uint64_t td_u(const unsigned char **p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, *p, n); /* host order, little-endian here as perf writes it on x86 */
	*p += n;
	return v;
}

/* {size, contents}: checks the contents are want. */
static void td_blob(const unsigned char **p, size_t nsize, const char *want)
{
	uint64_t n = td_u(p, nsize);
	CHECK_EQ_U64(n, strlen(want));
	CHECK(memcmp(*p, want, strlen(want)) == 0);
	*p += n;
}

/* A stream (pipe mode: perf record -o -, perftop -o -) carries the tracing data after a
 * HEADER_TRACING_DATA record: the reader finds sched_switch's format in it, as in a file's
 * feature, so that an off-CPU replay of a stream decodes the fields by the recording's layout. */
static void stream_tracing_data(const unsigned char *td, size_t len)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = 372,
				     .sample_period = 1, .sample_type = PERF_SAMPLE_IP |
				     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID,
				     .sample_id_all = 1 };
	size_t padded = (len + 7) & ~(size_t)7, n = 0;
	unsigned char *b = calloc(1, 16 + 8 + sizeof(a) + 8 + 16 + padded);
	uint64_t v64 = PD_PIPE_HEADER_SIZE, id = 7;
	memcpy(b, PD_MAGIC_TEXT, 8);
	memcpy(b + 8, &v64, 8);
	n = 16;
	struct perf_event_header h = { .type = PD_HEADER_ATTR, .size = (uint16_t)(8 + sizeof(a) + 8) };
	memcpy(b + n, &h, 8);
	memcpy(b + n + 8, &a, sizeof(a));
	memcpy(b + n + 8 + sizeof(a), &id, 8);
	n += h.size;
	h = (struct perf_event_header){ .type = PD_HEADER_TRACING_DATA, .size = 16 };
	uint32_t size[2] = { (uint32_t)padded, 0 };
	memcpy(b + n, &h, 8);
	memcpy(b + n + 8, size, 8);
	memcpy(b + n + 16, td, len);
	n += 16 + padded;
	char err[256];
	struct perfdata_reader *r = perfdata_open_mem(b, n, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(perfdata_info(r)->switch_format, "name: sched_switch\nFMT1");
		perfdata_close(r);
	}
	free(b);
}

static void test_tracing_data(void)
{
	char root[] = "/tmp/perftop-tracefs-XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	put_file(root, "events/header_page", "HP");
	put_file(root, "events/header_event", "HEV");
	put_file(root, "events/sched/sched_switch/id", "372\n");
	put_file(root, "events/sched/sched_switch/format", "name: sched_switch\nFMT1");
	put_file(root, "events/sched/sched_wakeup/id", "370\n");
	put_file(root, "events/sched/sched_wakeup/format", "name: sched_wakeup\nFMT2");
	put_file(root, "events/irq/irq_handler_entry/id", "12\n");
	put_file(root, "events/irq/irq_handler_entry/format", "FMT3");
	put_file(root, "events/net/other/id", "99\n");
	put_file(root, "events/net/other/format", "NOT RECORDED");
	put_file(root, "printk_formats", "PK");
	put_file(root, "saved_cmdlines", "1 init\n");

	/* a name that does not lead to its id ("irq:alias") is found by the id; a duplicate goes once */
	struct perfdata_tp tp[] = { { "sched:sched_switch", 372 }, { "irq:alias:k", 12 },
				    { "sched:sched_wakeup/period=1/", 370 }, { "sched:sched_switch", 372 } };
	unsigned char *out;
	size_t len;
	CHECK(perfdata_tracing_data(root, tp, 4, &out, &len));
	const unsigned char *p = out;
	CHECK(memcmp(p, "\027\010\104tracing", 10) == 0);
	p += 10;
	td_str(&p, "0.6");
	CHECK_EQ_U64(td_u(&p, 1), 0);
	CHECK_EQ_U64(td_u(&p, 1), sizeof(long));
	CHECK_EQ_U64(td_u(&p, 4), (uint64_t)sysconf(_SC_PAGESIZE));
	td_str(&p, "header_page");
	td_blob(&p, 8, "HP");
	td_str(&p, "header_event");
	td_blob(&p, 8, "HEV");
	CHECK_EQ_U64(td_u(&p, 4), 0); /* no ftrace events */
	CHECK_EQ_U64(td_u(&p, 4), 2); /* sched, irq */
	td_str(&p, "sched");
	CHECK_EQ_U64(td_u(&p, 4), 2);
	td_blob(&p, 8, "name: sched_switch\nFMT1");
	td_blob(&p, 8, "name: sched_wakeup\nFMT2");
	td_str(&p, "irq");
	CHECK_EQ_U64(td_u(&p, 4), 1);
	td_blob(&p, 8, "FMT3");
	CHECK_EQ_U64(td_u(&p, 4), 0); /* kallsyms */
	td_blob(&p, 4, "PK");
	td_blob(&p, 8, "1 init\n");
	CHECK_EQ_U64((uint64_t)(p - out), len);

	/* a replay finds one event's format in it by system and name; not a prefix of a name, not
	 * another system's, not past a cut */
	const unsigned char *text;
	size_t tlen;
	CHECK(perfdata_tracing_format(out, len, "sched", "sched_wakeup", &text, &tlen));
	CHECK(tlen == strlen("name: sched_wakeup\nFMT2") && !memcmp(text, "name: sched_wakeup\nFMT2", tlen));
	CHECK(perfdata_tracing_format(out, len, "sched", "sched_switch", &text, &tlen));
	CHECK(tlen == strlen("name: sched_switch\nFMT1"));
	CHECK(!perfdata_tracing_format(out, len, "sched", "sched_s", &text, &tlen));
	CHECK(!perfdata_tracing_format(out, len, "irq", "sched_switch", &text, &tlen));
	for (size_t cut = 0; cut < len; cut += 7) /* never past the cut, never a crash */
		if (perfdata_tracing_format(out, cut, "sched", "sched_wakeup", &text, &tlen))
			CHECK(text + tlen <= out + cut);
	/* written big-endian: the sizes are read in that order */
	unsigned char be[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '0', '.', '6', 0,
			       1, 8, 0, 0, 0x10, 0,
			       'h', 'e', 'a', 'd', 'e', 'r', '_', 'p', 'a', 'g', 'e', 0, 0, 0, 0, 0, 0, 0, 0, 0,
			       'h', 'e', 'a', 'd', 'e', 'r', '_', 'e', 'v', 'e', 'n', 't', 0, 0, 0, 0, 0, 0, 0, 0, 0,
			       0, 0, 0, 0, 0, 0, 0, 1, 's', 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7,
			       'n', 'a', 'm', 'e', ':', ' ', 'e' };
	CHECK(perfdata_tracing_format(be, sizeof(be), "s", "e", &text, &tlen) && tlen == 7);
	stream_tracing_data(out, len);
	free(out);

	/* an id tracefs does not have, a format that cannot be read, no tracefs: no section */
	struct perfdata_tp gone = { "sched:sched_exit", 4242 };
	CHECK(!perfdata_tracing_data(root, &gone, 1, &out, &len) && out == NULL && len == 0);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/events/irq/irq_handler_entry/format", root);
	unlink(path);
	CHECK(!perfdata_tracing_data(root, tp, 2, &out, &len) && out == NULL);
	snprintf(path, sizeof(path), "%s/nowhere", root);
	CHECK(!perfdata_tracing_data(path, tp, 1, &out, &len) && out == NULL);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	test_round_trip();
	test_file();
	test_two_events();
	test_tracing_data();
	return CHECK_DONE();
}
