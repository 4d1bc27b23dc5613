/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui: the loop of the live view. Each tick (about 50 ms, the wait for a key) it lets the source
 * take in what the sampler produced, ends a refresh window when one is due, renders a frame and
 * sends it to the terminal only if it differs from what is on screen. Keys are handled as they
 * come, between ticks.
 *
 * Timing: the first snapshots are asked for every 20 ms until one has rows, so data shows within
 * a few tenths of a second of the start instead of after the first full interval; so are those
 * after a zoom, whose aggregation starts over. Paused, the
 * screen keeps the snapshot it had while the windows go on ending (and decaying) on schedule, so a
 * view left paused for a day under churn holds what it held after a minute; resuming refreshes at
 * once. A screen paused while its table is empty (just after the start or a zoom) takes the
 * first window with rows, rather than hold an empty table.
 *
 * Replay: the same loop; the header's replay figures come from the source's tui_replay every tick,
 * Space pauses the replay itself (the source stops feeding), and a seek or a range change asks for
 * a snapshot at once, paused or not, since the table is then about another stretch of time.
 *
 * Several events: Tab hands the snapshot held back to the source and takes the next event's of the
 * same window (tui_source.switch_event); the drill-down views rebuild from it as from a refresh.
 *
 * Filter (\): the loop holds the source's snapshot (full) and shows a filtered copy of it (snap)
 * while a filter is in force; both are sorted alike, and the copy is made again after every new
 * snapshot, re-sort, rename or filter change, so the filter never needs the source. The r key's
 * run-queue view (time modes) is made the same way, before the filter: full, seen without (or with
 * only) the run-queue waits, then filtered. Zoom keys go
 * to the source (set_zoom), which starts its aggregation over.
 *
 * Warnings (warn_msg) would scribble over the screen on stderr, so while the view runs they go to
 * the notice line instead. They may come from another thread, hence the lock.
 */
#include "ui/tui.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "model/filter.h"
#include "ui/keys.h"
#include "ui/render.h"
#include "ui/surface.h"
#include "ui/term.h"
#include "ui/view.h"
#include "util/util.h"

#define TUI_TICK_MS 50
#define TUI_EARLY_TICK_MS 20
#define TUI_EARLY_REFRESH_NS 20000000ull
#define TUI_WARN_SHOW_NS 15000000000ull
#define TUI_DEFAULT_REFRESH_SECS 2.0
#define TUI_EARLY_SECS 3

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static char warn_text[256];
static uint64_t warn_at;

static void tui_warn(const char *msg)
{
	pthread_mutex_lock(&warn_lock);
	snprintf(warn_text, sizeof(warn_text), "%s", msg);
	warn_at = now_ns();
	pthread_mutex_unlock(&warn_lock);
}

/* The source's notice and a recent warning, in buf, as one line. */
static const char *tui_notice(const char *notice, char *buf, size_t len)
{
	char warn[sizeof(warn_text)] = "";
	pthread_mutex_lock(&warn_lock);
	if (warn_at && now_ns() - warn_at < TUI_WARN_SHOW_NS)
		memcpy(warn, warn_text, sizeof(warn));
	pthread_mutex_unlock(&warn_lock);
	if (!*warn)
		return notice;
	if (notice && *notice)
		snprintf(buf, len, "%s;  warning: %s", notice, warn);
	else
		snprintf(buf, len, "warning: %s", warn);
	return buf;
}

/*
 * Sleeps until there is something to do. A replay plays on this loop's clock: a tick. Live, while
 * records flow (the last poll took some), a tick too, so the queue is drained in time; idle, until
 * the next refresh, a key, or the source's wake_fd saying records came: an idle view (a target
 * that sleeps, or has exited) wakes once per refresh.
 */
static int tui_wait(const struct tui_source *src, long took, bool have_rows, uint64_t next_refresh)
{
	int tick = have_rows ? TUI_TICK_MS : TUI_EARLY_TICK_MS;
	if (src->replay)
		return term_wait(-1, tick);
	uint64_t now = now_ns();
	uint64_t ms = next_refresh > now ? (next_refresh - now + 999999) / 1000000 : 0;
	if (took > 0 || src->wake_fd < 0)
		return term_wait(-1, ms < (uint64_t)tick ? (int)ms : tick);
	return term_wait(src->wake_fd, ms > 60000 ? 60000 : (int)ms);
}

