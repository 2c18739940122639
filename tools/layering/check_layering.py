#!/usr/bin/env python3
"""Reads every #include "..." of the tree and reports each one that reaches a layer above its own.

usage: check_layering.py ROOT LAYERS_FILE

LAYERS_FILE lists the layers bottom first, one per line, as folders (the longest listed prefix of
a path names its folder). Prints `path:line: includes X (layer of F, N) from layer of G, M` for
each upward include and `N upward includes` last; exits 1 if there are any, or if a source's
folder or an included file's folder is in no layer, 2 on bad arguments.

Test code may include any layer, since it exercises a layer through those above it: files named
*_test.*, *_bench.*, *_benchmark.*, test_util.*, testing.*, and everything under a folder named
`testing` or `tests`, or under tools/.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SKIP_DIRS = {".git", "results"}
TEST_NAME = re.compile(r"(_test|_bench|_benchmark)\.(cc|h)$|^(test_util|testing)\.(cc|h)$")


def read_layers(path):
    layers = {}
    with open(path) as f:
        for text in f:
            text = text.split("#", 1)[0].split()
            if text:
                rank = len(set(layers.values()))
                for folder in text:
                    layers[folder.rstrip("/")] = rank
    return layers


def folder_of(path, layers):
    best = None
    for folder in layers:
        if (path == folder or path.startswith(folder + "/")) and (
            best is None or len(folder) > len(best)
        ):
            best = folder
    return best


def is_test_code(path):
    parts = path.split("/")
    return (
        TEST_NAME.search(parts[-1]) is not None
        or "testing" in parts[:-1]
        or "tests" in parts[:-1]
        or parts[0] == "tools"
    )


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_DIRS and not d.startswith(("bazel-", "."))
        )
        for name in sorted(filenames):
            if name.endswith((".h", ".cc")):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, layers_file = argv[1], argv[2]
    layers = read_layers(layers_file)
    problems, upward = [], 0
    for path in sources(root):
        if is_test_code(path):
            continue
        own = folder_of(path, layers)
        if own is None:
            problems.append(f"{path}: its folder is in no layer of {layers_file}")
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            for number, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m or "/" not in m.group(1):
                    continue
                included = m.group(1)
                theirs = folder_of(included, layers)
                if theirs is None:
                    problems.append(f"{path}:{number}: includes {included}, in no layer")
                elif layers[theirs] > layers[own]:
                    upward += 1
                    problems.append(
                        f"{path}:{number}: includes {included} (layer of {theirs}, "
                        f"{layers[theirs]}) from layer of {own}, {layers[own]}"
                    )
    for p in problems:
        print(p)
    print(f"{upward} upward includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
