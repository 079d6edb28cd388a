//===- OpRegistry.h - Everything Placer knows of an ONNX op -----*- C++ -*-===//
//
// One entry per (domain, op type, since-version): the op's lowering, its
// work rule (FLOPs and bytes for the cost model), its backward factor and
// gradient rule (training), its import-time folder (shape arithmetic), the
// value it folds to from its operand types (placement roles) and how it
// shards over a tensor-parallel group. The op families of
// lib/Conversion/GraphToLinalg fill the ONNX registry
// (placer/Conversion/OnnxOps.h), one family file an op; the lowering, the
// cost model, the gradient builder, the importer's shape folding and the
// placement roles look entries up
// instead of keeping tables of their own (docs/Architecture.md, "The op
// registry", has a worked example of adding an op).
//
// Version selection is the registry's: a node of opset V takes the entry of
// its op type with the greatest since-version not above V. A later version's
// entry takes every rule it does not set from the version before it, so a
// version that changes only the lowering says only that.
//
// The rules are plain function pointers over types declared below the
// layers that implement them (NodeLowering in Conversion, GradientBuilder
// beside the families): this header depends on the graph dialect alone.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_DIALECT_GRAPH_OPREGISTRY_H
#define PLACER_DIALECT_GRAPH_OPREGISTRY_H

#include "placer/Dialect/Graph/GraphDialect.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace placer {

struct NodeLowering;
class GradientBuilder;

//===----------------------------------------------------------------------===//
// Rule types
//===----------------------------------------------------------------------===//

/// Lowers one node to upstream ops (include/placer/Conversion/GraphToLinalg.h).
using LoweringFn =
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(NodeLowering &);

/// How the cost model treats an op (docs/CostModel.md).
enum class WorkKind {
  View,         ///< no kernel: a view or metadata
  DataMovement, ///< no FLOPs: time = bytes / bandwidth
  SparseRead,   ///< data movement that reads only the gathered rows
  Compute,      ///< FLOPs from the rule's formula
};

/// What a FLOP formula sees: the node and its rule's per-element count.
struct WorkArgs {
  mutable graph::NodeOp node; // op adaptors have no const accessors
  double perElement;

  /// The static shape of output `i` / input `i`, or failure after an error
  /// naming the node (a dynamic shape).
  mlir::FailureOr<llvm::ArrayRef<int64_t>> output(unsigned i = 0) const;
  mlir::FailureOr<llvm::ArrayRef<int64_t>> input(unsigned i) const;
  /// Whether optional input `i` is given (not omitted with graph.none).
  bool hasInput(unsigned i) const;
  int64_t getInt(llvm::StringRef name, int64_t fallback) const;
};

/// The static shape of `value`, an operand or result of `node`, or failure
/// after "cannot estimate the cost of node ...: ROLE has type ..., not a
/// static shape" (bind the dims on import).
mlir::FailureOr<llvm::ArrayRef<int64_t>>
requireStaticShape(graph::NodeOp node, mlir::Value value,
                   const llvm::Twine &role);

/// A node's FLOPs; std::nullopt when its attributes leave no formula;
/// failure after an error (a dynamic shape).
using Flops = mlir::FailureOr<std::optional<double>>;
using FlopsFormula = Flops (*)(const WorkArgs &);

/// Whether a data-movement node's lowering is a view of its input for this
/// node (a Slice with forward steps is a tensor.extract_slice).
using ViewFn = bool (*)(graph::NodeOp node);

/// The work of one node: its kind and, for compute, the formula and its
/// per-element count (what perOutputElement-style formulas multiply by).
struct WorkRule {
  WorkKind kind = WorkKind::Compute;
  FlopsFormula formula = nullptr;
  double perElement = 0;
  /// What the rule counts, as docs/OpCoverage.md prints it ("2 · numel(Y)
  /// · K"); per-element rules say it themselves.
  std::string text;
  /// DataMovement: the nodes that are views after all.
  ViewFn viewWhen = nullptr;

