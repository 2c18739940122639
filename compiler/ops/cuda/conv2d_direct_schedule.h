#pragma once

#include <absl/status/status.h>

#include <array>
#include <cstdint>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/gpu_facts.h"
#include "search/space/config_space.h"

// The direct convolution on GPUs (CUDA and OpenCL), AutoTVM's conv2d_direct space: one kernel
// over an NCHW output, each thread block a tile of output channels x rows x columns.
//
// Knobs (declared in this order):
//   tile_f, tile_y, tile_x   4-way splits of oc / groups, oh, ow: [block, vthread, thread, inner]
//   tile_rc, tile_ry, tile_rx  2-way splits of the reduction (icg, kh, kw): [outer, inner]
//   auto_unroll_max_step     {0, 512, 1500}: the Unroll pass's pragma on the kernel
//   unroll_explicit          {0, 1}: expand those loops (1) or leave them `#pragma unroll` (0)
// Loop nest: blockIdx.z = (n, group, f block), blockIdx.y = y block, blockIdx.x = x block; one
// vthread loop (the three vthread parts fused: a stage binds "vthread" once); threadIdx.z/y/x = the
// thread parts of f/y/x; each thread accumulates its (vthread x inner) outputs in "local"
// memory over the reduction, split into outer steps (rc, ry, rx outer) each of which first
// copies the input window and the weights it reads into "shared" memory, all the block's
// threads together (the copy's axes fused, consecutive elements on consecutive threadIdx.x);
// then the inner steps read them from there. The padded (or zero-inserted) input is inlined
// into that copy. Bound inference (compiler/schedule/bound.cc) widens a shared stage over the
// vthreads as over the threads, so the block fetches one window and one weight tile for all its
// vthreads (neighbouring vthreads' windows overlap) and holds them once in shared memory.
namespace tessel::ops::cuda {

// A config's knob values.
struct Conv2dDirectKnobs {
  std::array<int64_t, 4> f{}, y{}, x{};  // [block, vthread, thread, inner]
  int64_t rc = 1, ry = 1, rx = 1;        // inner parts of the reduction splits
  int64_t auto_unroll_max_step = 0;
  bool unroll_explicit = false;

  int64_t threads() const { return f[2] * y[2] * x[2]; }
  int64_t vthreads() const { return f[1] * y[1] * x[1]; }
  int64_t outputs_per_thread() const { return vthreads() * f[3] * y[3] * x[3]; }
};

Conv2dDirectKnobs ReadConv2dDirectKnobs(const search::Config& config);

// Bytes of shared memory a config's kernel allocates for convolution `a` (the block's input
// window and weight tile).
int64_t Conv2dDirectSharedBytes(const nn::Conv2dAttrs& a, const Conv2dDirectKnobs& k);

// Declares the knobs for `a` and the filters that keep sampling inside `gpu`'s limits: threads
// per block (and threadIdx.z within the GPU's limit), shared bytes, outputs per thread; with
// groups, one block per group (tile_f's block part 1).
void DefineConv2dDirectSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                             const target::GpuFacts& gpu);

// A valid config for `gpu`: about 64-256 threads (columns on threadIdx.x, rows on y, channels
// on z), up to 8 channels x 2 rows per thread (with groups: the group's channels over up to 64
// threads on z, the other threads over columns and rows), no vthreads, rc in steps of up to 8 with
// the whole kernel window per step, shrunk until the shared tiles fit; unrolled up to 512 steps,
// expanded.
search::Config Conv2dDirectFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                    const target::GpuFacts& gpu);

// Schedules the convolution out[n, f, y, x] = sum over (rc, ry, rx) of window(...) * weight(...)
// whose input stage `window` (padded or zero-inserted data) is inlined into the shared copy.
// `stored` is the stage written to global memory: out itself, or a fused tail over out (out is
// then inlined into it). out's axes are (n, oc, oh, ow), its reduction axes (rc, ry, rx) with rc
// over one group's input channels (nn::MakeConv2dNchw's form).
absl::Status ScheduleConv2dDirect(schedule::Schedule& s, const te::Tensor& window,
                                  const te::Tensor& weight, const te::Tensor& out,
                                  const te::Tensor& stored, const Conv2dDirectKnobs& k,
                                  int64_t groups = 1);

}  // namespace tessel::ops::cuda
