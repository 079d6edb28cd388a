//===- IdealLattice.cpp - The ideals of a DAG, level by level -------------===//

#include "IdealLattice.h"

#include <unordered_map>

using namespace placer::solver::detail;

bool IdealLattice::build(const std::vector<std::vector<int>> &successors,
                         const std::vector<std::vector<int>> &predecessors,
                         int64_t limit) {
  int n = static_cast<int>(successors.size());
  size_t words = std::max(1, (n + 63) / 64);
  // Zobrist keys: an ideal's hash is the xor of its members' keys.
  std::vector<uint64_t> key(n);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (uint64_t &k : key) {
    state += 0x9e3779b97f4a7c15ull; // splitmix64
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    k = z ^ (z >> 31);
  }
  /// One level: its ideals (global indices from `first`), their bits,
  /// hashes and addable nodes.
  struct Level {
    int64_t first = 0;
    std::vector<uint64_t> bits, hashes;
    std::vector<std::vector<int>> ready;
    std::unordered_multimap<uint64_t, int64_t> byHash; // -> local index
  };
  Level level, nextLevel;
  level.bits.assign(words, 0);
  level.hashes.push_back(0);
  level.ready.emplace_back();
  for (int v = 0; v < n; ++v)
    if (predecessors[v].empty())
      level.ready.back().push_back(v);
  addable.assign(1, {});
  parent.assign(1, -1);
  added.assign(1, -1);
  std::vector<uint64_t> scratch(words);
  auto contains = [&](const uint64_t *bits, int v) {
    return (bits[v / 64] >> (v % 64)) & 1;
  };
  while (!level.hashes.empty()) {
    nextLevel.first = size();
    nextLevel.bits.clear();
    nextLevel.hashes.clear();
    nextLevel.ready.clear();
    nextLevel.byHash.clear();
    for (size_t local = 0; local < level.hashes.size(); ++local) {
      int64_t ideal = level.first + static_cast<int64_t>(local);
      const uint64_t *bits = &level.bits[local * words];
      for (int v : level.ready[local]) {
        uint64_t hash = level.hashes[local] ^ key[v];
        std::copy(bits, bits + words, scratch.begin());
        scratch[v / 64] |= uint64_t{1} << (v % 64);
        int64_t found = -1;
        auto [from, to] = nextLevel.byHash.equal_range(hash);
        for (auto it = from; it != to && found < 0; ++it)
          if (std::equal(scratch.begin(), scratch.end(),
                         &nextLevel.bits[it->second * words]))
            found = nextLevel.first + it->second;
        if (found < 0) {
          found = size();
          if (found >= limit)
            return false;
          int64_t slot = found - nextLevel.first;
          nextLevel.byHash.emplace(hash, slot);
          nextLevel.hashes.push_back(hash);
          nextLevel.bits.insert(nextLevel.bits.end(), scratch.begin(),
                                scratch.end());
          std::vector<int> ready;
          for (int u : level.ready[local])
            if (u != v)
              ready.push_back(u);
          for (int w : successors[v])
            if (std::all_of(predecessors[w].begin(), predecessors[w].end(),
                            [&](int p) { return contains(scratch.data(), p); }))
              ready.push_back(w);
          // Ascending, so that ideals are numbered as a scan over the nodes
          // would find them.
          std::sort(ready.begin(), ready.end());
          nextLevel.ready.push_back(std::move(ready));
          addable.emplace_back();
          parent.push_back(ideal);
          added.push_back(v);
        }
        addable[ideal].emplace_back(v, found);
      }
    }
    std::swap(level, nextLevel);
  }
  return true;
}