  static WorkRule view() { return {WorkKind::View}; }
  /// Data movement, or a view for the nodes `fn` holds for (`text` says
  /// which).
  static WorkRule viewOrCopy(ViewFn fn, std::string text) {
    return {WorkKind::DataMovement, nullptr, 0, std::move(text), fn};
  }
  /// Whether `node` launches no kernel: a view.
  bool isViewFor(graph::NodeOp node) const {
    return kind == WorkKind::View || (viewWhen && viewWhen(node));
  }
  static WorkRule dataMovement() { return {WorkKind::DataMovement}; }
  static WorkRule sparseRead() { return {WorkKind::SparseRead}; }
  static WorkRule compute(FlopsFormula formula, double perElement,
                          std::string text) {
    return {WorkKind::Compute, formula, perElement, std::move(text)};
  }
  /// The rule as the coverage table prints it.
  std::string describe() const;
};

/// The adjoints of a node's inputs (null where an input gets none) from
/// those of its results (null where a result reaches no loss), as graph
/// nodes built with `builder`; failure after an error on the node when its
/// attributes or shapes are ones the rule does not cover.
using GradientFn =
    mlir::LogicalResult (*)(GradientBuilder &builder, graph::NodeOp node,
                            llvm::ArrayRef<mlir::Value> dResults,
                            llvm::SmallVectorImpl<mlir::Value> &dInputs);

/// The constant a node stands for when its value follows from its
/// operands' static types alone (Shape, Size), or a null attribute when it
/// does not for this node. Placement gives such nodes the Folded role
/// (placer/Analysis/OpRoles.h).
using TypeFoldFn = mlir::DenseElementsAttr (*)(graph::NodeOp);

/// A small tensor whose values the importer knows: a shape, an index, a
/// scale. `dataType` is ONNX's TensorProto.DataType number; integers and
/// booleans live in `ints`, floats in `floats`.
struct KnownTensor {
  int32_t dataType = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  bool isFloat() const;
  /// The element count (the largest int64 when it does not fit).
  int64_t numElements() const;
};

/// The most elements a folder computes with: shape arithmetic is small.
inline constexpr int64_t kMaxKnownElements = 4096;

/// A node's attributes as a folder reads them, whatever holds them (the
/// importer's ONNX protos).
class FoldAttributes {
public:
  virtual ~FoldAttributes() = default;
  virtual bool has(llvm::StringRef name) const = 0;
  virtual std::optional<int64_t> getInt(llvm::StringRef name) const = 0;
  virtual std::optional<std::vector<int64_t>>
  getInts(llvm::StringRef name) const = 0;
  /// A tensor attribute small enough to compute with.
  virtual std::optional<KnownTensor> getTensor(llvm::StringRef name) const = 0;
};

/// What a folder sees of a node: its inputs' known values (null where
/// unknown), their static shapes (null where not static), its attributes.
struct FoldArgs {
  const std::vector<const KnownTensor *> &in;
  const std::vector<const std::vector<int64_t> *> &shapes;
  const FoldAttributes &attrs;

  bool known(size_t i) const { return i < in.size() && in[i]; }
  const KnownTensor &operator[](size_t i) const { return *in[i]; }
};

/// The value of a node's (one) output from what the importer knows of its
/// inputs, or nothing when the folder does not model these inputs.
using FoldFn = std::optional<KnownTensor> (*)(const FoldArgs &);

/// An import-time folder: it runs once the first `knownInputs` inputs
/// (kAllInputs: all of them) have known values.
struct FoldRule {
  static constexpr size_t kAllInputs = SIZE_MAX;
  size_t knownInputs = 0;
  FoldFn fold = nullptr;
};

/// The collective that makes a sharded op's result what the unsharded op
/// computes, over the tensor-parallel group.
enum class Collective {
  None,      ///< each device's result slice is final
  AllReduce, ///< each device holds a partial sum of the whole result
  AllGather, ///< each device holds one slice; every device needs all
};

