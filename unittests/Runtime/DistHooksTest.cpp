//===- DistHooksTest.cpp - libplacer_rt's MPI transfers, one process ------===//
//
// A single MPI process (singleton init, no mpirun) sends to itself: enough
// to check the staging order, the statistics and every failure, which must
// end the process with a message rather than hang. Failures abort the MPI
// job, so each runs in a death test's own process.
//
//===----------------------------------------------------------------------===//

#include "placer/Runtime/DistHooks.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <vector>

namespace {

void initSingleton() {
  int argc = 0, rank = -1, size = 0;
  char **argv = nullptr;
  ASSERT_EQ(placer_dist_init(&argc, &argv, &rank, &size), 0);
  ASSERT_EQ(rank, 0);
  ASSERT_EQ(size, 1);
}

bool failed(int status) {
  return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

TEST(DistHooksDeathTest, MissingMessageTimesOut) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        initSingleton();
        placer_dist_set_timeout(0.2);
        placer_dist_begin(1);
        float value = 0;
        placer_dist_recv(&value, sizeof value, 0, 1, 7);
      },
      failed,
      "rank 0: no message from rank 0 on channel 7 for 0.2 s \\(microbatch "
      "0\\)");
}

/// One pass of one microbatch: `sent` bytes to itself, `received` bytes
/// expected back, `receives` times.
void sendToSelf(int64_t sent, int64_t received, int receives = 1) {
  initSingleton();
  placer_dist_begin(1);
  double value = 0;
  placer_dist_send(&value, sent, 0, 1, 3);
  for (int i = 0; i < receives; ++i)
    placer_dist_recv(&value, received, 0, 1, 3);
}

TEST(DistHooksDeathTest, LongerMessageIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sendToSelf(8, 4), failed,
              "receive failed on channel 3 with rank 0 .*truncated");
}

TEST(DistHooksDeathTest, ShorterMessageIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sendToSelf(4, 8), failed,
              "channel 3 from rank 0 carried 4 bytes, 8 expected");
}

TEST(DistHooksDeathTest, MoreReceivesThanMicrobatches) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sendToSelf(4, 4, 2), failed,
              "channel 3: receive 2 from rank 0, which sends 1 in a pass of "
              "1 microbatches");
}

// Copy 1 of a stage on three ranks runs microbatches 1 and 4 of a pass of
// six: a third receive from itself has no message to wait for.
TEST(DistHooksDeathTest, ACopyReceivesItsMicrobatchesOnly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        initSingleton();
        placer_dist_set_copy(3, 1);
        placer_dist_begin(6);
        for (int64_t m : {1, 4, 7}) {
          placer_dist_set_microbatch(m);
          int64_t value = m;
          placer_dist_send(&value, sizeof value, 0, 1, 5);
          placer_dist_recv(&value, sizeof value, 0, 1, 5);
          if (value != m)
            std::exit(0);
        }
      },
      failed,
      "channel 5: receive 3 from rank 0, which sends 2 in a pass of "
      "6 microbatches");
}

TEST(DistHooksDeathTest, CopiesMustExist) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        initSingleton();
        placer_dist_set_copy(2, 2);
      },
      failed, "copy 2 of 2 does not exist");
}

// Microbatches arrive in order through the two staging slots, the sender's
// buffer is free as soon as the send returns, a receive that progress
// completed keeps its size, and the statistics count what moved; a second
// pass starts again at microbatch 0.
TEST(DistHooksTest, MicrobatchesArriveInOrder) {
  initSingleton();
  for (int pass = 0; pass < 2; ++pass) {
    constexpr int kMicrobatches = 5;
    placer_dist_begin(kMicrobatches);
    std::vector<int> received;
    for (int m = 0; m < kMicrobatches; ++m) {
      int message[3] = {m, 10 * m, 100 * m + pass};
      placer_dist_send(message, sizeof message, 0, 1, 2);
      message[0] = -1; // the runtime kept its own copy
      // Progress may complete the receive early: its size must survive.
      std::this_thread::sleep_for(std::chrono::microseconds(30));
      placer_dist_progress();
      int got[3] = {};
      placer_dist_recv(got, sizeof got, 0, 1, 2);
      EXPECT_EQ(got[1], 10 * m);
      EXPECT_EQ(got[2], 100 * m + pass);
      received.push_back(got[0]);
    }
    placer_dist_end();
    EXPECT_EQ(received, (std::vector<int>{0, 1, 2, 3, 4}));
    const placer_dist_stats *stats = placer_dist_get_stats();
    EXPECT_EQ(stats->bytes_sent, 5 * 12);
    EXPECT_EQ(stats->messages_sent, 5);
    EXPECT_EQ(stats->bytes_received, 5 * 12);
    EXPECT_GE(stats->recv_wait_seconds, 0.0);
  }
  // Routing: microbatch m of a peer on r ranks from `first` is on
  // first + m mod r.
  placer_dist_set_microbatch(7);
  EXPECT_EQ(placer_dist_route(4, 3), 5);
  EXPECT_EQ(placer_dist_route(0, 1), 0);
  // Not replicated: nothing to collect.
  int rows[2] = {1, 2};
  EXPECT_EQ(placer_dist_collect(rows, sizeof rows[0]), 0);
  EXPECT_EQ(rows[1], 2);
  EXPECT_EQ(placer_dist_all(1), 1);
  EXPECT_EQ(placer_dist_all(0), 0);
  EXPECT_EQ(placer_dist_same(42), 1);
  double value = 2.5, gathered = 0;
  EXPECT_EQ(placer_dist_gather(&value, 1, &gathered), 0);
  EXPECT_EQ(gathered, 2.5);
  EXPECT_EQ(placer_dist_finalize(), 0);
}

} // namespace
