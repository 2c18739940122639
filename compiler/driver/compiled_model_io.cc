// CompiledModel::Save and CompiledModel::Load: the folder format of compiled_model.h.
#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/driver/compiled_model.h"
#include "compiler/driver/kernel_groups.h"
#include "compiler/driver/kernel_library.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/npy.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/facts_json.h"

namespace tessel::driver {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kFormat[] = "tessel-compiled-model";
constexpr int kVersion = 2;
// A model with an offload: a reader of version 2 would run its offloaded kernels from the main
// library, which does not have them; it refuses the version instead.
constexpr int kOffloadVersion = 3;
constexpr char kModelFile[] = "model.json";
constexpr char kGraphFile[] = "graph.json";

// ---- JSON forms -------------------------------------------------------------------------------

absl::StatusOr<runtime::KernelArg::Source> ParseSource(const std::string& name) {
  using S = runtime::KernelArg::Source;
  for (S s : {S::kInput, S::kReshape, S::kPackChannels, S::kParameter, S::kPrepare}) {
    if (name == runtime::SourceName(s)) return s;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown argument source '", name, "'"));
}

absl::StatusOr<runtime::ResultMode> ParseResultMode(const std::string& name) {
  using M = runtime::ResultMode;
  for (M m : {M::kDirect, M::kUnpackChannels, M::kFinish}) {
    if (name == runtime::ResultModeName(m)) return m;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown result mode '", name, "'"));
}

json DescJson(const runtime::TensorDesc& d) {
  return {{"shape", d.shape}, {"dtype", runtime::DLTypeToString(d.dtype)}};
}

absl::StatusOr<runtime::TensorDesc> DescFromJson(const json& j) {
  runtime::TensorDesc d;
  d.shape = j.at("shape").get<std::vector<int64_t>>();
  TESSEL_ASSIGN_OR_RETURN(d.dtype, runtime::ParseDLType(j.at("dtype").get<std::string>()));
  return d;
}

json StepJson(const CompiledStep& n) {
  json args = json::array();
  for (const runtime::KernelArg& a : n.args) {
    json j = DescJson(a.type);
    j["source"] = runtime::SourceName(a.source);
    j["index"] = a.index;
    args.push_back(std::move(j));
  }
  json results = json::array();
  for (const runtime::TensorDesc& r : n.results) results.push_back(DescJson(r));
  json blocked = json::array();
  for (const runtime::TensorDesc& r : n.blocked) blocked.push_back(DescJson(r));
  return {{"nodes", n.nodes},     {"master", n.master},
          {"kernel", n.kernel},   {"inputs", n.inputs},
          {"outputs", n.outputs}, {"args", args},
          {"results", results},   {"result_mode", runtime::ResultModeName(n.result_mode)},
          {"blocked", blocked}};
}

absl::StatusOr<CompiledStep> StepFromJson(const json& j) {
  CompiledStep n;
  n.nodes = j.at("nodes").get<std::vector<int>>();
  n.master = j.at("master").get<int>();
  n.kernel = j.at("kernel").get<int>();
  n.inputs = j.at("inputs").get<std::vector<graph::ValueId>>();
  n.outputs = j.at("outputs").get<std::vector<graph::ValueId>>();
  for (const json& ja : j.at("args")) {
    runtime::KernelArg a;
    TESSEL_ASSIGN_OR_RETURN(a.source, ParseSource(ja.at("source").get<std::string>()));
    a.index = ja.at("index").get<int>();
    TESSEL_ASSIGN_OR_RETURN(a.type, DescFromJson(ja));
    n.args.push_back(std::move(a));
  }
  for (const json& jr : j.at("results")) {
    TESSEL_ASSIGN_OR_RETURN(runtime::TensorDesc r, DescFromJson(jr));
    n.results.push_back(std::move(r));
  }
  TESSEL_ASSIGN_OR_RETURN(n.result_mode, ParseResultMode(j.at("result_mode").get<std::string>()));
  for (const json& jb : j.at("blocked")) {
    TESSEL_ASSIGN_OR_RETURN(runtime::TensorDesc b, DescFromJson(jb));
    n.blocked.push_back(std::move(b));
  }
  return n;
}

json MemoryJson(const graph::passes::MemoryPlan& m) {
  return {{"storage_of", m.storage_of},
          {"value_bytes", m.value_bytes},
          {"storage_bytes", m.storage_bytes},
          {"peak_bytes", m.peak_bytes},
          {"naive_bytes", m.naive_bytes}};
}

graph::passes::MemoryPlan MemoryFromJson(const json& j) {
  graph::passes::MemoryPlan m;
  m.storage_of = j.at("storage_of").get<std::vector<int>>();
  m.value_bytes = j.at("value_bytes").get<std::vector<int64_t>>();
  m.storage_bytes = j.at("storage_bytes").get<std::vector<int64_t>>();
  m.peak_bytes = j.at("peak_bytes").get<int64_t>();
  m.naive_bytes = j.at("naive_bytes").get<int64_t>();
  return m;
}

// Whether a loaded step refers only to what the model has; the message says what does not.
absl::Status CheckStep(const CompiledModel& m, const CompiledStep& step) {
  const auto node_ok = [&](int n) {
    return n >= 0 && static_cast<size_t>(n) < m.graph.nodes.size();
  };
  const auto value_ok = [&](int v) {
    return v >= 0 && static_cast<size_t>(v) < m.graph.values.size();
  };
  if (step.kernel < 0 || static_cast<size_t>(step.kernel) >= m.kernels.size()) {
    return absl::InvalidArgumentError(absl::StrCat("no kernel ", step.kernel));
  }
  if (step.nodes.empty() || !node_ok(step.master) ||
      std::find(step.nodes.begin(), step.nodes.end(), step.master) == step.nodes.end()) {
    return absl::InvalidArgumentError("its nodes and master do not match");
  }
  for (int n : step.nodes) {
    if (!node_ok(n)) return absl::InvalidArgumentError(absl::StrCat("no node ", n));
  }
  for (int v : step.inputs) {
    if (!value_ok(v)) return absl::InvalidArgumentError(absl::StrCat("no value ", v));
  }
  for (int v : step.outputs) {
    if (!value_ok(v)) return absl::InvalidArgumentError(absl::StrCat("no value ", v));
  }
  return absl::OkStatus();
}

// ---- files ------------------------------------------------------------------------------------

absl::Status WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path.string(), "'"));
  return absl::OkStatus();
}

