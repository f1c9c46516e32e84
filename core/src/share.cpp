// share.cpp — runs as links (share.h).
#include "tinygpt/share.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "tinygpt/data.h"
#include "tinygpt/error.h"
#include "tinygpt/runtime.h"
#include "tinygpt/trainer.h"

namespace tinygpt::share {

namespace {

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// base64url without padding (RFC 4648 section 5): URL-safe as it is
std::string base64url(const uint8_t* b, size_t n) {
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = uint32_t(b[i]) << 16 | (i + 1 < n ? uint32_t(b[i + 1]) << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
    out += kB64[v >> 18 & 63];
    out += kB64[v >> 12 & 63];
    if (i + 1 < n) out += kB64[v >> 6 & 63];
    if (i + 2 < n) out += kB64[v & 63];
  }
  return out;
}

std::vector<uint8_t> unbase64url(std::string_view s) {
  if (s.size() % 4 == 1) throw Error(coded("share.bad_losses", {}, "the losses in the link are cut off (base64url of a wrong length)"));
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : s) {
    const char* p = ch ? std::strchr(kB64, ch) : nullptr;
    if (!p) throw Error(coded("share.bad_losses", {}, std::string("the losses in the link are not base64url (the character '") + ch + "')"));
    acc = acc << 6 | uint32_t(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits & 0xFF));
    }
  }
  return out;
}

// The shortest decimal that gives the float back (learning_rate 0.003, not 0.00300000003).
std::string float_text(double v) {
  char buf[40];
  for (int digits = 6; digits <= 9; digits++) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (float(std::strtod(buf, nullptr)) == float(v)) break;
  }
  return buf;
}

// Percent-encoding of a file name (anything but unreserved characters).
std::string encode_component(std::string_view s) {
  std::string out;
  for (unsigned char ch : s) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') out += char(ch);
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", ch);
      out += buf;
    }
  }
  return out;
}

std::string decode_component(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit((unsigned char)s[i + 1]) && std::isxdigit((unsigned char)s[i + 2])) {
      out += char(std::strtol(std::string(s.substr(i + 1, 2)).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
  return buf;
}

std::string loss_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7f", double(v));
  return buf;
}

}  // namespace

std::string build_variant() {
#if defined(__EMSCRIPTEN__)
  return std::string("wasm-") + simd_backend();
#else
  return std::string("native-") + simd_backend();
#endif
}

std::string make_link(const Link& link, std::string_view base) {
  validate_config(link.config);
  std::string url(base.substr(0, base.find('#')));
  url += "#tinygpt=" + std::to_string(kLinkVersion);
  for (const FieldSpec& f : config_schema()) {
    if (!applies_to(f, link.config.model)) continue;
    url += std::string("&") + f.name + "=" + (f.type == FieldType::real ? float_text(f.get(link.config)) : field_text(link.config, f));
  }
  if (!link.variant.empty()) url += "&variant=" + encode_component(link.variant);
  if (!link.corpus.builtin.empty()) {
    url += "&corpus=builtin:" + encode_component(link.corpus.builtin);
  } else {
    url += "&corpus=fnv:" + hex16(link.corpus.fingerprint) + ":" + std::to_string(link.corpus.size);
    if (!link.corpus.name.empty()) url += "&name=" + encode_component(link.corpus.name);
  }
  const size_t n = std::min(link.losses.size(), kMaxLosses);
  if (n) {
    std::vector<uint8_t> bytes(n * 4);
    for (size_t i = 0; i < n; i++) {
      uint32_t bits;
      std::memcpy(&bits, &link.losses[i], 4);
      for (int k = 0; k < 4; k++) bytes[i * 4 + size_t(k)] = uint8_t(bits >> (8 * k));  // little-endian
    }
    url += "&losses=" + base64url(bytes.data(), bytes.size());
  }
  if (link.tokenizer) url += "&tok=fnv:" + hex16(link.tokenizer);
  if (link.tokens_per_byte > 0) {
    char tpb[32];
    std::snprintf(tpb, sizeof tpb, "%.9g", link.tokens_per_byte);
    url += std::string("&tpb=") + tpb;
  }
  return url;
}

