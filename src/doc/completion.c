/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * completion: perftop's bash and zsh completions from cli.c's option table. What a value is
 * completed with is read off the value's name in the table (FILE and BASE: files, DIR: directories,
 * PID: running processes, "a|b|c": those words, KEYS: the sort keys of model/profile.h), so a new
 * option needs nothing here. After "--" or the first word that is not an option (the command),
 * the words are the command's and are completed as its own (bash-completion's _command_offset).
 */
#include "doc/doc.h"

#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"
#include "model/profile.h"

enum value_kind { VALUE_NONE, VALUE_FILE, VALUE_DIR, VALUE_PID, VALUE_WORDS, VALUE_SORT };

static enum value_kind value_kind(const char *arg)
{
	if (!strcmp(arg, "FILE") || !strcmp(arg, "BASE"))
		return VALUE_FILE;
	if (!strcmp(arg, "DIR"))
		return VALUE_DIR;
	if (!strncmp(arg, "PID", 3))
		return VALUE_PID;
	if (!strcmp(arg, "KEYS"))
		return VALUE_SORT;
	return strchr(arg, '|') ? VALUE_WORDS : VALUE_NONE;
}

/* "fp|dwarf[,SIZE]|none" -> "fp dwarf none": each alternative up to its first non-word char. */
static void value_words(FILE *out, const char *arg)
{
	bool first = true;
	for (const char *s = arg; *s;) {
		size_t n = strcspn(s, "|[,=");
		if (n)
			fprintf(out, "%s%.*s", first ? "" : " ", (int)n, s);
		first = false;
		s += strcspn(s, "|");
		if (*s)
			s++;
	}
}

/* Every option word of the table ("-p --pid ..."); with_value: only those that take a value. */
static void option_words(FILE *out, bool with_value, const char *sep)
{
	size_t n;
	const struct cli_option *opts = cli_options(&n);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		if (!o->set || (o->flags & CLI_HIDDEN) || (with_value && !o->arg))
			continue;
		if (o->letter) {
			fprintf(out, "%s-%c", first ? "" : sep, o->letter);
			first = false;
		}
		if (o->name) {
			fprintf(out, "%s--%s", first ? "" : sep, o->name);
			first = false;
		}
	}
}

static void bash_case_names(FILE *out, const struct cli_option *o)
{
	fputs("\t\t", out);
	if (o->letter)
		fprintf(out, "-%c%s", o->letter, o->name ? "|" : "");
	if (o->name)
		fprintf(out, "--%s", o->name);
	fputs(")\n", out);
}

/* The case arms of "$prev": what the value of each option that takes one completes to. */
static void bash_values(FILE *out)
{
	size_t n;
	const struct cli_option *opts = cli_options(&n);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		if (!o->set || !o->arg || (o->flags & CLI_HIDDEN))
			continue;
		bash_case_names(out, o);
		switch (value_kind(o->arg)) {
		case VALUE_FILE:
			fputs("\t\t\t_filedir\n", out);
			break;
		case VALUE_DIR:
			fputs("\t\t\t_filedir -d\n", out);
			break;
		case VALUE_PID:
			fputs("\t\t\t_perftop_list \"$(ps -eo pid= 2>/dev/null)\"\n", out);
			break;
		case VALUE_WORDS:
			fputs("\t\t\t_perftop_list \"", out);
			value_words(out, o->arg);
			fputs("\"\n", out);
			break;
		case VALUE_SORT:
			fputs("\t\t\t_perftop_list \"", out);
			for (int k = 0; k < SORT_KEY_COUNT; k++)
				fprintf(out, "%s%s", k ? " " : "", sort_key_name((enum sort_key)k));
			fputs("\"\n", out);
			break;
		case VALUE_NONE:
			break;
		}
		fputs("\t\t\treturn\n\t\t\t;;\n", out);
	}
}

