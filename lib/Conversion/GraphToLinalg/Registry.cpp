//===- Registry.cpp - The ONNX op registry --------------------------------===//
//
// Each family file registers its ops' whole entries (lowering, work,
// backward factor, gradient, type folding, sharding); this file builds the
// registry from them once.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "placer/Conversion/OnnxOps.h"

using namespace placer;

const OpRegistry &placer::getOnnxOps() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    lowering::registerElementwiseOps(r);
    lowering::registerContractionOps(r);
    lowering::registerConvolutionPoolingOps(r);
    lowering::registerReductionOps(r);
    lowering::registerNormalizationOps(r);
    lowering::registerShapeIndexingOps(r);
    lowering::registerGatherScatterOps(r);
    lowering::registerResizeOps(r);
    lowering::registerRecurrentOps(r);
    lowering::registerLossOps(r);
    lowering::registerSignalOps(r);
    lowering::registerControlFlowOps(r);
    lowering::registerDetectionOps(r);
    lowering::registerQuantizationOps(r);
    r.finalize();
    return r;
  }();
  return registry;
}
