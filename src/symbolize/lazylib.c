/*
 * lazylib: capstone through dlopen, on first use.
 *
 * Why: startup time and RSS. Linked into perftop, libcapstone (6.6 MB of tables and code) was mapped
 * and relocated by ld.so at every start, for a feature most sessions never use: the annotate view's
 * assembly. Measured on perftop --help (Debian 12, x86-64), that cost 1.7 ms of CPU and 3.2 MB of RSS
 * at every start; the annotate view now pays the 1.7 ms once, on its first assembly.
 *
 * Names: the SONAME CMake read from the library pkg-config names (PERFTOP_CAPSTONE_SONAME) first,
 * then a short list. capstone's ABI changes with its major version (cs_insn grew in 5), so only a
 * library whose cs_version() has the major of the header compiled against is used.
 */
#include "symbolize/lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifndef PERFTOP_CAPSTONE_SONAME
#define PERFTOP_CAPSTONE_SONAME ""
#endif
#define LAZY_STR_(x) #x
#define LAZY_STR(x) LAZY_STR_(x)

/* t->field = the library's sym, typed as the header declares it; false when missing. */
#define BIND(h, t, field, sym) (((t)->field = (__typeof__((t)->field))dlsym((h), #sym)) != NULL)

struct lazy_state {
	pthread_once_t once;
	bool ok;
	char why[320];  /* the first failure: the configured name's, the most telling */
};

static void note(struct lazy_state *st, const char *why)
{
	if (!st->why[0])
		snprintf(st->why, sizeof(st->why), "%s", why ? why : "?");
}

/* Whether names[i] already came earlier in names (or is empty): not tried twice. */
static bool skip_name(const char *const *names, size_t i)
{
	if (!names[i][0])
		return true;
	for (size_t j = 0; j < i; j++)
		if (!strcmp(names[j], names[i]))
			return true;
	return false;
}

static struct lazy_state cs_state = { .once = PTHREAD_ONCE_INIT };
static struct lazy_capstone cs_table;

static void capstone_load(void)
{
	static const char *const names[] = { PERFTOP_CAPSTONE_SONAME,
					     ("libcapstone.so." LAZY_STR(CS_API_MAJOR)), "libcapstone.so" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (skip_name(names, i))
			continue;
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			note(&cs_state, dlerror());
			continue;
		}
		struct lazy_capstone t;
		if (!(BIND(h, &t, version, cs_version) && BIND(h, &t, open, cs_open) &&
		      BIND(h, &t, disasm, cs_disasm) && BIND(h, &t, free, cs_free) &&
		      BIND(h, &t, close, cs_close))) {
			note(&cs_state, dlerror());
			dlclose(h);
			continue;
		}
		int major = 0, minor = 0;
		t.version(&major, &minor);
		if (major != CS_API_MAJOR) {
			char msg[160];
			snprintf(msg, sizeof(msg), "%s is capstone %d.%d, perftop was built for %d.x",
				 names[i], major, minor, CS_API_MAJOR);
			note(&cs_state, msg);
			dlclose(h);
			continue;
		}
		cs_table = t;
		cs_state.ok = true;
		return;
	}
}

const struct lazy_capstone *lazy_capstone(const char **why)
{
	pthread_once(&cs_state.once, capstone_load);
	if (why)
		*why = cs_state.ok ? NULL : cs_state.why;
	return cs_state.ok ? &cs_table : NULL;
}
