//===- LatencyChain.cpp - Latency DP over the graph's chain of blocks -----===//
//
// docs/IntegerPrograms.md, "Chain of blocks". Latency graphs are long
// chains of cut vertices (every path from a source to a sink passes through
// them) with small blocks of parallel branches between them. With one call
// per accelerator, a call that holds a cut vertex holds a run of cut
// vertices, all of the blocks between them, a part of the block before its
// first one that is closed under successors (its head) and a part of the
// block after its last one that is closed under predecessors (its tail);
// every other call lies inside one block. A DP along the chain that
// enumerates each block's heads and tails is then exact up to how it
// prices the rest of each block (its middle): the bound prices middle
// nodes at the least any path through them can cost, on a CPU core or in
// a call of their own; the placement puts them on the CPU.
//
//===----------------------------------------------------------------------===//
#include "placer/Solver/Latency.h"

#include "placer/Support/Graph.h"

#include "Contraction.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <map>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

using Mask = uint64_t;
/// Blocks of more classes are not enumerated (their parts are bit masks).
constexpr int kMaxBlock = 64;
/// Heads or tails one block may have before the DP gives up.
constexpr size_t kMaxParts = 1 << 14;
/// Node visits over all (tail, head) pairs of all blocks (the paper's
/// Inception-v3 latency input takes 0.3 billion: its whole bound, 1.4 s).
constexpr int64_t kMaxWork = 1'000'000'000;
/// DP states (24 bytes each) at most.
constexpr int64_t kMaxStates = 20'000'000;
/// Classes of more members are not timed member by member.
constexpr size_t kMaxClass = 1024;

/// The colour classes as nodes, with a virtual source before every class
/// without predecessors and a virtual sink after every class without
/// successors, and what the DP needs of each class.
struct ClassGraph {
  Contracted classes;
  int size = 0; ///< classes + 2
  int source = 0, sink = 0;
  std::vector<std::vector<int>> succ;
  /// Per class, its predecessor classes, each with the transfer cost of its
  /// members feeding the class (c(u) once per member u).
  std::vector<std::vector<std::pair<int, double>>> in;
  /// The least time any path spends in the class when it runs on the CPU
  /// (kInfinity where it cannot), and the time of all its members.
  std::vector<double> cpuLow, cpuAll;
  /// Whether a call can hold the class (never a virtual node). Its
  /// accelerator time and memory are `classes`' (real classes only).
  std::vector<char> supported;
};

/// The least CPU time a path through the class spends in it: the longest
/// member path from an entry (a member fed from outside, or a source) to an
/// exit (one feeding outside, or a sink), least over such pairs. Nothing
/// where some entry does not reach some exit: the class could then hand a
/// result on before an input arrives, and no one time stands for it.
std::optional<double> cpuThroughTime(const Problem &problem,
                                     const std::vector<int> &members,
                                     const std::vector<int> &superOf,
                                     const std::vector<std::vector<int>> &preds,
                                     const std::vector<int> &position) {
  if (members.size() == 1)
    return problem.nodes[members[0]].cpuTime;
  std::vector<int> sorted = members;
  llvm::sort(sorted, [&](int a, int b) { return position[a] < position[b]; });
  int self = superOf[sorted[0]];
  auto isEntry = [&](int v) {
    return preds[v].empty() ||
           llvm::any_of(preds[v], [&](int u) { return superOf[u] != self; });
  };
  auto isExit = [&](int v) {
    return problem.successors[v].empty() ||
           llvm::any_of(problem.successors[v],
                        [&](int w) { return superOf[w] != self; });
  };
  std::map<int, double> longest;
  double least = kInfinity;
  for (int x : sorted) {
    if (!isEntry(x))
      continue;
    longest.clear();
    longest[x] = problem.nodes[x].cpuTime;
    for (int v : sorted) {
      if (v == x)
        continue;
      double best = -1;
      for (int u : preds[v])
        if (auto it = longest.find(u); it != longest.end())
          best = std::max(best, it->second);
      if (best >= 0)
        longest[v] = best + problem.nodes[v].cpuTime;
    }
    for (int y : sorted) {
      if (!isExit(y))
        continue;
      auto it = longest.find(y);
      if (it == longest.end())
        return std::nullopt;
      least = std::min(least, it->second);
    }
  }
  return least;
}

