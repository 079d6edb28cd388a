//===- LibraryCalls.cpp - Convolutions and products as runtime calls ------===//
//
// The heavy ops go to tuned libraries, as onnxruntime (MLAS, its CUDA
// provider) and IREE (its microkernels) do: generated loops reach a
// fraction of their speed. The calls take memref descriptors
// (llvm.emit_c_interface). On a GPU (placer-gpu-library-calls) they are of
// device memory and the CUDA runtime implements them with cuDNN and cuBLAS
// (docs/Execution.md, "GPU code"); on a CPU (placer-cpu-library-calls)
// libplacer_rt does, with oneDNN (include/placer/Runtime/CpuLibraryCalls.h).
// Both passes match the same ops the same way; only the functions and
// their trailing arguments differ.
//
//===----------------------------------------------------------------------===//

#include "placer/Conversion/Layouts.h"
#include "placer/Conversion/Passes.h"
#include "placer/Runtime/CpuLibraryCalls.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace placer {
#define GEN_PASS_DEF_CPULIBRARYCALLS
#define GEN_PASS_DEF_GPULIBRARYCALLS
#include "placer/Conversion/Passes.h.inc"
} // namespace placer

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGpuConvFunction = "placer_gpu_conv2d_f32";
constexpr llvm::StringLiteral kGpuMatmulFunction = "placer_gpu_matmul_f32";
constexpr llvm::StringLiteral kGpuMatmulBf16Function = "placer_gpu_matmul_bf16";
constexpr llvm::StringLiteral kGpuConvBf16Function = "placer_gpu_conv2d_bf16";
constexpr llvm::StringLiteral kGpuConvF16Function = "placer_gpu_conv2d_f16";
constexpr llvm::StringLiteral kGpuMatmulF16Function = "placer_gpu_matmul_f16";
constexpr llvm::StringLiteral kGpuConvBiasReluFunction =
    "placer_gpu_conv2d_bias_relu_f32";
constexpr llvm::StringLiteral kCpuConvFunction = "placer_cpu_conv2d_f32";
constexpr llvm::StringLiteral kCpuMatmulFunction = "placer_cpu_matmul_f32";
constexpr llvm::StringLiteral kCpuMatmulBf16Function = "placer_cpu_matmul_bf16";
constexpr llvm::StringLiteral kCpuConvEpilogueFunction =
    "placer_cpu_conv2d_epilogue_f32";

/// Which library the calls go to. Both take (inputs..., output, sizes...,
/// accumulate) and then: on a GPU, whether TF32 is allowed; on a CPU, for a
/// convolution, whether its weights are a model's (the runtime keeps their
/// reordered copy).
struct Target {
  bool gpu = false;
  bool tf32 = false;
  StringRef conv() const { return gpu ? kGpuConvFunction : kCpuConvFunction; }
  StringRef matmul() const {
    return gpu ? kGpuMatmulFunction : kCpuMatmulFunction;
  }
};

/// A memref of `rank` dynamic sizes with any strides and offset (of f32
/// unless `element` says otherwise): what the library functions take,
/// whatever view the code has.
MemRefType getAnyMemRef(MLIRContext *context, int64_t rank,
                        Type element = nullptr) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, element ? element : Float32Type::get(context),
      StridedLayoutAttr::get(context, ShapedType::kDynamic, dynamic));
}

/// Whether `value` is a memref (or tensor) of f32.
bool isF32(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  return type && type.getElementType().isF32();
}

/// The declaration of `name`, added to the module once.
func::FuncOp declare(ModuleOp module, StringRef name, FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  // The runtime receives pointers to descriptors (_mlir_ciface_<name>).
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                b.getUnitAttr());
  return func;
}

Value castToAny(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return memref::CastOp::create(
      b, loc,
      getAnyMemRef(b.getContext(), type.getRank(), type.getElementType()),
      memref);
}

Value i64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

int64_t getElement(DenseIntElementsAttr attr, int64_t i) {
  return attr.getValues<int64_t>()[i];
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// A grouped convolution's 5-D operand as the 4-D buffer the library
/// takes, its group dimension merged into `merged` and the next one: the
/// buffer an expand_shape view came from, or a collapse of a contiguous
/// buffer (the output, which the code allocates 5-D); otherwise nothing.
Value getUngrouped(OpBuilder &b, Location loc, Value view, unsigned merged) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < 5; ++d) {
    if (d == merged + 1)
      continue;
    groups.push_back(d == merged ? ReassociationIndices{d, d + 1}
                                 : ReassociationIndices{d});
  }
  // Only the expansion that split the group off (a 1-D convolution's
  // expands other dimensions too).
  if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>())
    if (expand.getReassociationIndices() == groups)
      return expand.getSrc();
  auto type = cast<MemRefType>(view.getType());
  if (type.getRank() != 5 || !type.getLayout().isIdentity())
    return Value();
  return memref::CollapseShapeOp::create(b, loc, view, groups);
}

/// The buffer `value` is a view of (upstream's skipViewLikeOps, and
/// through memref.transpose, which is no ViewLikeOpInterface), or `value`
/// itself when it is no memref.
Value getRoot(Value value) {
  auto memref = dyn_cast<MemrefValue>(value);
  if (!memref)
    return value;
  while (true) {
    memref = memref::skipViewLikeOps(memref);
    auto transpose = memref.getDefiningOp<memref::TransposeOp>();
    if (!transpose)
      return memref;
    memref = transpose.getIn();
  }
}

/// Whether `value` views a function argument marked as holding the same
/// values at every call (placer::kConstantArgAttrName: a model weight).
bool isConstant(Value value) {
  auto argument = dyn_cast<BlockArgument>(getRoot(value));
  if (!argument)
    return false;
  auto func = dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return func && argument.getOwner()->isEntryBlock() &&
         func.getArgAttr(argument.getArgNumber(), placer::kConstantArgAttrName);
}

/// Whether `op` fills `buffer` whole with zeros: linalg.fill of 0.0, or a
/// linalg.map without inputs yielding 0.0 (how tensor.pad bufferizes).
bool isZeroFill(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs().front() == buffer &&
           matchPattern(fill.getInputs().front(), m_AnyZeroFloat());
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || !map.getInputs().empty() || map.getInit() != buffer)
    return false;
  auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
  return yield.getNumOperands() == 1 &&
         matchPattern(yield.getOperand(0), m_AnyZeroFloat());
}

/// Whether an op strictly between `from` and `to` (one block) may write the
/// buffer `root` or a view of it.
bool writtenBetween(Operation *from, Operation *to, Value root) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    // The library calls made so far write their output (operand 2) only;
    // other calls may write anything.
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (!llvm::is_contained(
              {kGpuConvFunction, kGpuMatmulFunction, kGpuMatmulBf16Function,
               kGpuMatmulF16Function, kGpuConvBf16Function, kGpuConvF16Function,
               kCpuConvFunction, kCpuMatmulFunction, kCpuMatmulBf16Function,
               kCpuConvEpilogueFunction},
              call.getCallee()) ||
          getRoot(call.getOperand(2)) == root)
        return true;
      continue;
    }
    if (isa<CallOpInterface>(op))
      return true;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        if (getRoot(init.get()) == root)
          return true;
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (getRoot(copy.getTarget()) == root)
        return true;
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (getRoot(dealloc.getMemref()) == root)
        return true;
    } else if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op)) {
      return true;
    }
  }
  return false;
}

