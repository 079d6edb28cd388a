/*===- DistHooksNoMpi.c - The transfer hooks of a runtime without MPI -----===*
 *
 * `cmake -DPLACER_RUNTIME_ONLY=ON` builds where no MPI is installed get
 * these instead of DistHooks.c: whole programs run as one process, and
 * starting MPI says it is missing. The code of a split program's stage
 * calls send/recv, but the runner never runs a stage without MPI (it
 * refuses a split artifact before loading any), so those end the process
 * with a message rather than return wrong data.
 *
 *===----------------------------------------------------------------------===*/

#include "placer/Runtime/DistHooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static placer_dist_stats stats;

static void missing(const char *what) {
  fprintf(stderr, "placer-run: error: %s needs MPI, and this runtime was "
                  "built without it\n", what);
  exit(1);
}

int placer_dist_init(int *argc, char ***argv, int *rank, int *size) {
  *rank = 0;
  *size = 1;
  return PLACER_DIST_NO_MPI;
}
int placer_dist_finalize(void) { return 0; }
void placer_dist_abort(int code) {
  fflush(stdout);
  fflush(stderr);
  exit(code);
}
void placer_dist_set_timeout(double seconds) {}
int placer_dist_all(int ok) { return ok; }
int placer_dist_same(uint64_t value) { return 1; }
int placer_dist_gather(const double *values, int count, double *all) {
  memcpy(all, values, (size_t)count * sizeof(double));
  return 0;
}
int placer_dist_barrier(void) { return 0; }
double placer_dist_time(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
void placer_dist_set_copy(int64_t replicas, int64_t copy) {}
void placer_dist_begin(int64_t microbatches) {}
void placer_dist_set_microbatch(int64_t microbatch) {}
void placer_dist_end(void) {}
const placer_dist_stats *placer_dist_get_stats(void) { return &stats; }
int placer_dist_collect(void *rows, int64_t row_bytes) { return 0; }
void placer_dist_send(const void *data, int64_t bytes, int64_t rank,
                      int64_t replicas, int64_t tag) {
  missing("a transfer between stages");
}
void placer_dist_recv(void *data, int64_t bytes, int64_t rank,
                      int64_t replicas, int64_t tag) {
  missing("a transfer between stages");
}
int32_t placer_dist_route(int64_t rank, int64_t replicas) {
  missing("a transfer between stages");
  return 0;
}
void placer_dist_progress(void) {}

void placer_dist_all_reduce(const void *in, void *out, int64_t elements,
                            int64_t kind, int64_t first, int64_t count,
                            int64_t stride) {
  missing("a collective of a tensor-parallel group");
}

void placer_dist_all_gather(const void *in, void *out, int64_t rows,
                            int64_t row_bytes, int64_t first, int64_t count,
                            int64_t stride) {
  missing("a collective of a tensor-parallel group");
}
