//===- Graph.cpp - The graph algorithms every layer shares ----------------===//
#include "placer/Support/Graph.h"

#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"

#include <queue>

using namespace placer;

namespace {
/// A node linked to its successors, for llvm::GraphTraits. The graph has an
/// extra entry node (index -1) that reaches every node, so that one
/// scc_iterator walk covers all of them.
struct LinkedNode {
  int index;
  std::vector<LinkedNode *> next;
};
} // namespace

namespace llvm {
template <> struct GraphTraits<LinkedNode *> {
  using NodeRef = LinkedNode *;
  using ChildIteratorType = std::vector<LinkedNode *>::iterator;
  static NodeRef getEntryNode(LinkedNode *entry) { return entry; }
  static ChildIteratorType child_begin(NodeRef node) {
    return node->next.begin();
  }
  static ChildIteratorType child_end(NodeRef node) { return node->next.end(); }
};
} // namespace llvm

std::vector<int>
placer::topologicalOrder(const SuccessorLists &successors,
                         llvm::function_ref<int64_t(int)> priority) {
  int n = static_cast<int>(successors.size());
  std::vector<int> pending(n, 0);
  for (const std::vector<int> &targets : successors)
    for (int v : targets)
      ++pending[v];
  auto key = [&](int node) -> int64_t {
    return priority ? priority(node) : node;
  };
  auto later = [&](int a, int b) {
    int64_t ka = key(a), kb = key(b);
    return ka != kb ? ka > kb : a > b;
  };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (int u = 0; u < n; ++u)
    if (pending[u] == 0)
      ready.push(u);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int v : successors[u])
      if (--pending[v] == 0)
        ready.push(v);
  }
  return order;
}

std::vector<int>
placer::stronglyConnectedComponents(const SuccessorLists &successors) {
  int n = static_cast<int>(successors.size());
  std::vector<LinkedNode> nodes(n + 1);
  LinkedNode *entry = &nodes[n];
  entry->index = -1;
  for (int u = 0; u < n; ++u) {
    nodes[u].index = u;
    for (int v : successors[u])
      nodes[u].next.push_back(&nodes[v]);
    entry->next.push_back(&nodes[u]);
  }
  std::vector<int> component(n, -1);
  int next = 0;
  for (auto it = llvm::scc_begin(entry); !it.isAtEnd(); ++it) {
    if ((*it).front() == entry)
      continue; // nothing reaches the entry: it is a component of its own
    for (LinkedNode *node : *it)
      component[node->index] = next;
    ++next;
  }
  return component;
}