/// Moves the deallocations of `root` strictly between `from` and `to` (one
/// block) to right after `to`, which is to read the buffer too: on the CPU,
/// optimize-allocation-liveness frees each buffer after its last reader,
/// and a call that reads a buffer in place of its copy reads it later.
void sinkDeallocsPast(Operation *from, Operation *to, Value root) {
  SmallVector<Operation *> deallocs;
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
        dealloc && getRoot(dealloc.getMemref()) == root)
      deallocs.push_back(op);
  for (Operation *dealloc : llvm::reverse(deallocs))
    dealloc->moveAfter(to);
}

/// A convolution input that only pads another buffer: allocated, filled
/// with zeros, `source` copied into its centre (the same margin on both
/// sides) and read by the convolution alone. cuDNN pads by itself, so the
/// call can take `source` and the padded copy can go (`dead`, in erase
/// order, once the convolution is gone).
struct Padding {
  Value source;
  int64_t padH = 0, padW = 0;
  SmallVector<Operation *> dead;
};

/// `spatial`: the dimensions of height and width (2, 3 in NCHW; 1, 2 in
/// NHWC); the others are not padded.
std::optional<Padding> matchPadding(Value x, Operation *conv,
                                    std::array<int64_t, 2> spatial) {
  auto alloc = x.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc.getType().getRank() != 4 ||
      !alloc.getType().hasStaticShape())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp centre;
  SmallVector<Operation *> deallocs, views;
  for (Operation *user : alloc->getUsers()) {
    if (isZeroFill(user, x) && !fill) {
      fill = user;
    } else if (auto subview = dyn_cast<memref::SubViewOp>(user);
               subview && !centre) {
      centre = subview;
    } else if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
    } else if (user == conv ||
               (isa<ViewLikeOpInterface>(user) && user->hasOneUse() &&
                *user->getUsers().begin() == conv)) {
      if (user != conv)
        views.push_back(user);
    } else {
      return std::nullopt;
    }
  }
  if (!fill || !centre || !centre->hasOneUse())
    return std::nullopt;
  auto copy = dyn_cast<memref::CopyOp>(*centre->getUsers().begin());
  if (!copy || copy.getTarget() != centre.getResult() ||
      fill->getBlock() != conv->getBlock() ||
      copy->getBlock() != conv->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(conv))
    return std::nullopt;
  ArrayRef<int64_t> offsets = centre.getStaticOffsets();
  ArrayRef<int64_t> sizes = centre.getStaticSizes();
  ArrayRef<int64_t> padded = alloc.getType().getShape();
  if (!centre.hasUnitStride() || llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(sizes, ShapedType::isDynamic))
    return std::nullopt;
  for (int64_t d = 0; d < 4; ++d) {
    bool margin = llvm::is_contained(spatial, d);
    if (margin ? padded[d] != sizes[d] + 2 * offsets[d]
               : offsets[d] != 0 || sizes[d] != padded[d])
      return std::nullopt;
  }
  // The convolution reads the source later than the copy did.
  Value source = copy.getSource();
  sinkDeallocsPast(copy, conv, getRoot(source));
  if (writtenBetween(copy, conv, getRoot(source)))
    return std::nullopt;
  Padding padding{source, offsets[spatial[0]], offsets[spatial[1]], {}};
  padding.dead.append(views.begin(), views.end());
  padding.dead.append({copy, centre, fill});
  padding.dead.append(deallocs.begin(), deallocs.end());
  padding.dead.push_back(alloc);
  return padding;
}

/// The zero fill of the convolution's output `y` right before it (nothing
/// between touches y's buffer): the call can overwrite y instead of
/// accumulating into zeros.
Operation *findZeroFill(Value y, Operation *conv) {
  Value root = getRoot(y);
  for (Operation *op = conv->getPrevNode(); op; op = op->getPrevNode()) {
    if (isZeroFill(op, y))
      return op;
    // Views (the call's own casts among them) touch no memory.
    if (isa<ViewLikeOpInterface>(op))
      continue;
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return getRoot(v) == root; }) ||
        llvm::is_contained(op->getResults(), root))
      return nullptr;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Channels-last convolutions
//===----------------------------------------------------------------------===//

/// The calls take N C H W (and F C KH KW) descriptors with any strides; a
/// channels-last buffer is passed as such a view of itself, which oneDNN
/// recognizes as NHWC (no reorder).
using namespace placer::layouts;

Value nchwView(OpBuilder &b, Location loc, Value nhwc) {
  SmallVector<unsigned> perm(std::begin(kNhwcToNchw), std::end(kNhwcToNchw));
  return memref::TransposeOp::create(
      b, loc, nhwc,
      AffineMapAttr::get(AffineMap::getPermutationMap(perm, b.getContext())));
}

/// The buffer that `buffer`, an allocation written once by a
/// linalg.transpose of `perm` and otherwise only read (by `user` among
/// others), is a transposed copy of (placer-channels-last's transposes of
/// weights and of a model's input): `user` can read that one instead. A
/// copy nothing reads any more is erased at the end (eraseUnreadCopies).
Value matchTransposed(Value buffer, Operation *user, ArrayRef<int64_t> perm) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return Value();
  linalg::TransposeOp copy;
  for (OpOperand &use : alloc->getUses()) {
    Operation *other = use.getOwner();
    auto transposeOp = dyn_cast<linalg::TransposeOp>(other);
    auto reader = dyn_cast<linalg::LinalgOp>(other);
    if (transposeOp && transposeOp.getInit() == buffer && !copy)
      copy = transposeOp;
    else if (!isa<memref::DeallocOp>(other) &&
             !(reader && reader.isDpsInput(&use)))
      return Value();
  }
  if (!copy || copy.getPermutation() != perm ||
      copy->getBlock() != user->getBlock() || !copy->isBeforeInBlock(user))
    return Value();
  sinkDeallocsPast(copy, user, getRoot(copy.getInput()));
  if (writtenBetween(copy, user, getRoot(copy.getInput())))
    return Value();
  return copy.getInput();
}

/// Erases the transposed copies that the calls read through: each
/// linalg.transpose into an allocation that only deallocations use.
void eraseUnreadCopies(ModuleOp module) {
  SmallVector<linalg::TransposeOp> copies;
  module.walk([&](linalg::TransposeOp copy) {
    if (copy.hasPureBufferSemantics())
      copies.push_back(copy);
  });
  for (linalg::TransposeOp copy : copies) {
    auto alloc = copy.getInit().getDefiningOp<memref::AllocOp>();
    if (!alloc || !llvm::all_of(alloc->getUsers(), [&](Operation *user) {
          return user == copy || isa<memref::DeallocOp>(user);
        }))
      continue;
    copy->erase();
    for (Operation *dealloc : llvm::make_early_inc_range(alloc->getUsers()))
      dealloc->erase();
    alloc->erase();
  }
}