/* The held snapshot in the view's order: sorted, then reversed when inverted. */
static void order_snapshot(struct snapshot *s, const struct view_state *v)
{
	if (!s)
		return;
	snapshot_sort(s, v->order);
	if (v->invert)
		snapshot_invert(s);
}

/* What the loop keeps between ticks. */
struct tui_loop {
	const struct tui_source *src;
	struct view_state v;
	struct view_header hdr;
	char notice[512], was_notice[512];
	bool was_exited;
	/* snap: what is shown: full, or its copies: seen through the run-queue view (runq, or full
	 * itself), then filtered. */
	struct snapshot *full, *runq, *snap;
	/* start: of the session, or of the aggregation a zoom started over (the fast refreshes
	 * until the first rows count from it) */
	uint64_t start, next_refresh, refresh_ns;
	bool clear, force_refresh, dirty;
	int w, h;
};

static void loop_init(struct tui_loop *l, const struct tui_source *src)
{
	double refresh_secs = src->refresh_secs > 0 ? src->refresh_secs : TUI_DEFAULT_REFRESH_SECS;
	struct view_state *v = &l->v;
	l->src = src;
	l->refresh_ns = (uint64_t)(refresh_secs * 1e9);
	keys_state_init(v);
	v->color = v->color && term_has_color();
	v->zero = src->zero;
	v->runq = src->runq;
	v->order = src->order;
	v->invert = src->invert;
	v->hidden_cols = src->hidden_cols;
	v->icicle = src->icicle;
	v->raw_names = !src->demangle;
	v->refresh_secs = refresh_secs;
	v->replay = src->replay;
	v->replay_ctx = src->ctx;
	v->annotate = src->annotate;
	v->annotate_ctx = src->ctx;
	v->can_zoom = src->set_zoom != NULL;
	v->nevents = src->switch_event ? src->nevents : 1;
	v->event = src->event;
	l->start = l->next_refresh = now_ns();
	l->clear = l->dirty = true;
}

/* The header figures of this tick, from the source (and its replay and i page). */
static void loop_header(struct tui_loop *l)
{
	const struct tui_source *src = l->src;
	struct view_header *hdr = &l->hdr;
	memset(hdr, 0, sizeof(*hdr));
	if (src->header)
		src->header(src->ctx, hdr);
	hdr->notice = tui_notice(hdr->notice, l->notice, sizeof(l->notice));
	if (src->replay) {
		const struct tui_replay *r = src->replay;
		hdr->replay = true;
		hdr->duration = r->duration ? r->duration(src->ctx) : 0;
		hdr->position = r->position ? r->position(src->ctx) : 0;
		if (r->histogram)
			hdr->hist = r->histogram(src->ctx, &hdr->nhist);
		if (!hdr->hist)
			hdr->nhist = 0;
	}
	if (l->v.view == VIEW_INFO && src->info) {
		hdr->info = src->info(src->ctx, &hdr->ninfo);
		if (!hdr->info)
			hdr->ninfo = 0;
	}
	l->v.info_count = hdr->ninfo;
	/* What changes on screen between refreshes without a key: the exit line, a notice. */
	if (hdr->target_exited != l->was_exited ||
	    strcmp(hdr->notice ? hdr->notice : "", l->was_notice) != 0) {
		l->dirty = true;
		l->was_exited = hdr->target_exited;
		snprintf(l->was_notice, sizeof(l->was_notice), "%s", hdr->notice ? hdr->notice : "");
	}
}

/* Frees the copies made of full (the copies before the snapshot they come from). */
static void loop_drop_copies(struct tui_loop *l)
{
	if (l->snap != l->runq && l->snap != l->full)
		snapshot_free(l->snap);
	if (l->runq != l->full)
		snapshot_free(l->runq);
	l->snap = l->runq = NULL;
}

/* What the table shows, made again from full: its run-queue view, then its filtered copy. */
static void filter_snapshot(struct tui_loop *l)
{
	const struct view_state *v = &l->v;
	loop_drop_copies(l);
	l->runq = l->full;
	if (l->full && v->runq != RUNQ_ALL && snapshot_is_time(l->full)) {
		l->runq = snapshot_runq(l->full, v->runq);
		order_snapshot(l->runq, v);
	}
	l->snap = l->runq && v->filter[0] ? snapshot_filter(l->runq, v->filter) : l->runq;
}

