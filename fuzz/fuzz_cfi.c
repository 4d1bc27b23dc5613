/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_cfi: the .eh_frame reader and the CFA programs (src/symbolize/unwind_ehframe.c,
 * unwind_cfi.c) on a section alone. The input's first 16 bytes are the section's address and an
 * address to ask about; the rest is the .eh_frame section, loaded at that address as a binary
 * without .eh_frame_hdr has it (the table built from the section, CIEs and FDEs read, each FDE's
 * program run up to the address). Seeds are real binaries' .eh_frame sections.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 16)
		return 0;
	uint64_t va, pc;
	memcpy(&va, data, 8);
	memcpy(&pc, data + 8, 8);
	va &= 0xffffffffffull;  /* as a linker places it: 40 bits are plenty */
	size -= 16;
	uint8_t *sec = malloc(size ? size : 1);
	memcpy(sec, data + 16, size);
	struct image img = { .data = sec, .size = size, .nloads = 1,
			     .loads = { { .vaddr = va, .off = 0, .filesz = size } },
			     .ehf_vaddr = va, .ehf_size = size };
	uint64_t extra[2] = { pc, va + (size ? pc % size : 0) };
	probe_image(&img, extra, 2);
	free(img.ehf_tab);
	free(img.sigpages);
	free(sec);
	return 0;
}
