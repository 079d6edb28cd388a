//===- ParallelPlanTest.cpp - Tensor x data x pipeline plans --------------===//
//
// The planner against exhaustive search on random small layer graphs (every
// chain of stages, degrees and configuration), scored by the independent
// scoreParallelPlan; Piper's BERT-32 input against the time per sample
// Piper's own planner reports; the seed paper's problem at t = 1 against
// the contiguous-split DP; and the reader's errors.
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/ParallelPlan.h"

#include "RandomProblems.h"
#include "placer/Solver/Solvers.h"
#include "placer/Solver/Workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <random>

using namespace placer::solver;

namespace {

std::string piperInput() {
  return std::string(PLACER_WORKLOADS_DIR) + "/piper/bert32a100.json";
}

/// A random DAG of `n` layers (edges from lower to higher index), each with
/// 1-3 configurations for degrees 1 and 2 whose times, memory and sync
/// bytes differ, so that no greedy choice is exact by accident.
/// With `caches`, each configuration also keeps KV cache bytes that differ
/// between a layer's configurations (so the frontier compares them).
/// With `edges`, those edges (from, to) instead of random ones.
ParallelProblem
randomProblem(std::mt19937 &rng, int n, bool sameParameters = false,
              bool caches = false,
              const std::vector<std::pair<int, int>> *edges = nullptr) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ParallelProblem problem;
  problem.maxDevices = 2 + static_cast<int>(rng() % 3);
  problem.microbatches = (rng() % 2) ? 4 : 2;
  problem.bandwidth = 10;
  problem.memoryPerDevice = 1.5 + 6 * unit(rng);
  for (int v = 0; v < n; ++v) {
    ParallelLayer layer;
    layer.id = 10 * v + 1;
    layer.name = "L" + std::to_string(v);
    problem.layers.push_back(layer);
  }
  for (int v = 1; v < n && !edges; ++v) {
    problem.edges.push_back({v - 1, v, 1 + 4 * unit(rng)});
    if (v >= 2 && rng() % 3 == 0)
      problem.edges.push_back({v - 2, v, 1 + 4 * unit(rng)});
  }
  if (edges)
    for (auto [from, to] : *edges)
      problem.edges.push_back({from, to, 1 + 4 * unit(rng)});
  problem.indexEdges();
  for (int v = 0; v < n; ++v)
    for (int t : {1, 2}) {
      int count = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < count; ++c) {
        TensorConfig config;
        config.id = "c" + std::to_string(c);
        config.timePerSample = (1 + 3 * unit(rng)) / t;
        // Configurations of one layer that differ only in time and memory
        // (Piper's recomputation choice) take the planner's staircase path.
        config.parameterBytes =
            sameParameters ? 5.0 * (v + 1) / t : 10 * unit(rng);
        config.stashBytes = 1.5 * unit(rng);
        config.fixedBytes = 2 * unit(rng) / t;
        if (sameParameters) {
          // Stash traded for fixed bytes and time, as recomputation
          // trades them: the faster, the more each microbatch in flight
          // costs, so which choice fits depends on y.
          double u = unit(rng);
          config.stashBytes = 1.5 * u;
          config.fixedBytes = 0.5 + 1.5 * (1 - u);
          config.timePerSample = (1 + 2 * (1 - u)) / t;
        }
        config.syncIn.assign(problem.inEdges[v].size(), 0);
        config.syncOut.assign(problem.outEdges[v].size(), 0);
        for (double &sync : config.syncIn)
          sync = 2 * unit(rng);
        for (double &sync : config.syncOut)
          sync = 2 * unit(rng);
        if (caches)
          config.cacheBytes = 3 * unit(rng) / t;
        problem.layers[v].configs[t].push_back(config);
      }
    }
  return problem;
}

/// The least time per sample (or latency) over every plan: stages that
/// extend a prefix-closed set, every (t, d) and configuration; scored by
/// scoreParallelPlan. Infinity when none is valid. With `allowed`, only
/// stages (layer sets, ascending) it accepts.
double
bruteForce(const ParallelProblem &problem,
           Objective objective = Objective::Throughput,
           std::function<bool(const std::vector<int> &)> allowed = nullptr) {
  int n = problem.size();
  double best = std::numeric_limits<double>::infinity();
  ParallelPlan plan;
  plan.objective = objective;
  std::vector<char> placed(n, 0);
  std::function<void()> extend = [&] {
    if (llvm::all_of(placed, [](char p) { return p; })) {
      llvm::Expected<double> score = scoreParallelPlan(problem, plan);
      if (score)
        best = std::min(best, *score);
      else
        llvm::consumeError(score.takeError());
      return;
    }
    // Every nonempty set of unplaced layers whose predecessors are placed
    // or in it.
    for (unsigned mask = 1; mask < (1u << n); ++mask) {
      std::vector<int> stage;
      bool ok = true;
      for (int v = 0; v < n && ok; ++v) {
        if (!(mask >> v & 1))
          continue;
        ok = !placed[v];
        stage.push_back(v);
      }
      for (const ParallelEdge &edge : problem.edges)
        if ((mask >> edge.to & 1) && !(mask >> edge.from & 1) &&
            !placed[edge.from])
          ok = false;
      if (!ok || (allowed && !allowed(stage)))
        continue;
      for (int v : stage)
        placed[v] = 1;
      int kinds = static_cast<int>(problem.deviceKinds().size());
      for (int kind = 0; kind < kinds; ++kind)
        for (int t : {1, 2})
          for (int d = 1; d <= problem.microbatches; ++d) {
            if (problem.microbatches % d)
              continue;
            ParallelStage s;
            s.layers = stage;
            s.tensorDegree = t;
            s.dataDegree = d;
            s.kind = kind;
            s.configs.assign(stage.size(), 0);
            // Every configuration of every layer, as an odometer.
            while (true) {
              plan.stages.push_back(s);
              extend();
              plan.stages.pop_back();
              size_t k = 0;
              for (; k < stage.size(); ++k) {
                int count = static_cast<int>(
                    problem.layers[stage[k]].configs.at(t).size());
                if (++s.configs[k] < count)
                  break;
                s.configs[k] = 0;
              }
              if (k == stage.size())
                break;
            }
          }
      for (int v : stage)
        placed[v] = 0;
    }
  };
  extend();
  return best;
}