absl::StatusOr<json> ReadJson(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot open the file"));
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": not valid JSON"));
  }
  return j;
}

absl::Status InFile(const fs::path& path, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(path.string(), ": ", s.message()));
}

// Writes everything into `dir`, a fresh folder.
absl::Status WriteFolder(const CompiledModel& m, const fs::path& dir) {
  fs::create_directory(dir / "constants");
  fs::create_directory(dir / "parameters");
  json constants = json::array();
  absl::flat_hash_map<const void*, std::string> constant_of;  // data address -> value name
  for (const graph::Value& v : m.graph.values) {
    if (v.kind != graph::ValueKind::kConstant) continue;
    const std::string file = absl::StrCat("constants/", constants.size(), ".npy");
    TESSEL_RETURN_IF_ERROR(runtime::SaveNpy((dir / file).string(), v.data));
    constants.push_back({{"value", v.name}, {"file", file}});
    constant_of.try_emplace(v.data.data<void>(), v.name);
  }
  json parameters = json::array();
  for (size_t i = 0; i < m.parameters.size(); ++i) {
    const runtime::NDArray& p = m.parameters[i];
    if (auto it = constant_of.find(p.data<void>()); it != constant_of.end()) {
      parameters.push_back({{"constant", it->second}});
      continue;
    }
    const std::string file = absl::StrCat("parameters/", i, ".npy");
    TESSEL_RETURN_IF_ERROR(runtime::SaveNpy((dir / file).string(), p));
    parameters.push_back({{"file", file}});
  }
  const bool has_offload = m.offload.has_value();
  json kernels = json::array();
  for (const CompiledKernel& k : m.kernels) {
    if (k.offloaded && !(has_offload && m.offload_module.defined())) {
      return absl::InternalError(absl::StrCat(
          "kernel ", k.function, " is offloaded, but the model has no offload module"));
    }
    json jk = {{"function", k.function},
               {"task", k.task.ToJson()},
               {"config", k.config.ToJson()},
               {"tuned", k.tuned},
               {"tail", k.tail}};
    if (has_offload) jk["offloaded"] = k.offloaded;
    kernels.push_back(std::move(jk));
  }
  json steps = json::array();
  for (const CompiledStep& n : m.steps) steps.push_back(StepJson(n));
  json model = {{"format", kFormat},
                {"version", has_offload ? kOffloadVersion : kVersion},
                {"target", m.facts.target.ToString()},
                {"facts", target::FactsToJson(m.facts)},
                {"library", KernelLibraryFile(m.facts.target)},
                {"kernels", kernels},
                {"steps", steps},
                {"memory", MemoryJson(m.memory)},
                {"constants", constants},
                {"parameters", parameters},
                {"warnings", m.warnings}};
  TESSEL_RETURN_IF_ERROR(m.module.Save((dir / KernelLibraryFile(m.facts.target)).string()));
  if (has_offload) {
    json offload = {{"facts", target::FactsToJson(*m.offload)}};
    if (m.offload_module.defined()) {
      const std::string file = KernelLibraryFile(m.offload->target);
      TESSEL_RETURN_IF_ERROR(m.offload_module.Save((dir / file).string()));
      offload["library"] = file;
    }
    model["offload"] = std::move(offload);
  }
  TESSEL_RETURN_IF_ERROR(WriteText(dir / kGraphFile, graph::ToJson(m.graph).dump(1)));
  // Last: a folder with a model.json is complete.
  return WriteText(dir / kModelFile, model.dump(1));
}

