/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * version: what --version prints. The values are generated at build time (cmake/version.cmake):
 * the version of CMakeLists.txt's project() and the `git describe --always --dirty` of the
 * sources ("unknown" when they are not a git checkout, a release tarball).
 */
#ifndef PERFTOP_VERSION_H
#define PERFTOP_VERSION_H

extern const char perftop_version[];
extern const char perftop_git_rev[];

#endif
