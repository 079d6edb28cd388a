//===- ExportDot.cpp - The placed graph as Graphviz DOT -------------------===//
#include "placer/Dialect/Dist/DistDialect.h"
#include "placer/Analysis/OpNames.h"
#include "placer/Analysis/OpRoles.h"
#include "placer/Dialect/Graph/GraphDialect.h"
#include "placer/Dialect/Placer/PlacerDialect.h"
#include "placer/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace placer {
#define GEN_PASS_DEF_EXPORTDOT
#include "placer/Transforms/Passes.h.inc"
} // namespace placer

using namespace mlir;
using namespace placer;

namespace {

/// Colours that stay apart on screen and paper (ColorBrewer Set3).
const char *const kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                                "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

struct ExportDotPass : public placer::impl::ExportDotBase<ExportDotPass> {
  using ExportDotBase::ExportDotBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Node ids, devices, and the producer a recv stands for.
    llvm::DenseMap<Operation *, int> ids;
    std::map<int64_t, Operation *> senderOf; // channel -> producer
    SmallVector<Operation *> nodes;
    // The placed ops only (graph nodes, or ops of any other dialect):
    // compile-time values (OpRoles) are copied to whichever device uses
    // them, and so belong to none; transfers are the edges.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      OpRoles roles(func.getBody().front());
      for (Operation &op : func.getBody().getOps()) {
        if (auto send = dyn_cast<dist::SendOp>(op)) {
          senderOf[send.getChannel()] = send.getValue().getDefiningOp();
        } else if (roles.isPlaced(&op) && !isa<dist::RecvOp>(op) &&
                   !op.hasTrait<OpTrait::IsTerminator>()) {
          ids[&op] = nodes.size();
          nodes.push_back(&op);
        }
      }
    }
    auto deviceOf = [](Operation *op) -> int64_t {
      return getDevice(op).value_or(-1);
    };

    std::string text;
    llvm::raw_string_ostream os(text);
    os << "digraph placement {\n  rankdir=TB;\n"
          "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, "
          "fontsize=10];\n  edge [color=\"#555555\"];\n";
    std::map<int64_t, int> devices;
    for (Operation *node : nodes) {
      int64_t device = deviceOf(node);
      devices.emplace(device, 0);
      os << llvm::formatv("  n{0} [label=\"{1}\\n{2}\", fillcolor=\"{3}\"];\n",
                          ids[node], escape(getOpDisplayName(node)),
                          escape(getOpTypeName(node)),
                          device < 0 ? "#ffffff"
                                     : kPalette[device % std::size(kPalette)]);
    }
    int cut = 0;
    for (Operation *node : nodes) {
      llvm::SmallSetVector<Operation *, 4> producers;
      node->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (auto recv = dyn_cast_or_null<dist::RecvOp>(def))
            def = senderOf[recv.getChannel()];
          if (def && ids.count(def) && def != node)
            producers.insert(def);
        }
      });
      for (Operation *producer : producers) {
        bool crosses = deviceOf(producer) != deviceOf(node);
        cut += crosses;
        os << llvm::formatv("  n{0} -> n{1}{2};\n", ids[producer], ids[node],
                            crosses ? " [color=\"#d62728\", style=\"bold,dashed\", "
                                      "penwidth=2]"
                                    : "");
      }
    }
    // A legend: one swatch per device.
    os << "  subgraph cluster_legend {\n    label=\"devices (" << cut
       << " cut edges, red)\";\n    fontname=Helvetica;\n";
    for (auto &[device, unused] : devices)
      if (device >= 0)
        os << llvm::formatv("    legend{0} [label=\"device {0}\", "
                            "fillcolor=\"{1}\"];\n",
                            device, kPalette[device % std::size(kPalette)]);
    os << "  }\n}\n";

    std::string error;
    auto out = openOutputFile(file, &error);
    if (!out) {
      emitError(module.getLoc(), "--placer-export-dot: ") << error;
      return signalPassFailure();
    }
    out->os() << text;
    out->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