/// The planner on `problem` against exhaustive search: both find nothing,
/// or the planner's time is the optimum and the scorer agrees with it. Its
/// plan when there is one.
std::optional<ParallelPlan>
expectOptimal(const ParallelProblem &problem, int trial,
              Objective objective = Objective::Throughput) {
  double expected = bruteForce(problem, objective);
  ParallelPlanOptions options;
  options.objective = objective;
  llvm::Expected<ParallelPlan> plan = planParallel(problem, options);
  if (std::isinf(expected)) {
    EXPECT_FALSE(static_cast<bool>(plan)) << "trial " << trial;
    if (!plan)
      llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  if (!plan) {
    ADD_FAILURE() << "trial " << trial << ": "
                  << llvm::toString(plan.takeError());
    return std::nullopt;
  }
  EXPECT_NEAR(plan->timePerSample, expected, 1e-12 * expected)
      << "trial " << trial;
  ParallelPlan rescored = *plan;
  llvm::Expected<double> score = scoreParallelPlan(problem, rescored);
  if (!score) {
    ADD_FAILURE() << "trial " << trial << ": "
                  << llvm::toString(score.takeError());
    return std::nullopt;
  }
  EXPECT_NEAR(*score, plan->timePerSample, 1e-12 * expected)
      << "trial " << trial;
  return std::move(*plan);
}

TEST(ParallelPlan, OptimalOnRandomSmallGraphs) {
  std::mt19937 rng(2026);
  int infeasible = 0;
  for (int trial = 0; trial < 150; ++trial)
    infeasible += !expectOptimal(randomProblem(rng, 2 + trial % 3), trial);
  // The memory limits make some trials infeasible, not most.
  EXPECT_GT(infeasible, 0);
  EXPECT_LT(infeasible, 75);
}

// One sample's latency: the least over every chain of stages at d = 1, as
// exhaustive search scores it, on the same random graphs (their devices
// and memory decide between one group at t = 2 and stages at t = 1).
TEST(ParallelPlan, LeastLatencyOnRandomSmallGraphs) {
  std::mt19937 rng(2027);
  int infeasible = 0, tensorParallel = 0, staged = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::optional<ParallelPlan> plan = expectOptimal(
        randomProblem(rng, 2 + trial % 3), trial, Objective::Latency);
    if (!plan) {
      ++infeasible;
      continue;
    }
    EXPECT_EQ(plan->objective, Objective::Latency);
    for (const ParallelStage &stage : plan->stages)
      EXPECT_EQ(stage.dataDegree, 1) << "trial " << trial;
    tensorParallel += llvm::any_of(plan->stages, [](const ParallelStage &s) {
      return s.tensorDegree > 1;
    });
    staged += plan->stages.size() > 1;
  }
  EXPECT_LT(infeasible, 75);
  // Both kinds of answer occur: the test covers the choice.
  EXPECT_GT(tensorParallel, 0);
  EXPECT_GT(staged, 0);
}

// Worked by hand: two layers of 4 s at t = 1 (2.5 s at t = 2, a sync of
// 0.5 B into the second), 1 B between them, bandwidth 1 B/s, 3 bytes of
// memory each at t = 1 and 1.6 at t = 2, 5 bytes a device.
// One stage at t = 2: 2.5 + 2.5 + 0 (no cut) = 5 s on 2 devices. Two
// stages at t = 1: 4 + 4 + 2 * 1 / 1 = 10 s. One stage at t = 1 needs 6
// bytes: no. At 3 bytes a device neither one stage fits (6 or 3.2
// bytes): two stages at t = 1 (two at t = 2 would need 4 devices). With
// 1 device: nothing fits.
TEST(ParallelPlan, LatencyByHand) {
  ParallelProblem problem;
  problem.maxDevices = 2;
  problem.microbatches = 1;
  problem.bandwidth = 1;
  problem.memoryPerDevice = 5;
  for (int v = 0; v < 2; ++v) {
    ParallelLayer layer;
    layer.id = v;
    layer.name = "L" + std::to_string(v);
    problem.layers.push_back(layer);
  }
  problem.edges.push_back({0, 1, 1.0});
  problem.indexEdges();
  for (int v = 0; v < 2; ++v) {
    TensorConfig one{"one", 4.0, 0, 1.0, 2.0, {}, {}};
    TensorConfig two{"two", 2.5, 0, 0.6, 1.0, {}, {}};
    one.syncIn.assign(problem.inEdges[v].size(), 0);
    one.syncOut.assign(problem.outEdges[v].size(), 0);
    two.syncIn.assign(problem.inEdges[v].size(), 0.5);
    two.syncOut.assign(problem.outEdges[v].size(), 0);
    problem.layers[v].configs[1].push_back(one);
    problem.layers[v].configs[2].push_back(two);
  }
  ParallelPlanOptions options;
  options.objective = Objective::Latency;
  llvm::Expected<ParallelPlan> plan = planParallel(problem, options);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 5.0);
  ASSERT_EQ(plan->stages.size(), 1u);
  EXPECT_EQ(plan->stages[0].tensorDegree, 2);
  EXPECT_EQ(plan->devicesUsed, 2);
  EXPECT_DOUBLE_EQ(plan->stages[0].memory, 3.2);

  // Two stages at t = 1 when only that fits.
  problem.memoryPerDevice = 3;
  plan = planParallel(problem, options);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 10.0);
  EXPECT_EQ(plan->stages.size(), 2u);

  // One device of 3 bytes: the layers need 6 bytes at their least (3 each
  // at t = 1, 2 x 1.6 at t = 2), said before the search.
  problem.maxDevices = 1;
  plan = planParallel(problem, options);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "the layers need at least 6 bytes over all devices and the 1 "
            "device holds 3 bytes: at least 2 devices of 3 bytes are needed");
}

// KV caches split among a stage's data-parallel copies (c / d per device,
// beside y * a + b): the planner's frontiers keep the cache apart, and its
// plans are still the optimum of exhaustive search, for throughput and for
// one sample's latency (d = 1, caches whole).
TEST(ParallelPlan, OptimalWithKVCaches) {
  std::mt19937 rng(57);
  int infeasible[2] = {0, 0}, split = 0;
  for (int trial = 0; trial < 120; ++trial)
    for (Objective objective : {Objective::Throughput, Objective::Latency}) {
      std::optional<ParallelPlan> plan = expectOptimal(
          randomProblem(rng, 2 + trial % 3, trial % 2 == 1, /*caches=*/true),
          trial, objective);
      infeasible[objective == Objective::Latency] += !plan;
      if (plan)
        split += llvm::any_of(plan->stages, [](const ParallelStage &stage) {
          return stage.cache > 0 && stage.dataDegree > 1;
        });
    }
  EXPECT_LT(infeasible[0], 60);
  EXPECT_LT(infeasible[1], 60);
  EXPECT_GT(split, 0); // the copies' share of the caches decided some plans
}

