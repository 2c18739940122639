#include "experiments/nightly/test_records.h"

#include <gtest/gtest.h>

namespace tessel::experiments::testing {

using nightly::MakeFigure;

Record TestRecord(const std::string& commit, const std::string& date, std::vector<Figure> figures) {
  Record r;
  r.date = date;
  r.commit = commit;
  r.state = "clean";
  r.suite = "quick";
  r.machine = "AMD EPYC 7B13";
  r.cpu = "znver3";
  r.threads = 2;
  r.figures = std::move(figures);
  return r;
}

Figure TestFigure(const std::string& name, const std::string& family, const std::string& unit,
                  bool higher_is_better, double value, const std::vector<double>& factors) {
  Figure f = MakeFigure(name, family, unit, higher_is_better);
  f.value = value;
  for (double k : factors) f.repeats.push_back(value * k);
  return f;
}

const nightly::FigureVerdict& Row(const nightly::Verdict& v, const std::string& name) {
  for (const nightly::FigureVerdict& f : v.figures) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no row for " << name;
  static const nightly::FigureVerdict kNone;
  return kNone;
}

}  // namespace tessel::experiments::testing
