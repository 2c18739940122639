#!/usr/bin/env python3
"""The references of a CUDA measurement bundle, on the GPU machine: PyTorch (cuBLAS, TF32 off).

usage: torch_reference.py BUNDLE_DIR ARRAYS_DIR RESULT_JSON

For each entry of BUNDLE_DIR/bundle.json whose "reference" it knows, it loads the inputs
cuda_runner wrote to ARRAYS_DIR, checks cuda_runner's output against PyTorch's on the GPU (float64
on the host as the judge of both), and times PyTorch's kernels with CUDA events under the bundle's
timer (once per reference and shapes; warm-up, calls per repeat grown to min_repeat_ms, repeats):
"seconds" per call replayed from a CUDA graph of 20 calls, so that the GPU's time is measured and
not Python's dispatch, "eager_seconds" per call from Python as a user's program makes them. References:
  "matmul":            tensors[0] @ tensors[1] (cuBLAS)
  "conv2d <args JSON>": torch.nn.functional.conv2d(data, weight) with the args of
                        compiler/ops/OPERATORS.md (stride, pad top/left/bottom/right, dilation,
                        groups; cuDNN)
TF32 is off for both. Writes {"device", "torch", "entries": [{"name", "max_error",
"torch_max_error", "seconds", "eager_seconds", "timing"}]}; max_error is the largest |ours - exact| / (|A| op |B|), the
error relative to the size of the terms summed (float32 sums of n terms reach about n * 6e-8).
"""
import json
import os
import sys

import numpy as np
import torch


def time_calls(call, timer):
    for _ in range(max(timer["warmup"], 1)):
        call()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)

    def batch(number):
        start.record()
        for _ in range(number):
            call()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e-3 / number

    number = timer["number"]
    if timer["min_repeat_ms"] > 0:
        while number < (1 << 20) and batch(number) * number * 1e3 < timer["min_repeat_ms"]:
            number *= 2
    return [batch(number) for _ in range(timer["repeat"])]


def graphed(call, copies):
    """A replay of a CUDA graph of `copies` calls: PyTorch's kernels back to back on the GPU
    without Python's dispatch between them, which alone takes longer than a small convolution
    runs (timed eagerly, a 7-microsecond layer measures PyTorch's overhead, not cuDNN)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # capture wants its warm-up on a side stream
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(copies):
            call()
    return graph.replay


def time_kernels(call, timer, copies=20):
    """Seconds per call, timed through a CUDA graph of `copies` calls; with the eager times
    (each call dispatched from Python) beside them and how the first were taken."""
    eager = time_calls(call, timer)
    try:
        replay = graphed(call, copies)
    except RuntimeError as e:  # an op that cannot be captured: eager times only
        return eager, eager, "eagerly (graph capture failed: %s)" % str(e).splitlines()[0]
    return [t / copies for t in time_calls(replay, timer)], eager, "from a CUDA graph of %d calls" % copies


def make_op(reference):
    """The PyTorch function of two tensors a reference names, or None."""
    if reference == "matmul":
        return torch.matmul
    if reference.startswith("conv2d "):
        args = json.loads(reference[len("conv2d "):])
        top, left, bottom, right = args.get("pad", [0, 0, 0, 0])
        stride = args.get("stride", [1, 1])
        dilation = args.get("dilation", [1, 1])
        groups = args.get("groups", 1)

        def conv(x, w):
            padding = (top, left)
            if (top, left) != (bottom, right):  # conv2d pads symmetrically only
                x = torch.nn.functional.pad(x, (left, right, top, bottom))
                padding = (0, 0)
            return torch.nn.functional.conv2d(x, w, stride=stride, padding=padding,
                                              dilation=dilation, groups=groups)
        return conv
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: torch_reference.py BUNDLE_DIR ARRAYS_DIR RESULT_JSON")
    bundle_dir, arrays_dir, out_path = sys.argv[1:]
    with open(os.path.join(bundle_dir, "bundle.json")) as f:
        bundle = json.load(f)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results = []
    timed = {}  # PyTorch's time per (reference, shapes): entries that share them share it
    for entry in bundle["entries"]:
        op = make_op(entry["reference"])
        if op is None:
            results.append({"name": entry["name"], "error": "no reference " + entry["reference"]})
            continue
        arrays = [np.load(os.path.join(arrays_dir, "%s.%d.npy" % (entry["name"], k)))
                  for k in range(len(entry["tensors"]))]
        a, b, ours = arrays[0], arrays[1], arrays[-1]
        a64, b64 = torch.from_numpy(a).double(), torch.from_numpy(b).double()
        exact = op(a64, b64).numpy()
        scale = op(a64.abs(), b64.abs()).numpy()
        ga = torch.from_numpy(a).cuda()
        gb = torch.from_numpy(b).cuda()
        call = lambda: op(ga, gb)
        out = call()
        torch.cuda.synchronize()
        theirs = out.cpu().numpy()
        key = (entry["reference"], json.dumps(entry["tensors"]))
        if key not in timed:
            timed[key] = time_kernels(call, bundle["timer"])
        results.append({
            "name": entry["name"],
            "max_error": float(np.nanmax(np.abs(ours - exact) / scale)) if not np.isnan(ours).any()
            else float("inf"),
            "torch_max_error": float(np.max(np.abs(theirs - exact) / scale)),
            "seconds": timed[key][0],
            "eager_seconds": timed[key][1],
            "timing": timed[key][2],
        })
    with open(out_path, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                   "entries": results}, f, indent=1)
    print("torch_reference: %d entries on %s" % (len(results), torch.cuda.get_device_name(0)))


if __name__ == "__main__":
    main()