std::optional<ClassGraph> buildClassGraph(const Problem &problem,
                                          std::string &why) {
  ClassGraph g;
  g.classes = contract(problem, /*mergeCycles=*/false);
  const Contracted &c = g.classes;
  int s = c.numSuper;
  if (static_cast<int>(placer::topologicalOrder(c.successors).size()) != s) {
    why = "its colour classes depend on each other both ways";
    return std::nullopt;
  }
  g.size = s + 2;
  g.source = s;
  g.sink = s + 1;
  g.succ = c.successors;
  g.succ.resize(g.size);
  g.in.assign(g.size, {});
  std::vector<std::vector<int>> preds = problem.predecessors();
  std::vector<int> position(problem.size());
  std::vector<int> order = topologicalOrder(problem);
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = static_cast<int>(i);
  std::vector<std::map<int, double>> cost(s);
  for (int v = 0; v < problem.size(); ++v) {
    std::vector<int> fed; // the classes v feeds, each once
    for (int w : problem.successors[v])
      if (c.superOf[w] != c.superOf[v])
        fed.push_back(c.superOf[w]);
    llvm::sort(fed);
    fed.erase(std::unique(fed.begin(), fed.end()), fed.end());
    for (int x : fed)
      cost[x][c.superOf[v]] += problem.nodes[v].transferCost;
  }
  for (int x = 0; x < s; ++x) {
    g.in[x].assign(cost[x].begin(), cost[x].end());
    if (g.in[x].empty()) {
      g.in[x].emplace_back(g.source, 0);
      g.succ[g.source].push_back(x);
    }
    if (c.successors[x].empty()) {
      g.in[g.sink].emplace_back(x, 0);
      g.succ[x].push_back(g.sink);
    }
  }
  g.cpuLow.assign(g.size, 0);
  g.cpuAll.assign(g.size, 0);
  g.supported.assign(g.size, 0);
  for (int x = 0; x < s; ++x) {
    // A class too large for any accelerator is never in a call.
    g.supported[x] = c.supported[x] && problem.numAccelerators > 0 &&
                     problem.fits(c.memory[x]);
    bool cpu = problem.numCpus > 0 && c.cpuTime[x] < kInfinity;
    if (c.members[x].size() > kMaxClass) {
      why = "colour class of node " + problem.nodes[c.members[x][0]].name +
            " has more than " + std::to_string(kMaxClass) + " members";
      return std::nullopt;
    }
    std::optional<double> through =
        cpu ? cpuThroughTime(problem, c.members[x], c.superOf, preds, position)
            : kInfinity;
    if (!through) {
      why = "colour class of node " + problem.nodes[c.members[x][0]].name +
            " has a member whose inputs do not reach all its outputs";
      return std::nullopt;
    }
    g.cpuLow[x] = *through;
    g.cpuAll[x] = cpu ? c.cpuTime[x] : kInfinity;
  }
  return g;
}

/// The tails (closed under predecessors) or the heads (closed under
/// successors) of a block, and for each its memory, accelerator time and
/// support, and what the call holding it with the cut vertex beside it pays
/// to hand results on (tails, beside the entry) or to take them in (heads,
/// beside the exit).
struct Parts {
  std::vector<Mask> masks;
  std::vector<double> memory, acc, transfer;
  std::vector<char> supported;
};

/// The part of the graph between two consecutive cut vertices.
struct Block {
  int entry = 0, exit = 0;    ///< the cut vertices around it
  std::vector<int> nodes;     ///< its classes, topologically ordered
  std::vector<Mask> predMask; ///< per node, its predecessors in the block
  Parts tails, heads;
  Mask all = 0;
};

