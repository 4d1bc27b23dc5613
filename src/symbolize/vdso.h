/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdso: the kernel's virtual shared object as a file the dso layer can open.
 *
 * Every process of one kernel (and one ABI) gets the same vdso image, and it exists on no disk. So
 * we copy our own (found through getauxval(AT_SYSINFO_EHDR), its size from its ELF headers, checked
 * against our [vdso] mapping) once into a memfd and hand out /proc/self/fd/N as its path: libdwfl
 * then reads it like any binary, with its dynamic symbols (__vdso_clock_gettime and friends) and
 * its build-id, which dso_open compares with the one a recording carries.
 */
#ifndef PERFTOP_SYMBOLIZE_VDSO_H
#define PERFTOP_SYMBOLIZE_VDSO_H

#include <stdbool.h>
#include <stddef.h>

struct vdso;

struct vdso *vdso_new(void);
void vdso_free(struct vdso *v);

/* Path of a file holding our vdso image, made on the first call; NULL when there is none. */
const char *vdso_file(struct vdso *v);

/* Our vdso image in memory (its address and size from the ELF headers), or NULL. */
const void *vdso_self_image(size_t *size);
/* The size of the vdso image at image from its ELF headers, read within its room bytes (the
 * mapping): false when they are no vdso's or say more than the room (fuzzed: fuzz_vdso). */
bool vdso_image_size(const void *image, size_t room, size_t *size);

#endif