// A fresh folder beside `dir` named after it.
absl::StatusOr<fs::path> MakeSibling(const fs::path& dir, const std::string& tag) {
  std::string pattern = absl::StrCat(dir.string(), ".", tag, "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a folder like '", pattern, "'"));
  }
  return fs::path(pattern);
}

}  // namespace

absl::Status CompiledModel::Save(const std::string& dir_text) const {
  fs::path dir = fs::path(dir_text).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "out/" is "out"
  std::error_code ec;
  const bool exists = fs::exists(dir, ec);
  if (exists && !(fs::is_directory(dir, ec) && fs::exists(dir / kModelFile, ec))) {
    return absl::FailedPreconditionError(absl::StrCat("'", dir_text,
                                                      "' exists and is not a compiled model (no ",
                                                      kModelFile, "); not replacing it"));
  }
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  TESSEL_ASSIGN_OR_RETURN(fs::path tmp, MakeSibling(dir, "tmp"));
  // mkdtemp makes the folder private; the model is an ordinary folder (rwxr-xr-x).
  fs::permissions(tmp,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  absl::Status status = WriteFolder(*this, tmp);
  if (status.ok() && exists) {
    // Move the old model aside (onto an empty folder, which rename may replace), then swap.
    absl::StatusOr<fs::path> old = MakeSibling(dir, "old");
    status = old.status();
    if (old.ok()) {
      fs::rename(dir, *old, ec);
      if (ec)
        status =
            absl::InternalError(absl::StrCat("cannot move '", dir_text, "' aside: ", ec.message()));
      if (status.ok()) {
        fs::rename(tmp, dir, ec);
        if (ec) {
          status = absl::InternalError(absl::StrCat("cannot rename '", tmp.string(), "' to '",
                                                    dir_text, "': ", ec.message()));
          std::error_code ignored;
          fs::rename(*old, dir, ignored);
        }
      }
      fs::remove_all(*old, ec);
    }
  } else if (status.ok()) {
    fs::rename(tmp, dir, ec);
    if (ec) {
      status = absl::InternalError(
          absl::StrCat("cannot rename '", tmp.string(), "' to '", dir_text, "': ", ec.message()));
    }
  }
  if (!status.ok()) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
  }
  return status;
}

