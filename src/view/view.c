/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view: the full-screen front end's glue. The view (ui/tui.h) asks a tui_source for snapshots,
 * headers, annotations, zooms and replay controls; this answers from a session, and keeps the
 * settings file (settings/settings.h) beside the view: read at start, written back at quit with
 * only what the user changed. Main thread only, as the session and the view are.
 */
#include "view/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "session/replay.h"
#include "settings/settings.h"
#include "ui/tui.h"
#include "util/util.h"

struct tui_glue {
	struct session *session;
	char notice[400];
	char notices[900];         /* the session's notice and notice together */
	char exit_text[160];
	bool replay_fed;           /* a replay fed records (or seeked) since the last snapshot */
	bool replay_shown;         /* a snapshot of the replay was handed out */
};

static long glue_poll(void *ctx)
{
	struct tui_glue *g = ctx;
	long taken = session_poll(g->session);
	if (taken > 0)
		g->replay_fed = true;
	return taken;
}

static void glue_rename(void *ctx, struct snapshot *snap, bool demangle)
{
	struct tui_glue *g = ctx;
	session_rename(g->session, snap, demangle);
}

static const char *glue_move_name(void *ctx, const char *name)
{
	struct tui_glue *g = ctx;
	return session_name(g->session, name);
}

static struct an_doc *glue_annotate(void *ctx, const char *raw_sym, const char *dso)
{
	struct tui_glue *g = ctx;
	return session_annotate(g->session, raw_sym, dso);
}

static struct snapshot *glue_refresh(void *ctx, enum snap_col order, bool zero)
{
	struct tui_glue *g = ctx;
	struct replay *rp = session_replay(g->session);
	if (rp) {
		/* At the end of the recording nothing more comes: the last table stays on screen (NULL,
		 * tui.h) rather than decaying or zeroing away, until a seek or a range change. */
		if (g->replay_shown && !g->replay_fed && replay_at_end(rp))
			return NULL;
		g->replay_fed = false;
		g->replay_shown = true;
	}
	return session_refresh(g->session, order, zero);
}

