#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The man page: man -l renders it with no groff warning, and it mentions every long option --help
# lists (both come from src/cli.c's table; this checks the writer leaves none out).
#   manpage.sh PERFTOP PAGE
set -eu
perftop=$1 page=$2
command -v man >/dev/null || { echo "SKIP: no man (man-db)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MANWIDTH=80 man --warnings -l "$page" >"$tmp/text" 2>"$tmp/err"
if [ -s "$tmp/err" ]; then
	echo "FAIL: man --warnings -l $page says:"; cat "$tmp/err"; exit 1
fi
[ -s "$tmp/text" ] || { echo "FAIL: man rendered nothing"; exit 1; }
# man may hyphenate or justify: compare the options with the rendering's line breaks undone.
rendered=$(MANWIDTH=1000 MAN_KEEP_FORMATTING= man -l "$page" 2>/dev/null | sed 's/.\x08//g')
missing=""
for opt in $("$perftop" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$rendered" | grep -q -- "$opt\b" || missing="$missing $opt"
done
[ -z "$missing" ] || { echo "FAIL: not in the man page:$missing"; exit 1; }
for section in OPTIONS KEYS ENVIRONMENT FILES "EXIT STATUS"; do
	printf '%s\n' "$rendered" | grep -q "^$section" || { echo "FAIL: no $section section"; exit 1; }
done
echo "ok: $(printf '%s\n' "$rendered" | wc -l) lines, every option of --help"
