"""clang_fuzzer: a libFuzzer binary whose own sources clang compiles with coverage and sanitizers,
linked against the rest of the program as Bazel builds it (uninstrumented).

Building every dependency instrumented would double the build. libFuzzer only needs coverage of
the code under test, and AddressSanitizer finds errors in the code it instruments, so only `srcs`
are compiled here (clang 14, whose libFuzzer Debian packages: -fsanitize=fuzzer-no-link,
address,undefined); the static libraries and link flags of `deps` come from their CcInfo, and the
link adds libFuzzer's driver and the sanitizer runtimes. The workspace's clang 15 and this one
both use libstdc++ and the Itanium C++ ABI, so the objects link together.
"""

load("//tools/pch:pch.bzl", "PCH_COPTS")

_CLANG = "/usr/bin/clang++"

_SANITIZE = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    # A vptr check needs RTTI for every class, including the uninstrumented ones.
    "-fno-sanitize=vptr",
]

def _clang_fuzzer_impl(ctx):
    cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    comp = cc.compilation_context
    # Line tables, not full debug information: reports name file and line, at a fraction of the
    # code generator's time.
    flags = ["-std=c++20", "-O1", "-gline-tables-only", "-fno-omit-frame-pointer"]
    flags += ["-Wall", "-Wextra", "-Werror"]
    flags += ["-fsanitize=fuzzer-no-link"] + _SANITIZE
    flags += ["-D" + d for d in comp.defines.to_list()]
    flags += ["-D" + d for d in ctx.attr.defines]
    for path in comp.includes.to_list():
        flags += ["-I", path]
    for path in comp.quote_includes.to_list():
        flags += ["-iquote", path]
    for path in comp.system_includes.to_list():
        flags += ["-isystem", path]
    headers = [f for f in ctx.files.srcs if f.extension == "h"]
    header_inputs = depset(headers, transitive = [comp.headers])

    # The headers every source starts with, parsed once: half of a source's compile time was its
    # headers. With the tree's PCH flags, so it names no sandbox's path.
    pch_name = "%s_objs/%s.pch" % (ctx.label.name, ctx.file.pch_header.basename)
    pch = ctx.actions.declare_file(pch_name)
    ctx.actions.run(
        executable = _CLANG,
        arguments = flags + PCH_COPTS + [
            "-c",
            ctx.file.pch_header.path,
            "-o",
            pch.path,
        ],
        inputs = depset([ctx.file.pch_header], transitive = [header_inputs]),
        outputs = [pch],
        mnemonic = "ClangFuzzPch",
        progress_message = "Precompiling %s for the fuzzer (clang)" %
                           ctx.file.pch_header.short_path,
    )

    objects = []
    for src in ctx.files.srcs:
        if src.extension != "cc":
            continue
        obj = ctx.actions.declare_file("%s_objs/%s.o" % (ctx.label.name, src.short_path.replace("/", "_")))
        ctx.actions.run(
            executable = _CLANG,
            arguments = flags + ["-include-pch", pch.path, "-c", src.path, "-o", obj.path],
            inputs = depset([src, pch], transitive = [header_inputs]),
            outputs = [obj],
            mnemonic = "ClangFuzzCompile",
            progress_message = "Compiling %s for the fuzzer (clang)" % src.short_path,
        )
        objects.append(obj)

    # The rest of the program: every static library of deps (whole archives where Bazel would
    # link them whole), inside one group so their order does not matter.
    libraries, link_flags, seen = [], [], {}
    archives = ["-Wl,--start-group"]
    for linker_input in cc.linking_context.linker_inputs.to_list():
        link_flags += linker_input.user_link_flags
        for lib in linker_input.libraries:
            f = lib.pic_static_library or lib.static_library or lib.dynamic_library
            if f == None or f.path in seen:
                continue
            seen[f.path] = True
            libraries.append(f)
            if lib.alwayslink and f.extension != "so":
                archives += ["-Wl,--whole-archive", f.path, "-Wl,--no-whole-archive"]
            else:
                archives.append(f.path)
    archives.append("-Wl,--end-group")

    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.run(
        executable = _CLANG,
        arguments = ["-fsanitize=fuzzer"] + _SANITIZE + [o.path for o in objects] + archives +
                    link_flags + ["-o", out.path],
        inputs = objects + libraries,
        outputs = [out],
        mnemonic = "ClangFuzzLink",
        progress_message = "Linking fuzzer %s (clang)" % out.short_path,
    )
    return [DefaultInfo(files = depset([out]), executable = out)]

clang_fuzzer = rule(
    implementation = _clang_fuzzer_impl,
    doc = "A libFuzzer binary: srcs compiled by clang with sanitizers, deps linked as built.",
    attrs = {
        "srcs": attr.label_list(allow_files = [".cc", ".h"], doc = "Compiled with clang."),
        "deps": attr.label_list(providers = [CcInfo], doc = "Headers and libraries used as built."),
        "defines": attr.string_list(),
        "pch_header": attr.label(
            allow_single_file = [".h"],
            mandatory = True,
            doc = "Headers most srcs include, precompiled once for them all.",
        ),
    },
    executable = True,
)
