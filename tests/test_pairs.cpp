// test_pairs.cpp — TSV pairs for the encoder-decoder: parsing and its report of skipped lines,
// bad files, the held-out split, batch layout, checkpointable sampling, metrics, built-in tasks.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/pairs.h"

using namespace tinygpt;

namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string error_of(const std::string& tsv, int block_size = 16) {
  try {
    data::PairDataset d(bytes_of(tsv), block_size);
  } catch (const tinygpt::Error& e) {
    return e.what();
  }
  return "accepted";
}

std::map<std::string, std::string> lines_of(const std::vector<uint8_t>& tsv) {
  std::map<std::string, std::string> m;
  std::string s(tsv.begin(), tsv.end());
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t nl = s.find('\n', pos), tab = s.find('\t', pos);
    m[s.substr(pos, tab - pos)] = s.substr(tab + 1, nl - tab - 1);
    pos = nl + 1;
  }
  return m;
}

}  // namespace

TEST_CASE("a TSV file becomes pairs: CRLF, a byte-order mark and a last line without newline are fine",
          "[seq2seq][data]") {
  const std::string tsv = "\xEF\xBB\xBFhello\tbonjour\r\n我 爱 吃 火锅\tI like to eat hot pot\r\ncat\tchat";
  data::PairDataset d(bytes_of(tsv), 32);
  REQUIRE(d.size() == 3u);
  CHECK(d.source(0) == "hello");
  CHECK(d.target(0) == "bonjour");  // no \r
  CHECK(d.source(1) == "我 爱 吃 火锅");
  CHECK(d.target(2) == "chat");
  CHECK(d.report().lines == 3);
  CHECK(d.report().pairs == 3);
  CHECK(d.max_source_len() == int(std::string("我 爱 吃 火锅").size()));
  CHECK(d.max_target_len() == int(std::string("I like to eat hot pot").size()));
  CHECK(d.report().summary() == "3 pairs from 3 lines");
}

TEST_CASE("lines without a tab, with an empty side or too long are counted and reported with their line numbers",
          "[seq2seq][data]") {
  const std::string tsv =
      "a\tA\n"              // 1 ok
      "no tab here\n"       // 2 no tab
      "\tempty source\n"    // 3 empty side
      "empty target\t\n"    // 4 empty side
      "\n"                  // 5 blank
      "0123456789\tok\n"    // 6 source of 10 bytes: too long for block_size 8
      "ok\t01234567\n"      // 7 target of 8 bytes: too long (at most block_size - 1 = 7)
      "ok\t0123456\n"       // 8 ok: target of 7 bytes
      "x\ty\tz\n"           // 9 ok, a third column ignored
      "still no tab\n";     // 10 no tab
  data::PairDataset d(bytes_of(tsv), 8);
  const data::TsvReport& r = d.report();
  CHECK(r.lines == 10);
  CHECK(r.pairs == 3);
  CHECK(r.no_tab == 2);
  CHECK(r.no_tab_lines == std::vector<int64_t>{2, 10});
  CHECK(r.empty_side == 2);
  CHECK(r.empty_side_lines == std::vector<int64_t>{3, 4});
  CHECK(r.too_long == 2);
  CHECK(r.too_long_lines == std::vector<int64_t>{6, 7});
  CHECK(r.blank == 1);
  CHECK(r.extra_columns == 1);
  CHECK(d.target(2) == "y");
  const std::string s = r.summary();
  INFO(s);
  CHECK(s.find("3 pairs from 10 lines") != std::string::npos);
  CHECK(s.find("2 without a tab (lines 2, 10)") != std::string::npos);
  CHECK(s.find("2 with an empty source or target (lines 3, 4)") != std::string::npos);
  CHECK(s.find("(lines 6, 7)") != std::string::npos);
  CHECK(s.find("8-byte source / 7-byte target") != std::string::npos);
  CHECK(s.find("1 blank line") != std::string::npos);
  CHECK(s.find("more than two columns") != std::string::npos);

  SECTION("only the first few line numbers are kept, and the summary says there are more") {
    std::string many;
    for (int i = 0; i < 9; i++) many += "bad line\n";
    many += "a\tb\n";
    data::PairDataset m(bytes_of(many), 8);
    CHECK(m.report().no_tab == 9);
    CHECK(m.report().no_tab_lines.size() == size_t(data::PairDataset::kReportedLines));
    CHECK(m.report().summary().find("(lines 1, 2, 3, 4, 5, ...)") != std::string::npos);
  }
}

