/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perftop: a top-like profiler on perf_event_open.
 *
 * main parses the options, opens the session (sampler thread -> queue -> symbolizer -> model) and
 * hands it to one of two front ends: the batch printer (batch/, -b) or the full-screen view (view/,
 * the glue between the session and ui/). Errors a user can cause end here as one line on stderr
 * and a non-zero exit, before any terminal state changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "cli/cli.h"
#include "session/replay.h"
#include "session/session.h"
#include "symbolize/symbolizer.h"
#include "view/view.h"
#include "util/crash.h"
#include "util/privs.h"
#include "util/util.h"

/* --header: the recording's header info as "name: value" lines. */
static int print_header(const char *path)
{
	char err[512];
	struct perfdata_reader *rd = perfdata_open(path, err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "perftop: %s\n", err);
		return 1;
	}
	size_t n;
	char **lines = perfdata_header_lines(rd, &n);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	perfdata_free_lines(lines, n);
	perfdata_close(rd);
	return 0;
}

/* -o -: the stream goes to standard output as it was; what perftop and the profiled command would
 * print there goes elsewhere: batch text to standard error, the view to the terminal (/dev/tty).
 * Done before the session opens, so that the command starts with that standard output. */
static int stream_to_stdout(struct cli *cli, char *err, size_t errlen)
{
	if (isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "-o -: standard output is a terminal; send the stream to a pipe or a "
			 "file (perftop -o - ... | perftop -i -)");
		return -1;
	}
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	int to = cli->batch ? dup(STDERR_FILENO) : open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (fd < 0 || to < 0) {
		snprintf(err, errlen, fd < 0 ? "-o -: %s" : "-o -: the view needs a terminal (/dev/tty: %s); "
			 "-b prints text on standard error instead", strerror(errno));
		return -1;
	}
	fflush(stdout);
	dup2(to, STDOUT_FILENO);
	close(to);
	cli->session.output_fd = fd;
	return 0;
}

/* The one point where perftop, as root, gives up what the rest of the session does not need
 * (util/privs.h, docs/security.md): live, after the events are open, the start-up files read and
 * the command forked, before the first thread starts; a replay before its file is opened (its
 * read-ahead thread starts with it). Not root: nothing. */
static void drop_privileges(const struct cli *cli)
{
	bool live = !cli->session.input;
	struct privs_need n = {
		.live = live,
		.jit_attach = live && !cli->session.no_jit_attach,
		/* a recording (-o FILE) is renamed into its directory at its end, and its Python
		 * frames' file written then */
		.later_writes = !cli->batch || cli->nexports > 0 ||
				(cli->session.output && strcmp(cli->session.output, "-") != 0),
		.sudo = privs_under_sudo(),
	};
	char err[256];
	if (privs_drop(&n, err, sizeof(err)) < 0)
		fprintf(stderr, "perftop: warning: %s\n", err);
}

int main(int argc, char **argv)
{
	struct cli cli;
	char err[512] = "";
	crash_report_install();
	/* The child that fetches one debug file from debuginfod while the view goes on. */
	if (argc == 3 && strcmp(argv[1], "--debuginfod-fetch") == 0)
		return symbolizer_fetch_main(argv[2]);
	/* libdwfl would query debuginfod servers itself, synchronously, on the thread that draws the
	 * view: the URLs are taken out of the environment and handed to the symbolizer, whose fetches
	 * run in child processes. */
	const char *urls_env = getenv("DEBUGINFOD_URLS");
	char *urls = urls_env && urls_env[0] ? strdup(urls_env) : NULL;
	unsetenv("DEBUGINFOD_URLS");
	switch (cli_parse(argc, argv, &cli, err, sizeof(err))) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_ERROR:
		fprintf(stderr, "perftop: %s\n", err);
		return 2;
	case CLI_OK:
		break;
	}

	if (cli.session.output && !strcmp(cli.session.output, "-") && stream_to_stdout(&cli, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		free(urls);
		return 1;
	}
	symbolizer_configure_debuginfo(cli.symfs, urls);
	free(urls);
	if (cli.session.input && cli.header_only)
		return print_header(cli.session.input);
	if (cli.session.input)
		drop_privileges(&cli);
	struct session *s = cli.session.input ? session_open_file(&cli.session, err, sizeof(err))
				      : session_open(&cli.session, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "perftop: %s\n", err);
		return 1;
	}
	if (cli.session.diff_base && session_load_diff(s, &cli.session, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(s);
		return 1;
	}
	struct session_status st;
	session_get_status(s, &st);
	char notice[160] = "";
	if (st.event_fell_back) {
		snprintf(notice, sizeof(notice), "no hardware PMU on this machine: sampling %s instead of cycles",
			 st.event);
		if (cli.batch && !cli.quiet)
			fprintf(stderr, "perftop: %s\n", notice);
	}
	if (cli.nexports && session_enable_export(s, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(s);
		return 1;
	}
	if (!cli.session.input)
		drop_privileges(&cli);
	if (session_start(s, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(s);
		return 1;
	}

	int rc;
	if (cli.batch) {
		rc = batch_run(s, &cli);
	} else {
		rc = view_run(s, &cli, notice);
	}
	/* --export: the whole session (batch, or what the view ran), written once at its end */
	for (int i = 0; i < cli.nexports; i++) {
		if (session_export_write(s, cli.exports[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "perftop: %s\n", err);
			rc = 1;
		}
	}
	session_close(s);
	return rc;
}
