"""precompiled_header: clang's precompiled form of a header, compiled with the build's own flags."""

# -fpch-instantiate-templates: templates the header instantiates are instantiated once, in the PCH,
#   instead of in every source that loads it (a third of a source's front-end time, measured).
# -working-directory=/proc/self/cwd: clang names the PCH's headers by absolute path, and this one
#   means the execution root of whichever action reads it: the PCH holds no sandbox's or output
#   base's path, so it is the same file on every machine and every build.
# -fmodules-embed-all-files: the PCH carries its headers' text.
# -fno-pch-timestamp: no modification times inside, so a fresh clone's headers still match.
PCH_COPTS = [
    "-xc++-header",
    "-fpch-instantiate-templates",
    "-working-directory=/proc/self/cwd",
    "-Xclang",
    "-fmodules-embed-all-files",
    "-Xclang",
    "-fno-pch-timestamp",
]

# The language of every source that includes libtorch's headers (tools/pch/BUILD says why); the
# same flags are in .bazelrc for those sources.
TORCH_COPTS = ["-std=c++17", "-Wno-c++20-extensions"]

def precompiled_header(name, header, source, deps = [], copts = []):
    """A cc_library `name` with two headers: `name`.h.pch, `header` compiled (through `source`,
    which includes only it) as a C++ header with the build's own flags and `copts`, so every
    configuration gets its own; and `name`_stamp.h, a comment naming its digest. A source compiled
    with `-include-pch <the PCH> -include <the stamp>` (.bazelrc) starts from it; clang refuses,
    naming why, a PCH whose flags or macros do not match the source's."""
    native.cc_library(
        name = name + "_object",
        srcs = [source],
        hdrs = [header],
        copts = PCH_COPTS + copts,
        deps = deps,
        linkstatic = True,
        # Only its compile output is used: //... must not archive or link a PCH.
        tags = ["manual"],
    )
    native.filegroup(
        name = name + "_object_file",
        srcs = [name + "_object"],
        output_group = "compilation_outputs",
    )
    # The stamp, a comment naming the PCH's digest, is what a source's dependency file lists
    # (-include after -include-pch, .bazelrc): Bazel keeps only listed headers as a compile's
    # inputs, and the PCH itself is not listed, so without it a changed PCH would not rebuild
    # its users in the same output base.
    native.genrule(
        name = name + "_file",
        srcs = [name + "_object_file"],
        outs = [name + ".h.pch", name + "_stamp.h"],
        cmd = "cp $< $(location %s.h.pch) && " % name +
              "echo \"// $$(sha1sum < $<)\" > $(location %s_stamp.h)" % name,
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h.pch", name + "_stamp.h"],
        deps = deps,
    )
