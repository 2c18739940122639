#pragma once

#include <cstdint>

#include "search/measure/measure.h"
#include "search/tuner/tuner.h"

// Measuring on VDLA (PAPER.md §4.4): each candidate is compiled here to an instruction stream
// (codegen/vdla) and run on the cycle-accurate RTL simulator (hardware/vdla/sim) in this
// process, on a device of its own; its cost is the cycles from launch to FINISH at the
// configuration's stated clock. The count is deterministic and free of noise, so each candidate
// runs once and its record holds one cost.
//
// A candidate's failure is its record's error kind, as Measurer::Measure reports them:
//   kInstantiation   not a valid point of the space, or the template rejects it
//   kHostCompile     lowering or instruction generation failed
//   kResourceLimit   the schedule needs more of an on-chip buffer than the accelerator has (the
//                    buffer, the entries asked for and held)
//   kRuntime         the simulator refused the stream, or it deadlocked or ran past the cycle
//                    limit (naming the last instruction retired)
//   kWrongAnswer     an output differs from the reference (the first mismatch)
// The simulator cannot crash or hang this process (the RTL harness detects deadlock and enforces
// the cycle limit), which is why no child process isolates it.
namespace tessel::search {

struct VdlaMeasureOptions {
  int threads = 2;          // candidates simulated at once
  uint32_t input_seed = 1;  // the logical inputs, drawn once per task
  int64_t cycle_limit = int64_t{1} << 32;
  ReferenceFn reference;  // the operator's logical outputs (required)
};

// The measure function of a task whose target is `vdla` (Tune's MeasureFn). Its status is an
// error only when nothing can be measured: a task whose target is not vdla or whose template
// is unknown, inputs the reference refuses, no reference.
MeasureFn VdlaMeasureFn(VdlaMeasureOptions options);

}  // namespace tessel::search
