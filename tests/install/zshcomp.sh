#!/bin/sh
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
# complete TEXT: what the line reads after TEXT<Tab> in an interactive zsh.
complete() {
	timeout 20 zsh -f -c '
		zmodload zsh/zpty
		zpty z zsh -f -i
		zpty -w z "PS1=\"> \"; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
		zpty -w z "bindkey \"^I\" complete-word"
		sleep 1
		zpty -w -n z "$2"$'\''\t'\''
		sleep 2
		local all="" chunk
		while zpty -r -t z chunk; do all+=$chunk; done
		zpty -d z
		print -r -- "$all"' zsh "$dir" "$1" | tr -d '\r'
}
complete 'perftop --sel' | grep -aq 'perftop --select-event' || { echo "FAIL: --sel did not complete to --select-event"; exit 1; }
complete 'perftop --call-graph dw' | grep -aq 'perftop --call-graph dwarf' || { echo "FAIL: --call-graph dw did not complete to dwarf"; exit 1; }
echo ok
