/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The program of the PLT stub corpus (test_plt_stubs.py): calls into libc and libm, ifuncs among
 * them (sin, memmove, strchr, strlen, memcpy, memset, strcmp), one of them also through a pointer
 * (its address taken: a .plt.got entry in a dynamic link, a canonical PLT entry in a static one).
 * Run with a count, it loops in work() (a profile whose samples land on the stubs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t (*volatile take_strlen)(const char *) = strlen;
volatile double sink_d;
volatile size_t sink_z;

__attribute__((noinline)) static void work(char *buf, size_t n, double x)
{
	memmove(buf + 1, buf, n - 1);
	sink_z += strlen(buf) + (size_t)(strchr(buf, 'q') != NULL);
	sink_d += sin(x) + cos(x) + sqrt(x);
	memcpy(buf, buf + 2, 4);
	memset(buf + 8, 'a', 8);
	sink_z += take_strlen(buf) + (size_t)strcmp(buf, "abc");
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1;
	char buf[64];
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	for (long i = 0; i < iters; i++)
		work(buf, 32, (double)i);
	printf("%zu %f\n", sink_z, sink_d);
	return 0;
}
