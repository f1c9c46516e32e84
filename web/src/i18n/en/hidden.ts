// hidden — the hidden-state view, "What a cell remembers" (features/hidden). The patterns' words
// are the core's (hidden.h patterns()), kept by name so the page can word them in Chinese;
// web/test/hidden.test.ts checks the English is the core's.
export const hidden = {
  title: 'What a cell remembers',
  explain: 'A recurrent model carries what it has read in its hidden state. Trace a text through it and colour each byte by ' +
    'one unit\'s activation (red positive, blue negative): some units count the position in the line, some switch on inside ' +
    'quotes, some mark vowels or the end of a word. For the LSTM, the cell state c and the gates are shown too: the input, ' +
    'forget and output gates decide what enters the memory, what stays and what is shown.',
  textLabel: 'Text to trace',
  trace: 'Trace',
  layer: 'Layer',
  unit: 'Unit',
  what: 'Colour by',
  viewLabel: 'The text, each byte coloured by the chosen unit',
  searchTitle: 'Find the units that follow a pattern',
  searchExplain: 'Ranks every unit (h, and the LSTM\'s cell states c) by how closely its activation over the text follows ' +
    'the pattern (Pearson correlation r; negative: it falls where the pattern rises). Click one to colour the text by it.',
  pattern: 'Pattern',
  search: 'Search',
  busy: 'Tracing…',
  notYet: 'Press Trace to run the text through the model.',
  noModel: 'Train or load a recurrent model (RNN, GRU or LSTM) first.',
  traced: (bytes: number, step: number, layers: number, units: number) =>
    `Traced ${bytes} bytes at step ${step}: ${layers} ${layers === 1 ? 'layer' : 'layers'} of ${units} units. Trace again after more training.`,
  tracedTokens: (tokens: number, step: number, layers: number, units: number) =>
    `Traced ${tokens} tokens at step ${step}: ${layers} ${layers === 1 ? 'layer' : 'layers'} of ${units} units. This model reads BPE tokens: ` +
    'each cell is a token, coloured by the state after reading it; a pattern is asked of its last byte. Trace again after more training.',
  gatesOf: (layer: number, unit: number) => `The gates of layer ${layer}, unit ${unit}, over the same bytes (white 0, red 1):`,
  match: (layer: number, unit: number, state: string, r: string) => `layer ${layer}, unit ${unit} (${state}): r = ${r}`,
  kinds: {
    h: 'hidden unit h', c: 'cell state c', i: 'input gate i', f: 'forget gate f', g: 'candidate g', o: 'output gate o',
    r: 'reset gate r', z: 'update gate z', n: 'new state n',
  } as Record<string, string>,
  patterns: {
    quote: 'inside "double quotes"',
    line_position: 'bytes since the start of the line',
    word_position: 'bytes since the last space or newline',
    vowel: 'a vowel: a e i o u',
    space: 'a space or a newline',
    upper: 'a capital letter A-Z',
    punctuation: 'punctuation: . , ; : ! ? \' " - ( )',
    newline_next: 'the next byte is a newline',
  } as Record<string, string>,
};
