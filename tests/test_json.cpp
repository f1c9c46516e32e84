// test_json.cpp — the strict JSON module (core/src/json.h): values, escapes, exact integers,
// the writer, and a refusal with a position for every kind of malformed text.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "json.h"
#include "tinygpt/error.h"

using namespace tinygpt;

namespace {

std::string parse_error(const std::string& text) {
  try {
    json::parse(text);
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "(parsed without error)";
}

}  // namespace

TEST_CASE("JSON parses every kind of value and keeps integers exact", "[json]") {
  const json::Value v = json::parse(R"( {"a": [1, -2, 3.5e2, true, false, null, "x"], "big": 18446744073709551615,
                                          "neg": -9223372036854775808, "o": {}} )");
  REQUIRE(v.is_object());
  const json::Array& a = v.at("a").as_array();
  REQUIRE(a.size() == 7);
  CHECK(a[0].as_uint64() == 1);
  CHECK(a[1].as_int64() == -2);
  CHECK(a[2].as_double() == 350.0);
  CHECK(a[3].as_bool());
  CHECK_FALSE(a[4].as_bool());
  CHECK(a[5].is_null());
  CHECK(a[6].as_string() == "x");
  CHECK(v.at("big").as_uint64() == 18446744073709551615ull);  // above 2^53: no trip through double
  CHECK(v.at("neg").as_int64() == INT64_MIN);
  CHECK(v.at("o").as_object().empty());
  // keys keep file order
  CHECK(v.as_object()[0].first == "a");
  CHECK(v.as_object()[3].first == "o");
  CHECK(v.find("missing") == nullptr);
  CHECK_THROWS_WITH(v.at("missing"), Catch::Contains("missing key \"missing\""));
}

TEST_CASE("JSON accessors refuse the wrong type and integers out of range", "[json]") {
  const json::Value v = json::parse(R"([-1, 1.5, 18446744073709551616, 9223372036854775808, "s", 1e400])");
  const json::Array& a = v.as_array();
  CHECK_THROWS_WITH(a[0].as_uint64(), Catch::Contains("expected an integer in 0..18446744073709551615, got -1"));
  CHECK_THROWS_WITH(a[1].as_uint64(), Catch::Contains("got 1.5"));
  CHECK_THROWS_WITH(a[2].as_uint64(), Catch::Contains("got 18446744073709551616"));
  CHECK_THROWS_WITH(a[3].as_int64(), Catch::Contains("got 9223372036854775808"));
  CHECK(a[3].as_uint64() == 9223372036854775808ull);
  CHECK_THROWS_WITH(a[4].as_double(), Catch::Contains("expected number, got string"));
  CHECK_THROWS_WITH(a[5].as_double(), Catch::Contains("out of the range of a double"));
  CHECK_THROWS_WITH(v.as_object(), Catch::Contains("expected object, got array"));
}

