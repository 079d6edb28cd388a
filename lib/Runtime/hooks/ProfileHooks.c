/*===- ProfileHooks.c - Per-node timers for profiled programs -------------===*
 *
 * A program lowered with --placer-lower-graph-to-linalg="profile=true" calls
 * placer_profile_enter/exit(node) around each node's code. The host
 * (placer-run) links the same shared library, so both sides see one set of
 * counters: it sizes them, runs the program, and reads the totals.
 *
 *===----------------------------------------------------------------------===*/

#include "placer/Runtime/ProfileHooks.h"

#include <stdlib.h>
#include <time.h>

static double *totals;
static double *starts;
static int64_t numNodes;
static void (*timerEnter)(int64_t);
static void (*timerExit)(int64_t);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int placer_profile_reset(int64_t nodes) {
  free(totals);
  free(starts);
  totals = calloc((size_t)nodes, sizeof(double));
  starts = calloc((size_t)nodes, sizeof(double));
  numNodes = totals && starts ? nodes : 0;
  return numNodes == nodes ? 0 : -1;
}

const double *placer_profile_totals(void) { return totals; }

void placer_profile_set_timer(void (*enter)(int64_t), void (*exit)(int64_t)) {
  timerEnter = enter;
  timerExit = exit;
}

/* A node number outside the counters (a program lowered for a different
 * host setup) is ignored rather than written out of bounds. */
void placer_profile_add(int64_t node, double seconds) {
  if (node >= 0 && node < numNodes)
    totals[node] += seconds;
}

void placer_profile_enter(int64_t node) {
  if (timerEnter)
    timerEnter(node);
  else if (node >= 0 && node < numNodes)
    starts[node] = now();
}

void placer_profile_exit(int64_t node) {
  if (timerExit)
    timerExit(node);
  else if (node >= 0 && node < numNodes)
    totals[node] += now() - starts[node];
}
