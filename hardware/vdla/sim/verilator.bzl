"""verilated_model: SystemVerilog sources built into a C++ model library by Verilator."""

def verilated_model(name, top, srcs, params = {}, **kwargs):
    """A cc_library `name` with V<top>.h, V<top>_params.h (the parameters as constants) and the
    model's archive, built by verilate.sh from `srcs` (the top module last) with `params`
    ({"NAME": value}) as the top's parameters."""
    outs = ["V%s.h" % top, "V%s__ALL.a" % top, "V%s_params.h" % top]
    settings = " ".join(["%s=%s" % (k, params[k]) for k in params])
    native.genrule(
        name = name + "_verilate",
        srcs = srcs,
        outs = outs,
        cmd = "$(location //hardware/vdla/sim:verilate.sh) $(RULEDIR) %s %s -- $(SRCS)" % (top, settings),
        tools = ["//hardware/vdla/sim:verilate.sh"],
    )
    native.cc_library(
        name = name,
        srcs = ["V%s__ALL.a" % top],
        hdrs = ["V%s.h" % top, "V%s_params.h" % top],
        deps = ["//third_party/verilator:runtime"],
        **kwargs
    )
