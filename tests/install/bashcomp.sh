#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion, as bash-completion loads it: `perftop --sel<Tab>` completes to
# --select-event, a value that is a list of words (--call-graph) completes from it, and after
# "--" the words are completed as the command's.
#   bashcomp.sh COMPLETION_FILE
set -eu
comp=$1
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "SKIP: no $bc (the bash-completion package)"; exit 77; }
# run WORDS...: completes the last word of "perftop WORDS..." and prints COMPREPLY, one a line.
run() {
	bash --norc -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=(perftop "$@"); COMP_CWORD=$#
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_perftop perftop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$bc" "$comp" "$@"
}
expect() { # expect WORD in: the output of run
	want=$1; shift
	out=$(run "$@")
	printf '%s\n' "$out" | grep -qx -- "$want" || {
		echo "FAIL: perftop $* <Tab> gives [$(echo $out)], not $want"; exit 1; }
}
expect --select-event --sel
[ "$(run --sel)" = "--select-event" ] || { echo "FAIL: --sel is not only --select-event"; exit 1; }
expect dwarf --call-graph d
expect dso,sym -s dso,s
expect --help --he
# after -- the command's own words: a command name, then not perftop's options
expect bash -- bas
out=$(run -- bash --sel)
printf '%s\n' "$out" | grep -qx -- --select-event && { echo "FAIL: perftop's options after --"; exit 1; }
echo ok
