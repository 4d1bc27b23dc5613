#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make deb: a package whose Depends name the libraries perftop links (libdw1 among them) and whose
# Recommends the ones it dlopens; apt-get installs it, /usr/bin/perftop runs, dpkg -r removes it.
# It changes the system: it runs as root and removes the package whatever happens. A perftop
# package installed before the test is left alone (the test skips).
#   deb.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: installing a package needs root"; exit 77; }
command -v apt-get >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
	{ echo "SKIP: no apt-get or dpkg-shlibdeps (dpkg-dev)"; exit 77; }
if dpkg -s perftop >/dev/null 2>&1; then
	echo "SKIP: a perftop package is installed here already; not replacing it"; exit 77
fi
set -e
rm -f "$build"/perftop_*.deb
make -s -C "$src" deb-built BUILD="$build" >/dev/null
deb=$(ls "$build"/perftop_*.deb)
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "perftop_${version}_${arch}.deb" ] || { echo "FAIL: named $deb"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Depends: $depends"
echo "Recommends: $recommends"
echo "$depends" | grep -Eq '(^|, )libdw1( |,|$)' || { echo "FAIL: libdw1 not in Depends"; exit 1; }
# each library perftop itself links (its NEEDED entries, not what they pull in: libdw's own
# libraries come with libdw1) is in a package of Depends
for soname in $(readelf -d "$build/perftop" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	lib=$(ldd "$build/perftop" | awk -v n="$soname" '$1 == n && $3 ~ /^\// {print $3}')
	[ -n "$lib" ] || continue
	pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | sed -n '1s/:.*//p')
	[ -n "$pkg" ] || continue
	echo "$depends" | grep -Eq "(^|, )$pkg( |,|$)" || { echo "FAIL: $lib ($pkg) not in Depends"; exit 1; }
done
echo "$recommends" | grep -q libcapstone || { echo "FAIL: capstone not in Recommends"; exit 1; }
echo "$recommends" | grep -q libcurl || { echo "FAIL: libcurl (--push) not in Recommends"; exit 1; }
trap 'dpkg -r perftop >/dev/null 2>&1 || true' EXIT
cp "$deb" /tmp/ && cd /tmp # apt-get reads the file as the _apt user when it can
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 \
	"./$(basename "$deb")" >/dev/null
rm -f "/tmp/$(basename "$deb")"
out=$(/usr/bin/perftop --version)
echo "$out"
[ "$out" = "$("$build/perftop" --version)" ] || { echo "FAIL: the installed perftop says $out"; exit 1; }
[ -f /usr/share/man/man1/perftop.1.gz ] && [ -f /usr/share/bash-completion/completions/perftop ] ||
	{ echo "FAIL: man page or completion not installed"; exit 1; }
dpkg -r perftop >/dev/null
[ ! -e /usr/bin/perftop ] || { echo "FAIL: /usr/bin/perftop still there after dpkg -r"; exit 1; }
echo ok
