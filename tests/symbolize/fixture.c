/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixture: a shared library with symbols of each kind the symbolizer must name: global functions, a
 * static one (only in .symtab, reached through an exported getter), a weak one, and calls to libc
 * through the PLT: puts through .plt (or .plt.sec in the IBT build), getenv through .plt.got (its
 * address is taken too, so the linker calls it through the GOT slot). Built -O1 -fno-inline so each
 * function is a real body of a few dozen bytes.
 */
#include <stdio.h>
#include <stdlib.h>

volatile int fixture_sink;

int fixture_alpha(int x)
{
	int acc = 0;
	for (int i = 0; i < x; i++)
		acc += i * 3 + (acc >> 2);
	fixture_sink = acc;
	return acc;
}

int fixture_beta(int x)
{
	int acc = 1;
	for (int i = 0; i < x; i++)
		acc ^= (acc << 1) + i;
	fixture_sink = acc;
	return acc;
}

static int fixture_local(int x)
{
	int acc = 7;
	for (int i = 0; i < x; i++)
		acc = acc * 5 + i;
	fixture_sink = acc;
	return acc;
}

__attribute__((weak)) int fixture_weak(int x)
{
	int acc = 2;
	for (int i = 0; i < x; i++)
		acc += acc / 3 + i;
	fixture_sink = acc;
	return acc;
}

void *fixture_local_ptr(void)
{
	return (void *)fixture_local;
}

int fixture_say(const char *s)
{
	return puts(s) + 1;
}

void *fixture_getenv_ptr(void)
{
	return (void *)getenv;
}

const char *fixture_getenv(const char *name)
{
	const char *v = getenv(name);
	return v ? v : "";
}
