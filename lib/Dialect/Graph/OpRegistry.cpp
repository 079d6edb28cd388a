//===- OpRegistry.cpp - Entries, version selection and the op tables ------===//
//
// The registry's own logic: adding entries, inheriting rules across
// versions, looking entries up by (domain, op type, opset), and rendering
// the generated op tables. What the entries hold is registered by the op
// families (lib/Conversion/GraphToLinalg).
//
//===----------------------------------------------------------------------===//

#include "placer/Dialect/Graph/OpRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir;
using namespace placer;

//===----------------------------------------------------------------------===//
// Rule types
//===----------------------------------------------------------------------===//

FailureOr<ArrayRef<int64_t>>
placer::requireStaticShape(graph::NodeOp node, Value value, const Twine &role) {
  auto ranked = dyn_cast<RankedTensorType>(value.getType());
  if (!ranked || !ranked.hasStaticShape())
    return node.emitError("cannot estimate the cost of node '")
           << node.getDisplayName() << "' (" << node.getOpType()
           << "): " << role << " has type " << value.getType()
           << ", not a static shape (bind symbolic dims on import with "
              "--dim NAME=VALUE)";
  return ranked.getShape();
}

FailureOr<ArrayRef<int64_t>> WorkArgs::output(unsigned i) const {
  if (i >= node.getOutputs().size())
    return node.emitError("cannot estimate the cost of node '")
           << node.getDisplayName() << "' (" << node.getOpType()
           << "): it has no output #" << i;
  return requireStaticShape(node, node.getOutputs()[i], "output");
}

FailureOr<ArrayRef<int64_t>> WorkArgs::input(unsigned i) const {
  if (!hasInput(i))
    return node.emitError("cannot estimate the cost of node '")
           << node.getDisplayName() << "' (" << node.getOpType() << "): input #"
           << i << " is missing";
  return requireStaticShape(node, node.getInputs()[i], "input #" + Twine(i));
}

bool WorkArgs::hasInput(unsigned i) const {
  auto inputs = node.getInputs();
  return inputs.size() > i && !isa<NoneType>(inputs[i].getType());
}

