/* temporary stub (not committed) */
#include <stdlib.h>
#include "sampler/offcpu.h"
struct offcpu { int x; };
const char *offcpu_state_name(enum offcpu_state s) { static const char *n[] = {"", "S","D","R","R+","T","t","X","Z","P","I","?"}; return s < OFFCPU_NSTATES ? n[s] : "?"; }
enum offcpu_state offcpu_state_of(uint64_t v) { (void)v; return OFFCPU_S; }
struct offcpu *offcpu_new(const struct offcpu_opts *o) { (void)o; return calloc(1, sizeof(struct offcpu)); }
void offcpu_free(struct offcpu *oc) { free(oc); }
void offcpu_feed(struct offcpu *oc, const struct rec *r, offcpu_emit_fn emit, void *ctx) { (void)oc; emit(ctx, r); }
void offcpu_flush(struct offcpu *oc, uint64_t now, offcpu_emit_fn emit, void *ctx) { (void)oc; (void)now; (void)emit; (void)ctx; }
void offcpu_reset(struct offcpu *oc) { (void)oc; }
void offcpu_get_stats(const struct offcpu *oc, struct offcpu_stats *st) { (void)oc; *st = (struct offcpu_stats){0}; }
int offcpu_read_format(const char *t, struct offcpu_opts *o) { (void)t; o->prev_state_off = 32; o->prev_state_size = 8; o->next_pid_off = 56; o->next_pid_size = 4; return 0; }