/// Marks an input or result that is not split: every device holds it whole.
inline constexpr int64_t kUnsplit = INT64_MIN;

/// One way to split an op over t devices: the axis of each input cut in t
/// equal parts (counted from the end when negative; kUnsplit: whole on
/// every device), the axis of result 0 that comes out cut (kUnsplit: whole,
/// or partial sums when `collective` is AllReduce), and the collective the
/// result then needs. Megatron-LM's column- and row-parallel products are
/// two strategies of MatMul.
struct ShardingStrategy {
  std::string name;
  llvm::SmallVector<int64_t, 3> inputAxes;
  int64_t resultAxis = kUnsplit;
  Collective collective = Collective::None;
};

/// How a tensor is cut over a tensor-parallel group of `degree` devices:
/// along `axis` (from 0), in `degree` equal slices, one a device. With
/// `blocks` > 1 the axis is that many equal blocks, each cut in `degree`
/// slices, and a device holds its slice of every block: the layout of a
/// fused projection (q, k and v side by side) whose Split then hands every
/// device its heads of each.
struct ShardSplit {
  int64_t axis = 0;
  int64_t blocks = 1;
  bool operator==(const ShardSplit &other) const {
    return axis == other.axis && blocks == other.blocks;
  }
  bool operator!=(const ShardSplit &other) const { return !(*this == other); }
};

/// What an op makes of a split of its input 0 (a ShardCarryFn's answer):
/// its result cut (`split`), partial sums of a whole result that an
/// all-reduce completes (a sum over the split axis), or neither: the op
/// needs input 0 whole.
struct ShardCarry {
  std::optional<ShardSplit> split;
  bool partialSums = false;

  ShardCarry() = default;
  ShardCarry(std::nullopt_t) {}
  ShardCarry(ShardSplit split) : split(split) {}
  static ShardCarry partial() {
    ShardCarry carry;
    carry.partialSums = true;
    return carry;
  }
  bool carries() const { return split || partialSums; }
};

/// For an op whose attributes decide where a split goes (a Reshape moves
/// the axis, a Transpose permutes it, a Softmax keeps it unless it is the
/// normalized axis, a Split hands a blocked axis on, a ReduceSum keeps it
/// off its axes and sums over it): what result `result` is when input 0 is
/// split as `input` over `degree` devices. Shapes are static when it is
/// called.
using ShardCarryFn = ShardCarry (*)(graph::NodeOp node, unsigned result,
                                    ShardSplit input, int64_t degree);

/// How an op that joins its inputs along an axis (Concat) reads them split:
/// the cut of each input and of the result.
struct ShardJoin {
  llvm::SmallVector<ShardSplit, 3> inputs;
  ShardSplit result;
};

/// For a joining op: given each input's split (std::nullopt: held whole),
/// how it runs on slices, or std::nullopt when it needs its inputs whole.
using ShardJoinFn = std::optional<ShardJoin> (*)(
    graph::NodeOp node, llvm::ArrayRef<std::optional<ShardSplit>> inputs,
    int64_t degree);

/// The strategies of a node whose attributes decide its axes (Gemm's
/// transposes, Gather's axis): they replace ShardingRule::strategies for it.
using ShardStrategiesFn =
    llvm::SmallVector<ShardingStrategy, 2> (*)(graph::NodeOp node);

/// How an op shards. An op with no strategies, `followsInput` unset and no
/// `carry` is not sharded: it stays whole (replicated) inside a
/// tensor-parallel group.
struct ShardingRule {
  std::vector<ShardingStrategy> strategies;
  ShardStrategiesFn strategiesFor = nullptr;
  /// Elementwise: it runs on whatever slice its split inputs hold (inputs
  /// held whole are cut alike, or broadcast), no collective.
  bool followsInput = false;
  /// Carries a split of input 0 through the op (see ShardCarryFn); its
  /// other inputs (shapes, scales of unsplit axes) stay whole.
  ShardCarryFn carry = nullptr;
  /// Joins its inputs' slices (see ShardJoinFn).
  ShardJoinFn join = nullptr;

