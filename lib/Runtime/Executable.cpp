//===- Executable.cpp - A compiled program, loaded and called -------------===//
#include "placer/Runtime/Executable.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace placer::runtime;

bool TensorSpec::hasDynamicDims() const {
  return std::any_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d < 0; });
}

TensorSpec
TensorSpec::withSizes(const std::map<std::string, int64_t> &sizes) const {
  TensorSpec spec = *this;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0 && d < dimNames.size())
      if (auto it = sizes.find(dimNames[d]); it != sizes.end())
        spec.shape[d] = it->second;
  if (!spec.hasDynamicDims())
    spec.dimNames.clear();
  return spec;
}

int64_t TensorSpec::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool ProgramShape::hasInput(const std::string &name) const {
  return std::find(inputNames.begin(), inputNames.end(), name) !=
         inputNames.end();
}

Buffer::Buffer(int64_t bytes) : bytes(bytes) {
  // 64-byte alignment suits vector loads; never a zero-sized allocation.
  size_t size = (std::max<int64_t>(bytes, 1) + 63) / 64 * 64;
  storage.reset(static_cast<uint8_t *>(std::aligned_alloc(64, size)));
  std::memset(storage.get(), 0, size);
}

void Buffer::Free::operator()(uint8_t *p) const { std::free(p); }

std::optional<Executable> Executable::load(const std::string &path,
                                           const std::string &function,
                                           std::string &error) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = "cannot load " + path + ": " + ::dlerror();
    return std::nullopt;
  }
  Executable executable;
  executable.handle = handle;
  executable.invoke =
      reinterpret_cast<Invoke>(::dlsym(handle, "placer_invoke"));
  if (!executable.invoke) {
    error = path + " has no entry point for '" + function + "'";
    return std::nullopt;
  }
  return executable;
}

int Executable::setThreads(int threads) const {
  // The program's own dependencies (dlsym on its handle): libomp when its
  // lowering made parallel loops.
  using SetThreads = void (*)(int);
  using GetThreads = int (*)();
  auto set = reinterpret_cast<SetThreads>(
      handle ? ::dlsym(handle, "omp_set_num_threads") : nullptr);
  auto get = reinterpret_cast<GetThreads>(
      handle ? ::dlsym(handle, "omp_get_max_threads") : nullptr);
  if (!set || !get)
    return 1;
  set(threads);
  return get();
}

Executable::Arguments
Executable::bind(const std::vector<uint8_t *> &data,
                 const std::vector<const TensorSpec *> &specs) {
  // A ranked memref descriptor: allocated and aligned pointers, offset,
  // sizes, strides (row-major).
  Arguments arguments;
  std::vector<std::vector<int64_t>> &descriptors = arguments.descriptors;
  descriptors.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const std::vector<int64_t> &shape = specs[i]->shape;
    std::vector<int64_t> d(3 + 2 * shape.size());
    d[0] = d[1] = reinterpret_cast<int64_t>(data[i]);
    d[2] = 0;
    int64_t stride = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      d[3 + k] = shape[k];
      d[3 + shape.size() + k] = stride;
      stride *= shape[k];
    }
    descriptors.push_back(std::move(d));
    arguments.pointers.push_back(descriptors.back().data());
  }
  return arguments;
}
