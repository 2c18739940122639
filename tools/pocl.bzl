"""The environment of tests that build OpenCL programs on PoCL while linking LLVM 16.

PoCL (the OpenCL device of these machines) runs its own LLVM 15 in the test's process; with our
LLVM 16 first in the symbol scope, PoCL's compiler binds template instances (pass-manager vtables)
of the wrong version and crashes in clBuildProgram. Preloading LLVM 15 keeps each with its own
(the `tessel` script does the same for the command line).
"""

POCL_ENV = {"LD_PRELOAD": "/lib/x86_64-linux-gnu/libLLVM-15.so.1"}
