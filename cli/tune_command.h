#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel tune`: tunes one operator task, or every task of a model, appending every trial to a
// log.
//   tessel tune --workload C6 [--template T] | --template T --args JSON          (one operator)
//   tessel tune MODEL.onnx [--dim NAME=V ...] | --workload NETWORK [--batch N]   (a whole model)
//               [--list-tasks] [--tasks I,J,...] [--no-optimize-graph] [--no-transfer]
//   and for both:
//               [--target llvm] [--tuner xgb|treernn|random|ga|grid | --model M --explorer E]
//               [--trials N] --log LOG
//               [--seed S] [--threads T] [--early-stopping N] [--transfer-from LOG[,LOG...]]
//               [--features itervar|knob|curve] [--repeat R] [--min-repeat-ms MS] [--timeout S]
// --workload takes a Table 2 layer (C1-C12, D1-D9: its one conv2d) or a network of
// workloads/networks. A model's tasks are the ones `tessel compile` looks up in a log for the same
// model, target and graph optimizations (driver::ExtractTasks); they are tuned one after another
// (search::TuneTasks), --trials and --early-stopping per task, later tasks of a template starting
// from the earlier ones' records unless --no-transfer. --list-tasks prints the tasks (index,
// template, arguments, nodes) and tunes nothing; --tasks tunes only those indices. Rerunning with
// the same log resumes every task and never measures a config twice.
namespace tessel::cli {

absl::Status TuneCommand(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
