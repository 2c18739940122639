#include "compiler/graph/passes/fuse_ops.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <functional>
#include <map>

#include "compiler/support/check.h"

namespace tessel::graph::passes {
namespace {

OpPattern Max(OpPattern a, OpPattern b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

bool IsMasterPattern(OpPattern p) {
  return p == OpPattern::kOutEWiseFusable || p == OpPattern::kCommReduce || p == OpPattern::kOpaque;
}

OpPattern PatternOf(const Node& node) {
  absl::StatusOr<const OpDef*> def = FindOpDef(node.op);
  TESSEL_CHECK(def.ok()) << "fusion of an unverified graph: " << def.status().message();
  return (*def)->pattern;
}

// The dataflow between nodes, with each edge's pattern: how the reader uses the value.
struct NodeGraph {
  struct Edge {
    int to;
    OpPattern pattern;
  };
  std::vector<OpPattern> pattern;
  std::vector<std::vector<Edge>> readers;
  // A node with an output that is a graph output or that nothing reads: some path from it leaves
  // the graph without passing another node.
  std::vector<bool> exits;
};

NodeGraph BuildNodeGraph(const Graph& g) {
  const size_t n = g.nodes.size();
  NodeGraph ng{std::vector<OpPattern>(n), std::vector<std::vector<NodeGraph::Edge>>(n),
               std::vector<bool>(n, false)};
  for (size_t i = 0; i < n; ++i) ng.pattern[i] = PatternOf(g.nodes[i]);
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId id : g.outputs) is_output[static_cast<size_t>(id)] = true;
  const std::vector<std::vector<int>> consumers = g.Consumers();
  for (size_t i = 0; i < n; ++i) {
    for (ValueId v : g.nodes[i].outputs) {
      const std::vector<int>& readers = consumers[static_cast<size_t>(v)];
      if (is_output[static_cast<size_t>(v)] || readers.empty()) ng.exits[i] = true;
      for (int r : readers) {
        const Node& reader = g.nodes[static_cast<size_t>(r)];
        OpPattern p = ng.pattern[static_cast<size_t>(r)];
        // A broadcast reader takes a full-size input element by element.
        if (p == OpPattern::kBroadcast && g.type(v).shape == g.type(reader.outputs[0]).shape) {
          p = OpPattern::kElemWise;
        }
        ng.readers[i].push_back({r, p});
      }
    }
  }
  return ng;
}

// The post-dominator tree: parent[i] is node i's immediate post-dominator (-1: the graph's exit),
// and pattern[i] the largest edge pattern on the paths from i to it.
struct PostDominators {
  std::vector<int> parent, depth;
  std::vector<OpPattern> pattern;

  explicit PostDominators(const NodeGraph& ng) {
    const int n = static_cast<int>(ng.pattern.size());
    parent.assign(static_cast<size_t>(n), -1);
    depth.assign(static_cast<size_t>(n), 1);
    pattern.assign(static_cast<size_t>(n), OpPattern::kOpaque);
    for (int i = n - 1; i >= 0; --i) {
      const auto& readers = ng.readers[static_cast<size_t>(i)];
      if (ng.exits[static_cast<size_t>(i)] || readers.empty()) continue;
      OpPattern p = OpPattern::kElemWise;
      int lca = readers[0].to;
      for (const NodeGraph::Edge& e : readers) {
        p = Max(p, e.pattern);
        lca = CommonAncestor(lca, e.to, &p);
      }
      parent[static_cast<size_t>(i)] = lca;
      depth[static_cast<size_t>(i)] = lca < 0 ? 1 : depth[static_cast<size_t>(lca)] + 1;
      pattern[static_cast<size_t>(i)] = p;
    }
  }

