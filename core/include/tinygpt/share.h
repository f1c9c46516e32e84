// share.h — a run as a link: its configuration (the schema's field names), seed, the build variant
// it ran on, its text (a built-in name, or the file's fingerprint and size) and its first training
// losses, so that whoever opens the link can replay the run and see that it is the same one, bit
// for bit. The page and the CLI (`tinygpt train --from-link URL`) parse, make and check links with
// these functions and nothing else.
//
// A link is a URL whose fragment (or query) holds key=value pairs:
//   https://host/path/#tinygpt=1&model=gpt&n_layer=2&...&seed=1337&variant=wasm-simd128
//     &corpus=builtin:tinyshakespeare.txt&losses=<base64url of float32 little-endian>
//   corpus=fnv:<16 hex digits>:<size in bytes> and name=<file name> for a person's own file.
//   A BPE run (tokenizer=bpe&vocab_size=N, schema fields like the rest) adds tok=fnv:<16 hex digits>,
//   its tokenizer's fingerprint (tok::Tokenizer::fingerprint: the replay learns it again from the
//   same text, deterministically, and must get the same one), and tpb=<tokens per byte of its
//   validation text>, so that the replay's check speaks in bits per byte.
// Runs are bit-reproducible on one build variant (the same kernels: native AVX2, native SSE2,
// wasm SIMD128, wasm scalar, any number of threads); across variants the losses agree to a few
// decimals only (no fused multiply-add in SIMD128, other summation orders).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tinygpt/config.h"

namespace tinygpt::share {

constexpr int kLinkVersion = 1;
// At most this many training losses travel in a link (enough to tell two runs apart).
constexpr size_t kMaxLosses = 50;

struct Corpus {
  std::string builtin;       // "tinyshakespeare.txt" for a built-in text, else ""
  uint64_t fingerprint = 0;  // a person's file: its fingerprint (data::Corpus::fingerprint) ...
  uint64_t size = 0;         // ... and its size in bytes
  std::string name;          // the file's name when it was shared (a hint only)
};

struct Link {
  Config config;
  std::string variant;        // build_variant() of the run that made the link
  Corpus corpus;
  std::vector<float> losses;  // its first training losses (steps 1, 2, ...), at most kMaxLosses
  uint64_t tokenizer = 0;     // a BPE run's tokenizer fingerprint (0: bytes)
  double tokens_per_byte = 0; // of its validation text (0: not given; bytes: 1)
};

// This build's variant: "native-avx2", "native-sse2", "wasm-simd128", "wasm-scalar", ...
std::string build_variant();

// The URL of a link: base (the page's address; its own fragment is dropped) + "#" + the fields.
// Keeps at most kMaxLosses losses.
std::string make_link(const Link& link, std::string_view base);
// Parses a URL (or its fragment alone). Throws tinygpt::Error naming what is wrong: not a tinygpt
// link, another version, an unknown or repeated key, a bad value (with the schema's message).
Link parse_link(std::string_view url);

// Does this text match the link's? "" if it does, else a sentence that says what differs.
std::string check_corpus(const Link& link, uint64_t fingerprint, uint64_t size, std::string_view builtin_name = "");

// Is this the link's tokenizer? "" if it is (or the run reads bytes), else a sentence: a replay
// learns its tokenizer again from the same text, and another one would not be the same run.
Message check_tokenizer(const Link& link, uint64_t fingerprint);

// How a replay compares with the link's losses.
struct Replay {
  enum Status { pending, matches, diverged } status = pending;
  int64_t compared = 0;       // steps compared (min of the two lengths)
  int64_t expected = 0;       // steps the link holds
  int64_t diverged_at = 0;    // the first step (from 1) whose loss differs, 0 if none
  float link_loss = 0.0f, run_loss = 0.0f;  // at diverged_at
  // the same in bits per byte (loss x tokens per byte / ln 2, the link's tpb): how runs of different
  // vocabularies compare; NaN when the link gives no tokens per byte
  double link_bpb = NAN, run_bpb = NAN;
  double max_difference = 0.0;  // max |run - link| over the compared steps (another variant: how close it is)
  bool same_variant = true;
  // The verdict is final: it matches, or it diverged on the same variant (a bit difference there is
  // the answer), or on another variant after all the link's steps (a difference there is expected,
  // so it waits to say how close the runs are). The page and the CLI report a replay once, when final
  // (or when the run ends first); neither decides this itself.
  bool final = false;
  std::string message;        // one sentence for the page and the CLI
  std::string code;           // its code and args for the page (error.h); link_variant, variant, ... on another build variant
  MessageArgs args;
};
// Compares the first losses of a run on `variant` with the link's, bit for bit.
Replay check_replay(const Link& link, const float* losses, size_t n, std::string_view variant);

}  // namespace tinygpt::share
