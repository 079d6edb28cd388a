//===- EstimateCosts.cpp - Per-op work and time per device kind -----------===//
#include "placer/Analysis/Cluster.h"
#include "placer/Analysis/CostModel.h"
#include "placer/Analysis/OpNames.h"
#include "placer/Analysis/Profile.h"
#include "placer/Conversion/OnnxOps.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Support/Json.h"
#include "placer/Transforms/Passes.h"
#include "placer/Transforms/Reports.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <set>

namespace placer {
#define GEN_PASS_DEF_ESTIMATECOSTS
#define GEN_PASS_DEF_PRINTCOSTS
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;
using llvm::json::Object;


namespace {

/// Work of `op` including the ops nested in its regions (subgraphs run as
/// part of the node that holds them), unless its model covers them (a
/// linalg payload).
FailureOr<OpWork> estimateWithRegions(Operation *op,
                                      std::set<std::string> &unmodeled) {
  OpWork work;
  if (auto costed = dyn_cast<CostOpInterface>(op)) {
    FailureOr<OpWork> estimated = costed.estimateWork();
    if (failed(estimated))
      return failure();
    work = *estimated;
  } else {
    // Without a model the bytes are the estimate: they must be known.
    if (failed(checkStaticShapes(op)))
      return failure();
    work = estimateGenericWork(op);
  }
  if (!work.isModeled)
    unmodeled.insert(getOpTypeName(op));
  if (work.coversRegions)
    return work;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps()) {
      if (nested.hasTrait<OpTrait::IsTerminator>())
        continue;
      FailureOr<OpWork> inner = estimateWithRegions(&nested, unmodeled);
      if (failed(inner))
        return failure();
      work.flops += inner->flops;
      work.bytesRead += inner->bytesRead;
      work.bytesWritten += inner->bytesWritten;
      work.paramBytes += inner->paramBytes;
      work.isFree = work.isFree && inner->isFree;
    }
  return work;
}

/// The ops a placement assigns: the top-level ops of every function.
SmallVector<Operation *> getPlaceableOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  for (auto func : module.getOps<func::FuncOp>())
    for (Operation &op : func.getBody().getOps())
      if (!op.hasTrait<OpTrait::IsTerminator>() && !isa<graph::NoneOp>(op))
        ops.push_back(&op);
  return ops;
}

bool isWorkloadCost(Operation *op) {
  CostAttr cost = getCost(op);
  return cost && cost.getSource() == CostSource::Workload;
}

