/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_vdso: the size of a vdso image from its ELF headers (vdso_image_size, src/symbolize/vdso.c),
 * the input being the mapping. The kernel's own image is trusted more than most input, but the
 * reader must never read past the mapping it was given nor say a size beyond it, whatever its
 * headers say; the size said must cover the ELF header.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/vdso.h"

static void must(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a heap copy of exactly the mapping: ASan sees any read past it */
	uint8_t *img = malloc(size ? size : 1);
	memcpy(img, data, size);
	size_t n = 0;
	if (vdso_image_size(img, size, &n))
		must(n <= size && n >= 64 && n <= (1u << 20));
	/* a room smaller than the mapping: the answer must stay within the room */
	if (size > 64 && vdso_image_size(img, size / 2, &n))
		must(n <= size / 2);
	free(img);
	return 0;
}