TEST_CASE("a pair file with no usable pair is refused with a message that says why", "[seq2seq][data]") {
  CHECK(error_of("").find("empty") != std::string::npos);
  CHECK(error_of("\n\n\r\n").find("empty") != std::string::npos);
  const std::string no_tabs = error_of("just text\nmore text\n");
  INFO(no_tabs);
  CHECK(no_tabs.find("no usable source<TAB>target pair") != std::string::npos);
  CHECK(no_tabs.find("2 without a tab (lines 1, 2)") != std::string::npos);
  const std::string too_long = error_of("a long source line\tx\n", 4);
  CHECK(too_long.find("longer than") != std::string::npos);
  CHECK(error_of("a\tb\n", 1).find("block_size") != std::string::npos);
  CHECK_THROWS_AS(data::PairDataset::from_file("/no/such/file.tsv", 16), tinygpt::Error);
}

TEST_CASE("the held-out split is 10% of the pairs, fixed by their content, not by line order", "[seq2seq][data]") {
  std::string tsv, reversed_tsv;
  std::vector<std::string> lines;
  for (int i = 0; i < 200; i++) lines.push_back("src" + std::to_string(i) + "\ttgt" + std::to_string(i) + "\n");
  for (const std::string& l : lines) tsv += l;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) reversed_tsv += *it;
  data::PairDataset a(bytes_of(tsv), 16), b(bytes_of(reversed_tsv), 16);
  CHECK(a.val_size() == 20u);
  CHECK(a.train_size() == 180u);
  CHECK_FALSE(a.val_overlaps_train());
  std::set<std::string> held_a, held_b, train_a;
  for (size_t k = 0; k < a.val_size(); k++) held_a.insert(a.source(a.val_index(k)));
  for (size_t k = 0; k < b.val_size(); k++) held_b.insert(b.source(b.val_index(k)));
  for (size_t k = 0; k < a.train_size(); k++) train_a.insert(a.source(a.train_index(k)));
  CHECK(held_a == held_b);
  for (const std::string& s : held_a) CHECK(train_a.count(s) == 0);
  // a repeated pair lands on one side only
  data::PairDataset dup(bytes_of(tsv + tsv), 16);
  std::set<std::string> held_dup, train_dup;
  for (size_t k = 0; k < dup.val_size(); k++) held_dup.insert(dup.source(dup.val_index(k)));
  for (size_t k = 0; k < dup.train_size(); k++) train_dup.insert(dup.source(dup.train_index(k)));
  for (const std::string& s : held_dup) CHECK(train_dup.count(s) == 0);

  SECTION("one pair: validation uses it too") {
    data::PairDataset one(bytes_of("a\tb\n"), 8);
    CHECK(one.val_overlaps_train());
    CHECK(one.train_size() == 1u);
    CHECK(one.val_size() == 1u);
  }
  SECTION("two pairs: one of each") {
    data::PairDataset two(bytes_of("a\tb\nc\td\n"), 8);
    CHECK(two.train_size() == 1u);
    CHECK(two.val_size() == 1u);
  }
}