static struct snapshot *glue_switch_event(void *ctx, int ev, struct snapshot *shown)
{
	struct tui_glue *g = ctx;
	return session_switch_event(g->session, ev, shown);
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

/* The counters line: live only (a recording holds no counters; its rate and losses are on the
 * summary line already). */
static void glue_counters(struct view_header *h, const struct session_counters *cp)
{
	const struct session_counters c = *cp;
	if (!c.live)
		return;
	h->counters = true;
	h->ctx_switches = c.have[COUNTER_CTX_SWITCHES] ? c.per_sec[COUNTER_CTX_SWITCHES] : -1;
	h->migrations = c.have[COUNTER_MIGRATIONS] ? c.per_sec[COUNTER_MIGRATIONS] : -1;
	h->page_faults = c.have[COUNTER_PAGE_FAULTS] ? c.per_sec[COUNTER_PAGE_FAULTS] : -1;
	h->cycles = c.have[COUNTER_CYCLES] ? c.per_sec[COUNTER_CYCLES] : -1;
	h->instructions = c.have[COUNTER_INSTRUCTIONS] ? c.per_sec[COUNTER_INSTRUCTIONS] : -1;
	h->ipc = c.ipc;
	h->cache_misses = c.have[COUNTER_CACHE_MISSES] ? c.per_sec[COUNTER_CACHE_MISSES] : -1;
	h->branch_misses = c.have[COUNTER_BRANCH_MISSES] ? c.per_sec[COUNTER_BRANCH_MISSES] : -1;
	h->multiplexed = c.multiplexed;
	h->throttled = c.throttled;
	h->self_cpu = c.cpu_pct;
}

static void glue_header(void *ctx, struct view_header *h)
{
	struct tui_glue *g = ctx;
	struct session_status st;
	session_get_status(g->session, &st);
	memset(h, 0, sizeof(*h));
	h->target = st.target_text;
	struct replay *rp = session_replay(g->session);
	h->stream = rp && replay_is_stream(rp) && !replay_at_end(rp);
	h->event = st.event;
	h->event_index = session_event(g->session);
	h->nevents = session_nevents(g->session);
	h->freq = st.freq;
	h->period = st.period;
	h->samples_per_sec = st.samples_per_sec;
	h->lost = st.lost;
	h->dropped = st.dropped;
	h->dwarf = st.unwound >= 0;
	h->unwound = st.unwound;
	h->elapsed = st.elapsed;
	glue_counters(h, &st.counters);
	h->push = st.pushing;
	h->push_sent = st.push.sent;
	h->push_failed = st.push.failed;
	h->push_dropped = st.push.dropped;
	/* The session's notice (a JVM's, Python's ...: news) first, then the one of the start (the
	 * event fallen back to, the settings refused), which would otherwise hide it for good. */
	const char *news = session_notice(g->session);
	h->notice = g->notice[0] ? g->notice : news;
	if (g->notice[0] && news) {
		snprintf(g->notices, sizeof(g->notices), "%s;  %s", news, g->notice);
		h->notice = g->notices;
	}
	h->target_exited = st.target_exited;
	if (st.target_exited) {
		if (st.command_name)
			describe_exit(g->exit_text, sizeof(g->exit_text), st.command_name, st.exit_status);
		else
			snprintf(g->exit_text, sizeof(g->exit_text), "the profiled processes have exited");
		h->exit_text = g->exit_text;
	}
}

/* The replay controls of the view, straight onto the replay engine. */
static struct replay *glue_replay(void *ctx)
{
	return session_replay(((struct tui_glue *)ctx)->session);
}

static double glue_r_duration(void *ctx)
{
	return replay_duration(glue_replay(ctx));
}

static double glue_r_position(void *ctx)
{
	return replay_position(glue_replay(ctx));
}

static const uint64_t *glue_r_histogram(void *ctx, size_t *n)
{
	return replay_histogram(glue_replay(ctx), n);
}

static void glue_r_set_paused(void *ctx, bool paused)
{
	replay_set_paused(glue_replay(ctx), paused);
}

static void glue_r_set_speed(void *ctx, double speed)
{
	replay_set_speed(glue_replay(ctx), speed);
}

static void glue_r_seek(void *ctx, double secs)
{
	struct tui_glue *g = ctx;
	g->replay_fed = true; /* the table starts over from the new position */
	if (replay_seek(glue_replay(ctx), secs) < 0)
		snprintf(g->notice, sizeof(g->notice), "a pipe cannot be rewound: seeking needs a file");
}

static void glue_r_set_range(void *ctx, double start, double end)
{
	struct replay *rp = glue_replay(ctx);
	replay_set_range(rp, start, end);
	/* the table shows the new range at once: rebuild up to where playback is */
	glue_r_seek(ctx, replay_position(rp));
}

/* A zoom starts the aggregation over; a replay is re-read up to where it is, so the table shows
 * the same stretch of the recording through the zoom (a live session fills again). */
static void glue_set_zoom(void *ctx, const struct sample_zoom *z)
{
	struct tui_glue *g = ctx;
	session_set_zoom(g->session, z);
	struct replay *rp = session_replay(g->session);
	if (rp)
		glue_r_seek(ctx, replay_position(rp));
}

static const char *const *glue_info(void *ctx, size_t *n)
{
	return (const char *const *)replay_header_lines(glue_replay(ctx), n);
}

static int glue_export(void *ctx, const char *path, const char *filter, char *msg, size_t len)
{
	struct tui_glue *g = ctx;
	return session_export_window(g->session, path, filter, msg, len);
}

static void glue_hold(void *ctx, bool hold)
{
	session_export_hold(((struct tui_glue *)ctx)->session, hold);
}

static const struct tui_replay glue_replay_ops = {
	.duration = glue_r_duration,
	.position = glue_r_position,
	.histogram = glue_r_histogram,
	.set_paused = glue_r_set_paused,
	.set_speed = glue_r_set_speed,
	.seek = glue_r_seek,
	.set_range = glue_r_set_range,
};

/* The settings file (settings/settings.h) and the command line: the file's settings are the view's
 * at start, except those an option of this run sets (-z, -d, --no-mouse, --no-demangle, --diff's
 * order), which win for the run; at quit only what the user changed in the view is written back
 * over the file's, so an option is never saved, and a file that was rejected is not overwritten
 * unless a setting was changed. The batch mode (-b) neither reads nor writes it: its output is for
 * scripts and must not depend on what a view was left at. */
struct kept_settings {
	char *path;
	struct settings file;       /* as read: empty when there is none or it was rejected */
	struct tui_settings start;  /* what the view started with */
	struct tui_settings end;    /* what it quit with */
};

/* Whether a saved order is a column of this session's table. */
static bool order_fits(enum snap_col order, const struct cli *cli)
{
	if (order >= COL_COUNT || (order == COL_DELTA && !cli->session.diff_base))
		return false;
	bool time_col = order == COL_TIME || order == COL_BLOCKS || order == COL_LONGEST;
	return !time_col || cli->session.mode != PROFILE_SAMPLES;
}

static void settings_start(struct kept_settings *k, const struct cli *cli, struct tui_source *src,
			   char *notice, size_t len)
{
	char err[600];
	k->path = settings_path();
	if (k->path && settings_load(k->path, &k->file, err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s: using the default settings\n", err);
		size_t at = strlen(notice);
		snprintf(notice + at, len - at, "%s%s: default settings used", at ? ";  " : "", err);
	}
	const struct settings *f = &k->file;
	if (SETTINGS_HAS(f, SETTINGS_ORDER) && !cli->session.diff_base && order_fits(f->order, cli))
		src->order = f->order;
	if (SETTINGS_HAS(f, SETTINGS_INVERT) && !cli->session.diff_base)
		src->invert = f->invert;
	if (SETTINGS_HAS(f, SETTINGS_ZERO) && !cli->zero)
		src->zero = f->zero;
	if (SETTINGS_HAS(f, SETTINGS_REFRESH) && !cli->delay_given)
		src->refresh_secs = f->refresh_secs;
	if (SETTINGS_HAS(f, SETTINGS_HIDDEN))
		src->hidden_cols = f->hidden_cols;
	if (SETTINGS_HAS(f, SETTINGS_ICICLE))
		src->icicle = f->icicle;
	if (SETTINGS_HAS(f, SETTINGS_MOUSE) && !cli->no_mouse)
		src->no_mouse = !f->mouse;
	if (SETTINGS_HAS(f, SETTINGS_RAW_NAMES) && !cli->session.no_demangle)
		src->demangle = !f->raw_names;
	k->start = (struct tui_settings){ .order = src->order, .invert = src->invert,
					  .zero = src->zero, .raw_names = !src->demangle,
					  .icicle = src->icicle, .hidden_cols = src->hidden_cols };
	k->end = k->start;
	src->at_quit = &k->end;
}

static void settings_finish(struct kept_settings *k)
{
	struct settings out = k->file;
	const struct tui_settings *a = &k->start, *b = &k->end;
	unsigned changed = 0;
	/* Only the changed ones: the others keep the file's value (not an option's of this run). */
#define TAKE_IF_CHANGED(field, bit)                                                                \
	if (a->field != b->field) {                                                                \
		out.field = b->field;                                                              \
		changed |= 1u << (bit);                                                            \
	}
	TAKE_IF_CHANGED(order, SETTINGS_ORDER)
	TAKE_IF_CHANGED(invert, SETTINGS_INVERT)
	TAKE_IF_CHANGED(zero, SETTINGS_ZERO)
	TAKE_IF_CHANGED(hidden_cols, SETTINGS_HIDDEN)
	TAKE_IF_CHANGED(icicle, SETTINGS_ICICLE)
	TAKE_IF_CHANGED(raw_names, SETTINGS_RAW_NAMES)
#undef TAKE_IF_CHANGED
	out.have |= changed;
	char err[600];
	if (changed && k->path && settings_save(k->path, &out, err, sizeof(err)) < 0)
		fprintf(stderr, "perftop: settings not saved: %s\n", err);
	free(k->path);
}

int view_run(struct session *s, const struct cli *cli, const char *notice)
{
	char err[512];
	struct tui_glue g = {.session = s};
	session_enable_calltree(s);
	session_enable_annotate(s, cli->prefixes, (size_t)cli->nprefixes);
	/* w writes the window on screen; --export the whole session at the end */
	if (!cli->nexports && session_export_windows(s, err, sizeof(err)) < 0)
		warn_msg("%s", err);
	snprintf(g.notice, sizeof(g.notice), "%s", notice);
	struct tui_source src = {
		.ctx = &g,
		.poll = glue_poll,
		.wake_fd = session_wake_fd(s),
		.refresh = glue_refresh,
		.rename = glue_rename,
		.annotate = glue_annotate,
		.demangle = !cli->session.no_demangle,
		.header = glue_header,
		.refresh_secs = cli->delay,
		.zero = cli->zero,
		.order = cli->session.diff_base ? COL_DELTA : COL_SELF,
		.set_zoom = glue_set_zoom,
		.no_mouse = cli->no_mouse,
		.move_name = glue_move_name,
		.nevents = session_nevents(s),
		.event = session_event(s),
		.switch_event = glue_switch_event,
		.export_window = glue_export,
		.hold_window = glue_hold,
	};
	if (cli->session.input) {
		src.replay = &glue_replay_ops;
		src.info = glue_info;
	}
	struct kept_settings kept = { 0 };
	settings_start(&kept, cli, &src, g.notice, sizeof(g.notice));
	int rc = tui_run(&src);
	settings_finish(&kept);
	return rc;
}
