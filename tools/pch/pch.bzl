"""precompiled_header: a header and, beside it, GCC's precompiled form of it for this build."""

def precompiled_header(name, header, source, deps = []):
    """A cc_library `name` whose headers are `name`.h (a copy of `header`) and `name`.h.gch/opt.h,
    `header` compiled (through `source`, which includes only it) as a C++ header with the build's
    own flags, so every configuration gets its own. A source compiled with `-include
    tools/pch/<name>.h` loads the PCH when its flags and macros match, and parses the header as
    text otherwise (//tools/pch:pch_used_test checks that the build's own flags match)."""
    native.cc_library(
        name = name + "_object",
        srcs = [source],
        hdrs = [header],
        copts = ["-xc++-header"],
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
    native.genrule(
        name = name + "_files",
        srcs = [header, name + "_object_file"],
        outs = [name + ".h", name + ".h.gch/opt.h"],
        cmd = "cp $(location %s) $(location %s.h) && " % (header, name) +
              "cp $(location %s_object_file) $(location %s.h.gch/opt.h)" % (name, name),
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h", name + ".h.gch/opt.h"],
        deps = deps,
    )
