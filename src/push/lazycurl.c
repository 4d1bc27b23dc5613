/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazycurl: libcurl through dlopen, when --push asks for it (lazycurl.h).
 *
 * Why: startup time and RSS. Linked into perftop, libcurl and the 27 libraries it brings were
 * mapped and relocated at every start, for --push alone. Measured on perftop --version (Debian 12,
 * x86-64, libcurl 7.88): ldd lists 14 objects instead of 42, ld.so makes 962 relocations instead of
 * 9,626, and the run is 1.4 million instructions instead of 17.0 million (callgrind; most were
 * ld.so's symbol lookups), a task-clock of 7.0 ms instead of 27.9 on a busy 2-vCPU machine; peak
 * RSS 3.5 MiB instead of 9.3, and 19.9 MiB instead of 24.7 for a 0.5 s -a -b session. --push pays
 * the load once, in push_new.
 *
 * Names: the SONAME CMake read from the library pkg-config names (PERFTOP_CURL_SONAME) first, then
 * libcurl.so.4, the SONAME of every libcurl since 7.16 (curl 8 kept it: its ABI did not change with
 * the major), then Debian's build of the same library against GnuTLS (libcurl-gnutls.so.4, which git
 * and libdebuginfod bring), whose functions and options are the same. The first failure is the one
 * reported: the configured name's, the most telling. A library older than 7.85 is refused: it
 * would ignore CURLOPT_PROTOCOLS_STR, the option that holds a push to http and https.
 */
#include "push/lazycurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifndef PERFTOP_CURL_SONAME
#define PERFTOP_CURL_SONAME ""
#endif
#define LAZY_CURL_MIN CURL_VERSION_BITS(7, 85, 0)

/* t->field = the library's sym, typed as the header declares it; false when missing. */
#define BIND(h, t, field, sym) (((t)->field = (__typeof__((t)->field))dlsym((h), #sym)) != NULL)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why_not[320];
static struct lazy_curl table;

static void note(const char *why)
{
	if (!why_not[0])
		snprintf(why_not, sizeof(why_not), "%s", why ? why : "?");
}

/* The library at h bound into *t, its version checked and its global set-up done; false with a
 * note otherwise. */
static bool curl_bind(void *h, const char *name, struct lazy_curl *t)
{
	__typeof__(curl_version_info) *version_info;
	__typeof__(curl_global_init) *global_init;
	if (!(BIND(h, t, easy_init, curl_easy_init) && BIND(h, t, easy_reset, curl_easy_reset) &&
	      BIND(h, t, easy_setopt, curl_easy_setopt) && BIND(h, t, easy_perform, curl_easy_perform) &&
	      BIND(h, t, easy_getinfo, curl_easy_getinfo) &&
	      BIND(h, t, easy_strerror, curl_easy_strerror) &&
	      BIND(h, t, easy_cleanup, curl_easy_cleanup) &&
	      BIND(h, t, slist_append, curl_slist_append) &&
	      BIND(h, t, slist_free_all, curl_slist_free_all) &&
	      (version_info = (__typeof__(version_info))dlsym(h, "curl_version_info")) &&
	      (global_init = (__typeof__(global_init))dlsym(h, "curl_global_init")))) {
		note(dlerror());
		return false;
	}
	const curl_version_info_data *v = version_info(CURLVERSION_NOW);
	if (!v || v->version_num < LAZY_CURL_MIN) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s is libcurl %s, perftop needs 7.85.0 or newer", name,
			 v && v->version ? v->version : "?");
		note(msg);
		return false;
	}
	CURLcode rc = global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s: curl_global_init: %s", name, t->easy_strerror(rc));
		note(msg);
		return false;
	}
	return true;
}

static void curl_load(void)
{
	static const char *const names[] = { PERFTOP_CURL_SONAME, "libcurl.so.4",
					     "libcurl-gnutls.so.4" };
	size_t n = sizeof(names) / sizeof(names[0]);
	for (size_t i = 0; i < n; i++) {
		bool seen = !names[i][0];
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(names[j], names[i]);
		if (seen)
			continue;
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			note(dlerror());
			continue;
		}
		struct lazy_curl t;
		if (!curl_bind(h, names[i], &t)) {
			dlclose(h);
			continue;
		}
		table = t;
		loaded = true;
		return;
	}
}

const struct lazy_curl *lazy_curl(const char **why)
{
	pthread_once(&once, curl_load);
	if (why)
		*why = loaded ? NULL : why_not;
	return loaded ? &table : NULL;
}
