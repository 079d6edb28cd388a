//===- GpuRuntime.h - Running GPU code from the host ------------*- C++ -*-===//
//-*-===//
//
// Plain C++ (no LLVM, no MLIR, no CUDA): the host's side of GPU artifacts.
// The CUDA runtime library (libplacer_cuda_rt, CudaRuntime.h) is loaded
// from beside libplacer_rt, into the global namespace so that a GPU
// program's mgpu* and placer_gpu_* references bind to it; weights are
// uploaded once, and errors the code met are taken after each run.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_RUNTIME_GPURUNTIME_H
#define PLACER_RUNTIME_GPURUNTIME_H

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace placer::runtime {

class GpuRuntime {
public:
  /// The process's runtime, loaded and its GPU opened on the first call;
  /// null when either fails, `error` saying why (the library is missing,
  /// no CUDA driver, no GPU).
  static GpuRuntime *get(std::string &error);

  const std::string &getDeviceName() const { return deviceName; }
  /// "sm_90" for compute capability 9.0.
  std::string getChip() const;
  /// Whether code compiled for `chip` (sm_NN) runs here: its PTX is
  /// JIT-compiled, so any chip up to this one's. False, with the reason,
  /// otherwise.
  bool canRun(const std::string &chip, std::string &error) const;

  /// Device memory holding `bytes` bytes of `host`, freed with the pointer.
  struct Free {
    const GpuRuntime *runtime;
    void operator()(void *device) const;
  };
  using DevicePointer = std::unique_ptr<void, Free>;
  DevicePointer upload(const void *host, size_t bytes,
                       std::string &error) const;
  /// Host memory page-locked for fast copies while the pointer lives; null
  /// when the driver refuses (the memory stays pageable: copies still work).
  struct Unpin {
    const GpuRuntime *runtime;
    void operator()(void *host) const;
  };
  using PinnedPointer = std::unique_ptr<void, Unpin>;
  PinnedPointer pin(void *host, size_t bytes) const;
  /// The first error GPU code met since the last call (false if none).
  bool takeError(std::string &error) const;
  /// The end of a run: waits for the GPU's work, then takeError.
  bool finish(std::string &error) const;
  /// While a profiled GPU program lives (each start paired with a stop),
  /// profiled code's nodes are timed on the GPU (events on its stream,
  /// added to the profile counters at each finish) rather than by the host
  /// clock, which sees only the launches.
  void startProfiling() const;
  void stopProfiling() const;
  /// Before each profiled run (each microbatch's call): where its first
  /// node starts.
  void beginRun() const;

private:
  GpuRuntime() = default;
  std::string deviceName;
  int computeCapability = 0;
  using Upload = void *(*)(const void *, size_t);
  using Release = void (*)(void *);
  using TakeError = int (*)(char *, size_t);
  using Pin = int (*)(void *, size_t);
  using Synchronize = void (*)();
  using NodeHook = void (*)(int64_t);
  using SetProfile = void (*)(void (*)(int64_t, double));
  Upload uploadFn = nullptr;
  Release freeFn = nullptr;
  TakeError takeErrorFn = nullptr;
  Pin pinFn = nullptr;
  Release unpinFn = nullptr;
  Synchronize synchronizeFn = nullptr;
  SetProfile profileFn = nullptr;
  NodeHook profileEnterFn = nullptr, profileExitFn = nullptr;
  Synchronize beginRunFn = nullptr;
  mutable std::mutex profilingMutex;
  mutable int profilingPrograms = 0;
};

} // namespace placer::runtime

#endif // PLACER_RUNTIME_GPURUNTIME_H