/// How a convolution's buffers are laid out: NHWC input (its padding then
/// on dimensions 1 and 2), output or filter (F KH KW C), passed as NCHW
/// views.
struct ConvLayout {
  bool nhwcInput = false, nhwcOutput = false, nhwcFilter = false;
};

/// The view-like ops that view `root`, transitively, in an order where each
/// comes after the one it views.
SmallVector<Operation *> collectViews(Value root) {
  SmallVector<Operation *> views;
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers())
      if (isa<ViewLikeOpInterface, memref::TransposeOp>(user) &&
          user->getOperand(0) == value) {
        views.push_back(user);
        worklist.push_back(user->getResult(0));
      }
  }
  return views;
}

/// A half-precision convolution into an f32 accumulator (GraphToLinalg's
/// getAccumulatorType) whose result one elementwise op alone reads: cuDNN
/// writes half values only, so the call gets its own half buffer in place
/// of the accumulator (overwritten, not accumulated into: `zeroFill` is the
/// accumulator's) and the reader widens what it reads. The result is
/// rounded before the reader's epilogue (the bias), as PyTorch's CUDA
/// convolutions round before theirs. Returns y retyped to `half`, or null
/// when the pattern does not hold (nothing changed).
Value giveHalfOutput(OpBuilder &b, linalg::LinalgOp conv, Value y, Type half,
                     Operation *zeroFill) {
  auto root = getRoot(y).getDefiningOp<memref::AllocOp>();
  if (!zeroFill || !root || !root.getType().getLayout().isIdentity() ||
      !root.getType().hasStaticShape())
    return Value();
  SmallVector<Operation *> views = collectViews(root);
  linalg::LinalgOp reader;
  OpOperand *read = nullptr;
  SmallVector<Value> viewed = {root};
  for (Operation *view : views)
    viewed.push_back(view->getResult(0));
  for (Value value : viewed)
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == conv || user == zeroFill || llvm::is_contained(views, user) ||
          isa<memref::DeallocOp>(user))
        continue;
      auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
      if (reader || !linalgOp || !linalgOp.hasPureBufferSemantics() ||
          !linalgOp.isDpsInput(&use) || user->getBlock() != conv->getBlock() ||
          !conv->isBeforeInBlock(user) || !isa<linalg::GenericOp>(user))
        return Value();
      reader = linalgOp;
      read = &use;
    }
  if (!reader)
    return Value();
  // The half buffer replaces the accumulator, its views retyped alike.
  b.setInsertionPoint(root);
  auto halfBuffer = memref::AllocOp::create(
      b, root.getLoc(),
      MemRefType::Builder(root.getType()).setElementType(half),
      root.getAlignmentAttr());
  Value result = y == root.getResult() ? halfBuffer.getResult() : y;
  root.getResult().replaceAllUsesWith(halfBuffer.getResult());
  root->erase();
  for (Operation *view : views) {
    auto type = cast<MemRefType>(view->getResult(0).getType());
    view->getResult(0).setType(MemRefType::Builder(type).setElementType(half));
  }
  // The reader widens the half values it now reads.
  BlockArgument argument = reader.getMatchingBlockArgument(read);
  argument.setType(half);
  Block *body = argument.getOwner();
  OpBuilder inside = OpBuilder::atBlockBegin(body);
  auto widened = arith::ExtFOp::create(
      inside, reader.getLoc(), Float32Type::get(b.getContext()), argument);
  argument.replaceAllUsesExcept(widened, widened);
  return result;
}

/// y (+)= conv(x, w): strides, padding, dilations, groups, tf32; the
/// padding of x goes to the call when x only pads another buffer, and a
/// zero-filled y is overwritten rather than accumulated into.
LogicalResult callConv(OpBuilder &b, linalg::LinalgOp op, Value x, Value w,
                       Value y, int64_t groups, const Target &target,
                       ConvLayout layout = {}) {
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!x || !w || !y || !strides || !dilations)
    return failure();
  // f32 throughout, or (on a GPU) half-precision x and w.
  Type element = getElementTypeOrSelf(x);
  bool half = target.gpu && (element.isBF16() || element.isF16());
  if (getElementTypeOrSelf(w) != element || !(element.isF32() || half) ||
      !getElementTypeOrSelf(y).isF32())
    return failure();
  Operation *zeroFill = findZeroFill(op.getDpsInitOperand(0)->get(), op);
  if (half && !(y = giveHalfOutput(b, op, y, element, zeroFill)))
    return failure();
  Location loc = op.getLoc();
  std::optional<Padding> padding =
      matchPadding(x, op,
                   layout.nhwcInput ? std::array<int64_t, 2>{1, 2}
                                    : std::array<int64_t, 2>{2, 3});
  b.setInsertionPoint(op);
  Value input = padding ? padding->source : x;
  if (layout.nhwcInput)
    input = nchwView(b, loc, input);
  if (layout.nhwcOutput)
    y = nchwView(b, loc, y);
  if (layout.nhwcFilter)
    w = nchwView(b, loc, w);
  MLIRContext *context = b.getContext();
  Type any4 = getAnyMemRef(context, 4, element);
  Type i64Type = b.getI64Type(), i32Type = b.getI32Type();
  SmallVector<Type> types = {any4, any4, any4};
  types.append(7, i64Type);
  types.append(2, i32Type);
  auto type = FunctionType::get(context, types, {});
  StringRef name = target.conv();
  if (half)
    name = element.isBF16() ? kGpuConvBf16Function : kGpuConvF16Function;
  func::FuncOp callee = declare(op->getParentOfType<ModuleOp>(), name, type);
  SmallVector<Value> args = {castToAny(b, loc, input), castToAny(b, loc, w),
                             castToAny(b, loc, y)};
  for (int64_t v : {getElement(strides, 0), getElement(strides, 1),
                    padding ? padding->padH : 0, padding ? padding->padW : 0,
                    getElement(dilations, 0), getElement(dilations, 1), groups})
    args.push_back(i64(b, loc, v));
  args.push_back(i32(b, loc, zeroFill == nullptr));
  args.push_back(i32(b, loc, target.gpu ? target.tf32 : isConstant(w)));
  func::CallOp::create(b, loc, callee, args);
  op->erase();
  if (zeroFill)
    zeroFill->erase();
  if (padding)
    for (Operation *dead : padding->dead)
      dead->erase();
  return success();
}

