//===- Folders.cpp - The import-time folders of the op registry ----------===//
//
// A tiny interpreter for the ops that compute shapes in exported models
// (Shape -> Gather -> Range -> Slice ...), used only to make types static:
// each op's registry entry names its folder (OpEntry::fold), and the importer
// runs it on the values it knows (lib/Import/ShapeFolding.cpp). Every tensor
// handled is small (at most kMaxElements); anything else is left to ONNX's
// own inference. Plain C++ over KnownTensor: no ONNX types.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

using namespace placer;

namespace {

namespace dtype = graph::onnx_dtype;

constexpr int64_t kMaxElements = kMaxKnownElements;

using Dims = std::vector<int64_t>;

/// The element count; the largest int64 when it does not fit (a hostile
/// model's dims: callers compare it against kMaxElements).
int64_t product(const Dims &dims) {
  if (llvm::is_contained(dims, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(n, d, &n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

bool isFloatType(int32_t type) {
  return type == dtype::kFloat || type == dtype::kDouble ||
         type == dtype::kFloat16 || type == dtype::kBfloat16;
}

KnownTensor makeInts(int32_t type, Dims dims, std::vector<int64_t> values) {
  KnownTensor t;
  t.dataType = type;
  t.dims = std::move(dims);
  t.ints = std::move(values);
  return t;
}

double valueAt(const KnownTensor &t, int64_t i) {
  return t.isFloat() ? t.floats[i] : static_cast<double>(t.ints[i]);
}

/// Converts element values to `type`, as Cast does.
KnownTensor castTo(const KnownTensor &in, int32_t type) {
  KnownTensor out;
  out.dataType = type;
  out.dims = in.dims;
  int64_t n = in.numElements();
  if (isFloatType(type)) {
    for (int64_t i = 0; i < n; ++i)
      out.floats.push_back(valueAt(in, i));
  } else if (type == dtype::kBool) {
    for (int64_t i = 0; i < n; ++i)
      out.ints.push_back(valueAt(in, i) != 0);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out.ints.push_back(in.isFloat() ? static_cast<int64_t>(in.floats[i])
                                      : in.ints[i]);
  }
  return out;
}

/// Numpy-style broadcast of `a` and `b`; nothing when incompatible.
std::optional<Dims> broadcastShape(const Dims &a, const Dims &b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Linear index into a tensor of `dims` broadcast to `outDims`.
int64_t broadcastIndex(const Dims &dims, const Dims &outDims, int64_t linear) {
  int64_t index = 0, stride = 1;
  for (int64_t axis = static_cast<int64_t>(outDims.size()) - 1; axis >= 0;
       --axis) {
    int64_t coord = linear % outDims[axis];
    linear /= outDims[axis];
    int64_t inAxis = axis - static_cast<int64_t>(outDims.size() - dims.size());
    if (inAxis < 0)
      continue;
    int64_t d = dims[inAxis];
    index += (d == 1 ? 0 : coord) * stride;
    stride *= d;
  }
  return index;
}

/// An elementwise op over up to three broadcast inputs. `resultType` 0 keeps
/// the type of the first input.
std::optional<KnownTensor>
elementwise(const std::vector<const KnownTensor *> &in, int32_t resultType,
            const std::function<double(const std::vector<double> &)> &fn) {
  Dims dims = in[0]->dims;
  for (size_t i = 1; i < in.size(); ++i) {
    auto b = broadcastShape(dims, in[i]->dims);
    if (!b)
      return std::nullopt;
    dims = *b;
  }
  int64_t n = product(dims);
  if (n > kMaxElements)
    return std::nullopt;
  KnownTensor out;
  out.dataType = resultType ? resultType : in[0]->dataType;
  out.dims = dims;
  std::vector<double> args(in.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < in.size(); ++k)
      args[k] = valueAt(*in[k], broadcastIndex(in[k]->dims, dims, i));
    double v = fn(args);
    if (out.isFloat())
      out.floats.push_back(v);
    else
      out.ints.push_back(static_cast<int64_t>(v));
  }
  return out;
}

/// Integer binary ops must stay exact past 2^53 (Slice ends of INT64_MAX).
std::optional<KnownTensor> integerBinary(
    const KnownTensor &a, const KnownTensor &b,
    const std::function<std::optional<int64_t>(int64_t, int64_t)> &fn) {
  auto dims = broadcastShape(a.dims, b.dims);
  if (!dims || product(*dims) > kMaxElements)
    return std::nullopt;
  KnownTensor out;
  out.dataType = a.dataType;
  out.dims = *dims;
  for (int64_t i = 0, n = product(*dims); i < n; ++i) {
    auto v = fn(a.ints[broadcastIndex(a.dims, *dims, i)],
                b.ints[broadcastIndex(b.dims, *dims, i)]);
    if (!v)
      return std::nullopt;
    out.ints.push_back(*v);
  }
  return out;
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

std::optional<KnownTensor> gather(const KnownTensor &data,
                                  const KnownTensor &indices, int64_t axis) {
  int64_t rank = data.dims.size();
  axis = normalizeAxis(axis, rank);
  if (axis < 0 || axis >= rank || indices.isFloat())
    return std::nullopt;
  int64_t outer = 1, inner = 1, extent = data.dims[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= data.dims[i];
  for (int64_t i = axis + 1; i < rank; ++i)
    inner *= data.dims[i];
  Dims dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (product(dims) > kMaxElements)
    return std::nullopt;
  KnownTensor out;
  out.dataType = data.dataType;
  out.dims = dims;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t idx : indices.ints) {
      if (idx < 0)
        idx += extent;
      if (idx < 0 || idx >= extent)
        return std::nullopt;
      for (int64_t i = 0; i < inner; ++i) {
        int64_t src = (o * extent + idx) * inner + i;
        if (data.isFloat())
          out.floats.push_back(data.floats[src]);
        else
          out.ints.push_back(data.ints[src]);
      }
    }
  return out;
}

/// Slice along axis 0 (of a rank-1 tensor, or of the rows of a higher one:
/// exported pad computations reverse the rows of an [n, 2] reshape).
std::optional<KnownTensor> slice1d(const KnownTensor &data, int64_t start,
                                   int64_t end, int64_t step) {
  if (data.dims.empty() || step == 0)
    return std::nullopt;
  int64_t n = data.dims[0];
  int64_t row = n == 0 ? 0 : data.numElements() / n;
  auto clampIndex = [&](int64_t v) {
    if (v < 0)
      v += n;
    if (step > 0)
      return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  start = clampIndex(start);
  end = clampIndex(end);
  KnownTensor out;
  out.dataType = data.dataType;
  int64_t rows = 0;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step, ++rows)
    for (int64_t j = i * row; j < (i + 1) * row; ++j) {
      if (data.isFloat())
        out.floats.push_back(data.floats[j]);
      else
        out.ints.push_back(data.ints[j]);
    }
  out.dims = data.dims;
  out.dims[0] = rows;
  return out;
}

std::optional<KnownTensor> reshaped(const KnownTensor &in, Dims dims) {
  KnownTensor out = in;
  out.dims = std::move(dims);
  return out;
}

//===----------------------------------------------------------------------===//
// Per-op folders
//===----------------------------------------------------------------------===//

std::optional<KnownTensor> foldShape(const FoldArgs &args) {
  if (args.shapes.empty() || !args.shapes[0])
    return std::nullopt;
  Dims values = folders::sliceShape(*args.shapes[0], args.attrs.getInt("start"),
                                    args.attrs.getInt("end"));
  return makeInts(dtype::kInt64, {static_cast<int64_t>(values.size())}, values);
}

std::optional<KnownTensor> foldSize(const FoldArgs &args) {
  if (args.shapes.empty() || !args.shapes[0])
    return std::nullopt;
  return makeInts(dtype::kInt64, {}, {product(*args.shapes[0])});
}

std::optional<KnownTensor> foldConstant(const FoldArgs &args) {
  if (args.attrs.has("value"))
    return args.attrs.getTensor("value");
  if (std::optional<int64_t> value = args.attrs.getInt("value_int"))
    return makeInts(dtype::kInt64, {}, {*value});
  if (std::optional<Dims> values = args.attrs.getInts("value_ints"))
    return makeInts(dtype::kInt64, {static_cast<int64_t>(values->size())},
                    *values);
  return std::nullopt;
}

std::optional<KnownTensor> foldConstantOfShape(const FoldArgs &args) {
  const KnownTensor &shape = args[0];
  if (shape.isFloat())
    return std::nullopt;
  int64_t n = product(shape.ints);
  if (n > kMaxElements)
    return std::nullopt;
  KnownTensor fill = makeInts(dtype::kFloat, {}, {});
  fill.floats = {0.0};
  if (std::optional<KnownTensor> t = args.attrs.getTensor("value");
      t && t->numElements() == 1)
    fill = *t;
  KnownTensor out = fill;
  out.dims = shape.ints;
  out.ints.assign(fill.isFloat() ? 0 : n, fill.isFloat() ? 0 : fill.ints[0]);
  out.floats.assign(fill.isFloat() ? n : 0,
                    fill.isFloat() ? fill.floats[0] : 0.0);
  return out;
}

template <double (*Fn)(double)>
std::optional<KnownTensor> foldUnary(const FoldArgs &args) {
  return elementwise({args.in[0]}, 0, [](auto &a) { return Fn(a[0]); });
}

double negate(double v) { return -v; }
double logicalNot(double v) { return v == 0; }
double absolute(double v) { return std::fabs(v); }
double squareRoot(double v) { return std::sqrt(v); }
double roundDown(double v) { return std::floor(v); }
double roundUp(double v) { return std::ceil(v); }

std::optional<KnownTensor> foldIdentity(const FoldArgs &args) {
  return args[0];
}

std::optional<KnownTensor> foldCast(const FoldArgs &args) {
  return castTo(args[0],
                static_cast<int32_t>(args.attrs.getInt("to").value_or(0)));
}

/// Squeeze/Unsqueeze axes: an attribute before opset 13, an input after.
std::optional<Dims> squeezeAxes(const FoldArgs &args) {
  if (std::optional<Dims> axes = args.attrs.getInts("axes"))
    return axes;
  if (args.known(1))
    return args[1].ints;
  return std::nullopt;
}

std::optional<KnownTensor> foldUnsqueeze(const FoldArgs &args) {
  std::optional<Dims> axes = squeezeAxes(args);
  if (!axes)
    return std::nullopt;
  const Dims &dims = args[0].dims;
  int64_t rank = dims.size() + axes->size();
  std::vector<bool> isNew(rank, false);
  for (int64_t a : *axes) {
    a = normalizeAxis(a, rank);
    if (a < 0 || a >= rank || isNew[a])
      return std::nullopt;
    isNew[a] = true;
  }
  Dims out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(isNew[i] ? 1 : dims[next++]);
  return reshaped(args[0], out);
}

std::optional<KnownTensor> foldSqueeze(const FoldArgs &args) {
  std::optional<Dims> axes = squeezeAxes(args);
  const Dims &dims = args[0].dims;
  Dims out;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    bool drop = axes ? llvm::any_of(*axes,
                                    [&](int64_t a) {
                                      return normalizeAxis(a, dims.size()) == i;
                                    })
                     : dims[i] == 1;
    if (!drop)
      out.push_back(dims[i]);
  }
  return reshaped(args[0], out);
}

std::optional<KnownTensor> foldReshape(const FoldArgs &args) {
  const KnownTensor &x = args[0];
  if (args[1].isFloat())
    return std::nullopt;
  Dims dims = args[1].ints;
  int64_t inferred = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && i < x.dims.size() &&
        !args.attrs.getInt("allowzero").value_or(0))
      dims[i] = x.dims[i];
    // One -1 at most, no other negative size: left to the importer's
    // diagnostics, not folded.
    if (dims[i] == -1 && inferred < 0)
      inferred = i;
    else if (dims[i] < 0)
      return std::nullopt;
  }
  if (inferred >= 0) {
    Dims rest = dims;
    rest.erase(rest.begin() + inferred);
    // (product() saturates: a model's sizes may overflow.)
    int64_t known = product(rest);
    if (known == 0 || known == std::numeric_limits<int64_t>::max())
      return std::nullopt;
    dims[inferred] = x.numElements() / known;
  }
  if (product(dims) != x.numElements())
    return std::nullopt;
  return reshaped(x, dims);
}

/// Concat of rank-1 tensors, the only rank shape arithmetic uses.
std::optional<KnownTensor> foldConcat(const FoldArgs &args) {
  const KnownTensor &x = args[0];
  int64_t axis =
      normalizeAxis(args.attrs.getInt("axis").value_or(0), x.dims.size());
  if (x.dims.size() != 1 || axis != 0)
    return std::nullopt;
  KnownTensor out;
  out.dataType = x.dataType;
  for (const KnownTensor *t : args.in) {
    if (t->dims.size() != 1 || t->isFloat() != x.isFloat())
      return std::nullopt;
    out.ints.insert(out.ints.end(), t->ints.begin(), t->ints.end());
    out.floats.insert(out.floats.end(), t->floats.begin(), t->floats.end());
  }
  out.dims = {
      static_cast<int64_t>(x.isFloat() ? out.floats.size() : out.ints.size())};
  return out;
}

std::optional<KnownTensor> foldGather(const FoldArgs &args) {
  return gather(args[0], args[1], args.attrs.getInt("axis").value_or(0));
}

std::optional<KnownTensor> foldSlice(const FoldArgs &args) {
  Dims starts, ends, axes, steps;
  if (auto s = args.attrs.getInts("starts")) { // opset < 10
    std::optional<Dims> e = args.attrs.getInts("ends");
    if (!e)
      return std::nullopt;
    starts = *s;
    ends = *e;
    axes = args.attrs.getInts("axes").value_or(Dims{0});
    steps = {1};
  } else {
    if (!args.known(1) || !args.known(2))
      return std::nullopt;
    starts = args[1].ints;
    ends = args[2].ints;
    axes = args.known(3) ? args[3].ints : Dims{0};
    steps = args.known(4) ? args[4].ints : Dims{1};
  }
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1 ||
      steps.size() != 1 || normalizeAxis(axes[0], args[0].dims.size()) != 0)
    return std::nullopt;
  return slice1d(args[0], starts[0], ends[0], steps[0]);
}

/// Transpose of a 2-D tensor (the other ranks shape arithmetic does not
/// use).
std::optional<KnownTensor> foldTranspose(const FoldArgs &args) {
  const KnownTensor &x = args[0];
  std::optional<Dims> perm = args.attrs.getInts("perm");
  if (x.dims.size() != 2 || (perm && *perm != Dims{1, 0}))
    return std::nullopt;
  int64_t rows = x.dims[0], cols = x.dims[1];
  KnownTensor out;
  out.dataType = x.dataType;
  out.dims = {cols, rows};
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) {
      if (x.isFloat())
        out.floats.push_back(x.floats[r * cols + c]);
      else
        out.ints.push_back(x.ints[r * cols + c]);
    }
  return out;
}

std::optional<KnownTensor> foldRange(const FoldArgs &args) {
  if (args[0].numElements() != 1 || args[1].numElements() != 1 ||
      args[2].numElements() != 1)
    return std::nullopt;
  double start = valueAt(args[0], 0), limit = valueAt(args[1], 0),
         delta = valueAt(args[2], 0);
  if (delta == 0)
    return std::nullopt;
  double count = std::ceil((limit - start) / delta);
  if (!(count <= kMaxElements))
    return std::nullopt;
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  KnownTensor out;
  out.dataType = args[0].dataType;
  out.dims = {n};
  for (int64_t i = 0; i < n; ++i) {
    double v = start + i * delta;
    if (out.isFloat())
      out.floats.push_back(v);
    else
      out.ints.push_back(static_cast<int64_t>(v));
  }
  return out;
}

std::optional<KnownTensor> foldWhere(const FoldArgs &args) {
  return elementwise({args.in[1], args.in[2], args.in[0]}, args[1].dataType,
                     [](auto &a) { return a[2] != 0 ? a[0] : a[1]; });
}

/// A binary op: exact checked arithmetic on integers (Slice ends of
/// INT64_MAX must survive), doubles otherwise.
template <bool (*IntFn)(int64_t, int64_t, int64_t *),
          double (*FloatFn)(double, double)>
std::optional<KnownTensor> foldArithmetic(const FoldArgs &args) {
  const KnownTensor &x = args[0], &y = args[1];
  if (!x.isFloat() && !y.isFloat())
    return integerBinary(x, y,
                         [](int64_t a, int64_t b) -> std::optional<int64_t> {
                           int64_t r;
                           if (IntFn(a, b, &r))
                             return std::nullopt;
                           return r;
                         });
  return elementwise({&x, &y}, 0, [](auto &a) { return FloatFn(a[0], a[1]); });
}

bool addOverflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
bool subOverflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_sub_overflow(a, b, r);
}
bool mulOverflows(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
/// ONNX integer Div truncates, like C++.
bool divFails(int64_t a, int64_t b, int64_t *r) {
  if (b == 0 || (a == INT64_MIN && b == -1))
    return true;
  *r = a / b;
  return false;
}

double add(double a, double b) { return a + b; }
double sub(double a, double b) { return a - b; }
double mul(double a, double b) { return a * b; }
double divide(double a, double b) { return a / b; }

template <double (*Fn)(double, double)>
std::optional<KnownTensor> foldFloatBinary(const FoldArgs &args) {
  return elementwise({args.in[0], args.in[1]}, 0,
                     [](auto &a) { return Fn(a[0], a[1]); });
}

/// Mod: C's fmod (fmod = 1, and always for floats) or, for integers, the
/// floored remainder (fmod = 0, the sign of the divisor), as the window
/// padding of shifted-window attention computes it from shapes.
std::optional<KnownTensor> foldMod(const FoldArgs &args) {
  const KnownTensor &x = args[0], &y = args[1];
  bool cRemainder = args.attrs.getInt("fmod").value_or(0) != 0;
  if (x.isFloat() || y.isFloat())
    return elementwise({&x, &y}, 0,
                       [](auto &a) { return std::fmod(a[0], a[1]); });
  return integerBinary(
      x, y, [cRemainder](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b == 0 || (a == INT64_MIN && b == -1))
          return std::nullopt;
        int64_t r = a % b;
        if (!cRemainder && r != 0 && ((r < 0) != (b < 0)))
          r += b;
        return r;
      });
}

