#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/arith/const_int_bound.h"
#include "compiler/arith/int_set.h"
#include "compiler/arith/modular_set.h"
#include "compiler/ir/expr.h"

// The facts an Analyzer holds about variables (private to compiler/arith), with an undo log so
// that scopes can take back what was bound inside them.
namespace tessel::arith::internal {

// Everything known about one variable; an empty field is "nothing known".
struct VarFacts {
  std::optional<ConstIntBound> bound;
  std::optional<ModularSet> modular;
  ir::Expr value;               // Simplify replaces the variable by this
  std::optional<IntSet> range;  // symbolic range, for proofs through IntSet evaluation
};

class AnalyzerState {
 public:
  ConstIntBoundMap bounds;
  ModularSetMap modular;
  std::unordered_map<const ir::VarNode*, ir::Expr> values;
  IntSetMap ranges;
  // Entries of `ranges` with an end that is not an immediate: SymbolicBound has work only then.
  int symbolic_ranges = 0;
  // Set while Analyzer::SymbolicBound runs, so the simplification it does skips it.
  bool in_symbolic_proof = false;

  // Replaces var's facts (recording the old ones for Restore).
  void Set(const ir::VarNode* var, VarFacts facts);
  size_t Mark() const { return undo_.size(); }
  // Undoes every Set since Mark() returned mark, latest first.
  void Restore(size_t mark);

 private:
  struct Undo {
    const ir::VarNode* var;
    VarFacts previous;
  };
  VarFacts Get(const ir::VarNode* var) const;
  void Put(const ir::VarNode* var, const VarFacts& facts);

  std::vector<Undo> undo_;
};

}  // namespace tessel::arith::internal
