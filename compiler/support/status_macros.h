#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

// Early returns for absl::Status and absl::StatusOr, as functions that return either use them.
//
//   TESSEL_RETURN_IF_ERROR(stage.vectorize(axis));
//   TESSEL_ASSIGN_OR_RETURN(SplitResult parts, stage.split(axis, 8));

#define TESSEL_RETURN_IF_ERROR(expr)                       \
  do {                                                     \
    if (::absl::Status tessel_status_ = (expr); !tessel_status_.ok()) { \
      return tessel_status_;                               \
    }                                                      \
  } while (0)

#define TESSEL_STATUS_CONCAT_INNER(a, b) a##b
#define TESSEL_STATUS_CONCAT(a, b) TESSEL_STATUS_CONCAT_INNER(a, b)

#define TESSEL_ASSIGN_OR_RETURN(lhs, expr) \
  TESSEL_ASSIGN_OR_RETURN_IMPL(TESSEL_STATUS_CONCAT(tessel_statusor_, __LINE__), lhs, expr)

#define TESSEL_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                 \
  if (!statusor.ok()) return statusor.status();           \
  lhs = std::move(*statusor)