TEST_CASE("JSON strings decode every escape, four-hex-digit code points and surrogate pairs to UTF-8", "[json]") {
  const json::Value v = json::parse(R"("\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00 é中😀")");
  CHECK(v.as_string() == "\"\\/\b\f\n\r\tA\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80 \xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
}

TEST_CASE("JSON writer escapes what it must and reads back the same value", "[json]") {
  json::Value o = json::Object{};
  o.set("text", std::string("quote \" backslash \\ newline \n tab \t bell \x07 del \x7f é"));
  o.set("n", json::Array{json::Value(1), json::Value(uint64_t(18446744073709551615ull)), json::Value(-0.5),
                         json::Value(0.1), json::Value(1e300), json::Value(true), json::Value()});
  o.set("text", "replaced");  // set() replaces an existing key in place
  o.set("s", std::string("\x01\x1f"));
  const std::string compact = json::write(o);
  CHECK(compact == R"({"text":"replaced","n":[1,18446744073709551615,-0.5,0.1,1e+300,true,null],"s":"\u0001\u001f"})");
  CHECK(json::parse(compact) == o);
  json::Value e = json::Object{};
  e.set("k", std::string("quote \" backslash \\ newline \n tab \t del \x7f \xc3\xa9"));
  CHECK(json::write(e) == "{\"k\":\"quote \\\" backslash \\\\ newline \\n tab \\t del \x7f \xc3\xa9\"}");
  CHECK(json::parse(json::write(e)) == e);
  CHECK(json::write(json::parse("{\"a\":[1,{}],\"b\":[]}"), 2) == "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
  CHECK_THROWS_WITH(json::write(json::Value(std::string("\xff"))), Catch::Contains("not valid UTF-8"));
  CHECK_THROWS_WITH(json::Value(std::nan("")), Catch::Contains("non-finite"));
  CHECK_THROWS_WITH(json::Value::number_literal("01"), Catch::Contains("not a JSON number"));
}

TEST_CASE("malformed JSON is refused with what and where", "[json]") {
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases = {
      {"", "expected a value, found the end of the text at line 1, column 1 (byte 0)"},
      {"   ", "expected a value, found the end of the text at line 1, column 4 (byte 3)"},
      {"{\"a\":1,}", "trailing comma in an object at line 1, column 8 (byte 7)"},
      {"[1,]", "trailing comma in an array at line 1, column 4 (byte 3)"},
      {"[1 2]", "expected ',' or ']' in an array, found '2' at line 1, column 4"},
      {"{\"a\" 1}", "expected ':' after an object key, found '1' at line 1, column 6"},
      {"{\"a\":1 \"b\":2}", "expected ',' or '}' in an object, found '\"'"},
      {"{1:2}", "expected a string key in an object, found '1' at line 1, column 2"},
      {"[01]", "malformed number at line 1, column 3 (byte 2)"},
      {"1.", "malformed number at line 1, column 3"},
      {"-", "malformed number at line 1, column 2"},
      {"1e+", "malformed number at line 1, column 4"},
      {".5", "expected a value, found '.'"},
      {"NaN", "expected a value, found 'N'"},
      {"tru", "expected 'true' at line 1, column 1"},
      {"nul", "expected 'null'"},
      {"\"abc", "unterminated string at line 1, column 5 (byte 4)"},
      {"\"a\x01\"", "control character byte 0x01 in a string"},
      {"\"\\q\"", "unknown escape '\\q' at line 1, column 2"},
      {"\"\\u12\"", "\\u needs four hex digits"},
      {"\"\\u12g4\"", "\\u needs four hex digits, found 'g'"},
      {"\"\\ud800\"", "high surrogate not followed by a low surrogate at line 1, column 2"},
      {"\"\\ud800\\u0041\"", "high surrogate not followed by a low surrogate"},
      {"\"\\udc00\"", "unpaired low surrogate"},
      {"\"\xff\"", "invalid UTF-8 in a string at line 1, column 2"},
      {"\"\xc0\xaf\"", "invalid UTF-8 in a string"},       // overlong '/'
      {"\"\xed\xa0\x80\"", "invalid UTF-8 in a string"},   // a surrogate encoded in UTF-8
      {"\"\xf4\x90\x80\x80\"", "invalid UTF-8 in a string"},  // above U+10FFFF
      {"\"\xe4\xb8\"", "invalid UTF-8 in a string"},       // cut short by the quote
      {"\xef\xbb\xbf{}", "expected a value, found byte 0xef"},  // a byte-order mark is not JSON
      {"{\"a\":1}{", "unexpected text after the JSON value at line 1, column 8"},
      {"{\"a\":1,\"a\":2}", "duplicate key \"a\" in an object at line 1, column 8 (byte 7)"},
      {"{\n  \"a\": tru\n}", "expected 'true' at line 2, column 8 (byte 9)"},
      {"// comment\n{}", "expected a value, found '/'"},
      {std::string(65, '[') + std::string(65, ']'), "nesting deeper than 64 levels at line 1, column 65 (byte 64)"},
  };
  for (const Case& c : cases) {
    INFO("text: " << c.text);
    const std::string message = parse_error(c.text);
    CHECK_THAT(message, Catch::StartsWith("JSON: "));
    CHECK_THAT(message, Catch::Contains(c.message));
  }
  // 64 levels are fine; duplicate keys are allowed when asked for
  CHECK_NOTHROW(json::parse(std::string(64, '[') + std::string(64, ']')));
  json::ParseOptions lenient;
  lenient.allow_duplicate_keys = true;
  CHECK(json::parse("{\"a\":1,\"a\":2}", lenient).as_object().size() == 2);
}
