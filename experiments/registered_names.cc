#include "experiments/registered_names.h"

#include "baselines/torch/networks/torch_network.h"
#include "compiler/ops/template.h"
#include "costmodels/cost_model.h"
#include "search/explorers/explorer.h"
#include "workloads/networks/network.h"

namespace tessel::experiments {

KnownNames RegisteredNames() {
  KnownNames known;
  known.cost_models = costmodels::CostModelNames();
  known.explorers = search::ExplorerNames();
  for (const ops::Template* t : ops::AllTemplates()) known.templates.push_back(t->name);
  known.networks = workloads::networks::NetworkNames();
  for (const std::string& name : workloads::networks::ModernNetworkNames()) {
    known.networks.push_back(name);
  }
  for (const std::string& name : workloads::networks::FusionWorkloadNames()) {
    known.networks.push_back(name);
  }
  known.torch_networks = baselines::TorchNetworkNames();
  return known;
}

}  // namespace tessel::experiments
