/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitspin: a tiny "JIT" for the process-name tests. It writes a jump-to-itself instruction into
 * anonymous executable memory, names that code in /tmp/perf-PID.map (PID as the process itself sees
 * it, as a real JIT does: inside a pid namespace that is its namespace's pid), and spins there in a
 * thread for SECONDS. Built static so that it also runs chrooted into an empty directory.
 *
 *   jitspin SECONDS [nomap]
 *
 * With nomap it writes no map: the test plants what lies at the name (tests/procnames/
 * test_planted_map.py), and the ready line gives the code's address after the pid.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *spin(void *code)
{
	((void (*)(void))code)();  /* never returns: the code jumps to itself */
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memset(code, 0x90, 64);       /* nops, then the loop */
	code[32] = 0xeb;              /* jmp . */
	code[33] = 0xfe;
	bool nomap = argc > 2 && !strcmp(argv[2], "nomap");
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!nomap) {
		FILE *f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "%lx 40 fakejit_spin_loop [jitted]\n", (unsigned long)(code));
		fclose(f);
	}
	pthread_t t;
	if (pthread_create(&t, NULL, spin, code) != 0)
		return 1;
	printf("ready %d %lx\n", (int)getpid(), (unsigned long)code);
	fflush(stdout);
	sleep(secs);
	if (!nomap)
		unlink(path);
	_exit(0);
}
