/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazycurl: libcurl, loaded with dlopen when a push is made (--push) instead of linked.
 *
 * Why: startup time and resident memory. Linked, libcurl and the 27 libraries it brings (gnutls,
 * libssl and libcrypto, krb5, ldap, ssh2, rtmp, nghttp2...) were mapped and relocated by ld.so at
 * every start of perftop (see lazycurl.c for the figures), for --push alone.
 *
 * The table is typed from curl's own header (__typeof__ of each function), so the compiler checks
 * each call's fixed arguments as if libcurl were linked (not curl_easy_setopt's variadic value:
 * curl's typecheck-gcc macros only wrap the direct calls). It is loaded once per process, on the
 * caller's thread, never unloaded; curl_global_init (not thread-safe) is called once, there, so
 * the first call must come before any thread uses libcurl (push_new, on the main thread). When
 * libcurl cannot be loaded, lazy_curl returns NULL and *why says why (dlerror's text, e.g.
 * "libcurl.so.4: cannot open shared object file: No such file or directory").
 */
#ifndef PERFTOP_PUSH_LAZYCURL_H
#define PERFTOP_PUSH_LAZYCURL_H

#include <curl/curl.h>

struct lazy_curl {
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_reset) *easy_reset;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
};

/* libcurl's functions, its global set-up done, or NULL with *why set. Thread-safe; the first call
 * loads. */
const struct lazy_curl *lazy_curl(const char **why);

#endif