/* The held snapshot changed (order, filter, names): what is shown is made again from it. */
static void loop_reshow(struct tui_loop *l, bool resort)
{
	if (resort)
		order_snapshot(l->full, &l->v);
	filter_snapshot(l);
	keys_follow(&l->v, l->snap, render_table_rows(l->h, &l->hdr));
}

/* Shows fresh instead of the snapshot held (freed), moving the names the views keep when fresh
 * is of another names generation. */
static void loop_take(struct tui_loop *l, struct snapshot *fresh, bool resort)
{
	const struct tui_source *src = l->src;
	/* Names the views keep came from the snapshot about to go. */
	if (l->full && src->move_name && fresh->names_gen != l->full->names_gen)
		view_move_names(&l->v, src->move_name, src->ctx);
	loop_drop_copies(l);
	snapshot_free(l->full);
	l->full = fresh;
	loop_reshow(l, resort);
	l->dirty = true;
}

/* Tab: event v.event's snapshot instead of the one held, which goes back to the source. */
static void loop_switch_event(struct tui_loop *l)
{
	const struct tui_source *src = l->src;
	loop_drop_copies(l);
	uint64_t gen = l->full ? l->full->names_gen : 0;
	bool had = l->full != NULL;
	struct snapshot *next = src->switch_event(src->ctx, l->v.event, l->full);
	l->full = NULL;
	l->dirty = true;
	if (!next) {
		l->force_refresh = true; /* nothing of that event yet: its first window now */
		return;
	}
	/* the views' names are of the generation of the snapshot given back */
	if (had && src->move_name && next->names_gen != gen)
		view_move_names(&l->v, src->move_name, src->ctx);
	l->full = next;
	loop_reshow(l, true);
}

/* Ends the refresh window when one is due (or asked for) and takes the new snapshot. */
static void loop_refresh(struct tui_loop *l)
{
	const struct tui_source *src = l->src;
	struct view_state *v = &l->v;
	uint64_t t = now_ns();
	/* A paused replay is not fed, so its windows must not end either. */
	bool paused_live = v->paused && !src->replay;
	if (!l->force_refresh && !((!v->paused || paused_live) && t >= l->next_refresh))
		return;
	/* Paused, the screen keeps what it holds, unless that is nothing: paused in the instant after
	 * the start or a zoom (their aggregation starts empty), it takes the first window with rows,
	 * and so does the export's collector (hold_window), which must stay the window on screen. A
	 * table with rows never changes under a pause: the cursor and clicks are on what was shown. */
	bool held_rows = l->full && l->full->nrows;
	bool take = !v->paused || l->force_refresh || !held_rows;
	bool release = paused_live && take && src->hold_window;
	if (release)
		src->hold_window(src->ctx, false);
	struct snapshot *fresh = src->refresh(src->ctx, v->order, v->zero);
	if (release)
		src->hold_window(src->ctx, true);
	if (fresh && !take) {
		snapshot_free(fresh);  /* the window ended; the screen keeps what it had */
		fresh = NULL;
	}
	l->force_refresh = false;
	if (fresh)
		loop_take(l, fresh, v->invert);
	/* Until the first rows are on screen (for a few seconds at most: a target that sleeps may
	 * never have any), refresh faster: time to first data is what a user notices first. */
	bool early = !(l->snap && l->snap->nrows) && t - l->start < TUI_EARLY_SECS * 1000000000ull;
	l->next_refresh = t + (early ? TUI_EARLY_REFRESH_NS : l->refresh_ns);
}