  bool isSharded() const {
    return followsInput || carry || join || strategiesFor ||
           !strategies.empty();
  }
};

/// The names a collective and a rule's axes print as (the coverage table,
/// diagnostics).
llvm::StringRef stringifyCollective(Collective collective);

/// How a backend fuses an op with its neighbours into one kernel
/// (docs/CostModel.md, "Kernels"): a row reduction (Softmax,
/// LayerNormalization, a ReduceMean over the last axes) runs with the
/// elementwise ops that feed it or read it in one kernel per block of rows;
/// a product or convolution runs the one elementwise op that alone reads its
/// result as its epilogue (a bias add: cuBLASLt's, cuDNN's, oneDNN's
/// post-op). The cost model groups units by these roles alike at the graph
/// level and after lowering, so a model costs the same at both.
enum class FusionKind {
  None,         ///< its own kernel; a fusion boundary
  Elementwise,  ///< one output element per element of its (broadcast) inputs
  RowReduction, ///< reduces input 0 over its trailing axes, row by row
  Contraction   ///< a product, convolution or pooling whose result comes
                ///< straight from its reduction: takes an epilogue
};

/// A node's fusion role: its kind and, for a row reduction, how many leading
/// axes of input 0 index the rows (the remaining ones are reduced).
struct FusionRole {
  FusionKind kind = FusionKind::None;
  int64_t rowAxes = 0;
};

/// The role of a node whose attributes decide it (which axes a reduction
/// reduces; whether a BatchNormalization computes batch statistics).
using FusionRoleFn = FusionRole (*)(graph::NodeOp node);

/// Which element type an op computes in when a model runs in half
/// precision (placer-autocast), after the op lists of PyTorch's CUDA
/// autocast: products on tensor cores in the half type, ops whose range or
/// long sums need it in f32, the rest in whatever type their data has.
enum class CastPolicy {
  /// In its data's type (ONNX's type parameter): half when its half inputs
  /// meet only constants (cast to half at compile time, as autocast casts a
  /// Linear's bias); f32 when a computed f32 input meets them (type
  /// promotion). An op whose outputs do not have its inputs' type (Cast,
  /// Shape) keeps its types.
  Follow,
  /// In the half type: convolutions and matrix products.
  Half,
  /// In f32: Softmax, the normalizations, exp, log, pow, sums.
  Float,
};

//===----------------------------------------------------------------------===//
// Entries and the registry
//===----------------------------------------------------------------------===//

struct OpEntry {
  /// The op's domain ("" for ONNX's default domain), type and the first
  /// opset of the domain this entry covers.
  std::string domain, opType;
  int64_t sinceVersion = 1;
  /// The family (the file that registers it) for the generated op table.
  std::string family;

  /// Null when the op does not lower (the cost model and placement still
  /// know it: a sequence op of an imported model, say).
  LoweringFn lower = nullptr;
  /// Whether the lowering takes tensors with dynamic dims.
  bool dynamicDims = false;
  /// Unset: the cost model does not model the op (bytes only, reported).
  std::optional<WorkRule> work;
  /// Backward time as a multiple of forward time (unset: the
  /// `backward-factor` fallback of the placement options).
  std::optional<double> backwardFactor;
  GradientFn gradient = nullptr;
  TypeFoldFn foldFromTypes = nullptr;
  /// How the importer evaluates the op on known small values (shape
  /// arithmetic), before any MLIR exists.
  std::optional<FoldRule> fold;
  ShardingRule sharding;
  /// Unset: elementwise when the op follows its input's split (the
  /// elementwise ops), else no fusion.
  FusionRoleFn fusion = nullptr;
  /// Unset: CastPolicy::Follow.
  std::optional<CastPolicy> castPolicy;