TEST_CASE("a pair batch is BOS + target in, target + EOS out, padded with PAD and -1", "[seq2seq][data]") {
  data::PairBatch b;
  data::make_pair_batch(b, {"ab", "xyz"}, {"c", "de"}, 3, 3);
  REQUIRE(b.B == 2);
  const int P = data::kPad, BOS = data::kBos, EOS = data::kEos, I = data::kIgnore;
  CHECK(b.src == std::vector<int32_t>{'a', 'b', P, 'x', 'y', 'z'});
  CHECK(b.tgt_in == std::vector<int32_t>{BOS, 'c', P, BOS, 'd', 'e'});
  CHECK(b.tgt_out == std::vector<int32_t>{'c', EOS, I, 'd', 'e', EOS});
  CHECK(data::kPairVocab == 259);
  // bytes above 127 are tokens 128..255, not negative numbers
  data::make_pair_batch(b, {"\xE7\x81\xAB"}, {"\xFF"}, 3, 2);
  CHECK(b.src == std::vector<int32_t>{0xE7, 0x81, 0xAB});
  CHECK(b.tgt_out == std::vector<int32_t>{0xFF, EOS});
  CHECK_THROWS_AS(data::make_pair_batch(b, {"toolong"}, {"x"}, 3, 2), tinygpt::Error);
}

TEST_CASE("pair batches have the dataset's shape, follow the seeded generator and resume from its state",
          "[seq2seq][data]") {
  std::string tsv;
  for (int i = 0; i < 50; i++) tsv += std::string(size_t(1 + i % 7), char('a' + i % 26)) + "\t" + std::to_string(i) + "\n";
  data::PairDataset d(bytes_of(tsv), 16, /*seed=*/7);
  data::PairBatch b1, b2, b3;
  d.sample_batch(4, b1);
  CHECK(b1.S == d.max_source_len());
  CHECK(b1.T == d.max_target_len() + 1);
  const data::Rng::State state = d.rng_state();
  d.sample_batch(4, b2);
  d.set_rng_state(state);
  d.sample_batch(4, b3);
  CHECK(b2.src == b3.src);
  CHECK(b2.tgt_out == b3.tgt_out);
  data::PairDataset same_seed(bytes_of(tsv), 16, 7);
  data::PairBatch c;
  same_seed.sample_batch(4, c);
  CHECK(c.src == b1.src);
  // training batches only hold training pairs
  std::set<std::string> train;
  for (size_t k = 0; k < d.train_size(); k++) train.insert(d.source(d.train_index(k)));
  for (int i = 0; i < 20; i++) {
    d.sample_batch(8, b1);
    for (int b = 0; b < 8; b++) {
      std::string s;
      for (int t = 0; t < b1.S && b1.src[size_t(b * b1.S + t)] != data::kPad; t++) s += char(b1.src[size_t(b * b1.S + t)]);
      CHECK(train.count(s) == 1);
    }
  }
  // validation batches are fixed and cover the held-out pairs in order
  data::PairBatch v1, v2;
  d.val_batch(0, 3, v1);
  d.val_batch(0, 3, v2);
  CHECK(v1.src == v2.src);
  CHECK(d.val_batches(3) == int((d.val_size() + 2) / 3));
  CHECK(d.fingerprint() == data::PairDataset(bytes_of(tsv), 8, 99).fingerprint());
}

TEST_CASE("the pair file fingerprint is FNV-1a 64 of its bytes", "[seq2seq][data]") {
  // FNV-1a 64 reference values: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c
  uint64_t h = 14695981039346656037ull;
  for (char c : std::string("a\tb\n")) h = (h ^ uint8_t(c)) * 1099511628211ull;
  CHECK(data::PairDataset(bytes_of("a\tb\n"), 8).fingerprint() == h);
  CHECK(h != data::PairDataset(bytes_of("a\tc\n"), 8).fingerprint());
}

TEST_CASE("edit distance and character error rate count UTF-8 characters", "[seq2seq][data]") {
  using data::edit_distance;
  using data::utf8_characters;
  CHECK(edit_distance(utf8_characters("kitten"), utf8_characters("sitting")) == 3);
  CHECK(edit_distance(utf8_characters(""), utf8_characters("abc")) == 3);
  CHECK(edit_distance(utf8_characters("abc"), utf8_characters("abc")) == 0);
  CHECK(utf8_characters("我 爱 火锅").size() == 6u);  // 4 characters + 2 spaces, 14 bytes
  CHECK(edit_distance(utf8_characters("我爱火锅"), utf8_characters("我爱吃火锅")) == 1);
  CHECK(utf8_characters("\xE7\x81").size() == 2u);  // a cut-off character: two stray bytes
  data::TranslationScore s;
  s.add("I like hot pot", "I like to eat hot pot");  // 7 deletions over 21 characters
  s.add("你好", "你好");
  CHECK(s.pairs == 2);
  CHECK(s.exact == 1);
  CHECK(s.exact_match() == Approx(0.5));
  CHECK(s.edits == 7);
  CHECK(s.ref_chars == 23);
  CHECK(s.cer() == Approx(7.0 / 23.0));
}

