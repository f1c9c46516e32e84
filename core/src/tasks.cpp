// tasks.cpp — built-in source/target tasks, generated in code (no downloaded data) and returned
// as TSV bytes, so they take the same path as a user's file (data::PairDataset).
//
//   zh-en     Chinese -> English phrases grown from the seed's example 我 爱 吃 火锅 -> I like to
//             eat hot pot: subjects, verbs with their objects, places, times, with the word-order
//             change (Chinese: subject, time, place, verb, object; English: subject, verb, object,
//             place, time), tense from the time word and third-person agreement.
//   reverse   a string of lowercase letters -> the same letters backwards
//   numbers   a number 0 .. 9999 in digits -> in English words
//   dates     an ISO date (YYYY-MM-DD) -> the date written out ("March 5, 2024")
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tinygpt/error.h"
#include "tinygpt/pairs.h"
#include "tinygpt/rng.h"

namespace tinygpt::data {

using tinygpt::Error;

namespace {

// ---- zh-en -------------------------------------------------------------------------------------

struct Subject {
  const char *zh, *en;
  bool third_singular;  // takes "eats", "likes"
};
const Subject kSubjects[] = {
    {"我", "I", false},          {"你", "you", false},        {"他", "he", true},
    {"她", "she", true},         {"我们", "we", false},       {"他们", "they", false},
    {"我的朋友", "my friend", true}, {"老师", "the teacher", true},
};

struct Action {  // a verb with its object: the English verb can depend on the object (看 书 = read)
  const char *zh_verb, *zh_object;
  const char *base, *third, *past, *object;
};
const Action kActions[] = {
    {"吃", "火锅", "eat", "eats", "ate", "hot pot"},
    {"吃", "饺子", "eat", "eats", "ate", "dumplings"},
    {"吃", "面条", "eat", "eats", "ate", "noodles"},
    {"吃", "米饭", "eat", "eats", "ate", "rice"},
    {"喝", "茶", "drink", "drinks", "drank", "tea"},
    {"喝", "咖啡", "drink", "drinks", "drank", "coffee"},
    {"喝", "牛奶", "drink", "drinks", "drank", "milk"},
    {"看", "电影", "watch", "watches", "watched", "a movie"},
    {"看", "书", "read", "reads", "read", "a book"},
    {"买", "水果", "buy", "buys", "bought", "fruit"},
    {"学", "中文", "study", "studies", "studied", "Chinese"},
    {"学", "英语", "study", "studies", "studied", "English"},
    {"打", "篮球", "play", "plays", "played", "basketball"},
};

struct Place {
  const char *zh, *en;
};
const Place kPlaces[] = {
    {"", ""}, {"在 北京", "in Beijing"}, {"在 上海", "in Shanghai"}, {"在 家", "at home"}, {"在 学校", "at school"},
};

enum class Tense { present, past, future };
struct Time {
  const char *zh, *en;
  Tense tense;
};
const Time kTimes[] = {
    {"", "", Tense::present},        {"昨天", "yesterday", Tense::past}, {"今天", "today", Tense::present},
    {"明天", "tomorrow", Tense::future}, {"每天", "every day", Tense::present},
};

struct Modal {  // 爱 + verb: "like to" (the seed's 我 爱 吃 火锅 -> I like to eat hot pot)
  const char *zh, *base, *third;
};
const Modal kModals[] = {{"爱", "like to", "likes to"}, {"想", "want to", "wants to"}};

std::string join(std::initializer_list<const char*> words) {
  std::string s;
  for (const char* w : words) {
    if (!*w) continue;
    if (!s.empty()) s += ' ';
    s += w;
  }
  return s;
}

std::string capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = char(s[0] - 'a' + 'A');
  return s;
}

// Every sentence of the phrase set, in a fixed order.
std::vector<std::pair<std::string, std::string>> zh_en_sentences() {
  std::vector<std::pair<std::string, std::string>> all;
  for (const Subject& s : kSubjects)
    for (const Action& a : kActions)
      for (const Place& p : kPlaces) {
        // subject [time] [place] verb object  ->  subject verb object [place] [time]
        for (const Time& t : kTimes) {
          const char* verb = t.tense == Tense::past     ? a.past
                             : t.tense == Tense::future ? nullptr
                             : s.third_singular         ? a.third
                                                        : a.base;
          const std::string zh = join({s.zh, t.zh, p.zh, a.zh_verb, a.zh_object});
          const std::string en = verb ? join({s.en, verb, a.object, p.en, t.en})
                                      : join({s.en, "will", a.base, a.object, p.en, t.en});
          all.push_back({zh, capitalised(en) });
        }
        // subject modal verb object [place]  (no time: "likes to" does not change with it)
        for (const Modal& md : kModals) {
          const std::string zh = join({s.zh, p.zh, md.zh, a.zh_verb, a.zh_object});
          const std::string en = join({s.en, s.third_singular ? md.third : md.base, a.base, a.object, p.en});
          all.push_back({zh, capitalised(en)});
        }
      }
  return all;
}

// ---- numbers in words ------------------------------------------------------------------------

const char* const kOnes[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                             "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                             "eighteen", "nineteen"};
const char* const kTens[] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};

std::string below_hundred(int n) {
  if (n < 20) return kOnes[n];
  return std::string(kTens[n / 10]) + (n % 10 ? std::string("-") + kOnes[n % 10] : "");
}

std::string in_words(int n) {  // 0 .. 9999
  if (n == 0) return "zero";
  std::string s;
  auto add = [&](const std::string& w) { s += (s.empty() ? "" : " ") + w; };
  if (n >= 1000) add(std::string(kOnes[n / 1000]) + " thousand");
  if (n % 1000 >= 100) add(std::string(kOnes[n % 1000 / 100]) + " hundred");
  if (n % 100) add(below_hundred(n % 100));
  return s;
}

// ---- dates -------------------------------------------------------------------------------------

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};