/* One key or mouse event, and what it asks of the loop. */
static void loop_key(struct tui_loop *l, int key)
{
	const struct tui_source *src = l->src;
	struct view_state *v = &l->v;
	unsigned act;
	l->dirty = true;
	if (key == KEYS_MOUSE) {
		struct keys_mouse m;
		term_last_mouse(&m);
		struct keys_geom g = { .title_y = render_table_y(&l->hdr),
				       .rows = render_table_rows(l->h, &l->hdr), .width = l->w,
				       .bar_y = l->h - 1 };
		if (v->depth)
			g.rows = render_body_rows(l->h, &l->hdr, v);
		act = keys_mouse(v, &m, l->snap, &g);
	} else {
		act = keys_handle(v, key, l->snap, render_body_rows(l->h, &l->hdr, v));
	}
	if ((act & (KEYS_ACT_RESORT | KEYS_ACT_FILTER)) && l->full)
		loop_reshow(l, act & KEYS_ACT_RESORT);
	if ((act & KEYS_ACT_ZOOM) && src->set_zoom) {
		src->set_zoom(src->ctx, &v->zoom);
		l->force_refresh = true;
		/* Its aggregation starts empty, and the sampler hands records over every 80 ms: refresh
		 * fast until rows come, as at the start, rather than show an empty window for a
		 * whole refresh interval. */
		l->start = now_ns();
	}
	if ((act & KEYS_ACT_PAUSE) && !v->paused)
		l->next_refresh = 0;
	if ((act & KEYS_ACT_PAUSE) && !src->replay && src->hold_window)
		src->hold_window(src->ctx, v->paused);
	if (act & KEYS_ACT_CLEAR)
		l->clear = true;
	if (act & KEYS_ACT_REFRESH)
		l->force_refresh = true;
	if ((act & KEYS_ACT_EVENT) && src->switch_event)
		loop_switch_event(l);
	if (act & KEYS_ACT_EXPORT) {
		if (src->export_window)
			src->export_window(src->ctx, v->export_path, v->filter, v->message,
					   sizeof(v->message));
		else
			snprintf(v->message, sizeof(v->message), "this session cannot write exports");
	}
	if ((act & KEYS_ACT_NAMES) && src->rename) {
		/* rename may bring full into the names' current generation (tui.h) */
		if (src->move_name)
			view_move_names(v, src->move_name, src->ctx);
		src->rename(src->ctx, l->full, !v->raw_names);
		if (l->full)
			loop_reshow(l, true);
	}
}

int tui_run(const struct tui_source *src)
{
	char err[256];
	if (term_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "perftop: %s\n", err);
		return 1;
	}
	util_set_warn_hook(tui_warn);

	struct tui_loop l = { 0 };
	loop_init(&l, src);
	term_set_mouse(!src->no_mouse);
	term_size(&l.w, &l.h);
	struct surface *frame = surface_new(l.w, l.h), *shown = surface_new(0, 0);

	while (!l.v.quit && !term_stop_signal()) {
		long took = src->poll ? src->poll(src->ctx) : 0;
		loop_header(&l);
		loop_refresh(&l);

		term_size(&l.w, &l.h);
		if (l.w != frame->w || l.h != frame->h) {
			surface_resize(frame, l.w, l.h);
			l.clear = l.dirty = true;
		}
		/* A frame is drawn when something on it changed: a snapshot, a key, the size, a replay's
		 * position (it moves every tick). */
		if (l.dirty || src->replay) {
			render_frame(frame, l.snap, &l.hdr, &l.v);
			if (l.clear || !surface_equal(frame, shown)) {
				term_blit(frame, shown, l.clear);
				surface_copy(shown, frame);
				l.clear = false;
			}
			l.dirty = false;
		}

		/* Keys are read only when the wait saw input or a signal (a resize comes as a key): the
		 * drain leaves curses holding none, so otherwise there is nothing to read, and each look
		 * is a system call (two of the three a quiet turn made). */
		int woke = tui_wait(src, took, l.snap && l.snap->nrows, l.next_refresh);
		if (woke & (TERM_WAIT_INPUT | TERM_WAIT_SIGNAL))
			for (int key = term_getkey(0); key != KEYS_NONE && !l.v.quit; key = term_getkey(0))
				loop_key(&l, key);
	}

	util_set_warn_hook(NULL);
	term_done();
	if (src->at_quit)
		*src->at_quit = (struct tui_settings){ .order = l.v.order, .invert = l.v.invert,
						       .zero = l.v.zero, .raw_names = l.v.raw_names,
						       .icicle = l.v.icicle,
						       .hidden_cols = l.v.hidden_cols };
	keys_state_done(&l.v);
	loop_drop_copies(&l);
	snapshot_free(l.full);
	surface_free(frame);
	surface_free(shown);
	return 0;
}
