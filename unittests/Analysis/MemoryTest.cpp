//===- MemoryTest.cpp - Peak and training memory of a device --------------===//
#include "placer/Analysis/Memory.h"

#include <gtest/gtest.h>

using namespace placer;

namespace {

// a -> b -> c -> d, and a -> c (a skip connection).
MemoryGraph chainWithSkip() {
  MemoryGraph g;
  g.paramBytes = {10, 20, 30, 40};
  g.outputBytes = {100, 200, 300, 400};
  g.successors = {{1, 2}, {2}, {3}, {}};
  return g;
}

TEST(Memory, PeakOnOneDevice) {
  MemoryGraph g = chainWithSkip();
  // Step a: 100. Step b: a alive (c needs it) + b = 300. Step c: a + b + c
  // = 600, then a and b die. Step d: c + d = 700 (d is a graph output).
  EXPECT_EQ(getPeakInferenceMemory(g, {0, 1, 2, 3}), 100 + 700);
}

TEST(Memory, ReceivedAndSentActivations) {
  MemoryGraph g = chainWithSkip();
  // Device runs b and c: a (100) is received and alive until c; c is sent
  // to d on another device, so it stays. Peak at c: a + b + c = 600.
  EXPECT_EQ(getPeakInferenceMemory(g, {1, 2}), 20 + 30 + 600);
  // Device runs d alone: receives c (300), produces d (400).
  EXPECT_EQ(getPeakInferenceMemory(g, {3}), 40 + 700);
}

TEST(Memory, TrainingStageUnder1F1B) {
  MemoryGraph g = chainWithSkip();
  // Weights 30 * (1 + 1 + 2) = 120; activations 300 stashed for
  // stagesFromEnd + 1 microbatches.
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 0), 120 + 300);
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 3), 120 + 4 * 300);
  TrainingMemoryOptions sgd;
  sgd.optimizerStateFactor = 0;
  EXPECT_EQ(getTrainingStageMemory(g, {0, 1}, 0, sgd), 60 + 300);
}

} // namespace