// By hand: one layer of 4 s keeping a 6-byte cache (t = 1) or 3 bytes a
// device (t = 2, 3 s), devices of 4 bytes, 2 devices, 2 microbatches.
// Whole at t = 1 it does not fit, but two data-parallel copies keep 3
// bytes each: 2 s per sample, the cache 3 bytes a device. One sample's
// latency takes d = 1: t = 2, 3 s. On one device nothing fits, said at
// once with what the caches take.
TEST(ParallelPlan, KVCachesSplitAmongCopies) {
  ParallelProblem problem;
  problem.maxDevices = 2;
  problem.microbatches = 2;
  problem.bandwidth = 1;
  problem.memoryPerDevice = 4;
  problem.layers.push_back({0, "decoder", {}});
  problem.indexEdges();
  TensorConfig whole{"whole", 4.0, 0, 0, 0, {}, {}};
  whole.cacheBytes = 6;
  TensorConfig heads{"heads", 3.0, 0, 0, 0, {}, {}};
  heads.cacheBytes = 3;
  problem.layers[0].configs[1].push_back(whole);
  problem.layers[0].configs[2].push_back(heads);
  llvm::Expected<ParallelPlan> plan = planParallel(problem);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 2.0);
  ASSERT_EQ(plan->stages.size(), 1u);
  EXPECT_EQ(plan->stages[0].tensorDegree, 1);
  EXPECT_EQ(plan->stages[0].dataDegree, 2);
  EXPECT_DOUBLE_EQ(plan->stages[0].cache, 3.0);
  EXPECT_DOUBLE_EQ(plan->stages[0].memory, 3.0);
  llvm::json::Value json = parallelPlanToJson(problem, *plan);
  EXPECT_EQ(
      (*json.getAsObject()->getArray("stages"))[0].getAsObject()->getNumber(
          "kv_cache"),
      3.0);

  ParallelPlanOptions latency;
  latency.objective = Objective::Latency;
  plan = planParallel(problem, latency);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 3.0);
  EXPECT_EQ(plan->stages[0].tensorDegree, 2);
  EXPECT_DOUBLE_EQ(plan->stages[0].cache, 3.0);

  problem.maxDevices = 1;
  plan = planParallel(problem);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "layer decoder needs at least 6 bytes per device at any degree, "
            "more than any device holds (4 bytes)");
  problem.maxDevices = 2;
  problem.memoryPerDevice = 2.5;
  plan = planParallel(problem, latency);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "layer decoder needs at least 3 bytes per device at any degree, "
            "more than any device holds (2.5 bytes)");
}

// Past the pair limit the planner plans over segments, the runs between
// the points where every crossing edge leaves the last layer placed. On
// five layers 0 -> {1, 2}, 1 -> 2, 2 -> 3, 3 -> 4 (and 2 -> 4 in some
// trials), the segments are [0] [1 2] [3] [4] (or [3 4]); with
// segmentAbove 0 its plan is the optimum over plans whose stages hold whole
// segments (exhaustive search restricted to them), scores the same on the
// layers, and says how many segments it planned. Without segments a pair
// limit of 0 is an error.
TEST(ParallelPlan, SegmentsPastThePairLimit) {
  std::mt19937 rng(58);
  int planned = 0;
  for (int trial = 0; trial < 40; ++trial) {
    bool joined = trial % 2 == 1;
    std::vector<std::pair<int, int>> edges = {
        {0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}};
    if (joined)
      edges.push_back({2, 4});
    ParallelProblem problem =
        randomProblem(rng, 5, trial % 4 < 2, trial % 3 == 0, &edges);
    std::vector<std::vector<int>> segments = {{0}, {1, 2}};
    if (joined)
      segments.push_back({3, 4});
    else
      segments.insert(segments.end(), {{3}, {4}});
    auto wholeSegments = [&](const std::vector<int> &stage) {
      return llvm::all_of(segments, [&](const std::vector<int> &segment) {
        size_t in = llvm::count_if(
            segment, [&](int v) { return llvm::is_contained(stage, v); });
        return in == 0 || in == segment.size();
      });
    };
    for (Objective objective : {Objective::Throughput, Objective::Latency}) {
      double expected = bruteForce(problem, objective, wholeSegments);
      ParallelPlanOptions options;
      options.objective = objective;
      options.segmentAbove = 0;
      llvm::Expected<ParallelPlan> plan = planParallel(problem, options);
      if (std::isinf(expected)) {
        EXPECT_FALSE(static_cast<bool>(plan)) << "trial " << trial;
        if (!plan)
          llvm::consumeError(plan.takeError());
        continue;
      }
      ASSERT_TRUE(static_cast<bool>(plan))
          << "trial " << trial << ": " << llvm::toString(plan.takeError());
      ++planned;
      EXPECT_EQ(plan->segments, static_cast<int64_t>(segments.size()));
      EXPECT_NEAR(plan->timePerSample, expected, 1e-12 * expected)
          << "trial " << trial;
      ParallelPlan rescored = *plan;
      llvm::Expected<double> score = scoreParallelPlan(problem, rescored);
      ASSERT_TRUE(static_cast<bool>(score))
          << llvm::toString(score.takeError());
      EXPECT_NEAR(*score, plan->timePerSample, 1e-12 * expected);
      for (const ParallelStage &stage : plan->stages)
        EXPECT_TRUE(wholeSegments(stage.layers)) << "trial " << trial;

      options.segmentAbove = std::numeric_limits<int64_t>::max();
      options.pairLimit = 0;
      plan = planParallel(problem, options);
      ASSERT_FALSE(static_cast<bool>(plan));
      EXPECT_NE(
          llvm::toString(plan.takeError()).find("more than 0 candidate stages"),
          std::string::npos);
    }
  }
  EXPECT_GT(planned, 20); // most trials have a plan: the test compares
}

