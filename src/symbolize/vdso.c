/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdso: our own vdso image, copied into a memfd.
 *
 * Why a memfd and not libelf's elf_memory: the dso layer keeps one libdwfl module per binary and
 * libdwfl reports modules from files; a memfd is a file without a disk, so the vdso goes through the
 * same code as every binary (PT_LOAD offsets, symbol choice, build-id check) with no special case.
 *
 * The image's size comes from its headers (the program headers' file extent and the section header
 * table, which the kernel keeps inside the image), bounded by our [vdso] mapping so a malformed
 * header can never make us read past it.
 */
#include "symbolize/vdso.h"

#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/util.h"

#define VDSO_MAX_SIZE (1u << 20)  /* today's vdsos are 8 KiB; anything huge is not one */

struct vdso {
	bool tried;
	int fd;
	char path[64];
};

struct vdso *vdso_new(void)
{
	struct vdso *v = xcalloc(1, sizeof(*v));
	v->fd = -1;
	return v;
}

void vdso_free(struct vdso *v)
{
	if (!v)
		return;
	if (v->fd >= 0)
		close(v->fd);
	free(v);
}

/* Size of our [vdso] mapping from /proc/self/maps, 0 when not found. */
static size_t vdso_mapping_size(uintptr_t base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	char line[512];
	size_t size = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && s == base && strstr(line, "[vdso]")) {
			size = (size_t)(e - s);
			break;
		}
	}
	fclose(f);
	return size;
}

static size_t vdso_extent(size_t cur, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;
	if (end < off)
		return SIZE_MAX;
	return end > cur ? (size_t)end : cur;
}

bool vdso_image_size(const void *image, size_t room, size_t *size)
{
	if (room < sizeof(ElfW(Ehdr)))
		return false;
	ElfW(Ehdr) eh;
	memcpy(&eh, image, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)))
		return false;
	size_t n = vdso_extent(sizeof(eh), eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)));
	if (n > room)
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		memcpy(&ph, (const char *)image + eh.e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		n = vdso_extent(n, ph.p_offset, ph.p_filesz);
	}
	if (eh.e_shoff && eh.e_shentsize == sizeof(ElfW(Shdr)))
		n = vdso_extent(n, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(ElfW(Shdr)));
	if (n > room || n > VDSO_MAX_SIZE)
		return false;
	*size = n;
	return true;
}

const void *vdso_self_image(size_t *size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return NULL;
	size_t room = vdso_mapping_size(base);
	return vdso_image_size((const void *)base, room, size) ? (const void *)base : NULL;
}

const char *vdso_file(struct vdso *v)
{
	if (v->tried)
		return v->fd >= 0 ? v->path : NULL;
	v->tried = true;
	size_t size = 0;
	const void *img = vdso_self_image(&size);
	if (!img)
		return NULL;
	int fd = memfd_create("perftop-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t done = 0;
	while (done < size) {
		ssize_t w = write(fd, (const char *)img + done, size - done);
		if (w <= 0) {
			close(fd);
			return NULL;
		}
		done += (size_t)w;
	}
	v->fd = fd;
	snprintf(v->path, sizeof(v->path), "/proc/self/fd/%d", fd);
	return v->path;
}
