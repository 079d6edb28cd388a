//===- DeriveTensorConfigs.cpp - Piper's configurations from a model ------===//
//
// What the three-dimensional planner needs of each node at each
// tensor-parallel degree t (placer.tensor_configs, the form Piper's inputs
// import to), derived from the node's estimated cost and the layout
// planSharding gives it at t: a node each device of the group runs a slice
// of takes 1 / t of the time (its per-op overhead in full), a weight it reads
// cut takes 1 / t of the memory, a result it leaves split 1 / t of the stash,
// and the collectives it needs are priced on the group's link as ring
// all-reduces and all-gathers. docs/Sharding.md, "Configurations".
//
//===----------------------------------------------------------------------===//

#include "PlaceParallel.h"

#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/KVCache.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Analysis/Sharding.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace placer {
#define GEN_PASS_DEF_DERIVETENSORCONFIGS
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

/// Seconds of a collective over t devices on `link`: a ring all-reduce
/// moves 2 (t - 1) / t of the bytes over each link in 2 (t - 1) steps, an
/// all-gather half as much.
double collectiveTime(Collective kind, double bytes, int64_t t,
                      const Link &link) {
  if (t <= 1 || kind == Collective::None)
    return 0;
  double steps = static_cast<double>(t - 1);
  double share = bytes * steps / static_cast<double>(t);
  if (kind == Collective::AllReduce)
    return 2 * share / link.bandwidth + 2 * steps * link.latency;
  return share / link.bandwidth + steps * link.latency;
}

/// Each KV cache's past keys or values held split as the step's new
/// entries come out in `plan` (Megatron-LM's decode: a device keeps the
/// caches of its heads from step to step), where all of them come out
/// split alike and not along the sequence.
llvm::DenseMap<Value, ShardSplit> holdKVCaches(ArrayRef<KVCache> caches,
                                               const ShardingPlan &plan) {
  llvm::DenseMap<Value, ShardSplit> held;
  for (const KVCache &cache : caches) {
    std::optional<ShardSplit> split;
    bool alike = true;
    for (Value operand : cache.append->getOperands()) {
      if (operand == cache.past)
        continue;
      auto it = plan.splits.find(operand);
      if (it == plan.splits.end() || (split && *split != it->second))
        alike = false;
      else
        split = it->second;
    }
    if (alike && split && split->axis != cache.axis)
      held[cache.past] = *split;
  }
  return held;
}

} // namespace

