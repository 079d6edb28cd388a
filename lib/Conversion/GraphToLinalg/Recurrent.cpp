//===- Recurrent.cpp - RNN, GRU, LSTM
//--------------------------------------===//
//
// Per direction: the input projection X W^T + Wb of every step is one
// product before the loop; an scf.for over the time steps carries the
// hidden (and cell) state and the output sequence, computing h R^T and the
// gates with elementwise generics. A reverse direction runs forward over
// the input gathered backwards within each sequence's length, and its
// outputs are gathered back. Steps past a sequence's length keep its state
// and output zeros. Layout 1 (batch first) is transposed in and out.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace placer;
using namespace placer::lowering;

namespace {

enum class CellKind { RNN, GRU, LSTM };

/// An activation function of the `activations` attribute, with its alpha
/// and beta where it takes them.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

Value activate(OpBuilder &b, Location loc, const Activation &f, Value x) {
  Type t = x.getType();
  auto c = [&](double v) { return scalarConstant(b, loc, t, v); };
  auto mul = [&](Value p, Value q) {
    return Value(arith::MulFOp::create(b, loc, p, q));
  };
  auto add = [&](Value p, Value q) {
    return Value(arith::AddFOp::create(b, loc, p, q));
  };
  StringRef name = f.name;
  if (name == "Tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "Sigmoid")
    return arith::DivFOp::create(
        b, loc, c(1),
        add(c(1),
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x))));
  if (name == "Relu")
    return arith::MaximumFOp::create(b, loc, x, c(0));
  if (name == "Affine")
    return add(mul(c(f.alpha), x), c(f.beta));
  if (name == "LeakyRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, c(0)), x,
        mul(c(f.alpha), x));
  if (name == "ThresholdedRelu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(f.alpha)),
        x, c(0));
  if (name == "ScaledTanh")
    return mul(c(f.alpha), math::TanhOp::create(b, loc, mul(c(f.beta), x)));
  if (name == "HardSigmoid")
    return arith::MinimumFOp::create(
        b, loc, c(1),
        arith::MaximumFOp::create(b, loc, c(0),
                                  add(mul(c(f.alpha), x), c(f.beta))));
  if (name == "Elu")
    return arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, c(0)), x,
        mul(c(f.alpha), math::ExpM1Op::create(b, loc, x)));
  if (name == "Softsign")
    return arith::DivFOp::create(b, loc, x,
                                 add(c(1), math::AbsFOp::create(b, loc, x)));
  // Softplus
  return math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
}

struct Recurrence {
  CellKind kind;
  int64_t gates, hidden, directions, steps, batch;
  bool batchFirst, linearBeforeReset;
  std::optional<double> clip;
  /// Per direction: f, g (and h for LSTM).
  SmallVector<SmallVector<Activation>> activations;
};