  /// The node's fusion role (see FusionRoleFn).
  FusionRole getFusionRole(graph::NodeOp node) const;
  CastPolicy getCastPolicy() const {
    return castPolicy.value_or(CastPolicy::Follow);
  }
  bool isDefaultDomain() const { return domain.empty(); }
  /// `opType`, prefixed by `domain.` outside the default domain.
  std::string getQualifiedName() const;
};

class OpRegistry {
public:
  /// Sets the rules of one entry as it is registered:
  /// `r.add("Relu", lowerRelu).work(...).backward(1.0).gradient(...)`.
  class EntryBuilder {
  public:
    EntryBuilder(OpRegistry &registry, size_t index)
        : registry(registry), index(index) {}
    EntryBuilder &work(WorkRule rule);
    EntryBuilder &backward(double factor);
    EntryBuilder &gradient(GradientFn fn);
    EntryBuilder &foldFromTypes(TypeFoldFn fn);
    EntryBuilder &fold(FoldRule rule);
    EntryBuilder &dynamicDims();
    EntryBuilder &shard(ShardingStrategy strategy);
    EntryBuilder &followsInput();
    EntryBuilder &carriesSplit(ShardCarryFn fn);
    EntryBuilder &joinsSplits(ShardJoinFn fn);
    EntryBuilder &shardBy(ShardStrategiesFn fn);
    EntryBuilder &fuses(FusionRoleFn fn);
    EntryBuilder &computesIn(CastPolicy policy);

  private:
    OpEntry &entry();
    OpRegistry &registry;
    size_t index;
  };

  /// Starts a family: the entries added after it belong to it.
  void beginFamily(llvm::StringRef name, llvm::StringRef description);
  /// An op of the default domain lowered by `fn` from opset `sinceVersion`
  /// on. `fn` may be null: an op the cost model and placement know but the
  /// lowering does not.
  EntryBuilder add(llvm::StringRef opType, LoweringFn fn,
                   int64_t sinceVersion = 1);
  /// An op of another domain.
  EntryBuilder addInDomain(llvm::StringRef domain, llvm::StringRef opType,
                           LoweringFn fn, int64_t sinceVersion = 1);
  /// Marks every added entry of these op types as taking dynamic dims.
  void allowDynamicDims(std::initializer_list<llvm::StringRef> opTypes);
  /// Ends registration: each later version of an op takes the rules it
  /// leaves unset from the version before it. Lookups want it done.
  void finalize();

  /// The entry for `opType` of `domain` ("" or "ai.onnx": the default one)
  /// at opset `version`: the greatest since-version not above it; null when
  /// there is none.
  const OpEntry *find(llvm::StringRef domain, llvm::StringRef opType,
                      int64_t version) const;
  /// The entry of a default-domain op type.
  const OpEntry *find(llvm::StringRef opType, int64_t version) const {
    return find("", opType, version);
  }
  /// The entry for a node: its domain, op type and opset (`version`).
  const OpEntry *find(graph::NodeOp node) const;

  struct Family {
    std::string name, description;
  };
  llvm::ArrayRef<Family> getFamilies() const { return families; }
  /// Every entry, in registration order.
  llvm::ArrayRef<OpEntry> getEntries() const { return entries; }

  /// The op types of the default domain whose entries have a gradient rule,
  /// sorted (errors, docs).
  std::vector<std::string> getDifferentiableOpTypes() const;

  /// docs/LoweredOps.md: the lowered ops by family.
  std::string renderLoweredOps() const;
  /// The coverage table of docs/CostModel.md ("Op coverage"): per op type,
  /// its opsets and which rules it has.
  std::string renderCoverage() const;

private:
  std::vector<Family> families;
  std::vector<OpEntry> entries;
  /// Qualified op type -> its entries' indices.
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> byName;
};

} // namespace placer

#endif // PLACER_DIALECT_GRAPH_OPREGISTRY_H
