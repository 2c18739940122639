#include "baselines/dnnl/conv2d.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

// OpenMP's thread-count calls, from libgomp, which oneDNN runs on (BUILD links it): clang's own
// omp.h belongs to LLVM's runtime, and GCC's is not on clang's include path.
extern "C" {
void omp_set_num_threads(int threads);
int omp_get_max_threads();
}

namespace tessel::baselines {
namespace {

using dnnl::memory;
using internal::Conv2dForm;

// A memory format as oneDNN's verbose mode spells it: dimensions as letters from the outermost
// in memory, upper case when also blocked, then the inner blocks ("aBcd16b" is nChw16c).
std::string FormatName(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked) return "(not blocked)";
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  std::vector<int> order(d.ndims);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::string name;
  for (int dim : order) {
    bool blocked = false;
    for (int i = 0; i < b.inner_nblks; ++i) blocked = blocked || b.inner_idxs[i] == dim;
    name += static_cast<char>((blocked ? 'A' : 'a') + dim);
  }
  for (int i = 0; i < b.inner_nblks; ++i) {
    absl::StrAppend(&name, b.inner_blks[i],
                    std::string(1, static_cast<char>('a' + b.inner_idxs[i])));
  }
  return name;
}

// Copies a.NumBytes() of a's elements, compact, into m (whose format must be the plain one of
// a's shape).
void CopyInto(const runtime::NDArray& a, const memory& m) {
  const absl::Status copied = a.CopyToBytes(m.get_data_handle(), static_cast<size_t>(a.NumBytes()));
  TESSEL_CHECK(copied.ok()) << copied;
}

}  // namespace

struct DnnlConv2d::State {
  Conv2dForm form;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  memory::desc user_src, user_weights, user_dst;  // nchw, (g)oihw, nchw
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory src, weights, dst;  // in the primitive's formats
};

DnnlConv2d::DnnlConv2d(std::unique_ptr<State> state) : state_(std::move(state)) {}
DnnlConv2d::~DnnlConv2d() = default;

absl::StatusOr<std::unique_ptr<DnnlConv2d>> DnnlConv2d::Create(const ops::OpArgs& args,
                                                               const DnnlConv2dOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dForm f,
                          internal::ReadConv2d("conv2d", args, /*groups_and_dilation=*/true));
  auto s = std::make_unique<State>();
  s->form = f;
  const auto f32 = memory::data_type::f32;
  using tag = memory::format_tag;
  const memory::dims src_dims = {f.n, f.ic, f.h, f.w}, dst_dims = {f.n, f.oc, f.oh, f.ow};
  const memory::dims weight_dims =
      f.groups == 1 ? memory::dims{f.oc, f.ic, f.kh, f.kw}
                    : memory::dims{f.groups, f.oc / f.groups, f.ic / f.groups, f.kh, f.kw};
  s->user_src = memory::desc(src_dims, f32, tag::nchw);
  s->user_weights = memory::desc(weight_dims, f32, f.groups == 1 ? tag::oihw : tag::goihw);
  s->user_dst = memory::desc(dst_dims, f32, tag::nchw);
  // oneDNN counts dilation from 0 (no gap between taps); OPERATORS.md from 1.
  const memory::dims dilates = {f.dilation[0] - 1, f.dilation[1] - 1};
  try {
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference,
        options.auto_algorithm ? dnnl::algorithm::convolution_auto
                               : dnnl::algorithm::convolution_direct,
        memory::desc(src_dims, f32, tag::any), memory::desc(weight_dims, f32, tag::any),
        memory::desc(dst_dims, f32, tag::any), {f.stride[0], f.stride[1]}, dilates,
        {f.pad[0], f.pad[1]}, {f.pad[2], f.pad[3]});
    s->pd = dnnl::convolution_forward::primitive_desc(desc, s->engine);
    s->conv = dnnl::convolution_forward(s->pd);
    s->src = memory(s->pd.src_desc(), s->engine);
    s->weights = memory(s->pd.weights_desc(), s->engine);
    s->dst = memory(s->pd.dst_desc(), s->engine);
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(
        absl::StrCat("oneDNN has no conv2d for ", args.dump(), ": ", e.what()));
  }
  return std::unique_ptr<DnnlConv2d>(new DnnlConv2d(std::move(s)));
}

absl::Status DnnlConv2d::SetInputs(const runtime::NDArray& data, const runtime::NDArray& weight) {
  const Conv2dForm& f = state_->form;
  TESSEL_RETURN_IF_ERROR(internal::CheckInputs(
      "conv2d", {data, weight},
      {{"data", {f.n, f.ic, f.h, f.w}}, {"weight", {f.oc, f.ic / f.groups, f.kh, f.kw}}}));
  memory user_src(state_->user_src, state_->engine);
  memory user_weights(state_->user_weights, state_->engine);
  CopyInto(data, user_src);
  CopyInto(weight, user_weights);
  dnnl::reorder(user_src, state_->src).execute(state_->stream, user_src, state_->src);
  dnnl::reorder(user_weights, state_->weights)
      .execute(state_->stream, user_weights, state_->weights);
  state_->stream.wait();
  return absl::OkStatus();
}

void DnnlConv2d::Run() {
  state_->conv.execute(state_->stream, {{DNNL_ARG_SRC, state_->src},
                                        {DNNL_ARG_WEIGHTS, state_->weights},
                                        {DNNL_ARG_DST, state_->dst}});
  state_->stream.wait();
}

runtime::NDArray DnnlConv2d::Output() const {
  const Conv2dForm& f = state_->form;
  runtime::NDArray out = runtime::NDArray::Empty({f.n, f.oc, f.oh, f.ow}, {kDLFloat, 32, 1});
  memory user_dst(state_->user_dst, state_->engine, out.data<float>());
  dnnl::reorder(state_->dst, user_dst).execute(state_->stream, state_->dst, user_dst);
  state_->stream.wait();
  return out;
}

double DnnlConv2d::flops() const {
  const Conv2dForm& f = state_->form;
  return 2.0 * f.n * f.oc * f.oh * f.ow * (f.ic / f.groups) * f.kh * f.kw;
}

std::string DnnlConv2d::implementation() const { return state_->pd.impl_info_str(); }

std::string DnnlConv2d::formats() const {
  return absl::StrCat("data ", FormatName(state_->pd.src_desc()), ", weight ",
                      FormatName(state_->pd.weights_desc()), ", output ",
                      FormatName(state_->pd.dst_desc()));
}

void SetDnnlThreads(int threads) {
  TESSEL_CHECK(threads >= 1) << threads;
  omp_set_num_threads(threads);
}

int DnnlThreads() { return omp_get_max_threads(); }

static_assert(DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP, "SetDnnlThreads sets OpenMP's thread count");

std::string DnnlRuntimeDescription() {
  const dnnl_version_t* v = dnnl::version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP          ? "OpenMP"
                        : v->cpu_runtime == DNNL_RUNTIME_TBB        ? "TBB"
                        : v->cpu_runtime == DNNL_RUNTIME_SEQ        ? "sequential"
                        : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL ? "threadpool"
                                                                    : "other";
  return absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, ", CPU runtime ", runtime,
                      " (", DnnlThreads(), " threads)");
}

}  // namespace tessel::baselines
