#include "compiler/runtime/npy_header.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <bit>
#include <utility>

#include "compiler/runtime/dltype.h"

namespace tessel::runtime::npy {
namespace {

static_assert(std::endian::native == std::endian::little,
              "'=' and the data of '<' dtypes are read as native: the host must be little-endian");

// A value of the header's Python literal subset.
struct Literal {
  enum class Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string string;          // kString
  int64_t integer = 0;         // kInt
  bool boolean = false;        // kBool
  std::vector<Literal> items;  // kTuple, kList; kDict: key, value, key, value, ...
};

// Recursive descent over Python literals: strings ('...' or "..."), integers (an old Python 2
// 'L' suffix allowed), True, False, None, tuples, lists and dicts, nested at most kMaxDepth.
class LiteralParser {
 public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Literal> ParseValue(int depth = 0) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    SkipSpace();
    if (pos_ == text_.size()) return Error("unexpected end");
    const char c = text_[pos_];
    if (c == '\'' || c == '"') return ParseString();
    if (c == '-' || (c >= '0' && c <= '9')) return ParseInt();
    if (c == '(') return ParseSequence(')', Literal::Kind::kTuple, depth);
    if (c == '[') return ParseSequence(']', Literal::Kind::kList, depth);
    if (c == '{') return ParseDict(depth);
    struct Word {
      std::string_view text;
      Literal::Kind kind;
      bool boolean;
    };
    for (const Word& word :
         {Word{"True", Literal::Kind::kBool, true}, Word{"False", Literal::Kind::kBool, false},
          Word{"None", Literal::Kind::kNone, false}}) {
      if (text_.substr(pos_, word.text.size()) == word.text) {
        pos_ += word.text.size();
        Literal literal;
        literal.kind = word.kind;
        literal.boolean = word.boolean;
        return literal;
      }
    }
    return Error("unexpected character");
  }

  // Whether only spaces remain.
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("header is not a valid Python literal: ", what,
                                                   " at offset ", pos_, " of ", Quoted(text_)));
  }

  // The text in quotes, shortened to a readable length.
  static std::string Quoted(std::string_view text) {
    constexpr size_t kMax = 120;
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
    if (text.size() <= kMax) return absl::StrCat("\"", std::string(text), "\"");
    return absl::StrCat("\"", std::string(text.substr(0, kMax)), "...\"");
  }

 private:
  static constexpr int kMaxDepth = 16;

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  absl::StatusOr<Literal> ParseString() {
    const char quote = text_[pos_++];
    Literal literal;
    literal.kind = Literal::Kind::kString;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      literal.string += text_[pos_++];
    }
    if (pos_ == text_.size()) return Error("unterminated string");
    ++pos_;
    return literal;
  }

  absl::StatusOr<Literal> ParseInt() {
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ == text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
      return Error("expected a digit");
    }
    Literal literal;
    literal.kind = Literal::Kind::kInt;
    for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_) {
      if (__builtin_mul_overflow(literal.integer, 10, &literal.integer) ||
          __builtin_add_overflow(literal.integer, text_[pos_] - '0', &literal.integer)) {
        return Error("integer out of range");
      }
    }
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
    if (negative) literal.integer = -literal.integer;
    return literal;
  }

  // A tuple or list. "(x)" without a comma is x itself, as in Python.
  absl::StatusOr<Literal> ParseSequence(char close, Literal::Kind kind, int depth) {
    ++pos_;
    Literal literal;
    literal.kind = kind;
    bool comma = false;
    while (!Consume(close)) {
      if (AtEnd()) return Error("unexpected end");
      if (!literal.items.empty() && !comma)
        return Error(absl::StrCat("expected ',' or '", std::string(1, close), "'"));
      absl::StatusOr<Literal> item = ParseValue(depth + 1);
      if (!item.ok()) return item.status();
      literal.items.push_back(*std::move(item));
      comma = Consume(',');
    }
    if (kind == Literal::Kind::kTuple && literal.items.size() == 1 && !comma) {
      return std::move(literal.items[0]);
    }
    return literal;
  }

  absl::StatusOr<Literal> ParseDict(int depth) {
    ++pos_;
    Literal literal;
    literal.kind = Literal::Kind::kDict;
    bool comma = false;
    while (!Consume('}')) {
      if (AtEnd()) return Error("unexpected end");
      if (!literal.items.empty() && !comma) return Error("expected ',' or '}'");
      absl::StatusOr<Literal> key = ParseValue(depth + 1);
      if (!key.ok()) return key.status();
      if (!Consume(':')) return Error("expected ':'");
      absl::StatusOr<Literal> value = ParseValue(depth + 1);
      if (!value.ok()) return value.status();
      literal.items.push_back(*std::move(key));
      literal.items.push_back(*std::move(value));
      comma = Consume(',');
    }
    return literal;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

constexpr char kSupported[] = "<f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1";

absl::StatusOr<DLDataType> DescrToDLType(const std::string& descr) {
  auto unsupported = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported dtype '", descr, "' (supported: ", kSupported, ")"));
  };
  if (descr.size() != 3 || descr[2] < '1' || descr[2] > '8') return unsupported();
  const char order = descr[0], kind = descr[1];
  const int bytes = descr[2] - '0';
  DLDataType t;
  t.bits = static_cast<uint8_t>(bytes * 8);
  t.lanes = 1;
  switch (kind) {
    case 'f':
      if (bytes != 2 && bytes != 4 && bytes != 8) return unsupported();
      t.code = kDLFloat;
      break;
    case 'i':
    case 'u':
      if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) return unsupported();
      t.code = kind == 'i' ? kDLInt : kDLUInt;
      break;
    case 'b':
      if (bytes != 1) return unsupported();
      t.code = kDLBool;
      break;
    default:
      return unsupported();
  }
  // One byte has no byte order; wider types must be little-endian ('<', or '=' on this host).
  if (bytes == 1 && (order == '<' || order == '>' || order == '=' || order == '|')) return t;
  if (order == '<' || order == '=') return t;
  if (order == '>') {
    return absl::InvalidArgumentError(
        absl::StrCat("big-endian dtype '", descr, "' is not supported (save it little-endian)"));
  }
  return unsupported();
}

}  // namespace