/// conv_2d_nhwc_fhwc and conv_2d_nhwgc_gfhwc, as placer-channels-last makes
/// them. On a CPU: weights transposed from F C KH KW (G F C KH KW), read
/// where they were (oneDNN reorders them once); activations NHWC, or the
/// model's input transposed from NCHW, read where it was. On a GPU all
/// three NHWC, the weights as transposed (cuDNN's tensor-core kernels take
/// NHWC filters with NHWC activations), each passed as the N C H W view of
/// its buffer: the runtime tells the layouts from the strides.
LogicalResult rewriteChannelsLastConv(OpBuilder &b, linalg::LinalgOp op,
                                      const Target &target) {
  bool grouped = isa<linalg::Conv2DNhwgcGfhwcOp>(op);
  if (!grouped && !isa<linalg::Conv2DNhwcFhwcOp>(op))
    return failure();
  Value x = op.getDpsInputOperand(0)->get();
  Value w = op.getDpsInputOperand(1)->get();
  Value y = op.getDpsInitOperand(0)->get();
  ConvLayout layout;
  layout.nhwcOutput = true;
  Location loc = op.getLoc();
  if (target.gpu) {
    auto wType = dyn_cast<MemRefType>(w.getType());
    if (!wType || !wType.getLayout().isIdentity())
      return failure();
    layout.nhwcInput = true;
    layout.nhwcFilter = true;
    b.setInsertionPoint(op);
    if (!grouped)
      return callConv(b, op, x, w, y, 1, target, layout);
    // N H W G C * G F KH KW C -> N H W G F, as N H W (G C) * (G F) KH KW C.
    int64_t groups = wType.getDimSize(0);
    return callConv(b, op, getUngrouped(b, loc, x, 3),
                    getUngrouped(b, loc, w, 0), getUngrouped(b, loc, y, 3),
                    groups, target, layout);
  }
  Value weights = matchTransposed(w, op,
                                  grouped ? ArrayRef<int64_t>(kGfchwToGfhwc)
                                          : ArrayRef<int64_t>(kNchwToNhwc));
  if (!weights)
    return failure();
  b.setInsertionPoint(op);
  if (grouped) {
    // N H W G C * G F C KH KW -> N H W G F, as N H W (G C) * (G F) C KH KW.
    int64_t groups = cast<MemRefType>(w.getType()).getDimSize(0);
    layout.nhwcInput = true;
    return callConv(b, op, getUngrouped(b, loc, x, 3),
                    getUngrouped(b, loc, weights, 0),
                    getUngrouped(b, loc, y, 3), groups, target, layout);
  }
  if (Value input = matchTransposed(x, op, kNchwToNhwc))
    x = input;
  else
    layout.nhwcInput = true;
  return callConv(b, op, x, weights, y, 1, target, layout);
}

LogicalResult callPointwiseConv(OpBuilder &b, linalg::LinalgOp op,
                                const Target &target);

LogicalResult rewriteConv(OpBuilder &b, linalg::LinalgOp op,
                          const Target &target) {
  if (isa<linalg::Conv2DNchwFchwOp>(op) &&
      succeeded(callPointwiseConv(b, op, target)))
    return success();
  if (succeeded(rewriteChannelsLastConv(b, op, target)))
    return success();
  if (isa<linalg::Conv2DNchwFchwOp>(op))
    return callConv(b, op, op.getDpsInputOperand(0)->get(),
                    op.getDpsInputOperand(1)->get(),
                    op.getDpsInitOperand(0)->get(), 1, target);
  if (isa<linalg::Conv2DNgchwGfchwOp>(op)) {
    // N G C H W * G F C kh kw -> N G F H W, as N (G C) H W * (G F) C kh kw.
    Value x = op.getDpsInputOperand(0)->get();
    Value w = op.getDpsInputOperand(1)->get();
    Value y = op.getDpsInitOperand(0)->get();
    int64_t groups = cast<MemRefType>(w.getType()).getDimSize(0);
    b.setInsertionPoint(op);
    return callConv(b, op, getUngrouped(b, op.getLoc(), x, 1),
                    getUngrouped(b, op.getLoc(), w, 0),
                    getUngrouped(b, op.getLoc(), y, 1), groups, target);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// A contraction the library takes: C[batch..., m, n] += op(A) op(B) with
/// the batch dimensions leading C and each of A and B in the same order,
/// or absent from one of them, which is then read again for every batch.
struct Product {
  bool transA = false, transB = false;
  /// The half-precision type of A and B (null: f32) when they go into an
  /// f32 C (a half-precision product accumulating in f32, GraphToLinalg's
  /// getAccumulatorType): placer_cpu_matmul_bf16, placer_gpu_matmul_bf16
  /// or placer_gpu_matmul_f16.
  Type half;
};

/// Whether `map` reads (batch..., first, second) with every batch dimension
/// present, or (first, second) alone (a broadcast operand). Unit dimensions
/// read at 0 count as absent, should a caller's map have them.
bool isBatchThen(AffineMap map, ArrayRef<unsigned> batch, unsigned first,
                 unsigned second) {
  unsigned n = map.getNumResults();
  if (n < 2 || (n != 2 && n != batch.size() + 2))
    return false;
  MLIRContext *context = map.getContext();
  unsigned leading = n - 2;
  bool all = true, none = true;
  for (unsigned i = 0; i < leading; ++i) {
    AffineExpr expr = map.getResult(i);
    all = all && expr == getAffineDimExpr(batch[i], context);
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    none = none && constant && constant.getValue() == 0;
  }
  return (all || none) &&
         map.getResult(leading) == getAffineDimExpr(first, context) &&
         map.getResult(leading + 1) == getAffineDimExpr(second, context);
}

/// The product `op` is by its indexing maps and element types, whatever its
/// operands' layouts: f32 throughout, or A and B both of a half-precision
/// type the target's library takes (bf16 on a CPU, bf16 and f16 on a GPU)
/// into an f32 C.
std::optional<Product> matchProductMaps(linalg::LinalgOp op,
                                        const Target &target) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  // The dimensions from C's map, (batch..., m, n), and the one reduction
  // k: a batch dimension missing from A or B would make inferred
  // contraction dimensions call it an m or n.
  AffineMap cMap = op.getIndexingMapsArray()[2];
  unsigned loops = op.getNumLoops();
  if (cMap.getNumResults() < 2 || cMap.getNumResults() + 1 != loops ||
      !cMap.isProjectedPermutation() || op.getNumReductionLoops() != 1)
    return std::nullopt;
  SmallVector<unsigned> batch;
  for (unsigned i = 0; i + 2 < cMap.getNumResults(); ++i)
    batch.push_back(cMap.getDimPosition(i));
  unsigned m = cMap.getDimPosition(cMap.getNumResults() - 2);
  unsigned n = cMap.getDimPosition(cMap.getNumResults() - 1);
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned k = reductions.front();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
  }
  Product product;
  Type a = getElementTypeOrSelf(op->getOperand(0));
  Type c = getElementTypeOrSelf(op->getOperand(2));
  bool half = a.isBF16() || (target.gpu && a.isF16());
  if (!c.isF32() || getElementTypeOrSelf(op->getOperand(1)) != a ||
      !(a.isF32() || half))
    return std::nullopt;
  if (half)
    product.half = a;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (isBatchThen(maps[0], batch, k, m))
    product.transA = true;
  else if (!isBatchThen(maps[0], batch, m, k))
    return std::nullopt;
  if (isBatchThen(maps[1], batch, n, k))
    product.transB = true;
  else if (!isBatchThen(maps[1], batch, k, n))
    return std::nullopt;
  return product;
}

