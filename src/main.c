/*
 * perftop: a top-like profiler on perf_event_open.
 *
 * main parses the options, opens the session (sampler thread -> queue -> symbolizer -> model) and
 * hands it to one of two front ends: the batch printer (-b) or the full-screen view. Errors a user
 * can cause end here as one line on stderr and a non-zero exit, before any terminal state changes.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "batch.h"
#include "cli.h"
#include "session.h"
#include "ui/tui.h"
#include "util/util.h"

struct tui_glue {
	struct session *session;
	char notice[160];
	char exit_text[160];
};

static void glue_poll(void *ctx)
{
	struct tui_glue *g = ctx;
	session_poll(g->session);
}

static struct snapshot *glue_refresh(void *ctx, enum snap_col order, bool zero)
{
	struct tui_glue *g = ctx;
	return session_refresh(g->session, order, zero);
}

static void describe_exit(char *buf, size_t len, const char *name, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "%s exited with status %d", name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "%s was killed by signal %d (%s)", name, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "%s exited", name);
}

static void glue_header(void *ctx, struct view_header *h)
{
	struct tui_glue *g = ctx;
	struct session_status st;
	session_get_status(g->session, &st);
	memset(h, 0, sizeof(*h));
	h->target = st.target_text;
	h->event = st.event;
	h->freq = st.freq;
	h->period = st.period;
	h->samples_per_sec = st.samples_per_sec;
	h->lost = st.lost;
	h->dropped = st.dropped;
	h->elapsed = st.elapsed;
	h->notice = g->notice[0] ? g->notice : NULL;
	h->target_exited = st.target_exited;
	if (st.target_exited) {
		if (st.command_name)
			describe_exit(g->exit_text, sizeof(g->exit_text), st.command_name, st.exit_status);
		else
			snprintf(g->exit_text, sizeof(g->exit_text), "the profiled processes have exited");
		h->exit_text = g->exit_text;
	}
}


int main(int argc, char **argv)
{
	struct cli cli;
	char err[512] = "";
	/* libdwfl's standard debuginfo lookup would query debuginfod servers synchronously, on the
	 * thread that draws the view; until fetching runs in the background (the debug-info issue),
	 * perftop uses only local debug files. */
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

	if (cli.input) {
		fprintf(stderr, "perftop: -i (replay) is not available in this build yet\n");
		return 2;
	}
	struct session *s = session_open(&cli, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "perftop: %s\n", err);
		return 1;
	}
	struct session_status st;
	session_get_status(s, &st);
	char notice[160] = "";
	if (st.event_fell_back) {
		snprintf(notice, sizeof(notice), "no hardware PMU on this machine: sampling %s instead of cycles",
			 st.event);
		if (cli.batch)
			fprintf(stderr, "perftop: %s\n", notice);
	}
	if (session_start(s, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		session_close(s);
		return 1;
	}

	int rc;
	if (cli.batch) {
		rc = batch_run(s, &cli);
	} else {
		struct tui_glue g = {.session = s};
		snprintf(g.notice, sizeof(g.notice), "%s", notice);
		struct tui_source src = {
			.ctx = &g,
			.poll = glue_poll,
			.refresh = glue_refresh,
			.header = glue_header,
			.refresh_secs = cli.delay,
			.zero = cli.zero,
		};
		rc = tui_run(&src);
	}
	session_close(s);
	return rc;
}
