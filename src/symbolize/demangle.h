/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle: C++ (Itanium ABI) and Rust (legacy and v0) symbol names made readable, through
 * libiberty's cplus_demangle, the demangler binutils and gdb use.
 *
 * Names are demangled for display, not when samples are resolved: rows stay keyed by the raw symbol
 * (two overloads that read the same once their parameters are dropped stay two rows, as in perf), a
 * key can switch between raw and demangled names at any time without touching the profile, and each
 * distinct name is demangled once (a cache maps the raw interned pointer to the demangled interned
 * one). The form matches perf report's default: no parameter list (perf adds it only with -v).
 */
#ifndef PERFTOP_SYMBOLIZE_DEMANGLE_H
#define PERFTOP_SYMBOLIZE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

struct intern;
struct demangler;

/* params: keep the parameter lists ("ns::f(int, char const*)"). */
struct demangler *demangler_new(struct intern *in, bool params);
void demangler_free(struct demangler *dm);
/* The pool is being compacted (intern.h): the cache starts over. */
void demangler_forget(struct demangler *dm);

/*
 * The display form of the interned name raw: demangled and interned when raw is a mangled C++ or Rust
 * name, else raw itself. A suffix that is not part of the mangling (" (inlined)", "@plt",
 * "@@GLIBCXX_3.4", ".cold", ".isra.0") is kept after the demangled name. Cached by pointer.
 */
const char *demangler_name(struct demangler *dm, const char *raw);

/* The demangled form of name as a new malloc'd string, or NULL when it is not a mangled name. */
char *demangle_str(const char *name, bool params);

#endif
