//===- Timing.h - Wall-clock seconds of a solve -----------------*- C++ -*-===//
//
// Internal to the solver library.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_SOLVER_TIMING_H
#define PLACER_LIB_SOLVER_TIMING_H

#include <chrono>

namespace placer::solver::detail {

/// Seconds from `start` to now, as Solution::seconds reports them.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace placer::solver::detail

#endif // PLACER_LIB_SOLVER_TIMING_H
