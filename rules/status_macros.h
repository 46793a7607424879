// The status-return macros every layer uses (Abseil 20220623 has none):
// pass an error status up unchanged, or take the value of a StatusOr.
//
//   GUNBAI_RETURN_IF_ERROR(store.Append(...));
//   GUNBAI_ASSIGN_OR_RETURN(LoadedRuleset ruleset, LoadRuleset(text, path));
//
// Both work in functions returning absl::Status or any absl::StatusOr. The
// left side of GUNBAI_ASSIGN_OR_RETURN may be a declaration or an lvalue;
// it may not hold a comma outside parentheses (name the type with `using`).
#ifndef GUNBAI_RULES_STATUS_MACROS_H_
#define GUNBAI_RULES_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define GUNBAI_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    const absl::Status gunbai_status_ = (expr);      \
    if (!gunbai_status_.ok()) return gunbai_status_; \
  } while (false)

#define GUNBAI_STATUS_CONCAT_INNER(a, b) a##b
#define GUNBAI_STATUS_CONCAT(a, b) GUNBAI_STATUS_CONCAT_INNER(a, b)

#define GUNBAI_ASSIGN_OR_RETURN(lhs, expr) \
  GUNBAI_ASSIGN_OR_RETURN_IMPL(            \
      GUNBAI_STATUS_CONCAT(gunbai_status_or_, __LINE__), lhs, expr)

#define GUNBAI_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#endif  // GUNBAI_RULES_STATUS_MACROS_H_
