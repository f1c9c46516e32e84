// json.cpp — the strict JSON parser and writer of json.h.
#include "json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "tinygpt/error.h"

namespace tinygpt::json {

using tinygpt::Error;

const char* type_name(Type type) {
  switch (type) {
    case Type::Null: return "null";
    case Type::Bool: return "boolean";
    case Type::Number: return "number";
    case Type::String: return "string";
    case Type::Array: return "array";
    case Type::Object: return "object";
  }
  return "?";
}

namespace {

[[noreturn]] void wrong_type(Type want, Type got) {
  throw Error(std::string("JSON: expected ") + type_name(want) + ", got " + type_name(got));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the JSON number at the start of s (0 when there is none). Grammar (RFC 8259):
//   -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
// On failure, *bad is set to the offset of the offending byte.
size_t scan_number(std::string_view s, size_t* bad) {
  size_t i = 0;
  auto fail = [&](size_t at) {
    *bad = at;
    return size_t(0);
  };
  if (i < s.size() && s[i] == '-') i++;
  if (i >= s.size() || !is_digit(s[i])) return fail(i);
  if (s[i] == '0') {
    i++;
    if (i < s.size() && is_digit(s[i])) return fail(i);  // leading zero
  } else {
    while (i < s.size() && is_digit(s[i])) i++;
  }
  if (i < s.size() && s[i] == '.') {
    i++;
    if (i >= s.size() || !is_digit(s[i])) return fail(i);
    while (i < s.size() && is_digit(s[i])) i++;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) i++;
    if (i >= s.size() || !is_digit(s[i])) return fail(i);
    while (i < s.size() && is_digit(s[i])) i++;
  }
  return i;
}

bool is_integer_literal(const std::string& t) { return t.find_first_of(".eE") == std::string::npos; }

// Decodes one UTF-8 sequence at s[i]; returns its length (0 if malformed) and the code point.
size_t utf8_sequence(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return uint8_t(s[i + k]); };
  const uint8_t c = b(0);
  size_t n;
  uint32_t v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; k++) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;  // overlong, too big, surrogate
  *cp = v;
  return n;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : s_(text), options_(options) {}

  Value document() {
    skip_whitespace();
    Value v = value(0);
    skip_whitespace();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t at = std::string::npos) const {
    if (at == std::string::npos) at = pos_;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at && i < s_.size(); i++) {
      if (s_[i] == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    throw Error("JSON: " + what + " at line " + std::to_string(line) + ", column " + std::to_string(column) +
                " (byte " + std::to_string(at) + ")");
  }

  std::string describe_here() const {
    if (pos_ >= s_.size()) return "the end of the text";
    const unsigned char c = uint8_t(s_[pos_]);
    if (c >= 0x20 && c < 0x7F) return std::string("'") + char(c) + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    return std::string("byte ") + buf;
  }

  void skip_whitespace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
  }

