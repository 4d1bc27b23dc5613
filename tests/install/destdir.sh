#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make install into a DESTDIR with PREFIX=/usr puts the binary, the man page, the bash completion
# and the README where a distribution keeps them; the installed perftop runs; make uninstall
# removes all of it. The Makefile's install-built (make install without its build step) on the
# tree ctest runs in, so that nothing is rebuilt under the other tests.
#   destdir.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 build=$2
dest=$build/install-test
rm -rf "$dest"
mkdir -p "$dest"
trap 'rm -rf "$dest"' EXIT
make -s -C "$src" install-built BUILD="$build" DESTDIR="$dest/root" PREFIX=/usr INSTALLED="$dest/list" >/dev/null
for f in usr/bin/perftop usr/share/man/man1/perftop.1.gz usr/share/bash-completion/completions/perftop \
	 usr/share/doc/perftop/README.md usr/share/doc/perftop/docs/unwinding.md; do
	[ -s "$dest/root/$f" ] || { echo "FAIL: no $f"; find "$dest/root"; exit 1; }
done
[ -x "$dest/root/usr/bin/perftop" ] || { echo "FAIL: usr/bin/perftop is not executable"; exit 1; }
"$dest/root/usr/bin/perftop" --version
gzip -t "$dest/root/usr/share/man/man1/perftop.1.gz"
grep -q "^complete -F _perftop perftop" "$dest/root/usr/share/bash-completion/completions/perftop"
n=$(grep -c "" "$dest/list")
make -s -C "$src" uninstall BUILD="$build" INSTALLED="$dest/list" >/dev/null
left=$(find "$dest/root" -type f)
[ -z "$left" ] || { echo "FAIL: make uninstall left:"; echo "$left"; exit 1; }
[ ! -e "$dest/root/usr/share/doc/perftop" ] || { echo "FAIL: share/doc/perftop left"; exit 1; }
echo "ok: $n files installed and removed"
