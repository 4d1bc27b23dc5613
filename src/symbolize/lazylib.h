/*
 * lazylib: capstone, loaded with dlopen on first use instead of linked.
 *
 * Why: startup time and resident memory. Linked, it was mapped and relocated by ld.so at every start
 * of perftop (see lazylib.c for the figures), for a feature most sessions never use: the annotate
 * view's assembly.
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

struct lazy_capstone {
	__typeof__(cs_version) *version;
	__typeof__(cs_open) *open;
	__typeof__(cs_disasm) *disasm;
	__typeof__(cs_free) *free;
	__typeof__(cs_close) *close;
};

/* The capstone functions (a library with the major version of the header compiled against), or NULL
 * with *why set. Thread-safe; the first call loads. */
const struct lazy_capstone *lazy_capstone(const char **why);

#endif
