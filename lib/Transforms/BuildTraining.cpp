//===- BuildTraining.cpp - One training step from an inference graph ------===//
//
// --placer-build-training turns a graph module into one training step: the
// forward nodes, a loss against a new `labels` input, the backward nodes
// (reverse mode, one vector-Jacobian rule per op type: Gradients.h) and
// each weight's optimizer update. The step returns the loss and the new
// value of every weight and optimizer state, each result naming the
// initializer it replaces (placer.updates), so that a runner feeds them
// back for the next step. docs/Training.md.
//
//===----------------------------------------------------------------------===//

#include "PlaceParallel.h"
#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Transforms/Gradients.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace placer {
#define GEN_PASS_DEF_BUILDTRAINING
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using graph::ConstantOp;
using graph::NodeOp;

namespace {

/// ", whose gradient rule starts at opset N" when a later version of
/// `node`'s op has a rule; "" otherwise.
std::string describeGradientOpsets(graph::NodeOp node) {
  for (const OpEntry &entry : getOnnxOps().getEntries())
    if (entry.gradient && entry.opType == node.getOpType() &&
        entry.isDefaultDomain() && entry.sinceVersion > node.getVersion())
      return ", whose gradient rule starts at opset " +
             std::to_string(entry.sinceVersion);
  return "";
}

/// The gradient rule of `node`'s op registry entry, or null.
GradientFn getGradientRule(graph::NodeOp node) {
  const OpEntry *entry = getOnnxOps().find(node);
  return entry ? entry->gradient : nullptr;
}

/// A BatchNormalization that normalises by its batch's statistics (what
/// PyTorch's train() does), rewritten into nodes that have rules, and what
/// the step needs to update its running statistics.
struct BatchStatistics {
  ConstantOp runningMean, runningVar;
  /// The batch's mean and (biased) variance per channel, as [1, C, 1...].
  Value mean, variance;
  /// ONNX's: running = running * momentum + batch * (1 - momentum).
  double momentum;
  /// Elements per channel: the variance's divisor.
  int64_t count;
};

/// Rewrites `node` (an inference-form BatchNormalization: one result,
/// initializers for its running statistics) as
///   mean = sum(x) / n, c = x - mean, var = sum(c * c) / n,
///   y = c / sqrt(var + epsilon) * scale + bias
/// over every axis but the channels', with ReduceSum, Mul, Sub, Add, Sqrt,
/// Div and Reshape nodes, whose rules then give the gradient through the
/// statistics.
FailureOr<BatchStatistics> decomposeBatchNorm(OpBuilder &b, NodeOp node,
                                              int64_t opset) {
  auto fail = [&](const Twine &why) {
    return node.emitError("placer-build-training: batch-norm=batch: ") << why;
  };
  if (node.getNumResults() != 1 || node.getNumOperands() != 5)
    return fail("covers the inference form (one output, five inputs)");
  auto runningMean = node.getOperand(3).getDefiningOp<ConstantOp>();
  auto runningVar = node.getOperand(4).getDefiningOp<ConstantOp>();
  if (!runningMean || !runningVar)
    return fail("its running statistics must be initializers");
  Value x = node.getOperand(0);
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() < 2)
    return fail("needs an input with a channel axis");
  SmallVector<int64_t> axes, perChannel(type.getRank(), 1);
  int64_t count = 1;
  for (int64_t axis = 0; axis < type.getRank(); ++axis)
    if (axis != 1) {
      axes.push_back(axis);
      count *= type.getDimSize(axis);
    }
  if (count < 2)
    return fail("one element per channel has no variance");
  perChannel[1] = type.getDimSize(1);
  auto spread = type.clone(perChannel);
  DictionaryAttr attrs = node.getAttrs();
  auto getF64 = [&](StringRef name, double fallback) {
    auto attr = attrs ? attrs.getAs<FloatAttr>(name) : FloatAttr();
    return attr ? attr.getValueAsDouble() : fallback;
  };
  b.setInsertionPoint(node);
  GradientBuilder g(b, node.getLoc(), opset, node.getDisplayName().str(),
                    IntegerAttr(), StepPhase::Forward);
  Value mean = g.node(
      "Mul", {g.reduceSum(x, axes), g.scalar(1.0 / count, spread)}, spread);
  Value centred = g.node("Sub", {x, mean}, type);
  Value variance =
      g.node("Mul",
             {g.reduceSum(g.node("Mul", {centred, centred}, type), axes),
              g.scalar(1.0 / count, spread)},
             spread);
  Value shifted = g.node(
      "Add", {variance, g.scalar(getF64("epsilon", 1e-5), spread)}, spread);
  Value inverse =
      g.node("Div", {g.scalar(1.0, spread), g.node("Sqrt", {shifted}, spread)},
             spread);
  Value normalised = g.node("Mul", {centred, inverse}, type);
  Value scaled = g.node(
      "Mul", {normalised, g.reshape(node.getOperand(1), perChannel)}, type);
  Value y =
      g.node("Add", {scaled, g.reshape(node.getOperand(2), perChannel)}, type);
  node.getResult(0).replaceAllUsesWith(y);
  node.erase();
  return BatchStatistics{
      runningMean, runningVar, mean, variance, getF64("momentum", 0.9), count};
}

