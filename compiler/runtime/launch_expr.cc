#include "compiler/runtime/launch_expr.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>

namespace tessel::runtime {
namespace {

struct OpName {
  LaunchExpr::Op op;
  const char* text;
};

constexpr OpName kOpNames[] = {
    {LaunchExpr::Op::kAdd, "+"},         {LaunchExpr::Op::kSub, "-"},
    {LaunchExpr::Op::kMul, "*"},         {LaunchExpr::Op::kDiv, "/"},
    {LaunchExpr::Op::kMod, "%"},         {LaunchExpr::Op::kFloorDiv, "fdiv"},
    {LaunchExpr::Op::kFloorMod, "fmod"}, {LaunchExpr::Op::kMin, "min"},
    {LaunchExpr::Op::kMax, "max"},       {LaunchExpr::Op::kLT, "<"},
    {LaunchExpr::Op::kLE, "<="},         {LaunchExpr::Op::kGT, ">"},
    {LaunchExpr::Op::kGE, ">="},         {LaunchExpr::Op::kEQ, "=="},
    {LaunchExpr::Op::kNE, "!="},         {LaunchExpr::Op::kAnd, "&&"},
    {LaunchExpr::Op::kOr, "||"},         {LaunchExpr::Op::kSelect, "select"},
};

int Arity(LaunchExpr::Op op) {
  switch (op) {
    case LaunchExpr::Op::kConst:
    case LaunchExpr::Op::kSlot:
      return 0;
    case LaunchExpr::Op::kSelect:
      return 3;
    default:
      return 2;
  }
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

LaunchExpr LaunchExpr::Constant(int64_t value) { return LaunchExpr({{Op::kConst, value}}); }
LaunchExpr LaunchExpr::Select(const LaunchExpr& c, const LaunchExpr& a, const LaunchExpr& b) {
  std::vector<Token> tokens = c.tokens_;
  tokens.insert(tokens.end(), a.tokens_.begin(), a.tokens_.end());
  tokens.insert(tokens.end(), b.tokens_.begin(), b.tokens_.end());
  tokens.push_back({Op::kSelect, 0});
  return LaunchExpr(std::move(tokens));
}

LaunchExpr LaunchExpr::Slot(int slot) { return LaunchExpr({{Op::kSlot, slot}}); }

LaunchExpr LaunchExpr::Binary(Op op, const LaunchExpr& a, const LaunchExpr& b) {
  std::vector<Token> tokens = a.tokens_;
  tokens.insert(tokens.end(), b.tokens_.begin(), b.tokens_.end());
  tokens.push_back({op, 0});
  return LaunchExpr(std::move(tokens));
}

bool LaunchExpr::is_constant() const {
  return std::none_of(tokens_.begin(), tokens_.end(),
                      [](const Token& t) { return t.op == Op::kSlot; });
}

absl::StatusOr<int64_t> LaunchExpr::Evaluate(const uint64_t* slots, int num_slots) const {
  std::vector<int64_t> stack;
  for (const Token& t : tokens_) {
    if (t.op == Op::kConst) {
      stack.push_back(t.value);
      continue;
    }
    if (t.op == Op::kSlot) {
      if (t.value < 0 || t.value >= num_slots) {
        return absl::InvalidArgumentError(absl::StrCat("launch extent '", ToString(),
                                                       "' reads slot ", t.value, " of ", num_slots));
      }
      stack.push_back(static_cast<int64_t>(slots[t.value]));
      continue;
    }
    if (stack.size() < static_cast<size_t>(Arity(t.op))) {
      return absl::InvalidArgumentError(absl::StrCat("malformed launch extent '", ToString(), "'"));
    }
    if (t.op == Op::kSelect) {
      const int64_t no = stack.back();
      stack.pop_back();
      const int64_t yes = stack.back();
      stack.pop_back();
      stack.back() = stack.back() != 0 ? yes : no;
      continue;
    }
    const int64_t b = stack.back();
    stack.pop_back();
    const int64_t a = stack.back();
    int64_t r = 0;
    const bool divides = t.op == Op::kDiv || t.op == Op::kMod || t.op == Op::kFloorDiv ||
                         t.op == Op::kFloorMod;
    if (divides && b == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch extent '", ToString(), "' divides by zero"));
    }
    switch (t.op) {
      case Op::kAdd: r = a + b; break;
      case Op::kSub: r = a - b; break;
      case Op::kMul: r = a * b; break;
      case Op::kDiv: r = a / b; break;
      case Op::kMod: r = a % b; break;
      case Op::kFloorDiv: r = FloorDiv(a, b); break;
      case Op::kFloorMod: r = a - FloorDiv(a, b) * b; break;
      case Op::kMin: r = std::min(a, b); break;
      case Op::kMax: r = std::max(a, b); break;
      case Op::kLT: r = a < b; break;
      case Op::kLE: r = a <= b; break;
      case Op::kGT: r = a > b; break;
      case Op::kGE: r = a >= b; break;
      case Op::kEQ: r = a == b; break;
      case Op::kNE: r = a != b; break;
      case Op::kAnd: r = a != 0 && b != 0; break;
      case Op::kOr: r = a != 0 || b != 0; break;
      case Op::kConst:
      case Op::kSlot:
      case Op::kSelect: break;
    }
    stack.back() = r;
  }
  if (stack.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("malformed launch extent '", ToString(), "'"));
  }
  return stack.back();
}

std::string LaunchExpr::ToString() const {
  std::vector<std::string> words;
  for (const Token& t : tokens_) {
    if (t.op == Op::kConst) {
      words.push_back(absl::StrCat(t.value));
    } else if (t.op == Op::kSlot) {
      words.push_back(absl::StrCat("$", t.value));
    } else {
      for (const OpName& n : kOpNames) {
        if (n.op == t.op) words.push_back(n.text);
      }
    }
  }
  return absl::StrJoin(words, " ");
}

absl::StatusOr<LaunchExpr> LaunchExpr::Parse(const std::string& text) {
  std::vector<Token> tokens;
  int depth = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    int64_t value = 0;
    if (absl::SimpleAtoi(word, &value)) {
      tokens.push_back({Op::kConst, value});
      ++depth;
      continue;
    }
    if (word.size() > 1 && word[0] == '$' && absl::SimpleAtoi(word.substr(1), &value) &&
        value >= 0) {
      tokens.push_back({Op::kSlot, value});
      ++depth;
      continue;
    }
    const OpName* found = nullptr;
    for (const OpName& n : kOpNames) {
      if (word == n.text) found = &n;
    }
    if (found == nullptr || depth < Arity(found->op)) {
      return absl::InvalidArgumentError(
          absl::StrCat("launch extent '", text, "': unexpected token '", std::string(word), "'"));
    }
    tokens.push_back({found->op, 0});
    depth -= Arity(found->op) - 1;
  }
  if (depth != 1) {
    return absl::InvalidArgumentError(absl::StrCat("launch extent '", text, "' is incomplete"));
  }
  return LaunchExpr(std::move(tokens));
}

}  // namespace tessel::runtime
