// messages.ts (tokens) — the run's vocabulary: learned from the text in the worker (with progress,
// cancellable), or loaded from a tokenizer.json / GPT-2's files; the text as tokens, the merges in
// the order they were learned, and how a word splits.

/** The tokenizer the Tokens view shows: the live model's (a BPE run), else the one the next run will use. */
export interface TokenizerInfo {
  source: 'model' | 'trained' | 'loaded';
  name: string;               // a loaded file's name ('' otherwise)
  vocab: number;              // text tokens: the bytes and the merges
  merges: number;
  fingerprint: string;        // 16 hex digits (tok::Tokenizer::fingerprint)
  trainingTokensPerByte: number;  // on the text it was learned from (0: a loaded one)
  steppable: boolean;         // its merges can be stepped through (learned here: merge r makes 256 + r)
}

/** A text cut into tokens. */
export interface TokenChips {
  ids: Int32Array;
  labels: string[];           // each token's text (Tokenizer.tokenText: \n, \xFF escaped)
  lengths: Int32Array;        // each token's bytes
  pieces: Int32Array;         // where the pre-tokenization rule cuts the text: [begin0, end0, begin1, end1, ...]
  bytes: number;              // of the text
  tokensPerByte: number;
}

/** One merge: left + right -> made, with how often the pair occurred when it was merged. */
export interface MergeRow { rank: number; id: number; left: string; right: string; made: string; count: number }

export interface TrainProgress { phase: 'counting' | 'merging' | 'encoding'; done: number; total: number }

export interface TokensCalls {
  /** The flag a Cancel sets (a SharedArrayBuffer of one Int32, when the page is cross-origin isolated). */
  tokensSetup(msg: { flag: SharedArrayBuffer | null }): void;
  /** Learns a vocabulary of `vocab` tokens from the training split of the worker's text (tokensProgress events). */
  tokensTrain(msg: { vocab: number }): TokenizerInfo;
  /** Reads a tokenizer file: tokenizer.json, tinygpt's compact form, or GPT-2's vocab.json with merges.txt (two files). */
  tokensLoad(msg: { files: { name: string; bytes: ArrayBuffer }[] }): TokenizerInfo;
  /** The tokenizer shown now (null: bytes, none). */
  tokensInfo(msg: Record<string, never>): TokenizerInfo | null;
  /** A text as tokens, under the first `merges` merges (-1: all of them). */
  tokensShow(msg: { text: ArrayBuffer; merges: number }): TokenChips;
  /** The merges [from, from + count) in the order they were learned. */
  tokensMerges(msg: { from: number; count: number }): MergeRow[];
}

export interface TokensEvents {
  tokensProgress: TrainProgress;
  /** The tokenizer shown changed (a model with one, a new one trained or loaded, or none). */
  tokenizer: { info: TokenizerInfo | null };
}
