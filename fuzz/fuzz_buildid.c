/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_buildid: perftop's own readers of ELF notes, where it reads them without libelf: the notes
 * parser (elf_notes_build_id, src/util/util.c) on the input as a note segment of either alignment,
 * and the recorder's build-id of a file (pw_file_build_id, src/perfdata/perfdata_buildids.c: the
 * ELF header, the program headers, the PT_NOTE segments) on a file holding the input. A build-id
 * is at most what was asked (20 bytes for the recorder); the rest is ASan's and UBSan's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"

#include "perfdata/perfdata_write_state.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("buildid", "elf");
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	uint8_t id[64];
	must(elf_notes_build_id(copy, size, 4, id, 20) <= 20);
	must(elf_notes_build_id(copy, size, 8, id, sizeof(id)) <= sizeof(id));
	free(copy);
	fuzz_file_write(data, size);
	must(pw_file_build_id(path, id) <= REC_BUILD_ID_MAX);
	return 0;
}
