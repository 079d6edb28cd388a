/*===- MemrefHooks.c - The memref helpers compiled code calls -------------===*
 *
 * Upstream's lowering of memref.copy between non-contiguous views calls
 * `memrefCopy`, which MLIR ships in libmlir_c_runner_utils. That library
 * links libMLIR and libLLVM, so compiled programs (and artifacts, which must
 * run without the compiler) take it from libplacer_rt instead, with the same
 * C ABI: the element size and two unranked memref descriptors.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <string.h>

/* An unranked memref: its rank and a pointer to the ranked descriptor
 * {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct {
  int64_t rank;
  void *descriptor;
} placer_unranked_memref;

typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
} placer_strided_memref;

/* Whether a view is row-major contiguous: then one memcpy copies it. */
static int isContiguous(const int64_t *sizes, const int64_t *strides,
                        int64_t rank) {
  int64_t expected = 1;
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    if (sizes[axis] != 1 && strides[axis] != expected)
      return 0;
    expected *= sizes[axis];
  }
  return 1;
}

void memrefCopy(int64_t elementSize, placer_unranked_memref *source,
                placer_unranked_memref *target) {
  int64_t rank = source->rank;
  const placer_strided_memref *src = source->descriptor;
  const placer_strided_memref *dst = target->descriptor;
  const int64_t *sizes = src->sizesAndStrides;
  const int64_t *srcStrides = src->sizesAndStrides + rank;
  const int64_t *dstStrides = dst->sizesAndStrides + rank;
  const char *from = src->aligned + src->offset * elementSize;
  char *to = dst->aligned + dst->offset * elementSize;

  int64_t count = 1;
  for (int64_t axis = 0; axis < rank; ++axis)
    count *= sizes[axis];
  if (count == 0)
    return;
  if (isContiguous(sizes, srcStrides, rank) &&
      isContiguous(sizes, dstStrides, rank)) {
    memmove(to, from, (size_t)(count * elementSize));
    return;
  }
  /* An odometer over the indices, innermost axis fastest. */
  int64_t index[rank > 0 ? rank : 1];
  memset(index, 0, sizeof(index));
  for (int64_t n = 0; n < count; ++n) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t axis = 0; axis < rank; ++axis) {
      srcOffset += index[axis] * srcStrides[axis];
      dstOffset += index[axis] * dstStrides[axis];
    }
    memcpy(to + dstOffset * elementSize, from + srcOffset * elementSize,
           (size_t)elementSize);
    for (int64_t axis = rank - 1; axis >= 0; --axis) {
      if (++index[axis] < sizes[axis])
        break;
      index[axis] = 0;
    }
  }
}
