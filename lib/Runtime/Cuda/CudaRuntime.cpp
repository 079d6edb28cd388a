//===- CudaRuntime.cpp - mgpu* over the CUDA driver API -------------------===//
//
// The functions upstream MLIR's GPU-to-LLVM lowering calls (the ones its
// CudaRuntimeWrappers.cpp defines for mlir-runner), over the driver API
// loaded at run time, plus the host interface of CudaRuntime.h. Differences
// from upstream's wrappers, each for the compiled programs' sake:
// - Errors are recorded, not fatal (CudaRuntime.h).
// - All work goes to one stream, and the code's stream synchronizations
//   (gpu-async-region ends a stream before every host call: each library
//   call, each transfer hook) do not wait: the host runs ahead and the GPU
//   never drains between kernels. What the host reads is safe regardless:
//   a copy to host memory waits for its stream, and the runtime waits once
//   at the end of a run (placer_cuda_synchronize). A profiled run does not
//   wait either: its nodes are timed by events on the stream.
// - Device memory comes from the driver's stream-ordered pool, kept between
//   runs, since every run allocates each intermediate afresh.
// - Unloading at process exit ignores a driver that is gone already.
//
//===----------------------------------------------------------------------===//
#include "placer/Runtime/CudaRuntime.h"

#include "Device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace placer::cuda;

//===----------------------------------------------------------------------===//
// The device and the recorded error
//===----------------------------------------------------------------------===//

namespace {

/// Process state, never destroyed: programs' destructors unload their
/// modules at exit, after static objects here would be gone.
struct State {
  std::mutex mutex;
  std::string error;
  std::atomic<bool> failed{false};
  std::once_flag opened;
  Device device;
  bool ready = false;
  std::string openError;
  /// Profiling (placer_cuda_profile): where node times go, the events
  /// recorded since the last synchronization, and spare events. Its own
  /// mutex: a failed call records its error under `mutex`.
  std::mutex profileMutex;
  struct Start {
    int64_t node;
    CUevent event;
    /// Whether the event is the start's own (else the previous node's end).
    bool ownEvent;
  };
  struct Timed {
    int64_t node;
    Start start;
    CUevent end;
  };
  void (*addProfile)(int64_t, double) = nullptr;
  std::vector<Start> started;
  /// The host's time for one node's hooks (measureHookSeconds), taken off
  /// every node's time; measured once.
  double hookSeconds = -1;
  /// The end of the last node timed in this run, or the run's start.
  CUevent lastEnd = nullptr;
  /// Run starts recorded since the last synchronization.
  std::vector<CUevent> runStarts;
  std::vector<Timed> timed;
  std::vector<CUevent> spareEvents;
};

State &getState() {
  static State *state = new State;
  return *state;
}

std::string driverMessage(const DriverApi &driver, CUresult result) {
  const char *text = nullptr;
  if (driver.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    return "CUDA error " + std::to_string(result);
  return text;
}

/// Opens device 0 and its primary context; the pool keeps freed memory
/// (the default threshold hands it back to the driver at every
/// synchronization, and each run allocates afresh).
bool openOnce(State &state) {
  std::string &error = state.openError;
  const DriverApi *driver = loadDriver(error);
  if (!driver) {
    error = "no CUDA driver: " + error;
    return false;
  }
  Device &d = state.device;
  d.driver = driver;
  auto call = [&](CUresult result, const char *what) {
    if (result == CUDA_SUCCESS)
      return true;
    error = std::string(what) + ": " + driverMessage(*driver, result);
    return false;
  };
  int count = 0;
  if (!call(driver->cuInit(0), "initializing the CUDA driver") ||
      !call(driver->cuDeviceGetCount(&count), "counting GPUs"))
    return false;
  if (count == 0) {
    error = "the CUDA driver sees no GPU";
    return false;
  }
  char name[256] = {0};
  int major = 0, minor = 0;
  if (!call(driver->cuDeviceGet(&d.device, 0), "opening GPU 0") ||
      !call(driver->cuDeviceGetName(name, sizeof(name) - 1, d.device),
            "reading the GPU's name") ||
      !call(driver->cuDeviceGetAttribute(
                &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device),
            "reading the compute capability") ||
      !call(driver->cuDeviceGetAttribute(
                &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device),
            "reading the compute capability") ||
      !call(driver->cuDevicePrimaryCtxRetain(&d.context, d.device),
            "creating the GPU's context") ||
      !call(driver->cuCtxSetCurrent(d.context), "using the GPU's context"))
    return false;
  d.name = name;
  d.computeCapability = major * 10 + minor;
  CUmemoryPool pool = nullptr;
  uint64_t keepAll = UINT64_MAX;
  if (!call(driver->cuDeviceGetDefaultMemPool(&pool, d.device),
            "reading the GPU's memory pool") ||
      !call(driver->cuMemPoolSetAttribute(
                pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll),
            "configuring the GPU's memory pool") ||
      !call(driver->cuStreamCreate(&d.stream, CU_STREAM_NON_BLOCKING),
            "creating a stream"))
    return false;
  return true;
}

thread_local bool contextCurrent = false;

} // namespace

const Device *placer::cuda::openDevice(std::string &error) {
  State &state = getState();
  std::call_once(state.opened, [&] { state.ready = openOnce(state); });
  if (!state.ready) {
    error = state.openError;
    fail(error);
    return nullptr;
  }
  // The primary context is current on the thread that opened it; any other
  // thread (a host's worker) makes it current once.
  if (!contextCurrent) {
    const Device &d = state.device;
    CUresult result = d.driver->cuCtxSetCurrent(d.context);
    if (result != CUDA_SUCCESS) {
      error = "using the GPU's context: " + driverMessage(*d.driver, result);
      fail(error);
      return nullptr;
    }
    contextCurrent = true;
  }
  return &state.device;
}

const Device *placer::cuda::getDevice() {
  if (failed())
    return nullptr;
  std::string error;
  return openDevice(error);
}

void placer::cuda::fail(const std::string &message) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.failed)
    return;
  state.error = message;
  state.failed = true;
}