FailureOr<Recurrence> readRecurrence(NodeLowering &n, CellKind kind) {
  Recurrence r;
  r.kind = kind;
  r.gates = kind == CellKind::RNN ? 1 : kind == CellKind::GRU ? 3 : 4;
  r.hidden = n.getInt("hidden_size", 0);
  StringRef direction = n.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.fail("unknown direction '" + direction + "'");
  r.directions = direction == "bidirectional" ? 2 : 1;
  r.batchFirst = n.getInt("layout", 0) == 1;
  r.linearBeforeReset = n.getInt("linear_before_reset", 0);
  if (n.node.getAttrs().get("clip"))
    r.clip = n.getFloat("clip", 0);
  if (kind == CellKind::LSTM && n.getInt("input_forget", 0))
    return n.fail("input_forget is not lowered");
  auto xType = cast<RankedTensorType>(n.operands[0].getType());
  auto wType = cast<RankedTensorType>(n.operands[1].getType());
  if (xType.getRank() != 3 || wType.getRank() != 3)
    return n.fail("X and W must be 3-D");
  r.steps = xType.getDimSize(r.batchFirst ? 1 : 0);
  r.batch = xType.getDimSize(r.batchFirst ? 0 : 1);
  if (r.hidden <= 0)
    r.hidden = wType.getDimSize(1) / r.gates;
  if (wType.getDimSize(0) != r.directions ||
      wType.getDimSize(1) != r.gates * r.hidden)
    return n.fail("W does not match the direction count and hidden_size");
  // Activations: the defaults, or the attribute's per direction, with
  // alpha/beta handed out in order to the functions that take them.
  SmallVector<StringRef> defaults =
      kind == CellKind::RNN ? SmallVector<StringRef>{"Tanh"}
      : kind == CellKind::GRU
          ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
          : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<std::string> names;
  if (auto attr = n.node.getAttrs().getAs<ArrayAttr>("activations")) {
    for (Attribute a : attr)
      names.push_back(cast<StringAttr>(a).getValue().str());
  } else {
    for (int64_t d = 0; d < r.directions; ++d)
      for (StringRef name : defaults)
        names.push_back(name.str());
  }
  if (names.size() != defaults.size() * r.directions)
    return n.fail("activations needs " + Twine(defaults.size() * r.directions) +
                  " functions");
  auto floats = [&](StringRef name) {
    SmallVector<double> values;
    if (auto attr = n.node.getAttrs().getAs<ArrayAttr>(name))
      for (Attribute a : attr)
        values.push_back(cast<FloatAttr>(a).getValueAsDouble());
    return values;
  };
  SmallVector<double> alphas = floats("activation_alpha"),
                      betas = floats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  static const llvm::StringMap<std::pair<double, double>> parameters = {
      {"Tanh", {0, 0}},         {"Sigmoid", {0, 0}},
      {"Relu", {0, 0}},         {"Softsign", {0, 0}},
      {"Softplus", {0, 0}},     {"Affine", {1, 0}},
      {"LeakyRelu", {0.01, 0}}, {"ThresholdedRelu", {1, 0}},
      {"ScaledTanh", {1, 1}},   {"HardSigmoid", {0.2, 0.5}},
      {"Elu", {1, 0}}};
  static const llvm::StringSet<> takesBeta = {"Affine", "ScaledTanh",
                                              "HardSigmoid"};
  static const llvm::StringSet<> takesAlpha = {"Affine",          "LeakyRelu",
                                               "ThresholdedRelu", "ScaledTanh",
                                               "HardSigmoid",     "Elu"};
  r.activations.resize(r.directions);
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = parameters.find(names[i]);
    if (it == parameters.end())
      return n.fail("unknown activation '" + names[i] + "'");
    Activation f{names[i], it->second.first, it->second.second};
    if (takesAlpha.contains(f.name) && nextAlpha < alphas.size())
      f.alpha = alphas[nextAlpha++];
    if (takesBeta.contains(f.name) && nextBeta < betas.size())
      f.beta = betas[nextBeta++];
    r.activations[i / defaults.size()].push_back(f);
  }
  return r;
}

RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(shape, element);
}

/// Slice [offset, offset + size) of `v` along dimension `dim`, that
/// dimension dropped when `drop` (a direction or step of a 3-D tensor).
Value sliceOf(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t offset,
              int64_t size, bool drop) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()),
      strides(type.getRank(), 1);
  offsets[dim] = offset;
  sizes[dim] = size;
  SmallVector<int64_t> shape(sizes);
  if (drop)
    shape.erase(shape.begin() + dim);
  return tensor::ExtractSliceOp::create(
      b, loc, tensorOf(shape, type.getElementType()), v, ValueRange{},
      ValueRange{}, ValueRange{}, offsets, sizes, strides);
}