/// The product `op` is, on contiguous buffers (whose batch dimensions
/// collapse into one).
std::optional<Product> matchProduct(linalg::LinalgOp op, const Target &target) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity())
      return std::nullopt;
  }
  return matchProductMaps(op, target);
}

/// `memref` as [batch, rows, cols]: leading dimensions collapsed into one,
/// or a unit one added (a broadcast operand: the call reads it for every
/// batch).
Value asBatched(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return memref::ExpandShapeOp::create(
        b, loc,
        MemRefType::get({1, type.getDimSize(0), type.getDimSize(1)},
                        type.getElementType()),
        memref, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  if (rank == 3)
    return memref;
  ReassociationIndices leading;
  for (int64_t i = 0; i < rank - 2; ++i)
    leading.push_back(i);
  return memref::CollapseShapeOp::create(
      b, loc, memref,
      SmallVector<ReassociationIndices>{leading, {rank - 2}, {rank - 1}});
}

/// C[batch, m, n] (+)= op(A) op(B) as a library call on [batch, rows,
/// cols] views; a zero-filled C is overwritten (its fill goes) rather than
/// accumulated into.
void callProduct(OpBuilder &b, Operation *op, Value a, Value bMatrix, Value c,
                 Value cRoot, Product product, const Target &target) {
  Operation *zeroFill = findZeroFill(cRoot, op);
  Location loc = op->getLoc();
  MLIRContext *context = b.getContext();
  Type any3 = getAnyMemRef(context, 3), i32Type = b.getI32Type();
  Type operand3 = product.half ? getAnyMemRef(context, 3, product.half) : any3;
  SmallVector<Type> types = {operand3, operand3, any3};
  types.append(target.gpu ? 4 : 3, i32Type);
  auto type = FunctionType::get(context, types, {});
  StringRef name = target.matmul();
  if (product.half)
    name = !target.gpu             ? kCpuMatmulBf16Function
           : product.half.isBF16() ? kGpuMatmulBf16Function
                                   : kGpuMatmulF16Function;
  func::FuncOp callee = declare(op->getParentOfType<ModuleOp>(), name, type);
  SmallVector<Value> args = {castToAny(b, loc, a), castToAny(b, loc, bMatrix),
                             castToAny(b, loc, c)};
  args.push_back(i32(b, loc, product.transA));
  args.push_back(i32(b, loc, product.transB));
  args.push_back(i32(b, loc, zeroFill == nullptr));
  if (target.gpu)
    args.push_back(i32(b, loc, target.tf32));
  func::CallOp::create(b, loc, callee, args);
  op->erase();
  if (zeroFill)
    zeroFill->erase();
}

/// A contiguous copy of `view` around `op`: copied in before it, back after
/// it for an output, freed after it.
Value copyToContiguous(OpBuilder &b, Operation *op, Value view, bool output) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(view.getType());
  b.setInsertionPoint(op);
  Value copy = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()));
  memref::CopyOp::create(b, loc, view, copy);
  b.setInsertionPointAfter(op);
  if (output)
    memref::CopyOp::create(b, loc, copy, view);
  memref::DeallocOp::create(b, loc, copy);
  return copy;
}

LogicalResult rewriteProduct(OpBuilder &b, linalg::LinalgOp op,
                             const Target &target) {
  // cuBLAS reads device buffers as they are; on a CPU, a strided view (a
  // slice of a fused projection, a transposed weight) is copied into a
  // contiguous buffer: the copy costs a pass over the operand, the loops
  // that would otherwise run it many times the product.
  std::optional<Product> product =
      target.gpu ? matchProduct(op, target) : matchProductMaps(op, target);
  if (!product)
    return failure();
  if (!target.gpu)
    for (OpOperand &operand : op->getOpOperands())
      if (!cast<MemRefType>(operand.get().getType()).getLayout().isIdentity())
        operand.set(copyToContiguous(b, op, operand.get(),
                                     op.isDpsInit(&operand)));
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<Value> views;
  for (OpOperand &operand : op->getOpOperands())
    views.push_back(asBatched(b, loc, operand.get()));
  callProduct(b, op, views[0], views[1], views[2],
              op.getDpsInitOperand(0)->get(), *product, target);
  return success();
}

/// A 1x1 convolution with unit strides and no padding is a product per
/// image, Y[n] (K x HW) = W (K x C) X[n] (C x HW), on the NCHW buffers as
/// they are. On a GPU: cuBLAS's SGEMM kernels rather than the fp32
/// convolution kernels of cuDNN's legacy API (ResNet-50's bottlenecks and
/// MobileNet-V2's expansions and projections are such convolutions: with
/// this and split reductions, ResNet-50 at batch 32 went from 16.0 to 13.4
/// ms a run on an H200, docs/Execution.md). On a CPU: no layout reorders
/// around the call, which oneDNN's convolutions need.
LogicalResult callPointwiseConv(OpBuilder &b, linalg::LinalgOp op,
                                const Target &target) {
  Value x = op.getDpsInputOperand(0)->get();
  Value w = op.getDpsInputOperand(1)->get();
  Value y = op.getDpsInitOperand(0)->get();
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto xType = dyn_cast<MemRefType>(x.getType());
  auto wType = dyn_cast<MemRefType>(w.getType());
  auto yType = dyn_cast<MemRefType>(y.getType());
  if (!strides || !xType || !wType || !yType)
    return failure();
  for (MemRefType type : {xType, wType, yType})
    if (!type.getElementType().isF32() || !type.getLayout().isIdentity() ||
        !type.hasStaticShape())
      return failure();
  // A padded input keeps cuDNN (the margins are output too).
  if (wType.getDimSize(2) != 1 || wType.getDimSize(3) != 1 ||
      getElement(strides, 0) != 1 || getElement(strides, 1) != 1 ||
      xType.getDimSize(2) != yType.getDimSize(2) ||
      xType.getDimSize(3) != yType.getDimSize(3))
    return failure();
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  using Indices = SmallVector<ReassociationIndices>;
  // W [K, C, 1, 1] -> [1, K, C]: one matrix read for every image.
  Value weights =
      memref::CollapseShapeOp::create(b, loc, w, Indices{{0}, {1, 2, 3}});
  weights = memref::ExpandShapeOp::create(
      b, loc,
      MemRefType::get({1, wType.getDimSize(0), wType.getDimSize(1)},
                      b.getF32Type()),
      weights, Indices{{0, 1}, {2}});
  // X [N, C, H, W] -> [N, C, HW], Y likewise.
  Value images =
      memref::CollapseShapeOp::create(b, loc, x, Indices{{0}, {1}, {2, 3}});
  Value output =
      memref::CollapseShapeOp::create(b, loc, y, Indices{{0}, {1}, {2, 3}});
  callProduct(b, op, weights, images, output, y, Product{}, target);
  return success();
}

} // namespace

bool placer::isLibraryContraction(linalg::LinalgOp op) {
  return matchProductMaps(op, Target{}).has_value();
}

