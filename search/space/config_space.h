#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

// The tunable knobs of a schedule template and the points of their product.
//
// A template declares knobs in a fixed order; each knob has a finite list of values, so a point
// (a Config) is one value index per knob, and the space's points are numbered in mixed radix:
//   index = sum_i value_index[i] * prod_{j < i} size[j]      (knob 0 varies fastest)
// The numbering is stable: the same declarations give the same index for the same values, which
// is what tuning logs record. Validity filters (AddFilter) reject points a template cannot
// instantiate well; they do not change the numbering, only which points sampling and neighbour
// moves return. A space of more than INT64_MAX points numbers only its first INT64_MAX: a point
// beyond has index -1, and sampling draws from the numbered ones.
//
// The order of each knob's values (below) fixes the value indices, so it is part of the format of
// tuning logs.
namespace tessel::search {

enum class KnobKind { kSplit, kReorder, kAnnotate, kChoice };

// Split of one loop of `extent` into num_outputs nested parts, outermost first. A value is the
// list of part sizes; the outermost part is ceil(extent / product of the others), so only the
// inner sizes are chosen.
//   kFactors:     inner sizes whose product divides extent (every such tuple).
//   kPowerOfTwo:  inner sizes that are powers of two, product <= extent (the last part may be
//                 ragged: the template's loops then need a guard, which split gives).
//   kCandidates:  exactly the given tuples (each of num_outputs sizes, outermost first; the
//                 outermost entry is ignored and recomputed as above), in the given order; a
//                 tuple whose inner product exceeds extent does not fit and is dropped, and so is
//                 a repeat.
// Every policy drops values whose innermost part exceeds max_innermost. kFactors and kPowerOfTwo
// order their values lexicographically by inner sizes, part 1 most significant, so value 0 is
// [extent, 1, ..., 1]; e.g. extent 12, 2 outputs: [12, 1], [6, 2], [4, 3], [3, 4], [2, 6], [1, 12].
// num_outputs = 1 gives the single value [extent].
enum class SplitPolicy { kFactors, kPowerOfTwo, kCandidates };

// Every options field has a default member initializer, so a designated initializer may name any
// subset ({.num_outputs = 3}) without tripping -Wmissing-field-initializers.
struct SplitOptions {
  SplitPolicy policy = SplitPolicy::kFactors;
  int num_outputs = 2;
  // Largest allowed size of the innermost part (0: no limit).
  int64_t max_innermost = 0;
  std::vector<std::vector<int64_t>> candidates = {};
};

// Order of num_axes loops: a value is a permutation p, the new loop nest is axes[p[0]] (outer) ...
//   kIdentity:     only 0, 1, ..., n-1.
//   kAll:          every permutation (n! values; n <= 8), in lexicographic order (value 0 is the
//                  identity).
//   kCandidates:   exactly the given permutations, in the given order (a repeat is dropped).
enum class ReorderPolicy { kIdentity, kAll, kCandidates };

struct ReorderOptions {
  ReorderPolicy policy = ReorderPolicy::kAll;
  std::vector<std::vector<int>> candidates = {};
};

// An annotation of one loop.
enum class Annotation { kNone, kUnroll, kVectorize, kParallel };
const char* AnnotationName(Annotation a);  // "none", "unroll", "vectorize", "parallel"

// Annotations of num_axes loops: a value gives one Annotation per axis, each from `allowed`,
// except that at most one axis is vectorized and only the innermost may be (when
// vectorize_innermost_only), and at most one axis is parallel and only the outermost may be
// (when parallel_outermost_only). The values are the allowed tuples in lexicographic order of
// positions in `allowed`, axis 0 most significant, so value 0 puts allowed[0] on every axis.
struct AnnotateOptions {
  std::vector<Annotation> allowed = {Annotation::kNone, Annotation::kUnroll};
  bool vectorize_innermost_only = true;
  bool parallel_outermost_only = true;
};

class ConfigSpace;
struct ConfigSpaceImpl;  // the knob declarations and filters (config_space_impl.h)
struct Knob;

// One point of a space. Cheap to copy (shares the space's declarations). The accessors take a
// knob's name; asking for a knob the space does not declare, or of another kind, is a bug in the
// template and fails a check.
class Config {
 public:
  Config() = default;

  // The point's number in its space; -1 beyond the first INT64_MAX points (see above).
  int64_t index() const { return index_; }
  // The value index of each knob, in declaration order.
  const std::vector<int64_t>& value_indices() const { return value_indices_; }

