#include "compiler/runtime/dltype.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::runtime {
namespace {

using ::testing::HasSubstr;

DLDataType Type(uint8_t code, uint8_t bits, uint16_t lanes = 1) { return {code, bits, lanes}; }

TEST(DLTypeTest, Names) {
  EXPECT_EQ(DLTypeToString(Type(kDLFloat, 32)), "float32");
  EXPECT_EQ(DLTypeToString(Type(kDLInt, 8)), "int8");
  EXPECT_EQ(DLTypeToString(Type(kDLUInt, 1)), "uint1");
  EXPECT_EQ(DLTypeToString(Type(kDLFloat, 32, 4)), "float32x4");
  EXPECT_EQ(DLTypeToString(Type(kDLBfloat, 16)), "bfloat16");
  EXPECT_EQ(DLTypeToString(Type(kDLBool, 8)), "bool");
  EXPECT_EQ(DLTypeToString(Type(kDLBool, 8, 16)), "boolx16");
  EXPECT_EQ(DLTypeToString(Type(kDLComplex, 64)), "code5_64");
  EXPECT_EQ(DLTypeToString(Type(kDLBool, 1)), "code6_1");
}

TEST(DLTypeTest, NamedTypesParseBack) {
  for (const char* name : {"float16", "float32", "float64", "bfloat16", "int1", "int4", "int8",
                           "int16", "int32", "int64", "uint1", "uint8", "uint64", "bool",
                           "float32x4", "int8x64", "boolx2", "uint16x65535"}) {
    absl::StatusOr<DLDataType> t = ParseDLType(name);
    ASSERT_TRUE(t.ok()) << name << ": " << t.status();
    EXPECT_EQ(DLTypeToString(*t), name);
  }
  EXPECT_TRUE(SameDLType(*ParseDLType("bool"), Type(kDLBool, 8)));
  EXPECT_TRUE(SameDLType(*ParseDLType("float32x8"), Type(kDLFloat, 32, 8)));
}

TEST(DLTypeTest, BadNamesAreErrorsQuotingTheText) {
  for (const char* name : {"", "float", "float8", "float128", "int0", "int65", "int256", "bfloat32",
                           "int32x", "int32x0", "int32x65536", "float32x4x2", "bool8", "Float32",
                           "int-8", "int 8", "code5_64", "x4", "uint"}) {
    absl::StatusOr<DLDataType> t = ParseDLType(name);
    ASSERT_FALSE(t.ok()) << name;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(t.status().message(), HasSubstr(absl::StrCat("'", name, "' is not a DLPack type")));
  }
}

TEST(DLTypeTest, BytesAndEquality) {
  EXPECT_EQ(DLTypeBytes(Type(kDLFloat, 32)), 4);
  EXPECT_EQ(DLTypeBytes(Type(kDLFloat, 32, 4)), 16);
  EXPECT_EQ(DLTypeBytes(Type(kDLUInt, 1)), 1);
  EXPECT_EQ(DLTypeBytes(Type(kDLInt, 4, 2)), 1);
  EXPECT_EQ(DLTypeBytes(Type(kDLBool, 8)), 1);
  EXPECT_TRUE(SameDLType(Type(kDLInt, 32), Type(kDLInt, 32)));
  EXPECT_FALSE(SameDLType(Type(kDLInt, 32), Type(kDLUInt, 32)));
  EXPECT_FALSE(SameDLType(Type(kDLInt, 32), Type(kDLInt, 16)));
  EXPECT_FALSE(SameDLType(Type(kDLInt, 32), Type(kDLInt, 32, 2)));
}

}  // namespace
}  // namespace tessel::runtime
