//===- Contraction.cpp - Color classes as super-nodes ---------------------===//
#include "Contraction.h"

#include "placer/Support/Graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

using namespace placer::solver;
using namespace placer::solver::detail;

namespace {

/// A graph of `count` empty super-nodes over `nodes` original nodes.
void resize(Contracted &g, int count, int nodes) {
  g.numSuper = count;
  g.superOf.assign(nodes, -1);
  g.members.assign(count, {});
  g.successors.assign(count, {});
  g.predecessors.assign(count, {});
  g.acceleratorTime.assign(count, 0);
  g.cpuTime.assign(count, 0);
  g.memory.assign(count, 0);
  g.supported.assign(count, 1);
}

/// The edges that order groups: forward edges, and, for the forward twin of
/// a backward-only group, the backward edges that touch it, mirrored (a
/// gradient flows against the forward order: u -> v orders v's group before
/// u's). Groups with forward members are ordered by forward edges alone.
/// Contradictions become cycles, merged afterwards.
template <typename Fn>
void forEachOrderEdge(const Problem &problem, const std::vector<int> &groupOf,
                      const std::vector<char> &backwardOnly, Fn fn) {
  for (int u = 0; u < problem.size(); ++u)
    for (int v : problem.successors[u]) {
      int a = groupOf[u], b = groupOf[v];
      if (a == b)
        continue;
      bool forwardU = !problem.nodes[u].backward;
      bool forwardV = !problem.nodes[v].backward;
      if (forwardU && forwardV)
        fn(a, b);
      else if (!forwardU && !forwardV && (backwardOnly[a] || backwardOnly[b]))
        fn(b, a);
    }
}

/// Groups none of whose members is a forward node.
std::vector<char> backwardOnlyGroups(const Problem &problem,
                                     const std::vector<int> &groupOf,
                                     int groups) {
  std::vector<char> backwardOnly(groups, 1);
  for (int u = 0; u < problem.size(); ++u)
    if (!problem.nodes[u].backward)
      backwardOnly[groupOf[u]] = 0;
  return backwardOnly;
}

/// Renumbers groups so that the forward graph between them is topologically
/// ordered, breaking ties by the smallest member (deterministic).
void finish(const Problem &problem, std::vector<int> groupOf, Contracted &out) {
  int n = problem.size();
  int groups = 0;
  for (int g : groupOf)
    groups = std::max(groups, g + 1);
  std::vector<std::vector<int>> succ(groups);
  forEachOrderEdge(problem, groupOf,
                   backwardOnlyGroups(problem, groupOf, groups),
                   [&](int a, int b) { succ[a].push_back(b); });
  std::vector<int> smallest(groups, n);
  for (int u = 0; u < n; ++u)
    smallest[groupOf[u]] = std::min(smallest[groupOf[u]], u);
  for (auto &s : succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  std::vector<int> number(groups, -1);
  int next = 0;
  for (int g : placer::topologicalOrder(
           succ, [&](int g) -> int64_t { return smallest[g]; }))
    number[g] = next++;
  // Groups on a cycle (only when cycles were not merged) come last.
  for (int g = 0; g < groups; ++g)
    if (number[g] < 0)
      number[g] = next++;

  resize(out, groups, n);
  for (int u = 0; u < n; ++u) {
    int s = number[groupOf[u]];
    const Node &node = problem.nodes[u];
    out.superOf[u] = s;
    out.members[s].push_back(u);
    out.acceleratorTime[s] += problem.getFastestTime(u);
    out.cpuTime[s] += node.cpuTime;
    out.memory[s] += node.memory;
    if (!node.supported)
      out.supported[s] = 0;
  }
  for (int g = 0; g < groups; ++g)
    for (int v : succ[g]) {
      out.successors[number[g]].push_back(number[v]);
      out.predecessors[number[v]].push_back(number[g]);
    }
}

} // namespace

Contracted placer::solver::detail::contract(const Problem &problem,
                                            bool mergeCycles) {
  int n = problem.size();
  // 1. Color classes.
  std::vector<int> groupOf(n);
  std::map<int64_t, int> groupOfClass;
  int groups = 0;
  for (int u = 0; u < n; ++u) {
    int64_t color = problem.nodes[u].colorClass;
    if (color < 0) {
      groupOf[u] = groups++;
      continue;
    }
    auto [it, inserted] = groupOfClass.emplace(color, groups);
    if (inserted)
      ++groups;
    groupOf[u] = it->second;
  }
  // 2. Contraction can close cycles in the forward graph: merge them.
  std::vector<std::vector<int>> succ(groups);
  std::vector<char> backwardOnly = backwardOnlyGroups(problem, groupOf, groups);
  forEachOrderEdge(problem, groupOf, backwardOnly,
                   [&](int a, int b) { succ[a].push_back(b); });
  if (mergeCycles) {
    std::vector<int> component = stronglyConnectedComponents(succ);
    for (int u = 0; u < n; ++u)
      groupOf[u] = component[groupOf[u]];
  }
  Contracted out;
  finish(problem, std::move(groupOf), out);
  return out;
}

Contracted placer::solver::detail::linearize(Contracted graph) {
  for (int s = 0; s + 1 < graph.numSuper; ++s) {
    auto &succ = graph.successors[s];
    if (std::find(succ.begin(), succ.end(), s + 1) == succ.end()) {
      succ.push_back(s + 1);
      graph.predecessors[s + 1].push_back(s);
    }
  }
  return graph;
}

Contracted placer::solver::detail::linearizeOutside(
    Contracted graph, const std::vector<std::pair<int, int>> &windows) {
  auto addEdge = [&](int from, int to) {
    auto &succ = graph.successors[from];
    if (std::find(succ.begin(), succ.end(), to) == succ.end()) {
      succ.push_back(to);
      graph.predecessors[to].push_back(from);
    }
  };
  size_t next = 0; // the first window not yet passed
  for (int s = 0; s + 1 < graph.numSuper; ++s) {
    while (next < windows.size() && windows[next].second < s)
      ++next;
    bool inWindow = next < windows.size() && windows[next].first <= s;
    bool beforeWindow = next < windows.size() && windows[next].first == s + 1;
    if (beforeWindow) {
      // Everything up to s before every super-node of the window.
      for (int w = windows[next].first; w <= windows[next].second; ++w)
        addEdge(s, w);
    } else if (inWindow && windows[next].second == s) {
      // Every super-node of the window before what follows it.
      for (int w = windows[next].first; w <= s; ++w)
        addEdge(w, s + 1);
    } else if (!inWindow) {
      addEdge(s, s + 1);
    }
  }
  return graph;
}

Reduced placer::solver::detail::reduce(const Problem &problem,
                                       const Contracted &graph,
                                       bool keepLeafMemory,
                                       bool weightlessLeavesOnly) {
  int n = graph.numSuper;
  std::vector<std::vector<int>> preds = problem.predecessors();
  // (The fastest kind takes no time: nor may the others.)
  auto isZeroTime = [&](int s) {
    return graph.acceleratorTime[s] == 0 && graph.cpuTime[s] == 0 &&
           graph.supported[s] &&
           std::all_of(
               graph.members[s].begin(), graph.members[s].end(), [&](int m) {
                 const std::vector<double> &times = problem.nodes[m].kindTimes;
                 return std::all_of(times.begin(), times.end(),
                                    [](double t) { return t == 0; });
               });
  };
  // Original neighbours of a super-node outside it, as super-nodes.
  auto outsideNeighbours = [&](int s, bool successors) {
    std::vector<int> result;
    for (int m : graph.members[s])
      for (int x : successors ? problem.successors[m] : preds[m])
        if (graph.superOf[x] != s)
          result.push_back(graph.superOf[x]);
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
  };

  // Under a memory limit, an activation counts wherever it is: a node
  // whose output has bytes is neither free nor a mergeable leaf. A leaf
  // without output bytes is never worse next to its producer (the producer's
  // activation would otherwise wait to be sent until its device's end).
  auto noMember = [&](int s, double Node::*bytes) {
    return std::all_of(graph.members[s].begin(), graph.members[s].end(),
                       [&](int m) { return problem.nodes[m].*bytes == 0; });
  };
  bool activationsCount = activationsBind(problem);
  auto noActivation = [&](int s) {
    return !activationsCount || noMember(s, &Node::outputBytes);
  };
  // A replicated stage all-reduces its gradients: a node that has some
  // changes that cost wherever it goes.
  bool gradientsCount = problem.replication && problem.isTraining();
  auto noGradients = [&](int s) {
    return !gradientsCount || noMember(s, &Node::gradientBytes);
  };

  // Free sources, peeled repeatedly in topological order.
  std::vector<char> removed(n, 0);
  Reduced out;
  for (int s = 0; s < n; ++s) {
    bool free = isZeroTime(s) && graph.memory[s] == 0 && noActivation(s) &&
                noGradients(s);
    // Backward members too: nothing feeds the class (no gradient flows in),
    // and what it sends costs nothing.
    for (int m : graph.members[s])
      free = free && problem.nodes[m].transferCost == 0;
    for (int p : outsideNeighbours(s, /*successors=*/false))
      free = free && removed[p];
    if (!free)
      continue;
    removed[s] = 1;
    out.freeNodes.insert(out.freeNodes.end(), graph.members[s].begin(),
                         graph.members[s].end());
  }
  // Leaves: zero-time super-nodes whose every edge, either way, leads to one
  // other super-node join it. In a training graph that is a forward leaf
  // (or a source with one consumer) and its backward twin: the input, the
  // stash and the gradient all stay with that one neighbour, so no load
  // grows, and the ideals stay contiguous since nothing else touches it.
  std::vector<int> target(n);
  std::iota(target.begin(), target.end(), 0);
  auto root = [&](int s) {
    while (target[s] != s)
      s = target[s];
    return s;
  };
  for (int s = 0; s < n; ++s) {
    if (removed[s] || !isZeroTime(s) || !noActivation(s) || !noGradients(s))
      continue;
    if (weightlessLeavesOnly && graph.memory[s] != 0 &&
        problem.memoryLimit < kInfinity)
      continue;
    std::vector<int> neighbours = outsideNeighbours(s, /*successors=*/false);
    for (int next : outsideNeighbours(s, /*successors=*/true))
      if (!std::count(neighbours.begin(), neighbours.end(), next))
        neighbours.push_back(next);
    if (neighbours.size() != 1 || removed[neighbours[0]] ||
        root(neighbours[0]) == s)
      continue;
    target[s] = root(neighbours[0]);
    ++out.mergedLeaves;
  }
  // Data-reducing links: u -> v, u's only successor v, v's only input u,
  // single nodes, t(v) + c(v) <= c(u) on an accelerator, u never on a CPU
  // core (which pays no transfers), v without weights where memory limits.
  // Where a split cuts between them, moving v to u's stage changes that
  // stage by t(v) - c(u) + c(v) at most and v's old stage by
  // -t(v) - c(u) + c(v) at most (it no longer receives u's tensor, may
  // receive v's), neither positive, and keeps both ideals: v joins u and
  // the optimum is unchanged (docs/Placement.md, "Exact reductions").
  // Proven for inference on identical accelerators, weights only in
  // memory; elsewhere not applied.
  bool chainsMerge =
      problem.isUniform() && !problem.isTraining() && !problem.replication &&
      !activationsCount &&
      std::none_of(problem.nodes.begin(), problem.nodes.end(),
                   [](const Node &node) { return node.backward; });
  for (int v = 0; chainsMerge && v < n; ++v) {
    if (removed[v] || target[v] != v || graph.members[v].size() != 1)
      continue;
    int member = graph.members[v][0];
    if (preds[member].size() != 1)
      continue;
    int producer = preds[member][0];
    int u = graph.superOf[producer];
    if (removed[u] || graph.members[u].size() != 1 ||
        problem.successors[producer].size() != 1)
      continue;
    // A CPU core pays no transfers: u's stage must be an accelerator.
    const Node &down = problem.nodes[member];
    double spared = problem.nodes[producer].transferCost - down.transferCost;
    bool cheaper = graph.supported[v] && graph.acceleratorTime[v] <= spared &&
                   (problem.numCpus == 0 || graph.cpuTime[u] == kInfinity);
    bool weightless = graph.memory[v] == 0 || problem.memoryLimit == kInfinity;
    if (!cheaper || !weightless)
      continue;
    target[v] = root(u);
    ++out.mergedChains;
  }
  for (int s = 0; s < n; ++s)
    target[s] = root(s);

  // Renumber the survivors, keeping their (topological) order.
  std::vector<int> newId(n, -1);
  int count = 0;
  for (int s = 0; s < n; ++s)
    if (!removed[s] && target[s] == s)
      newId[s] = count++;
  Contracted &g = out.graph;
  resize(g, count, problem.size());
  for (int s = 0; s < n; ++s) {
    if (removed[s])
      continue;
    int t = newId[target[s]];
    bool leaf = target[s] != s;
    for (int m : graph.members[s]) {
      g.members[t].push_back(m);
      g.superOf[m] = t;
    }
    g.acceleratorTime[t] += graph.acceleratorTime[s];
    g.cpuTime[t] += graph.cpuTime[s];
    if (!leaf || keepLeafMemory)
      g.memory[t] += graph.memory[s];
    g.supported[t] = g.supported[t] && graph.supported[s];
  }
  // Edges between survivors, a merged node's through its target.
  for (int s = 0; s < n; ++s) {
    if (removed[s])
      continue;
    int from = newId[target[s]];
    for (int v : graph.successors[s]) {
      if (removed[v] || target[v] == target[s])
        continue;
      int to = newId[target[v]];
      auto &succ = g.successors[from];
      if (std::find(succ.begin(), succ.end(), to) == succ.end()) {
        succ.push_back(to);
        g.predecessors[to].push_back(from);
      }
    }
  }
  return out;
}

bool placer::solver::isContiguous(const Problem &problem,
                                  const Assignment &assignment,
                                  bool acceleratorsInOrder) {
  // Judged where the model judges it: on the graph with every color class
  // (and every cycle classes close) as one node. Each such node sits on one
  // device, and the devices form a pipeline: the edges between them are
  // acyclic, so the devices hold I1, I2 \ I1, I3 \ I2, ... for a chain of
  // ideals I1 ⊆ I2 ⊆ ... (which makes each device's set convex).
  Contracted graph = contract(problem);
  std::vector<int> device(graph.numSuper, -1);
  for (int u = 0; u < problem.size(); ++u) {
    int &d = device[graph.superOf[u]];
    if (d != -1 && d != assignment[u])
      return false;
    d = assignment[u];
  }
  int devices = problem.numDevices();
  std::vector<std::vector<char>> edge(devices, std::vector<char>(devices, 0));
  SuccessorLists between(devices);
  for (int s = 0; s < graph.numSuper; ++s)
    for (int t : graph.successors[s]) {
      int a = device[s], b = device[t];
      if (a != b && !edge[a][b]) {
        edge[a][b] = 1;
        between[a].push_back(b);
      }
    }
  if (acceleratorsInOrder) {
    // The used accelerators follow one another in index order.
    std::vector<char> used(devices, 0);
    for (int d : assignment)
      used[d] = 1;
    int previous = -1;
    for (int d = 0; d < problem.numAccelerators; ++d)
      if (used[d]) {
        if (previous >= 0 && !edge[previous][d])
          between[previous].push_back(d);
        previous = d;
      }
  }
  return static_cast<int>(placer::topologicalOrder(between).size()) == devices;
}