  // Part sizes of a split knob, outermost first (size num_outputs).
  const std::vector<int64_t>& split(const std::string& name) const;
  // Permutation of a reorder knob.
  const std::vector<int>& reorder(const std::string& name) const;
  // Annotation per axis of an annotate knob.
  const std::vector<Annotation>& annotate(const std::string& name) const;
  // Value of a choice knob.
  int64_t knob(const std::string& name) const;

  // {"index": I, "knobs": {name: value, ...}} with values as in the accessors (annotations as
  // names); "index" is left out when the point has none. FromJson in ConfigSpace reads it back.
  // A default-constructed Config writes {"index": 0, "knobs": {}}.
  nlohmann::json ToJson() const;
  // "tile_ic=[2, 32] reorder=[0, 2, 1] unroll_kw=1", for messages and logs.
  std::string ToString() const;

  // Same space declarations (the same space, or one declaring the same knobs with the same values
  // in the same order; filters are not compared) and same point.
  bool operator==(const Config& other) const;

 private:
  friend class ConfigSpace;
  std::shared_ptr<const ConfigSpaceImpl> space_;
  int64_t index_ = 0;
  std::vector<int64_t> value_indices_;
};

// Copies share their declarations (a knob declared through one is seen by all). Declare every knob
// before taking a Config: a later declaration fails a check, as it would renumber the Config.
class ConfigSpace {
 public:
  ConfigSpace();

  // Declarations. A template calls these once per knob, in a fixed order. A name used twice, an
  // empty value list (e.g. no candidate fits), or options that make no sense is a bug in the
  // template and fails a check naming the knob.
  void define_split(const std::string& name, int64_t extent, const SplitOptions& options = {});
  void define_reorder(const std::string& name, int num_axes, const ReorderOptions& options = {});
  void define_annotate(const std::string& name, int num_axes, const AnnotateOptions& options = {});
  void define_knob(const std::string& name, std::vector<int64_t> values);

  // A point is valid when every filter accepts it; `name` is reported by Validate.
  void AddFilter(const std::string& name, std::function<bool(const Config&)> accept);

  // Number of points (product of knob sizes; filters not applied). Saturates at INT64_MAX.
  int64_t size() const;
  int num_knobs() const;
  const std::string& knob_name(int i) const;
  KnobKind knob_kind(int i) const;
  // Number of values of knob i.
  int64_t knob_size(int i) const;

  // The point with this index; an index outside [0, size()) is an error.
  absl::StatusOr<Config> Get(int64_t index) const;
  // The point with these value indices (one per knob).
  absl::StatusOr<Config> FromValueIndices(const std::vector<int64_t>& value_indices) const;
  // Reads Config::ToJson's form: every knob present with a value the space has; "index", when
  // given, must agree. An error names the knob and the value.
  absl::StatusOr<Config> FromJson(const nlohmann::json& json) const;
  // Ok, or an error naming the first filter that rejects the config.
  absl::Status Validate(const Config& config) const;

  // Up to n distinct valid points drawn uniformly without replacement, none in `exclude`
  // (indices), in the order drawn. Fewer when the space has fewer such points. The number of
  // points tried is bounded (65536 + 100 n; excluded points are skipped, not tried), so a space
  // that filters out nearly everything returns quickly, possibly short; a space of at most that
  // many points is searched exhaustively, so the result is exact there. Deterministic for a given
  // rng state (the draws do not use <random>'s distributions, which differ between standard
  // libraries).
  std::vector<Config> SampleUnique(int64_t n, std::mt19937_64& rng,
                                   const std::vector<int64_t>& exclude = {}) const;
  // A valid point that differs from config in exactly one knob, chosen at random (a knob
  // uniformly among those with untried values, then one of its untried values uniformly); the
  // config itself when it has no valid neighbour. The tries are bounded (16384); fewer moves
  // than that are all tried. `config` must be a point of this space (a check fails otherwise).
  Config Neighbour(const Config& config, std::mt19937_64& rng) const;

 private:
  void AddKnob(Knob knob);
  // A Config of this space (freezes the declarations).
  Config MakeConfig(int64_t index, std::vector<int64_t> value_indices) const;
  // The point with this index, 0 <= index < size().
  Config ConfigAt(int64_t index) const;

  std::shared_ptr<ConfigSpaceImpl> impl_;
};

}  // namespace tessel::search
