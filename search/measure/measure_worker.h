#pragma once

// The measurement worker, the process a Measurer (measure.h) starts per candidate and phase:
//
//   measure_worker build REQUEST.json   instantiate the config, lower, compile, save the library
//   measure_worker run REQUEST.json     load the library, run it once, check it, time it
//
// The request and the result file are worker_protocol.h's. The worker exits 0 once it has
// written its result, whatever the candidate did; 2 for a bad command line or request (the reason
// on stderr), 3 when the result cannot be written, 4 when the process that asked is gone. A
// candidate that crashes or hangs takes the worker with it: the parent tells that from the exit.
//
// A worker binary is this function plus the template libraries it can measure (alwayslink); it
// must not link heavy libraries (libtorch), so that it starts in milliseconds.
namespace tessel::search {

int MeasureWorkerMain(int argc, char** argv);

}  // namespace tessel::search
