#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# perftop --version: the project's version (CMakeLists.txt) and a git revision; and the generator
# run on sources that are not a git checkout (a release tarball) says "unknown" rather than failing.
#   version.sh PERFTOP VERSION SOURCE_DIR
set -eu
perftop=$1 version=$2 src=$3
out=$("$perftop" --version)
echo "$out"
case $out in
"perftop $version (git "*")") ;;
*) echo "FAIL: expected 'perftop $version (git REV)'"; exit 1 ;;
esac
# In a checkout, the revision is a commit of it (the one the binary was built from: a commit made
# since, without a rebuild, is not it, so it is not compared with the HEAD of now).
if [ -e "$src/.git" ] && command -v git >/dev/null; then
	rev=${out#*(git }
	rev=${rev%)}
	rev=${rev%-dirty}
	git -C "$src" cat-file -e "${rev##*-g}^{commit}" 2>/dev/null ||
		{ echo "FAIL: '$rev' is not a commit of $src"; exit 1; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DSRC="$tmp" -DOUT="$tmp/v.c" -DVERSION="$version" -P "$src/cmake/version.cmake"
grep -q 'perftop_git_rev\[\] = "unknown";' "$tmp/v.c" || { echo "FAIL: outside git:"; cat "$tmp/v.c"; exit 1; }
echo ok