  Value value(int depth) {
    if (pos_ >= s_.size()) fail("expected a value, found the end of the text");
    switch (s_[pos_]) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return Value(string());
      case 't': return literal("true", Value(true));
      case 'f': return literal("false", Value(false));
      case 'n': return literal("null", Value());
      default: break;
    }
    if (s_[pos_] == '-' || is_digit(s_[pos_])) return number();
    fail("expected a value, found " + describe_here());
  }

  Value literal(std::string_view word, Value v) {
    if (s_.substr(pos_, word.size()) != word) fail("expected '" + std::string(word) + "'");
    pos_ += word.size();
    return v;
  }

  Value number() {
    size_t bad = 0;
    const size_t n = scan_number(s_.substr(pos_), &bad);
    if (n == 0) fail("malformed number", pos_ + bad);
    Value v = Value::number_literal(std::string(s_.substr(pos_, n)));
    pos_ += n;
    return v;
  }

  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) fail("\\u needs four hex digits");
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
      const char c = s_[pos_];
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else fail("\\u needs four hex digits, found " + describe_here());
      v = v * 16 + uint32_t(d);
      pos_++;
    }
    return v;
  }

  std::string string() {
    pos_++;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const unsigned char c = uint8_t(s_[pos_]);
      if (c == '"') {
        pos_++;
        return out;
      }
      if (c < 0x20) fail("control character " + describe_here() + " in a string (write it as an escape)");
      if (c == '\\') {
        const size_t escape_at = pos_;
        pos_++;
        if (pos_ >= s_.size()) fail("unterminated string");
        const char e = s_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate in a \\u escape", escape_at);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (s_.substr(pos_, 2) != "\\u") fail("high surrogate not followed by a low surrogate", escape_at);
              pos_ += 2;
              const uint32_t low = hex4();
              if (low < 0xDC00 || low > 0xDFFF) fail("high surrogate not followed by a low surrogate", escape_at);
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(out, cp);
            break;
          }
          default: fail("unknown escape '\\" + std::string(1, e) + "'", escape_at);
        }
        continue;
      }
      uint32_t cp;
      const size_t n = utf8_sequence(s_, pos_, &cp);
      if (n == 0) fail("invalid UTF-8 in a string");
      out.append(s_.substr(pos_, n));
      pos_ += n;
    }
  }

  Value array(int depth) {
    if (depth > options_.max_depth) fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels");
    pos_++;  // [
    Array items;
    skip_whitespace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      pos_++;
      return Value(std::move(items));
    }
    while (true) {
      skip_whitespace();
      items.push_back(value(depth));
      skip_whitespace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        pos_++;
        skip_whitespace();
        if (pos_ < s_.size() && s_[pos_] == ']') fail("trailing comma in an array");
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        pos_++;
        return Value(std::move(items));
      }
      fail("expected ',' or ']' in an array, found " + describe_here());
    }
  }

  Value object(int depth) {
    if (depth > options_.max_depth) fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels");
    pos_++;  // {
    Object members;
    skip_whitespace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      pos_++;
      return Value(std::move(members));
    }
    while (true) {
      skip_whitespace();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a string key in an object, found " + describe_here());
      const size_t key_at = pos_;
      std::string key = string();
      if (!options_.allow_duplicate_keys)
        for (const Member& m : members)
          if (m.first == key) fail("duplicate key \"" + key + "\" in an object", key_at);
      skip_whitespace();
      if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':' after an object key, found " + describe_here());
      pos_++;
      skip_whitespace();
      Value v = value(depth);
      members.emplace_back(std::move(key), std::move(v));
      skip_whitespace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        pos_++;
        skip_whitespace();
        if (pos_ < s_.size() && s_[pos_] == '}') fail("trailing comma in an object");
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        pos_++;
        return Value(std::move(members));
      }
      fail("expected ',' or '}' in an object, found " + describe_here());
    }
  }

  std::string_view s_;
  const ParseOptions& options_;
  size_t pos_ = 0;
};

void write_value(std::string& out, const Value& v, int indent, int level) {
  const auto newline = [&](int lvl) {
    if (indent <= 0) return;
    out += '\n';
    out.append(size_t(indent) * size_t(lvl), ' ');
  };
  switch (v.type()) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += v.as_bool() ? "true" : "false"; return;
    case Type::Number: out += v.number_text(); return;
    case Type::String: write_string(out, v.as_string()); return;
    case Type::Array: {
      const Array& a = v.as_array();
      out += '[';
      for (size_t i = 0; i < a.size(); i++) {
        if (i) out += ',';
        newline(level + 1);
        write_value(out, a[i], indent, level + 1);
      }
      if (!a.empty()) newline(level);
      out += ']';
      return;
    }
    case Type::Object: {
      const Object& o = v.as_object();
      out += '{';
      for (size_t i = 0; i < o.size(); i++) {
        if (i) out += ',';
        newline(level + 1);
        write_string(out, o[i].first);
        out += indent > 0 ? ": " : ":";
        write_value(out, o[i].second, indent, level + 1);
      }
      if (!o.empty()) newline(level);
      out += '}';
      return;
    }
  }
}

}  // namespace

