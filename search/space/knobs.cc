// The values of each kind of knob: their enumeration (the order fixes the value indices, so it is
// part of the tuning-log format and must not change) and their JSON and text forms.

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <limits>
#include <set>

#include "compiler/support/check.h"
#include "search/space/config_space_impl.h"

namespace tessel::search {
namespace {

constexpr Annotation kAllAnnotations[] = {Annotation::kNone, Annotation::kUnroll,
                                          Annotation::kVectorize, Annotation::kParallel};

// Errors list the valid values when a knob has at most this many.
constexpr int64_t kListedValues = 16;

int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d <= n / d; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

const char* PolicyName(SplitPolicy policy) {
  switch (policy) {
    case SplitPolicy::kFactors:
      return "factors";
    case SplitPolicy::kPowerOfTwo:
      return "powers of two";
    case SplitPolicy::kCandidates:
      return "candidates";
  }
  return "?";
}

const char* PolicyName(ReorderPolicy policy) {
  switch (policy) {
    case ReorderPolicy::kIdentity:
      return "identity";
    case ReorderPolicy::kAll:
      return "all orders";
    case ReorderPolicy::kCandidates:
      return "candidates";
  }
  return "?";
}

// Split values of kFactors and kPowerOfTwo: the inner sizes (parts 1 .. n-1) in lexicographic
// order, part 1 most significant, each part ascending; part 0 is recomputed.
class SplitEnumerator {
 public:
  SplitEnumerator(const std::string& name, int64_t extent, const SplitOptions& options)
      : name_(name), extent_(extent), options_(options), tuple_(options.num_outputs) {}

  std::vector<std::vector<int64_t>> Run() {
    if (options_.policy == SplitPolicy::kFactors) divisors_ = Divisors(extent_);
    Recurse(1, 1);
    return std::move(values_);
  }

 private:
  void Recurse(int pos, int64_t product) {
    if (pos == options_.num_outputs) {
      tuple_[0] = CeilDiv(extent_, product);
      if (options_.max_innermost > 0 && tuple_.back() > options_.max_innermost) return;
      TESSEL_CHECK(static_cast<int64_t>(values_.size()) < kMaxKnobValues)
          << "split knob '" << name_ << "' of extent " << extent_ << " into "
          << options_.num_outputs << " parts has more than " << kMaxKnobValues << " values";
      values_.push_back(tuple_);
      return;
    }
    if (options_.policy == SplitPolicy::kFactors) {
      const int64_t rest = extent_ / product;
      for (int64_t d : divisors_) {
        if (d > rest) break;
        if (rest % d != 0) continue;
        tuple_[pos] = d;
        Recurse(pos + 1, product * d);
      }
    } else {
      for (int64_t d = 1; d <= extent_ / product; d *= 2) {
        tuple_[pos] = d;
        Recurse(pos + 1, product * d);
        if (d > std::numeric_limits<int64_t>::max() / 2) break;
      }
    }
  }

