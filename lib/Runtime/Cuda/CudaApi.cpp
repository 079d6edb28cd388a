//===- CudaApi.cpp - Loading the CUDA libraries at run time ---------------===//
#include "CudaApi.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace placer::cuda;

namespace {

/// The first of `names` that opens: plain names through the loader's
/// search path, then the toolkit's library folders (cuBLAS lives there,
/// outside the search path, on a machine with only the toolkit installed).
void *openLibrary(const std::vector<const char *> &names, std::string &error) {
  std::vector<std::string> folders = {""};
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *home = std::getenv(variable))
      folders.push_back(std::string(home) + "/lib64/");
  folders.push_back("/usr/local/cuda/lib64/");
  folders.push_back("/usr/local/cuda/targets/x86_64-linux/lib/");
  // The first failure says most (a library found but broken, or absent).
  std::string reason;
  for (const std::string &folder : folders)
    for (const char *name : names) {
      std::string path = folder + name;
      if (void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return handle;
      if (reason.empty())
        reason = ::dlerror();
    }
  error = "cannot load " + std::string(names.front()) + " (" + reason + ")";
  return nullptr;
}

/// Binds every function of an X-macro table; the first missing one fails.
template <typename Api> struct Binder {
  void *handle;
  Api &api;
  std::string missing;
  template <typename Pointer> void bind(Pointer &pointer, const char *name) {
    pointer = reinterpret_cast<Pointer>(::dlsym(handle, name));
    if (!pointer && missing.empty())
      missing = name;
  }
};

/// Loads `Api` once per process: the same answer (the table or the error)
/// for every caller.
template <typename Api, typename BindAll>
const Api *loadOnce(const std::vector<const char *> &names, BindAll bindAll,
                    std::string &error) {
  static std::once_flag once;
  static const Api *loaded = nullptr;
  static std::string *failure = new std::string;
  std::call_once(once, [&] {
    void *handle = openLibrary(names, *failure);
    if (!handle)
      return;
    Api *api = new Api;
    Binder<Api> binder{handle, *api, {}};
    bindAll(binder);
    if (!binder.missing.empty()) {
      *failure = std::string(names.front()) + " has no " + binder.missing +
                 " (an older version?)";
      delete api;
      return;
    }
    loaded = api;
  });
  if (!loaded)
    error = *failure;
  return loaded;
}

} // namespace

#define PLACER_CUDA_BIND(name, ret, params) binder.bind(binder.api.name, #name);

const DriverApi *placer::cuda::loadDriver(std::string &error) {
  return loadOnce<DriverApi>(
      {"libcuda.so.1", "libcuda.so"},
      [](Binder<DriverApi> &binder) {
        PLACER_CUDA_DRIVER_FUNCTIONS(PLACER_CUDA_BIND)
      },
      error);
}

const CublasApi *placer::cuda::loadCublas(std::string &error) {
  return loadOnce<CublasApi>(
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
      [](Binder<CublasApi> &binder) {
        PLACER_CUBLAS_FUNCTIONS(PLACER_CUDA_BIND)
      },
      error);
}

const CudnnApi *placer::cuda::loadCudnn(std::string &error) {
  return loadOnce<CudnnApi>(
      {"libcudnn.so.9", "libcudnn.so"},
      [](Binder<CudnnApi> &binder) { PLACER_CUDNN_FUNCTIONS(PLACER_CUDA_BIND) },
      error);
}
