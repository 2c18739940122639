#include "compiler/driver/kernel_connection.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <optional>
#include <random>

#include "compiler/ir/dl_type.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"
#include "compiler/support/uniform_real.h"

namespace tessel::driver {
namespace {

using runtime::KernelArg;
using runtime::NDArray;
using runtime::TensorDesc;

TensorDesc DescOf(const NDArray& a) { return {a.shape(), a.dtype()}; }

TensorDesc TensorType(const te::Tensor& t) {
  absl::StatusOr<std::vector<int64_t>> shape = ops::nn::ConstShape(t, "an OpProgram argument");
  TESSEL_CHECK(shape.ok()) << shape.status().message();
  return {*shape, ir::ToDLType(t.dtype())};
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

template <typename T, typename Dist>
void Fill(NDArray& a, Dist dist, std::mt19937& rng) {
  T* p = a.data<T>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = static_cast<T>(dist(rng));
}

// Random contents within [low, high) (integers: low .. high - 1), so a transform that reads
// values (indices, bit widths) sees valid ones; other element types are zero.
NDArray Draw(const TensorDesc& type, double low, double high, std::mt19937& rng) {
  NDArray a = NDArray::Empty(type.shape, type.dtype);
  std::memset(a.data<char>(), 0, static_cast<size_t>(a.NumBytes()));
  const DLDataType t = type.dtype;
  if (t.lanes != 1) return a;
  if (t.code == kDLFloat) {
    UniformReal<double> dist(low, high);
    if (t.bits == 32) Fill<float>(a, dist, rng);
    if (t.bits == 64) Fill<double>(a, dist, rng);
    return a;
  }
  if (t.code != kDLInt && t.code != kDLUInt) return a;
  const auto lo = static_cast<int64_t>(low);
  const int64_t hi = std::max(lo, static_cast<int64_t>(high) - 1);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  switch (t.bits) {
    case 8:
      t.code == kDLInt ? Fill<int8_t>(a, dist, rng) : Fill<uint8_t>(a, dist, rng);
      break;
    case 16:
      t.code == kDLInt ? Fill<int16_t>(a, dist, rng) : Fill<uint16_t>(a, dist, rng);
      break;
    case 32:
      t.code == kDLInt ? Fill<int32_t>(a, dist, rng) : Fill<uint32_t>(a, dist, rng);
      break;
    case 64:
      t.code == kDLInt ? Fill<int64_t>(a, dist, rng) : Fill<uint64_t>(a, dist, rng);
      break;
    default:
      break;
  }
  return a;
}

// Whether a and b hold the same bytes (their compact row-major contents).
bool SameBytes(const NDArray& a, const NDArray& b) {
  if (a.NumBytes() != b.NumBytes()) return false;
  const size_t n = static_cast<size_t>(a.NumBytes());
  if (a.IsContiguous() && b.IsContiguous()) {
    return std::memcmp(a.data<char>(), b.data<char>(), n) == 0;
  }
  std::string x(n, '\0'), y(n, '\0');
  TESSEL_CHECK(a.CopyToBytes(x.data(), n).ok() && b.CopyToBytes(y.data(), n).ok());
  return x == y;
}

// The logical inputs with each activation drawn afresh and each constant as it is.
std::vector<NDArray> Probe(const ops::OpProgram& program, const std::vector<NDArray>& constants,
                           std::mt19937& rng) {
  std::vector<NDArray> in;
  for (size_t i = 0; i < constants.size(); ++i) {
    if (constants[i].defined()) {
      in.push_back(constants[i]);
      continue;
    }
    const ops::TensorSpec& spec = program.logical_inputs[i];
    in.push_back(Draw({spec.shape, spec.dtype}, spec.low, spec.high, rng));
  }
  return in;
}

absl::StatusOr<std::vector<NDArray>> Prepare(const ops::OpProgram& program,
                                             const std::vector<NDArray>& in,
                                             const std::vector<TensorDesc>& types,
                                             const std::string& what) {
  absl::StatusOr<std::vector<NDArray>> out = program.prepare(in);
  if (!out.ok()) {
    return absl::Status(out.status().code(),
                        absl::StrCat(what, ": prepare: ", out.status().message()));
  }
  TESSEL_CHECK(out->size() == types.size()) << what << ": prepare gives " << out->size()
                                            << " arrays for " << types.size() << " program inputs";
  for (size_t j = 0; j < types.size(); ++j) {
    TESSEL_CHECK(DescOf((*out)[j]) == types[j])
        << what << ": prepare's output " << j << " is " << DescOf((*out)[j]).ToString()
        << ", the program takes " << types[j].ToString();
  }
  return out;
}

// Whether `prepared` is activation `x` as it is, reshaped, or packed into channel blocks.
std::optional<KernelArg::Source> Recognize(const NDArray& x, const NDArray& prepared) {
  const TensorDesc px = DescOf(x), pp = DescOf(prepared);
  if (!runtime::SameDLType(px.dtype, pp.dtype)) return std::nullopt;
  if (NumElements(px.shape) == NumElements(pp.shape) && SameBytes(x, prepared)) {
    return px.shape == pp.shape ? KernelArg::Source::kInput : KernelArg::Source::kReshape;
  }
  const auto& s = px.shape;
  const auto& p = pp.shape;
  if (s.size() == 4 && p.size() == 5 && s[0] == p[0] && s[2] == p[2] && s[3] == p[3] &&
      p[1] * p[4] >= s[1] && x.IsContiguous()) {
    NDArray packed = NDArray::Empty(p, pp.dtype);
    std::memset(packed.data<char>(), 0, static_cast<size_t>(packed.NumBytes()));
    if (runtime::PackChannelsInto(x, packed).ok() && SameBytes(packed, prepared)) {
      return KernelArg::Source::kPackChannels;
    }
  }
  return std::nullopt;
}

absl::Status ConnectInputs(const ops::OpProgram& program, const std::vector<NDArray>& constants,
                           const std::string& what, KernelConnection& c) {
  const std::vector<TensorDesc> types = ProgramInputTypes(program);
  const size_t n = constants.size();
  TESSEL_CHECK(program.logical_inputs.size() == n)
      << what << ": " << n << " inputs for a program of " << program.logical_inputs.size();
  if (!program.prepare) {
    TESSEL_CHECK(types.size() == n) << what << ": no prepare, yet " << types.size()
                                    << " program inputs for " << n << " logical ones";
    for (size_t i = 0; i < n; ++i) {
      if (constants[i].defined()) {
        c.args.push_back(
            {KernelArg::Source::kParameter, static_cast<int>(c.parameters.size()), types[i]});
        c.parameters.push_back(constants[i]);
      } else {
        c.args.push_back({KernelArg::Source::kInput, static_cast<int>(i), types[i]});
      }
    }
    return absl::OkStatus();
  }
  std::mt19937 rng(7);
  const std::vector<NDArray> in1 = Probe(program, constants, rng);
  const std::vector<NDArray> in2 = Probe(program, constants, rng);
  absl::StatusOr<std::vector<NDArray>> out1 = Prepare(program, in1, types, what);
  if (!out1.ok()) return out1.status();
  bool any_activation = false;
  for (const NDArray& k : constants) any_activation |= !k.defined();
  std::vector<NDArray> out2;
  if (any_activation) {
    absl::StatusOr<std::vector<NDArray>> o = Prepare(program, in2, types, what);
    if (!o.ok()) return o.status();
    out2 = *std::move(o);
  }
  for (size_t j = 0; j < types.size(); ++j) {
    const NDArray& p1 = (*out1)[j];
    if (!any_activation || SameBytes(p1, out2[j])) {
      c.args.push_back(
          {KernelArg::Source::kParameter, static_cast<int>(c.parameters.size()), types[j]});
      c.parameters.push_back(p1);
      continue;
    }
    KernelArg arg{KernelArg::Source::kPrepare, static_cast<int>(j), types[j]};
    for (size_t i = 0; i < n; ++i) {
      if (constants[i].defined()) continue;
      std::optional<KernelArg::Source> s1 = Recognize(in1[i], p1);
      if (s1 && Recognize(in2[i], out2[j]) == s1) {
        arg.source = *s1;
        arg.index = static_cast<int>(i);
        break;
      }
    }
    c.args.push_back(arg);
  }
  return absl::OkStatus();
}

// The 5-d view [n, C / b, H, W, b] of `result` that unpacks to `logical`
// (ResultMode::kUnpackChannels), if there is one: a result of rank r > 5 has its axes 2..r-2
// merged into H and W at some split.
std::optional<TensorDesc> UnpackedView(const NDArray& result, const NDArray& logical) {
  const TensorDesc r = DescOf(result), l = DescOf(logical);
  const auto& p = r.shape;
  const auto& s = l.shape;
  if (!runtime::SameDLType(r.dtype, l.dtype) || s.size() != 4 || p.size() < 5 || s[0] != p[0] ||
      s[1] > p[1] * p.back() || !result.IsContiguous()) {
    return std::nullopt;
  }
  for (size_t split = 3; split + 1 < p.size(); ++split) {  // rows: axes [2, split)
    int64_t rows = 1, cols = 1;
    for (size_t d = 2; d < split; ++d) rows *= p[d];
    for (size_t d = split; d + 1 < p.size(); ++d) cols *= p[d];
    if (rows < s[2] || cols < s[3]) continue;
    const TensorDesc view{{p[0], p[1], rows, cols, p.back()}, r.dtype};
    NDArray blocked = NDArray::Empty(view.shape, view.dtype);
    NDArray unpacked = NDArray::Empty(s, l.dtype);
    if (blocked.CopyFromBytes(result.data<char>(), static_cast<size_t>(result.NumBytes())).ok() &&
        runtime::UnpackChannelsInto(blocked, unpacked).ok() && SameBytes(unpacked, logical)) {
      return view;
    }
  }
  return std::nullopt;
}

absl::Status ConnectOutputs(const ops::OpProgram& program, const std::string& what,
                            KernelConnection& c) {
  c.results = ProgramOutputTypes(program);
  const size_t n = program.logical_outputs.size();
  if (!program.finish) {
    TESSEL_CHECK(c.results.size() == n)
        << what << ": no finish, yet " << c.results.size() << " outputs for " << n;
    return absl::OkStatus();
  }
  std::mt19937 rng(11);
  std::vector<NDArray> results;
  for (const TensorDesc& t : c.results) results.push_back(Draw(t, -1, 1, rng));
  absl::StatusOr<std::vector<NDArray>> out = program.finish(results);
  if (!out.ok()) {
    return absl::Status(out.status().code(),
                        absl::StrCat(what, ": finish: ", out.status().message()));
  }
  TESSEL_CHECK(out->size() == n) << what << ": finish gives " << out->size() << " arrays for " << n
                                 << " logical outputs";
  bool direct = results.size() == n, unpacked = results.size() == n;
  std::vector<TensorDesc> blocked;
  for (size_t k = 0; k < n; ++k) {
    const ops::TensorSpec& spec = program.logical_outputs[k];
    TESSEL_CHECK(DescOf((*out)[k]) == (TensorDesc{spec.shape, spec.dtype}))
        << what << ": finish's output " << k << " is " << DescOf((*out)[k]).ToString();
    if (results.size() != n) continue;
    const std::optional<KernelArg::Source> s = Recognize(results[k], (*out)[k]);
    direct = direct && (s == KernelArg::Source::kInput || s == KernelArg::Source::kReshape);
    const std::optional<TensorDesc> view =
        unpacked ? UnpackedView(results[k], (*out)[k]) : std::nullopt;
    unpacked = view.has_value();
    if (view) blocked.push_back(*view);
  }
  if (direct) {
    c.result_mode = runtime::ResultMode::kDirect;
  } else if (unpacked) {
    c.result_mode = runtime::ResultMode::kUnpackChannels;
    c.blocked = std::move(blocked);
  } else {
    c.result_mode = runtime::ResultMode::kFinish;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ConnectToValueTypes(KernelConnection& c, const std::vector<TensorDesc>& inputs,
                                 const std::vector<TensorDesc>& outputs,
                                 const ops::OpProgram& program, const std::string& what) {
  auto logical = [](const ops::TensorSpec& s) { return TensorDesc{s.shape, s.dtype}; };
  std::vector<bool> read_as_is(inputs.size(), false);
  for (KernelArg& arg : c.args) {
    if (arg.source == KernelArg::Source::kParameter || arg.source == KernelArg::Source::kPrepare) {
      continue;
    }
    const size_t i = static_cast<size_t>(arg.index);
    if (inputs.at(i) == logical(program.logical_inputs.at(i))) continue;
    // Packing that moves no element (one block of channels, or blocks of one) is a reshape.
    const bool packs =
        arg.source == KernelArg::Source::kPackChannels || arg.source == KernelArg::Source::kReshape;
    if (!packs || !(arg.type == inputs[i])) {
      return absl::InternalError(absl::StrCat(
          what, ": input ", i, " is held as ", inputs[i].ToString(), ", the kernel reads ",
          arg.type.ToString(), " (", SourceName(arg.source), ")"));
    }
    arg.source = KernelArg::Source::kInput;
    read_as_is[i] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!read_as_is[i] && !(inputs[i] == logical(program.logical_inputs[i]))) {
      return absl::InternalError(absl::StrCat(what, ": input ", i, " is held as ",
                                              inputs[i].ToString(), ", which no kernel argument ",
                                              "reads as it is"));
    }
  }
  bool blocked = false;
  for (size_t k = 0; k < outputs.size(); ++k) {
    blocked |= !(outputs[k] == logical(program.logical_outputs.at(k)));
  }
  if (!blocked) return absl::OkStatus();
  // An unpacking that moves no element (1 x 1 planes) was recognized as a reshape: direct too.
  const bool direct =
      (c.result_mode == runtime::ResultMode::kUnpackChannels && c.blocked == outputs) ||
      (c.result_mode == runtime::ResultMode::kDirect && c.results == outputs);
  if (!direct) {
    return absl::InternalError(absl::StrCat(what, ": its outputs are held blocked (",
                                            outputs[0].ToString(), "), the kernel gives them ",
                                            runtime::ResultModeName(c.result_mode)));
  }
  c.result_mode = runtime::ResultMode::kDirect;
  c.blocked.clear();
  return absl::OkStatus();
}

std::vector<TensorDesc> ProgramInputTypes(const ops::OpProgram& program) {
  std::vector<TensorDesc> types;
  const size_t inputs = program.args.size() - static_cast<size_t>(program.num_outputs);
  for (size_t i = 0; i < inputs; ++i) types.push_back(TensorType(program.args[i]));
  return types;
}

std::vector<TensorDesc> ProgramOutputTypes(const ops::OpProgram& program) {
  std::vector<TensorDesc> types;
  const size_t inputs = program.args.size() - static_cast<size_t>(program.num_outputs);
  for (size_t i = inputs; i < program.args.size(); ++i) {
    types.push_back(TensorType(program.args[i]));
  }
  return types;
}

absl::StatusOr<KernelConnection> ConnectKernel(const ops::OpProgram& program,
                                               const std::vector<NDArray>& constants,
                                               const std::string& what) {
  KernelConnection c;
  if (absl::Status s = ConnectInputs(program, constants, what, c); !s.ok()) return s;
  if (absl::Status s = ConnectOutputs(program, what, c); !s.ok()) return s;
  return c;
}

}  // namespace tessel::driver
