/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_kernel_cache: the parsed /proc/kallsyms table is cached for the boot (kernel.c). A second
 * load comes from the cache and resolves the same names; a damaged or foreign cache is ignored and
 * the table is read from /proc/kallsyms again; damage inside the mapped table gives no names or wrong
 * ones, never a read out of bounds.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "symbolize/intern.h"
#include "symbolize/kernel.h"
#include "util/util.h"

/* A global text symbol from kallsyms (its address), for lookups. */
static int find_text_symbol(const char *want, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int found = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && (type == 'T' || type == 't') &&
		    !strcmp(name, want) && a) {
			*addr = a;
			found = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void check_lookup(struct intern *in, uint64_t addr, const char *want, int want_cache)
{
	struct kernel *k = kernel_new(in, NULL);
	struct frame fr = {0};
	CHECK(kernel_lookup(k, addr + 4, &fr) == 1);
	CHECK_STR(fr.sym, want);
	CHECK_STR(fr.dso, "[kernel.kallsyms]");
	CHECK(kernel_from_cache(k) == want_cache);
	kernel_free(k);
}

int main(void)
{
	uint64_t addr;
	if (!find_text_symbol("schedule", &addr)) {
		printf("SKIP: /proc/kallsyms has no addresses here (kptr_restrict)\n");
		return 77;
	}
	char dir[] = "/tmp/perftop-kcache-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	setenv("PERFTOP_CACHE_DIR", dir, 1);
	char path[256];
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	struct intern *in = intern_new();

	check_lookup(in, addr, "schedule", 0);  /* first load: from /proc, writes the cache */
	CHECK(access(path, R_OK) == 0);
	check_lookup(in, addr, "schedule", 1);  /* second: from the cache */

	/* Damaged: cut in the middle. */
	CHECK(truncate(path, 4000) == 0);
	check_lookup(in, addr, "schedule", 0);
	check_lookup(in, addr, "schedule", 1);  /* rewritten */

	/* Another boot's cache: flip a byte of the boot id. */
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	char c;
	CHECK(pread(fd, &c, 1, 8) == 1);
	c ^= 1;
	CHECK(pwrite(fd, &c, 1, 8) == 1);
	close(fd);
	check_lookup(in, addr, "schedule", 0);
	check_lookup(in, addr, "schedule", 1);

	/* Damaged inside the entries (the mapped table is not checked entry by entry at load): name
	 * offsets and dso indices out of range give no name, never a read outside the file (ASan twin). */
	fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	static unsigned char junk[1 << 16];
	memset(junk, 0xff, sizeof(junk));
	CHECK(pwrite(fd, junk, sizeof(junk), 80 + 4096) == (ssize_t)sizeof(junk));
	close(fd);
	struct kernel *k = kernel_new(in, NULL);
	struct frame fr = {0};
	for (uint64_t a = 0xffffffff80000000ull; a < 0xffffffffc0000000ull; a += 0x100000)
		if (kernel_lookup(k, a, &fr) == 1)
			CHECK(fr.sym != NULL && fr.dso != NULL);
	kernel_lookup(k, addr + 4, &fr);
	kernel_free(k);

	unlink(path);
	rmdir(dir);
	intern_free(in);
	return CHECK_DONE();
}