LogicalResult placer::deriveTensorConfigs(ModuleOp module,
                                          ArrayRef<int64_t> degrees,
                                          const Cluster &cluster,
                                          bool recompute, int64_t kvBatch,
                                          int64_t contextTokens) {
  Location loc = module.getLoc();
  FailureOr<func::FuncOp> sole =
      getSoleFunction(module, "tensor-parallel configurations");
  if (failed(sole))
    return failure();
  func::FuncOp func = *sole;
  // Times on every accelerator kind: the planner runs a stage on one.
  SmallVector<const DeviceKind *> kinds;
  for (const DeviceKind &candidate : cluster.getKinds())
    if (candidate.isAccelerator)
      kinds.push_back(&candidate);
  if (kinds.empty())
    return emitError(loc, "tensor-parallel configurations: the cluster has "
                          "no accelerator");
  std::vector<int64_t> sorted(degrees.begin(), degrees.end());
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  // A tensor-parallel group stays inside a node: its link.
  Link link = cluster.getHierarchy()
                  ? cluster.getHierarchy()->intraNode
                  : cluster.getLink(0, cluster.getNumDevices() > 1 ? 1 : 0);
  if (!sorted.empty() && sorted.back() > 1 && !(link.bandwidth > 0))
    return emitError(loc, "tensor-parallel configurations: the group's link "
                          "has no bandwidth");
  // Decode steps: each KV cache's bytes for the batch and context asked
  // for, charged to the node that extends it.
  SmallVector<KVCache> caches = findKVCaches(func);
  llvm::DenseMap<Operation *, double> cacheBytesOf;
  for (const KVCache &cache : caches) {
    llvm::Expected<int64_t> bytes =
        getKVCacheBytes(cache, kvBatch, contextTokens);
    if (!bytes)
      return emitError(cache.append->getLoc(),
                       "tensor-parallel configurations: ")
             << llvm::toString(bytes.takeError());
    cacheBytesOf[cache.append] += static_cast<double>(*bytes);
  }
  std::map<int64_t, ShardingPlan> plans;
  for (int64_t t : sorted) {
    FailureOr<ShardingPlan> plan = planSharding(func, t);
    if (failed(plan))
      return failure();
    // Caches kept split: planned again with them held, so the Concats
    // that extend them run on slices and gather nothing.
    if (llvm::DenseMap<Value, ShardSplit> held = holdKVCaches(caches, *plan);
        !held.empty()) {
      plan = planSharding(func, t, held);
      if (failed(plan))
        return failure();
    }
    plans.emplace(t, std::move(*plan));
  }

  Block &body = func.getBody().front();
  OpRoles roles(body);
  SmallVector<graph::NodeOp> nodes(func.getOps<graph::NodeOp>());
  // Piper's layers run forward and backward together, so a stage keeps
  // both: a training step whose backward nodes stand apart could be cut
  // between them.
  for (graph::NodeOp node : nodes)
    if (isBackwardOp(node))
      return node.emitError("tensor-parallel configurations: node '")
             << node.getDisplayName()
             << "' is a backward node; plan the forward graph priced for "
                "training instead (--placer-estimate-costs training=true)";
  for (graph::NodeOp node : nodes)
    if (roles.isPlaced(node) && !getCost(node))
      return node.emitError("tensor-parallel configurations: node '")
             << node.getDisplayName()
             << "' has no cost: run --placer-estimate-costs first";
  // Priced for training: the costs give backward times.
  bool training = llvm::any_of(nodes, [&](graph::NodeOp node) {
    CostAttr cost = getCost(node);
    return cost && cost.getBackwardTimeOn(kinds.front()->name).has_value();
  });
  MLIRContext *context = module.getContext();
  OpBuilder b(context);
  for (auto [index, node] : llvm::enumerate(nodes)) {
    CostAttr cost = getCost(node);
    bool placed = roles.isPlaced(node) && cost;
    // Weights: the constants the node reads, some maybe cut.
    double weightBytes = 0;
    for (Value operand : node->getOperands())
      if (isa_and_nonnull<graph::ConstantOp>(operand.getDefiningOp()))
        weightBytes += getValueBytes(operand.getType()).value_or(0);
    double resident = placed ? static_cast<double>(cost.getResidentBytes()) : 0;
    double parameters = placed ? static_cast<double>(cost.getParamBytes()) : 0;
    double output = placed ? static_cast<double>(cost.getOutputBytes()) : 0;
    // What a cache's Concat returns is the cache, extended in place by a
    // server: resident (cache_bytes), not an activation besides it.
    double cache = cacheBytesOf.lookup(node);
    if (cache > 0)
      output = 0;

    SmallVector<Attribute> entries;
    for (auto &[t, plan] : plans) {
      const NodeSharding &sharding = plan.nodes[index];
      double cutWeights = 0;
      for (auto [i, operand] : llvm::enumerate(node->getOperands()))
        if (sharding.cutInputs[i] &&
            isa_and_nonnull<graph::ConstantOp>(operand.getDefiningOp()))
          cutWeights += getValueBytes(operand.getType()).value_or(0);
      double kept =
          weightBytes > 0
              ? (weightBytes - cutWeights + cutWeights / t) / weightBytes
              : 1.0;
      // The forward pass's collectives; training mirrors each in the
      // backward pass (the gradient of a cut input is summed, of a gathered
      // one cut).
      double forwardCommunication = 0;
      for (const CollectiveUse &use : sharding.collectives)
        forwardCommunication += collectiveTime(use.kind, use.bytes, t, link);
      double communication = (training ? 2 : 1) * forwardCommunication;
      // The function's results that come out split are gathered by the
      // node that produced them; a cache stays with the devices that
      // extend it.
      for (const CollectiveUse &use : plan.outputs) {
        Value returned = body.getTerminator()->getOperand(use.operand);
        if (returned.getDefiningOp() == node.getOperation() && cache == 0)
          communication += collectiveTime(use.kind, use.bytes, t, link);
      }
      // Each device runs a 1 / t slice, and still pays the op's overhead
      // (a kernel launch) in full. Recomputing runs the forward pass, its
      // collectives included, once more before the backward pass.
      auto secondsOn = [&](const DeviceKind &kind, bool again) {
        auto slice = [&](double seconds) {
          double overhead = std::min(seconds, kind.opOverhead);
          return sharding.isSharded() ? (seconds - overhead) / t + overhead
                                      : seconds;
        };
        double forward = placed ? cost.getTimeOn(kind.name).value_or(0) : 0;
        double backward =
            placed ? cost.getBackwardTimeOn(kind.name).value_or(0) : 0;
        double seconds = slice(forward) + slice(backward) + communication;
        return again ? seconds + slice(forward) + forwardCommunication
                     : seconds;
      };
      auto timesOn = [&](bool again) {
        if (kinds.size() == 1)
          return DictionaryAttr();
        return b.getDictionaryAttr(
            llvm::map_to_vector(kinds, [&](const DeviceKind *kind) {
              return b.getNamedAttr(kind->name,
                                    b.getF64FloatAttr(secondsOn(*kind, again)));
            }));
      };
      bool split = llvm::any_of(sharding.results,
                                [](const auto &s) { return s.has_value(); });
      double cacheShare = split ? cache / static_cast<double>(t) : cache;
      int64_t uses = 0;
      for (Value result : node->getResults())
        for (Operation *user : result.getUsers())
          uses += isa<graph::NodeOp>(user);
      auto zeros = [&](int64_t n) {
        return DenseF64ArrayAttr::get(context, SmallVector<double>(n, 0.0));
      };
      // Training stashes a node's output for every microbatch in flight
      // until its backward pass; inference holds one microbatch's (fixed).
      double activation = split ? output / static_cast<double>(t) : output;
      std::string id = t == 1 ? "whole" : sharding.strategy;
      SmallVector<Attribute, 2> configs = {TensorConfigAttr::get(
          context, id, secondsOn(*kinds.front(), false),
          training ? parameters * kept : 0.0, training ? activation : 0.0,
          resident * kept + (training ? 0.0 : activation),
          zeros(node->getNumOperands()), zeros(uses), timesOn(false), false,
          cacheShare)};
      // Recomputed, the output is stashed for no microbatch: it lives for
      // one microbatch's backward pass at a time.
      if (training && recompute && output > 0)
        configs.push_back(TensorConfigAttr::get(
            context, id + "+recompute", secondsOn(*kinds.front(), true),
            parameters * kept, 0.0, resident * kept + activation,
            zeros(node->getNumOperands()), zeros(uses), timesOn(true), true,
            cacheShare));
      entries.push_back(
          TensorDegreeAttr::get(context, t, b.getArrayAttr(configs)));
    }
    // The planner charges a cut edge both ways (the activation and its
    // gradient); inference sends the activation only.
    double direction = training ? 1.0 : 0.5;
    SmallVector<double> edgeBytes;
    for (Value operand : node->getOperands())
      edgeBytes.push_back(
          isa_and_nonnull<graph::NodeOp>(operand.getDefiningOp())
              ? direction * static_cast<double>(
                                getValueBytes(operand.getType()).value_or(0))
              : 0.0);
    node->setAttr(PlacerDialect::TensorConfigsAttrHelper::getNameStr(),
                  b.getArrayAttr(entries));
    node->setAttr(PlacerDialect::EdgeBytesAttrHelper::getNameStr(),
                  DenseF64ArrayAttr::get(context, edgeBytes));
  }
  return success();
}

namespace {

struct DeriveTensorConfigsPass
    : public placer::impl::DeriveTensorConfigsBase<DeriveTensorConfigsPass> {
  using DeriveTensorConfigsBase::DeriveTensorConfigsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<int64_t> list(degrees.begin(), degrees.end());
    if (list.empty())
      list.push_back(1);
    for (int64_t t : list)
      if (t < 1 || t > kMaxTensorDegree) {
        emitError(module.getLoc(), "--placer-derive-tensor-configs: degree ")
            << t << " is not between 1 and " << kMaxTensorDegree;
        return signalPassFailure();
      }
    for (auto [name, value] :
         {std::pair<StringRef, int64_t>("kv-batch", kvBatch),
          {"context", context}})
      if (value < 0) {
        emitError(module.getLoc(), "--placer-derive-tensor-configs: ")
            << name << "=" << value
            << ": must be at least 1 (0: the step's own shapes)";
        return signalPassFailure();
      }
    FailureOr<Cluster> cluster =
        requireCluster(module, "--placer-derive-tensor-configs");
    if (failed(cluster) ||
        failed(deriveTensorConfigs(module, list, *cluster, recompute, kvBatch,
                                   context)))
      return signalPassFailure();
  }
};

} // namespace
