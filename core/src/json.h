// json.h — a small, strict JSON (RFC 8259) value, parser and writer.
//
// Used where a file carries a JSON header (safetensors; the checkpoint's header). Strict on
// input: one value with optional whitespace around it, no comments, no trailing commas, no
// NaN/Infinity, no leading zeros, no raw control characters in strings, valid UTF-8 only,
// \u escapes with surrogate pairs matched, nesting at most ParseOptions::max_depth deep, and
// (by default) no duplicate keys in an object. Every refusal throws tinygpt::Error with the
// line, column and byte offset where the text went wrong.
//
// Numbers keep their literal text, so integers of any size survive a round trip exactly:
// as_uint64() / as_int64() read an integer literal without going through double (the
// safetensors offsets are u64), as_double() reads any number.
// Objects keep their keys in insertion (file) order; write() emits them in that order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tinygpt::json {

class Value;
using Array = std::vector<Value>;
using Member = std::pair<std::string, Value>;
using Object = std::vector<Member>;

enum class Type { Null, Bool, Number, String, Array, Object };
const char* type_name(Type type);  // "null", "boolean", "number", "string", "array", "object"

class Value {
 public:
  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(int n) : v_(Number{std::to_string(n)}) {}
  Value(int64_t n) : v_(Number{std::to_string(n)}) {}
  Value(uint64_t n) : v_(Number{std::to_string(n)}) {}
  Value(double d);  // throws for NaN and infinities (JSON has no literal for them)
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}
  static Value number_literal(std::string text);  // checked against the JSON number grammar

  Type type() const { return Type(v_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  bool is_number() const { return type() == Type::Number; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Accessors throw tinygpt::Error naming the expected and the actual type.
  bool as_bool() const;
  double as_double() const;
  uint64_t as_uint64() const;  // an integer literal in [0, 2^64 - 1]
  int64_t as_int64() const;    // an integer literal in [-2^63, 2^63 - 1]
  const std::string& number_text() const;  // the literal as written
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  // Objects: the member's value, or nullptr / an Error naming the missing key.
  const Value* find(std::string_view key) const;
  const Value& at(std::string_view key) const;
  // Objects: replaces the value of an existing key or appends a new member.
  Value& set(std::string key, Value value);
  // Arrays: appends.
  void push_back(Value value);

  bool operator==(const Value& other) const = default;  // numbers compare by literal text

 private:
  struct Number {
    std::string text;
    bool operator==(const Number&) const = default;
  };
  // index order matches Type
  std::variant<std::nullptr_t, bool, Number, std::string, Array, Object> v_;
};

struct ParseOptions {
  int max_depth = 64;                 // arrays and objects nested deeper are refused
  bool allow_duplicate_keys = false;  // RFC 8259 leaves it open; safetensors forbids them
};

// Parses exactly one JSON value (surrounded by optional whitespace). Throws tinygpt::Error:
//   "JSON: <what was wrong> at line L, column C (byte B)"   (C counts bytes; L, C from 1, B from 0)
Value parse(std::string_view text, const ParseOptions& options = {});

// Compact JSON (no spaces), or indented by `indent` spaces per level when indent > 0.
// Strings are written as UTF-8 with '"', '\\' and control characters escaped (\n, \t, \u001f, ...);
// invalid UTF-8 in a string or key throws tinygpt::Error.
std::string write(const Value& value, int indent = 0);

// Appends s as a JSON string literal (with quotes) to out; throws on invalid UTF-8.
void write_string(std::string& out, std::string_view s);

// True when s is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace tinygpt::json
