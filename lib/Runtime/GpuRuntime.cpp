//===- GpuRuntime.cpp - Running GPU code from the host --------------------===//
#include "placer/Runtime/GpuRuntime.h"

#include "placer/Runtime/ProfileHooks.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace placer::runtime;

/// libplacer_cuda_rt sits beside libplacer_rt (build tree, install tree,
/// runtime-only build alike).
static std::string getCudaRuntimePath() {
  Dl_info info;
  std::string name = "libplacer_cuda_rt.so";
  if (!::dladdr(reinterpret_cast<void *>(&placer_profile_enter), &info) ||
      !info.dli_fname)
    return name;
  std::string rt = info.dli_fname;
  size_t slash = rt.rfind('/');
  return slash == std::string::npos ? name : rt.substr(0, slash + 1) + name;
}

GpuRuntime *GpuRuntime::get(std::string &error) {
  static std::once_flag once;
  static GpuRuntime *runtime = nullptr;
  static std::string *failure = new std::string;
  std::call_once(once, [] {
    std::string path = getCudaRuntimePath();
    // Global: the GPU program loaded next binds its mgpu* calls to it.
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      *failure = "cannot load the CUDA runtime " + path + ": " + ::dlerror();
      return;
    }
    auto open = reinterpret_cast<int (*)(char *, size_t)>(
        ::dlsym(handle, "placer_cuda_open"));
    auto name = reinterpret_cast<const char *(*)()>(
        ::dlsym(handle, "placer_cuda_device_name"));
    auto capability = reinterpret_cast<int (*)()>(
        ::dlsym(handle, "placer_cuda_compute_capability"));
    auto *result = new GpuRuntime;
    result->uploadFn =
        reinterpret_cast<Upload>(::dlsym(handle, "placer_cuda_upload"));
    result->freeFn =
        reinterpret_cast<Release>(::dlsym(handle, "placer_cuda_free"));
    result->takeErrorFn =
        reinterpret_cast<TakeError>(::dlsym(handle, "placer_cuda_take_error"));
    result->pinFn = reinterpret_cast<Pin>(::dlsym(handle, "placer_cuda_pin"));
    result->unpinFn =
        reinterpret_cast<Release>(::dlsym(handle, "placer_cuda_unpin"));
    result->synchronizeFn = reinterpret_cast<Synchronize>(
        ::dlsym(handle, "placer_cuda_synchronize"));
    result->profileFn =
        reinterpret_cast<SetProfile>(::dlsym(handle, "placer_cuda_profile"));
    result->profileEnterFn = reinterpret_cast<NodeHook>(
        ::dlsym(handle, "placer_cuda_profile_enter"));
    result->profileExitFn =
        reinterpret_cast<NodeHook>(::dlsym(handle, "placer_cuda_profile_exit"));
    result->beginRunFn = reinterpret_cast<Synchronize>(
        ::dlsym(handle, "placer_cuda_profile_begin_run"));
    if (!open || !name || !capability || !result->uploadFn || !result->freeFn ||
        !result->takeErrorFn || !result->synchronizeFn || !result->profileFn ||
        !result->profileEnterFn || !result->profileExitFn ||
        !result->beginRunFn || !result->pinFn || !result->unpinFn) {
      *failure = path + " is not Placer's CUDA runtime (a function is missing)";
      delete result;
      return;
    }
    char message[1024] = {0};
    if (open(message, sizeof(message)) != 0) {
      *failure = message;
      result->takeErrorFn(nullptr, 0); // the same reason, recorded: clear it
      delete result;
      return;
    }
    result->deviceName = name();
    result->computeCapability = capability();
    runtime = result;
  });
  if (!runtime)
    error = *failure;
  return runtime;
}

std::string GpuRuntime::getChip() const {
  return "sm_" + std::to_string(computeCapability);
}

bool GpuRuntime::canRun(const std::string &chip, std::string &error) const {
  int wanted = 0;
  if (chip.rfind("sm_", 0) == 0)
    wanted = std::atoi(chip.c_str() + 3);
  if (wanted > 0 && wanted <= computeCapability)
    return true;
  error = "the code is for " + chip + ", and this GPU (" + deviceName +
          ") is " + getChip();
  return false;
}

void GpuRuntime::Free::operator()(void *device) const {
  runtime->freeFn(device);
}

GpuRuntime::DevicePointer GpuRuntime::upload(const void *host, size_t bytes,
                                             std::string &error) const {
  DevicePointer pointer(uploadFn(host, bytes), Free{this});
  if (!pointer && !takeError(error))
    error = "cannot copy " + std::to_string(bytes) + " bytes to the GPU";
  return pointer;
}

void GpuRuntime::Unpin::operator()(void *host) const { runtime->unpinFn(host); }

GpuRuntime::PinnedPointer GpuRuntime::pin(void *host, size_t bytes) const {
  return PinnedPointer(pinFn(host, bytes) == 0 ? host : nullptr, Unpin{this});
}

bool GpuRuntime::finish(std::string &error) const {
  synchronizeFn();
  return !takeError(error);
}

void GpuRuntime::startProfiling() const {
  std::lock_guard<std::mutex> lock(profilingMutex);
  if (profilingPrograms++ > 0)
    return;
  profileFn(&placer_profile_add);
  placer_profile_set_timer(profileEnterFn, profileExitFn);
}

void GpuRuntime::stopProfiling() const {
  std::lock_guard<std::mutex> lock(profilingMutex);
  if (--profilingPrograms > 0)
    return;
  placer_profile_set_timer(nullptr, nullptr);
  profileFn(nullptr);
}

void GpuRuntime::beginRun() const { beginRunFn(); }

bool GpuRuntime::takeError(std::string &error) const {
  char message[4096] = {0};
  if (!takeErrorFn(message, sizeof(message)))
    return false;
  error = message;
  return true;
}
