#include "costmodels/features/index_form.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"

namespace tessel::costmodels {
namespace {

bool IsConstant(const IndexForm& f) { return f.terms.empty(); }

}  // namespace

IndexForm Combine(const IndexForm& a, const IndexForm& b, double scale) {
  IndexForm r;
  r.constant = a.constant + scale * b.constant;
  r.terms.reserve(a.terms.size() + b.terms.size());
  size_t i = 0, j = 0;
  auto push = [&r](int atom, double coef) {
    if (coef != 0) r.terms.push_back({coef, atom});
  };
  while (i < a.terms.size() || j < b.terms.size()) {
    if (j == b.terms.size() || (i < a.terms.size() && a.terms[i].atom < b.terms[j].atom)) {
      push(a.terms[i].atom, a.terms[i].coef);
      ++i;
    } else if (i == a.terms.size() || b.terms[j].atom < a.terms[i].atom) {
      push(b.terms[j].atom, scale * b.terms[j].coef);
      ++j;
    } else {
      push(a.terms[i].atom, a.terms[i].coef + scale * b.terms[j].coef);
      ++i;
      ++j;
    }
  }
  return r;
}

namespace {

IndexForm Scale(IndexForm f, double scale) {
  if (scale == 0) return IndexForm{};
  f.constant *= scale;
  for (IndexTerm& t : f.terms) t.coef *= scale;
  return f;
}

bool DividesAll(const IndexForm& f, double d) {
  auto divides = [d](double x) { return std::fmod(x, d) == 0; };
  if (!divides(f.constant)) return false;
  return std::all_of(f.terms.begin(), f.terms.end(),
                     [&](const IndexTerm& t) { return divides(t.coef); });
}

// The positive integer divisor of a floordiv or floormod, or 0.
double Divisor(const IndexForm& f) {
  if (!IsConstant(f) || f.constant < 1 || f.constant != std::floor(f.constant)) return 0;
  return f.constant;
}

}  // namespace

void IndexForms::AddLoop(const ir::Var& var, int loop) {
  Atom atom{Kind::kLoop, loop, {}, {loop}};
  vars_[var.get()] = AtomForm(Intern(std::move(atom)));
}

void IndexForms::Bind(const ir::Var& var, const ir::Expr& value) { vars_[var.get()] = Form(value); }

int IndexForms::Intern(Atom atom) {
  std::vector<std::pair<int, double>> terms;
  terms.reserve(atom.arg.terms.size());
  for (const IndexTerm& t : atom.arg.terms) terms.emplace_back(t.atom, t.coef);
  AtomKey key{static_cast<int>(atom.kind), atom.n, atom.arg.constant, std::move(terms),
              atom.kind == Kind::kOpaque ? atom.loops : std::vector<int>{}};
  auto [it, inserted] = atom_ids_.emplace(std::move(key), static_cast<int>(atoms_.size()));
  if (inserted) atoms_.push_back(std::move(atom));
  return it->second;
}

IndexForm IndexForms::AtomForm(int atom) const { return IndexForm{0, {{1.0, atom}}}; }

std::vector<int> IndexForms::LoopsOf(const IndexForm& f) const {
  std::vector<int> loops;
  for (const IndexTerm& t : f.terms) {
    const std::vector<int>& l = atoms_[t.atom].loops;
    loops.insert(loops.end(), l.begin(), l.end());
  }
  std::sort(loops.begin(), loops.end());
  loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
  return loops;
}

IndexForm IndexForms::Opaque(const std::vector<const IndexForm*>& parts) {
  IndexForm all;
  for (const IndexForm* p : parts) all = Combine(all, *p, 1);
  std::vector<int> loops = LoopsOf(all);
  if (loops.empty()) return IndexForm{};  // depends on no loop: a constant for the analysis
  return AtomForm(Intern(Atom{Kind::kOpaque, 0, {}, std::move(loops)}));
}

IndexForm IndexForms::DivForm(const ir::Expr& x, const ir::Expr& y) {
  IndexForm a = Form(x), b = Form(y);
  const double d = Divisor(b);
  if (d == 0) return Opaque({&a, &b});
  if (IsConstant(a)) return IndexForm{std::floor(a.constant / d), {}};
  if (DividesAll(a, d)) return Scale(std::move(a), 1 / d);
  std::vector<int> loops = LoopsOf(a);
  return AtomForm(
      Intern(Atom{Kind::kFloorDiv, static_cast<int64_t>(d), std::move(a), std::move(loops)}));
}

IndexForm IndexForms::ModForm(const ir::Expr& x, const ir::Expr& y) {
  IndexForm a = Form(x), b = Form(y);
  const double d = Divisor(b);
  if (d == 0) return Opaque({&a, &b});
  // Terms that are multiples of d do not change the remainder.
  IndexForm rest;
  rest.constant = a.constant - d * std::floor(a.constant / d);
  for (const IndexTerm& t : a.terms) {
    if (std::fmod(t.coef, d) != 0) rest.terms.push_back(t);
  }
  if (IsConstant(rest)) return rest;
  std::vector<int> loops = LoopsOf(rest);
  return AtomForm(
      Intern(Atom{Kind::kFloorMod, static_cast<int64_t>(d), std::move(rest), std::move(loops)}));
}

IndexForm IndexForms::Form(const ir::Expr& e) {
  switch (e.kind()) {
    case ir::NodeKind::kIntImm:
      return IndexForm{static_cast<double>(e.as<ir::IntImmNode>()->value), {}};
    case ir::NodeKind::kVar: {
      auto it = vars_.find(e.as<ir::VarNode>());
      return it == vars_.end() ? IndexForm{} : it->second;
    }
    case ir::NodeKind::kCast:
      return Form(e.as<ir::CastNode>()->value);
    case ir::NodeKind::kBroadcast:
      return Form(e.as<ir::BroadcastNode>()->value);
    case ir::NodeKind::kAdd: {
      const auto* op = e.as<ir::AddNode>();
      return Combine(Form(op->a), Form(op->b), 1);
    }
    case ir::NodeKind::kSub: {
      const auto* op = e.as<ir::SubNode>();
      return Combine(Form(op->a), Form(op->b), -1);
    }
    case ir::NodeKind::kMul: {
      const auto* op = e.as<ir::MulNode>();
      IndexForm a = Form(op->a), b = Form(op->b);
      if (IsConstant(a)) return Scale(std::move(b), a.constant);
      if (IsConstant(b)) return Scale(std::move(a), b.constant);
      return Opaque({&a, &b});
    }
    case ir::NodeKind::kDiv:
      return DivForm(e.as<ir::DivNode>()->a, e.as<ir::DivNode>()->b);
    case ir::NodeKind::kFloorDiv:
      return DivForm(e.as<ir::FloorDivNode>()->a, e.as<ir::FloorDivNode>()->b);
    case ir::NodeKind::kMod:
      return ModForm(e.as<ir::ModNode>()->a, e.as<ir::ModNode>()->b);
    case ir::NodeKind::kFloorMod:
      return ModForm(e.as<ir::FloorModNode>()->a, e.as<ir::FloorModNode>()->b);
    case ir::NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      IndexForm base = Form(op->base), stride = Form(op->stride);
      if (!IsConstant(stride)) return Opaque({&base, &stride});
      const int lane = Intern(Atom{Kind::kLane, op->lanes, {}, {}});
      return Combine(base, AtomForm(lane), stride.constant);
    }
    case ir::NodeKind::kLet: {
      const auto* op = e.as<ir::LetNode>();
      Bind(op->var, op->value);
      return Form(op->body);
    }
    default:
      break;
  }
  // Anything else: an opaque function of the loops it mentions.
  std::vector<IndexForm> uses;
  ir::PreOrderVisit(ir::Evaluate(e), [&](const ir::Expr& sub) {
    if (const auto* v = sub.as<ir::VarNode>()) {
      auto it = vars_.find(v);
      if (it != vars_.end()) uses.push_back(it->second);
    }
  });
  std::vector<const IndexForm*> parts;
  for (const IndexForm& u : uses) parts.push_back(&u);
  return Opaque(parts);
}