Value::Value(double d) {
  if (!std::isfinite(d)) throw Error("JSON: cannot write a non-finite number (" + std::to_string(d) + ")");
  // the shortest %g text that reads back as the same double (Emscripten's libc++ has no
  // floating-point std::to_chars); "C" locale, as in every tinygpt program
  char buf[40];
  for (int precision = 1; precision <= 17; precision++) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  v_ = Number{std::string(buf)};
}

Value Value::number_literal(std::string text) {
  size_t bad = 0;
  if (scan_number(text, &bad) != text.size() || text.empty())
    throw Error("JSON: '" + text + "' is not a JSON number");
  Value v;
  v.v_ = Number{std::move(text)};
  return v;
}

bool Value::as_bool() const {
  if (!is_bool()) wrong_type(Type::Bool, type());
  return std::get<bool>(v_);
}

const std::string& Value::number_text() const {
  if (!is_number()) wrong_type(Type::Number, type());
  return std::get<Number>(v_).text;
}

double Value::as_double() const {
  // strtod reads '.' as the decimal point in the "C" locale, the one a program starts in (the core
  // never calls setlocale); underflow gives 0 or a subnormal, overflow is refused.
  const double d = std::strtod(number_text().c_str(), nullptr);
  if (!std::isfinite(d)) throw Error("JSON: number " + number_text() + " is out of the range of a double");
  return d;
}

uint64_t Value::as_uint64() const {
  const std::string& t = number_text();
  uint64_t v = 0;
  if (!is_integer_literal(t) || t[0] == '-' || std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc())
    throw Error("JSON: expected an integer in 0..18446744073709551615, got " + t);
  return v;
}

int64_t Value::as_int64() const {
  const std::string& t = number_text();
  int64_t v = 0;
  if (!is_integer_literal(t) || std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc())
    throw Error("JSON: expected an integer in -9223372036854775808..9223372036854775807, got " + t);
  return v;
}

const std::string& Value::as_string() const {
  if (!is_string()) wrong_type(Type::String, type());
  return std::get<std::string>(v_);
}

const Array& Value::as_array() const {
  if (!is_array()) wrong_type(Type::Array, type());
  return std::get<Array>(v_);
}

Array& Value::as_array() {
  if (!is_array()) wrong_type(Type::Array, type());
  return std::get<Array>(v_);
}

const Object& Value::as_object() const {
  if (!is_object()) wrong_type(Type::Object, type());
  return std::get<Object>(v_);
}

Object& Value::as_object() {
  if (!is_object()) wrong_type(Type::Object, type());
  return std::get<Object>(v_);
}

const Value* Value::find(std::string_view key) const {
  for (const Member& m : as_object())
    if (m.first == key) return &m.second;
  return nullptr;
}

const Value& Value::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw Error("JSON: missing key \"" + std::string(key) + "\"");
}

Value& Value::set(std::string key, Value value) {
  Object& o = as_object();
  for (Member& m : o)
    if (m.first == key) return m.second = std::move(value);
  o.emplace_back(std::move(key), std::move(value));
  return o.back().second;
}

void Value::push_back(Value value) { as_array().push_back(std::move(value)); }

Value parse(std::string_view text, const ParseOptions& options) { return Parser(text, options).document(); }

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void write_string(std::string& out, std::string_view s) {
  if (!valid_utf8(s)) throw Error("JSON: cannot write a string that is not valid UTF-8");
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const unsigned char c = uint8_t(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
}

std::string write(const Value& value, int indent) {
  std::string out;
  write_value(out, value, indent, 0);
  return out;
}

}  // namespace tinygpt::json
