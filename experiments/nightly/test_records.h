#pragma once

#include <string>
#include <vector>

#include "experiments/nightly/record.h"
#include "experiments/nightly/verdict.h"

// For the nightly tests: records and figures of a made-up machine.
namespace tessel::experiments::testing {

using nightly::Figure;
using nightly::Record;

// A quick-suite run on a Zen 3 ("AMD EPYC 7B13", znver3, 2 threads, clean) of `commit` at
// `date`, with these figures and no library versions.
Record TestRecord(const std::string& commit, const std::string& date,
                  std::vector<Figure> figures = {});

// MakeFigure with its value, and repeats at value times each factor.
Figure TestFigure(const std::string& name, const std::string& family, const std::string& unit,
                  bool higher_is_better, double value, const std::vector<double>& factors = {});

// The verdict's row for the figure `name`; a test failure (and an empty row) when it has none.
const nightly::FigureVerdict& Row(const nightly::Verdict& v, const std::string& name);

}  // namespace tessel::experiments::testing
