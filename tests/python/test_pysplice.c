/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pysplice: where Python frames go in a native chain (pysplice.c), on hand-made chains: one
 * eval-loop frame per group, fewer (a frame-pointer chain lost inside the interpreter), none; the
 * interpreter's call plumbing between Python frames dropped, a C extension and a builtin kept. And
 * the 3.11+ location table decoder (pyread_line) on a table compiled by CPython 3.11 for a known
 * function.
 */
#include <stdlib.h>

#include "check.h"
#include "python/pyread.h"
#include "python/pystacks.h"

#define LIB "libpython3.11.so.1.0"

static struct frame nat(const char *sym, const char *dso)
{
	return (struct frame){ .sym = sym, .dso = dso };
}

static struct frame pyf(const char *sym)
{
	return (struct frame){ .sym = sym, .dso = "[python]" };
}

/* The chain's names joined by spaces. */
static const char *names(const struct frame *f, int n)
{
	static char buf[1024];
	size_t o = 0;
	buf[0] = 0;
	for (int i = 0; i < n && o < sizeof(buf) - 1; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? " " : "", f[i].sym);
	return buf;
}

static void test_one_per_group(void)
{
	/* ext_leaf <- C call plumbing <- eval (inner, cb) <- builtin sorted <- plumbing <- eval
	 * (alpha, <module>) <- PyEval_EvalCode <- main */
	struct frame native[] = {
		nat("ext_leaf", "ext.so"), nat("cfunction_vectorcall_O", LIB),
		nat("_PyEval_EvalFrameDefault", LIB), nat("_PyFunction_Vectorcall", LIB),
		nat("list_sort", LIB), nat("_PyObject_Call", LIB),
		nat("_PyEval_EvalFrameDefault", LIB), nat("PyEval_EvalCode", LIB), nat("main", "python3.11"),
	};
	struct frame py[] = { pyf("inner"), pyf("cb"), pyf("alpha"), pyf("<module>") };
	int group[] = { 0, 0, 1, 1 };
	struct frame out[32];
	int n = pystacks_splice(native, 9, py, group, 4, LIB, out, 32);
	CHECK_STR(names(out, n), "ext_leaf inner cb list_sort alpha <module> PyEval_EvalCode main");
}

static void test_fewer_evals(void)
{
	/* a frame-pointer chain that went astray after the first eval-loop frame */
	struct frame native[] = {
		nat("long_mul", LIB), nat("_PyEval_EvalFrameDefault", LIB), nat("0x1234", "[unknown]"),
	};
	struct frame py[] = { pyf("inner"), pyf("alpha"), pyf("cb_caller"), pyf("<module>") };
	int group[] = { 0, 0, 1, 2 };
	struct frame out[32];
	int n = pystacks_splice(native, 3, py, group, 4, LIB, out, 32);
	CHECK_STR(names(out, n), "long_mul inner alpha cb_caller <module> 0x1234");
}

static void test_no_eval(void)
{
	struct frame py[] = { pyf("inner"), pyf("<module>") };
	int group[] = { 0, 0 };
	struct frame out[32];
	/* a leaf in the interpreter without frame pointers: callers of its run of interpreter frames */
	struct frame a[] = { nat("k", "[kernel.kallsyms]"), nat("_PyObject_Free", LIB),
			     nat("0x99", "[unknown]") };
	a[0].kernel = true;
	int n = pystacks_splice(a, 3, py, group, 2, LIB, out, 32);
	CHECK_STR(names(out, n), "k _PyObject_Free inner <module> 0x99");
	/* no interpreter frame at all: the outermost callers */
	struct frame b[] = { nat("memcpy", "libc.so.6") };
	n = pystacks_splice(b, 1, py, group, 2, LIB, out, 32);
	CHECK_STR(names(out, n), "memcpy inner <module>");
	/* the room is respected */
	n = pystacks_splice(b, 1, py, group, 2, LIB, out, 2);
	CHECK(n == 2);
}

static void test_trampolines(void)
{
	/* 3.12 -X perf, DWARF mode: the walk stopped at the first trampoline */
	struct frame native[] = { nat("long_mul", LIB), nat("_PyEval_EvalFrameDefault", LIB),
				  nat("py::inner:/t/pysplit.py", "[JIT] tid 7"),
				  nat("[no unwind info: [JIT] tid 7]", "[unknown]") };
	struct frame py[] = { pyf("inner"), pyf("alpha") };
	int group[] = { 0, 1 };
	struct frame out[32];
	int n = pystacks_splice(native, 4, py, group, 2, LIB, out, 32);
	CHECK_STR(names(out, n), "long_mul inner alpha [no unwind info: [JIT] tid 7]");
}

static void test_more_evals_than_groups(void)
{
	/* a stale read: one group for two eval-loop frames; the outer one stays native */
	struct frame native[] = { nat("_PyEval_EvalFrameDefault", LIB), nat("PyObject_Call", LIB),
				  nat("_PyEval_EvalFrameDefault", LIB), nat("main", "python3.11") };
	struct frame py[] = { pyf("inner") };
	int group[] = { 0 };
	struct frame out[32];
	int n = pystacks_splice(native, 4, py, group, 1, LIB, out, 32);
	CHECK_STR(names(out, n), "inner PyObject_Call _PyEval_EvalFrameDefault main");
}

/*
 * def f(x):          # line 2 (firstlineno)
 *     y = x + 1      # line 3
 *     return y * 2   # line 4
 * CPython 3.11.7's f.__code__.co_linetable and what its co_lines() says by code unit: [0, 1) on
 * line 2 (RESUME), [1, 6) on 3, [6, 11) on 4.
 */
static void test_linetable(void)
{
	static const uint8_t table[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x88, 0x41, 0x89,
					 0x05, 0x80, 0x41, 0xd8, 0x0b, 0x0c, 0x88, 0x71,
					 0x89, 0x35, 0x80, 0x4c };
	int len = (int)sizeof(table);
	CHECK(pyread_line(table, len, 2, 0) == 2);
	CHECK(pyread_line(table, len, 2, 1) == 3);
	CHECK(pyread_line(table, len, 2, 5) == 3);
	CHECK(pyread_line(table, len, 2, 6) == 4);
	CHECK(pyread_line(table, len, 2, 10) == 4);
	CHECK(pyread_line(table, len, 2, 11) == -1);
	uint8_t bad[] = { 0x01 };
	CHECK(pyread_line(bad, 1, 1, 0) == -1);
}

int main(void)
{
	test_one_per_group();
	test_fewer_evals();
	test_no_eval();
	test_more_evals_than_groups();
	test_trampolines();
	test_linetable();
	return CHECK_DONE();
}
