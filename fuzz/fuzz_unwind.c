/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_unwind: perftop's own reading of a binary for the unwinder (src/symbolize/unwind_image.c:
 * the ELF header, the program headers, PT_GNU_EH_FRAME's .eh_frame_hdr, else the section headers'
 * .eh_frame), then what a walk asks of it (unwind_ehframe.c, unwind_cfi.c: the FDE search, the
 * table built from .eh_frame, the CIEs and FDEs, the CFA programs) at addresses the file and the
 * input's last 8 bytes name. A binary a profiled process maps is its to make; every read of it is
 * ASan's to judge.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	struct image img = { .data = copy, .size = size };
	image_read_elf(&img);
	uint64_t extra[1] = { 0 };
	if (size >= 8)
		memcpy(extra, data + size - 8, 8);
	probe_image(&img, extra, 1);
	free(img.ehf_tab);
	free(img.sigpages);
	free(copy);
	return 0;
}
