//===- Device.h - The process's GPU and its recorded error ------*- C++ -*-===//
//
// Shared by the mgpu* entry points (CudaRuntime.cpp) and the library calls
// (LibraryCalls.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_LIB_RUNTIME_CUDA_DEVICE_H
#define PLACER_LIB_RUNTIME_CUDA_DEVICE_H

#include "CudaApi.h"

#include <string>

namespace placer::cuda {

/// The GPU this process runs on: the driver's device 0 and its primary
/// context.
struct Device {
  const DriverApi *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int computeCapability = 0;
  /// The one stream all GPU work of this process is ordered on: kernels,
  /// copies, allocations and the library calls (see CudaRuntime.cpp).
  CUstream stream = nullptr;
};

/// The device, opened on first use and made current on the calling thread;
/// null when there is none (the reason is then recorded, and in `error`).
const Device *openDevice(std::string &error);
/// openDevice for the entry points: null once an error is recorded, so
/// that the calls after a failure do nothing.
const Device *getDevice();

/// Records `message` unless an error is recorded already.
void fail(const std::string &message);
/// Whether an error is recorded.
bool failed();
/// Records a failed driver call: "WHAT: the driver's message".
bool check(const Device &device, CUresult result, const char *what);

} // namespace placer::cuda

#endif // PLACER_LIB_RUNTIME_CUDA_DEVICE_H
