#!/bin/sh
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
if [ -e "$src/.git" ] && command -v git >/dev/null; then
	rev=$(git -C "$src" describe --always --dirty)
	[ "$out" = "perftop $version (git $rev)" ] || { echo "FAIL: git describe says $rev"; exit 1; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DSRC="$tmp" -DOUT="$tmp/v.c" -DVERSION="$version" -P "$src/cmake/version.cmake"
grep -q 'perftop_git_rev\[\] = "unknown";' "$tmp/v.c" || { echo "FAIL: outside git:"; cat "$tmp/v.c"; exit 1; }
echo ok