/// Every subset of the block closed under predecessors (`down`) or
/// successors, at most kMaxParts of them; empty when there are more.
std::vector<Mask> closedSubsets(const Block &block,
                                const std::vector<Mask> &succMask, bool down) {
  int n = static_cast<int>(block.nodes.size());
  std::vector<Mask> result{0};
  // Extend every subset found so far by each node whose required
  // neighbours it already holds, in order, so each subset is made once.
  for (int step = 0; step < n; ++step) {
    int v = down ? step : n - 1 - step;
    Mask need = down ? block.predMask[v] : succMask[v];
    size_t existing = result.size();
    for (size_t i = 0; i < existing; ++i)
      if ((result[i] & need) == need) {
        result.push_back(result[i] | (Mask(1) << v));
        if (result.size() > kMaxParts)
          return {};
      }
  }
  return result;
}

/// Sum of c(u) over the members u of `inside` that feed a class outside it.
double transferOut(const Problem &problem, const Contracted &c,
                   const std::vector<char> &inside,
                   const std::vector<int> &classes) {
  double total = 0;
  for (int x : classes)
    for (int u : c.members[x])
      if (llvm::any_of(problem.successors[u],
                       [&](int w) { return !inside[c.superOf[w]]; }))
        total += problem.nodes[u].transferCost;
  return total;
}

/// Sum of c(u) over the members u outside `inside` that feed it.
double transferIn(const Problem &problem, const Contracted &c,
                  const std::vector<std::vector<int>> &preds,
                  const std::vector<char> &inside,
                  const std::vector<int> &classes) {
  std::vector<int> sources;
  for (int x : classes)
    for (int v : c.members[x])
      for (int u : preds[v])
        if (!inside[c.superOf[u]])
          sources.push_back(u);
  llvm::sort(sources);
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  double total = 0;
  for (int u : sources)
    total += problem.nodes[u].transferCost;
  return total;
}

std::vector<int> classesOf(const Block &block, Mask mask) {
  std::vector<int> classes;
  for (size_t i = 0; i < block.nodes.size(); ++i)
    if (mask >> i & 1)
      classes.push_back(block.nodes[i]);
  return classes;
}

/// Fills in what `parts` (the block's tails, or its heads) weigh, take and
/// pay; their masks are set.
void tabulate(const Problem &problem, const ClassGraph &g, const Block &block,
              bool tails, const std::vector<std::vector<int>> &memberPreds,
              std::vector<char> &mark, Parts &parts) {
  int end = tails ? block.entry : block.exit; // virtual ends are no calls'
  bool real = end != g.source && end != g.sink;
  for (Mask mask : parts.masks) {
    std::vector<int> call = classesOf(block, mask);
    double memory = 0, acc = 0;
    char ok = 1;
    for (int x : call) {
      memory += g.classes.memory[x];
      acc += g.classes.acceleratorTime[x];
      ok = ok && g.supported[x];
    }
    parts.memory.push_back(memory);
    parts.acc.push_back(acc);
    parts.supported.push_back(ok);
    if (real)
      call.push_back(end);
    for (int x : call)
      mark[x] = 1;
    parts.transfer.push_back(
        tails ? transferOut(problem, g.classes, mark, call)
              : transferIn(problem, g.classes, memberPreds, mark, call));
    for (int x : call)
      mark[x] = 0;
  }
}