Link parse_link(std::string_view url) {
  size_t at = url.find('#');
  if (at == std::string_view::npos) at = url.find('?');
  std::string_view fields = at == std::string_view::npos ? url : url.substr(at + 1);
  std::map<std::string, std::string> values;
  while (!fields.empty()) {
    const size_t amp = fields.find('&');
    const std::string_view pair = fields.substr(0, amp);
    fields = amp == std::string_view::npos ? std::string_view() : fields.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    if (eq == std::string_view::npos) throw Error(coded("share.malformed", {}, "the link has a field without a value: '" + std::string(pair) + "'"));
    const std::string key(pair.substr(0, eq));
    if (!values.emplace(key, decode_component(pair.substr(eq + 1))).second) throw Error(coded("share.malformed", {}, "the link gives '" + key + "' twice"));
  }
  auto it = values.find("tinygpt");
  if (it == values.end()) throw Error(coded("share.not_a_link", {}, "this is not a tinygpt run link (it has no tinygpt=1 field)"));
  if (it->second != std::to_string(kLinkVersion))
    throw Error(coded("share.version", {{"version", it->second}, {"supported", std::to_string(kLinkVersion)}},
                      "this run link is of version " + it->second + "; this tinygpt reads version " + std::to_string(kLinkVersion)));
  Link link;
  // the model kind first: it decides which fields apply
  if (auto m = values.find("model"); m != values.end()) set_field_text(link.config, field("model"), m->second);
  bool corpus_given = false;
  for (const auto& [key, value] : values) {
    if (key == "tinygpt" || key == "model") continue;
    if (key == "variant") {
      link.variant = value;
    } else if (key == "name") {
      link.corpus.name = value;
    } else if (key == "corpus") {
      corpus_given = true;
      if (value.rfind("builtin:", 0) == 0) {
        link.corpus.builtin = value.substr(8);
        if (link.corpus.builtin.empty()) throw Error(coded("share.bad_corpus", {}, "the link's corpus=builtin: names no text"));
      } else if (value.rfind("fnv:", 0) == 0) {
        const size_t colon = value.find(':', 4);
        const std::string hex = value.substr(4, colon == std::string::npos ? std::string::npos : colon - 4);
        char* end = nullptr;
        link.corpus.fingerprint = std::strtoull(hex.c_str(), &end, 16);
        const std::string size = colon == std::string::npos ? "" : value.substr(colon + 1);
        char* size_end = nullptr;
        link.corpus.size = std::strtoull(size.c_str(), &size_end, 10);
        if (hex.size() != 16 || *end || size.empty() || *size_end || link.corpus.size == 0)
          throw Error(coded("share.bad_corpus", {}, "the link's corpus must be builtin:NAME or fnv:<16 hex digits>:<size>, got '" + value + "'"));
      } else {
        throw Error(coded("share.bad_corpus", {}, "the link's corpus must be builtin:NAME or fnv:<16 hex digits>:<size>, got '" + value + "'"));
      }
    } else if (key == "tok") {
      char* end = nullptr;
      const std::string hex = value.rfind("fnv:", 0) == 0 ? value.substr(4) : "";
      link.tokenizer = std::strtoull(hex.c_str(), &end, 16);
      if (hex.size() != 16 || *end)
        throw Error(coded("share.bad_tokenizer", {}, "the link's tokenizer must be fnv:<16 hex digits>, got '" + value + "'"));
    } else if (key == "tpb") {
      char* end = nullptr;
      link.tokens_per_byte = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(link.tokens_per_byte > 0 && link.tokens_per_byte <= 16))
        throw Error(coded("share.bad_tokenizer", {}, "the link's tokens per byte must be a number in (0, 16], got '" + value + "'"));
    } else if (key == "losses") {
      const std::vector<uint8_t> bytes = unbase64url(value);
      if (bytes.size() % 4 || bytes.size() / 4 > kMaxLosses)
        throw Error(coded("share.bad_losses", {}, "the link's losses must be at most " + std::to_string(kMaxLosses) + " float32 values"));
      for (size_t i = 0; i < bytes.size(); i += 4) {
        uint32_t bits = 0;
        for (int k = 0; k < 4; k++) bits |= uint32_t(bytes[i + size_t(k)]) << (8 * k);
        float v;
        std::memcpy(&v, &bits, 4);
        link.losses.push_back(v);
      }
    } else {
      const FieldSpec& f = field(key);  // "unknown config field 'x'" with a suggestion
      if (!applies_to(f, link.config.model))
        throw Error(coded("share.wrong_kind", {{"field", f.name}, {"model", model_kind_name(link.config.model)}}, std::string("the link gives ") + f.name + ", which a " + model_kind_name(link.config.model) + " model does not have"));
      set_field_text(link.config, f, value);
    }
  }
  if (!corpus_given) throw Error(coded("share.no_corpus", {}, "the link does not say which text the run trained on (corpus=...)"));
  if ((link.tokenizer != 0) != (link.config.tokenizer == TokenizerKind::bpe))
    throw Error(coded("share.bad_tokenizer", {}, "the link's tokenizer (tok=) and its settings (tokenizer=) disagree"));
  const std::vector<ConfigProblem> problems = config_problems(link.config);
  if (!problems.empty())  // the page words the problem itself
    throw Error(Message{problems[0].code, problems[0].args, "the link's settings are not valid: " + problems[0].message});
  return link;
}

std::string check_corpus(const Link& link, uint64_t fingerprint, uint64_t n, std::string_view builtin_name) {
  const Corpus& c = link.corpus;
  if (!c.builtin.empty()) {
    if (builtin_name == c.builtin) return "";
    return "the shared run trained on the built-in text " + c.builtin;
  }
  const std::string what = c.name.empty() ? "its file" : c.name;
  if (n != c.size)
    return "this text is " + std::to_string(n) + " bytes; the shared run trained on " + what + " of " + std::to_string(c.size) + " bytes";
  if (fingerprint != c.fingerprint)
    return "this text has the same size as " + what + " but other bytes (fingerprint " + hex16(fingerprint) +
           ", the link says " + hex16(c.fingerprint) + ")";
  return "";
}