/// `problem` with `count` free sources added (no predecessors, one
/// consumer among the first layers, configurations that cost nothing at
/// every degree, an edge of some bytes and sync): Identity nodes of
/// constants, as an exported model has them.
ParallelProblem withFreeSources(ParallelProblem problem, int count,
                                std::mt19937 &rng) {
  int n = problem.size();
  std::vector<ParallelEdge> edges = problem.edges;
  for (int k = 0; k < count; ++k) {
    ParallelLayer source;
    source.id = 1000 + k;
    source.name = "free" + std::to_string(k);
    problem.layers.push_back(source);
    edges.push_back({n + k, static_cast<int>(rng() % n), 3.0 + k});
  }
  problem.edges = edges;
  problem.indexEdges();
  for (int v = 0; v < problem.size(); ++v)
    for (auto &[t, configs] : problem.layers[v].configs) {
      for (TensorConfig &config : configs) {
        config.syncIn.resize(problem.inEdges[v].size(), 1.0);
        config.syncOut.resize(problem.outEdges[v].size(), 1.0);
      }
    }
  for (int k = 0; k < count; ++k) {
    int v = n + k;
    for (int t : {1, 2}) {
      TensorConfig config;
      config.id = "free";
      config.syncOut.assign(problem.outEdges[v].size(), 0.5);
      problem.layers[v].configs[t].push_back(config);
    }
  }
  return problem;
}

// Free sources are glued to their consumer in the lattice: still the
// optimum of every contiguous split (exhaustive search places them
// anywhere), and 24 of them before one layer are 2 ideals more, not 2^24.
TEST(ParallelPlan, FreeSourcesJoinTheirConsumer) {
  std::mt19937 rng(77);
  // Five layers at most: exhaustive search over six takes minutes.
  for (int trial = 0; trial < 60; ++trial) {
    int layers = 2 + trial % 3;
    int sources = layers == 4 ? 1 : 1 + trial / 3 % 2;
    expectOptimal(withFreeSources(randomProblem(rng, layers), sources, rng),
                  trial);
  }
  ParallelProblem wide = withFreeSources(randomProblem(rng, 2), 24, rng);
  wide.memoryPerDevice = 1e9;
  llvm::Expected<ParallelPlan> plan = planParallel(wide);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_EQ(plan->ideals, 3);
}

TEST(ParallelPlan, OptimalWhenConfigurationsShareParameters) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial)
    expectOptimal(randomProblem(rng, 2 + trial % 3, true), trial);
}

/// Two-level clusters: nodes of 2 devices, the all-reduce 4x faster inside
/// one; footprints rounded to blocks, all against exhaustive search.
TEST(ParallelPlan, OptimalWithNodes) {
  std::mt19937 rng(53);
  int feasible = 0;
  for (int trial = 0; trial < 100; ++trial) {
    ParallelProblem problem = randomProblem(rng, 2 + trial % 3);
    problem.maxDevices = 2 + static_cast<int>(rng() % 4);
    problem.devicesPerNode = 2;
    problem.intraNodeBandwidth = 4 * problem.bandwidth;
    // One sample's latency too (footprints rounded to blocks alike).
    (void)expectOptimal(problem, trial, Objective::Latency);
    std::optional<ParallelPlan> plan = expectOptimal(problem, trial);
    if (!plan)
      continue;
    ++feasible;
    // Blocks aligned to their size: none of a node's size or less
    // straddles two nodes, and none overlaps another.
    std::vector<int> owner(problem.maxDevices, -1);
    for (auto [i, stage] : llvm::enumerate(plan->stages)) {
      int64_t size = problem.footprint(stage.tensorDegree, stage.dataDegree);
      EXPECT_EQ(stage.firstDevice % std::min<int64_t>(size, 2), 0);
      for (int64_t dev = stage.firstDevice; dev < stage.firstDevice + size;
           ++dev) {
        ASSERT_LT(dev, problem.maxDevices) << "trial " << trial;
        EXPECT_EQ(owner[dev], -1) << "trial " << trial;
        owner[dev] = static_cast<int>(i);
      }
    }
  }
  EXPECT_GT(feasible, 50);
}

/// Two kinds of devices, the second slower by a factor of 1.2-2.5 per
/// configuration and with its own memory; `perNode` > 0 makes nodes of
/// that many devices (each kind whole nodes).
ParallelProblem withTwoKinds(std::mt19937 &rng, ParallelProblem problem,
                             int perNode = 0) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int unitSize = perNode > 0 ? perNode : 1;
  problem.kinds = {{"fast", unitSize * (1 + static_cast<int>(rng() % 2)),
                    problem.memoryPerDevice},
                   {"slow", unitSize * (1 + static_cast<int>(rng() % 2)),
                    problem.memoryPerDevice * (0.5 + unit(rng))}};
  problem.maxDevices = problem.kinds[0].count + problem.kinds[1].count;
  for (ParallelLayer &layer : problem.layers)
    for (auto &[t, configs] : layer.configs)
      for (TensorConfig &config : configs)
        config.kindTimes = {config.timePerSample,
                            config.timePerSample * (1.2 + 1.3 * unit(rng))};
  return problem;
}

// Mixed accelerators: every chain of stages, each on a kind in device
// order, for throughput and latency, flat and on nodes of two devices.
TEST(ParallelPlan, OptimalOnTwoDeviceKinds) {
  std::mt19937 rng(61);
  int feasible = 0, mixed = 0;
  for (int trial = 0; trial < 80; ++trial) {
    int perNode = trial % 2 ? 2 : 0;
    ParallelProblem problem =
        withTwoKinds(rng, randomProblem(rng, 2 + trial % 3), perNode);
    if (perNode > 0) {
      problem.devicesPerNode = perNode;
      problem.intraNodeBandwidth = 4 * problem.bandwidth;
    }
    (void)expectOptimal(problem, trial, Objective::Latency);
    std::optional<ParallelPlan> plan = expectOptimal(problem, trial);
    if (!plan)
      continue;
    ++feasible;
    mixed += plan->stages.front().kind != plan->stages.back().kind;
    // Each stage's devices are its kind's: kind 0 holds the first ones.
    for (const ParallelStage &stage : plan->stages) {
      int64_t begin = stage.kind == 0 ? 0 : problem.kinds[0].count;
      EXPECT_GE(stage.firstDevice, begin) << "trial " << trial;
      EXPECT_LE(stage.firstDevice +
                    problem.footprint(stage.tensorDegree, stage.dataDegree),
                begin + problem.kinds[stage.kind].count)
          << "trial " << trial;
    }
  }
  EXPECT_GT(feasible, 40);
  // Plans that use both kinds occur: the test covers the choice.
  EXPECT_GT(mixed, 5);
}

