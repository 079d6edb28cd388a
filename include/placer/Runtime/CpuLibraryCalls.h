/*===- CpuLibraryCalls.h - Convolutions and products over oneDNN ---*- C -*-===*
 *
 * The functions that placer-cpu-library-calls makes compiled CPU code call
 * (lib/Runtime/hooks/CpuLibraryCalls.cpp, docs/Execution.md "Fast code"),
 * and what the host asks of them. Compiled code cannot return an error from
 * a call: a failing call records its reason and leaves its output alone;
 * the host takes the reason after the run.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_RUNTIME_CPULIBRARYCALLS_H
#define PLACER_RUNTIME_CPULIBRARYCALLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A ranked f32 memref descriptor as compiled code passes it. */
#define PLACER_MEMREF_F32(RANK)                                                \
  struct {                                                                     \
    float *allocated, *aligned;                                                \
    int64_t offset, sizes[RANK], strides[RANK];                                \
  }
typedef PLACER_MEMREF_F32(1) placer_memref1_f32;
typedef PLACER_MEMREF_F32(3) placer_memref3_f32;
typedef PLACER_MEMREF_F32(4) placer_memref4_f32;

/* A rank-3 bf16 memref descriptor: the elements as their 16 bits. */
typedef struct {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} placer_memref3_bf16;

/* y (+)= conv2d(x, w): x [N, C, H, W], w [F, C / groups, KH, KW], y [N, F,
 * OH, OW], any strides. `pad_h`/`pad_w` zero rows/columns before x (after
 * it: what y's size needs). Accumulates into y unless `accumulate` is 0.
 * With `constant_weights`, w holds the same values at every call of the
 * program (a model weight): its reordered copy is kept. */
void _mlir_ciface_placer_cpu_conv2d_f32(
    placer_memref4_f32 *x, placer_memref4_f32 *w, placer_memref4_f32 *y,
    int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int32_t accumulate,
    int32_t constant_weights);

/* The steps of a convolution's epilogue (placer_cpu_conv2d_epilogue_f32),
 * applied in order to each output element v: */
enum placer_epilogue_step {
  PLACER_EPILOGUE_BIAS = 1,      /* v += bias[channel]; first step only */
  PLACER_EPILOGUE_RESIDUAL = 2,  /* v += residual[n, channel, h, w] */
  PLACER_EPILOGUE_LINEAR = 3,    /* v = alpha * v + beta */
  PLACER_EPILOGUE_CLIP = 4,      /* v = min(max(v, alpha), beta) */
  PLACER_EPILOGUE_HARDSWISH = 5, /* v = v * min(max(v / 6 + 1/2, 0), 1) */
  PLACER_EPILOGUE_SIGMOID = 6,   /* v = 1 / (1 + exp(-v)) */
  PLACER_EPILOGUE_SWISH = 7,     /* v = v / (1 + exp(-v)) (SiLU) */
};

/* y = epilogue(conv2d(x, w)): the convolution of placer_cpu_conv2d_f32
 * (overwriting y) and then `steps`, triples (kind, alpha, beta) of floats
 * with kind a placer_epilogue_step, which oneDNN applies as the elements
 * are written (post-ops) rather than in another pass over y. `bias` [F]
 * and `residual` (y's sizes, any strides) are read only where a step
 * names them; the compiled code passes other buffers in their place. */
void _mlir_ciface_placer_cpu_conv2d_epilogue_f32(
    placer_memref4_f32 *x, placer_memref4_f32 *w, placer_memref4_f32 *y,
    placer_memref1_f32 *bias, placer_memref4_f32 *residual,
    placer_memref1_f32 *steps, int64_t stride_h, int64_t stride_w,
    int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w,
    int64_t groups, int32_t constant_weights);

/* c[b] (+)= op(a[b]) op(b[b]) for every batch b of c: a and b [batch or 1,
 * rows, cols] (a batch of 1 is read for every batch), rows of unit stride.
 * Accumulates into c unless `accumulate` is 0. */
void _mlir_ciface_placer_cpu_matmul_f32(placer_memref3_f32 *a,
                                        placer_memref3_f32 *b,
                                        placer_memref3_f32 *c,
                                        int32_t trans_a, int32_t trans_b,
                                        int32_t accumulate);

/* c[b] (+)= op(a[b]) op(b[b]) as placer_cpu_matmul_f32, a and b bfloat16,
 * c float: the products accumulate in f32 (as GraphToLinalg's bf16
 * contractions do). On oneDNN's bf16 kernels where the CPU has them
 * (placer_cpu_native_bf16), else both operands widened to f32 for SGEMM. */
void _mlir_ciface_placer_cpu_matmul_bf16(placer_memref3_bf16 *a,
                                         placer_memref3_bf16 *b,
                                         placer_memref3_f32 *c, int32_t trans_a,
                                         int32_t trans_b, int32_t accumulate);

/* Host side: 1 when bfloat16 products run on the CPU's own bf16
 * instructions (oneDNN's AVX512-BF16 or AMX kernels), 0 when they are
 * widened to f32. */
int placer_cpu_native_bf16(void);

/* Host side: copies the first error a call recorded since the last take
 * into `buffer` (NUL-terminated, truncated to `size`), clears it and
 * returns 1; 0 when no call failed. */
int placer_cpu_library_take_error(char *buffer, size_t size);

/* Host side: forgets every kept weight copy and compiled primitive. A
 * program whose weights go calls it, since another's may later live at the
 * same addresses. */
void placer_cpu_library_release(void);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_RUNTIME_CPULIBRARYCALLS_H */