/// The cut vertices (source and sink included) and the blocks between them.
/// `local` gets each class's index in its block (-1 for cut vertices).
std::optional<std::vector<Block>> buildBlocks(const Problem &problem,
                                              const ClassGraph &g,
                                              std::vector<int> &local,
                                              std::string &why) {
  std::vector<int> order =
      placer::topologicalOrder(g.succ, [&](int x) -> int64_t {
        return x == g.source ? -1 : x == g.sink ? g.size : x;
      });
  std::vector<int> position(g.size);
  for (int i = 0; i < g.size; ++i)
    position[order[i]] = i;
  // A class is a cut vertex exactly when no edge jumps over its position:
  // every path then passes through it.
  std::vector<int> jumps(g.size + 1, 0);
  for (int x = 0; x < g.size; ++x)
    for (int y : g.succ[x])
      if (position[y] > position[x] + 1) {
        ++jumps[position[x] + 1];
        --jumps[position[y]];
      }
  std::vector<Block> blocks;
  int open = 0;
  Block current;
  current.entry = g.source;
  for (int i = 1; i < g.size; ++i) {
    open += jumps[i];
    int x = order[i];
    if (open > 0) {
      current.nodes.push_back(x);
      continue;
    }
    current.exit = x;
    blocks.push_back(std::move(current));
    current = Block();
    current.entry = x;
  }
  std::vector<std::vector<int>> memberPreds = problem.predecessors();
  std::vector<char> mark(g.size, 0);
  for (Block &block : blocks) {
    int n = static_cast<int>(block.nodes.size());
    if (n > kMaxBlock) {
      why = "a block between two cut vertices has " + std::to_string(n) +
            " classes (at most " + std::to_string(kMaxBlock) + ")";
      return std::nullopt;
    }
    for (int i = 0; i < n; ++i)
      local[block.nodes[i]] = i;
    block.predMask.assign(n, 0);
    std::vector<Mask> succMask(n, 0);
    for (int i = 0; i < n; ++i)
      for (auto [p, cost] : g.in[block.nodes[i]])
        if (local[p] >= 0) {
          block.predMask[i] |= Mask(1) << local[p];
          succMask[local[p]] |= Mask(1) << i;
        }
    block.all = n == 64 ? ~Mask(0) : (Mask(1) << n) - 1;
    block.tails.masks = closedSubsets(block, succMask, true);
    block.heads.masks = closedSubsets(block, succMask, false);
    if (block.tails.masks.empty() || block.heads.masks.empty()) {
      why = "a block between two cut vertices splits in more than " +
            std::to_string(kMaxParts) + " ways";
      return std::nullopt;
    }
    tabulate(problem, g, block, true, memberPreds, mark, block.tails);
    tabulate(problem, g, block, false, memberPreds, mark, block.heads);
  }
  return blocks;
}

/// When the middle of a block (neither in the tail nor in the head) hands
/// its results to the head and the exit, counted from when the block's
/// entry (and the call that holds it) is done: at least `low` with each
/// middle node on the CPU or in calls of its own, at least `lowOnCpu` with
/// no accelerator left for such calls, exactly `cpu` with all of them on
/// the CPU (kInfinity where that cannot be).
struct Middle {
  double low = kInfinity, lowOnCpu = kInfinity, cpu = kInfinity;
};

/// What the middle of a block costs, for one tail: the ready times of every
/// node outside the tail as a middle node (a middle node's predecessors are
/// never in the head, so they do not depend on it), then, per head, when
/// the middle nodes feeding the head and the exit hand their results on.
class MiddlePricer {
public:
  MiddlePricer(const ClassGraph &g, const Block &block,
               const std::vector<int> &local, Mask tail, int64_t &work)
      : g(g), block(block), local(local), tail(tail) {
    int n = static_cast<int>(block.nodes.size());
    lowCpu.resize(n);
    lowCall.resize(n);
    onlyCpu.resize(n);
    allCpu.resize(n);
    for (int i = 0; i < n; ++i) {
      if (tail >> i & 1)
        continue;
      int x = block.nodes[i];
      // Ready on the CPU / in a call of x's own, by the least any
      // predecessor's placement allows (its call hands on at its end and
      // x's call pays for what comes in).
      double readyCpu = 0, readyCall = 0, readyOnly = 0, readyAll = 0;
      for (auto [p, cost] : g.in[x]) {
        ++work;
        int j = local[p];
        if (j < 0 || (tail >> j & 1)) { // the entry or the tail: done at 0
          readyCall = std::max(readyCall, cost);
          continue;
        }
        readyCpu = std::max(readyCpu, std::min(lowCpu[j], lowCall[j] + cost));
        readyCall = std::max(readyCall, std::min(lowCall[j], lowCpu[j] + cost));
        readyOnly = std::max(readyOnly, onlyCpu[j]);
        readyAll = std::max(readyAll, allCpu[j]);
      }
      lowCpu[i] = readyCpu + g.cpuLow[x];
      lowCall[i] =
          g.supported[x] ? readyCall + g.classes.acceleratorTime[x] : kInfinity;
      onlyCpu[i] = readyOnly + g.cpuLow[x];
      allCpu[i] = readyAll + g.cpuAll[x];
    }
  }