// By hand: L0 takes 1 s on an A100 and 2 s on a V100, L1 0.5 s and 0.8 s;
// nothing crosses between them; one device of each. With the A100 first
// (the pipeline's direction), L0 there and L1 on the V100: max(1, 0.8) =
// 1 s per sample, against 1.5 s for both on the A100. With the
// V100 first, L0 cannot follow L1 onto it: L0 on the V100 and L1 on the
// A100 gives max(2, 0.5) = 2 s, so both on the A100, 1.5 s, is best.
TEST(ParallelPlan, DeviceKindsByHand) {
  ParallelProblem problem;
  problem.microbatches = 2;
  problem.bandwidth = 1;
  problem.maxDataDegree = 1;
  for (auto [v, times] : llvm::enumerate(
           std::vector<std::vector<double>>{{1.0, 2.0}, {0.5, 0.8}})) {
    ParallelLayer layer;
    layer.id = static_cast<int64_t>(v);
    layer.name = "L" + std::to_string(v);
    TensorConfig config;
    config.id = "only";
    config.timePerSample = times[0];
    config.kindTimes = times;
    config.fixedBytes = 1;
    layer.configs[1] = {config};
    problem.layers.push_back(layer);
  }
  problem.edges.push_back({0, 1, 0});
  problem.indexEdges();
  for (ParallelLayer &layer : problem.layers)
    for (TensorConfig &config : layer.configs[1]) {
      config.syncIn.assign(problem.inEdges[layer.id].size(), 0);
      config.syncOut.assign(problem.outEdges[layer.id].size(), 0);
    }
  problem.kinds = {{"A100", 1, 10}, {"V100", 1, 10}};
  problem.maxDevices = 2;
  llvm::Expected<ParallelPlan> plan = planParallel(problem);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 1.0);
  ASSERT_EQ(plan->stages.size(), 2u);
  EXPECT_EQ(plan->stages[0].kind, 0);
  EXPECT_EQ(plan->stages[0].firstDevice, 0);
  EXPECT_EQ(plan->stages[1].kind, 1);
  EXPECT_EQ(plan->stages[1].firstDevice, 1);

  // The V100 first: its times and the A100's swap places.
  std::swap(problem.kinds[0], problem.kinds[1]);
  for (ParallelLayer &layer : problem.layers)
    for (TensorConfig &config : layer.configs[1])
      std::swap(config.kindTimes[0], config.kindTimes[1]);
  plan = planParallel(problem);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  EXPECT_DOUBLE_EQ(plan->timePerSample, 1.5);
  ASSERT_EQ(plan->stages.size(), 1u);
  EXPECT_EQ(plan->stages[0].kind, 1);
  EXPECT_EQ(plan->stages[0].firstDevice, 1);

  // A plan against the device order, and too many devices of a kind.
  ParallelPlan backwards;
  backwards.stages = {{{0}, 1, 1, 1, 1, {0}, 0, 0},
                      {{1}, 1, 1, 0, 0, {0}, 0, 0}};
  llvm::Expected<double> score = scoreParallelPlan(problem, backwards);
  ASSERT_FALSE(static_cast<bool>(score));
  EXPECT_EQ(llvm::toString(score.takeError()),
            "invalid plan: stage 1 runs on V100, which comes before the "
            "previous stage's A100 in device order");
  ParallelPlan crowded;
  crowded.stages = {{{0}, 1, 1, 0, 0, {0}, 0, 0}, {{1}, 1, 1, 0, 0, {0}, 0, 0}};
  score = scoreParallelPlan(problem, crowded);
  ASSERT_FALSE(static_cast<bool>(score));
  EXPECT_EQ(llvm::toString(score.takeError()),
            "invalid plan: 2 devices of kind V100, 1 available");

  // Inconsistent kinds are refused by name.
  problem.kinds[1].count = 3;
  llvm::Expected<ParallelPlan> refused = planParallel(problem);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "the device kinds hold 4 devices, not 2");
  problem.kinds[1].count = 1;
  problem.layers[1].configs[1][0].kindTimes = {0.5};
  refused = planParallel(problem);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "layer L1, configuration 'only' at t = 1 needs a time (finite, "
            "not negative) for each of the 2 device kinds");
}

/// Every configuration of a layer at a degree moving the same sync bytes
/// (as recomputation choices and derived models do): the planner grows a
/// stage's frontier from a smaller stage's instead of rebuilding it.
ParallelProblem withSharedSync(ParallelProblem problem) {
  for (ParallelLayer &layer : problem.layers)
    for (auto &[t, configs] : layer.configs)
      for (TensorConfig &config : configs) {
        config.syncIn = configs.front().syncIn;
        config.syncOut = configs.front().syncOut;
      }
  return problem;
}

TEST(ParallelPlan, OptimalWhenSyncIsShared) {
  std::mt19937 rng(71);
  int feasible = 0;
  for (int trial = 0; trial < 120; ++trial) {
    ParallelProblem problem = withSharedSync(
        randomProblem(rng, 2 + trial % 3, /*sameParameters=*/trial % 3 == 0));
    if (trial % 2)
      problem = withTwoKinds(rng, std::move(problem));
    (void)expectOptimal(problem, trial, Objective::Latency);
    feasible += expectOptimal(problem, trial).has_value();
  }
  EXPECT_GT(feasible, 60);
}

TEST(ParallelPlan, FootprintsOnNodes) {
  ParallelProblem problem;
  EXPECT_EQ(problem.footprint(2, 3), 6); // flat: t * d
  problem.devicesPerNode = 4;
  problem.bandwidth = 1;
  problem.intraNodeBandwidth = 10;
  EXPECT_EQ(problem.footprint(1, 3), 4);
  EXPECT_EQ(problem.footprint(2, 3), 8);
  EXPECT_EQ(problem.footprint(1, 5), 8);
  EXPECT_EQ(problem.footprint(4, 1), 4);
  EXPECT_EQ(problem.footprint(8, 1), 0); // a group larger than a node
  EXPECT_EQ(problem.footprint(3, 1), 0); // 3 does not divide 4
  EXPECT_EQ(problem.resyncBandwidth(2, 2), 10);
  EXPECT_EQ(problem.resyncBandwidth(2, 3), 1);
}

/// Piper's own planner (algo.cpp, built by benchmarks/placement/piper.sh)
/// on the paper's configuration: 8 GiB per device, N = 1920, 25 GiB/s.
TEST(ParallelPlan, BertMatchesPiperOnItsConfiguration) {
  llvm::Expected<ParallelProblem> problem = readPiperWorkloadFile(piperInput());
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  EXPECT_EQ(problem->size(), 37);
  EXPECT_EQ(problem->edges.size(), 67u);
  problem->memoryPerDevice = 8.0 * (1 << 30);
  problem->microbatches = 1920;
  problem->bandwidth = 25.0 * (1 << 30);
  struct Case {
    int devices;
    double piper;
  };
  for (Case c : {Case{8, 0.16585575}, Case{64, 0.0202005503},
                 Case{512, 0.00256112785}}) {
    problem->maxDevices = c.devices;
    llvm::Expected<ParallelPlan> plan = planParallel(*problem);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_NEAR(plan->timePerSample, c.piper, 1e-8 * c.piper) << c.devices;
    EXPECT_LE(plan->devicesUsed, c.devices);
    llvm::Expected<double> score = scoreParallelPlan(*problem, *plan);
    ASSERT_TRUE(static_cast<bool>(score));
    EXPECT_DOUBLE_EQ(*score, plan->timePerSample);
  }
  // One device cannot hold BERT-32 in 8 GiB, which is said before the
  // search.
  problem->maxDevices = 1;
  llvm::Expected<ParallelPlan> none = planParallel(*problem);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError())
                .find("over all devices and the 1 device holds 8.6 GB"),
            std::string::npos);
}

