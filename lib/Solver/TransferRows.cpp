//===- TransferRows.cpp - The throughput MILPs' transfer charge -----------===//

#include "TransferRows.h"

#include <string>

using namespace placer::solver;
using namespace placer::solver::detail;

std::vector<int> detail::getReaderGroups(const Problem &problem,
                                         const Contracted &groups, int u) {
  int gu = groups.superOf[u];
  std::vector<int> others;
  for (int v : problem.successors[u])
    if (groups.superOf[v] != gu)
      others.push_back(groups.superOf[v]);
  return others;
}

std::vector<std::vector<std::pair<int, double>>>
detail::addTransferRows(ModelBuilder &b, const Problem &problem,
                        const Contracted &groups,
                        const std::vector<std::vector<int>> &x, int k) {
  std::vector<std::vector<std::pair<int, double>>> charges(k);
  for (int u = 0; u < problem.size(); ++u) {
    double c = problem.nodes[u].transferCost;
    if (c <= 0)
      continue;
    std::vector<int> others = getReaderGroups(problem, groups, u);
    if (others.empty())
      continue;
    int gu = groups.superOf[u];
    for (int d = 0; d < k; ++d) {
      std::string tag = std::to_string(u) + "_" + std::to_string(d);
      int out = b.column("out_" + tag, 0, 1, 0, false);
      int in = b.column("in_" + tag, 0, 1, 0, false);
      charges[d].insert(charges[d].end(), {{out, c}, {in, c}});
      for (int gv : others) {
        b.row("leave_" + tag + "_" + std::to_string(gv),
              {out, x[gu][d], x[gv][d]}, {1, -1, 1}, 'G', 0);
        b.row("enter_" + tag + "_" + std::to_string(gv),
              {in, x[gv][d], x[gu][d]}, {1, -1, 1}, 'G', 0);
      }
    }
  }
  return charges;
}