  const std::string& name_;
  const int64_t extent_;
  const SplitOptions& options_;
  std::vector<int64_t> divisors_;
  std::vector<int64_t> tuple_;
  std::vector<std::vector<int64_t>> values_;
};

// kCandidates: the given tuples in order, duplicates (after recomputing part 0) dropped, and those
// that do not fit (inner product above extent, innermost above max_innermost) dropped.
std::vector<std::vector<int64_t>> SplitCandidates(const std::string& name, int64_t extent,
                                                  const SplitOptions& options) {
  std::vector<std::vector<int64_t>> values;
  std::set<std::vector<int64_t>> seen;
  for (std::vector<int64_t> c : options.candidates) {
    TESSEL_CHECK(static_cast<int>(c.size()) == options.num_outputs)
        << "split knob '" << name << "': candidate [" << absl::StrJoin(c, ", ") << "] has "
        << c.size() << " sizes, not num_outputs = " << options.num_outputs;
    bool fits = true;
    int64_t product = 1;
    for (size_t i = 1; i < c.size(); ++i) {
      TESSEL_CHECK(c[i] >= 1) << "split knob '" << name << "': candidate ["
                              << absl::StrJoin(c, ", ") << "] has a part size below 1";
      if (c[i] > extent / product) {
        fits = false;
      } else {
        product *= c[i];
      }
    }
    if (!fits) continue;
    c[0] = CeilDiv(extent, product);
    if (options.max_innermost > 0 && c.back() > options.max_innermost) continue;
    if (seen.insert(c).second) values.push_back(std::move(c));
  }
  return values;
}

bool ReadInt(const nlohmann::json& json, int64_t* out) {
  if (json.is_number_unsigned()) {
    const uint64_t u = json.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (!json.is_number_integer()) return false;
  *out = json.get<int64_t>();
  return true;
}

bool ParseAnnotation(const std::string& name, Annotation* out) {
  for (Annotation a : kAllAnnotations) {
    if (name == AnnotationName(a)) {
      *out = a;
      return true;
    }
  }
  return false;
}

template <typename T>
int64_t Find(const std::vector<T>& values, const T& value) {
  auto it = std::find(values.begin(), values.end(), value);
  return it == values.end() ? -1 : it - values.begin();
}

// What a knob's JSON value must look like, for type errors.
std::string ExpectedForm(const Knob& knob) {
  switch (knob.kind) {
    case KnobKind::kSplit:
      return absl::StrCat("a list of ", knob.splits[0].size(), " integers");
    case KnobKind::kReorder:
      return absl::StrCat("a list of ", knob.orders[0].size(), " integers");
    case KnobKind::kAnnotate:
      return absl::StrCat("a list of ", knob.annotations[0].size(),
                          " annotation names (none, unroll, vectorize, parallel)");
    case KnobKind::kChoice:
      return "an integer";
  }
  return "?";
}

absl::Status WrongForm(const Knob& knob, const nlohmann::json& json) {
  return absl::InvalidArgumentError(absl::StrCat("knob '", knob.name, "' (", knob.description,
                                                 ") expects ", ExpectedForm(knob), ", got ",
                                                 json.dump()));
}

absl::Status NoSuchValue(const Knob& knob, const nlohmann::json& json) {
  std::string message =
      absl::StrCat("knob '", knob.name, "' (", knob.description, ") has no value ", json.dump());
  if (knob.size() <= kListedValues) {
    std::vector<std::string> listed;
    for (int64_t v = 0; v < knob.size(); ++v) listed.push_back(ValueToString(knob, v));
    absl::StrAppend(&message, "; valid values: ", absl::StrJoin(listed, ", "));
  } else {
    absl::StrAppend(&message, " (it has ", knob.size(), " values, e.g. ", ValueToString(knob, 0),
                    ")");
  }
  return absl::InvalidArgumentError(message);
}

// Reads a JSON list of `length` integers; false when json is not one.
bool ReadInts(const nlohmann::json& json, size_t length, std::vector<int64_t>* out) {
  if (!json.is_array() || json.size() != length) return false;
  out->clear();
  for (const nlohmann::json& e : json) {
    int64_t x;
    if (!ReadInt(e, &x)) return false;
    out->push_back(x);
  }
  return true;
}

}  // namespace

const char* AnnotationName(Annotation a) {
  switch (a) {
    case Annotation::kNone:
      return "none";
    case Annotation::kUnroll:
      return "unroll";
    case Annotation::kVectorize:
      return "vectorize";
    case Annotation::kParallel:
      return "parallel";
  }
  return "?";
}

int64_t Knob::size() const {
  switch (kind) {
    case KnobKind::kSplit:
      return static_cast<int64_t>(splits.size());
    case KnobKind::kReorder:
      return static_cast<int64_t>(orders.size());
    case KnobKind::kAnnotate:
      return static_cast<int64_t>(annotations.size());
    case KnobKind::kChoice:
      return static_cast<int64_t>(choices.size());
  }
  return 0;
}

bool Knob::operator==(const Knob& other) const {
  return name == other.name && kind == other.kind && splits == other.splits &&
         orders == other.orders && annotations == other.annotations && choices == other.choices;
}

Knob MakeSplitKnob(const std::string& name, int64_t extent, const SplitOptions& options) {
  TESSEL_CHECK(extent >= 1) << "split knob '" << name << "' has extent " << extent;
  TESSEL_CHECK(options.num_outputs >= 1)
      << "split knob '" << name << "' has num_outputs = " << options.num_outputs;
  TESSEL_CHECK(options.max_innermost >= 0)
      << "split knob '" << name << "' has max_innermost = " << options.max_innermost;
  TESSEL_CHECK(options.policy == SplitPolicy::kCandidates || options.candidates.empty())
      << "split knob '" << name << "' has candidates but policy " << PolicyName(options.policy);
  Knob knob;
  knob.name = name;
  knob.kind = KnobKind::kSplit;
  knob.description = absl::StrCat("split of ", extent, " into ", options.num_outputs, " parts (",
                                  PolicyName(options.policy));
  if (options.max_innermost > 0) {
    absl::StrAppend(&knob.description, ", innermost <= ", options.max_innermost);
  }
  absl::StrAppend(&knob.description, ")");
  knob.splits = options.policy == SplitPolicy::kCandidates
                    ? SplitCandidates(name, extent, options)
                    : SplitEnumerator(name, extent, options).Run();
  TESSEL_CHECK(!knob.splits.empty())
      << "split knob '" << name << "' (" << knob.description << ") has no values";
  return knob;
}

Knob MakeReorderKnob(const std::string& name, int num_axes, const ReorderOptions& options) {
  TESSEL_CHECK(num_axes >= 1) << "reorder knob '" << name << "' has num_axes = " << num_axes;
  TESSEL_CHECK(options.policy == ReorderPolicy::kCandidates || options.candidates.empty())
      << "reorder knob '" << name << "' has candidates but policy " << PolicyName(options.policy);
  Knob knob;
  knob.name = name;
  knob.kind = KnobKind::kReorder;
  knob.description =
      absl::StrCat("reorder of ", num_axes, " axes (", PolicyName(options.policy), ")");
  std::vector<int> identity(num_axes);
  for (int i = 0; i < num_axes; ++i) identity[i] = i;
  switch (options.policy) {
    case ReorderPolicy::kIdentity:
      knob.orders.push_back(identity);
      break;
    case ReorderPolicy::kAll:
      // Lexicographic order, so value 0 is the identity.
      TESSEL_CHECK(num_axes <= 8) << "reorder knob '" << name << "' would have " << num_axes
                                  << "! values; use candidates";
      do {
        knob.orders.push_back(identity);
      } while (std::next_permutation(identity.begin(), identity.end()));
      break;
    case ReorderPolicy::kCandidates: {
      std::set<std::vector<int>> seen;
      for (const std::vector<int>& c : options.candidates) {
        std::vector<int> sorted = c;
        std::sort(sorted.begin(), sorted.end());
        TESSEL_CHECK(sorted == identity)
            << "reorder knob '" << name << "': candidate [" << absl::StrJoin(c, ", ")
            << "] is not a permutation of 0.." << num_axes - 1;
        if (seen.insert(c).second) knob.orders.push_back(c);
      }
      break;
    }
  }
  TESSEL_CHECK(!knob.orders.empty()) << "reorder knob '" << name << "' has no values";
  return knob;
}

Knob MakeAnnotateKnob(const std::string& name, int num_axes, const AnnotateOptions& options) {
  TESSEL_CHECK(num_axes >= 1) << "annotate knob '" << name << "' has num_axes = " << num_axes;
  TESSEL_CHECK(!options.allowed.empty()) << "annotate knob '" << name << "' allows no annotation";
  std::vector<std::string> allowed_names;
  for (size_t i = 0; i < options.allowed.size(); ++i) {
    TESSEL_CHECK(std::count(options.allowed.begin(), options.allowed.end(), options.allowed[i]) ==
                 1)
        << "annotate knob '" << name << "' allows " << AnnotationName(options.allowed[i])
        << " twice";
    allowed_names.push_back(AnnotationName(options.allowed[i]));
  }
  const int64_t base = static_cast<int64_t>(options.allowed.size());
  int64_t tuples = 1;
  for (int i = 0; i < num_axes; ++i) {
    TESSEL_CHECK(tuples <= kMaxKnobValues / base)
        << "annotate knob '" << name << "' of " << num_axes << " axes has more than "
        << kMaxKnobValues << " values";
    tuples *= base;
  }
  Knob knob;
  knob.name = name;
  knob.kind = KnobKind::kAnnotate;
  knob.description = absl::StrCat("annotation of ", num_axes, " axes from {",
                                  absl::StrJoin(allowed_names, ", "), "}");
  // Tuples in lexicographic order of positions in `allowed`, axis 0 most significant, so value 0
  // puts allowed[0] on every axis.
  std::vector<int64_t> digit(num_axes, 0);
  std::vector<Annotation> value(num_axes);
  for (int64_t t = 0; t < tuples; ++t) {
    int vectorized = 0, parallel = 0;
    bool ok = true;
    for (int axis = 0; axis < num_axes; ++axis) {
      value[axis] = options.allowed[digit[axis]];
      if (value[axis] == Annotation::kVectorize) {
        ++vectorized;
        if (options.vectorize_innermost_only && axis != num_axes - 1) ok = false;
      }
      if (value[axis] == Annotation::kParallel) {
        ++parallel;
        if (options.parallel_outermost_only && axis != 0) ok = false;
      }
    }
    if (ok && vectorized <= 1 && parallel <= 1) knob.annotations.push_back(value);
    for (int axis = num_axes - 1; axis >= 0; --axis) {
      if (++digit[axis] < base) break;
      digit[axis] = 0;
    }
  }
  TESSEL_CHECK(!knob.annotations.empty())
      << "annotate knob '" << name << "' (" << knob.description << ") has no values";
  return knob;
}

Knob MakeChoiceKnob(const std::string& name, std::vector<int64_t> values) {
  TESSEL_CHECK(!values.empty()) << "knob '" << name << "' has no values";
  TESSEL_CHECK(static_cast<int64_t>(values.size()) <= kMaxKnobValues)
      << "knob '" << name << "' has more than " << kMaxKnobValues << " values";
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  TESSEL_CHECK(dup == sorted.end()) << "knob '" << name << "' lists the value " << *dup << " twice";
  Knob knob;
  knob.name = name;
  knob.kind = KnobKind::kChoice;
  knob.description = absl::StrCat("choice of ", values.size(), " values");
  knob.choices = std::move(values);
  return knob;
}

nlohmann::json ValueToJson(const Knob& knob, int64_t v) {
  switch (knob.kind) {
    case KnobKind::kSplit:
      return knob.splits[v];
    case KnobKind::kReorder:
      return knob.orders[v];
    case KnobKind::kAnnotate: {
      nlohmann::json out = nlohmann::json::array();
      for (Annotation a : knob.annotations[v]) out.push_back(AnnotationName(a));
      return out;
    }
    case KnobKind::kChoice:
      return knob.choices[v];
  }
  return nullptr;
}

std::string ValueToString(const Knob& knob, int64_t v) {
  switch (knob.kind) {
    case KnobKind::kSplit:
      return absl::StrCat("[", absl::StrJoin(knob.splits[v], ", "), "]");
    case KnobKind::kReorder:
      return absl::StrCat("[", absl::StrJoin(knob.orders[v], ", "), "]");
    case KnobKind::kAnnotate: {
      std::vector<std::string> names;
      for (Annotation a : knob.annotations[v]) names.push_back(AnnotationName(a));
      return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
    }
    case KnobKind::kChoice:
      return absl::StrCat(knob.choices[v]);
  }
  return "?";
}

absl::StatusOr<int64_t> ValueFromJson(const Knob& knob, const nlohmann::json& json) {
  int64_t found = -1;
  switch (knob.kind) {
    case KnobKind::kSplit: {
      std::vector<int64_t> sizes;
      if (!ReadInts(json, knob.splits[0].size(), &sizes)) return WrongForm(knob, json);
      found = Find(knob.splits, sizes);
      break;
    }
    case KnobKind::kReorder: {
      std::vector<int64_t> read;
      if (!ReadInts(json, knob.orders[0].size(), &read)) return WrongForm(knob, json);
      std::vector<int> order;
      for (int64_t x : read) {
        // An entry outside int's range cannot be an axis; keep it out of range after narrowing.
        order.push_back(x < 0 || x > std::numeric_limits<int>::max() ? -1 : static_cast<int>(x));
      }
      found = Find(knob.orders, order);
      break;
    }
    case KnobKind::kAnnotate: {
      const size_t n = knob.annotations[0].size();
      if (!json.is_array() || json.size() != n) return WrongForm(knob, json);
      std::vector<Annotation> value;
      for (const nlohmann::json& e : json) {
        Annotation a;
        if (!e.is_string()) return WrongForm(knob, json);
        if (!ParseAnnotation(e.get<std::string>(), &a)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "knob '", knob.name, "' (", knob.description, ") has no annotation ", e.dump(),
              " in ", json.dump(), "; annotations are none, unroll, vectorize, parallel"));
        }
        value.push_back(a);
      }
      found = Find(knob.annotations, value);
      break;
    }
    case KnobKind::kChoice: {
      int64_t x;
      if (!ReadInt(json, &x)) return WrongForm(knob, json);
      found = Find(knob.choices, x);
      break;
    }
  }
  if (found < 0) return NoSuchValue(knob, json);
  return found;
}

}  // namespace tessel::search