// Two layers on two stages, by hand: stage 0 computes 1 s and sends 1 s per
// microbatch, stage 1 receives 1 s and computes 2 s. Serialized, stage 1
// is the bottleneck at 3 s after a 2 s fill; overlapped, it computes only.
TEST(ParallelSimulation, TwoStagesByHand) {
  ParallelProblem problem;
  problem.maxDevices = 2;
  problem.microbatches = 4;
  problem.bandwidth = 1;
  problem.memoryPerDevice = 10;
  for (double time : {1.0, 2.0}) {
    ParallelLayer layer;
    layer.name = "L" + std::to_string(problem.layers.size());
    TensorConfig config;
    config.id = "c";
    config.timePerSample = time;
    layer.configs[1].push_back(config);
    problem.layers.push_back(layer);
  }
  problem.edges.push_back({0, 1, 0.5});
  problem.indexEdges();
  problem.layers[0].configs[1][0].syncOut = {0};
  problem.layers[1].configs[1][0].syncIn = {0};
  ParallelPlan plan;
  for (int v : {0, 1}) {
    ParallelStage stage;
    stage.layers = {v};
    stage.configs = {0};
    stage.firstDevice = v;
    plan.stages.push_back(stage);
  }
  llvm::Expected<double> score = scoreParallelPlan(problem, plan);
  ASSERT_TRUE(bool(score)) << llvm::toString(score.takeError());
  EXPECT_DOUBLE_EQ(*score, 3);

  ParallelRun run = simulateParallelPlan(problem, plan);
  EXPECT_DOUBLE_EQ(run.batchSeconds, 14);
  EXPECT_DOUBLE_EQ(run.timePerSample, 3.5);
  EXPECT_DOUBLE_EQ(run.firstMicrobatchSeconds, 5);
  EXPECT_DOUBLE_EQ(run.bubbleFraction, 1 - 20.0 / 28);
  EXPECT_DOUBLE_EQ(run.stages[0].send, 1);
  EXPECT_DOUBLE_EQ(run.stages[1].receive, 1);
  EXPECT_DOUBLE_EQ(run.stages[1].busy, 12);

  ParallelRun overlapped =
      simulateParallelPlan(problem, plan, 0, /*overlap=*/true);
  EXPECT_DOUBLE_EQ(overlapped.batchSeconds, 10);
  EXPECT_DOUBLE_EQ(overlapped.firstMicrobatchSeconds, 4);

  // More microbatches than the problem's: the fill is paid once.
  EXPECT_DOUBLE_EQ(simulateParallelPlan(problem, plan, 100).batchSeconds,
                   2 + 3 * 100);
}

// BERT-32 on 64 devices: the simulated batch takes at least the model's
// time per sample for each microbatch (the bottleneck copy's work is exactly
// that) and little more (the fill and drain of a deep pipeline over 1,920
// microbatches).
TEST(ParallelSimulation, BertApproachesTheModel) {
  llvm::Expected<ParallelProblem> problem = readPiperWorkloadFile(piperInput());
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  problem->memoryPerDevice = 8.0 * (1 << 30);
  problem->microbatches = 1920;
  problem->bandwidth = 25.0 * (1 << 30);
  problem->maxDevices = 64;
  llvm::Expected<ParallelPlan> plan = planParallel(*problem);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  ParallelRun run = simulateParallelPlan(*problem, *plan);
  double model = plan->timePerSample;
  EXPECT_GE(run.timePerSample, model * (1 - 1e-12));
  EXPECT_LE(run.timePerSample, model * 1.05);
  double busiest = 0;
  for (const ParallelRun::Stage &stage : run.stages)
    busiest = std::max(busiest, stage.busy);
  EXPECT_NEAR(busiest, model * 1920, 1e-9 * model * 1920);
  EXPECT_GT(run.bubbleFraction, 0);
  EXPECT_LT(run.bubbleFraction, 0.5);
}

TEST(ParallelPlan, RepeatLayerGrowsBert) {
  llvm::Expected<ParallelProblem> problem = readPiperWorkloadFile(piperInput());
  ASSERT_TRUE(static_cast<bool>(problem));
  for (int i = 0; i < 32; ++i)
    ASSERT_FALSE(
        static_cast<bool>(repeatLayer(*problem, "ParallelTransformerLayer")));
  EXPECT_EQ(problem->size(), 69);
  EXPECT_EQ(problem->edges.size(), 99u);
  // Twice the transformers on twice the devices: no faster per sample.
  problem->memoryPerDevice = 8.0 * (1 << 30);
  problem->microbatches = 1920;
  problem->bandwidth = 25.0 * (1 << 30);
  problem->maxDevices = 128;
  llvm::Expected<ParallelPlan> plan = planParallel(*problem);
  ASSERT_TRUE(static_cast<bool>(plan));
  llvm::Expected<double> score = scoreParallelPlan(*problem, *plan);
  ASSERT_TRUE(static_cast<bool>(score));
  EXPECT_DOUBLE_EQ(*score, plan->timePerSample);
  llvm::Error missing = repeatLayer(*problem, "NoSuchLayer");
  EXPECT_EQ(llvm::toString(std::move(missing)),
            "no layer named 'NoSuchLayer' between two others of that name");
}

/// Sizes that would not fit in memory are refused up front, not allocated.
TEST(ParallelPlan, RefusesTablesTooLargeToHold) {
  std::mt19937 rng(5);
  ParallelProblem problem = randomProblem(rng, 4);
  problem.maxDevices = 1 << 20;
  problem.microbatches = 1 << 20;
  ParallelPlanOptions options;
  options.tableLimit = 1000000;
  llvm::Expected<ParallelPlan> plan = planParallel(problem, options);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_NE(llvm::toString(plan.takeError())
                .find("exceed the planner's table of 1000000 entries"),
            std::string::npos);
}