  Middle price(Mask head, int64_t &work) const {
    Mask middle = block.all & ~tail & ~head;
    Middle result{0, 0, 0};
    auto feed = [&](int x) {
      for (auto [p, cost] : g.in[x]) {
        ++work;
        int j = local[p];
        if (j < 0 || !(middle >> j & 1))
          continue; // the entry, the tail or the head itself
        result.low =
            std::max(result.low, std::min(lowCpu[j], lowCall[j] + cost));
        result.lowOnCpu = std::max(result.lowOnCpu, onlyCpu[j]);
        result.cpu = std::max(result.cpu, allCpu[j]);
      }
    };
    for (size_t i = 0; i < block.nodes.size(); ++i)
      if (head >> i & 1)
        feed(block.nodes[i]);
    feed(block.exit);
    return result;
  }

private:
  const ClassGraph &g;
  const Block &block;
  const std::vector<int> &local; // a class's index in its block, or -1
  Mask tail;
  std::vector<double> lowCpu, lowCall, onlyCpu, allCpu;
};

/// A DP state's value for the bound and for the placement, and how the
/// placement's value was reached.
struct State {
  double low = kInfinity, cpu = kInfinity;
  /// entry states: -1 from the block before with its exit on the CPU
  /// (`a` its tail), else the block whose head began the call (`a`: that
  /// head). head states: `a` the tail of the block's entry state.
  int from = -2, a = -1;
};

void relax(State &to, double low, double cpu, int from, int a) {
  to.low = std::min(to.low, low);
  if (cpu < to.cpu) {
    to.cpu = cpu;
    to.from = from;
    to.a = a;
  }
}

/// The DP along the chain. enter[b][tail * width + used]: block b's entry
/// done, `tail` the part of block b its call also holds, `used` calls so
/// far; head[b][head * width + used]: the call holding block b's exit has
/// begun with `head` and paid its transfers in.
class ChainDP {
public:
  ChainDP(const Problem &problem, const ClassGraph &g,
          const std::vector<Block> &blocks, const std::vector<int> &local)
      : problem(problem), g(g), blocks(blocks), local(local),
        k(problem.numAccelerators), numBlocks(static_cast<int>(blocks.size())),
        // Each call counted holds a cut vertex of its own.
        width(std::min(k, numBlocks - 1) + 1), enter(numBlocks + 1),
        head(numBlocks) {
    for (int b = 0; b < numBlocks; ++b) {
      enter[b].resize(blocks[b].tails.masks.size() * width);
      head[b].resize(blocks[b].heads.masks.size() * width);
    }
    enter[numBlocks].resize(width);
    enter[0][0].low = enter[0][0].cpu = 0;
  }

  /// Runs the DP; false (with `why`) when it would take too long.
  bool run(std::string &why) {
    for (int b = 0; b < numBlocks; ++b) {
      crossBlock(b);
      spanCalls(b);
      if (work > kMaxWork) {
        why = "its blocks split in too many ways";
        return false;
      }
    }
    return true;
  }

  double lowerBound() const {
    double best = kInfinity;
    for (const State &state : enter[numBlocks])
      best = std::min(best, state.low);
    return best;
  }

  /// The DP's best placement with middle nodes on the CPU (its latency as
  /// the DP counts it in `bound`), or nothing.
  Assignment placement(double &bound) const;

private:
  void crossBlock(int b);
  void spanCalls(int b);