  // The nearest common ancestor of a and b (-1: the exit), widening *p by the patterns passed.
  int CommonAncestor(int a, int b, OpPattern* p) const {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      const int da = depth[static_cast<size_t>(a)], db = depth[static_cast<size_t>(b)];
      if (da <= db) {
        *p = Max(*p, pattern[static_cast<size_t>(b)]);
        b = parent[static_cast<size_t>(b)];
      }
      if (da >= db) {
        *p = Max(*p, pattern[static_cast<size_t>(a)]);
        a = parent[static_cast<size_t>(a)];
      }
    }
    return a;
  }
};

// Groups as a union-find forest; a root holds its group's size, pattern and master.
class Groups {
 public:
  explicit Groups(const NodeGraph& ng) {
    const size_t n = ng.pattern.size();
    for (size_t i = 0; i < n; ++i) {
      parent_.push_back(static_cast<int>(i));
      size_.push_back(1);
      pattern_.push_back(ng.pattern[i]);
      master_.push_back(IsMasterPattern(ng.pattern[i]) ? static_cast<int>(i) : -1);
    }
  }
  int Find(int i) {
    while (parent_[static_cast<size_t>(i)] != i) {
      int& p = parent_[static_cast<size_t>(i)];
      p = parent_[static_cast<size_t>(p)];
      i = p;
    }
    return i;
  }
  OpPattern pattern(int i) { return pattern_[static_cast<size_t>(Find(i))]; }
  int size(int i) { return size_[static_cast<size_t>(Find(i))]; }
  int master(int i) { return master_[static_cast<size_t>(Find(i))]; }
  // Merges i's group into j's.
  void Merge(int i, int j) {
    const auto a = static_cast<size_t>(Find(i)), b = static_cast<size_t>(Find(j));
    if (a == b) return;
    TESSEL_CHECK(master_[a] < 0 || master_[b] < 0) << "fusion merges two masters";
    parent_[a] = static_cast<int>(b);
    size_[b] += size_[a];
    pattern_[b] = Max(pattern_[a], pattern_[b]);
    if (master_[b] < 0) master_[b] = master_[a];
  }

 private:
  std::vector<int> parent_, size_, master_;
  std::vector<OpPattern> pattern_;
};

class Fuser {
 public:
  Fuser(const NodeGraph& ng, int max_group_size)
      : ng_(ng), pdom_(ng), groups_(ng), max_group_size_(max_group_size) {}

  Groups& Run() {
    const int n = static_cast<int>(ng_.pattern.size());
    for (int phase = 0; phase < 2; ++phase) {
      for (int i = 0; i < n; ++i) Visit(i, phase);
    }
    return groups_;
  }

 private:
  using Condition = std::function<bool(OpPattern group_pattern, bool is_sink)>;

  void Visit(int i, int phase) {
    const int sink = pdom_.parent[static_cast<size_t>(i)];
    if (sink < 0 || groups_.Find(i) == groups_.Find(sink)) return;
    const OpPattern mine = groups_.pattern(i);
    const OpPattern path = pdom_.pattern[static_cast<size_t>(i)];
    using P = OpPattern;
    if (mine == P::kOutEWiseFusable) {
      // The complex node's output must reach the sink element by element, through element-wise
      // and broadcast nodes only.
      if (phase != 0 || path != P::kElemWise) return;
      TryFuse(i, sink, [](P p, bool) { return p <= P::kBroadcast; });
    } else if (mine <= P::kBroadcast) {
      if (!(path <= P::kInjective || path == P::kCommReduce)) return;
      TryFuse(i, sink, [](P p, bool is_sink) {
        return is_sink ? p <= P::kOutEWiseFusable : p <= P::kInjective;
      });
    } else if (mine == P::kInjective) {
      // After phase 0, so complex nodes have taken their element-wise tails first.
      if (phase != 1) return;
      TryFuse(i, sink, [](P p, bool) { return p <= P::kInjective; });
    }
    // Reductions and opaque nodes fuse into nothing.
  }