/// A weight the step trains: a floating-point initializer (no Constant
/// node's output) of rank 1 or more. Scalars are the exporter's constants
/// (a scale, an epsilon), not parameters.
bool isTrainable(ConstantOp constant) {
  auto type = cast<RankedTensorType>(constant.getType());
  return !constant.getNode() && isa<FloatType>(type.getElementType()) &&
         type.getRank() >= 1;
}

/// Marks the backward nodes of `body` that compute weight gradients only
/// (kWeightGradientAttrName): those no input gradient depends on. The
/// input gradients are the adjoints of the differentiated nodes' results
/// that depend on the step's inputs, through any op (not on weights alone,
/// as a transposed weight does): the backward pass hands them from a node's
/// twin to its producers' (and a pipeline from stage to stage). The
/// backward nodes they are computed from are on that path (B work); the
/// rest feed only weights' adjoints (W work, which the zero-bubble
/// schedules defer).
void markWeightGradients(Block &body, ArrayRef<NodeOp> differentiated,
                         const DenseMap<Value, Value> &adjoint) {
  llvm::SmallPtrSet<Operation *, 32> fromInputs, inputPath;
  for (Operation &op : body)
    if (llvm::any_of(op.getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return !def || fromInputs.contains(def);
        }))
      fromInputs.insert(&op);
  SmallVector<Operation *> work;
  for (NodeOp node : differentiated)
    if (fromInputs.contains(node))
      for (Value result : node.getResults())
        if (Value d = adjoint.lookup(result))
          work.push_back(d.getDefiningOp());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op || !op->hasAttr(kBackwardNodeAttrName) ||
        !inputPath.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand.getDefiningOp());
  }
  for (Operation &op : body)
    if (op.hasAttr(kBackwardNodeAttrName) && !inputPath.contains(&op))
      op.setAttr(kWeightGradientAttrName, UnitAttr::get(op.getContext()));
}

