#pragma once

// What the fuzzer's sources (the ONNX frontend's) mostly include, precompiled once for them all
// (clang_fuzzer.bzl).
#include <absl/status/statusor.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/importer.h"
#include "compiler/support/status_macros.h"
