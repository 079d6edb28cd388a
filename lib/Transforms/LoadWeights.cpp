//===- LoadWeights.cpp - Initializers from a folder of .npy files ---------===//
//
// --placer-load-weights gives a graph module's initializers the values a
// training run saved (placer-run --save-weights), so that the ONNX
// exporter writes the trained model. Everything is read and checked before
// anything changes: a bad file leaves the module as it was.
// docs/Training.md.
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Runtime/Npy.h"
#include "placer/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace placer {
#define GEN_PASS_DEF_LOADWEIGHTS
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

constexpr llvm::StringLiteral kPass = "placer-load-weights";

/// The .npy descr of `type`'s elements ("<f4"), as placer-run writes them.
std::string getNpyDtype(RankedTensorType type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.getElementType().print(os);
  return runtime::npyDtypeOf(name);
}

struct LoadWeightsPass : placer::impl::LoadWeightsBase<LoadWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dir.empty() || !llvm::sys::fs::is_directory(dir)) {
      mlir::emitError(module->getLoc())
          << kPass << ": dir must name a folder of .npy files"
          << (dir.empty() ? std::string() : ", not '" + dir + "'");
      return signalPassFailure();
    }
    // Read and check every file first: an error changes nothing.
    SmallVector<std::pair<graph::ConstantOp, DenseElementsAttr>> loads;
    WalkResult walk = module.walk([&](graph::ConstantOp constant) {
      if (constant.getNode())
        return WalkResult::advance(); // a Constant node: not a parameter
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, runtime::npyFileName(constant.getName()));
      if (!llvm::sys::fs::exists(path))
        return WalkResult::advance();
      FailureOr<DenseElementsAttr> value = read(constant, path.str().str());
      if (failed(value))
        return WalkResult::interrupt();
      loads.emplace_back(constant, *value);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (loads.empty()) {
      mlir::emitError(module->getLoc())
          << kPass << ": no file in '" << dir
          << "' names an initializer of the module";
      return signalPassFailure();
    }
    // A value that was a #graph.external reference is now in the module.
    for (auto &[constant, value] : loads)
      constant.setValueAttr(value);
  }

  FailureOr<DenseElementsAttr> read(graph::ConstantOp constant,
                                    const std::string &path) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    std::string error;
    std::optional<runtime::NpyArray> array = runtime::readNpy(path, error);
    if (!array)
      return constant.emitError() << kPass << ": " << error;
    std::string dtype = type ? getNpyDtype(type) : std::string();
    if (dtype.empty())
      return constant.emitError()
             << kPass << ": initializer '" << constant.getName()
             << "' has no .npy dtype (" << constant.getType() << ")";
    if (array->dtype != dtype ||
        ArrayRef<int64_t>(array->shape) != type.getShape()) {
      std::string shape;
      for (int64_t d : array->shape)
        shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      return constant.emitError()
             << kPass << ": " << path << " holds " << array->dtype << " ["
             << shape << "], but initializer '" << constant.getName() << "' is "
             << type;
    }
    ArrayRef<char> bytes(reinterpret_cast<const char *>(array->bytes.data()),
                         array->bytes.size());
    // Booleans are one byte each in .npy, packed bits in a dense attribute.
    if (type.getElementType().isInteger(1)) {
      SmallVector<bool> bits(array->bytes.begin(), array->bytes.end());
      return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
    }
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  }
};

} // namespace
