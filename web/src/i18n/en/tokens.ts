// tokens — the Tokens view (features/tokens): the run's vocabulary, a text as token chips, the
// merges stepped through in the order they were learned, and a word split (docs/tokenizer.md).
export const tokens = {
  title: 'Tokens',
  explain: 'What the model reads. With bytes every byte is a token; a BPE vocabulary, learned from the training text, joins ' +
    'the pairs of tokens seen most often into new ones, one merge at a time, so that a token holds several bytes and the same ' +
    'compute sees more text. Step through the merges to watch the text being cut into ever longer tokens.',
  bytesOnly: 'The run reads bytes: 256 tokens, one per byte value. Choose BPE in the settings, or learn or load a vocabulary here.',
  summary: (vocab: string, merges: string, how: string) => `BPE: ${vocab} tokens (the 256 bytes and ${merges} merges), ${how}.`,
  fromModel: 'the model\'s own',
  learned: (bytesPerToken: string) => `learned from the training text (${bytesPerToken} bytes per token on it)`,
  loaded: (name: string) => `loaded from ${name}`,
  vocabLabel: 'Vocabulary size',
  train: 'Learn from the text',
  load: 'Load a tokenizer…',
  cancel: 'Cancel',
  counting: (percent: number) => `Reading the text: ${percent}%`,
  merging: (done: string, total: string) => `Merging: ${done} of ${total}`,
  textLabel: 'A text, as the model reads it',
  chipTitle: (id: number, bytes: number) => `token ${id}, ${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`,
  rate: (tokens: string, bytes: string, perByte: string) => `${tokens} tokens for ${bytes} bytes: ${perByte} tokens per byte`,
  mergesTitle: 'The merges, in the order they were learned',
  mergesExplain: 'Each merge joins two tokens into a new one; the count is how often the pair occurred in the training text ' +
    'when it was merged. The text above is cut with the merges up to the slider.',
  stepLabel: 'Merges applied',
  prev: 'One merge fewer',
  next: 'One merge more',
  stepNote: (step: string, merges: string) => `${step} of ${merges}`,
  mergeCount: (id: number, count: string) => (count ? `token ${id}, seen ${count} times` : `token ${id}`),
  wordLabel: 'Type a word to see how it splits',
};
