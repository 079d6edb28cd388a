/*===- CudaRuntime.h - The CUDA runtime's host interface ------------*- C
 *-*-===*
 *
 * libplacer_cuda_rt runs GPU code: it defines the mgpu* functions that
 * upstream's GPU-to-LLVM lowering calls and the placer_gpu_* library calls
 * (docs/Execution.md, "GPU code"), over the CUDA driver, cuBLAS and cuDNN,
 * which it loads at run time: it builds and loads where no CUDA is
 * installed, and says so when a GPU is needed. The host (the runtime
 * library, lib/Runtime/GpuRuntime.cpp) loads it with RTLD_GLOBAL before a
 * GPU program, and uses these functions.
 *
 * Compiled code cannot receive errors: the first one a call meets is
 * recorded, the calls after it do nothing, and the host takes it after the
 * run (placer_cuda_take_error).
 *
 *===----------------------------------------------------------------------===*/
#ifndef PLACER_RUNTIME_CUDARUNTIME_H
#define PLACER_RUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the GPU (the driver's device 0, its primary context): 0 when it is
 * ready; else -1 and the reason (no driver, no GPU) in `message`. */
int placer_cuda_open(char *message, size_t size);
/* After a successful open: the device's name and compute capability
 * (major * 10 + minor: 90 for sm_90). */
const char *placer_cuda_device_name(void);
int placer_cuda_compute_capability(void);
/* Device memory holding a copy of the `bytes` bytes at `host`; null on
 * failure (the reason is then the recorded error). */
void *placer_cuda_upload(const void *host, size_t bytes);
/* Frees what placer_cuda_upload returned (null: nothing). */
void placer_cuda_free(void *device);
/* Page-locks the caller's `bytes` bytes at `host` so that copies between
 * them and the GPU run at the link's speed: 0 on success; -1 leaves them
 * pageable (copies still work, slower), recording no error. */
int placer_cuda_pin(void *host, size_t bytes);
/* Undoes placer_cuda_pin. */
void placer_cuda_unpin(void *host);
/* Waits for all the GPU's work: the end of a run. */
void placer_cuda_synchronize(void);
/* Profiling on the GPU's clock: with `add` set, placer_cuda_profile_enter
 * and _exit record events on the stream where a node's work begins and
 * ends (nothing waits), and each placer_cuda_synchronize passes every
 * finished node's seconds to `add` (the host's counters,
 * placer_profile_add), less the host's time for a node's hooks (measured
 * once, when profiling first starts); null stops. */
void placer_cuda_profile(void (*add)(int64_t node, double seconds));
/* A run's start, where its first node's time begins (its inputs' copies
 * count as that node's); placer_cuda_synchronize is the run's end, and the
 * last node's (its outputs' copies). */
void placer_cuda_profile_begin_run(void);
void placer_cuda_profile_enter(int64_t node);
void placer_cuda_profile_exit(int64_t node);
/* The first error recorded since the last call: copied into `message`
 * (truncated to `size`) and cleared; returns 1 if there was one. */
int placer_cuda_take_error(char *message, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_RUNTIME_CUDARUNTIME_H */
