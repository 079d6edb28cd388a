//===- Runtime.cpp - Sessions through the C API ---------------------------===//

#include "placer-c/Runtime.h"

#include "Support.h"
#include "placer/Compiler/Session.h"

#include "mlir/CAPI/IR.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace placer;
using namespace placer::capi;
using namespace placer::runtime;

namespace {
/// A session and the stacked shapes its getters hand out.
struct CSession {
  std::unique_ptr<Session> session;
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  /// The shapes placerSessionGetInput/Output point into.
  void describeShapes() {
    inputShapes.clear();
    outputShapes.clear();
    for (const TensorSpec &spec : session->getInputs())
      inputShapes.push_back(session->getStackedShape(spec));
    for (const TensorSpec &spec : session->getOutputs())
      outputShapes.push_back(session->getStackedShape(spec));
  }
};
CSession *unwrapSession(PlacerSession session) {
  return static_cast<CSession *>(session.ptr);
}
} // namespace

PlacerSessionOptions placerSessionOptionsGetDefault(void) {
  return PlacerSessionOptions{false, 1, MlirStringRef{"", 0}, 1};
}

PlacerStatus placerSessionCreate(MlirModule module,
                                 PlacerSessionOptions options,
                                 PlacerSession *result) {
  mlir::ModuleOp op = unwrap(module);
  DiagnosticCapture diagnostics(op.getContext());
  SessionOptions sessionOptions;
  sessionOptions.profile = options.profile;
  sessionOptions.microbatches = options.microbatches;
  sessionOptions.cacheDir = unwrapString(options.cacheDir).str();
  sessionOptions.threads = options.threads;
  auto session = Session::create(op, sessionOptions);
  if (!session)
    return diagnostics.failure(session.takeError());
  auto *wrapped = new CSession{std::move(*session), {}, {}};
  wrapped->describeShapes();
  *result = PlacerSession{wrapped};
  return success();
}

void placerSessionDestroy(PlacerSession session) {
  delete unwrapSession(session);
}

intptr_t placerSessionGetNumInputs(PlacerSession session) {
  return unwrapSession(session)->session->getInputs().size();
}

intptr_t placerSessionGetNumOutputs(PlacerSession session) {
  return unwrapSession(session)->session->getOutputs().size();
}

static PlacerTensor describe(const TensorSpec &spec,
                             const std::vector<int64_t> &shape) {
  return PlacerTensor{wrapString(spec.name), wrapString(spec.elementType),
                      static_cast<intptr_t>(shape.size()), shape.data(),
                      nullptr};
}

PlacerTensor placerSessionGetInput(PlacerSession session, intptr_t pos) {
  CSession *s = unwrapSession(session);
  return describe(s->session->getInputs()[pos], s->inputShapes[pos]);
}

PlacerTensor placerSessionGetOutput(PlacerSession session, intptr_t pos) {
  CSession *s = unwrapSession(session);
  return describe(s->session->getOutputs()[pos], s->outputShapes[pos]);
}

bool placerSessionIsCached(PlacerSession session) {
  return unwrapSession(session)->session->isCached();
}

int64_t placerSessionGetThreads(PlacerSession session) {
  return unwrapSession(session)->session->getThreads();
}

/// The caller's tensors in the entry's order: by name where named, else by
/// position.
static llvm::Expected<std::vector<HostTensor>>
arrange(llvm::ArrayRef<TensorSpec> specs, const PlacerTensor *tensors,
        intptr_t count, llvm::StringRef role) {
  if (count != static_cast<intptr_t>(specs.size()))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the model has {0} {1}s, {2} were given", specs.size(),
                      role, count));
  std::vector<HostTensor> arranged(specs.size());
  std::vector<bool> given(specs.size(), false);
  for (intptr_t i = 0; i < count; ++i) {
    const PlacerTensor &tensor = tensors[i];
    llvm::StringRef name = unwrapString(tensor.name);
    size_t pos = i;
    if (!name.empty()) {
      auto it = llvm::find_if(
          specs, [&](const TensorSpec &spec) { return spec.name == name; });
      if (it == specs.end())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "the model has no " + role +
                                           " named '" + name + "'");
      pos = it - specs.begin();
    }
    if (given[pos])
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     role + " '" + specs[pos].name +
                                         "' is given twice");
    given[pos] = true;
    arranged[pos] = HostTensor{
        unwrapString(tensor.elementType).str(),
        std::vector<int64_t>(tensor.shape, tensor.shape + tensor.rank),
        tensor.data};
  }
  return arranged;
}

static llvm::Error bindTensors(Session &session, const PlacerTensor *inputs,
                               intptr_t numInputs, const PlacerTensor *outputs,
                               intptr_t numOutputs) {
  auto in = arrange(session.getInputs(), inputs, numInputs, "input");
  if (!in)
    return in.takeError();
  auto out = arrange(session.getOutputs(), outputs, numOutputs, "output");
  if (!out)
    return out.takeError();
  return session.bind(*in, *out);
}

PlacerStatus placerSessionSetInputShapes(PlacerSession session,
                                         const PlacerTensor *inputs,
                                         intptr_t numInputs) {
  CSession *s = unwrapSession(session);
  auto in = arrange(s->session->getInputs(), inputs, numInputs, "input");
  if (!in)
    return failure(in.takeError());
  std::vector<std::vector<int64_t>> shapes;
  for (const HostTensor &tensor : *in)
    shapes.push_back(tensor.shape);
  if (llvm::Error error = s->session->setInputShapes(shapes))
    return failure(std::move(error));
  s->describeShapes();
  return success();
}

PlacerStatus placerSessionRun(PlacerSession session, const PlacerTensor *inputs,
                              intptr_t numInputs, const PlacerTensor *outputs,
                              intptr_t numOutputs) {
  Session &s = *unwrapSession(session)->session;
  if (llvm::Error error =
          bindTensors(s, inputs, numInputs, outputs, numOutputs))
    return failure(std::move(error));
  if (auto times = s.run(); !times)
    return failure(times.takeError());
  return success();
}

PlacerStatus placerSessionProfile(PlacerSession session,
                                  const PlacerTensor *inputs,
                                  intptr_t numInputs,
                                  const PlacerTensor *outputs,
                                  intptr_t numOutputs, unsigned repeat,
                                  MlirStringCallback callback, void *userData) {
  Session &s = *unwrapSession(session)->session;
  if (!s.isProfiling())
    return failure("the session was not compiled to profile (create it with "
                   "the profile option)");
  if (llvm::Error error =
          bindTensors(s, inputs, numInputs, outputs, numOutputs))
    return failure(std::move(error));
  unsigned runs = std::max(1u, repeat);
  if (auto timing = s.measure(runs); !timing)
    return failure(timing.takeError());
  llvm::json::Object profile;
  for (const auto &[name, seconds] : s.getProfile(runs))
    profile[name] = seconds;
  std::string json =
      llvm::formatv("{0}", llvm::json::Value(std::move(profile))).str();
  callback(wrapString(json), userData);
  return success();
}