bool placer::cuda::failed() { return getState().failed; }

bool placer::cuda::check(const Device &device, CUresult result,
                         const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  fail(std::string(what) + ": " + driverMessage(*device.driver, result));
  return false;
}

//===----------------------------------------------------------------------===//
// The host interface (CudaRuntime.h)
//===----------------------------------------------------------------------===//

static void copyMessage(const std::string &text, char *message, size_t size) {
  if (!message || size == 0)
    return;
  size_t n = std::min(text.size(), size - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

extern "C" int placer_cuda_open(char *message, size_t size) {
  std::string error;
  if (openDevice(error))
    return 0;
  copyMessage(error, message, size);
  return -1;
}

extern "C" const char *placer_cuda_device_name(void) {
  State &state = getState();
  return state.ready ? state.device.name.c_str() : "";
}

extern "C" int placer_cuda_compute_capability(void) {
  State &state = getState();
  return state.ready ? state.device.computeCapability : 0;
}

extern "C" void *placer_cuda_upload(const void *host, size_t bytes) {
  const Device *d = getDevice();
  if (!d)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (!check(*d, d->driver->cuMemAlloc_v2(&pointer, std::max<size_t>(bytes, 1)),
             "allocating GPU memory for a weight") ||
      !check(*d,
             d->driver->cuMemcpy(pointer, reinterpret_cast<CUdeviceptr>(host),
                                 bytes),
             "copying a weight to the GPU"))
    return nullptr;
  return reinterpret_cast<void *>(pointer);
}

extern "C" void placer_cuda_free(void *device) {
  State &state = getState();
  // After a failure too: the memory is the host's to give back.
  if (device && state.ready)
    (void)state.device.driver->cuMemFree_v2(
        reinterpret_cast<CUdeviceptr>(device));
}

extern "C" int placer_cuda_pin(void *host, size_t bytes) {
  const Device *d = getDevice();
  if (!d || !host || bytes == 0)
    return -1;
  return d->driver->cuMemHostRegister_v2(host, bytes, 0) == CUDA_SUCCESS ? 0
                                                                         : -1;
}

extern "C" void placer_cuda_unpin(void *host) {
  State &state = getState();
  if (host && state.ready)
    (void)state.device.driver->cuMemHostUnregister(host);
}

//===----------------------------------------------------------------------===//
// Profiling by events
//===----------------------------------------------------------------------===//

/// An event that records time, from the spares or new; null on failure.
static CUevent takeEvent(State &state, const Device &d) {
  if (!state.spareEvents.empty()) {
    CUevent event = state.spareEvents.back();
    state.spareEvents.pop_back();
    return event;
  }
  CUevent event = nullptr;
  return check(d, d.driver->cuEventCreate(&event, 0), "creating an event")
             ? event
             : nullptr;
}

/// Records the event where node `node` ends, or where it starts: the end
/// of the node before it in this run, or the run's start (so what happens
/// between two nodes, the host's launches and allocations that the GPU
/// waits for, counts as the next node's, as it would in an unprofiled run,
/// and the copies of the inputs as the first node's), else an event of its
/// own.
static void recordNodeEvent(int64_t node, bool end) {
  const Device *d = getDevice();
  State &state = getState();
  if (!d || !state.addProfile)
    return;
  std::lock_guard<std::mutex> lock(state.profileMutex);
  if (!end && state.lastEnd) {
    state.started.push_back({node, state.lastEnd, /*ownEvent=*/false});
    return;
  }
  CUevent event = takeEvent(state, *d);
  if (!event || !check(*d, d->driver->cuEventRecord(event, d->stream),
                       "recording an event"))
    return;
  if (!end) {
    state.started.push_back({node, event, /*ownEvent=*/true});
    return;
  }
  state.lastEnd = event;
  // Nodes do not nest: the latest start of this node is its own.
  for (auto it = state.started.rbegin(); it != state.started.rend(); ++it)
    if (it->node == node) {
      state.timed.push_back({node, *it, event});
      state.started.erase(std::next(it).base());
      return;
    }
  // An exit without its enter: no time, but the event is recycled.
  state.timed.push_back({node, {node, nullptr, false}, event});
}

extern "C" void placer_cuda_profile_begin_run(void) {
  const Device *d = getDevice();
  State &state = getState();
  if (!d || !state.addProfile)
    return;
  std::lock_guard<std::mutex> lock(state.profileMutex);
  CUevent event = takeEvent(state, *d);
  if (event)
    state.runStarts.push_back(event);
  if (event && check(*d, d->driver->cuEventRecord(event, d->stream),
                     "recording an event"))
    state.lastEnd = event;
}

extern "C" void placer_cuda_profile_enter(int64_t node) {
  recordNodeEvent(node, /*end=*/false);
}

extern "C" void placer_cuda_profile_exit(int64_t node) {
  recordNodeEvent(node, /*end=*/true);
}

/// The host's time for one node's hooks, the median of 64 pairs timed on
/// the host clock (node -1, whose events are then dropped). A program of
/// many small nodes keeps the GPU waiting for its host: there every node's
/// time includes its hooks, which an unprofiled run does not have.
static double measureHookSeconds(State &state) {
  std::vector<double> times;
  for (int i = 0; i < 64; ++i) {
    auto start = std::chrono::steady_clock::now();
    placer_cuda_profile_enter(-1);
    placer_cuda_profile_exit(-1);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  const Device *d = getDevice();
  {
    std::lock_guard<std::mutex> lock(state.profileMutex);
    auto timing = [](const State::Timed &t) { return t.node == -1; };
    for (const State::Timed &t : state.timed)
      if (timing(t)) {
        if (t.start.ownEvent)
          state.spareEvents.push_back(t.start.event);
        state.spareEvents.push_back(t.end);
      }
    state.timed.erase(
        std::remove_if(state.timed.begin(), state.timed.end(), timing),
        state.timed.end());
    state.lastEnd = state.timed.empty() ? nullptr : state.timed.back().end;
  }
  if (d)
    check(*d, d->driver->cuStreamSynchronize(d->stream), "timing events");
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  return times[times.size() / 2];
}

extern "C" void placer_cuda_profile(void (*add)(int64_t, double)) {
  State &state = getState();
  {
    std::lock_guard<std::mutex> lock(state.profileMutex);
    state.addProfile = add;
  }
  if (add && state.hookSeconds < 0)
    state.hookSeconds = measureHookSeconds(state);
}

/// After the stream is done (the end of a run): each timed node's seconds
/// to the host; the next run starts afresh.
static void collectProfile(State &state, const Device &d) {
  std::lock_guard<std::mutex> lock(state.profileMutex);
  for (const State::Timed &t : state.timed) {
    float milliseconds = 0;
    if (state.addProfile && t.start.event &&
        check(d,
              d.driver->cuEventElapsedTime(&milliseconds, t.start.event, t.end),
              "reading a node's time"))
      state.addProfile(t.node,
                       std::max(0.0, 1e-3 * milliseconds - state.hookSeconds));
    // A start that is the previous node's end is recycled as that.
    if (t.start.ownEvent)
      state.spareEvents.push_back(t.start.event);
    state.spareEvents.push_back(t.end);
  }
  state.timed.clear();
  state.spareEvents.insert(state.spareEvents.end(), state.runStarts.begin(),
                           state.runStarts.end());
  state.runStarts.clear();
  state.lastEnd = nullptr;
}

/// The end of a run: the work after its last node (copies of the outputs
/// to the host) counts as that node's.
static void endRun(State &state, const Device &d) {
  std::lock_guard<std::mutex> lock(state.profileMutex);
  if (!state.addProfile || state.timed.empty() ||
      state.timed.back().end != state.lastEnd)
    return;
  CUevent event = takeEvent(state, d);
  if (!event ||
      !check(d, d.driver->cuEventRecord(event, d.stream), "recording an event"))
    return;
  state.spareEvents.push_back(state.timed.back().end);
  state.timed.back().end = event;
  state.lastEnd = event;
}

extern "C" void placer_cuda_synchronize(void) {
  const Device *d = getDevice();
  if (!d)
    return;
  State &state = getState();
  endRun(state, *d);
  if (check(*d, d->driver->cuCtxSynchronize(), "running GPU code"))
    collectProfile(state, *d);
}

extern "C" int placer_cuda_take_error(char *message, size_t size) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.failed)
    return 0;
  copyMessage(state.error, message, size);
  state.error.clear();
  state.failed = false;
  return 1;
}

//===----------------------------------------------------------------------===//
// The mgpu* functions compiled GPU code calls
//===----------------------------------------------------------------------===//

static CUdeviceptr toDevice(void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

//===----------------------------------------------------------------------===//
// Small buffers kept for reuse
//===----------------------------------------------------------------------===//

// Every run allocates and frees each intermediate again: a transformer
// decoder's hundreds of small buffers cost a driver call each way, host
// time that small kernels leave the GPU waiting for. Buffers up to
// kSmallBuffer bytes are kept when freed and handed out again for the same
// size. All work is on one stream, so a buffer freed at one point of it is
// free for whatever is queued after.
// Larger buffers go back to the driver's pool: their kernels take long
// enough, and keeping them would hold a model's every activation at once.
namespace {
constexpr uint64_t kSmallBuffer = 4 << 20;
struct SmallBuffers {
  std::mutex mutex;
  /// Sizes of the small buffers handed out, and those kept, by size.
  std::unordered_map<CUdeviceptr, uint64_t> sizes;
  std::unordered_multimap<uint64_t, CUdeviceptr> kept;
};
SmallBuffers &getSmallBuffers() {
  static SmallBuffers *buffers = new SmallBuffers;
  return *buffers;
}
} // namespace

static void *takeSmallBuffer(uint64_t bytes) {
  if (bytes > kSmallBuffer)
    return nullptr;
  SmallBuffers &buffers = getSmallBuffers();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  auto it = buffers.kept.find(bytes);
  if (it == buffers.kept.end())
    return nullptr;
  CUdeviceptr pointer = it->second;
  buffers.kept.erase(it);
  return reinterpret_cast<void *>(pointer);
}

static void noteSmallBuffer(CUdeviceptr pointer, uint64_t bytes) {
  if (bytes > kSmallBuffer)
    return;
  SmallBuffers &buffers = getSmallBuffers();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  buffers.sizes[pointer] = bytes;
}

/// Whether `pointer` is a small buffer, now kept.
static bool keepSmallBuffer(void *pointer) {
  SmallBuffers &buffers = getSmallBuffers();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  auto it = buffers.sizes.find(toDevice(pointer));
  if (it == buffers.sizes.end())
    return false;
  buffers.kept.emplace(it->second, it->first);
  return true;
}

extern "C" {

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  const Device *d = getDevice();
  if (!d)
    return nullptr;
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUmodule module = nullptr;
  CUresult result =
      d->driver->cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    fail("compiling a kernel's PTX for " + d->name + ": " +
         driverMessage(*d->driver, result) + (log[0] ? ": " : "") + log);
    return nullptr;
  }
  return module;
}

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  const Device *d = getDevice();
  CUmodule module = nullptr;
  if (d &&
      check(*d,
            d->driver->cuModuleLoadDataEx(&module, data, 0, nullptr, nullptr),
            "loading a kernel module"))
    return module;
  return nullptr;
}

