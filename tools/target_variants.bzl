"""The CPU-dependent tests run for the other x86 vector width as well as for the host, and some
for GPU targets."""

load("//tools:pocl.bzl", "POCL_ENV")

def other_width_test(test, size = "medium", shard_count = None, tags = []):
    """`<test>_other_width`: the gtest binary `test` run again for the other vector width.

    compiler/testing/test_target.h resolves the target: AVX2 (`llvm -mcpu=haswell`) on a CPU
    with AVX-512, where it runs; AVX-512 (`llvm -mcpu=skylake-avx512`) elsewhere, compiled and
    assembled only. The binary is the test's own: nothing is compiled or linked twice.
    """
    native.sh_test(
        name = test + "_other_width",
        size = size,
        srcs = ["//tools:run_for_target.sh"],
        args = [
            "other-vector-width",
            "$(location :%s)" % test,
        ],
        data = [":" + test],
        shard_count = shard_count,
        tags = tags,
    )

def gpu_target_test(test, target, suffix, size = "medium", shard_count = None, args = []):
    """`<test>_<suffix>`: the gtest binary `test` run again for a GPU target (e.g. "opencl").

    The test resolves the target through compiler/testing/test_target.h like the other variants;
    where the target's device is missing (no OpenCL platform, no CUDA driver) its checks compile
    and stop, recording why. `args` go to the binary (a --gtest_filter, say).
    """
    native.sh_test(
        name = test + "_" + suffix,
        size = size,
        srcs = ["//tools:run_for_target.sh"],
        args = [
            "'%s'" % target,
            "$(location :%s)" % test,
        ] + args,
        data = [":" + test],
        env = POCL_ENV,
        shard_count = shard_count,
    )
