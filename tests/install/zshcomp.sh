#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The zsh completion, in an interactive zsh on a pseudo-terminal (zsh/zpty) with compinit and the
# generated _perftop first in fpath: `perftop --sel<Tab>` becomes --select-event and
# `perftop --call-graph dw<Tab>` dwarf. Exit 77 when zsh is not installed.
#   zshcomp.sh COMPLETION_FILE
set -eu
comp=$1
command -v zsh >/dev/null || { echo "SKIP: zsh is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$comp" "$dir/_perftop"
# complete TEXT WANT: whether the line reads WANT after TEXT<Tab> in an interactive zsh. The zsh
# is read until WANT shows or 60 s pass (a hang): compinit and the completion take a second or
# more on a loaded machine, so no fixed wait decides. The Tab goes only after the shell has
# answered a marker, so that compinit has run by then.
complete() {
	timeout 90 zsh -f -c '
		zmodload zsh/zpty
		zpty z zsh -f -i
		zpty -w z "PS1=\"> \"; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
		zpty -w z "bindkey \"^I\" complete-word; print READY\$((6*7))"
		local all="" chunk t=$SECONDS
		while (( SECONDS - t < 60 )) && [[ $all != *READY42* ]]; do
			zpty -r -t z chunk && all+=$chunk || sleep 0.1
		done
		zpty -w -n z "$2"$'\''\t'\''
		all=""
		while (( SECONDS - t < 60 )) && [[ ${all//$'\''\r'\''/} != *"$3"* ]]; do
			zpty -r -t z chunk && all+=$chunk || sleep 0.1
		done
		zpty -d z
		[[ ${all//$'\''\r'\''/} == *"$3"* ]]' zsh "$dir" "$1" "$2"
}
complete 'perftop --sel' 'perftop --select-event' || { echo "FAIL: --sel did not complete to --select-event"; exit 1; }
complete 'perftop --call-graph dw' 'perftop --call-graph dwarf' || { echo "FAIL: --call-graph dw did not complete to dwarf"; exit 1; }
echo ok
