/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doc: the man page perftop(1) and the shell completions, written from the same tables the program
 * runs on: cli.c's option table (what --help and the README's table come from) and the views' key
 * tables (ui/keytab.h, what the ? help comes from). docgen.c is a small program the build runs to
 * write them, so they cannot list an option or a key perftop does not have.
 */
#ifndef PERFTOP_DOC_H
#define PERFTOP_DOC_H

#include <stdio.h>

/* perftop.1 in man(7) roff; version goes in its title line. */
void doc_man(FILE *out, const char *version);
/* The bash completion (a _perftop function for bash-completion's loader), and zsh's (_perftop). */
void doc_bash(FILE *out);
void doc_zsh(FILE *out);
/* Every key of every key table, a line each: "TABLE<TAB>KEY<TAB>HELP" (keylist.c). */
void doc_keys(FILE *out);

#endif
