#include "experiments/nightly/test_records.h"

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

}  // namespace tessel::experiments::testing