void doc_bash(FILE *out)
{
	fputs("# bash completion for perftop(1), written by perftop_docgen from perftop's option "
	      "table: do not edit.\n\n", out);
	/* A comma list (-p 1,2 / -s dso,sym) completes its last item. */
	fputs("_perftop_list()\n{\n\tlocal head=\"\" last=$cur\n"
	      "\tif [[ $cur == *,* ]]; then head=${cur%,*},; last=${cur##*,}; fi\n"
	      "\tlocal IFS=$' \\t\\n'\n"
	      "\tCOMPREPLY=($(compgen -P \"$head\" -W \"$1\" -- \"$last\"))\n}\n\n", out);
	fputs("_perftop()\n{\n\tlocal cur prev words cword\n"
	      "\tif declare -F _init_completion >/dev/null; then\n"
	      "\t\t_init_completion || return\n\telse\n"
	      "\t\twords=(\"${COMP_WORDS[@]}\"); cword=$COMP_CWORD\n"
	      "\t\tcur=${words[cword]}; prev=${words[cword - 1]}\n\tfi\n\n", out);
	/* Where the command starts: after "--", or at the first word that is neither an option nor
	 * an option's value. */
	fputs("\tlocal i takes=\" ", out);
	option_words(out, true, " ");
	fputs(" \"\n", out);
	fputs("\tfor ((i = 1; i < cword; i++)); do\n"
	      "\t\tif [[ ${words[i]} == -- ]]; then\n"
	      "\t\t\t((i + 1 <= cword)) && declare -F _command_offset >/dev/null && _command_offset $((i + 1))\n"
	      "\t\t\treturn\n"
	      "\t\telif [[ $takes == *\" ${words[i]} \"* ]]; then\n"
	      "\t\t\t((i++))\n"
	      "\t\telif [[ ${words[i]} != -* ]]; then\n"
	      "\t\t\tdeclare -F _command_offset >/dev/null && _command_offset $i\n"
	      "\t\t\treturn\n\t\tfi\n\tdone\n\n", out);
	fputs("\tcase $prev in\n", out);
	bash_values(out);
	fputs("\tesac\n\n", out);
	fputs("\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"", out);
	option_words(out, false, " ");
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n", out);
	fputs("\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n}\n\ncomplete -F _perftop perftop\n", out);
}

/* zsh: one _arguments spec a line. Brackets and colons of the help text would end the spec's
 * fields: they become parentheses and spaces. */
static void zsh_text(FILE *out, const char *s)
{
	for (; *s && *s != '\n'; s++) {
		char c = *s == '[' ? '(' : *s == ']' ? ')' : *s == ':' ? ' ' : *s;
		if (c == '\'')
			fputs("'\\''", out);
		else if (c == '\\' || c == '`' || c == '$')
			fprintf(out, "\\%c", c);
		else
			fputc(c, out);
	}
}

static void zsh_action(FILE *out, const char *arg)
{
	fputc(':', out);
	zsh_text(out, arg);
	fputc(':', out);
	switch (value_kind(arg)) {
	case VALUE_FILE:
		fputs("_files", out);
		break;
	case VALUE_DIR:
		fputs("_files -/", out);
		break;
	case VALUE_PID:
		fputs("_pids", out);
		break;
	case VALUE_WORDS:
		fputs("(", out);
		value_words(out, arg);
		fputs(")", out);
		break;
	case VALUE_SORT:
		fputs("_sequence compadd - ", out);
		for (int k = 0; k < SORT_KEY_COUNT; k++)
			fprintf(out, "%s%s", k ? " " : "", sort_key_name((enum sort_key)k));
		break;
	case VALUE_NONE:
		fputs(" ", out);
		break;
	}
}

void doc_zsh(FILE *out)
{
	fputs("#compdef perftop\n# zsh completion for perftop(1), written by perftop_docgen from "
	      "perftop's option table: do not edit.\n\n_arguments -s -S \\\n", out);
	size_t n;
	const struct cli_option *opts = cli_options(&n);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		if (!o->set || (o->flags & CLI_HIDDEN))
			continue;
		const char *names[2] = { NULL, NULL };
		char letter[3] = { '-', o->letter, 0 }, name[96];
		snprintf(name, sizeof(name), "--%s", o->name ? o->name : "");
		if (o->letter)
			names[0] = letter;
		if (o->name)
			names[1] = name;
		for (int k = 0; k < 2; k++) {
			if (!names[k])
				continue;
			fprintf(out, "\t'%s[", names[k]);
			zsh_text(out, o->help);
			fputc(']', out);
			if (o->arg)
				zsh_action(out, o->arg);
			fputs("' \\\n", out);
		}
	}
	fputs("\t'(-)1:command:_command_names -e' \\\n\t'*::arguments:_normal'\n", out);
}
