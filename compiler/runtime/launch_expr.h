#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

// The launch configuration of a kernel as the runtime evaluates it: each grid and block extent
// is a small integer expression over the kernel's argument slots (function_signature.h: the
// parameters, then the variables shapes define), so that one compiled kernel serves every shape
// its parameters allow. The code generator writes them; the runtime evaluates them at each
// launch. Kept independent of the IR: the runtime does not see compiler/ir. Shared by the GPU
// runtimes (cuda/: grid and block; opencl/: global size = grid x block, local size = block).
namespace tessel::runtime {

class LaunchExpr {
 public:
  // Integer arithmetic on int64: kDiv/kMod truncate (C), kFloorDiv/kFloorMod round toward
  // negative infinity (ir/node.h's semantics); comparisons and kAnd/kOr give 0 or 1; kSelect
  // takes three operands (condition, then, else), the others two.
  enum class Op : uint8_t {
    kConst, kSlot, kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax,
    kLT, kLE, kGT, kGE, kEQ, kNE, kAnd, kOr, kSelect
  };
  struct Token {
    Op op;
    int64_t value;  // the constant of kConst, the slot of kSlot
  };

  LaunchExpr() : LaunchExpr(Constant(1)) {}
  static LaunchExpr Constant(int64_t value);
  static LaunchExpr Slot(int slot);
  // a op b, for the binary operators.
  static LaunchExpr Binary(Op op, const LaunchExpr& a, const LaunchExpr& b);
  // c ? a : b.
  static LaunchExpr Select(const LaunchExpr& c, const LaunchExpr& a, const LaunchExpr& b);

  // The value for the given slot values (int64 in their uint64 bits, as PackArguments fills
  // them). InvalidArgument on a division by zero or a slot past num_slots.
  absl::StatusOr<int64_t> Evaluate(const uint64_t* slots, int num_slots) const;

  // The value, if the expression uses no slot.
  bool is_constant() const;

  // Postfix text, tokens separated by spaces: integers, "$N" for slot N, "+ - * / % fdiv fmod
  // min max < <= > >= == != && || select"; e.g. "$3 63 + 64 /". Parse reads it back; an error names the malformed token.
  std::string ToString() const;
  static absl::StatusOr<LaunchExpr> Parse(const std::string& text);

  const std::vector<Token>& tokens() const { return tokens_; }

 private:
  explicit LaunchExpr(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}
  std::vector<Token> tokens_;
};

// Grid (blockIdx) and block (threadIdx) extents, x, y, z; an axis no loop is bound to is 1.
struct LaunchDims {
  std::array<LaunchExpr, 3> grid;
  std::array<LaunchExpr, 3> block;
};

}  // namespace tessel::runtime
