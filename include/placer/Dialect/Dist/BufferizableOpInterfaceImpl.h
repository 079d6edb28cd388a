//===- BufferizableOpInterfaceImpl.h - Bufferizing transfers ----*- C++ -*-===//
//
// dist.send reads the buffer of the tensor it sends; dist.recv receives into
// a fresh buffer. Registered as external models so that one-shot
// bufferization handles stage functions like any other tensor code.
//
//===----------------------------------------------------------------------===//
#ifndef PLACER_DIALECT_DIST_BUFFERIZABLEOPINTERFACEIMPL_H
#define PLACER_DIALECT_DIST_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace placer::dist {
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);
} // namespace placer::dist

#endif // PLACER_DIALECT_DIST_BUFFERIZABLEOPINTERFACEIMPL_H