  // The nodes on the paths from src (excluded) to sink (included), or false when one of them
  // fails cond.
  bool PathNodes(int src, int sink, const Condition& cond, std::vector<int>* nodes) {
    std::vector<bool> seen(ng_.pattern.size(), false);
    std::vector<int> stack;
    for (const NodeGraph::Edge& e : ng_.readers[static_cast<size_t>(src)]) stack.push_back(e.to);
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(x)]) continue;
      seen[static_cast<size_t>(x)] = true;
      if (!cond(groups_.pattern(x), x == sink)) return false;
      nodes->push_back(x);
      if (x == sink) continue;
      for (const NodeGraph::Edge& e : ng_.readers[static_cast<size_t>(x)]) stack.push_back(e.to);
    }
    return true;
  }

  void TryFuse(int src, int sink, const Condition& cond) {
    std::vector<int> path;
    if (!PathNodes(src, sink, cond, &path)) return;
    absl::flat_hash_set<int> roots = {groups_.Find(src)};
    for (int x : path) roots.insert(groups_.Find(x));
    int size = 0;
    for (int r : roots) size += groups_.size(r);
    if (size > max_group_size_) return;
    groups_.Merge(src, sink);
    for (int x : path) groups_.Merge(x, sink);
  }

  const NodeGraph& ng_;
  PostDominators pdom_;
  Groups groups_;
  int max_group_size_;
};

}  // namespace

void FillGroupInputsAndOutputs(const Graph& g, FusionPlan& plan) {
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId id : g.outputs) is_output[static_cast<size_t>(id)] = true;
  const std::vector<std::vector<int>> consumers = g.Consumers();
  auto group_of_value = [&](ValueId id) {
    const Value& v = g.value(id);
    return v.kind == ValueKind::kNodeOutput ? plan.group_of[static_cast<size_t>(v.node)] : -1;
  };
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    FusionGroup& group = plan.groups[k];
    const int gk = static_cast<int>(k);
    group.inputs.clear();
    group.outputs.clear();
    for (int n : group.nodes) {
      const Node& node = g.nodes[static_cast<size_t>(n)];
      for (ValueId id : node.inputs) {
        if (group_of_value(id) != gk &&
            std::find(group.inputs.begin(), group.inputs.end(), id) == group.inputs.end()) {
          group.inputs.push_back(id);
        }
      }
      for (ValueId id : node.outputs) {
        const std::vector<int>& readers = consumers[static_cast<size_t>(id)];
        bool needed = is_output[static_cast<size_t>(id)] || readers.empty();
        for (int r : readers) needed = needed || plan.group_of[static_cast<size_t>(r)] != gk;
        if (needed) group.outputs.push_back(id);
      }
    }
  }
}

absl::StatusOr<FusionPlan> FuseOps(const Graph& g, const FuseOptions& options) {
  if (options.max_group_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FuseOptions.max_group_size must be at least 1, got ", options.max_group_size));
  }
  const NodeGraph ng = BuildNodeGraph(g);
  const int n = static_cast<int>(g.nodes.size());
  std::vector<int> root(static_cast<size_t>(n));
  std::vector<int> master(static_cast<size_t>(n));
  std::vector<OpPattern> pattern(static_cast<size_t>(n));
  if (options.enabled) {
    Fuser fuser(ng, options.max_group_size);
    Groups& groups = fuser.Run();
    for (int i = 0; i < n; ++i) {
      root[static_cast<size_t>(i)] = groups.Find(i);
      master[static_cast<size_t>(i)] = groups.master(i);
      pattern[static_cast<size_t>(i)] = groups.pattern(i);
    }
  } else {
    for (int i = 0; i < n; ++i) {
      root[static_cast<size_t>(i)] = i;
      master[static_cast<size_t>(i)] = IsMasterPattern(ng.pattern[static_cast<size_t>(i)]) ? i : -1;
      pattern[static_cast<size_t>(i)] = ng.pattern[static_cast<size_t>(i)];
    }
  }
  // Groups ordered by their last node: every node of a group precedes its last one, and a group
  // reading another's output reads it after that group's last node.
  std::map<int, std::vector<int>> by_root;
  for (int i = 0; i < n; ++i) by_root[root[static_cast<size_t>(i)]].push_back(i);
  std::vector<std::vector<int>> members;
  for (auto& [r, nodes] : by_root) members.push_back(std::move(nodes));
  std::sort(
      members.begin(), members.end(),
      [](const std::vector<int>& a, const std::vector<int>& b) { return a.back() < b.back(); });
  FusionPlan plan;
  plan.group_of.assign(static_cast<size_t>(n), -1);
  for (std::vector<int>& nodes : members) {
    FusionGroup group;
    group.master = master[static_cast<size_t>(nodes[0])];
    group.pattern = pattern[static_cast<size_t>(nodes[0])];
    for (int i : nodes)
      plan.group_of[static_cast<size_t>(i)] = static_cast<int>(plan.groups.size());
    group.nodes = std::move(nodes);
    plan.groups.push_back(std::move(group));
  }
  FillGroupInputsAndOutputs(g, plan);
  return plan;
}

