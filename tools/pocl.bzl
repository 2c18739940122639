"""The environment of tests that build OpenCL programs on PoCL while linking LLVM 16.

PoCL (the OpenCL device of these machines) runs its own LLVM 15 in the test's process; with our
LLVM 16 first in the symbol scope, PoCL's compiler binds template instances (pass-manager vtables)
of the wrong version and crashes in clBuildProgram. Preloading LLVM 15 keeps each with its own
(the `tessel` script does the same for the command line).

PoCL compiles each kernel for each work-group size it is launched with; the tests' kernels are
many and often large (unrolled random configs), and on a fresh machine compiling them was most of
the OpenCL tests' time. Its continuation-based work-group method (`cbs`) compiles them faster
than the default (`loopvec`, which vectorizes across work-items): the OpenCL tests with an empty
PoCL cache, 1,337 -> 1,118 s of test time. The kernels' results are the same, checked by the tests.
"""

POCL_ENV = {
    "LD_PRELOAD": "/lib/x86_64-linux-gnu/libLLVM-15.so.1",
    "POCL_WORK_GROUP_METHOD": "cbs",
}
