/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pysplice: where a thread's Python frames go in its native chain.
 *
 * Since 3.11 one C call of the eval loop (_PyEval_EvalFrameDefault) runs a run of Python frames
 * (Python-to-Python calls do not recurse in C); a new C call begins where C code calls back into
 * Python (a builtin's key=, a C extension's callback, the module's first frame). Before 3.11
 * (3.8-3.10) every Python call is a C call of its own, so each frame is a run of one, and the
 * plumbing between two of them (call_function, function_code_fastcall, _PyFunction_Vectorcall,
 * 3.10's _PyEval_Vector) is of the kinds below. The reader marks
 * those runs (groups, innermost 0), and here group k takes the place of the k-th eval-loop frame of
 * the native chain, counted from the innermost. The interpreter's call plumbing (vectorcall,
 * _PyEval_Vector ...) inside the replaced part goes too: it is the how of a Python call, which the
 * Python frames now say; so do -X perf's trampolines (py::NAME:FILE) anywhere in the chain. Everything else stays where it is (kernel, libc, a C extension, a
 * builtin such as sum), so a chain reads kernel -> native -> Python -> native -> Python -> main.
 *
 * Chains in frame-pointer mode through an interpreter built without frame pointers (most are) stop
 * or go astray inside it, with fewer eval-loop frames than groups: the groups left over all go at
 * the outermost eval-loop frame found, and with none found, as callers of the first run of
 * interpreter frames (else of the whole chain).
 */
#include <string.h>

#include "python/pystacks.h"

#define EVAL_SYM "_PyEval_EvalFrameDefault"
#define SPLICE_MAX_EVALS 256

static bool in_interp(const struct frame *f, const char *interp_dso)
{
	return !f->kernel && f->dso && !strcmp(f->dso, interp_dso);
}

static bool is_eval(const struct frame *f, const char *interp_dso)
{
	return in_interp(f, interp_dso) && !strncmp(f->sym, EVAL_SYM, sizeof(EVAL_SYM) - 1);
}

/* The interpreter's own ways of making a call: vectorcall, tp_call and the eval loop's entries. */
static bool is_plumbing(const struct frame *f, const char *interp_dso)
{
	if (!in_interp(f, interp_dso))
		return false;
	const char *s = f->sym;
	return strstr(s, "call") || strstr(s, "Call") || !strncmp(s, "_PyEval_", 8) ||
	       !strncmp(s, "_PyFunction_", 12);
}

/* A perf trampoline of 3.12+'s -X perf ("py::alpha:/path/file.py", in the JIT map): the same
 * Python call again, in another form. */
static bool is_trampoline(const struct frame *f)
{
	return !f->kernel && !strncmp(f->sym, "py::", 4);
}

/* Where the Python frames go when no eval-loop frame is in the chain: after the first run of
 * interpreter frames, else at the end. */
static int splice_point(const struct frame *native, int n, const char *interp_dso)
{
	int i = 0;
	while (i < n && !in_interp(&native[i], interp_dso))
		i++;
	if (i == n)
		return n;
	while (i < n && in_interp(&native[i], interp_dso))
		i++;
	return i;
}

static int put(struct frame *out, int k, int max, const struct frame *f)
{
	if (k < max)
		out[k++] = *f;
	return k;
}

/* Copies py's groups [from, to) to out. */
static int put_groups(struct frame *out, int k, int max, const struct frame *py, const int *group,
		      int npy, int from, int to)
{
	for (int i = 0; i < npy; i++)
		if (group[i] >= from && group[i] < to)
			k = put(out, k, max, &py[i]);
	return k;
}

int pystacks_splice(const struct frame *native, int n, const struct frame *py, const int *group,
		    int npy, const char *interp_dso, struct frame *out, int max)
{
	int evals[SPLICE_MAX_EVALS], m = 0;
	int ngroups = npy > 0 ? group[npy - 1] + 1 : 0;
	for (int i = 0; i < n && m < SPLICE_MAX_EVALS; i++)
		if (is_eval(&native[i], interp_dso))
			evals[m++] = i;
	int k = 0;
	if (m == 0) {
		int at = splice_point(native, n, interp_dso);
		for (int i = 0; i < at; i++)
			k = put(out, k, max, &native[i]);
		k = put_groups(out, k, max, py, group, npy, 0, ngroups);
		for (int i = at; i < n; i++)
			if (!is_trampoline(&native[i]))
				k = put(out, k, max, &native[i]);
		return k;
	}
	/* The eval-loop frames that take a group: the first ngroups of them, the last of which takes
	 * what is left over. */
	int used = ngroups < m ? ngroups : m;
	int last = used > 0 ? evals[used - 1] : -1;
	int e = 0;
	for (int i = 0; i < n; i++) {
		if (e < used && i == evals[e]) {
			int to = e == used - 1 ? ngroups : e + 1;
			k = put_groups(out, k, max, py, group, npy, e, to);
			e++;
			continue;
		}
		if ((i < last && is_plumbing(&native[i], interp_dso)) || is_trampoline(&native[i]))
			continue;
		k = put(out, k, max, &native[i]);
	}
	return k;
}
