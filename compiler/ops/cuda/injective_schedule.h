#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/injective/injective_op.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/gpu_facts.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// The GPU schedule of one output computed element by element (injective operators; the pooling
// templates' outputs too), and the injective templates built on it.
//
// The output's axes are fused into one index f over its E elements, spread over a 1-D grid of
// blocks of `threads` threads, each thread computing `per_thread` elements:
//   as a loop:    f = (block * per_thread + k) * threads + thread, k in [0, per_thread): each
//                 step k of a block touches `threads` consecutive elements (coalesced);
//   as a vector:  f = (block * threads + thread) * per_thread + lane: one 2- or 4-wide access
//                 per thread where the tensors are contiguous along f (float2, float4). The
//                 output is then computed as its LanesView [E / per_thread, per_thread], so that
//                 the guard of a ragged last block tests the rows alone and leaves the lanes one
//                 vector (a guard on f itself would make every thread's access lane by lane).
// blocks = ceil(E / (threads * per_thread)); a guard covers the ragged last block.
//
// Knobs: "threads" (powers of two from 32 to the GPU's max threads per block), "per_thread"
// (1, 2, 4), "vector" (0: loop, 1: vector; a filter keeps vector to per_thread > 1 dividing E).
namespace tessel::ops::cuda {

struct GpuElementTiling {
  int64_t threads = 256;
  int64_t per_thread = 1;
  bool vector = false;
};

// Powers of two from 32 to gpu.max_threads_per_block (below a maximum under 32: the largest
// power of two it allows).
std::vector<int64_t> ThreadsPerBlockValues(const target::GpuFacts& gpu);

// The threads a fallback takes: 256, or the largest of ThreadsPerBlockValues when smaller.
int64_t DefaultThreadsPerBlock(const target::GpuFacts& gpu);

// Declares the knobs above for an output of `elements` elements; vector_ok: per_thread may be a
// vector at all (false for outputs computed by a reduction per element).
void DefineElementKnobs(search::ConfigSpace& space, int64_t elements, const target::GpuFacts& gpu,
                        bool vector_ok = true);
GpuElementTiling ElementTilingOf(const search::Config& config);
nlohmann::json ElementKnobs(const GpuElementTiling& tiling);

// `out` (a compute of any shape, E elements) as [E / lanes, lanes], element (r, l) being element
// r * lanes + l of out in row-major order; lanes divides E. The caller computes out inline.
te::Tensor LanesView(const te::Tensor& out, int64_t lanes);

// Schedules the stage of `out` as above and binds its loops; returns the innermost loop of one
// element (the loop over per_thread, or the thread loop when per_thread is 1): a reduction's
// accumulator stage computed there (compute_at) runs once per element. With `vector`, out must
// be a LanesView of per_thread lanes, and the returned loop is the vectorized one. Errors name
// the stage.
absl::StatusOr<ir::IterVar> ScheduleElements(schedule::Schedule& s, const te::Tensor& out,
                                             const GpuElementTiling& tiling);

// A GPU injective template "<op>.gpu": the builder's output (its LanesView for a vector)
// scheduled by ScheduleElements, every other stage (batch_norm's per-channel scale and shift
// included) computed inline, so the program is one kernel. Fallback: DefaultThreadsPerBlock
// threads; 4 elements per thread as a vector when every input is contiguous along the fused index,
// E is a multiple of 4 and there are at least 2^18 elements; one element per thread otherwise.
// Flops: flops_per_element per element. With `with_tail`, instantiate_with_tail builds the
// program with it, and takes a vector only when the tailed view has one axis (no operand or tail
// input broadcast: a vector elsewhere would read them through divisions).
Template MakeGpuInjectiveTemplate(std::string name, std::string op, std::string summary,
                                  injective::InjectiveBuilder build,
                                  injective::TailedInjectiveBuilder with_tail = nullptr);

}  // namespace tessel::ops::cuda
