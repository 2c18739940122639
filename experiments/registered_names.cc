#include "experiments/registered_names.h"

#include "compiler/ops/template.h"
#include "costmodels/cost_model.h"
#include "search/explorers/explorer.h"

namespace tessel::experiments {

KnownNames RegisteredNames() {
  KnownNames known;
  known.cost_models = costmodels::CostModelNames();
  known.explorers = search::ExplorerNames();
  for (const ops::Template* t : ops::AllTemplates()) known.templates.push_back(t->name);
  return known;
}

}  // namespace tessel::experiments