bool placer::isReadOnlyGpuLibraryOperand(CallOpInterface call,
                                         OpOperand &operand) {
  // Each takes (inputs..., output, inputs..., scalars...): the output is
  // operand 2.
  auto callee = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!callee ||
      !llvm::is_contained({kGpuConvFunction, kGpuMatmulFunction,
                           kGpuMatmulBf16Function, kGpuMatmulF16Function,
                           kGpuConvBf16Function, kGpuConvF16Function,
                           kGpuConvBiasReluFunction},
                          callee.getLeafReference()))
    return false;
  return operand.getOperandNumber() != 2;
}

namespace {

//===----------------------------------------------------------------------===//
// Convolution epilogues
//===----------------------------------------------------------------------===//

/// The elementwise work after a convolution as placer_epilogue_step
/// triples (include/placer/Runtime/CpuLibraryCalls.h), and the generic's
/// operands that its bias and residual steps read.
struct Epilogue {
  SmallVector<float> steps;
  Value bias, residual;
};

std::optional<float> getFloatConstant(Value value) {
  FloatAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return static_cast<float>(attr.getValueAsDouble());
}

/// Whether `op` is `Kind(value, c)` or `Kind(c, value)` with c a float
/// constant, which goes to `constant`.
template <typename Kind>
bool isWithConstant(Operation *op, Value value, float &constant) {
  if (!isa<Kind>(op))
    return false;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value other = lhs == value ? rhs : rhs == value ? lhs : Value();
  std::optional<float> c = other ? getFloatConstant(other) : std::nullopt;
  if (c)
    constant = *c;
  return c.has_value();
}

/// The five ops of HardSwish (placer-lower-graph-to-linalg's
/// x * min(max(x / 6 + 1/2, 0), 1)) on `x`, starting at `ops[i]`.
bool isHardSwish(ArrayRef<Operation *> ops, size_t i, Value x) {
  if (i + 5 > ops.size())
    return false;
  float scale, shift, low, high;
  Operation *last = ops[i + 4];
  if (!isWithConstant<arith::MulFOp>(ops[i], x, scale) ||
      !isWithConstant<arith::AddFOp>(ops[i + 1], ops[i]->getResult(0), shift) ||
      !isWithConstant<arith::MaximumFOp>(ops[i + 2], ops[i + 1]->getResult(0),
                                         low) ||
      !isWithConstant<arith::MinimumFOp>(ops[i + 3], ops[i + 2]->getResult(0),
                                         high) ||
      !isa<arith::MulFOp>(last) ||
      !llvm::is_contained(last->getOperands(), x) ||
      !llvm::is_contained(last->getOperands(), ops[i + 3]->getResult(0)))
    return false;
  for (size_t k = i; k < i + 4; ++k)
    if (!ops[k]->getResult(0).hasOneUse())
      return false;
  return scale == static_cast<float>(1.0 / 6) && shift == 0.5f && low == 0.0f &&
         high == 1.0f;
}

/// Whether `x` is the float constant `c`.
bool isFloatConstant(Value x, float c) {
  std::optional<float> value = getFloatConstant(x);
  return value && *value == c;
}

/// The four ops of a sigmoid, 1 / (1 + exp(-x)), as GraphToLinalg lowers
/// Sigmoid, on `x` starting at `ops[i]`; each result read only by the next.
bool isSigmoid(ArrayRef<Operation *> ops, size_t i, Value x) {
  if (i + 4 > ops.size())
    return false;
  auto neg = dyn_cast<arith::NegFOp>(ops[i]);
  auto exp = dyn_cast<math::ExpOp>(ops[i + 1]);
  auto add = dyn_cast<arith::AddFOp>(ops[i + 2]);
  auto div = dyn_cast<arith::DivFOp>(ops[i + 3]);
  if (!neg || !exp || !add || !div || neg.getOperand() != x ||
      exp.getOperand() != neg.getResult() ||
      !llvm::is_contained(add->getOperands(), exp.getResult()) ||
      !isFloatConstant(add.getLhs() == exp.getResult() ? add.getRhs()
                                                       : add.getLhs(),
                       1.0f) ||
      !isFloatConstant(div.getLhs(), 1.0f) || div.getRhs() != add.getResult())
    return false;
  for (size_t k = i; k < i + 3; ++k)
    if (!ops[k]->getResult(0).hasOneUse())
      return false;
  return true;
}

/// SiLU (Swish), x * sigmoid(x): the sigmoid's four ops at `ops[i]` and
/// the product.
bool isSwish(ArrayRef<Operation *> ops, size_t i, Value x) {
  if (i + 5 > ops.size() || !isSigmoid(ops, i, x) ||
      !ops[i + 3]->getResult(0).hasOneUse())
    return false;
  auto mul = dyn_cast<arith::MulFOp>(ops[i + 4]);
  Value sigmoid = ops[i + 3]->getResult(0);
  return mul && ((mul.getLhs() == x && mul.getRhs() == sigmoid) ||
                 (mul.getLhs() == sigmoid && mul.getRhs() == x));
}

/// The steps of `generic`'s body on its input `convInput` (the
/// convolution's output, identity-indexed like the generic's output): one
/// chain of ops, each on the previous one's result and a constant, the
/// bias (a 1-D input indexed by `channel`, first) or the residual (an
/// identity-indexed input of another buffer than `output`).
std::optional<Epilogue> matchEpilogue(linalg::GenericOp generic,
                                      OpOperand *convInput, unsigned channel,
                                      Value output) {
  Block &body = generic.getRegion().front();
  MLIRContext *context = generic.getContext();
  AffineMap biasMap =
      AffineMap::get(4, 0, getAffineDimExpr(channel, context), context);
  // The input a block argument reads, if `v` is one.
  auto inputOf = [&](Value v) -> OpOperand * {
    auto argument = dyn_cast<BlockArgument>(v);
    if (!argument || argument.getOwner() != &body ||
        argument.getArgNumber() >= generic.getNumDpsInputs())
      return nullptr;
    return generic.getDpsInputOperand(argument.getArgNumber());
  };
  auto isBias = [&](Value v) {
    OpOperand *operand = inputOf(v);
    auto type = operand ? dyn_cast<ShapedType>(operand->get().getType())
                        : ShapedType();
    return type && type.getRank() == 1 && isF32(operand->get()) &&
                   generic.getMatchingIndexingMap(operand) == biasMap
               ? operand->get()
               : Value();
  };
  auto isResidual = [&](Value v) {
    OpOperand *operand = inputOf(v);
    auto type = operand ? dyn_cast<ShapedType>(operand->get().getType())
                        : ShapedType();
    return type && operand != convInput && isF32(operand->get()) &&
                   type.getShape() ==
                       cast<ShapedType>(output.getType()).getShape() &&
                   generic.getMatchingIndexingMap(operand).isIdentity() &&
                   getRoot(operand->get()) != getRoot(output)
               ? operand->get()
               : Value();
  };

  Epilogue epilogue;
  auto step = [&](placer_epilogue_step kind, float alpha, float beta) {
    // x * 1 + 0 (a zero bias folded to a constant) is no step.
    if (kind != PLACER_EPILOGUE_LINEAR || alpha != 1.0f || beta != 0.0f)
      epilogue.steps.append({static_cast<float>(kind), alpha, beta});
  };
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  Value current = body.getArgument(convInput->getOperandNumber());
  for (size_t i = 0; i < ops.size(); ++i) {
    Operation *op = ops[i];
    if (isHardSwish(ops, i, current)) {
      step(PLACER_EPILOGUE_HARDSWISH, 0, 0);
      i += 4;
      current = ops[i]->getResult(0);
      continue;
    }
    // SiLU before a lone sigmoid: its first four ops are one.
    if (isSwish(ops, i, current)) {
      step(PLACER_EPILOGUE_SWISH, 0, 0);
      i += 4;
      current = ops[i]->getResult(0);
      continue;
    }
    if (isSigmoid(ops, i, current) && current.hasOneUse()) {
      step(PLACER_EPILOGUE_SIGMOID, 0, 0);
      i += 3;
      current = ops[i]->getResult(0);
      continue;
    }
    if (!isa<BlockArgument>(current) && !current.hasOneUse())
      return std::nullopt;
    if (op->getNumOperands() != 2 ||
        !llvm::is_contained(op->getOperands(), current))
      return std::nullopt;
    Value other =
        op->getOperand(0) == current ? op->getOperand(1) : op->getOperand(0);
    float c = 0;
    if (isa<arith::AddFOp>(op) && epilogue.steps.empty() && isBias(other)) {
      epilogue.bias = isBias(other);
      step(PLACER_EPILOGUE_BIAS, 0, 0);
    } else if (isa<arith::AddFOp>(op) && !epilogue.residual &&
               isResidual(other)) {
      epilogue.residual = isResidual(other);
      step(PLACER_EPILOGUE_RESIDUAL, 0, 0);
    } else if (isWithConstant<arith::AddFOp>(op, current, c)) {
      step(PLACER_EPILOGUE_LINEAR, 1, c);
    } else if (isWithConstant<arith::MulFOp>(op, current, c)) {
      step(PLACER_EPILOGUE_LINEAR, c, 0);
    } else if (isa<arith::SubFOp>(op) && op->getOperand(0) == current &&
               isWithConstant<arith::SubFOp>(op, current, c)) {
      step(PLACER_EPILOGUE_LINEAR, 1, -c);
    } else if (isWithConstant<arith::MaximumFOp>(op, current, c) ||
               isWithConstant<arith::MaxNumFOp>(op, current, c)) {
      step(PLACER_EPILOGUE_CLIP, c, INFINITY);
    } else if (isWithConstant<arith::MinimumFOp>(op, current, c) ||
               isWithConstant<arith::MinNumFOp>(op, current, c)) {
      // max then min: one clamp.
      size_t n = epilogue.steps.size();
      if (n >= 3 && epilogue.steps[n - 3] == PLACER_EPILOGUE_CLIP &&
          epilogue.steps[n - 1] == INFINITY && epilogue.steps[n - 2] <= c)
        epilogue.steps[n - 1] = c;
      else
        step(PLACER_EPILOGUE_CLIP, -INFINITY, c);
    } else {
      return std::nullopt;
    }
    current = op->getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != current)
    return std::nullopt;
  return epilogue;
}

/// The ops that use `buffer` through views: its only reader besides
/// `call`, deallocations, and the views themselves (users first).
struct BufferUses {
  OpOperand *reader = nullptr;
  SmallVector<Operation *> views, deallocs;
};

std::optional<BufferUses> collectUses(Value buffer, Operation *call) {
  BufferUses uses;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == call)
        continue;
      if (isa<memref::DeallocOp>(user)) {
        uses.deallocs.push_back(user);
      } else if (isa<ViewLikeOpInterface, memref::TransposeOp>(user) &&
                 user->getNumResults() == 1) {
        uses.views.push_back(user);
        worklist.push_back(user->getResult(0));
      } else if (!uses.reader) {
        uses.reader = &use;
      } else {
        return std::nullopt;
      }
    }
  }
  // Views were found defs first: erase them users first.
  std::reverse(uses.views.begin(), uses.views.end());
  return uses;
}

