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
 * n % 2 always holds the n-th message. Every wait polls with a deadline, so
 * a missing peer is an error, never a hang.
 *
 * A replicated stage runs on several consecutive ranks, copy c of r taking
 * the microbatches m with m mod r = c. A transfer names its peer's first
 * rank and copies; microbatch m goes to first + m mod r. Each (tag, peer
 * rank) pair is a channel of its own, carrying the microbatches that both
 * ends run, in order.
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

/* One direction of one channel with one peer rank as this rank sees it. */
typedef struct Channel {
  int64_t tag, peer, bytes;
  int64_t peerReplicas, peerCopy; /* which copy of its stage the peer is */
  int64_t expected; /* messages per pass: the microbatches both ends run */
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
/* This rank's copy of its stage, and the microbatch its program computes. */
static int64_t myReplicas = 1, myCopy = 0, microbatch = 0;
static double timeoutSeconds = 60.0;
/* Requests posted and not yet completed, and when progress last ran. */
static int64_t inFlight;
static double lastProgress;
static placer_dist_stats stats;
static int myRank = -1;
/* The host's own messages (outputs collected from copies), apart from the
 * programs' channels. */
static MPI_Comm hostComm = MPI_COMM_NULL;

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

/* How many of a pass's microbatches this rank runs and sends to / receives
 * from copy `peerCopy` of `peerReplicas`. */
static int64_t sharedMicrobatches(int64_t peerReplicas, int64_t peerCopy) {
  int64_t count = 0;
  for (int64_t m = myCopy; m < microbatchesPerPass; m += myReplicas)
    count += m % peerReplicas == peerCopy;
  return count;
}

static Channel *channelFor(int64_t tag, int64_t first, int64_t replicas,
                           int64_t bytes, int isSend) {
  if (replicas < 1 || first < 0)
    fail("channel %lld names ranks %lld + %lld copies", (long long)tag,
         (long long)first, (long long)replicas);
  int64_t peer = first + microbatch % replicas;
  for (int64_t i = 0; i < numChannels; ++i) {
    Channel *c = &channels[i];
    if (c->tag != tag || c->isSend != isSend || c->peer != peer)
      continue;
    if (c->bytes != bytes || c->peerReplicas != replicas)
      fail("channel %lld with rank %lld is used with %lld bytes and %lld "
           "copies, and also with %lld bytes and %lld copies",
           (long long)tag, (long long)peer, (long long)c->bytes,
           (long long)c->peerReplicas, (long long)bytes, (long long)replicas);
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
  c->peerReplicas = replicas;
  c->peerCopy = peer - first;
  c->expected = sharedMicrobatches(replicas, c->peerCopy);
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
                      int64_t replicas, int64_t tag) {
  Channel *c = channelFor(tag, rank, replicas, bytes, 1);
  int s = (int)(c->calls % 2);
  waitFor(c, s, &stats.send_wait_seconds);
  memcpy(c->slot[s], data, (size_t)bytes);
  check(MPI_Isend(c->slot[s], (int)bytes, MPI_BYTE, (int)c->peer, (int)tag,
                  MPI_COMM_WORLD, &c->request[s]),
        "send failed", c);
  ++inFlight;
  ++c->calls;
  stats.bytes_sent += bytes;
  ++stats.messages_sent;
}

void placer_dist_recv(void *data, int64_t bytes, int64_t rank, int64_t replicas,
                      int64_t tag) {
  Channel *c = channelFor(tag, rank, replicas, bytes, 0);
  if (c->calls >= c->expected)
    fail("channel %lld: receive %lld from rank %lld, which sends %lld in a "
         "pass of %lld microbatches",
         (long long)tag, (long long)(c->calls + 1), (long long)c->peer,
         (long long)c->expected, (long long)microbatchesPerPass);
  while (c->posted < c->expected && c->posted < c->calls + 2)
    postReceive(c);
  int s = (int)(c->calls % 2);
  waitFor(c, s, &stats.recv_wait_seconds);
  int count = 0;
  MPI_Get_count(&c->status[s], MPI_BYTE, &count);
  if (count != bytes)
    fail("channel %lld from rank %lld carried %lld bytes, %lld expected",
         (long long)tag, (long long)c->peer, (long long)count,
         (long long)bytes);
  memcpy(data, c->slot[s], (size_t)bytes);
  ++c->calls;
  stats.bytes_received += bytes;
  if (c->posted < c->expected)
    postReceive(c);
}

int32_t placer_dist_route(int64_t rank, int64_t replicas) {
  if (replicas < 1 || rank < 0 || rank + replicas > INT_MAX)
    fail("a transfer names ranks %lld + %lld copies", (long long)rank,
         (long long)replicas);
  return (int32_t)(rank + microbatch % replicas);
}

void placer_dist_begin(int64_t microbatches) {
  microbatchesPerPass = microbatches;
  microbatch = myCopy;
  for (int64_t i = 0; i < numChannels; ++i) {
    Channel *c = &channels[i];
    c->calls = c->posted = 0;
    c->expected = sharedMicrobatches(c->peerReplicas, c->peerCopy);
  }
  memset(&stats, 0, sizeof(stats));
}

void placer_dist_set_copy(int64_t replicas, int64_t copy) {
  if (replicas < 1 || copy < 0 || copy >= replicas)
    fail("copy %lld of %lld does not exist", (long long)copy,
         (long long)replicas);
  myReplicas = replicas;
  myCopy = copy;
}

void placer_dist_set_microbatch(int64_t m) { microbatch = m; }

void placer_dist_end(void) {
  for (int64_t i = 0; i < numChannels; ++i) {
    Channel *c = &channels[i];
    for (int s = 0; s < 2; ++s)
      waitFor(c, s,
              c->isSend ? &stats.send_wait_seconds : &stats.recv_wait_seconds);
  }
}

const placer_dist_stats *placer_dist_get_stats(void) { return &stats; }

/* The communicators of tensor-parallel groups, each `count` ranks from
 * `first`, `stride` apart, made on a group's first collective. */
typedef struct Group {
  int64_t first, count, stride;
  MPI_Comm comm;
} Group;

static Group *groups;
static int64_t numGroups;
/* The group's tensors side by side, as the all-gather under each
 * collective leaves them. */
static char *scratch;
static size_t scratchBytes;

/* The group of a collective compiled for copy 0 of its stages: a
 * data-parallel copy c of a tensor-parallel group runs the same programs on
 * the ranks c further (each member's copies are consecutive ranks). */
static MPI_Comm groupComm(int64_t first, int64_t count, int64_t stride) {
  first += myCopy;
  for (int64_t i = 0; i < numGroups; ++i)
    if (groups[i].first == first && groups[i].count == count &&
        groups[i].stride == stride)
      return groups[i].comm;
  int64_t last = first + (count - 1) * stride;
  if (count < 2 || stride < 1 || first < 0 || last > INT_MAX ||
      myRank < first || myRank > last || (myRank - first) % stride)
    fail("a collective names the group of ranks %lld..%lld (every %lld), "
         "which this rank is not in",
         (long long)first, (long long)last, (long long)stride);
  MPI_Group world, sub;
  int range[1][3] = {{(int)first, (int)last, (int)stride}};
  MPI_Comm comm = MPI_COMM_NULL;
  /* Only the group's ranks take part; groups of one program are disjoint,
     so the first rank tells their creations apart. */
  if (MPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS ||
      MPI_Group_range_incl(world, 1, range, &sub) != MPI_SUCCESS ||
      MPI_Comm_create_group(MPI_COMM_WORLD, sub, (int)(first % 32768),
                            &comm) != MPI_SUCCESS)
    fail("cannot make the communicator of ranks %lld..%lld", (long long)first,
         (long long)last);
  MPI_Group_free(&sub);
  MPI_Group_free(&world);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  Group *grown = realloc(groups, (size_t)(numGroups + 1) * sizeof(Group));
  if (!grown)
    fail("out of memory for %lld groups", (long long)(numGroups + 1));
  groups = grown;
  groups[numGroups++] = (Group){first, count, stride, comm};
  return comm;
}

/* Gathers `bytes` from every rank of the group into the scratch buffer,
 * rank by rank. The channels' transfers progress while it waits, and a
 * peer that never comes is an error after the timeout, not a hang. */
static void gatherGroup(const void *data, int64_t bytes, int64_t first,
                        int64_t count, int64_t stride, const char *what) {
  MPI_Comm comm = groupComm(first, count, stride);
  first += myCopy; /* this copy's group, for the messages */
  if (bytes < 0 || bytes > INT_MAX)
    fail("%s of %lld bytes; one MPI message holds at most %d", what,
         (long long)bytes, INT_MAX);
  size_t needed = (size_t)bytes * (size_t)count;
  if (needed > scratchBytes) {
    char *grown = realloc(scratch, needed);
    if (!grown)
      fail("out of memory for the %lld bytes of %s", (long long)needed, what);
    scratch = grown;
    scratchBytes = needed;
  }
  MPI_Request request;
  if (MPI_Iallgather(data, (int)bytes, MPI_BYTE, scratch, (int)bytes,
                     MPI_BYTE, comm, &request) != MPI_SUCCESS)
    fail("%s over ranks %lld..%lld failed to start (microbatch %lld)", what,
         (long long)first, (long long)(first + (count - 1) * stride),
         (long long)microbatch);
  double start = MPI_Wtime();
  for (int done = 0; !done;) {
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      fail("%s over ranks %lld..%lld failed (microbatch %lld)", what,
           (long long)first, (long long)(first + (count - 1) * stride),
           (long long)microbatch);
    if (done)
      break;
    placer_dist_progress();
    if (MPI_Wtime() - start > timeoutSeconds)
      fail("%s over ranks %lld..%lld waited %.0f s (microbatch %lld): a "
           "rank of the group is not there",
           what, (long long)first, (long long)(first + (count - 1) * stride),
           timeoutSeconds, (long long)microbatch);
    sched_yield();
  }
  double waited = MPI_Wtime() - start;
  stats.recv_wait_seconds += waited;
  stats.bytes_sent += bytes * (count - 1);
  stats.messages_sent += count - 1;
  stats.bytes_received += bytes * (count - 1);
}

/* Sums element kind `T` over the gathered tensors in rank order: every
 * rank adds the same numbers in the same order, so all hold the same bits. */
#define SUM_IN_RANK_ORDER(T)                                                   \
  do {                                                                         \
    const T *parts = (const T *)scratch;                                       \
    T *sum = (T *)out;                                                         \
    for (int64_t i = 0; i < elements; ++i) {                                   \
      T total = parts[i];                                                      \
      for (int64_t r = 1; r < count; ++r)                                      \
        total += parts[r * elements + i];                                      \
      sum[i] = total;                                                          \
    }                                                                          \
  } while (0)

/* Half precision as its bits: widened exactly to float, and a float
 * rounded to the nearest even (overflow to infinity, NaN kept a NaN). */
static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
  if (exponent == 0 && mantissa == 0) {
    bits = sign;
  } else if (exponent == 0) { /* subnormal: normalize */
    exponent = 127 - 15 + 1;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint16_t floatToHalf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  bits &= 0x7fffffffu;
  if (bits >= 0x47800000u) /* 65536 and beyond, infinities, NaNs */
    return sign | (bits > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (bits < 0x38800000u) {
    /* Below the smallest normal half: adding 0.5 makes the FPU round the
     * subnormal's bits to the nearest even into the low mantissa. */
    float magnitude, magic;
    uint32_t magicBits = (uint32_t)(127 - 15 + 23 - 10 + 1) << 23, sum;
    memcpy(&magnitude, &bits, sizeof(magnitude));
    memcpy(&magic, &magicBits, sizeof(magic));
    magnitude += magic;
    memcpy(&sum, &magnitude, sizeof(sum));
    return sign | (uint16_t)(sum - magicBits);
  }
  uint32_t odd = (bits >> 13) & 1u;
  bits += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
  return sign | (uint16_t)(bits >> 13);
}

static float bfloat16ToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint16_t floatToBfloat16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it one */
    return (uint16_t)((bits >> 16) | 0x40u);
  return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/* Half-precision parts summed in float in rank order and rounded once, as
 * a product accumulates in f32 (GraphToLinalg's getAccumulatorType). */
#define SUM_HALF_IN_RANK_ORDER(WIDEN, ROUND)                                   \
  do {                                                                         \
    const uint16_t *parts = (const uint16_t *)scratch;                         \
    uint16_t *sum = (uint16_t *)out;                                           \
    for (int64_t i = 0; i < elements; ++i) {                                   \
      float total = WIDEN(parts[i]);                                           \
      for (int64_t r = 1; r < count; ++r)                                      \
        total += WIDEN(parts[r * elements + i]);                               \
      sum[i] = ROUND(total);                                                   \
    }                                                                          \
  } while (0)

void placer_dist_all_reduce(const void *in, void *out, int64_t elements,
                            int64_t kind, int64_t first, int64_t count,
                            int64_t stride) {
  static const int64_t sizes[] = {4, 8, 4, 8, 2, 2};
  if (kind < 0 || kind > 5 || elements < 0)
    fail("an all-reduce of %lld elements of kind %lld", (long long)elements,
         (long long)kind);
  gatherGroup(in, elements * sizes[kind], first, count, stride,
              "an all-reduce");
  switch (kind) {
  case 4:
    SUM_HALF_IN_RANK_ORDER(halfToFloat, floatToHalf);
    break;
  case 5:
    SUM_HALF_IN_RANK_ORDER(bfloat16ToFloat, floatToBfloat16);
    break;
  case 0:
    SUM_IN_RANK_ORDER(float);
    break;
  case 1:
    SUM_IN_RANK_ORDER(double);
    break;
  case 2:
    SUM_IN_RANK_ORDER(int32_t);
    break;
  default:
    SUM_IN_RANK_ORDER(int64_t);
    break;
  }
}

void placer_dist_all_gather(const void *in, void *out, int64_t rows,
                            int64_t row_bytes, int64_t first, int64_t count,
                            int64_t stride) {
  if (rows < 0 || row_bytes < 0)
    fail("an all-gather of %lld rows of %lld bytes", (long long)rows,
         (long long)row_bytes);
  gatherGroup(in, rows * row_bytes, first, count, stride, "an all-gather");
  /* Rank r's row i goes to row i's r-th place. */
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t r = 0; r < count; ++r)
      memcpy((char *)out + (i * count + r) * row_bytes,
             scratch + (r * rows + i) * row_bytes, (size_t)row_bytes);
}

int placer_dist_init(int *argc, char ***argv, int *rank, int *size) {
  if (MPI_Init(argc, argv) != MPI_SUCCESS)
    return -1;
  /* Errors come back as codes, so that messages can name the channel. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  myRank = *rank;
  return MPI_Comm_dup(MPI_COMM_WORLD, &hostComm) == MPI_SUCCESS ? 0 : -1;
}

int placer_dist_finalize(void) {
  for (int64_t i = 0; i < numChannels; ++i)
    for (int s = 0; s < 2; ++s)
      free(channels[i].slot[s]);
  free(channels);
  channels = NULL;
  numChannels = capacity = inFlight = 0;
  for (int64_t i = 0; i < numGroups; ++i)
    MPI_Comm_free(&groups[i].comm);
  free(groups);
  groups = NULL;
  numGroups = 0;
  free(scratch);
  scratch = NULL;
  scratchBytes = 0;
  if (hostComm != MPI_COMM_NULL)
    MPI_Comm_free(&hostComm);
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

int placer_dist_collect(void *rows, int64_t rowBytes) {
  if (myReplicas == 1)
    return 0;
  if (rowBytes < 0 || rowBytes > INT_MAX)
    return -1;
  char *base = rows;
  int first = myRank - (int)myCopy;
  if (myCopy != 0) {
    for (int64_t m = myCopy; m < microbatchesPerPass; m += myReplicas)
      if (MPI_Send(base + m * rowBytes, (int)rowBytes, MPI_BYTE, first, 0,
                   hostComm) != MPI_SUCCESS)
        return -1;
    return 0;
  }
  for (int64_t m = 0; m < microbatchesPerPass; ++m)
    if (m % myReplicas != 0 &&
        MPI_Recv(base + m * rowBytes, (int)rowBytes, MPI_BYTE,
                 first + (int)(m % myReplicas), 0, hostComm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return -1;
  return 0;
}
