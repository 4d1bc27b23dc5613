/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jitspin: a tiny "JIT" for the process-name tests. It writes a jump-to-itself instruction into
 * anonymous executable memory, names that code in /tmp/perf-PID.map (PID as the process itself sees
 * it, as a real JIT does: inside a pid namespace that is its namespace's pid), and spins there in a
 * thread for SECONDS. Built static so that it also runs chrooted into an empty directory.
 *
 *   jitspin SECONDS [nomap | dump LINK]
 *
 * With nomap it writes no map: the test plants what lies at the name (tests/procnames/
 * test_planted_map.py), and the ready line gives the code's address after the pid. With dump it
 * writes no map either; at SIGUSR1 it writes /tmp/jit-PID.dump (a header only), maps it executable
 * as a runtime does, so that the mapping names it, and then puts a symlink to LINK at that name: a
 * process planting its own dump for root to read.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static void *spin(void *code)
{
	((void (*)(void))code)();  /* never returns: the code jumps to itself */
	return NULL;
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

/* The dump's header (jitdump's format: magic, version, size, ELF machine, pad, pid, time, flags),
 * mapped executable, then the name made a symlink to link. */
static int plant_dump(const char *link)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/jit-%d.dump", (int)getpid());
	uint32_t h[10] = { 0x4A695444, 1, 40, 62, 0, (uint32_t)getpid(), 0, 0, 0, 0 };
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, h, sizeof(h)) != (ssize_t)sizeof(h))
		return -1;
	void *m = mmap(NULL, sizeof(h), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED || unlink(path) != 0 || symlink(link, path) != 0)
		return -1;
	return 0;
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
	bool dump = argc > 3 && !strcmp(argv[2], "dump");
	bool nomap = dump || (argc > 2 && !strcmp(argv[2], "nomap"));
	if (dump)
		signal(SIGUSR1, on_usr1);
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
	if (dump) {
		for (unsigned i = 0; i < secs * 100 && !go; i++)
			usleep(10000);
		if (go && plant_dump(argv[3]) != 0)
			return 1;
		printf("planted\n");
		fflush(stdout);
	}
	sleep(secs);
	if (!nomap)
		unlink(path);
	_exit(0);
}