/// The constant tables of a module's epilogues, one global per distinct
/// table.
struct StepTables {
  explicit StepTables(ModuleOp module) : symbols(module) {}
  SymbolTable symbols;
  std::map<SmallVector<float>, memref::GlobalOp> globals;

  /// `steps` as a memref of any layout.
  Value get(OpBuilder &b, Location loc, ArrayRef<float> steps) {
    auto type =
        MemRefType::get({static_cast<int64_t>(steps.size())}, b.getF32Type());
    memref::GlobalOp &global = globals[SmallVector<float>(steps)];
    if (!global) {
      OpBuilder detached(b.getContext());
      auto tensorType = RankedTensorType::get(type.getShape(), b.getF32Type());
      global = memref::GlobalOp::create(
          detached, loc, "__placer_conv_epilogue", b.getStringAttr("private"),
          type, DenseElementsAttr::get(tensorType, steps), /*constant=*/true,
          /*alignment=*/nullptr);
      // At the module's start, renamed where the name is taken.
      ModuleOp module = cast<ModuleOp>(symbols.getOp());
      symbols.insert(global, module.getBody()->begin());
    }
    Value table =
        memref::GetGlobalOp::create(b, loc, type, global.getSymName());
    return memref::CastOp::create(b, loc, getAnyMemRef(b.getContext(), 1),
                                  table);
  }
};

/// Whether `steps` are what cuDNN's fused convolution computes: a bias,
/// then optionally the residual, then ReLU; `withResidual` says which.
bool isBiasResidualRelu(ArrayRef<float> steps, bool &withResidual) {
  auto isStep = [&](size_t i, placer_epilogue_step kind, float alpha,
                    float beta) {
    return steps[3 * i] == kind && steps[3 * i + 1] == alpha &&
           steps[3 * i + 2] == beta;
  };
  size_t count = steps.size() / 3;
  withResidual = count == 3 && isStep(1, PLACER_EPILOGUE_RESIDUAL, 0, 0);
  return (count == 2 || withResidual) &&
         isStep(0, PLACER_EPILOGUE_BIAS, 0, 0) &&
         isStep(count - 1, PLACER_EPILOGUE_CLIP, 0, INFINITY);
}

