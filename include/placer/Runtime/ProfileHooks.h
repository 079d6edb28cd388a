/*===- ProfileHooks.h - Per-node timers for profiled programs -----*- C -*-===*
 *
 * The C interface between profiled programs and their host; see
 * lib/Runtime/hooks/ProfileHooks.c and docs/Execution.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_RUNTIME_PROFILEHOOKS_H
#define PLACER_RUNTIME_PROFILEHOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Host side: zeroes `nodes` counters (0 on success, -1 out of memory). */
int placer_profile_reset(int64_t nodes);
/* Host side: seconds spent in each node since the last reset. */
const double *placer_profile_totals(void);
/* Host side: nodes timed by `enter` and `exit` (a GPU's events, which add
 * their times through placer_profile_add) instead of the host clock; both
 * null: the host clock again. */
void placer_profile_set_timer(void (*enter)(int64_t node),
                              void (*exit)(int64_t node));
/* Adds `seconds` to node `node`'s counter. */
void placer_profile_add(int64_t node, double seconds);

/* Program side: called around the code of node `node`. */
void placer_profile_enter(int64_t node);
void placer_profile_exit(int64_t node);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_RUNTIME_PROFILEHOOKS_H */