TEST_CASE("built-in tasks are deterministic TSV that parses without a skipped line", "[seq2seq][data]") {
  for (const data::TaskInfo& t : data::builtin_tasks()) {
    INFO(t.name);
    const std::vector<uint8_t> a = data::builtin_task(t.name, 5, 300), b = data::builtin_task(t.name, 5, 300);
    CHECK(a == b);
    CHECK(a != data::builtin_task(t.name, 6, 300));
    data::PairDataset d(a, t.longest + 1);
    CHECK(d.size() == 300u);
    CHECK(d.report().lines == 300);
    CHECK(d.max_source_len() <= t.longest);
    CHECK(d.max_target_len() <= t.longest);
    CHECK(data::builtin_task(t.name, 1, 0).size() > a.size());  // the default count is larger
  }
  CHECK_THROWS_WITH(data::builtin_task("klingon"), Catch::Contains("zh-en"));
}

TEST_CASE("the zh-en task holds the seed's examples and moves time and place after the verb", "[seq2seq][data]") {
  const std::map<std::string, std::string> all = lines_of(data::builtin_task("zh-en", 1, 1000000));
  CHECK(all.at("我 爱 吃 火锅") == "I like to eat hot pot");
  CHECK(all.at("我 昨天 在 北京 吃 火锅") == "I ate hot pot in Beijing yesterday");
  CHECK(all.at("他 明天 在 家 看 书") == "He will read a book at home tomorrow");
  CHECK(all.at("我的朋友 每天 喝 咖啡") == "My friend drinks coffee every day");
  CHECK(all.at("她 想 学 中文") == "She wants to study Chinese");
  // the default sample always includes the seed's sentence
  const std::map<std::string, std::string> sample = lines_of(data::builtin_task("zh-en"));
  CHECK(sample.count("我 爱 吃 火锅") == 1);
}

TEST_CASE("the numbers and dates tasks spell their answers correctly", "[seq2seq][data]") {
  const std::map<std::string, std::string> numbers = lines_of(data::builtin_task("numbers", 1, 10000));
  REQUIRE(numbers.size() == 10000u);
  CHECK(numbers.at("0") == "zero");
  CHECK(numbers.at("15") == "fifteen");
  CHECK(numbers.at("40") == "forty");
  CHECK(numbers.at("99") == "ninety-nine");
  CHECK(numbers.at("100") == "one hundred");
  CHECK(numbers.at("1005") == "one thousand five");
  CHECK(numbers.at("1234") == "one thousand two hundred thirty-four");
  CHECK(numbers.at("9999") == "nine thousand nine hundred ninety-nine");
  const std::map<std::string, std::string> dates = lines_of(data::builtin_task("dates", 3, 5000));
  for (const auto& [iso, text] : dates) {
    INFO(iso << " -> " << text);
    REQUIRE(iso.size() == 10u);
    const int year = std::stoi(iso.substr(0, 4)), month = std::stoi(iso.substr(5, 2)), day = std::stoi(iso.substr(8, 2));
    CHECK(year >= 1900);
    CHECK(year <= 2099);
    CHECK(text.ends_with(", " + std::to_string(year)));
    std::string day_comma = " ";  // built in steps: " " + std::to_string(...) trips a GCC 12 -Wrestrict false positive
    day_comma += std::to_string(day);
    day_comma += ',';
    CHECK(text.find(day_comma) != std::string::npos);
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month == 2) CHECK(day <= (leap ? 29 : 28));
  }
  const std::map<std::string, std::string> reverse = lines_of(data::builtin_task("reverse", 2, 100));
  for (const auto& [s, r] : reverse) CHECK(std::string(s.rbegin(), s.rend()) == r);
}