Value transpose2d(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  auto outType =
      tensorOf({type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, emptyTensor(b, loc, outType),
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

/// x[s, b] = x[len_b - 1 - s, b] for s < len_b, zeros past it: the
/// sequence of each batch entry backwards (its own inverse).
Value reverseSequences(OpBuilder &b, Location loc, Value x, Value lengths) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t steps = type.getDimSize(0);
  Type element = type.getElementType();
  return generate(
      b, loc, type, [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        Value length =
            lengths
                ? castScalar(nb, l,
                             tensor::ExtractOp::create(nb, l, lengths, ivs[1]),
                             nb.getI64Type())
                : Value(arith::ConstantOp::create(nb, l,
                                                  nb.getI64IntegerAttr(steps)));
        Value s = arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[0]);
        Value t = arith::SubIOp::create(
            nb, l, arith::SubIOp::create(nb, l, length, s),
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(1)));
        Value inside = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::sge, t,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        t = arith::SelectOp::create(
            nb, l, inside, t,
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
        SmallVector<Value> at(ivs);
        at[0] = arith::IndexCastOp::create(nb, l, nb.getIndexType(), t);
        return Value(arith::SelectOp::create(
            nb, l, inside, tensor::ExtractOp::create(nb, l, x, at),
            scalarConstant(nb, l, element, 0)));
      });
}

/// One direction over the whole sequence: returns Y [S, B, H], the last h
/// and the last c (LSTM) for every batch entry.
struct DirectionResult {
  Value y, h, c;
};

DirectionResult runDirection(NodeLowering &n, const Recurrence &r, int64_t d,
                             Value x, Value lengths, bool reverse) {
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  auto xType = cast<RankedTensorType>(x.getType());
  Type element = xType.getElementType();
  int64_t S = r.steps, B = r.batch, H = r.hidden, G = r.gates;
  int64_t inputSize = xType.getDimSize(2);
  Value w = sliceOf(b, loc, n.operands[1], 0, d, 1, true);  // [G H, I]
  Value rw = sliceOf(b, loc, n.operands[2], 0, d, 1, true); // [G H, H]
  Value wT = transpose2d(b, loc, w), rT = transpose2d(b, loc, rw);
  // Biases: Wb and Rb, zeros when B is absent.
  Value wb, rb;
  if (n.hasOperand(3)) {
    Value bias = sliceOf(b, loc, n.operands[3], 0, d, 1, true); // [2 G H]
    wb = sliceOf(b, loc, bias, 0, 0, G * H, false);
    rb = sliceOf(b, loc, bias, 0, G * H, G * H, false);
  } else {
    wb = filled(b, loc, tensorOf({G * H}, element), 0);
    rb = wb;
  }
  auto state = [&](unsigned operand) {
    if (!n.hasOperand(operand))
      return filled(b, loc, tensorOf({B, H}, element), 0);
    return sliceOf(b, loc, n.operands[operand], r.batchFirst ? 1 : 0, d, 1,
                   true);
  };
  Value h0 = state(5);
  Value c0 = r.kind == CellKind::LSTM ? state(6) : Value();
  Value peep;
  if (r.kind == CellKind::LSTM && n.hasOperand(7))
    peep = sliceOf(b, loc, n.operands[7], 0, d, 1, true); // [3 H]: i, o, f
  if (reverse)
    x = reverseSequences(b, loc, x, lengths);
  // X W^T + Wb for every step at once: [S B, I] x [I, G H].
  auto flatType = tensorOf({S * B, inputSize}, element);
  Value projected = matmul(b, loc, reshapeTo(b, loc, x, flatType), wT,
                           tensorOf({S * B, G * H}, element));
  projected = elementwise(
      b, loc, {projected, wb}, tensorOf({S * B, G * H}, element),
      [](OpBuilder &nb, Location l, ValueRange args) {
        return Value(arith::AddFOp::create(nb, l, args[0], args[1]));
      });
  projected = reshapeTo(b, loc, projected, tensorOf({S, B, G * H}, element));
  auto stateType = tensorOf({B, H}, element);
  auto yType = tensorOf({S, B, H}, element);
  Value y0 = filled(b, loc, yType, 0);
  Value lengthColumn =
      lengths
          ? reshapeTo(b, loc, lengths,
                      tensorOf({B, 1}, cast<RankedTensorType>(lengths.getType())
                                           .getElementType()))
          : Value();
  const SmallVector<Activation> &fns = r.activations[d];
  SmallVector<Value> inits = {h0, y0};
  if (c0)
    inits.push_back(c0);
  auto zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto loop = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, S),
      arith::ConstantIndexOp::create(b, loc, 1), inits,
      [&](OpBuilder &lb, Location l, Value t, ValueRange carried) {
        Value h = carried[0], y = carried[1];
        Value c = c0 ? carried[2] : Value();
        // This step's projection [B, G H] and h R^T [B, G H] + Rb.
        auto stepType = tensorOf({B, G * H}, element);
        SmallVector<OpFoldResult> offsets = {t, lb.getIndexAttr(0),
                                             lb.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes = {
            lb.getIndexAttr(1), lb.getIndexAttr(B), lb.getIndexAttr(G * H)};
        SmallVector<OpFoldResult> ones(3, lb.getIndexAttr(1));
        Value xw = tensor::ExtractSliceOp::create(lb, l, stepType, projected,
                                                  offsets, sizes, ones);
        Value hr = matmul(lb, l, h, rT, stepType);
        hr = elementwise(lb, l, {hr, rb}, stepType,
                         [](OpBuilder &nb, Location ll, ValueRange args) {
                           return Value(
                               arith::AddFOp::create(nb, ll, args[0], args[1]));
                         });
        auto gate = [&](Value v, int64_t g) {
          return sliceOf(lb, l, v, 1, g * H, H, false);
        };
        auto clipped = [&](OpBuilder &nb, Location ll, Value v) {
          if (!r.clip)
            return v;
          v = arith::MaximumFOp::create(
              nb, ll, v, scalarConstant(nb, ll, element, -*r.clip));
          return Value(arith::MinimumFOp::create(
              nb, ll, v, scalarConstant(nb, ll, element, *r.clip)));
        };
        auto f = [&](OpBuilder &nb, Location ll, unsigned which, Value v) {
          return activate(nb, ll, fns[which], clipped(nb, ll, v));
        };
        auto eltwise = [&](ValueRange inputs, BodyFn body) {
          return elementwise(lb, l, inputs, stateType, body);
        };
        Value newH, newC;
        if (r.kind == CellKind::RNN) {
          newH = eltwise({gate(xw, 0), gate(hr, 0)},
                         [&](OpBuilder &nb, Location ll, ValueRange a) {
                           return f(nb, ll, 0,
                                    arith::AddFOp::create(nb, ll, a[0], a[1]));
                         });
        } else if (r.kind == CellKind::GRU) {
          // Gates z, r, h.
          auto sigmoidOf = [&](int64_t g) {
            return eltwise({gate(xw, g), gate(hr, g)}, [&](OpBuilder &nb,
                                                           Location ll,
                                                           ValueRange a) {
              return f(nb, ll, 0, arith::AddFOp::create(nb, ll, a[0], a[1]));
            });
          };
          Value z = sigmoidOf(0), reset = sigmoidOf(1);
          Value candidate;
          if (r.linearBeforeReset) {
            candidate = eltwise(
                {gate(xw, 2), reset, gate(hr, 2)},
                [&](OpBuilder &nb, Location ll, ValueRange a) {
                  return f(nb, ll, 1,
                           arith::AddFOp::create(
                               nb, ll, a[0],
                               arith::MulFOp::create(nb, ll, a[1], a[2])));
                });
          } else {
            // (r . h) R_h^T + Rb_h.
            Value rh = eltwise(
                {reset, h}, [](OpBuilder &nb, Location ll, ValueRange a) {
                  return Value(arith::MulFOp::create(nb, ll, a[0], a[1]));
                });
            Value rhT = sliceOf(lb, l, rT, 1, 2 * H, H, false); // [H, H]
            Value rhr = matmul(lb, l, rh, rhT, stateType);
            candidate = eltwise(
                {gate(xw, 2), rhr, sliceOf(lb, l, rb, 0, 2 * H, H, false)},
                [&](OpBuilder &nb, Location ll, ValueRange a) {
                  return f(nb, ll, 1,
                           arith::AddFOp::create(
                               nb, ll, a[0],
                               arith::AddFOp::create(nb, ll, a[1], a[2])));
                });
          }
          newH = eltwise({z, candidate, h}, [&](OpBuilder &nb, Location ll,
                                                ValueRange a) {
            Value keep = arith::MulFOp::create(nb, ll, a[0], a[2]);
            Value take = arith::MulFOp::create(
                nb, ll,
                arith::SubFOp::create(nb, ll,
                                      scalarConstant(nb, ll, element, 1), a[0]),
                a[1]);
            return Value(arith::AddFOp::create(nb, ll, take, keep));
          });
        } else {
          // Gates i, o, f, c; peepholes i, o, f.
          Value zeros = filled(lb, l, tensorOf({H}, element), 0);
          auto peephole = [&](int64_t p) {
            return peep ? sliceOf(lb, l, peep, 0, p * H, H, false) : zeros;
          };
          auto pre = [&](int64_t g) {
            return eltwise({gate(xw, g), gate(hr, g)},
                           [](OpBuilder &nb, Location ll, ValueRange a) {
                             return Value(
                                 arith::AddFOp::create(nb, ll, a[0], a[1]));
                           });
          };
          auto withPeephole = [&](Value v, int64_t p, Value cell) {
            return eltwise(
                {v, peephole(p), cell},
                [&](OpBuilder &nb, Location ll, ValueRange a) {
                  return f(nb, ll, 0,
                           arith::AddFOp::create(
                               nb, ll, a[0],
                               arith::MulFOp::create(nb, ll, a[1], a[2])));
                });
          };
          Value i = withPeephole(pre(0), 0, c);
          Value fg = withPeephole(pre(2), 2, c);
          Value cand =
              eltwise({pre(3)}, [&](OpBuilder &nb, Location ll, ValueRange a) {
                return f(nb, ll, 1, a[0]);
              });
          newC = eltwise(
              {fg, c, i, cand}, [](OpBuilder &nb, Location ll, ValueRange a) {
                return Value(arith::AddFOp::create(
                    nb, ll, arith::MulFOp::create(nb, ll, a[0], a[1]),
                    arith::MulFOp::create(nb, ll, a[2], a[3])));
              });
          Value o = withPeephole(pre(1), 1, newC);
          newH =
              eltwise({o, newC}, [&](OpBuilder &nb, Location ll, ValueRange a) {
                return Value(
                    arith::MulFOp::create(nb, ll, a[0], f(nb, ll, 2, a[1])));
              });
        }
        // Steps past a sequence's length keep the state and output zeros.
        Value out = newH;
        if (lengthColumn) {
          Value step = arith::IndexCastOp::create(lb, l, lb.getI64Type(), t);
          auto live = [&](OpBuilder &nb, Location ll, Value length) {
            return Value(arith::CmpIOp::create(
                nb, ll, arith::CmpIPredicate::slt, step,
                castScalar(nb, ll, length, nb.getI64Type())));
          };
          auto keepOld = [&](Value next, Value old) {
            return eltwise({next, old, lengthColumn},
                           [&](OpBuilder &nb, Location ll, ValueRange a) {
                             return Value(arith::SelectOp::create(
                                 nb, ll, live(nb, ll, a[2]), a[0], a[1]));
                           });
          };
          out = eltwise({newH, lengthColumn},
                        [&](OpBuilder &nb, Location ll, ValueRange a) {
                          return Value(arith::SelectOp::create(
                              nb, ll, live(nb, ll, a[1]), a[0],
                              scalarConstant(nb, ll, element, 0)));
                        });
          newH = keepOld(newH, h);
          if (newC)
            newC = keepOld(newC, c);
        }
        y = insertRow(lb, l, out, y, t);
        SmallVector<Value> next = {newH, y};
        if (newC)
          next.push_back(newC);
        scf::YieldOp::create(lb, l, next);
      });
  DirectionResult result{loop.getResult(1), loop.getResult(0),
                         c0 ? loop.getResult(2) : Value()};
  if (reverse)
    result.y = reverseSequences(b, loc, result.y, lengths);
  return result;
}

