/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazylib: capstone and libdebuginfod through dlopen, on first use.
 *
 * Why: startup time and RSS. Linked into perftop, both were mapped and relocated by ld.so at every
 * start, for features most sessions never use: the annotate view's assembly, and debuginfod fetches
 * (which run in the fetch child only, and only when DEBUGINFOD_URLS is set). Measured on perftop
 * --help (Debian 12, x86-64): libcapstone cost 1.7 ms of CPU and 3.2 MB of RSS at every start;
 * libdebuginfod and the 27 libraries it brings (libcurl-gnutls, gnutls, nettle, libcrypto, krb5,
 * ldap, sasl, p11-kit, unistring...) 7.5 ms and 5.6 MB. Without them ld.so loads 13 objects instead
 * of 42 and makes 5,900 relocations instead of 125,000, and a short replay's RSS is 8.5 MB smaller
 * (26.2 -> 17.7 MB when measured). The annotate view pays ~2 ms once, on its first assembly.
 *
 * Names: the SONAME CMake read from the library pkg-config names (PERFTOP_*_SONAME) first, then a
 * short list. capstone's ABI changes with its major version (cs_insn grew in 5), so only a library
 * whose cs_version() has the major of the header compiled against is used.
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
#ifndef PERFTOP_DEBUGINFOD_SONAME
#define PERFTOP_DEBUGINFOD_SONAME ""
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

static struct lazy_state di_state = { .once = PTHREAD_ONCE_INIT };
static struct lazy_debuginfod di_table;

static void debuginfod_load(void)
{
	static const char *const names[] = { PERFTOP_DEBUGINFOD_SONAME, "libdebuginfod.so.1",
					     "libdebuginfod.so" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (skip_name(names, i))
			continue;
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			note(&di_state, dlerror());
			continue;
		}
		struct lazy_debuginfod t;
		if (!(BIND(h, &t, begin, debuginfod_begin) &&
		      BIND(h, &t, find_debuginfo, debuginfod_find_debuginfo) &&
		      BIND(h, &t, end, debuginfod_end))) {
			note(&di_state, dlerror());
			dlclose(h);
			continue;
		}
		di_table = t;
		di_state.ok = true;
		return;
	}
}

const struct lazy_debuginfod *lazy_debuginfod(const char **why)
{
	pthread_once(&di_state.once, debuginfod_load);
	if (why)
		*why = di_state.ok ? NULL : di_state.why;
	return di_state.ok ? &di_table : NULL;
}