  const Problem &problem;
  const ClassGraph &g;
  const std::vector<Block> &blocks;
  const std::vector<int> &local;
  int k, numBlocks, width;
  std::vector<std::vector<State>> enter, head;
  int64_t work = 0;
};

/// From block b's entry states to its exit: on the CPU (the next block's
/// entry states), or beginning a call with a head (block b's head states),
/// for every reached tail and every head apart from it.
void ChainDP::crossBlock(int b) {
  const Block &block = blocks[b];
  bool exitOnCpu = block.exit == g.sink || g.cpuLow[block.exit] < kInfinity;
  double exitCpuLow = block.exit == g.sink ? 0 : g.cpuLow[block.exit];
  double exitCpuAll = block.exit == g.sink ? 0 : g.cpuAll[block.exit];
  bool exitInCall = block.exit != g.sink && g.supported[block.exit];
  for (int t = 0; t < static_cast<int>(block.tails.masks.size()); ++t) {
    bool reached = false;
    for (int used = 0; used < width; ++used)
      reached |= enter[b][t * width + used].low < kInfinity;
    if (!reached)
      continue;
    if (work > kMaxWork)
      return; // run() gives up
    MiddlePricer pricer(g, block, local, block.tails.masks[t], work);
    for (size_t h = 0; h < block.heads.masks.size(); ++h) {
      if (block.tails.masks[t] & block.heads.masks[h])
        continue;
      if (h > 0 && (!exitInCall || !block.heads.supported[h]))
        continue;
      Middle middle = pricer.price(block.heads.masks[h], work);
      for (int used = 0; used < width; ++used) {
        const State &from = enter[b][t * width + used];
        if (from.low == kInfinity)
          continue;
        // Middle nodes can have calls of their own only where the calls
        // that hold cut vertices leave an accelerator free.
        if (h == 0 && exitOnCpu)
          relax(enter[b + 1][used],
                from.low + (used < k ? middle.low : middle.lowOnCpu) +
                    exitCpuLow,
                from.cpu + middle.cpu + exitCpuAll, -1, t);
        if (exitInCall && used + 1 < width)
          relax(head[b][h * width + used + 1],
                from.low + (used + 1 < k ? middle.low : middle.lowOnCpu) +
                    block.heads.transfer[h],
                from.cpu + middle.cpu + block.heads.transfer[h], b, t);
      }
    }
  }
}

/// The calls that begin with a head of block b: each holds b's exit, then
/// whole blocks and their exits, and ends with a tail of a later block e
/// (e's entry states). For each number of calls and each e, the heads
/// sorted by memory with running minima give the best head that leaves
/// room for each tail.
void ChainDP::spanCalls(int b) {
  const Block &block = blocks[b];
  if (block.exit == g.sink)
    return;
  struct Best {
    double memory, low, cpu;
    int cpuHead;
  };
  std::vector<Best> heads;
  for (int used = 1; used < width; ++used) {
    heads.clear();
    for (size_t h = 0; h < block.heads.masks.size(); ++h) {
      const State &from = head[b][h * width + used];
      if (from.low < kInfinity)
        heads.push_back({block.heads.memory[h], from.low + block.heads.acc[h],
                         from.cpu + block.heads.acc[h], static_cast<int>(h)});
    }
    if (heads.empty())
      continue;
    llvm::sort(heads, [](const Best &x, const Best &y) {
      return x.memory < y.memory;
    });
    for (size_t i = 1; i < heads.size(); ++i) {
      heads[i].low = std::min(heads[i].low, heads[i - 1].low);
      if (heads[i - 1].cpu <= heads[i].cpu) {
        heads[i].cpu = heads[i - 1].cpu;
        heads[i].cpuHead = heads[i - 1].cpuHead;
      }
    }
    double memory = g.classes.memory[block.exit],
           acc = g.classes.acceleratorTime[block.exit];
    for (int e = b + 1; e < numBlocks; ++e) {
      const Block &last = blocks[e];
      if (!problem.fits(memory + heads[0].memory) || work > kMaxWork)
        break; // past the work limit, run() gives up
      for (size_t t = 0; t < last.tails.masks.size(); ++t) {
        ++work;
        if (!last.tails.supported[t])
          continue;
        double fixed = memory + last.tails.memory[t];
        auto fit = std::partition_point(
            heads.begin(), heads.end(),
            [&](const Best &x) { return problem.fits(fixed + x.memory); });
        if (fit == heads.begin())
          continue;
        const Best &best = *(fit - 1);
        double time = acc + last.tails.acc[t] + last.tails.transfer[t];
        relax(enter[e][t * width + used], best.low + time, best.cpu + time, b,
              best.cpuHead);
      }
      // The whole block e and its exit join the call.
      size_t whole = last.tails.masks.size() - 1;
      if (last.tails.masks[whole] != last.all || last.exit == g.sink ||
          !last.tails.supported[whole] || !g.supported[last.exit])
        break;
      memory += last.tails.memory[whole] + g.classes.memory[last.exit];
      acc += last.tails.acc[whole] + g.classes.acceleratorTime[last.exit];
    }
  }
}