absl::StatusOr<Header> ParseHeader(std::string_view text) {
  LiteralParser parser(text);
  absl::StatusOr<Literal> dict = parser.ParseValue();
  if (!dict.ok()) return dict.status();
  if (!parser.AtEnd()) return parser.Error("unexpected text after the value");
  if (dict->kind != Literal::Kind::kDict) {
    return absl::InvalidArgumentError(
        absl::StrCat("header is not a dict: ", LiteralParser::Quoted(text)));
  }
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
  for (size_t i = 0; i < dict->items.size(); i += 2) {
    const Literal& key = dict->items[i];
    const Literal* value = &dict->items[i + 1];
    if (key.kind != Literal::Kind::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat("header has a key that is not a string: ", LiteralParser::Quoted(text)));
    }
    const Literal** slot = key.string == "descr"           ? &descr
                           : key.string == "fortran_order" ? &fortran_order
                           : key.string == "shape"         ? &shape
                                                           : nullptr;
    if (slot == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("header has an unexpected key '", key.string,
                                                     "': ", LiteralParser::Quoted(text)));
    }
    *slot = value;
  }
  const std::pair<const Literal*, const char*> required[] = {
      {descr, "descr"}, {fortran_order, "fortran_order"}, {shape, "shape"}};
  for (const auto& [slot, name] : required) {
    if (slot == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("header has no '", name, "' key: ", LiteralParser::Quoted(text)));
    }
  }

  Header header;
  if (descr->kind != Literal::Kind::kString) {
    return absl::InvalidArgumentError(
        "'descr' is not a string (structured dtypes are not supported)");
  }
  header.descr = descr->string;
  absl::StatusOr<DLDataType> dtype = DescrToDLType(descr->string);
  if (!dtype.ok()) return dtype.status();
  header.dtype = *dtype;

  if (fortran_order->kind != Literal::Kind::kBool) {
    return absl::InvalidArgumentError("'fortran_order' is not True or False");
  }
  header.fortran_order = fortran_order->boolean;

  if (shape->kind != Literal::Kind::kTuple) {
    return absl::InvalidArgumentError("'shape' is not a tuple");
  }
  for (const Literal& extent : shape->items) {
    if (extent.kind != Literal::Kind::kInt) {
      return absl::InvalidArgumentError("'shape' holds something other than integers");
    }
    header.shape.push_back(extent.integer);
  }
  for (int64_t extent : header.shape) {
    if (extent < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'shape' ", ShapeToPython(header.shape), " has a negative extent"));
    }
  }
  return header;
}

absl::StatusOr<std::string> DescrOf(DLDataType dtype) {
  if (dtype.lanes == 1) {
    const int bytes = dtype.bits / 8;
    const bool whole = dtype.bits % 8 == 0;
    switch (dtype.code) {
      case kDLFloat:
        if (whole && (bytes == 2 || bytes == 4 || bytes == 8)) return absl::StrCat("<f", bytes);
        break;
      case kDLInt:
      case kDLUInt:
        if (whole && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) {
          return absl::StrCat(bytes == 1 ? "|" : "<", dtype.code == kDLInt ? "i" : "u", bytes);
        }
        break;
      case kDLBool:
        if (dtype.bits == 8) return std::string("|b1");
        break;
      default:
        break;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("dtype ", DLTypeToString(dtype),
                                                 " has no .npy equivalent (supported: float16, "
                                                 "float32, float64, int8-64, uint8-64, bool)"));
}

std::string FormatHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  return absl::StrCat("{'descr': '", descr,
                      "', 'fortran_order': False, 'shape': ", ShapeToPython(shape), ", }");
}

std::string ShapeToPython(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

}  // namespace tessel::runtime::npy