// A deadline already past stops the planner before its first stage, with
// an error saying where (it has no plan before its search ends).
TEST(ParallelPlan, StopsAtTheDeadline) {
  std::mt19937 rng(5);
  ParallelProblem problem = randomProblem(rng, 4);
  ParallelPlanOptions options;
  options.deadline = std::chrono::steady_clock::now();
  llvm::Expected<ParallelPlan> plan = planParallel(problem, options);
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "the time limit passed while building the stages from ideal 0 of "
            "5 (0 candidate stages so far); coarsen the layer graph or allow "
            "more time");
  // A deadline far ahead changes nothing.
  options.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  plan = planParallel(problem, options);
  llvm::Expected<ParallelPlan> unbounded = planParallel(problem);
  ASSERT_EQ(static_cast<bool>(plan), static_cast<bool>(unbounded));
  if (plan)
    EXPECT_EQ(plan->timePerSample, unbounded->timePerSample);
  else {
    llvm::consumeError(plan.takeError());
    llvm::consumeError(unbounded.takeError());
  }
}

TEST(ParallelPlan, ScoreRefusesInvalidPlans) {
  std::mt19937 rng(7);
  ParallelProblem problem = randomProblem(rng, 3);
  problem.memoryPerDevice = 1e9;
  ParallelPlan plan;
  plan.stages.push_back({{1, 2}, 1, 1, 0, 0, {0, 0}, 0, 0});
  plan.stages.push_back({{0}, 1, 1, 0, 0, {0}, 0, 0});
  llvm::Expected<double> back = scoreParallelPlan(problem, plan);
  ASSERT_FALSE(static_cast<bool>(back));
  EXPECT_EQ(llvm::toString(back.takeError()),
            "invalid plan: the edge from L0 goes back from stage 1 to 0");
  plan.stages = {{{0, 1}, 1, 1, 0, 0, {0, 0}, 0, 0}};
  llvm::Expected<double> missing = scoreParallelPlan(problem, plan);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "invalid plan: layer L2 (id 21) is in no stage");
  plan.stages = {{{0, 1, 2}, 1, 3, 0, 0, {0, 0, 0}, 0, 0}};
  llvm::Expected<double> divides = scoreParallelPlan(problem, plan);
  ASSERT_FALSE(static_cast<bool>(divides));
  EXPECT_NE(llvm::toString(divides.takeError()).find("does not divide"),
            std::string::npos);
}

/// A malformed input names the field at fault.
TEST(PiperWorkload, ErrorsNameTheField) {
  auto parse = [](llvm::StringRef text) {
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
    EXPECT_TRUE(static_cast<bool>(json));
    llvm::Expected<ParallelProblem> problem =
        parsePiperWorkload(*json, "p.json");
    return problem ? std::string("ok") : llvm::toString(problem.takeError());
  };
  std::string top = R"("maxMemoryPerDevice": 8, "maxDevices": 2,
                       "bandwidth": 1, "mbsInBatch": 4, )";
  std::string config = R"({"id": "v", "timePerSample": 1,
      "parameterSize": 1, "memoryUsageA": 1, "memoryUsageB": 1,
      "syncTimeFw": SYNCIN, "syncTimeBw": SYNCOUT})";
  auto node = [&](int id, llvm::StringRef in, llvm::StringRef out,
                  llvm::StringRef degree = "1") {
    std::string c = config;
    c.replace(c.find("SYNCIN"), 6, in.str());
    c.replace(c.find("SYNCOUT"), 7, out.str());
    return "{\"id\": " + std::to_string(id) + ", \"TMPCs\": {\"" +
           degree.str() + "\": [" + c + "]}}";
  };
  std::string edge = R"([{"sourceId": 1, "destId": 2,
                         "communicationCost": 5}])";
  auto file = [&](const std::string &nodes, const std::string &edges) {
    return "{" + top + "\"nodes\": [" + nodes + "], \"edges\": " + edges + "}";
  };
  EXPECT_EQ(parse(file(node(1, "{}", R"({"2": 0})") + "," +
                           node(2, R"({"1": 0})", "{}"),
                       edge)),
            "ok");
  EXPECT_EQ(parse("{\"maxDevices\": 2}"),
            "p.json: maxMemoryPerDevice: missing value");
  EXPECT_EQ(parse(file(node(1, "{}", R"({"3": 0})") + "," +
                           node(2, R"({"1": 0})", "{}"),
                       edge)),
            "p.json: nodes[0].TMPCs.1[0].syncTimeBw.3: no edge to node 3");
  EXPECT_EQ(parse(file(node(1, "{}", "{}") + "," + node(2, R"({"1": 0})", "{}"),
                       edge)),
            "p.json: nodes[0].TMPCs.1[0].syncTimeBw: misses the edge to "
            "node 2");
  EXPECT_EQ(parse(file(node(1, "{}", R"({"2": 0})", "two") + "," +
                           node(2, R"({"1": 0})", "{}"),
                       edge)),
            "p.json: nodes[0].TMPCs.two: a tensor-parallel degree is a "
            "number from 1 to maxDevices");
  EXPECT_EQ(parse(file(node(1, "{}", R"({"2": 0})") + "," +
                           node(2, R"({"1": 0})", "{}"),
                       R"([{"sourceId": 1, "destId": 9,
                           "communicationCost": 5}])")),
            "p.json: edges[0].destId: no node has id 9");
  EXPECT_EQ(parse(file(node(1, R"({"2": 0})", R"({"2": 0})") + "," +
                           node(2, R"({"1": 0})", R"({"1": 0})"),
                       R"([{"sourceId": 1, "destId": 2,
                           "communicationCost": 5},
                          {"sourceId": 2, "destId": 1,
                           "communicationCost": 5}])")),
            "p.json: edges: the graph has a cycle");
  EXPECT_EQ(parse(file(node(1, "{}", R"({"2": -1})") + "," +
                           node(2, R"({"1": 0})", "{}"),
                       edge)),
            "p.json: nodes[0].TMPCs.1[0].syncTimeBw.2: must not be "
            "negative");
}

} // namespace

