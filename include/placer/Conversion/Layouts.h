//===- Layouts.h - Activation and weight layout permutations ----*- C++ -*-===//
//
// The permutations between channels-first and channels-last layouts that
// placer-channels-last transposes by and placer-cpu-library-calls reads
// through, as linalg.transpose and memref.transpose take them: result
// dimension i is source dimension perm[i].
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_CONVERSION_LAYOUTS_H
#define PLACER_CONVERSION_LAYOUTS_H

#include <cstdint>

namespace placer::layouts {

/// N C H W -> N H W C, and F C KH KW -> F KH KW C.
inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};
/// N H W C -> N C H W.
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};
/// N G C H W <-> N H W G C (its own inverse).
inline constexpr int64_t kGroupedSwap[] = {0, 3, 4, 1, 2};
/// G F C KH KW -> G F KH KW C.
inline constexpr int64_t kGfchwToGfhwc[] = {0, 1, 3, 4, 2};

} // namespace placer::layouts

#endif // PLACER_CONVERSION_LAYOUTS_H
