/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pywalk: one sample's reads of a Python thread (pywalk.h), as src/python/pystacks.c makes them.
 */
#include "pywalk.h"

#include <string.h>

void pywalk_run(pid_t pid, const struct pyproc *p, uint32_t tid, struct pywalk *w)
{
	memset(w, 0, sizeof(*w));
	w->thread_rc = pyread_thread(pid, p, tid, &w->ts, &w->frame);
	if (w->thread_rc < 0 || !w->frame)
		return;
	struct pyraw raw[PYWALK_MAX];
	w->n = pyread_frames(pid, p, w->frame, raw, PYWALK_MAX);
	uint64_t code_type = 0;
	static uint8_t lt[PYWALK_LINETABLE];
	for (int i = 0; i < w->n; i++) {
		struct pywalk_frame *f = &w->f[i];
		struct pycode_head h;
		f->raw = raw[i];
		f->line = -1;
		f->head_rc = pyread_code_head(pid, p, raw[i].code, &code_type, &h);
		if (f->head_rc < 0)
			continue;
		f->names_rc = pyread_names(pid, p, &h, f->qual, sizeof(f->qual), f->file, sizeof(f->file));
		if (f->names_rc < 0)
			continue;
		f->lt_len = pyread_linetable(pid, p, h.linetable, lt, sizeof(lt));
		if (f->lt_len > 0)
			f->line = pyread_line_at(&p->lay, raw[i].code, lt, f->lt_len, h.firstlineno,
						 raw[i].instr);
	}
}