int days_in(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::string two_digits(int n) { return std::string(1, char('0' + n / 10)) + char('0' + n % 10); }

// ---- helpers -----------------------------------------------------------------------------------

// `count` distinct pairs drawn from make(rng) (all of them if the space is smaller than count)
template <class Make>
std::vector<std::pair<std::string, std::string>> distinct(int count, uint64_t seed, Make make, int space) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  Rng rng(seed);
  const int want = std::min(count, space);
  for (int tries = 0; int(out.size()) < want && tries < want * 50; tries++) {
    auto pair = make(rng);
    if (seen.insert(pair.first).second) out.push_back(std::move(pair));
  }
  return out;
}

std::vector<uint8_t> to_tsv(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<uint8_t> tsv;
  for (const auto& [src, tgt] : pairs) {
    tsv.insert(tsv.end(), src.begin(), src.end());
    tsv.push_back('\t');
    tsv.insert(tsv.end(), tgt.begin(), tgt.end());
    tsv.push_back('\n');
  }
  return tsv;
}

constexpr int kReverseMaxLen = 8;

}  // namespace

const std::vector<TaskInfo>& builtin_tasks() {
  static const std::vector<TaskInfo> tasks = [] {
    int zh_longest = 0;
    for (const auto& [zh, en] : zh_en_sentences()) zh_longest = std::max({zh_longest, int(zh.size()), int(en.size())});
    return std::vector<TaskInfo>{
        {"zh-en", "Chinese to English phrases grown from the seed's 我 爱 吃 火锅 -> I like to eat hot pot", 3000,
         zh_longest},
        {"reverse", "a string of 1 to 8 lowercase letters, backwards", 3000, kReverseMaxLen},
        {"numbers", "a number from 0 to 9999 in English words", 3000,
         int(std::string("seven thousand seven hundred seventy-seven").size())},
        {"dates", "an ISO date (1900-2099) written out, as in March 5, 2024", 3000,
         int(std::string("September 30, 2099").size())},
    };
  }();
  return tasks;
}

std::vector<uint8_t> builtin_task(const std::string& name, uint64_t seed, int count) {
  const TaskInfo* info = nullptr;
  for (const TaskInfo& t : builtin_tasks())
    if (name == t.name) info = &t;
  if (!info) {
    std::string known;
    for (const TaskInfo& t : builtin_tasks()) known += (known.empty() ? "" : ", ") + std::string(t.name);
    throw Error("no built-in task named '" + name + "' (known: " + known + ")");
  }
  if (count < 0 || count > 1000000) throw Error("the number of pairs must be between 0 (the default) and 1000000");
  if (count == 0) count = info->default_count;

  if (name == "zh-en") {
    std::vector<std::pair<std::string, std::string>> all = zh_en_sentences();
    Rng rng(seed);
    for (size_t i = all.size() - 1; i > 0; i--) std::swap(all[i], all[size_t(rng.below(i + 1))]);  // Fisher-Yates
    // the seed's examples are always in the set (their place in the shuffled order is kept otherwise)
    size_t front = 0;
    for (const char* seed_example : {"我 爱 吃 火锅", "我 昨天 在 北京 吃 火锅"})
      for (size_t i = front; i < all.size(); i++)
        if (all[i].first == seed_example) {
          std::rotate(all.begin() + std::ptrdiff_t(front), all.begin() + std::ptrdiff_t(i),
                      all.begin() + std::ptrdiff_t(i) + 1);
          front++;
          break;
        }
    if (all.size() > size_t(count)) all.resize(size_t(count));
    return to_tsv(all);
  }
  if (name == "reverse") {
    return to_tsv(distinct(count, seed, [](Rng& rng) {
      std::string s(size_t(1 + rng.below(kReverseMaxLen)), 'a');
      for (char& c : s) c = char('a' + rng.below(26));
      return std::pair{s, std::string(s.rbegin(), s.rend())};
    }, 1 << 30));
  }
  if (name == "numbers") {
    return to_tsv(distinct(count, seed, [](Rng& rng) {
      const int n = int(rng.below(10000));
      return std::pair{std::to_string(n), in_words(n)};
    }, 10000));
  }
  // dates
  return to_tsv(distinct(count, seed, [](Rng& rng) {
    const int year = 1900 + int(rng.below(200)), month = 1 + int(rng.below(12));
    const int day = 1 + int(rng.below(uint64_t(days_in(year, month))));
    return std::pair{std::to_string(year) + "-" + two_digits(month) + "-" + two_digits(day),
                     std::string(kMonths[month - 1]) + " " + std::to_string(day) + ", " + std::to_string(year)};
  }, 200 * 365));
}

}  // namespace tinygpt::data
