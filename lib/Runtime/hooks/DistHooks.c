/*===- DistHooks.c - MPI transfers of split programs ----------------------===*
 *
 * Upstream MLIR 22 lowers blocking mpi.send/recv but not isend/irecv/wait,
 * and Open MPI sends anything above its eager limit (a few KiB) only once
 * the receiver is there: blocking transfers would serialize the pipeline.
 * Here every channel has two staging buffers per direction:
 *   - a send copies the tensor into the next free slot and posts MPI_Isend,
 *     so the sender computes on while the message travels;
 *   - receives are posted two microbatches ahead (MPI_Irecv), so microbatch
 *     m + 1 lands while microbatch m is computed; a recv waits for its slot,
 *     copies the tensor out and reposts the slot for microbatch m + 2.
 * Messages between two ranks on one tag never overtake each other, so slot
 * m % 2 always holds microbatch m. Every wait polls with a deadline, so a
 * missing peer is an error, never a hang.
 *
 *===----------------------------------------------------------------------===*/

#include "placer/Runtime/DistHooks.h"

#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One direction of one channel as this rank sees it. */
typedef struct Channel {
  int64_t tag, peer, bytes;
  int isSend;
  void *slot[2];
  MPI_Request request[2];
  MPI_Status status[2]; /* of a completed receive, kept for its size */
  int64_t calls;  /* microbatches sent / received so far in this pass */
  int64_t posted; /* receives posted so far in this pass */
} Channel;

static Channel *channels;
static int64_t numChannels, capacity;
static int64_t microbatchesPerPass = 1;
static double timeoutSeconds = 60.0;
/* Requests posted and not yet completed, and when progress last ran. */
static int64_t inFlight;
static double lastProgress;
static placer_dist_stats stats;
static int myRank = -1;