template <CellKind Kind> Results lowerRecurrent(NodeLowering &n) {
  FailureOr<Recurrence> r = readRecurrence(n, Kind);
  if (failed(r))
    return failure();
  if (ShapedType::isDynamic(r->steps))
    return n.fail("a dynamic sequence length is not lowered");
  // A dynamic batch: the batch items of a recurrence are independent, so
  // each runs the static lowering. X, initial_h/c and Y_h/c carry the batch
  // on dim 1 (layout 1: 0), sequence_lens on 0, Y on 2 (layout 1: 0).
  if (ShapedType::isDynamic(r->batch)) {
    int64_t state = r->batchFirst ? 0 : 1;
    SmallVector<int64_t> operands = {state, -1, -1, -1, 0, state, state, -1};
    SmallVector<int64_t> results = {r->batchFirst ? 0 : 2, state, state};
    return n.lowerEachItem(operands, results, lowerRecurrent<Kind>);
  }
  OpBuilder &b = n.builder;
  Location loc = n.getLoc();
  Value x = n.operands[0];
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isFloat(xType))
    return n.fail("only floating-point recurrences are lowered");
  Type element = xType.getElementType();
  int64_t S = r->steps, B = r->batch, H = r->hidden, D = r->directions;
  if (r->batchFirst)
    x = linalg::TransposeOp::create(
            b, loc, x,
            emptyTensor(b, loc, tensorOf({S, B, xType.getDimSize(2)}, element)),
            ArrayRef<int64_t>{1, 0, 2})
            .getResult()[0];
  Value lengths = n.hasOperand(4) ? n.operands[4] : Value();
  StringRef direction = n.getString("direction", "forward");
  SmallVector<DirectionResult> runs;
  for (int64_t d = 0; d < D; ++d)
    runs.push_back(runDirection(n, *r, d, x, lengths,
                                direction == "reverse" || (D == 2 && d == 1)));
  // Y [S, D, B, H] (layout 1: [B, S, D, H]); Y_h, Y_c [D, B, H] ([B, D, H]).
  auto stack = [&](ArrayRef<Value> parts, ArrayRef<int64_t> partShape,
                   int64_t at) {
    SmallVector<int64_t> shape(partShape);
    shape.insert(shape.begin() + at, D);
    Value result = emptyTensor(b, loc, tensorOf(shape, element));
    for (int64_t d = 0; d < D; ++d) {
      SmallVector<int64_t> offsets(shape.size(), 0), strides(shape.size(), 1);
      SmallVector<int64_t> sizes(shape);
      offsets[at] = d;
      sizes[at] = 1;
      result = tensor::InsertSliceOp::create(
          b, loc, reshapeTo(b, loc, parts[d], tensorOf(sizes, element)), result,
          ValueRange{}, ValueRange{}, ValueRange{}, offsets, sizes, strides);
    }
    return result;
  };
  auto permute = [&](Value v, ArrayRef<int64_t> perm) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    return linalg::TransposeOp::create(
               b, loc, v, emptyTensor(b, loc, tensorOf(shape, element)), perm)
        .getResult()[0];
  };
  SmallVector<Value> ys, hs, cs;
  for (DirectionResult &run : runs) {
    ys.push_back(run.y);
    hs.push_back(run.h);
    cs.push_back(run.c);
  }
  SmallVector<Value> results;
  Value y = stack(ys, {S, B, H}, 1);
  results.push_back(r->batchFirst ? permute(y, {2, 0, 1, 3}) : y);
  auto lastState = [&](ArrayRef<Value> parts) {
    return stack(parts, {B, H}, r->batchFirst ? 1 : 0);
  };
  results.push_back(lastState(hs));
  if (Kind == CellKind::LSTM)
    results.push_back(lastState(cs));
  results.resize(n.node.getOutputs().size());
  return results;
}

} // namespace

void placer::lowering::registerRecurrentOps(OpRegistry &r) {
  r.beginFamily(
      "Recurrent",
      "RNN, GRU (linear_before_reset), LSTM (peepholes): per direction, X W^T "
      "+ Wb for every step as one product, then an `scf.for` over the steps "
      "carrying h (and c) and the output sequence, h R^T and the gates as "
      "`linalg` ops. Forward, reverse (the input gathered backwards within "
      "each sequence length) and bidirectional; sequence_lens, initial "
      "states, layout 0 and 1, clip, every activation of the spec with "
      "activation_alpha/beta.");
  r.add("RNN", lowerRecurrent<CellKind::RNN>)
      .work(work::recurrent())
      .backward(2.0);
  r.add("GRU", lowerRecurrent<CellKind::GRU>)
      .work(work::recurrent())
      .backward(2.0);
  r.add("LSTM", lowerRecurrent<CellKind::LSTM>)
      .work(work::recurrent())
      .backward(2.0);
  // A dynamic batch: one item at a time (lowerEachItem).
  r.allowDynamicDims({"RNN", "GRU", "LSTM"});
}