/// Folds the elementwise op reading an overwritten convolution's output
/// into the call, which then writes that op's output: the output is
/// written once, not written and read again. On a CPU any chain of steps
/// (placer_cpu_conv2d_epilogue_f32); on a GPU bias (+ residual) + ReLU
/// (placer_gpu_conv2d_bias_relu_f32).
LogicalResult fuseEpilogue(OpBuilder &b, func::CallOp call, StepTables &tables,
                           const Target &target) {
  // (x, w, y, 7 sizes, accumulate, constant weights on a CPU / tf32 on a GPU)
  if (call.getNumOperands() != 12 ||
      !matchPattern(call.getOperand(10), m_Zero()))
    return failure();
  Value x = call.getOperand(0), w = call.getOperand(1);
  Value yView = call.getOperand(2);
  auto alloc = getRoot(yView).getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return failure();
  std::optional<BufferUses> uses = collectUses(alloc, call);
  if (!uses || !uses->reader)
    return failure();
  auto generic = dyn_cast<linalg::GenericOp>(uses->reader->getOwner());
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic->getBlock() != call->getBlock() ||
      !call->isBeforeInBlock(generic) || generic.getNumDpsInits() != 1 ||
      !generic.isDpsInput(uses->reader) ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(uses->reader).isIdentity() ||
      !generic.getIndexingMapsArray().back().isIdentity() ||
      !generic.getRegion().front().getArguments().back().use_empty())
    return failure();
  Value read = uses->reader->get();
  Value output = generic.getDpsInitOperand(0)->get();
  auto outputType = dyn_cast<MemRefType>(output.getType());
  if (!outputType || outputType.getRank() != 4 || !isF32(output) ||
      getRoot(output) == getRoot(x))
    return failure();

  // The call's output is the read buffer seen through transposes and casts
  // (the N C H W view of an NHWC buffer): the same views of the generic's
  // output, and where the channels are in it.
  SmallVector<memref::TransposeOp> transposes;
  unsigned channel = 1;
  for (Value v = yView; v != read;) {
    Operation *def = v.getDefiningOp();
    Operation *readDef = read.getDefiningOp();
    if (def && readDef &&
        OperationEquivalence::isEquivalentTo(
            def, readDef, OperationEquivalence::IgnoreLocations))
      break;
    if (auto transpose = dyn_cast_if_present<memref::TransposeOp>(def)) {
      channel = transpose.getPermutation().getDimPosition(channel);
      transposes.push_back(transpose);
    } else if (!isa_and_present<memref::CastOp>(def)) {
      return failure();
    }
    v = def->getOperand(0);
  }
  std::optional<Epilogue> epilogue =
      matchEpilogue(generic, uses->reader, channel, output);
  // The call moves to the generic: nothing between may change its inputs,
  // which are freed after it.
  if (!epilogue)
    return failure();
  bool withResidual = false;
  if (target.gpu && !isBiasResidualRelu(epilogue->steps, withResidual))
    return failure();
  sinkDeallocsPast(call, generic, getRoot(x));
  sinkDeallocsPast(call, generic, getRoot(w));
  if (writtenBetween(call, generic, getRoot(x)) ||
      writtenBetween(call, generic, getRoot(w)))
    return failure();

  Location loc = call.getLoc();
  b.setInsertionPoint(generic);
  auto viewed = [&](Value buffer) {
    for (memref::TransposeOp transpose : llvm::reverse(transposes))
      buffer = memref::TransposeOp::create(
          b, loc, buffer, AffineMapAttr::get(transpose.getPermutation()));
    return castToAny(b, loc, buffer);
  };
  MLIRContext *context = b.getContext();
  Value y = viewed(output);
  Type any4 = getAnyMemRef(context, 4), any1 = getAnyMemRef(context, 1);
  if (target.gpu) {
    // (x, w, y, bias, residual or y, 7 sizes, with_residual, tf32)
    Value bias = memref::CastOp::create(b, loc, any1, epilogue->bias);
    Value residual = withResidual ? viewed(epilogue->residual) : y;
    SmallVector<Type> types = {any4, any4, any4, any1, any4};
    types.append(7, b.getI64Type());
    types.append(2, b.getI32Type());
    func::FuncOp callee =
        declare(call->getParentOfType<ModuleOp>(), kGpuConvBiasReluFunction,
                FunctionType::get(context, types, {}));
    SmallVector<Value> args = {x, w, y, bias, residual};
    llvm::append_range(args, call.getOperands().slice(3, 7));
    args.push_back(i32(b, loc, withResidual));
    args.push_back(call.getOperand(11));
    func::CallOp::create(b, loc, callee, args);
  } else {
    Value table = tables.get(b, loc, epilogue->steps);
    // Buffers no step reads stand in for an absent bias or residual.
    Value bias =
        epilogue->bias
            ? memref::CastOp::create(b, loc, any1, epilogue->bias).getResult()
            : table;
    Value residual = epilogue->residual ? viewed(epilogue->residual) : y;
    SmallVector<Type> types = {any4, any4, any4, any1, any4, any1};
    types.append(7, b.getI64Type());
    types.push_back(b.getI32Type());
    func::FuncOp callee =
        declare(call->getParentOfType<ModuleOp>(), kCpuConvEpilogueFunction,
                FunctionType::get(context, types, {}));
    SmallVector<Value> args = {x, w, y, bias, residual, table};
    llvm::append_range(args, call.getOperands().slice(3, 7));
    args.push_back(call.getOperand(11));
    func::CallOp::create(b, loc, callee, args);
  }

  generic->erase();
  call->erase();
  for (Operation *op : llvm::concat<Operation *>(uses->deallocs, uses->views))
    if (op->use_empty())
      op->erase();
  if (alloc->use_empty())
    alloc->erase();
  return success();
}

} // namespace

bool placer::isConvEpilogue(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 4 || op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!op.getMatchingIndexingMap(input).isIdentity())
      continue;
    Value result = input->get();
    if (auto collapse = result.getDefiningOp<tensor::CollapseShapeOp>())
      result = collapse.getSrc(); // a grouped convolution's
    Operation *conv = result.getDefiningOp();
    std::optional<unsigned> channel;
    if (isa_and_present<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwgcGfhwcOp>(
            conv))
      channel = 3;
    else if (isa_and_present<linalg::Conv2DNchwFchwOp,
                             linalg::Conv2DNgchwGfchwOp>(conv))
      channel = 1;
    if (channel &&
        matchEpilogue(op, input, *channel, op.getDpsInitOperand(0)->get()))
      return true;
  }
  return false;
}

namespace {

void fuseEpilogues(ModuleOp module, const Target &target) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == target.conv())
      calls.push_back(call);
  });
  OpBuilder b(module.getContext());
  StepTables tables(module);
  for (func::CallOp call : calls)
    (void)fuseEpilogue(b, call, tables, target);
}

void rewriteLibraryOps(ModuleOp module, const Target &target) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics())
      ops.push_back(op);
  });
  OpBuilder b(module.getContext());
  for (linalg::LinalgOp op : ops)
    if (failed(rewriteConv(b, op, target)))
      (void)rewriteProduct(b, op, target);
  eraseUnreadCopies(module);
}

struct GpuLibraryCallsPass
    : placer::impl::GpuLibraryCallsBase<GpuLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    Target target;
    target.gpu = true;
    target.tf32 = tf32;
    rewriteLibraryOps(getOperation(), target);
    if (epilogues)
      fuseEpilogues(getOperation(), target);
  }
};

struct CpuLibraryCallsPass
    : placer::impl::CpuLibraryCallsBase<CpuLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    rewriteLibraryOps(getOperation(), {});
    if (epilogues)
      fuseEpilogues(getOperation(), {});
  }
};

} // namespace