/* Prints the error (arguments are long long) and ends the job. */
static void fail(const char *format, ...) {
  /* One write: mpirun's banner for the aborted job must not land inside
     the line (stderr is unbuffered). */
  char line[1024];
  int length = snprintf(line, sizeof(line), "placer-run: error: rank %d: ",
                        myRank);
  va_list args;
  va_start(args, format);
  if (length >= 0 && length < (int)sizeof(line))
    vsnprintf(line + length, sizeof(line) - length, format, args);
  va_end(args);
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static void check(int code, const char *what, const Channel *channel) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  fprintf(stderr,
          "placer-run: error: rank %d: %s on channel %lld with rank %lld "
          "(microbatch %lld): %s\n",
          myRank, what, channel ? (long long)channel->tag : -1LL,
          channel ? (long long)channel->peer : -1LL,
          channel ? (long long)channel->calls : -1LL, text);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* Tests slot `s` of `c`; 1 once its request has completed (its status kept). */
static int testSlot(Channel *c, int s) {
  if (c->request[s] == MPI_REQUEST_NULL)
    return 1;
  int done = 0;
  check(MPI_Test(&c->request[s], &done, &c->status[s]),
        c->isSend ? "send failed" : "receive failed", c);
  if (done)
    --inFlight;
  return done;
}

/* Waits for slot `s` of `c`, polling so that the deadline holds; the time
 * spent is added to `*waited`. */
static void waitFor(Channel *c, int s, double *waited) {
  double start = MPI_Wtime();
  for (long spins = 0; !testSlot(c, s); ++spins) {
    double elapsed = MPI_Wtime() - start;
    if (elapsed > timeoutSeconds)
      fail(c->isSend
               ? "rank %lld took no message on channel %lld for %g s "
                 "(microbatch %lld): did it fail or run another program?"
               : "no message from rank %lld on channel %lld for %g s "
                 "(microbatch %lld): did it fail or run another program?",
           (long long)c->peer, (long long)c->tag, timeoutSeconds,
           (long long)c->calls);
    /* Give the core back to ranks sharing it (oversubscribed runs). */
    if (elapsed > 1e-3) {
      struct timespec pause = {0, 20000};
      nanosleep(&pause, NULL);
    } else if (spins % 64 == 63) {
      sched_yield();
    }
  }
  *waited += MPI_Wtime() - start;
}

/* Lets MPI move messages in flight while the program computes: without an
 * MPI call on both sides, a large message can wait for the next transfer.
 * Cheap when called often: at most once per 20 us. */
void placer_dist_progress(void) {
  if (inFlight == 0)
    return;
  double now = MPI_Wtime();
  if (now - lastProgress < 20e-6)
    return;
  lastProgress = now;
  for (int64_t i = 0; i < numChannels; ++i)
    for (int s = 0; s < 2; ++s)
      testSlot(&channels[i], s);
}

static Channel *channelFor(int64_t tag, int64_t peer, int64_t bytes,
                           int isSend) {
  for (int64_t i = 0; i < numChannels; ++i) {
    Channel *c = &channels[i];
    if (c->tag != tag || c->isSend != isSend)
      continue;
    if (c->peer != peer || c->bytes != bytes)
      fail("channel %lld is used with rank %lld and %lld bytes, and also "
           "with rank %lld and %lld bytes",
           (long long)tag, (long long)c->peer, (long long)c->bytes,
           (long long)peer, (long long)bytes);
    return c;
  }
  if (bytes < 0 || bytes > INT_MAX)
    fail("channel %lld carries %lld bytes; one MPI message holds at most %d",
         (long long)tag, (long long)bytes, INT_MAX);
  if (tag < 0 || tag > 32767)
    fail("channel %lld does not fit an MPI tag (0..32767)", (long long)tag);
  if (numChannels == capacity) {
    capacity = capacity ? 2 * capacity : 8;
    channels = realloc(channels, (size_t)capacity * sizeof(Channel));
    if (!channels)
      fail("out of memory for %lld channels", (long long)capacity);
  }
  Channel *c = &channels[numChannels++];
  memset(c, 0, sizeof(*c));
  c->tag = tag;
  c->peer = peer;
  c->bytes = bytes;
  c->isSend = isSend;
  for (int s = 0; s < 2; ++s) {
    c->slot[s] = malloc(bytes > 0 ? (size_t)bytes : 1);
    c->request[s] = MPI_REQUEST_NULL;
    if (!c->slot[s])
      fail("out of memory for the %lld-byte buffers of channel %lld",
           (long long)bytes, (long long)tag);
  }
  return c;
}

static void postReceive(Channel *c) {
  int s = (int)(c->posted % 2);
  check(MPI_Irecv(c->slot[s], (int)c->bytes, MPI_BYTE, (int)c->peer,
                  (int)c->tag, MPI_COMM_WORLD, &c->request[s]),
        "posting a receive failed", c);
  ++c->posted;
  ++inFlight;
}

void placer_dist_send(const void *data, int64_t bytes, int64_t rank,
                      int64_t tag) {
  Channel *c = channelFor(tag, rank, bytes, 1);
  int s = (int)(c->calls % 2);
  waitFor(c, s, &stats.send_wait_seconds);
  memcpy(c->slot[s], data, (size_t)bytes);
  check(MPI_Isend(c->slot[s], (int)bytes, MPI_BYTE, (int)rank, (int)tag,
                  MPI_COMM_WORLD, &c->request[s]),
        "send failed", c);
  ++inFlight;
  ++c->calls;
  stats.bytes_sent += bytes;
  ++stats.messages_sent;
}

void placer_dist_recv(void *data, int64_t bytes, int64_t rank, int64_t tag) {
  Channel *c = channelFor(tag, rank, bytes, 0);
  if (c->calls >= microbatchesPerPass)
    fail("channel %lld: receive %lld in a pass of %lld microbatches",
         (long long)tag, (long long)(c->calls + 1),
         (long long)microbatchesPerPass);
  while (c->posted < microbatchesPerPass && c->posted < c->calls + 2)
    postReceive(c);
  int s = (int)(c->calls % 2);
  waitFor(c, s, &stats.recv_wait_seconds);
  int count = 0;
  MPI_Get_count(&c->status[s], MPI_BYTE, &count);
  if (count != bytes)
    fail("channel %lld from rank %lld carried %lld bytes, %lld expected",
         (long long)tag, (long long)rank, (long long)count, (long long)bytes);
  memcpy(data, c->slot[s], (size_t)bytes);
  ++c->calls;
  stats.bytes_received += bytes;
  if (c->posted < microbatchesPerPass)
    postReceive(c);
}

void placer_dist_begin(int64_t microbatches) {
  microbatchesPerPass = microbatches;
  for (int64_t i = 0; i < numChannels; ++i)
    channels[i].calls = channels[i].posted = 0;
  memset(&stats, 0, sizeof(stats));
}

void placer_dist_end(void) {
  for (int64_t i = 0; i < numChannels; ++i) {
    Channel *c = &channels[i];
    for (int s = 0; s < 2; ++s)
      waitFor(c, s,
              c->isSend ? &stats.send_wait_seconds : &stats.recv_wait_seconds);
  }
}

const placer_dist_stats *placer_dist_get_stats(void) { return &stats; }

int placer_dist_init(int *argc, char ***argv, int *rank, int *size) {
  if (MPI_Init(argc, argv) != MPI_SUCCESS)
    return -1;
  /* Errors come back as codes, so that messages can name the channel. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  myRank = *rank;
  return 0;
}

int placer_dist_finalize(void) {
  for (int64_t i = 0; i < numChannels; ++i)
    for (int s = 0; s < 2; ++s)
      free(channels[i].slot[s]);
  free(channels);
  channels = NULL;
  numChannels = capacity = inFlight = 0;
  return MPI_Finalize() == MPI_SUCCESS ? 0 : -1;
}

void placer_dist_abort(int code) {
  fflush(stdout);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  exit(code);
}

void placer_dist_set_timeout(double seconds) { timeoutSeconds = seconds; }

int placer_dist_all(int ok) {
  int all = 0;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
      MPI_SUCCESS)
    return 0;
  return all;
}

int placer_dist_same(uint64_t value) {
  unsigned long long local[2] = {value, ~value}, reduced[2];
  if (MPI_Allreduce(local, reduced, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                    MPI_COMM_WORLD) != MPI_SUCCESS)
    return 0;
  /* max(v) == v and max(~v) == ~v on every rank iff all values are equal. */
  return reduced[0] == value && reduced[1] == ~value;
}

int placer_dist_gather(const double *values, int count, double *all) {
  return MPI_Gather(values, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0,
                    MPI_COMM_WORLD) == MPI_SUCCESS
             ? 0
             : -1;
}

int placer_dist_barrier(void) {
  return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

double placer_dist_time(void) { return MPI_Wtime(); }