double IndexForms::AtomSpan(int id, const LoopSet& s) const {
  const Atom& a = atoms_[id];
  switch (a.kind) {
    case Kind::kLoop:
      return s.in[a.n] ? static_cast<double>((*s.extents)[a.n]) : 1;
    case Kind::kLane:
      return static_cast<double>(a.n);
    case Kind::kFloorDiv:
      return std::floor((Span(a.arg, s) - 1) / static_cast<double>(a.n)) + 1;
    case Kind::kFloorMod:
      return std::min(Span(a.arg, s), static_cast<double>(a.n));
    case Kind::kOpaque:
      return AtomValues(id, s);
  }
  return 1;
}

double IndexForms::AtomValues(int id, const LoopSet& s) const {
  const Atom& a = atoms_[id];
  switch (a.kind) {
    case Kind::kLoop:
    case Kind::kLane:
      return AtomSpan(id, s);
    case Kind::kFloorDiv:
      return std::min(Values(a.arg, s), AtomSpan(id, s));
    case Kind::kFloorMod:
      return std::min(Values(a.arg, s), static_cast<double>(a.n));
    case Kind::kOpaque: {
      double v = 1;
      for (int loop : a.loops) {
        if (s.in[loop]) v *= static_cast<double>((*s.extents)[loop]);
      }
      return v;
    }
  }
  return 1;
}

double IndexForms::Span(const IndexForm& f, const LoopSet& s) const {
  double span = 1;
  for (const IndexTerm& t : f.terms) span += std::abs(t.coef) * (AtomSpan(t.atom, s) - 1);
  return span;
}

double IndexForms::Values(const IndexForm& f, const LoopSet& s) const {
  double product = 1;
  for (const IndexTerm& t : f.terms) product *= AtomValues(t.atom, s);
  return std::max(1.0, std::min(product, Span(f, s)));
}

double IndexForms::AtomDerivative(int id, int loop) const {
  const Atom& a = atoms_[id];
  const double d = static_cast<double>(a.n);
  switch (a.kind) {
    case Kind::kLoop:
      return a.n == loop ? 1 : 0;
    case Kind::kLane:
    case Kind::kOpaque:
      return 0;
    case Kind::kFloorDiv: {
      const double g = Derivative(a.arg, loop);
      return std::abs(g) >= d ? g / d : 0;
    }
    case Kind::kFloorMod: {
      const double g = Derivative(a.arg, loop);
      return std::abs(g) < d ? g : std::fmod(g, d);
    }
  }
  return 0;
}

double IndexForms::Derivative(const IndexForm& f, int loop) const {
  double g = 0;
  for (const IndexTerm& t : f.terms) g += t.coef * AtomDerivative(t.atom, loop);
  return g;
}

bool IndexForms::DependsOn(const IndexForm& f, int loop) const {
  for (const IndexTerm& t : f.terms) {
    const std::vector<int>& l = atoms_[t.atom].loops;
    if (std::binary_search(l.begin(), l.end(), loop)) return true;
  }
  return false;
}

}  // namespace tessel::costmodels