// The seed paper's problem restated for the planner (parallelProblemOf):
// at t = 1, d = 1 the planner's optimum is the contiguous-split DP's, and
// its plan, mapped back to nodes and evaluated by the seed model's own
// evaluator, costs what the planner says.
namespace seed {

/// The plan as the seed model's assignment: every node on its stage's
/// device, a node left out with its earliest consumer (the first stage if
/// none).
Assignment assignmentOf(const Problem &problem, const ParallelPlan &plan,
                        const std::vector<int> &layerOf) {
  std::vector<int> stageOfLayer(layerOf.size(), -1);
  for (auto [i, stage] : llvm::enumerate(plan.stages))
    for (int v : stage.layers)
      stageOfLayer[v] = static_cast<int>(i);
  int n = problem.size();
  std::vector<int> stageOf(n, -1);
  for (int u = 0; u < n; ++u)
    if (layerOf[u] >= 0)
      stageOf[u] = stageOfLayer[layerOf[u]];
  // Left-out nodes are sources peeled in topological order: in reverse,
  // each one's consumers have their stages.
  for (int u = n - 1; u >= 0; --u)
    if (layerOf[u] < 0) {
      int earliest = static_cast<int>(plan.stages.size()) - 1;
      for (int v : problem.successors[u])
        earliest = std::min(earliest, stageOf[v]);
      stageOf[u] = problem.successors[u].empty() ? 0 : earliest;
    }
  Assignment assignment(n);
  for (int u = 0; u < n; ++u)
    assignment[u] = static_cast<int>(plan.stages[stageOf[u]].firstDevice);
  return assignment;
}

/// Plans `problem` both ways and checks they agree; returns the optimum.
double expectSameOptimum(const Problem &problem, const std::string &what,
                         bool mergeWeightedLeaves = false) {
  Solution dp = solveIdealDP(problem);
  std::vector<int> layerOf;
  llvm::Expected<ParallelProblem> parallel =
      parallelProblemOf(problem, layerOf, mergeWeightedLeaves);
  if (!parallel) {
    ADD_FAILURE() << what << ": " << llvm::toString(parallel.takeError());
    return 0;
  }
  ParallelPlanOptions options;
  options.pairLimit = 20000000;
  llvm::Expected<ParallelPlan> plan = planParallel(*parallel, options);
  if (!dp.feasible()) {
    EXPECT_FALSE(plan) << what;
    if (!plan)
      llvm::consumeError(plan.takeError());
    return kInfinity;
  }
  if (!plan) {
    ADD_FAILURE() << what << ": " << llvm::toString(plan.takeError());
    return 0;
  }
  EXPECT_TRUE(dp.optimal) << what;
  EXPECT_NEAR(plan->timePerSample, dp.maxLoad, 1e-9 * dp.maxLoad) << what;
  ParallelPlan rescored = *plan;
  llvm::Expected<double> score = scoreParallelPlan(*parallel, rescored);
  EXPECT_TRUE(bool(score)) << what;
  if (score)
    EXPECT_NEAR(*score, plan->timePerSample, 1e-9 * dp.maxLoad) << what;
  Evaluation evaluation =
      evaluate(problem, assignmentOf(problem, *plan, layerOf));
  EXPECT_TRUE(evaluation.feasible()) << what << ": " << evaluation.violation;
  EXPECT_NEAR(evaluation.maxLoad, dp.maxLoad, 1e-9 * dp.maxLoad) << what;
  for (const ParallelStage &stage : plan->stages) {
    EXPECT_EQ(stage.tensorDegree, 1) << what;
    EXPECT_EQ(stage.dataDegree, 1) << what;
  }
  return dp.maxLoad;
}

} // namespace seed

TEST(ParallelPlanSeedModel, DegreeOneIsTheDPOnRandomGraphs) {
  std::mt19937 rng(5454);
  int infeasible = 0;
  for (int trial = 0; trial < 120; ++trial) {
    // Some with zero-time nodes, which the DP's reductions leave out or
    // merge, as parallelProblemOf does.
    placer::solver::testing::Shape shape{
        6 + trial % 5,  1 + trial % 4, 0, trial % 3 == 0, false,
        trial % 4 == 1, trial % 5 == 2};
    Problem problem = placer::solver::testing::randomProblem(rng, shape);
    infeasible += seed::expectSameOptimum(
                      problem, "trial " + std::to_string(trial)) == kInfinity;
  }
  // Tight memory leaves some without any split: both say so.
  EXPECT_GT(infeasible, 0);
  EXPECT_LT(infeasible, 30);
}

// The other two operator graphs agree too but take the planner 16 s each
// (it enumerates every stage that fits in memory, where the DP's bands skip
// most): `placer-placement-bench --degree-one` runs all eight
// (benchmarks/README.md, "Three-dimensional plans").
TEST(ParallelPlanSeedModel, DegreeOneIsTheDPOnPublishedWorkloads) {
  for (const char *file :
       {"LayerGraphs/bert24_inference", "LayerGraphs/bert24_training",
        "LayerGraphs/gnmt_inference", "LayerGraphs/resnet50_inference",
        "OperatorGraphs/bert_l-3_inference",
        "OperatorGraphs/resnet50_inference"}) {
    std::string path =
        std::string(PLACER_WORKLOADS_DIR) + "/throughput/" + file + ".json";
    llvm::Expected<Workload> workload = readWorkloadFile(path);
    ASSERT_TRUE(bool(workload)) << llvm::toString(workload.takeError());
    // The planner has no CPU cores: both solve the accelerators alone.
    workload->problem.numCpus = 0;
    // GNMT's lattice is small only with its weighted leaves merged; the DP
    // proves its answer optimal, so the restricted plan equalling it shows
    // the restriction lost nothing.
    bool gnmt = std::string(file).find("gnmt") != std::string::npos;
    double optimum = seed::expectSameOptimum(workload->problem, file, gnmt);
    EXPECT_GT(optimum, 0) << file;
    EXPECT_LT(optimum, kInfinity) << file;
  }
}

TEST(ParallelPlanSeedModel, NamesWhatItDoesNotModel) {
  Problem problem;
  problem.nodes.resize(2);
  problem.successors = {{1}, {}};
  problem.numAccelerators = 2;
  problem.numCpus = 1;
  std::vector<int> layerOf;
  auto error = [&] {
    llvm::Expected<ParallelProblem> parallel =
        parallelProblemOf(problem, layerOf);
    return parallel ? std::string() : llvm::toString(parallel.takeError());
  };
  EXPECT_NE(error().find("CPU cores (1 given)"), std::string::npos);
  problem.numCpus = 0;
  problem.nodes[1].supported = false;
  problem.nodes[1].name = "softmax";
  EXPECT_NE(error().find("node softmax"), std::string::npos);
  problem.nodes[1].supported = true;
  problem.schedule = Schedule::OneFOneB;
  EXPECT_NE(error().find("training schedules"), std::string::npos);
  problem.schedule = Schedule::Inference;
  EXPECT_EQ(error(), "");
}