struct EstimateCostsPass
    : public placer::impl::EstimateCostsBase<EstimateCostsPass> {
  EstimateCostsPass() = default;
  explicit EstimateCostsPass(EstimateCostsOptions options)
      : EstimateCostsBase(std::move(options)) {}
  EstimateCostsPass(const EstimateCostsPass &other)
      : EstimateCostsBase(other), preset(other.preset) {}
  explicit EstimateCostsPass(CostSettings settings)
      : preset(std::move(settings)) {}

  template <typename Options>
  friend CostSettings placer::readCostSettings(const Options &);
  /// Settings given in C++ win over the textual options.
  std::optional<CostSettings> preset;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<PlacerDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const CostSettings settings = preset ? *preset : readCostSettings(*this);
    const std::string &cluster = settings.cluster;
    const std::string &profile = settings.profile;
    const std::string &dump = settings.dump;
    // Sizes for the symbolic dims first: costs need them.
    if (failed(bindDims(module, settings.dims)))
      return signalPassFailure();
    if (std::vector<std::string> symbols = getSymbolicDims(module);
        !symbols.empty()) {
      mlir::emitError(module.getLoc(), "--placer-estimate-costs: the module "
                                       "has symbolic dims without sizes (")
          << llvm::join(symbols, ", ")
          << "): give them with dims=NAME=VALUE, or bind them on import "
             "with --dim NAME=VALUE";
      return signalPassFailure();
    }
    SmallVector<Operation *> ops = getPlaceableOps(module);
    if (llvm::any_of(ops, isWorkloadCost)) {
      // A paper workload carries its own times and cluster.
      markAllAnalysesPreserved();
      return;
    }

    llvm::Expected<Cluster> loaded = Cluster::load(cluster);
    if (!loaded) {
      mlir::emitError(module.getLoc(), "--placer-estimate-costs: cluster: ")
          << llvm::toString(loaded.takeError());
      return signalPassFailure();
    }
    const Cluster &machine = *loaded;
    Profile measuredTimes;
    if (!profile.empty()) {
      llvm::Expected<Profile> read = readProfileFile(profile, machine);
      if (!read) {
        mlir::emitError(module.getLoc(), "--placer-estimate-costs: profile: ")
            << llvm::toString(read.takeError());
        return signalPassFailure();
      }
      measuredTimes = std::move(*read);
    }

    double optimizerStateFactor =
        settings.optimizerStateFactor >= 0
            ? settings.optimizerStateFactor
            : machine.getTraining().optimizerStateFactor;
    MLIRContext *context = module.getContext();
    Builder b(context);
    std::set<std::string> unmodeled;
    std::set<std::string> profiled;
    llvm::json::Array records;
    OpWork totals;
    std::map<std::string, double> totalTime;
    bool failedAny = false;
    auto [from, to] = machine.getPricingPair();

    // The walk changes attributes only: the kernels stay as first found.
    KernelCache kernels;
    for (Operation *op : ops) {
      FailureOr<OpWork> work = estimateWithRegions(op, unmodeled);
      if (failed(work)) {
        failedAny = true;
        continue;
      }
      // TF32 tensor cores run f32 products and convolutions at their own
      // peak (a pooling, also a contraction to the registry, is priced by
      // its bytes either way).
      if (settings.tf32 && work->elementType == "f32")
        if (auto node = dyn_cast<graph::NodeOp>(op))
          if (const OpEntry *entry = getOnnxOps().find(node);
              entry &&
              entry->getFusionRole(node).kind == FusionKind::Contraction)
            work->elementType = "tf32";
      // Constants fold into their consumers: only one that owns bytes of its
      // own (nothing consumes it) is worth an annotation.
      if (isa<graph::ConstantOp>(op) && work->paramBytes == 0)
        continue;
      std::string name = getOpDisplayName(op);
      auto measured = measuredTimes.find(name);
      bool fromProfile = measured != measuredTimes.end();
      if (fromProfile)
        profiled.insert(name);

      double backwardFactor =
          settings.backwardFactor >= 0
              ? settings.backwardFactor
              : getBackwardFactor(op).value_or(kFallbackBackwardFactor);
      SmallVector<NamedAttribute> times, backward;
      Object timeJson;
      for (const DeviceKind &kind : machine.getKinds()) {
        double seconds = getRooflineTime(*work, kind);
        if (fromProfile) {
          auto it = measured->second.find(kind.name);
          if (it != measured->second.end())
            seconds = it->second;
        }
        times.emplace_back(b.getStringAttr(kind.name), b.getF64FloatAttr(seconds));
        backward.emplace_back(
            b.getStringAttr(kind.name),
            b.getF64FloatAttr(seconds * backwardFactor));
        timeJson[kind.name] = seconds;
        totalTime[kind.name] += seconds;
      }
      double transfer = work->isFree
                            ? 0.0
                            : machine.transferTime(work->outputBytes, from, to);
      CostSource source = fromProfile        ? CostSource::Profile
                          : work->isModeled ? CostSource::Model
                                            : CostSource::Generic;
      DictionaryAttr backwardTime;
      std::optional<int64_t> trainingParamBytes;
      if (settings.training) {
        backwardTime = b.getDictionaryAttr(backward);
        // Weights, their gradients and the optimizer state.
        trainingParamBytes = static_cast<int64_t>(
            work->paramBytes * (2.0 + optimizerStateFactor));
      }
      setCost(op, CostAttr::get(context, static_cast<int64_t>(work->flops),
                                work->bytesRead, work->bytesWritten,
                                work->paramBytes, work->outputBytes,
                                b.getDictionaryAttr(times), transfer, source,
                                backwardTime, trainingParamBytes));

      totals.flops += work->flops;
      totals.paramBytes += work->paramBytes;
      totals.bytesRead += work->bytesRead;
      totals.bytesWritten += work->bytesWritten;
      totals.outputBytes += work->outputBytes;
      records.push_back(Object{{"name", name},
                               {"op_type", getOpTypeName(op)},
                               {"flops", static_cast<int64_t>(work->flops)},
                               {"bytes_read", work->bytesRead},
                               {"bytes_written", work->bytesWritten},
                               {"param_bytes", work->paramBytes},
                               {"output_bytes", work->outputBytes},
                               {"time", std::move(timeJson)},
                               {"transfer_time", transfer},
                               {"source", stringifyCostSource(source)}});
    }
    if (failedAny)
      return signalPassFailure();

    setCluster(module, ClusterAttr::get(context, machine));
    if (!unmodeled.empty()) {
      auto diag = mlir::emitWarning(module.getLoc(), "ops with no cost formula got a "
                                     "bytes-only estimate: ");
      llvm::interleaveComma(unmodeled, diag);
    }
    std::vector<std::string> unmatched;
    for (const auto &entry : measuredTimes)
      if (!profiled.count(entry.first))
        unmatched.push_back(entry.first);
    if (!profile.empty()) {
      auto diag =
          mlir::emitRemark(getModuleRemarkLoc(module), "profile covered ")
          << profiled.size() << " of " << ops.size() << " ops";
      if (!profiled.empty()) {
        diag << " (";
        llvm::interleaveComma(profiled, diag);
        diag << ")";
      }
      if (!unmatched.empty()) {
        diag << "; entries that match no op: ";
        llvm::interleaveComma(unmatched, diag);
      }
    }

    if (!dump.empty() &&
        failed(writeDump(module, dump, !profile.empty(), machine, records,
                         totals, totalTime, unmodeled, profiled, unmatched)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult writeDump(ModuleOp module, StringRef dump, bool profiledRun,
                          const Cluster &machine,
                          llvm::json::Array &records, const OpWork &totals,
                          const std::map<std::string, double> &totalTime,
                          const std::set<std::string> &unmodeled,
                          const std::set<std::string> &profiled,
                          const std::vector<std::string> &unmatched) {
    Object timeJson;
    for (const auto &[kind, seconds] : totalTime)
      timeJson[kind] = seconds;
    llvm::json::Array kinds;
    for (const DeviceKind &kind : machine.getKinds())
      kinds.push_back(kind.name);
    Object root{
        {"cluster", machine.getName()},
        {"device_kinds", std::move(kinds)},
        {"ops", std::move(records)},
        {"totals", Object{{"flops", static_cast<int64_t>(totals.flops)},
                          {"bytes_read", totals.bytesRead},
                          {"bytes_written", totals.bytesWritten},
                          {"param_bytes", totals.paramBytes},
                          {"output_bytes", totals.outputBytes},
                          {"time", std::move(timeJson)}}},
        {"unmodeled_op_types",
         llvm::json::Array(std::vector<std::string>(unmodeled.begin(),
                                                    unmodeled.end()))}};
    if (profiledRun)
      root["profile"] = Object{
          {"covered", llvm::json::Array(std::vector<std::string>(
                          profiled.begin(), profiled.end()))},
          {"unmatched", llvm::json::Array(unmatched)}};
    std::string error;
    auto file = openOutputFile(dump, &error);
    if (!file)
      return mlir::emitError(module.getLoc(), "--placer-estimate-costs: dump: ") << error;
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
    file->keep();
    return success();
  }
};

struct PrintCostsPass : public placer::impl::PrintCostsBase<PrintCostsPass> {
  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    SmallVector<std::string> kinds;
    int64_t flops = 0, read = 0, written = 0, params = 0;
    std::map<std::string, double> time;
    bool header = false;
    for (Operation *op : getPlaceableOps(getOperation())) {
      CostAttr cost = getCost(op);
      if (!cost)
        continue;
      DictionaryAttr times = cost.getTime();
      if (!header) {
        for (NamedAttribute t : times)
          kinds.push_back(t.getName().str());
        os << llvm::formatv("{0,-28} {1,-18} {2,14} {3,12} {4,12} {5,12}",
                            "op", "op_type", "flops", "bytes_read",
                            "bytes_written", "param_bytes");
        for (const std::string &kind : kinds)
          os << llvm::formatv(" {0,14}", "time[" + kind + "]");
        os << "\n";
        header = true;
      }
      int64_t f = cost.getFlops(), r = cost.getBytesRead(),
              w = cost.getBytesWritten(), p = cost.getParamBytes();
      flops += f;
      read += r;
      written += w;
      params += p;
      os << llvm::formatv("{0,-28} {1,-18} {2,14} {3,12} {4,12} {5,12}",
                          getOpDisplayName(op), getOpTypeName(op), f, r, w, p);
      for (const std::string &kind : kinds) {
        double t = cost.getTimeOn(kind).value_or(0.0);
        time[kind] += t;
        os << llvm::formatv(" {0,14:e4}", t);
      }
      os << "\n";
    }
    if (!header)
      return;
    os << llvm::formatv("{0,-28} {1,-18} {2,14} {3,12} {4,12} {5,12}", "total",
                        "", flops, read, written, params);
    for (const std::string &kind : kinds)
      os << llvm::formatv(" {0,14:e4}", time[kind]);
    os << "\n";
    markAllAnalysesPreserved();
  }
};

} // namespace

std::unique_ptr<Pass> placer::createEstimateCosts(CostSettings settings) {
  return std::make_unique<EstimateCostsPass>(std::move(settings));
}
