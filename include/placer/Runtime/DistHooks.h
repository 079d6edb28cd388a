/*===- DistHooks.h - MPI transfers of split programs ---------------*- C -*-===*
 *
 * The C interface between stage programs (one MPI rank per device), their
 * host (placer-run) and Open MPI; see lib/Runtime/hooks/DistHooks.c and
 * docs/Execution.md. Errors inside transfers print a message naming the
 * rank, channel and microbatch and abort the whole MPI job: a stage program
 * has no way to recover from a lost peer, and the other ranks must not hang.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_RUNTIME_DISTHOOKS_H
#define PLACER_RUNTIME_DISTHOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one rank's transfers cost since placer_dist_begin. */
typedef struct placer_dist_stats {
  double recv_wait_seconds; /* waiting for messages to arrive */
  double send_wait_seconds; /* waiting for a send buffer to free up */
  int64_t bytes_sent, messages_sent, bytes_received;
} placer_dist_stats;

/* Host side. placer_dist_init starts MPI (errors returned, not fatal) and
 * gives this process's rank and the number of ranks; 0 on success,
 * PLACER_DIST_NO_MPI in a runtime built without MPI. */
#define PLACER_DIST_NO_MPI (-2)
int placer_dist_init(int *argc, char ***argv, int *rank, int *size);
int placer_dist_finalize(void);
/* Ends the whole job with `code` (after printing the error). */
void placer_dist_abort(int code);
/* A transfer that waits longer than this fails (default 60 s). */
void placer_dist_set_timeout(double seconds);
/* 1 when every rank passes 1, else 0 (a collective: all ranks call it). */
int placer_dist_all(int ok);
/* 1 when every rank passes the same value (a collective). */
int placer_dist_same(uint64_t value);
/* Gathers `count` doubles from every rank into `all` on rank 0. */
int placer_dist_gather(const double *values, int count, double *all);
int placer_dist_barrier(void);
/* Seconds on MPI's clock (MPI_Wtime). */
double placer_dist_time(void);
/* This rank runs copy `copy` of a stage on `replicas` consecutive ranks:
 * the microbatches m with m mod replicas = copy (default: 1, 0). */
void placer_dist_set_copy(int64_t replicas, int64_t copy);
/* Starts a pass of `microbatches` microbatches, of which this rank runs
 * its copy's: transfers restart and the statistics start at zero. */
void placer_dist_begin(int64_t microbatches);
/* Before each call of the stage program: the microbatch it computes, which
 * routes its transfers to and from replicated peers. */
void placer_dist_set_microbatch(int64_t microbatch);
/* Completes the pass's outstanding sends. */
void placer_dist_end(void);
const placer_dist_stats *placer_dist_get_stats(void);
/* After a pass, on every rank of a replicated stage: `rows` holds one row
 * of `row_bytes` per microbatch of the pass; the copies send theirs to the
 * stage's first rank, which fills the others' rows. 0 on success. */
int placer_dist_collect(void *rows, int64_t row_bytes);

/* Program side (--placer-lower-dist-to-mpi): one call per microbatch and
 * channel; `tag` is the channel, the peer's stage runs on `replicas` ranks
 * from `rank`, and the current microbatch m goes to rank + m mod replicas. */
void placer_dist_send(const void *data, int64_t bytes, int64_t rank,
                      int64_t replicas, int64_t tag);
void placer_dist_recv(void *data, int64_t bytes, int64_t rank, int64_t replicas,
                      int64_t tag);
/* transfers=blocking: the peer rank of the current microbatch. */
int32_t placer_dist_route(int64_t rank, int64_t replicas);
/* Between the program's ops: lets MPI advance transfers in flight. */
void placer_dist_progress(void);
/* The collectives of a tensor-parallel group of `count` ranks from `first`,
 * `stride` apart (as compiled for copy 0 of the group's stages; a rank of
 * data-parallel copy c takes the group c ranks further), each called by
 * every rank of the group at the same point of its program. An all-reduce
 * sums `elements` of kind 0 (f32), 1 (f64), 2 (i32), 3 (i64), 4 (f16) or
 * 5 (bf16) into `out`, adding the ranks' tensors in rank order on every rank
 * (the same bits everywhere, run after run; half precision widened to f32,
 * summed and rounded once to nearest even); an all-gather concatenates
 * each rank's slice
 * of `rows` rows of `row_bytes` along the axis after the rows, in rank
 * order. */
void placer_dist_all_reduce(const void *in, void *out, int64_t elements,
                            int64_t kind, int64_t first, int64_t count,
                            int64_t stride);
void placer_dist_all_gather(const void *in, void *out, int64_t rows,
                            int64_t row_bytes, int64_t first, int64_t count,
                            int64_t stride);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_RUNTIME_DISTHOOKS_H */