Assignment ChainDP::placement(double &bound) const {
  int bestUsed = 0;
  for (int used = 1; used < width; ++used)
    if (enter[numBlocks][used].cpu < enter[numBlocks][bestUsed].cpu)
      bestUsed = used;
  bound = enter[numBlocks][bestUsed].cpu;
  if (bound == kInfinity)
    return {};
  // Walk the DP back, numbering calls from the last.
  std::vector<int> device(g.size, k); // the CPU unless a call holds it
  auto place = [&](const Block &block, Mask mask, int where) {
    for (int x : classesOf(block, mask))
      device[x] = where;
  };
  int b = numBlocks, tail = 0, used = bestUsed;
  while (b > 0) {
    const State &state = enter[b][tail * width + used];
    if (state.from == -1) { // block b-1's exit on the CPU, its middle too
      tail = state.a;
      --b;
      continue;
    }
    // A call: a head of block `state.from` .. a tail of block b.
    int call = used - 1;
    const Block &first = blocks[state.from];
    place(blocks[b], blocks[b].tails.masks[tail], call);
    for (int e = state.from + 1; e <= b; ++e) {
      if (e < b)
        place(blocks[e], blocks[e].all, call);
      device[blocks[e].entry] = call;
    }
    place(first, first.heads.masks[state.a], call);
    const State &began = head[state.from][state.a * width + used];
    b = state.from;
    tail = began.a;
    --used;
  }
  const Contracted &c = g.classes;
  Assignment assignment(problem.size(), k);
  for (int x = 0; x < c.numSuper; ++x)
    for (int v : c.members[x])
      assignment[v] = device[x];
  return assignment;
}

} // namespace

ChainSolution placer::solver::solveLatencyChain(const Problem &problem) {
  ChainSolution result;
  if (!problem.isUniform() || problem.isTraining()) {
    result.skipped = "it prices one kind of accelerator, in inference";
    return result;
  }
  std::optional<ClassGraph> graph = buildClassGraph(problem, result.skipped);
  if (!graph)
    return result;
  std::vector<int> local(graph->size, -1);
  std::optional<std::vector<Block>> blocks =
      buildBlocks(problem, *graph, local, result.skipped);
  if (!blocks)
    return result;
  int64_t states = 0;
  for (const Block &block : *blocks)
    states += block.tails.masks.size() + block.heads.masks.size();
  if (states *
          (std::min<int64_t>(problem.numAccelerators, blocks->size()) + 1) >
      kMaxStates) {
    result.skipped = "its blocks and accelerators make too many states";
    return result;
  }
  ChainDP dp(problem, *graph, *blocks, local);
  if (!dp.run(result.skipped))
    return result;
  double bound = dp.lowerBound();
  if (bound == kInfinity) {
    result.skipped = "no placement fits";
    return result;
  }
  result.applies = true;
  result.lowerBound = bound;
  result.placement = dp.placement(result.placementBound);
  return result;
}
