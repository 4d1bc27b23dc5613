/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * driver: a main() for a fuzz target without libFuzzer, for the suite's check that every harness
 * still builds (with gcc, under ASan and UBSan) and runs its seeds: driver FILE|DIR... feeds each
 * file to LLVMFuzzerTestOneInput whole, cut short at a few places and with a few bytes flipped, then
 * DRIVER_RANDOM (64) inputs of random bytes; the generator's seed is fixed, so a run is the same
 * every time. A harness that finds something aborts, which fails the test. A file named *.hex is
 * an input written as hex digits (what the fuzzers found, kept in fuzz/regress/TARGET/): '#' starts
 * a comment to the end of its line, blanks are skipped.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_MAX (1u << 20)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned long inputs;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void one(const uint8_t *p, size_t n)
{
	/* a heap copy of exactly n bytes: ASan sees a read past the input's end */
	uint8_t *c = malloc(n ? n : 1);
	memcpy(c, p, n);
	LLVMFuzzerTestOneInput(c, n);
	free(c);
	inputs++;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A *.hex file's bytes into b (in place: never longer than its text). */
static size_t unhex(uint8_t *b, size_t n)
{
	size_t o = 0;
	int hi = -1;
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '#') {
			while (i < n && b[i] != '\n')
				i++;
			continue;
		}
		int v = hexval(b[i]);
		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			b[o++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return o;
}

static void file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	uint8_t *b = malloc(FILE_MAX);
	size_t n = fread(b, 1, FILE_MAX, f);
	fclose(f);
	size_t plen = strlen(path);
	if (plen > 4 && !strcmp(path + plen - 4, ".hex"))
		n = unhex(b, n);
	one(b, n);
	one(b, n / 2);
	one(b, n / 4 + 1 < n ? n / 4 + 1 : n);
	for (int k = 0; k < 4 && n; k++) {
		uint8_t *m = malloc(n);
		memcpy(m, b, n);
		for (int i = 0; i < 8; i++)
			m[next() % n] ^= (uint8_t)(1u << (next() % 8));
		one(m, n);
		free(m);
	}
	free(b);
}

static void path_arg(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		file(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		path_arg(sub);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		path_arg(argv[i]);
	const char *r = getenv("DRIVER_RANDOM");
	unsigned long nrand = r ? strtoul(r, NULL, 10) : 64;
	uint8_t buf[1024];
	for (unsigned long i = 0; i < nrand; i++) {
		size_t n = next() % sizeof(buf);
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)next();
		one(buf, n);
	}
	printf("driver: %lu inputs\n", inputs);
	return 0;
}
