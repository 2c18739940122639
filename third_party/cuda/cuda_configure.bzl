"""Finds the CUDA toolkit (CUDA_PATH, else /usr/local/cuda) for NVRTC, or records why there is none.

Either way @cuda//:nvrtc exists, so the build never breaks on a machine without CUDA. Where the
toolkit is missing, the target defines TESSEL_CUDA_MISSING to the reason, and code that needs CUDA
reports itself skipped with that reason.
"""

_FOUND = """\
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "nvrtc",
    hdrs = glob(["include/*.h", "include/crt/**"]),
    includes = ["include"],
    linkopts = ["-L{lib}", "-lnvrtc", "-Wl,-rpath,{lib}"],
)
"""

_MISSING = """\
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "nvrtc",
    # Bazel shell-tokenizes defines: the single quotes keep the reason one quoted string.
    defines = ["TESSEL_CUDA_MISSING='\\\"{reason}\\\"'"],
)
"""

def _cuda_configure_impl(ctx):
    root = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    if not ctx.path(root + "/include/nvrtc.h").exists:
        reason = "no CUDA toolkit at %s (include/nvrtc.h not found; set CUDA_PATH)" % root
        ctx.file("BUILD", _MISSING.format(reason = reason))
        return
    lib = root + "/lib64"
    if not ctx.path(lib + "/libnvrtc.so").exists:
        ctx.file("BUILD", _MISSING.format(reason = "CUDA at %s has no lib64/libnvrtc.so" % root))
        return
    ctx.symlink(root + "/include", "include")
    ctx.file("BUILD", _FOUND.format(lib = lib))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
