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
  /* The trailing axes that both sides store row-major form one block, of
   * `block` elements: one memmove per position of the axes before them (a
   * padded activation's copy is a memmove per row, not per element). */
  int64_t inner = rank, block = 1;
  while (inner > 0) {
    int64_t axis = inner - 1;
    if (sizes[axis] != 1 &&
        (srcStrides[axis] != block || dstStrides[axis] != block))
      break;
    block *= sizes[axis];
    --inner;
  }
  size_t bytes = (size_t)(block * elementSize);
  /* An odometer over the outer axes, the last fastest, with the offsets
   * kept as it turns. */
  int64_t index[inner > 0 ? inner : 1];
  memset(index, 0, sizeof(index));
  int64_t srcOffset = 0, dstOffset = 0;
  for (int64_t n = count / block; n > 0; --n) {
    memmove(to + dstOffset * elementSize, from + srcOffset * elementSize,
            bytes);
    for (int64_t axis = inner - 1; axis >= 0; --axis) {
      srcOffset += srcStrides[axis];
      dstOffset += dstStrides[axis];
      if (++index[axis] < sizes[axis])
        break;
      srcOffset -= srcStrides[axis] * sizes[axis];
      dstOffset -= dstStrides[axis] * sizes[axis];
      index[axis] = 0;
    }
  }
}