absl::StatusOr<CompiledModel> CompiledModel::Load(const std::string& dir_text) {
  const fs::path dir(dir_text);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat("'", dir_text, "' is not a folder"));
  }
  const fs::path model_path = dir / kModelFile;
  TESSEL_ASSIGN_OR_RETURN(json mj, ReadJson(model_path));
  CompiledModel m;
  json graph_json;
  std::string field = "format";
  try {
    if (mj.at("format") != kFormat ||
        (mj.at("version") != kVersion && mj.at("version") != kOffloadVersion)) {
      return absl::InvalidArgumentError(absl::StrCat(model_path.string(), ": not a ", kFormat,
                                                     " of version ", kVersion, " or ",
                                                     kOffloadVersion));
    }
    field = "facts";
    absl::StatusOr<target::TargetFacts> facts = target::FactsFromJson(mj.at("facts"));
    if (!facts.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(model_path.string(), ": facts: ", facts.status().message()));
    }
    m.facts = *std::move(facts);
    // The offload: its facts, and the module of its kernels when it has any.
    field = "offload";
    std::optional<fs::path> offload_path;
    if (mj.contains("offload")) {
      const json& jo = mj.at("offload");
      absl::StatusOr<target::TargetFacts> offload =
          target::FactsFromJson(jo.at("facts"), "offload.facts");
      if (!offload.ok()) return InFile(model_path, offload.status());
      m.offload = *std::move(offload);
      if (jo.contains("library")) {
        offload_path = dir / jo.at("library").get<std::string>();
        TESSEL_ASSIGN_OR_RETURN(m.offload_module,
                                LoadKernelLibrary(m.offload->target, offload_path->string()));
      }
    }
    field = "warnings";
    m.warnings = mj.at("warnings").get<std::vector<std::string>>();

    // The graph, with its constants.
    const fs::path graph_path = dir / kGraphFile;
    TESSEL_ASSIGN_OR_RETURN(graph_json, ReadJson(graph_path));
    absl::flat_hash_map<std::string, json> value_json;
    if (graph_json.contains("values") && graph_json["values"].is_array()) {
      for (const json& v : graph_json["values"]) {
        if (v.contains("name") && v["name"].is_string())
          value_json[v["name"].get<std::string>()] = v;
      }
    }
    std::vector<std::pair<std::string, runtime::NDArray>> data;
    absl::flat_hash_map<std::string, runtime::NDArray> constant_data;
    field = "constants";
    for (const json& c : mj.at("constants")) {
      const std::string name = c.at("value").get<std::string>();
      const fs::path file = dir / c.at("file").get<std::string>();
      TESSEL_ASSIGN_OR_RETURN(runtime::NDArray array, runtime::LoadNpy(file.string()));
      auto it = value_json.find(name);
      if (it != value_json.end() && it->second.contains("shape") && it->second.contains("dtype")) {
        absl::StatusOr<runtime::TensorDesc> want = DescFromJson(it->second);
        const runtime::TensorDesc got{array.shape(), array.dtype()};
        if (want.ok() && !(*want == got)) {
          return absl::InvalidArgumentError(absl::StrCat(file.string(), ": constant '", name,
                                                         "' is ", got.ToString(),
                                                         ", the graph says ", want->ToString()));
        }
      }
      data.emplace_back(name, array);
      constant_data[name] = array;
    }
    absl::StatusOr<graph::Graph> g = graph::FromJson(graph_json, data);
    if (!g.ok()) return InFile(graph_path, g.status());
    m.graph = *std::move(g);

    // The library and its kernels.
    const fs::path library_path = dir / mj.at("library").get<std::string>();
    TESSEL_ASSIGN_OR_RETURN(m.module, LoadKernelLibrary(m.facts.target, library_path.string()));
    const std::vector<std::string> functions = m.module.FunctionNames();
    const std::vector<std::string> offload_functions =
        m.offload_module.defined() ? m.offload_module.FunctionNames() : std::vector<std::string>();
    const json& kernels = mj.at("kernels");
    for (size_t k = 0; k < kernels.size(); ++k) {
      field = absl::StrCat("kernels[", k, "]");
      const json& jk = kernels[k];
      CompiledKernel kernel;
      kernel.function = jk.at("function").get<std::string>();
      kernel.offloaded = jk.contains("offloaded") && jk.at("offloaded").get<bool>();
      if (kernel.offloaded && !offload_path) {
        return absl::InvalidArgumentError(
            absl::StrCat(model_path.string(), ": ", field,
                         ": offloaded, but the model names no offload library (offload.library)"));
      }
      const std::vector<std::string>& in = kernel.offloaded ? offload_functions : functions;
      if (std::find(in.begin(), in.end(), kernel.function) == in.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat((kernel.offloaded ? *offload_path : library_path).string(),
                         ": no function '", kernel.function, "'"));
      }
      // An offloaded kernel's task, config and host transforms are the offload target's.
      const target::TargetFacts& facts = kernel.offloaded ? *m.offload : m.facts;
      absl::StatusOr<search::Task> task = search::Task::FromJson(jk.at("task"));
      if (!task.ok()) return InFile(model_path, task.status());
      kernel.task = *std::move(task);
      kernel.tuned = jk.at("tuned").get<bool>();
      kernel.tail = jk.at("tail").get<std::string>();
      absl::StatusOr<search::ConfigSpace> space = search::Space(kernel.task, facts);
      if (!space.ok()) return InFile(model_path, space.status());
      absl::StatusOr<search::Config> config = space->FromJson(jk.at("config"));
      if (!config.ok()) return InFile(model_path, config.status());
      kernel.config = *std::move(config);
      m.kernels.push_back(std::move(kernel));
    }

    // Per step: its connection, and the host transforms it runs (its program re-instantiated,
    // with its tail rebuilt from the graph).
    const json& steps = mj.at("steps");
    std::vector<std::optional<ops::OpProgram>> programs(m.kernels.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      field = absl::StrCat("steps[", i, "]");
      absl::StatusOr<CompiledStep> step = StepFromJson(steps[i]);
      if (!step.ok()) return InFile(model_path, step.status());
      if (absl::Status s = CheckStep(m, *step); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(model_path.string(), ": ", field, ": ", s.message()));
      }
      // A fused step's tail, rebuilt from the graph, must be the kernel's.
      const CompiledKernel& k = m.kernels[static_cast<size_t>(step->kernel)];
      std::optional<FusedTail> tail;
      if (!k.tail.empty()) {
        absl::StatusOr<FusedTail> rebuilt =
            RebuildTail(m.graph, step->master, step->nodes, m.facts);
        if (rebuilt.ok() && rebuilt->signature != k.tail) {
          rebuilt = absl::InvalidArgumentError(absl::StrCat("its nodes make the tail '",
                                                            rebuilt->signature,
                                                            "', its kernel's is '", k.tail, "'"));
        }
        if (!rebuilt.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat(model_path.string(), ": ", field, ": ", rebuilt.status().message()));
        }
        tail = *std::move(rebuilt);
      }
      bool uses_prepare = false;
      for (const runtime::KernelArg& a : step->args) {
        uses_prepare |= a.source == runtime::KernelArg::Source::kPrepare;
      }
      const bool uses_finish = step->result_mode == runtime::ResultMode::kFinish;
      if (uses_prepare || uses_finish) {
        std::optional<ops::OpProgram>& p = programs[static_cast<size_t>(step->kernel)];
        if (!p) {
          TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(k.task.template_name));
          const target::TargetFacts& facts = k.offloaded ? *m.offload : m.facts;
          absl::StatusOr<ops::OpProgram> program =
              tail && t->instantiate_with_tail
                  ? t->instantiate_with_tail(k.config, k.task.args, facts, tail->tail)
                  : t->instantiate(k.config, k.task.args, facts);
          if (!program.ok()) return InFile(model_path, program.status());
          p = *std::move(program);
        }
        if (uses_prepare) step->prepare = p->prepare;
        if (uses_finish) step->finish = p->finish;
      }
      m.steps.push_back(*std::move(step));
    }
    field = "memory";
    m.memory = MemoryFromJson(mj.at("memory"));
    if (m.memory.storage_of.size() != m.graph.values.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(model_path.string(), ": memory: ", m.memory.storage_of.size(),
                       " storages for ", m.graph.values.size(), " values"));
    }

    // Parameters, each checked against the kernel inputs that take it.
    const json& parameters = mj.at("parameters");
    for (size_t i = 0; i < parameters.size(); ++i) {
      field = absl::StrCat("parameters[", i, "]");
      const json& jp = parameters[i];
      fs::path from = model_path;
      if (jp.contains("constant")) {
        auto it = constant_data.find(jp.at("constant").get<std::string>());
        if (it == constant_data.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat(model_path.string(), ": ", field, " names no constant"));
        }
        m.parameters.push_back(it->second);
      } else {
        from = dir / jp.at("file").get<std::string>();
        TESSEL_ASSIGN_OR_RETURN(runtime::NDArray array, runtime::LoadNpy(from.string()));
        m.parameters.push_back(array);
      }
      const runtime::NDArray& p = m.parameters.back();
      for (const CompiledStep& step : m.steps) {
        for (const runtime::KernelArg& a : step.args) {
          if (a.source != runtime::KernelArg::Source::kParameter ||
              a.index != static_cast<int>(i)) {
            continue;
          }
          const runtime::TensorDesc got{p.shape(), p.dtype()};
          if (!(got == a.type)) {
            return absl::InvalidArgumentError(
                absl::StrCat(from.string(), ": parameter ", i, " is ", got.ToString(), ", node '",
                             m.graph.nodes[static_cast<size_t>(step.master)].name, "' takes ",
                             a.type.ToString()));
          }
        }
      }
    }
    for (size_t n = 0; n < m.steps.size(); ++n) {
      for (const runtime::KernelArg& a : m.steps[n].args) {
        if (a.source == runtime::KernelArg::Source::kParameter &&
            (a.index < 0 || static_cast<size_t>(a.index) >= m.parameters.size())) {
          return absl::InvalidArgumentError(absl::StrCat(model_path.string(), ": steps[", n,
                                                         "] takes parameter ", a.index, " of ",
                                                         m.parameters.size()));
        }
      }
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(model_path.string(), ": ", field, ": ", e.what()));
  }
  return m;
}

}  // namespace tessel::driver