absl::Status CheckFusionPlan(const Graph& g, const FusionPlan& plan) {
  const size_t n = g.nodes.size();
  auto error = [](size_t k, const std::string& what) {
    return absl::InternalError(absl::StrCat("fusion group ", k, ": ", what));
  };
  if (plan.group_of.size() != n) {
    return absl::InternalError(
        absl::StrCat("the fusion plan places ", plan.group_of.size(), " nodes, the graph has ", n));
  }
  std::vector<int> seen(n, 0);
  FusionPlan expected;
  expected.group_of = plan.group_of;
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    const FusionGroup& group = plan.groups[k];
    if (group.nodes.empty()) return error(k, "is empty");
    int masters = 0, opaque = 0, complex = -1;
    OpPattern pattern = OpPattern::kElemWise;
    for (size_t j = 0; j < group.nodes.size(); ++j) {
      const int i = group.nodes[j];
      if (i < 0 || static_cast<size_t>(i) >= n)
        return error(k, absl::StrCat("node ", i, " does not exist"));
      if (j > 0 && i <= group.nodes[j - 1]) return error(k, "nodes are not in increasing order");
      if (plan.group_of[static_cast<size_t>(i)] != static_cast<int>(k)) {
        return error(
            k, absl::StrCat("holds node '", g.nodes[static_cast<size_t>(i)].name,
                            "', group_of says group ", plan.group_of[static_cast<size_t>(i)]));
      }
      ++seen[static_cast<size_t>(i)];
      const OpPattern p = PatternOf(g.nodes[static_cast<size_t>(i)]);
      pattern = Max(pattern, p);
      if (IsMasterPattern(p)) {
        ++masters;
        complex = i;
      }
      opaque += p == OpPattern::kOpaque ? 1 : 0;
    }
    if (masters > 1) return error(k, absl::StrCat("has ", masters, " masters"));
    if (group.master != complex) {
      return error(
          k, absl::StrCat("its master is node ", group.master, ", its complex node ", complex));
    }
    if (opaque > 0 && group.nodes.size() > 1) return error(k, "fuses an opaque node");
    if (pattern != group.pattern) return error(k, "has the wrong pattern");
    FusionGroup copy;
    copy.nodes = group.nodes;
    expected.groups.push_back(std::move(copy));
  }
  for (size_t i = 0; i < n; ++i) {
    if (seen[i] != 1) {
      return absl::InternalError(
          absl::StrCat("node '", g.nodes[i].name, "' is in ", seen[i], " fusion groups"));
    }
  }
  FillGroupInputsAndOutputs(g, expected);
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    if (plan.groups[k].inputs != expected.groups[k].inputs) return error(k, "has the wrong inputs");
    if (plan.groups[k].outputs != expected.groups[k].outputs)
      return error(k, "has the wrong outputs");
    for (ValueId id : plan.groups[k].inputs) {
      const Value& v = g.value(id);
      if (v.kind == ValueKind::kNodeOutput &&
          plan.group_of[static_cast<size_t>(v.node)] >= static_cast<int>(k)) {
        return error(k, absl::StrCat("reads '", v.name, "' from a later group"));
      }
    }
  }
  return absl::OkStatus();
}

std::string FusionPlanToText(const Graph& g, const FusionPlan& plan) {
  std::string text;
  for (const FusionGroup& group : plan.groups) {
    std::vector<std::string> names;
    for (int i : group.nodes) {
      names.push_back(
          absl::StrCat(g.nodes[static_cast<size_t>(i)].name, i == group.master ? "*" : ""));
    }
    absl::StrAppend(&text, absl::StrJoin(names, " "), "\n");
  }
  return text;
}

}  // namespace tessel::graph::passes
