#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/expr.h"

// Buffer indices as linear forms, for the touch analysis of feature extraction.
//
// An index is read as  constant + sum_j coef_j * atom_j  where an atom is
//   - a loop variable (ranging over [0, extent) of its loop),
//   - a vector lane (a Ramp index: lane l of `lanes`),
//   - floordiv(form, d) or floormod(form, d) with d a positive constant (truncating Div and Mod
//     are read the same way: indices are not negative),
//   - anything else that depends on loops (a product of two loop-dependent terms, a min, a load,
//     ...): an opaque atom that takes every combination of its loops' values (one atom per set
//     of loops: two such terms over the same loops are read as one).
// Equal atoms are one atom (floordiv(f, 28) - floordiv(f, 28) is 0), so the unsimplified indices
// analysis lowering leaves read as well as simplified ones. Variables that are neither loops nor
// bound by Bind (shape parameters) count as constants.
//
// Over a set of loops S (the others held fixed), a form has
//   Span:    max - min + 1 of its values (1 + sum |coef| * (span(atom) - 1)),
//   Values:  an estimate of its number of distinct values, at most Span and at most the product
//            of its atoms' value counts;
// and Derivative(form, loop) is the change of the index when that loop's variable steps by one,
// away from the wrap-arounds of floordiv and floormod (so floormod(f, 30) * 30 +
// floordiv(f, 30) * 900 has derivative 30 in f, the stride a fused loop walks with).
namespace tessel::costmodels {

struct IndexTerm {
  double coef;
  int atom;
};

struct IndexForm {
  double constant = 0;
  std::vector<IndexTerm> terms;  // sorted by atom, no zero coefficients
};

// a + scale * b.
IndexForm Combine(const IndexForm& a, const IndexForm& b, double scale);

// Which loops a span or value count ranges over: in[loop] for each loop of the analysed program;
// extents[loop] its extent.
struct LoopSet {
  const std::vector<int64_t>* extents = nullptr;
  std::vector<char> in;
};

class IndexForms {
 public:
  // Declares loop number `loop` (0, 1, ... in order) with its variable.
  void AddLoop(const ir::Var& var, int loop);
  // A Let variable: its uses read as value's form.
  void Bind(const ir::Var& var, const ir::Expr& value);

  // The form of an integer index expression. A Ramp index adds a lane atom; a Broadcast index is
  // its value.
  IndexForm Form(const ir::Expr& e);

  double Span(const IndexForm& f, const LoopSet& s) const;
  double Values(const IndexForm& f, const LoopSet& s) const;
  double Derivative(const IndexForm& f, int loop) const;
  // Whether the form depends on this loop at all (through any atom).
  bool DependsOn(const IndexForm& f, int loop) const;

 private:
  enum class Kind { kLoop, kLane, kFloorDiv, kFloorMod, kOpaque };
  struct Atom {
    Kind kind;
    int64_t n = 0;           // kLoop: the loop; kLane: lanes; kFloorDiv/kFloorMod: the divisor
    IndexForm arg;           // kFloorDiv, kFloorMod
    std::vector<int> loops;  // every loop the atom depends on, sorted
  };
  using AtomKey =
      std::tuple<int, int64_t, double, std::vector<std::pair<int, double>>, std::vector<int>>;

  int Intern(Atom atom);
  IndexForm AtomForm(int atom) const;
  std::vector<int> LoopsOf(const IndexForm& f) const;
  IndexForm Opaque(const std::vector<const IndexForm*>& parts);
  IndexForm DivForm(const ir::Expr& a, const ir::Expr& b);
  IndexForm ModForm(const ir::Expr& a, const ir::Expr& b);
  double AtomSpan(int atom, const LoopSet& s) const;
  double AtomValues(int atom, const LoopSet& s) const;
  double AtomDerivative(int atom, int loop) const;

  std::vector<Atom> atoms_;
  std::map<AtomKey, int> atom_ids_;
  std::unordered_map<const ir::VarNode*, IndexForm> vars_;
};

}  // namespace tessel::costmodels
