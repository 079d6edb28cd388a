//===- TransferRows.h - The throughput MILPs' transfer charge ---*- C++ -*-===//
//
// Internal to the solver library: the rows the throughput model and the
// chunked model share (docs/IntegerPrograms.md, "Throughput formulation").
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_TRANSFERROWS_H
#define PLACER_LIB_SOLVER_TRANSFERROWS_H

#include "CbcModel.h"
#include "Contraction.h"

#include <utility>
#include <vector>

namespace placer::solver::detail {

/// The groups other than node u's that read u's output.
std::vector<int> getReaderGroups(const Problem &problem,
                                 const Contracted &groups, int u);

/// c(u) once per accelerator u's tensor leaves or enters: for every node u
/// with c(u) > 0 read in another group and every accelerator d < k,
/// out[u][d] >= x[g(u)][d] - x[g(v)][d] and in[u][d] >= x[g(v)][d] -
/// x[g(u)][d] for each reading group g(v). Returns, per accelerator, the
/// columns to charge its load with and c(u) for each (u ascending).
std::vector<std::vector<std::pair<int, double>>>
addTransferRows(ModelBuilder &b, const Problem &problem,
                const Contracted &groups,
                const std::vector<std::vector<int>> &x, int k);

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_TRANSFERROWS_H
