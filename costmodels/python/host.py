"""The Python side of a `py:` cost model: imports the researcher's module and serves the tuner's
requests on stdin/stdout until stdin closes (costmodels/python/py_model.h has the C++ side).

The module (a dotted name found on sys.path, which starts with the working directory and
PYTHONPATH, or a path to a .py file) defines

    class Model:
        def __init__(self, seed: int): ...
        def fit(self, features, throughputs, tasks): ...   # features: float32 [n, d]
        def predict(self, features): ...                    # -> n scores, larger is faster
        # optional:
        def fit_transfer(self, features, throughputs, tasks): ...
        def save(self, path): ...
        def load(self, path): ...

`throughputs` is float64 [n] (GFLOPS, 0 for a failed measurement); `tasks` is a list of n task
keys (one query group per key). Rows are zero-padded by the C++ side to a common width; predict
rows are padded or cut here to the width of the last fit, so a model always sees one width.

Protocol, one request after another: a JSON line {"op": ..., "rows": n, "cols": d, ...}, then
n * d float32 (and for fit, n float64 throughputs), little-endian. Each answer is a JSON line
{"ok": true, ...} (predict: followed by n float64 scores) or {"ok": false, "error": "..."} with
the exception and the last lines of its traceback.
"""
import importlib
import importlib.util
import json
import os
import sys
import traceback

import numpy as np


def load_module(spec):
    if spec.endswith(".py"):
        if not os.path.isfile(spec):
            raise ImportError(f"no file {spec}")
        name = os.path.splitext(os.path.basename(spec))[0]
        module_spec = importlib.util.spec_from_file_location(name, spec)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        return module
    return importlib.import_module(spec)


def read_exact(stream, size):
    data = stream.read(size)
    if len(data) != size:
        raise EOFError(f"expected {size} bytes, got {len(data)}")
    return data


def fit_width(features, width):
    if width is None or features.shape[1] == width:
        return features
    if features.shape[1] > width:
        return features[:, :width]
    return np.pad(features, ((0, 0), (0, width - features.shape[1])))


def describe(exc):
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return "".join(lines[-3:]).strip()


def serve(module_spec, seed):
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # What the model prints must not break the protocol: print() goes to stderr.
    sys.stdout = sys.stderr

    def answer(reply, payload=b""):
        stdout.write(json.dumps(reply).encode() + b"\n" + payload)
        stdout.flush()

    try:
        module = load_module(module_spec)
        if not hasattr(module, "Model"):
            raise AttributeError(f"module {module_spec} defines no class Model")
        model = module.Model(seed)
        answer({"ok": True})
    except BaseException as e:  # the C++ side reports it and stops
        answer({"ok": False, "error": describe(e)})
        return
    width = None
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            request = json.loads(line)
            rows, cols = request.get("rows", 0), request.get("cols", 0)
            features = np.frombuffer(read_exact(stdin, rows * cols * 4), dtype="<f4")
            features = features.reshape(rows, cols)
            op = request["op"]
            if op in ("fit", "fit_transfer"):
                throughputs = np.frombuffer(read_exact(stdin, rows * 8), dtype="<f8")
                method = getattr(model, op, None)
                if method is None:
                    raise NotImplementedError(f"{module_spec}.Model has no {op}")
                method(features, throughputs, request["tasks"])
                width = cols
                answer({"ok": True})
            elif op == "predict":
                scores = np.asarray(model.predict(fit_width(features, width)), dtype="<f8")
                scores = scores.reshape(-1)
                if scores.shape[0] != rows:
                    raise ValueError(f"predict returned {scores.shape[0]} scores for {rows} rows")
                answer({"ok": True, "count": rows}, scores.tobytes())
            elif op in ("save", "load"):
                method = getattr(model, op, None)
                if method is None:
                    raise NotImplementedError(f"{module_spec}.Model has no {op}")
                path = request["path"]
                method(path)
                # The fitted width travels beside the model's own file.
                if op == "save":
                    with open(path + ".host.json", "w") as f:
                        json.dump({"width": width}, f)
                elif os.path.isfile(path + ".host.json"):
                    with open(path + ".host.json") as f:
                        width = json.load(f).get("width")
                answer({"ok": True})
            else:
                raise ValueError(f"unknown request {op!r}")
        except EOFError:
            return
        except Exception as e:
            answer({"ok": False, "error": describe(e)})


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: host.py MODULE SEED")
    serve(sys.argv[1], int(sys.argv[2]))