void mgpuModuleUnload(void *module) {
  // Called by a program's destructors, at exit too, when the driver may be
  // gone: nothing to report then.
  State &state = getState();
  if (module && state.ready)
    (void)state.device.driver->cuModuleUnload(static_cast<CUmodule>(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  const Device *d = getDevice();
  CUfunction function = nullptr;
  if (d && module &&
      check(*d,
            d->driver->cuModuleGetFunction(&function,
                                           static_cast<CUmodule>(module), name),
            "finding a kernel"))
    return function;
  return nullptr;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  const Device *d = getDevice();
  if (!d || !function)
    return;
  check(*d,
        d->driver->cuLaunchKernel(static_cast<CUfunction>(function), gridX,
                                  gridY, gridZ, blockX, blockY, blockZ, smem,
                                  static_cast<CUstream>(stream), params, extra),
        "launching a kernel");
}

// Every region of the code gets the device's one stream (above).
void *mgpuStreamCreate() {
  const Device *d = getDevice();
  return d ? d->stream : nullptr;
}

void mgpuStreamDestroy(void * /*stream*/) {}

// The host runs ahead: copies to host memory and the run's end wait.
void mgpuStreamSynchronize(void * /*stream*/) {}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (const Device *d = getDevice())
    check(*d,
          d->driver->cuStreamWaitEvent(static_cast<CUstream>(stream),
                                       static_cast<CUevent>(event), 0),
          "ordering GPU streams");
}

void *mgpuEventCreate() {
  const Device *d = getDevice();
  CUevent event = nullptr;
  if (d)
    check(*d, d->driver->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
          "creating an event");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (const Device *d = getDevice())
    check(*d, d->driver->cuEventDestroy_v2(static_cast<CUevent>(event)),
          "destroying an event");
}

void mgpuEventSynchronize(void *event) {
  if (const Device *d = getDevice())
    check(*d, d->driver->cuEventSynchronize(static_cast<CUevent>(event)),
          "running GPU kernels");
}

void mgpuEventRecord(void *event, void *stream) {
  if (const Device *d = getDevice())
    check(*d,
          d->driver->cuEventRecord(static_cast<CUevent>(event),
                                   static_cast<CUstream>(stream)),
          "recording an event");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  const Device *d = getDevice();
  if (!d || sizeBytes == 0)
    return nullptr;
  if (isHostShared) {
    // Managed memory can hang a GPU when oversubscribed; the lowering
    // never asks for it.
    fail("host-shared GPU memory (gpu.alloc host_shared) is not supported");
    return nullptr;
  }
  if (void *kept = takeSmallBuffer(sizeBytes))
    return kept;
  CUdeviceptr pointer = 0;
  if (!check(*d,
             d->driver->cuMemAllocAsync(&pointer, sizeBytes,
                                        static_cast<CUstream>(stream)),
             "allocating GPU memory"))
    return nullptr;
  noteSmallBuffer(pointer, sizeBytes);
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, void *stream) {
  const Device *d = getDevice();
  if (!d || !pointer || keepSmallBuffer(pointer))
    return;
  check(*d,
        d->driver->cuMemFreeAsync(toDevice(pointer),
                                  static_cast<CUstream>(stream)),
        "freeing GPU memory");
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  const Device *d = getDevice();
  if (!d || !sizeBytes ||
      !check(*d,
             d->driver->cuMemcpyAsync(toDevice(dst), toDevice(src), sizeBytes,
                                      static_cast<CUstream>(stream)),
             "copying GPU memory"))
    return;
  // The host reads what lands in its memory right after: wait for it
  // (pageable memory is not device memory to the driver).
  unsigned type = 0;
  if (d->driver->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       toDevice(dst)) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    check(*d, d->driver->cuStreamSynchronize(static_cast<CUstream>(stream)),
          "copying GPU memory to the host");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (const Device *d = getDevice())
    check(*d,
          d->driver->cuMemsetD32Async(toDevice(dst), value, count,
                                      static_cast<CUstream>(stream)),
          "filling GPU memory");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (const Device *d = getDevice())
    check(*d,
          d->driver->cuMemsetD16Async(toDevice(dst), value, count,
                                      static_cast<CUstream>(stream)),
          "filling GPU memory");
}

} // extern "C"
