#pragma once

#include <optional>

#include "compiler/ir/var.h"

// Let scoping for the recursive analyses (private to compiler/arith): a Let's variable holds its
// value's fact while the body is analysed, and whatever the variable held before comes back after.
namespace tessel::arith::internal {

// body() with locals[var] = fact; locals is as before afterwards.
template <typename Map, typename Body>
auto WithLocal(Map& locals, const ir::VarNode* var, typename Map::mapped_type fact, Body body) {
  std::optional<typename Map::mapped_type> saved;
  if (auto it = locals.find(var); it != locals.end()) saved = it->second;
  locals.insert_or_assign(var, std::move(fact));
  auto result = body();
  if (saved) {
    locals.insert_or_assign(var, *saved);
  } else {
    locals.erase(var);
  }
  return result;
}

}  // namespace tessel::arith::internal
