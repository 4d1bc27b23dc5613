/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazylib: capstone and libdebuginfod, loaded with dlopen on first use instead of linked.
 *
 * Why: startup time and resident memory. Linked, both were mapped and relocated by ld.so at every
 * start of perftop (see lazylib.c for the figures), for two features most sessions never use: the
 * annotate view's assembly (capstone) and debuginfod fetches, which only run in the fetch child and
 * only when DEBUGINFOD_URLS is set (libdebuginfod, and through it libcurl, gnutls, libcrypto, krb5,
 * ldap...).
 *
 * The tables are typed from the libraries' own headers (__typeof__ of each function), so the
 * compiler checks every call as if the library were linked. A table is loaded once per process and
 * never unloaded. When the library cannot be loaded the getter returns NULL and *why says why
 * (dlerror's text, e.g. "libcapstone.so.4: cannot open shared object file: No such file or
 * directory"); the caller reports it as it reports its other failures.
 */
#ifndef PERFTOP_SYMBOLIZE_LAZYLIB_H
#define PERFTOP_SYMBOLIZE_LAZYLIB_H

#include <capstone/capstone.h>
#include <elfutils/debuginfod.h>

struct lazy_capstone {
	__typeof__(cs_version) *version;
	__typeof__(cs_open) *open;
	__typeof__(cs_disasm) *disasm;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
};

struct lazy_debuginfod {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_end) *end;
};

/* The capstone functions (a library with the major version of the header compiled against), or NULL
 * with *why set. Thread-safe; the first call loads. */
const struct lazy_capstone *lazy_capstone(const char **why);

/* The libdebuginfod functions, or NULL with *why set. Thread-safe; the first call loads. */
const struct lazy_debuginfod *lazy_debuginfod(const char **why);

#endif
