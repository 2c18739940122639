#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tessel::ir {

enum class TypeCode : uint8_t { kInt, kUInt, kFloat, kBool, kHandle };

// The type of an expression's value: a scalar kind and width, and a lane count for vectors.
// Supported scalars: int8/16/32/64, uint1/8/32, float16/32/64, bool, and handle (a buffer's base
// address). `bool` is its own code: comparisons and logical operators produce it.
class DataType {
 public:
  constexpr DataType() = default;
  constexpr DataType(TypeCode code, int bits, int lanes = 1)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {TypeCode::kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {TypeCode::kUInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) {
    return {TypeCode::kFloat, bits, lanes};
  }
  static constexpr DataType Bool(int lanes = 1) { return {TypeCode::kBool, 1, lanes}; }
  static constexpr DataType Handle() { return {TypeCode::kHandle, 64, 1}; }

  constexpr TypeCode code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  // Bytes of one element (a lane); uint1 and bool are stored as one byte each.
  constexpr int bytes() const { return (bits_ + 7) / 8; }

  constexpr bool is_int() const { return code_ == TypeCode::kInt; }
  constexpr bool is_uint() const { return code_ == TypeCode::kUInt; }
  constexpr bool is_float() const { return code_ == TypeCode::kFloat; }
  constexpr bool is_bool() const { return code_ == TypeCode::kBool; }
  constexpr bool is_handle() const { return code_ == TypeCode::kHandle; }
  // Signed or unsigned integers, not bool.
  constexpr bool is_integer() const { return is_int() || is_uint(); }
  constexpr bool is_scalar() const { return lanes_ == 1; }
  constexpr bool is_vector() const { return lanes_ > 1; }

  constexpr DataType with_lanes(int lanes) const { return {code_, bits_, lanes}; }
  constexpr DataType element_of() const { return with_lanes(1); }

  constexpr bool operator==(const DataType& other) const {
    return code_ == other.code_ && bits_ == other.bits_ && lanes_ == other.lanes_;
  }
  constexpr bool operator!=(const DataType& other) const { return !(*this == other); }

  // "float32", "int8x16", "bool", "handle".
  std::string ToString() const;
  // The inverse of ToString, for the scalar types above and their vectors; an error names the
  // string it could not read.
  static absl::StatusOr<DataType> Parse(std::string_view text);

 private:
  TypeCode code_ = TypeCode::kInt;
  uint8_t bits_ = 32;
  uint16_t lanes_ = 1;
};

inline constexpr DataType kInt32 = DataType::Int(32);
inline constexpr DataType kInt64 = DataType::Int(64);
inline constexpr DataType kFloat32 = DataType::Float(32);
inline constexpr DataType kFloat64 = DataType::Float(64);
inline constexpr DataType kBool = DataType::Bool();

}  // namespace tessel::ir
