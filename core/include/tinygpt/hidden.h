// hidden.h — what a recurrent model's units do on a text: the numbers behind the page's
// hidden-state view (docs/rnn.md, "What a cell remembers").
//
//   trace         runs a text through the model (window after window, the state carried, as
//                 generation does) and keeps every layer's hidden units h, the LSTM's cell states
//                 c and the gates (LSTM i f g o, GRU r z n)
//   signal        a number per byte for a pattern a unit might track: inside quotes, the position
//                 in the line, vowels, ...
//   search_units  the units whose activation follows a pattern best: |Pearson correlation| over
//                 the text, for h (and c)
//
// Dimensions: T positions of text (a byte model's: bytes; a BPE model's: tokens), L layers, H
// units, G saved gate rows (lstm 4: i f g o; gru 3: r z n; rnn 0).
//
// A BPE model reads tokens: each position is a token, whose state is the one after reading all of
// its bytes. The patterns stay byte patterns; a token's value is the pattern's at its last byte
// (token_signal), so "inside quotes" or "a space" is asked of the place the model has just read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinygpt/rnn.h"
#include "tinygpt/tensor.h"

namespace tinygpt::hidden {

// At most this many bytes are traced (a view of a few paragraphs; 8 kB at L = 2, H = 256 is 8 MB
// of floats for an LSTM).
constexpr int kMaxTraceBytes = 4096;

struct Trace {
  int T = 0, L = 0, H = 0, G = 0;
  std::string kind;           // "rnn", "gru", "lstm"
  std::vector<int32_t> tokens;  // (T) the ids read (a byte model's: the bytes)
  std::vector<int32_t> ends;    // (T) the text's byte offset after each position's token (a byte model's: t + 1)
  std::vector<float> h;       // (L, T, H) h_t of every layer after byte t
  std::vector<float> c;       // (L, T, H) the LSTM's cell states (empty for rnn and gru)
  std::vector<float> gates;   // (L, T, G, H) lstm: i f g o; gru: r z n (empty for rnn)
};
// Throws for an empty text; a longer one than kMaxTraceBytes is cut to its first kMaxTraceBytes.
Trace trace(model::Recurrent& model, nn::Arena& arena, const uint8_t* text, size_t n);
// The same over tokens (a BPE model's ids) whose byte lengths are `lengths` (n each); cut to the
// first kMaxTraceBytes tokens.
Trace trace(model::Recurrent& model, nn::Arena& arena, const int32_t* tokens, const int32_t* lengths, size_t n);

// The patterns a unit may track: one value per byte of a text.
//   quote          1 inside "double quotes" (the opening quote counts as inside, the closing one not)
//   line_position  bytes since the last newline (0 at a line's first byte)
//   word_position  bytes since the last space or newline
//   vowel          1 on a, e, i, o, u (either case)
//   space          1 on a space or a newline
//   upper          1 on A-Z
//   punctuation    1 on . , ; : ! ? ' " - ( )
//   newline_next   1 where the next byte is a newline (the end of a line is near)
struct PatternInfo {
  const char* name;
  const char* description;
};
const std::vector<PatternInfo>& patterns();
// Throws tinygpt::Error listing the patterns for an unknown name.
std::vector<float> signal(const std::string& pattern, const uint8_t* text, size_t n);

// A byte signal at the positions of a trace: the value at each token's last byte (ends[t] - 1).
std::vector<float> token_signal(const std::vector<float>& byte_signal, const std::vector<int32_t>& ends);

// Pearson correlation of x and y (n values); 0 when either is constant.
double correlation(const float* x, const float* y, int n, int stride_x = 1);

struct UnitMatch {
  int layer = 0, unit = 0;
  std::string state;        // "h" or "c"
  float correlation = 0.0f; // its sign says whether the unit rises (+) or falls (-) with the pattern
};
// The k units (h of every layer, and c for the LSTM) whose activation over the traced text
// correlates most with the signal (|r|, largest first; ties: h before c, then lower layer, then unit).
std::vector<UnitMatch> search_units(const Trace& trace, const std::vector<float>& signal, int k);

}  // namespace tinygpt::hidden