double power(double a, double b) { return std::pow(a, b); }
double maximum(double a, double b) { return std::max(a, b); }
double minimum(double a, double b) { return std::min(a, b); }

template <bool (*Fn)(double, double)>
std::optional<KnownTensor> foldCompare(const FoldArgs &args) {
  return elementwise({args.in[0], args.in[1]}, dtype::kBool,
                     [](auto &a) -> double { return Fn(a[0], a[1]); });
}

bool equal(double a, double b) { return a == b; }
bool less(double a, double b) { return a < b; }
bool greater(double a, double b) { return a > b; }

} // namespace

bool KnownTensor::isFloat() const { return isFloatType(dataType); }

int64_t KnownTensor::numElements() const { return product(dims); }

std::vector<int64_t> folders::sliceShape(llvm::ArrayRef<int64_t> shape,
                                         std::optional<int64_t> start,
                                         std::optional<int64_t> end) {
  int64_t rank = shape.size();
  auto bound = [&](std::optional<int64_t> axis, int64_t fallback) {
    return std::clamp<int64_t>(normalizeAxis(axis.value_or(fallback), rank), 0,
                               rank);
  };
  int64_t from = bound(start, 0), to = bound(end, rank);
  return std::vector<int64_t>(shape.begin() + from,
                              shape.begin() + std::max(from, to));
}