int64_t WorkArgs::getInt(StringRef name, int64_t fallback) const {
  if (auto attr = node.getAttrs().getAs<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

std::string WorkRule::describe() const {
  switch (kind) {
  case WorkKind::View:
    return "view: no kernel";
  case WorkKind::DataMovement:
    return viewWhen ? text : "0 FLOPs: memory-bound";
  case WorkKind::SparseRead:
    return "0 FLOPs: reads the indices and the gathered rows only";
  case WorkKind::Compute:
    return text;
  }
  llvm_unreachable("unknown work kind");
}

StringRef placer::stringifyCollective(Collective collective) {
  switch (collective) {
  case Collective::None:
    return "none";
  case Collective::AllReduce:
    return "all-reduce";
  case Collective::AllGather:
    return "all-gather";
  }
  llvm_unreachable("unknown collective");
}

std::string OpEntry::getQualifiedName() const {
  return domain.empty() ? opType : domain + "." + opType;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

OpEntry &OpRegistry::EntryBuilder::entry() { return registry.entries[index]; }

OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::work(WorkRule rule) {
  entry().work = std::move(rule);
  return *this;
}
OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::backward(double factor) {
  entry().backwardFactor = factor;
  return *this;
}
OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::gradient(GradientFn fn) {
  entry().gradient = fn;
  return *this;
}
OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::foldFromTypes(TypeFoldFn fn) {
  entry().foldFromTypes = fn;
  return *this;
}
OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::fold(FoldRule rule) {
  entry().fold = rule;
  return *this;
}
OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::dynamicDims() {
  entry().dynamicDims = true;
  return *this;
}
OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::shard(ShardingStrategy strategy) {
  entry().sharding.strategies.push_back(std::move(strategy));
  return *this;
}
OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::followsInput() {
  entry().sharding.followsInput = true;
  return *this;
}

OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::carriesSplit(ShardCarryFn fn) {
  entry().sharding.carry = fn;
  return *this;
}

OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::joinsSplits(ShardJoinFn fn) {
  entry().sharding.join = fn;
  return *this;
}

OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::shardBy(ShardStrategiesFn fn) {
  entry().sharding.strategiesFor = fn;
  return *this;
}

OpRegistry::EntryBuilder &OpRegistry::EntryBuilder::fuses(FusionRoleFn fn) {
  entry().fusion = fn;
  return *this;
}

OpRegistry::EntryBuilder &
OpRegistry::EntryBuilder::computesIn(CastPolicy policy) {
  entry().castPolicy = policy;
  return *this;
}

FusionRole OpEntry::getFusionRole(graph::NodeOp node) const {
  if (fusion)
    return fusion(node);
  if (sharding.followsInput)
    return {FusionKind::Elementwise};
  return {};
}

void OpRegistry::beginFamily(StringRef name, StringRef description) {
  families.push_back({name.str(), description.str()});
}

OpRegistry::EntryBuilder OpRegistry::add(StringRef opType, LoweringFn fn,
                                         int64_t sinceVersion) {
  return addInDomain("", opType, fn, sinceVersion);
}

OpRegistry::EntryBuilder OpRegistry::addInDomain(StringRef domain,
                                                 StringRef opType,
                                                 LoweringFn fn,
                                                 int64_t sinceVersion) {
  OpEntry entry;
  entry.domain = domain == graph::attrs::kDefaultDomainKey ? "" : domain.str();
  entry.opType = opType.str();
  entry.sinceVersion = sinceVersion;
  entry.family = families.empty() ? "" : families.back().name;
  entry.lower = fn;
  byName[entry.getQualifiedName()].push_back(entries.size());
  entries.push_back(std::move(entry));
  return EntryBuilder(*this, entries.size() - 1);
}

void OpRegistry::allowDynamicDims(std::initializer_list<StringRef> opTypes) {
  for (StringRef opType : opTypes) {
    auto it = byName.find(opType);
    assert(it != byName.end() && "allowDynamicDims of an op not added");
    for (unsigned index : it->second)
      entries[index].dynamicDims = true;
  }
}

void OpRegistry::finalize() {
  for (auto &named : byName) {
    SmallVector<unsigned, 1> order(named.second);
    llvm::sort(order, [&](unsigned a, unsigned b) {
      return entries[a].sinceVersion < entries[b].sinceVersion;
    });
    for (size_t i = 1; i < order.size(); ++i) {
      const OpEntry &before = entries[order[i - 1]];
      OpEntry &entry = entries[order[i]];
      if (!entry.work)
        entry.work = before.work;
      if (!entry.backwardFactor)
        entry.backwardFactor = before.backwardFactor;
      if (!entry.gradient)
        entry.gradient = before.gradient;
      if (!entry.foldFromTypes)
        entry.foldFromTypes = before.foldFromTypes;
      if (!entry.fold)
        entry.fold = before.fold;
      if (!entry.sharding.isSharded())
        entry.sharding = before.sharding;
      if (!entry.fusion)
        entry.fusion = before.fusion;
      if (!entry.castPolicy)
        entry.castPolicy = before.castPolicy;
    }
  }
}

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

const OpEntry *OpRegistry::find(StringRef domain, StringRef opType,
                                int64_t version) const {
  // The default domain's names are the op types themselves: no string is
  // built on the lookups every node makes.
  bool defaultDomain =
      domain.empty() || domain == graph::attrs::kDefaultDomainKey;
  auto it = defaultDomain ? byName.find(opType)
                          : byName.find((domain + "." + opType).str());
  if (it == byName.end())
    return nullptr;
  const OpEntry *best = nullptr;
  for (unsigned index : it->second) {
    const OpEntry &entry = entries[index];
    if (entry.sinceVersion <= version &&
        (!best || entry.sinceVersion > best->sinceVersion))
      best = &entry;
  }
  return best;
}

const OpEntry *OpRegistry::find(graph::NodeOp node) const {
  return find(node.getDomain(), node.getOpType(), node.getVersion());
}

std::vector<std::string> OpRegistry::getDifferentiableOpTypes() const {
  std::set<std::string> types;
  for (const OpEntry &entry : entries)
    if (entry.gradient && entry.isDefaultDomain())
      types.insert(entry.opType);
  return {types.begin(), types.end()};
}

//===----------------------------------------------------------------------===//
// Generated tables
//===----------------------------------------------------------------------===//

std::string OpRegistry::renderLoweredOps() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "<!-- Generated by placer-lowering-table from the op registry "
        "(lib/Conversion/GraphToLinalg); do not edit. -->\n\n"
     << "# Lowered ONNX ops\n\n"
     << "Every op type of the default ONNX domain that "
        "`placer-lower-graph-to-linalg` "
        "lowers, by family (one file per family under "
        "lib/Conversion/GraphToLinalg/). An op lowers at every opset from the "
        "first one shown; an op absent here is refused with an error naming "
        "its nodes. Ops marked \\* also lower with dynamic dims (symbolic "
        "dims of the graph's inputs left unbound on import): the code is "
        "compiled once and runs on any size (docs/Execution.md, Dynamic "
        "shapes). [OpCoverage.md](OpCoverage.md) has every rule of every "
        "op.\n";
  for (const Family &family : families) {
    os << "\n## " << family.name << "\n\n" << family.description << "\n\n";
    bool first = true;
    for (const OpEntry &entry : entries) {
      if (entry.family != family.name || !entry.lower)
        continue;
      os << (first ? "" : ", ") << entry.getQualifiedName();
      if (entry.sinceVersion > 1)
        os << " (opset " << entry.sinceVersion << "+)";
      if (entry.dynamicDims)
        os << "*";
      first = false;
    }
    os << "\n";
  }
  return text;
}

/// "column: in 1 axis -1, out axis -1" style summary of a sharding rule.
static std::string describeSharding(const ShardingRule &rule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (rule.followsInput)
    os << "follows its split inputs";
  if (rule.carry)
    os << "carries input 0's split";
  if (rule.join)
    os << "joins its inputs' splits";
  if (rule.strategiesFor)
    os << "strategies from its attributes";
  for (const ShardingStrategy &strategy : rule.strategies) {
    if (!text.empty())
      os << "; ";
    os << strategy.name << " (";
    bool first = true;
    for (auto [i, axis] : llvm::enumerate(strategy.inputAxes)) {
      if (axis == kUnsplit)
        continue;
      os << (first ? "" : ", ") << "in " << i << " axis " << axis;
      first = false;
    }
    if (strategy.resultAxis != kUnsplit)
      os << (first ? "" : ", ") << "out axis " << strategy.resultAxis;
    if (strategy.collective != Collective::None)
      os << ", then " << stringifyCollective(strategy.collective);
    os << ")";
  }
  return text;
}

static llvm::StringRef describeCastPolicy(CastPolicy policy) {
  switch (policy) {
  case CastPolicy::Half:
    return "half";
  case CastPolicy::Float:
    return "f32";
  case CastPolicy::Follow:
    break;
  }
  return "as its data";
}

std::string OpRegistry::renderCoverage() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "<!-- Generated by placer-lowering-table from the op registry "
        "(lib/Conversion/GraphToLinalg); do not edit. -->\n\n"
     << "# ONNX op coverage\n\n"
     << "What Placer knows of each ONNX op, one row per registry entry "
        "(include/placer/Dialect/Graph/OpRegistry.h; docs/Architecture.md, "
        "\"The op registry\"): the opsets the entry covers, whether it lowers "
        "(\\* with dynamic dims too), its work rule for the cost model "
        "([CostModel.md](CostModel.md)), its backward factor (training time "
        "as a multiple of forward time; - takes the `backward-factor` "
        "option), whether it has a gradient rule "
        "([Training.md](Training.md)), whether its value folds on import "
        "from known input values (shape arithmetic: values) or from its "
        "operand types (placement copies a constant instead: types), how it "
        "shards over a tensor-parallel group (axes counted from the end when "
        "negative), and the type it computes in when a model runs in half "
        "precision (placer-autocast: half, f32, or as its data).\n\n"
     << "| op | opsets | family | lowers | work | backward | gradient | "
        "folds | sharding | half precision |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  // Sorted by name, then version; the opset range ends where the next
  // entry of the op starts.
  std::vector<const OpEntry *> sorted;
  for (const OpEntry &entry : entries)
    sorted.push_back(&entry);
  llvm::sort(sorted, [](const OpEntry *a, const OpEntry *b) {
    return std::make_pair(a->getQualifiedName(), a->sinceVersion) <
           std::make_pair(b->getQualifiedName(), b->sinceVersion);
  });
  for (size_t i = 0; i < sorted.size(); ++i) {
    const OpEntry &entry = *sorted[i];
    bool hasNext = i + 1 < sorted.size() && sorted[i + 1]->getQualifiedName() ==
                                                entry.getQualifiedName();
    os << "| " << entry.getQualifiedName() << " | " << entry.sinceVersion
       << (hasNext ? "-" + std::to_string(sorted[i + 1]->sinceVersion - 1)
                   : std::string("+"))
       << " | " << entry.family << " | "
       << (entry.lower ? (entry.dynamicDims ? "yes\\*" : "yes") : "no") << " | "
       << (entry.work ? entry.work->describe() : "not modelled") << " | ";
    if (entry.backwardFactor)
      os << llvm::format("%g", *entry.backwardFactor);
    else
      os << "-";
    os << " | " << (entry.gradient ? "yes" : "no") << " | "
       << (entry.fold ? (entry.foldFromTypes ? "values, types" : "values")
                      : (entry.foldFromTypes ? "types" : "no"))
       << " | "
       << (entry.sharding.isSharded() ? describeSharding(entry.sharding)
                                      : "replicated")
       << " | " << describeCastPolicy(entry.getCastPolicy()) << " |\n";
  }
  return text;
}
