//===- PipelineScheduleTest.cpp - Pipeline schedules' orders and bubbles --===//
//
// Each schedule run at uniform times against its paper's bubble (idle over
// busy device time): GPipe and 1F1B (p - 1) / m, interleaved 1F1B
// (p - 1) / (v m), ZB-H1 (p - 1) / (3 m) when F = B = W; the memory each
// holds; orders written out by hand; transfers; and the errors.
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/PipelineSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace placer::solver;

namespace {

PipelineSchedule build(PipelineKind kind, int p, int m, int chunks = 0) {
  llvm::Expected<PipelineSchedule> schedule =
      buildPipelineSchedule(kind, p, m, chunks);
  EXPECT_TRUE(static_cast<bool>(schedule))
      << llvm::toString(schedule.takeError());
  return schedule ? std::move(*schedule) : PipelineSchedule();
}

/// `chunk` gives each chunk's times (a stage's split into chunks for the
/// schedules with several per device).
PipelineRun run(const PipelineSchedule &schedule, ChunkTimes chunk,
                double transfer = 0) {
  llvm::Expected<PipelineRun> run = runPipelineSchedule(
      schedule, PipelineTimes::uniform(schedule.chunks(), chunk, transfer));
  EXPECT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  return run ? std::move(*run) : PipelineRun();
}

std::string describe(const std::vector<PipelineWork> &order) {
  std::string text;
  for (const PipelineWork &work : order) {
    text += text.empty() ? "" : " ";
    text += "FBW"[static_cast<int>(work.kind)];
    text += std::to_string(work.microbatch);
    text += "." + std::to_string(work.chunk);
  }
  return text;
}

constexpr int kDevices[] = {2, 4, 8};
constexpr int kMicrobatches[] = {4, 8, 16};

TEST(PipelineSchedule, OneFOneBAndGPipeBubble) {
  for (int p : kDevices)
    for (int m : kMicrobatches) {
      // Backward twice the forward: the ratio does not depend on it.
      PipelineRun oneF = run(build(PipelineKind::OneFOneB, p, m), {1, 2, 0});
      PipelineRun gpipe = run(build(PipelineKind::GPipe, p, m), {1, 2, 0});
      EXPECT_NEAR(oneF.bubbleRatio(), double(p - 1) / m, 1e-12)
          << p << " " << m;
      EXPECT_NEAR(gpipe.bubbleRatio(), double(p - 1) / m, 1e-12);
      EXPECT_NEAR(oneF.idleFraction(), double(p - 1) / (m + p - 1), 1e-12);
      // 1F1B holds p - d microbatches on device d, GPipe all m.
      for (int d = 0; d < p; ++d) {
        EXPECT_EQ(oneF.peakInFlight[d], std::min(p - d, m));
        EXPECT_EQ(gpipe.peakInFlight[d], m);
      }
    }
}

TEST(PipelineSchedule, InterleavedBubble) {
  for (int v : {2, 4})
    for (int p : kDevices)
      for (int m : kMicrobatches) {
        if (m % p)
          continue;
        // A stage of (1, 2) seconds cut into v chunks.
        PipelineRun interleaved = run(build(PipelineKind::Interleaved, p, m, v),
                                      {1.0 / v, 2.0 / v, 0});
        EXPECT_NEAR(interleaved.bubbleRatio(), double(p - 1) / (v * m), 1e-12)
            << "p " << p << " m " << m << " v " << v;
        // Megatron-LM's memory: device d runs (p - d - 1) 2 + (v - 1) p
        // forwards ahead (all m v when m = p), and holds one more.
        for (int d = 0; d < p; ++d)
          EXPECT_EQ(interleaved.peakInFlight[d],
                    m == p ? m * v
                           : std::min((p - d - 1) * 2 + (v - 1) * p + 1, m * v))
              << "p " << p << " m " << m << " v " << v << " device " << d;
      }
}

TEST(PipelineSchedule, ZeroBubbleH1Bubble) {
  for (int p : kDevices)
    for (int m : kMicrobatches) {
      if (m < p)
        continue;
      PipelineRun zb = run(build(PipelineKind::ZeroBubbleH1, p, m), {1, 1, 1});
      EXPECT_NEAR(zb.bubbleRatio(), double(p - 1) / (3 * m), 1e-12)
          << "p " << p << " m " << m;
      // A third of 1F1B's with the backward (B + W) whole.
      PipelineRun oneF = run(build(PipelineKind::OneFOneB, p, m), {1, 1, 1});
      EXPECT_NEAR(zb.bubbleRatio() * 3, oneF.bubbleRatio(), 1e-12);
      // Every device holds p microbatches until their weight work: the
      // first device's 1F1B peak.
      for (int d = 0; d < p; ++d)
        EXPECT_EQ(zb.peakInFlight[d], p);
    }
}

// ZB-V's list-scheduled order: half ZB-H1's bubble at F = B = W on these
// shapes, (p - 1) / (6 m), within 1F1B's memory (p stages' worth: 2p
// chunks).
TEST(PipelineSchedule, ZeroBubbleVBubble) {
  for (int p : kDevices)
    for (int m : kMicrobatches) {
      if (m < p)
        continue;
      PipelineSchedule schedule = build(PipelineKind::ZeroBubbleV, p, m);
      ASSERT_EQ(schedule.chunks(), 2 * p);
      EXPECT_EQ(schedule.deviceOfChunk.front(), 0);
      EXPECT_EQ(schedule.deviceOfChunk.back(), 0);
      EXPECT_EQ(schedule.deviceOfChunk[p - 1], p - 1);
      EXPECT_EQ(schedule.deviceOfChunk[p], p - 1);
      PipelineRun zbv = run(schedule, {0.5, 0.5, 0.5});
      EXPECT_NEAR(zbv.bubbleRatio(), double(p - 1) / (6 * m), 1e-12)
          << "p " << p << " m " << m;
      for (int d = 0; d < p; ++d)
        EXPECT_LE(zbv.peakInFlight[d], 2 * p);
    }
}

// An iteration at uniform chunks (F = B = W, a chunk's work 1) takes M x v
// (a device's work) plus getFillAndDrainChunks chunks: the price the
// chunked program puts on a split.
TEST(PipelineSchedule, FillAndDrainInChunks) {
  for (PipelineKind kind :
       {PipelineKind::GPipe, PipelineKind::OneFOneB, PipelineKind::Interleaved,
        PipelineKind::ZeroBubbleH1, PipelineKind::ZeroBubbleV})
    for (int p : kDevices)
      for (int m : kMicrobatches) {
        if ((kind == PipelineKind::Interleaved && m % p) ||
            ((kind == PipelineKind::ZeroBubbleH1 ||
              kind == PipelineKind::ZeroBubbleV) &&
             m < p))
          continue;
        PipelineSchedule schedule = build(kind, p, m);
        PipelineRun uniform = run(schedule, {1.0 / 3, 1.0 / 3, 1.0 / 3});
        EXPECT_NEAR(
            uniform.makespan,
            m * schedule.chunksPerDevice + getFillAndDrainChunks(kind, p), 1e-9)
            << getName(kind) << " p " << p << " m " << m;
      }
}

TEST(PipelineSchedule, OrdersByHand) {
  PipelineSchedule gpipe = build(PipelineKind::GPipe, 2, 3);
  EXPECT_EQ(describe(gpipe.order[0]), "F0.0 F1.0 F2.0 B2.0 B1.0 B0.0");
  // A stage two stages from the loss (of a placement's branching stages).
  EXPECT_EQ(describe(getStageOrder(PipelineKind::OneFOneB, 2, 4, 3)),
            "F0.3 F1.3 F2.3 B0.3 F3.3 B1.3 B2.3 B3.3");
  PipelineSchedule oneF = build(PipelineKind::OneFOneB, 2, 3);
  EXPECT_EQ(describe(oneF.order[0]), "F0.0 F1.0 B0.0 F2.0 B1.0 B2.0");
  EXPECT_EQ(describe(oneF.order[1]), "F0.1 B0.1 F1.1 B1.1 F2.1 B2.1");
  // Megatron-LM's interleaving with m = p: every forward first; chunk c on
  // device c mod 2, p microbatches through a chunk before the next.
  PipelineSchedule interleaved = build(PipelineKind::Interleaved, 2, 2, 2);
  EXPECT_EQ(describe(interleaved.order[0]),
            "F0.0 F1.0 F0.2 F1.2 B0.2 B1.2 B0.0 B1.0");
  EXPECT_EQ(describe(interleaved.order[1]),
            "F0.1 F1.1 F0.3 F1.3 B0.3 B1.3 B0.1 B1.1");
  // ZB-H1: device 1's weight work one microbatch later than device 0's.
  PipelineSchedule zb = build(PipelineKind::ZeroBubbleH1, 2, 3);
  EXPECT_EQ(describe(zb.order[0]),
            "F0.0 F1.0 B0.0 W0.0 F2.0 B1.0 W1.0 B2.0 W2.0");
  EXPECT_EQ(describe(zb.order[1]),
            "F0.1 B0.1 F1.1 B1.1 W0.1 F2.1 B2.1 W1.1 W2.1");
}

// Two devices, two microbatches, forward and backward 1 s, 0.5 s to move
// a tensor between them: device 1's F0 at 1.5-2.5, B0 2.5-3.5, F1 (sent at
// 2, there at 2.5, the device free at 3.5) 3.5-4.5, B1 4.5-5.5; device 0's
// B0 when B0's gradient arrives, 4-5, B1 at 6-7.
TEST(PipelineSchedule, TransfersByHand) {
  PipelineRun oneF = run(build(PipelineKind::OneFOneB, 2, 2), {1, 1, 0}, 0.5);
  EXPECT_DOUBLE_EQ(oneF.makespan, 7);
  using Span = std::pair<double, double>;
  EXPECT_EQ(oneF.times[0], (std::vector<Span>{{0, 1}, {1, 2}, {4, 5}, {6, 7}}));
  EXPECT_EQ(
      oneF.times[1],
      (std::vector<Span>{{1.5, 2.5}, {2.5, 3.5}, {3.5, 4.5}, {4.5, 5.5}}));
  EXPECT_DOUBLE_EQ(oneF.busy[0], 4);
}

TEST(PipelineSchedule, ErrorsNameTheProblem) {
  auto error = [](llvm::Expected<PipelineSchedule> schedule) {
    return schedule ? std::string("no error")
                    : llvm::toString(schedule.takeError());
  };
  EXPECT_EQ(error(buildPipelineSchedule(PipelineKind::Interleaved, 4, 6)),
            "pipeline schedule: interleaving needs the microbatches (6) to be "
            "a multiple of the devices (4)");
  EXPECT_EQ(error(buildPipelineSchedule(PipelineKind::Interleaved, 2, 4, 1)),
            "pipeline schedule: interleaving needs at least 2 chunks per "
            "device, not 1");
  EXPECT_EQ(error(buildPipelineSchedule(PipelineKind::OneFOneB, 0, 4)),
            "pipeline schedule: needs a device and a microbatch, not 0 and 4");
  EXPECT_EQ(getName(*parsePipelineKind("zb-v")), std::string("zb-v"));
  EXPECT_FALSE(parsePipelineKind("zb-h2"));

  // An order that waits on itself, one that lists work twice, and times
  // for the wrong chunks.
  PipelineSchedule schedule = build(PipelineKind::OneFOneB, 2, 1);
  std::swap(schedule.order[1][0], schedule.order[1][1]);
  llvm::Expected<PipelineRun> stuck =
      runPipelineSchedule(schedule, PipelineTimes::uniform(2, {1, 1, 0}));
  ASSERT_FALSE(static_cast<bool>(stuck));
  EXPECT_EQ(llvm::toString(stuck.takeError()),
            "pipeline schedule: the orders wait on each other forever: "
            "device 0 at its backward work of chunk 0 for microbatch 0; "
            "device 1 at its backward work of chunk 1 for microbatch 0");
  schedule.order[1][0] = schedule.order[1][1];
  llvm::Expected<PipelineRun> twice =
      runPipelineSchedule(schedule, PipelineTimes::uniform(2, {1, 1, 0}));
  ASSERT_FALSE(static_cast<bool>(twice));
  EXPECT_EQ(llvm::toString(twice.takeError()),
            "pipeline schedule: device 1 lists work of chunk 1 for microbatch "
            "0 that is not its own or listed twice");
  llvm::Expected<PipelineRun> wrong = runPipelineSchedule(
      build(PipelineKind::OneFOneB, 2, 1), PipelineTimes::uniform(3, {}));
  ASSERT_FALSE(static_cast<bool>(wrong));
  EXPECT_EQ(llvm::toString(wrong.takeError()),
            "pipeline schedule: times for 3 chunks, the schedule has 2");
}

} // namespace