Message check_tokenizer(const Link& link, uint64_t fingerprint) {
  if (link.config.tokenizer != TokenizerKind::bpe || fingerprint == link.tokenizer) return {};
  return coded("share.other_tokenizer", {{"link", hex16(link.tokenizer)}, {"run", hex16(fingerprint)}},
               "this run's tokenizer (fingerprint " + hex16(fingerprint) + ") is not the shared run's (" + hex16(link.tokenizer) +
                   "): the replay would not be the shared run");
}

Replay check_replay(const Link& link, const float* losses, size_t n, std::string_view variant) {
  Replay r;
  r.expected = int64_t(link.losses.size());
  r.compared = std::min<int64_t>(int64_t(n), r.expected);
  r.same_variant = link.variant.empty() || variant == link.variant;
  for (int64_t i = 0; i < r.compared; i++) {
    uint32_t a, b;
    std::memcpy(&a, &link.losses[size_t(i)], 4);
    std::memcpy(&b, &losses[i], 4);
    r.max_difference = std::max(r.max_difference, std::fabs(double(losses[i]) - double(link.losses[size_t(i)])));
    if (a != b && r.status != Replay::diverged) {
      r.status = Replay::diverged;
      r.diverged_at = i + 1;
      r.link_loss = link.losses[size_t(i)];
      r.run_loss = losses[i];
      if (link.tokens_per_byte > 0) {
        r.link_bpb = train::bits_per_byte(r.link_loss, link.tokens_per_byte);
        r.run_bpb = train::bits_per_byte(r.run_loss, link.tokens_per_byte);
      }
    }
  }
  const std::string variants = r.same_variant ? ""
      : " (the link was made on " + link.variant + ", this is " + std::string(variant) +
        ": runs are bit-identical only on the same build variant)";
  if (r.status == Replay::diverged) {
    // the largest difference says whether this is the same run on other kernels (a few units in the last
    // decimals) or another run (another text, seed or settings: differences of the order of the loss)
    char most[96];
    std::snprintf(most, sizeof most, "; over the first %lld steps the losses differ by at most %.2g", (long long)r.compared,
                  r.max_difference);
    r.code = "replay.diverged";
    r.args = {{"step", std::to_string(r.diverged_at)}, {"run_loss", loss_text(r.run_loss)}, {"link_loss", loss_text(r.link_loss)}};
    r.message = "differs from the shared run at step " + std::to_string(r.diverged_at) + ": loss " + loss_text(r.run_loss) +
                " here, " + loss_text(r.link_loss) + " in the link" + (r.same_variant ? "" : most) + variants;
    if (link.config.tokenizer == TokenizerKind::bpe && std::isfinite(r.run_bpb)) {
      // a BPE run compares in bits per byte (its losses are per token of its vocabulary)
      char bpb[64];
      std::snprintf(bpb, sizeof bpb, "%.6f bits per byte here, %.6f", r.run_bpb, r.link_bpb);
      r.code = "replay.diverged_bpb";
      r.args.push_back({"run_bpb", std::string(bpb, std::strchr(bpb, ' ') - bpb)});
      char link_bpb[32];
      std::snprintf(link_bpb, sizeof link_bpb, "%.6f", r.link_bpb);
      r.args.push_back({"link_bpb", link_bpb});
      r.message = "differs from the shared run at step " + std::to_string(r.diverged_at) + ": " + bpb + " in the link (loss " +
                  loss_text(r.run_loss) + " / " + loss_text(r.link_loss) + " nats per token)" + (r.same_variant ? "" : most) + variants;
    }
  } else if (r.expected == 0) {
    r.status = Replay::matches;
    r.code = "replay.no_losses";
    r.message = "the link holds no losses to compare with";
  } else if (r.compared == r.expected) {
    r.status = Replay::matches;
    r.code = "replay.matches";
    r.args = {{"step", std::to_string(r.expected)}};
    r.message = "matches the shared run at step " + std::to_string(r.expected) + ": the first " + std::to_string(r.expected) +
                " losses are identical, bit for bit" + variants;
  } else {
    r.code = "replay.so_far";
    r.args = {{"compared", std::to_string(r.compared)}, {"expected", std::to_string(r.expected)}};
    r.message = "matches the shared run so far (step " + std::to_string(r.compared) + " of " + std::to_string(r.expected) + ")" + variants;
  }
  r.final = r.status == Replay::matches || (r.status == Replay::diverged && (r.same_variant || r.compared == r.expected));
  if (!r.same_variant) {  // the page adds the variant note when these are there
    char most[32];
    std::snprintf(most, sizeof most, "%.2g", r.max_difference);
    r.args.push_back({"link_variant", link.variant});
    r.args.push_back({"variant", std::string(variant)});
    r.args.push_back({"max_difference", most});
    r.args.push_back({"compared_steps", std::to_string(r.compared)});
  }
  return r;
}

}  // namespace tinygpt::share
