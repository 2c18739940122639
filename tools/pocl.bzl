"""The environment of tests that build OpenCL programs on PoCL while linking LLVM 16.

PoCL (the OpenCL device of these machines) runs its own LLVM 15 in the test's process; with our
LLVM 16 first in the symbol scope, PoCL's compiler binds template instances (pass-manager vtables)
of the wrong version and crashes in clBuildProgram. Preloading LLVM 15 keeps each with its own
(the `tessel` script does the same for the command line).

PoCL compiles each kernel for each work-group size it is launched with; the tests' kernels are
many and often large (unrolled random configs), and on a fresh machine compiling them is most of
the OpenCL tests' time. PoCL 3.1 knows the work-group methods `auto`, `loopvec` (its default on
this device: loops over work-items, vectorized across them), `workitemloops` and `workitemrepl`;
`auto` chooses between the last two per kernel and compiles the tests' kernels faster than
`loopvec` (the OpenCL tests with an empty PoCL cache, 1,337 -> 1,118 s of test time, measured
when this said `cbs`, a name PoCL 3.1 does not know and answers with `auto`).
"""

POCL_ENV = {
    "LD_PRELOAD": "/lib/x86_64-linux-gnu/libLLVM-15.so.1",
    "POCL_WORK_GROUP_METHOD": "auto",
}

# For the operator templates' checks, which run each random config once on small shapes to compare
# its values with libtorch: PoCL builds their kernels unoptimized (`-cl-opt-disable`), 2.5 times
# faster for the Winograd suite's, whose explicitly unrolled configs run to thousands of lines. What
# they check (the OpenCL C we print computes the right values) holds at any optimization level of a
# correct compiler; the backend's own tests (compiler/codegen/opencl), the OpenCL model tests and
# tuning on OpenCL build optimized, as users do.
POCL_CHECK_ENV = dict(POCL_ENV, POCL_EXTRA_BUILD_FLAGS = "-cl-opt-disable")