struct BuildTrainingPass : placer::impl::BuildTrainingBase<BuildTrainingPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    if (funcs.size() != 1) {
      mlir::emitError(module->getLoc(),
                      "placer-build-training: the module must hold one "
                      "graph function, not ")
          << funcs.size();
      return signalPassFailure();
    }
    if (failed(buildStep(module, funcs.front())))
      return signalPassFailure();
    if (PlacementAttr placement = getPlacement(module);
        placement && placement.getStages())
      placeLikeForward(funcs.front(), placement);
  }

  /// A forward graph that the three-dimensional planner placed, priced for
  /// training (Piper's layers run forward and backward together): the
  /// step's new nodes run where the forward node of their class does, the
  /// others (loss, optimizer) with the first node before them that has a
  /// device, or on the first stage. What the planner read of the forward
  /// graph (configurations, edge sizes) no longer describes the step.
  void placeLikeForward(func::FuncOp func, PlacementAttr placement) {
    llvm::DenseMap<int64_t, int64_t> deviceOfClass;
    func.walk([&](NodeOp node) {
      auto color = node->getAttrOfType<IntegerAttr>(kColorClassAttrName);
      if (std::optional<int64_t> device = getDevice(node); device && color)
        deviceOfClass.try_emplace(color.getInt(), *device);
    });
    int64_t first =
        cast<ParallelStageAttr>(placement.getStages()[0]).getFirst();
    func.walk([&](NodeOp node) {
      dropTensorPlanInputs(node);
      if (getDevice(node))
        return;
      auto color = node->getAttrOfType<IntegerAttr>(kColorClassAttrName);
      if (color && deviceOfClass.count(color.getInt())) {
        setDevice(node, deviceOfClass.lookup(color.getInt()));
        return;
      }
      for (Value input : node.getInputs())
        if (Operation *producer = input.getDefiningOp())
          if (std::optional<int64_t> device = getDevice(producer)) {
            setDevice(node, *device);
            return;
          }
      setDevice(node, first);
    });
  }

  LogicalResult checkOptions(ModuleOp module) {
    auto bad = [&](StringRef option, const Twine &why) {
      return mlir::emitError(module->getLoc(), "placer-build-training: ")
             << option << " " << why;
    };
    if (loss != "mse" && loss != "cross-entropy")
      return bad("loss", "must be mse or cross-entropy, not '" + loss + "'");
    if (optimizer != "sgd" && optimizer != "momentum" && optimizer != "adam")
      return bad("optimizer",
                 "must be sgd, momentum or adam, not '" + optimizer + "'");
    if (!std::isfinite(learningRate) || learningRate <= 0)
      return bad("learning-rate", "must be finite and positive, not " +
                                      std::to_string(learningRate));
    if (!(momentum >= 0 && momentum < 1))
      return bad("momentum",
                 "must be in [0, 1), not " + std::to_string(momentum));
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
      return bad("beta1 and beta2", "must be in [0, 1)");
    if (!std::isfinite(epsilon) || epsilon <= 0)
      return bad("epsilon", "must be finite and positive");
    if (batchNorm != "running" && batchNorm != "batch")
      return bad("batch-norm",
                 "must be running or batch, not '" + batchNorm + "'");
    return success();
  }

  LogicalResult buildStep(ModuleOp module, func::FuncOp func) {
    FailureOr<int64_t> opset =
        getTrainingOpset(module, "placer-build-training");
    if (failed(opset))
      return failure();
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());

    // The output the loss is on.
    int64_t index = output.empty() ? 0 : -1;
    for (unsigned i = 0; index < 0 && i < func.getNumResults(); ++i)
      if (auto name = func.getResultAttrOfType<StringAttr>(i, "graph.name");
          name && name.getValue() == output)
        index = i;
    if (index < 0 || index >= ret.getNumOperands())
      return func.emitError("placer-build-training: no graph output named '")
             << output << "'";
    Value y = ret.getOperand(index);
    auto yType = dyn_cast<RankedTensorType>(y.getType());
    if (!yType || !isa<FloatType>(yType.getElementType()))
      return func.emitError("placer-build-training: the loss needs a "
                            "floating-point output; output ")
             << index << " is " << y.getType();

    // Static shapes: the backward nodes' types are the forward ones'.
    SmallVector<std::string> dynamic;
    func.walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto ranked = dyn_cast<RankedTensorType>(type);
            ranked && !ranked.hasStaticShape()) {
          auto node = dyn_cast<NodeOp>(op);
          dynamic.push_back(node ? node.getDisplayName().str()
                                 : op->getName().getStringRef().str());
          return;
        }
    });
    for (Type type : func.getArgumentTypes())
      if (auto ranked = dyn_cast<RankedTensorType>(type);
          ranked && !ranked.hasStaticShape())
        dynamic.push_back("an input");
    if (!dynamic.empty())
      return func.emitError("placer-build-training: needs static shapes "
                            "(import with --dim NAME=VALUE); dynamic at ")
             << llvm::join(dynamic, ", ");

    // Batch statistics: rewritten before anything is differentiated.
    SmallVector<BatchStatistics> batchStatistics;
    if (batchNorm == "batch") {
      SmallVector<NodeOp> norms;
      for (auto node : body.getOps<NodeOp>())
        if (node.getOpType() == "BatchNormalization" &&
            node.getDomain().empty())
          norms.push_back(node);
      OpBuilder rewriter(func.getContext());
      for (NodeOp node : norms) {
        FailureOr<BatchStatistics> decomposed =
            decomposeBatchNorm(rewriter, node, *opset);
        if (failed(decomposed))
          return failure();
        batchStatistics.push_back(*decomposed);
      }
    }

    // Values that depend on a weight, and nodes between a weight and y.
    llvm::DenseSet<Value> active;
    SmallVector<ConstantOp> weights;
    for (Operation &op : body) {
      if (auto constant = dyn_cast<ConstantOp>(op);
          constant && isTrainable(constant)) {
        weights.push_back(constant);
        active.insert(constant.getResult());
        continue;
      }
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return active.contains(v); }))
        active.insert(op.getResults().begin(), op.getResults().end());
    }
    llvm::DenseSet<Operation *> reaching;
    SmallVector<Value> worklist = {y};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val().getDefiningOp();
      if (!op || !reaching.insert(op).second)
        continue;
      worklist.append(op->operand_begin(), op->operand_end());
    }
    // Every node on a weight's path to y needs a rule: one error names all.
    SmallVector<NodeOp> differentiated;
    SmallVector<std::string> missing;
    for (Operation &op : body) {
      auto node = dyn_cast<NodeOp>(op);
      if (!node || !reaching.contains(node) ||
          !llvm::any_of(node.getResults(),
                        [&](Value v) { return active.contains(v); }))
        continue;
      differentiated.push_back(node);
      if (!getGradientRule(node))
        missing.push_back("'" + node.getDisplayName().str() + "' (" +
                          node.getOpType().str() + "-" +
                          std::to_string(node.getVersion()) +
                          describeGradientOpsets(node) + ")");
    }
    if (!missing.empty())
      return func.emitError("placer-build-training: no gradient rule for ")
             << missing.size() << " node" << (missing.size() > 1 ? "s" : "")
             << ": " << llvm::join(missing, ", ") << " (rules: "
             << llvm::join(getOnnxOps().getDifferentiableOpTypes(), ", ")
             << ")";
    OpBuilder b(ret);
    MLIRContext *context = b.getContext();

    // Each differentiated node and its backward twin share a class.
    int64_t nextClass = 0;
    for (NodeOp node : differentiated)
      node->setAttr(kColorClassAttrName, b.getI64IntegerAttr(nextClass++));
    auto classOf = [&](Operation *op) {
      return op ? op->getAttrOfType<IntegerAttr>(kColorClassAttrName)
                : IntegerAttr();
    };

    // The labels input and the loss.
    Type labelsType = yType;
    if (loss == "cross-entropy") {
      if (yType.getRank() != 2)
        return func.emitError("placer-build-training: cross-entropy needs "
                              "[batch, classes] logits, not ")
               << yType;
      labelsType = RankedTensorType::get({yType.getDimSize(0)}, b.getI64Type());
    }
    unsigned labelsIndex = func.getNumArguments();
    if (failed(
            func.insertArgument(labelsIndex, labelsType,
                                b.getDictionaryAttr(b.getNamedAttr(
                                    "graph.name", b.getStringAttr("labels"))),
                                func.getLoc())))
      return failure();
    Value labels = func.getArgument(labelsIndex);
    Location loc = func.getLoc();
    GradientBuilder forward(b, loc, *opset, "loss", IntegerAttr(),
                            StepPhase::Forward);
    GradientBuilder seed(b, loc, *opset, "loss/grad",
                         classOf(y.getDefiningOp()));
    auto scalarType = RankedTensorType::get({}, yType.getElementType());
    int64_t rows = yType.getDimSize(0);
    Value lossValue, dy;
    if (loss == "mse") {
      Value diff = forward.node("Sub", {y, labels}, yType);
      Value square = forward.node("Mul", {diff, diff}, yType);
      lossValue =
          forward.node("ReduceMean", {square}, scalarType,
                       {b.getNamedAttr("keepdims", b.getI64IntegerAttr(0))});
      dy = seed.node("Mul",
                     {diff, seed.scalar(2.0 / yType.getNumElements(), yType)},
                     yType);
    } else {
      int64_t classes = yType.getDimSize(1);
      auto axis = b.getNamedAttr("axis", b.getI64IntegerAttr(1));
      Value logp = forward.node("LogSoftmax", {y}, yType, {axis});
      Value values = graph::ConstantOp::create(
          b, loc, RankedTensorType::get({2}, yType.getElementType()),
          "loss/one_hot_values",
          DenseElementsAttr::get(
              RankedTensorType::get({2}, yType.getElementType()),
              ArrayRef<Attribute>{b.getFloatAttr(yType.getElementType(), 0.0),
                                  b.getFloatAttr(yType.getElementType(), 1.0)}),
          b.getStringAttr("loss/one_hot_values"));
      Value oneHot = forward.node(
          "OneHot", {labels, forward.int64s({classes}), values}, yType,
          {b.getNamedAttr("axis", b.getI64IntegerAttr(-1))});
      Value picked = forward.node("Mul", {oneHot, logp}, yType);
      Value total =
          forward.node("ReduceSum", {picked}, scalarType,
                       {b.getNamedAttr("keepdims", b.getI64IntegerAttr(0))});
      lossValue = forward.node(
          "Mul", {total, forward.scalar(-1.0 / rows, yType)}, scalarType);
      Value probabilities = seed.node("Softmax", {y}, yType, {axis});
      Value centred = seed.node("Sub", {probabilities, oneHot}, yType);
      dy = seed.node("Mul", {centred, seed.scalar(1.0 / rows, yType)}, yType);
    }

    // Reverse mode: adjoints summed where a value has several readers.
    DenseMap<Value, Value> adjoint;
    adjoint[y] = dy;
    for (NodeOp node : llvm::reverse(differentiated)) {
      SmallVector<Value> dResults;
      bool any = false;
      for (Value result : node.getResults()) {
        dResults.push_back(adjoint.lookup(result));
        any |= bool(dResults.back());
      }
      if (!any)
        continue;
      GradientBuilder g(b, node.getLoc(), *opset,
                        node.getDisplayName().str() + "/grad", classOf(node));
      SmallVector<Value> dInputs;
      if (failed(getGradientRule(node)(g, node, dResults, dInputs)))
        return failure();
      for (auto [input, d] : llvm::zip(node.getOperands(), dInputs)) {
        if (!d || !active.contains(input))
          continue;
        Value &sum = adjoint[input];
        sum = sum ? g.node("Add", {sum, d}, d.getType()) : d;
      }
    }

    markWeightGradients(func.getBody().front(), differentiated, adjoint);

    // Optimizer updates, with the class of the weight's first reader.
    // Results after the loss: the next value of the initializer named.
    SmallVector<Value> results = {lossValue};
    SmallVector<std::string> updated;
    // Optimizer state: a new initializer of zeros.
    auto state = [&](ConstantOp weight, StringRef suffix,
                     RankedTensorType type) -> Value {
      std::string name =
          (weight ? weight.getName().str() + "." : "") + suffix.str();
      return graph::ConstantOp::create(
          b, loc, type, name,
          DenseElementsAttr::get(type,
                                 b.getFloatAttr(type.getElementType(), 0.0)),
          /*node=*/nullptr);
    };
    auto update = [&](Value next, StringRef name) {
      results.push_back(next);
      updated.push_back(name.str());
    };
    Value step, nextStep;
    if (optimizer == "adam") {
      auto stepType = RankedTensorType::get({}, yType.getElementType());
      b.setInsertionPoint(ret);
      step = state(nullptr, "adam.step", stepType);
      GradientBuilder g(b, loc, *opset, "adam.step/update", IntegerAttr(),
                        StepPhase::Optimizer);
      nextStep = g.node("Add", {step, g.scalar(1.0, stepType)}, stepType);
      update(nextStep, "adam.step");
    }
    for (ConstantOp weight : weights) {
      Value grad = adjoint.lookup(weight.getResult());
      if (!grad)
        continue; // no path to the loss
      Operation *reader = *weight->getUsers().begin();
      GradientBuilder g(b, weight.getLoc(), *opset,
                        weight.getName().str() + "/update", classOf(reader),
                        StepPhase::Optimizer);
      auto type = cast<RankedTensorType>(weight.getType());
      Value w = weight.getResult(), next;
      if (optimizer == "sgd") {
        next = g.node(
            "Sub",
            {w, g.node("Mul", {grad, g.scalar(learningRate, type)}, type)},
            type);
      } else if (optimizer == "momentum") {
        Value velocity = state(weight, "momentum", type);
        Value kept = g.node("Mul", {velocity, g.scalar(momentum, type)}, type);
        Value nextVelocity = g.node("Add", {kept, grad}, type);
        next = g.node(
            "Sub",
            {w,
             g.node("Mul", {nextVelocity, g.scalar(learningRate, type)}, type)},
            type);
        update(nextVelocity, weight.getName().str() + ".momentum");
      } else {
        Value m = state(weight, "adam_m", type);
        Value v = state(weight, "adam_v", type);
        Value nextM =
            g.node("Add",
                   {g.node("Mul", {m, g.scalar(beta1, type)}, type),
                    g.node("Mul", {grad, g.scalar(1 - beta1, type)}, type)},
                   type);
        Value square = g.node("Mul", {grad, grad}, type);
        Value nextV =
            g.node("Add",
                   {g.node("Mul", {v, g.scalar(beta2, type)}, type),
                    g.node("Mul", {square, g.scalar(1 - beta2, type)}, type)},
                   type);
        auto stepType = cast<RankedTensorType>(nextStep.getType());
        auto correction = [&](double beta) {
          Value power =
              g.node("Pow", {g.scalar(beta, stepType), nextStep}, stepType);
          return g.node("Sub", {g.scalar(1.0, stepType), power}, stepType);
        };
        Value mHat = g.node("Div", {nextM, correction(beta1)}, type);
        Value vHat = g.node("Div", {nextV, correction(beta2)}, type);
        Value denominator = g.node(
            "Add", {g.node("Sqrt", {vHat}, type), g.scalar(epsilon, type)},
            type);
        Value stepSize = g.node("Mul",
                                {g.node("Div", {mHat, denominator}, type),
                                 g.scalar(learningRate, type)},
                                type);
        next = g.node("Sub", {w, stepSize}, type);
        update(nextM, weight.getName().str() + ".adam_m");
        update(nextV, weight.getName().str() + ".adam_v");
      }
      update(next, weight.getName());
    }
    // Running statistics, as PyTorch's train() updates them (its unbiased
    // variance), from the batch's (averaged over microbatches when they
    // are accumulated): no gradient, an update of the step's state.
    for (BatchStatistics &norm : batchStatistics) {
      GradientBuilder g(
          b, loc, *opset, norm.runningMean.getName().str() + "/update",
          classOf(norm.mean.getDefiningOp()), StepPhase::Optimizer);
      auto type = cast<RankedTensorType>(norm.runningMean.getType());
      auto blend = [&](ConstantOp running, Value batch, double factor) {
        Value kept = g.node(
            "Mul", {running.getResult(), g.scalar(norm.momentum, type)}, type);
        Value added = g.node("Mul",
                             {g.reshape(batch, type.getShape()),
                              g.scalar((1 - norm.momentum) * factor, type)},
                             type);
        update(g.node("Add", {kept, added}, type), running.getName());
      };
      blend(norm.runningMean, norm.mean, 1.0);
      blend(norm.runningVar, norm.variance,
            double(norm.count) / double(norm.count - 1));
    }
    if (llvm::all_of(updated, [](const std::string &name) {
          return name == "adam.step";
        }))
      return func.emitError("placer-build-training: no weight reaches output ")
             << index << ": nothing to train";

    // The step's results: the loss, then each updated initializer.
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    SmallVector<Type> types;
    for (Value v : results)
      types.push_back(v.getType());
    func.setType(FunctionType::get(context, func.getArgumentTypes(), types));
    func.setResultAttrs(0, b.getDictionaryAttr(b.getNamedAttr(
                               "graph.name", b.getStringAttr("loss"))));
    for (auto [i, name] : llvm::enumerate(updated))
      func.setResultAttrs(
          i + 1,
          b.getDictionaryAttr(
              {b.getNamedAttr("graph.name", b.getStringAttr(name)),
               b.getNamedAttr(kUpdatesAttrName, b.getStringAttr(name))}));
    return success();
  }
};

} // namespace
