//===- GraphTypesTest.cpp - ONNX <-> MLIR element types -------------------===//
#include "placer/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace placer::graph;

namespace {

class GraphTypesTest : public ::testing::Test {
protected:
  GraphTypesTest() { context.loadDialect<GraphDialect>(); }
  MLIRContext context;
};

TEST_F(GraphTypesTest, EveryOnnxDataTypeRoundTrips) {
  // TensorProto.DataType 1..16 are all the types ONNX 1.12 defines.
  for (int32_t dataType = 1; dataType <= 16; ++dataType) {
    Type type = getElementTypeForOnnx(&context, dataType);
    ASSERT_TRUE(type) << "data type " << dataType;
    EXPECT_EQ(getOnnxDataType(type), dataType) << "data type " << dataType;
  }
}

TEST_F(GraphTypesTest, UndefinedAndUnknownDataTypesHaveNoType) {
  EXPECT_FALSE(getElementTypeForOnnx(&context, 0));
  EXPECT_FALSE(getElementTypeForOnnx(&context, 17));
  EXPECT_FALSE(getElementTypeForOnnx(&context, -1));
}

TEST_F(GraphTypesTest, TypesWithoutOnnxFormAreRejected) {
  Builder b(&context);
  EXPECT_EQ(getOnnxDataType(b.getIndexType()), std::nullopt);
  EXPECT_EQ(getOnnxDataType(b.getIntegerType(7)), std::nullopt);
  EXPECT_EQ(getOnnxDataType(b.getIntegerType(32, /*isSigned=*/true)),
            std::nullopt);
  EXPECT_EQ(getOnnxDataType(IntegerType::get(&context, 1,
                                             IntegerType::Unsigned)),
            std::nullopt);
}

TEST_F(GraphTypesTest, ElementByteSizes) {
  Builder b(&context);
  EXPECT_EQ(getElementByteSize(b.getI1Type()), 1);
  EXPECT_EQ(getElementByteSize(b.getF16Type()), 2);
  EXPECT_EQ(getElementByteSize(b.getF32Type()), 4);
  EXPECT_EQ(getElementByteSize(b.getI64Type()), 8);
  EXPECT_EQ(getElementByteSize(ComplexType::get(b.getF64Type())), 16);
  EXPECT_EQ(getElementByteSize(StringType::get(&context)), 0);
}

TEST_F(GraphTypesTest, OnnxAttributeKinds) {
  Builder b(&context);
  EXPECT_TRUE(isOnnxAttributeValue(b.getI64IntegerAttr(3)));
  EXPECT_FALSE(isOnnxAttributeValue(b.getI32IntegerAttr(3)));
  EXPECT_TRUE(isOnnxAttributeValue(b.getF32FloatAttr(1.0f)));
  EXPECT_FALSE(isOnnxAttributeValue(b.getF64FloatAttr(1.0)));
  EXPECT_TRUE(isOnnxAttributeValue(b.getDenseI64ArrayAttr({1, 2})));
  EXPECT_TRUE(isOnnxAttributeValue(b.getStrArrayAttr({"a"})));
  EXPECT_TRUE(isOnnxAttributeValue(b.getArrayAttr({})));
  EXPECT_FALSE(isOnnxAttributeValue(
      b.getArrayAttr({b.getStringAttr("a"), b.getI64IntegerAttr(1)})));
  EXPECT_FALSE(isOnnxAttributeValue(b.getUnitAttr()));
}

} // namespace