FoldRule folders::shape() { return {0, foldShape}; }
FoldRule folders::size() { return {0, foldSize}; }
FoldRule folders::constant() { return {0, foldConstant}; }
FoldRule folders::constantOfShape() { return {1, foldConstantOfShape}; }
FoldRule folders::identity() { return {1, foldIdentity}; }
FoldRule folders::cast() { return {1, foldCast}; }
FoldRule folders::neg() { return {1, foldUnary<::negate>}; }
FoldRule folders::abs() { return {1, foldUnary<::absolute>}; }
FoldRule folders::sqrt() { return {1, foldUnary<::squareRoot>}; }
FoldRule folders::logicalNot() { return {1, foldUnary<::logicalNot>}; }
FoldRule folders::floor() { return {1, foldUnary<::roundDown>}; }
FoldRule folders::ceil() { return {1, foldUnary<::roundUp>}; }
FoldRule folders::unsqueeze() { return {1, foldUnsqueeze}; }
FoldRule folders::squeeze() { return {1, foldSqueeze}; }
FoldRule folders::reshape() { return {2, foldReshape}; }
FoldRule folders::concat() { return {FoldRule::kAllInputs, foldConcat}; }
FoldRule folders::gather() { return {2, foldGather}; }
FoldRule folders::slice() { return {1, foldSlice}; }
FoldRule folders::transpose() { return {1, foldTranspose}; }
FoldRule folders::range() { return {3, foldRange}; }
FoldRule folders::where() { return {3, foldWhere}; }
FoldRule folders::add() { return {2, foldArithmetic<::addOverflows, ::add>}; }
FoldRule folders::sub() { return {2, foldArithmetic<::subOverflows, ::sub>}; }
FoldRule folders::mul() { return {2, foldArithmetic<::mulOverflows, ::mul>}; }
FoldRule folders::div() { return {2, foldArithmetic<::divFails, ::divide>}; }
FoldRule folders::mod() { return {2, foldMod}; }
FoldRule folders::pow() { return {2, foldFloatBinary<::power>}; }
FoldRule folders::max() { return {2, foldFloatBinary<::maximum>}; }
FoldRule folders::min() { return {2, foldFloatBinary<::minimum>}; }
FoldRule folders::equal() { return {2, foldCompare<::equal>}; }
FoldRule folders::less() { return {2, foldCompare<::less>}; }
FoldRule folders::greater() { return {2, foldCompare<::greater>}; }
