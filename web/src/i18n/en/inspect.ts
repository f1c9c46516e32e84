// inspect — looking inside the language model (features/inspect/panel.ts), the Layer/Head controls of
// both attention panels (ui/head-picker.ts), and the notes about an inspection (features/inspect/inspector.ts).
// Data (a character, a byte in hex) arrives as a parameter: the page marks it (ui/note.ts withData).
export const inspect = {
  title: 'Look inside',
  explain: 'Attention is how each byte gathers information from the bytes before it. In every layer, ' +
    'each head computes, for every byte (a row), weights over the earlier bytes (columns) that sum to 1, and mixes their vectors with them. ' +
    'Heads often specialise: one looks at the previous byte, another at the start of the word or line.',
  text: 'Text:',
  sourceCorpus: 'a slice of the corpus',
  sourcePrompt: 'the sampling prompt',
  sourceSample: 'the last sample',
  sourceCustom: 'your own text',
  customPlaceholder: 'Type a text to look inside',
  customLabel: 'Text to look inside',
  anotherSlice: 'Another slice',
  lookInside: 'Look inside',
  live: ' update while training',
  needModel: 'Train or load a model, then look inside.',
  tokensTitle: 'Tokens (bytes) — hover one to see where it looks',
  tokensLabel: 'Tokens; arrow keys pick the query token',
  lossLabel: 'Loss of each byte; arrow keys move',
  mapLabel: 'Attention map: rows are queries, columns are keys',
  rowAxis: 'query (the byte doing the looking) ↓',
  colAxis: 'key (an earlier byte it looks at) →',
  // the legend of both attention panels: "weight [colour bar] 0 → 1 (...)"
  legendWeight: 'weight ',
  legendScale: ' 0 → 1 (square-root scale); grey: the future, masked',
  lossTitle: 'How surprising each byte was',
  lossExplain: 'Each byte is coloured by its loss, −ln p(byte | the bytes before it): the model\'s surprise at seeing it. ' +
    'The first byte has nothing before it, so it is not predicted.',
  lossSummary: (mean: string, blind: string, worst: number, label: string, worstLoss: string) =>
    `Mean loss ${mean} nats per byte (a blind guess: ${blind}). Most surprising: byte ${worst} “${label}” at ${worstLoss}.`,
  lossSummaryTokens: (mean: string, blind: string, worst: number, label: string, worstLoss: string) =>
    `Mean loss ${mean} nats per token (a blind guess: ${blind}). Most surprising: token ${worst} “${label}” at ${worstLoss}.`,
  oneByte: 'One byte: nothing to predict.',
  byteTick: (i: number) => `byte ${i}`,
  tokenTick: (i: number) => `token ${i}`,
  /** Bytes of the strips that are not a whole character. */
  group: {
    charTitle: (ch: string, bytes: number) => `${ch}: ${bytes} bytes`,
    cut: 'cut',
    cutTitle: 'the start of a character cut off by the end of the text',
    continuedTitle: 'continuation of a character that starts before the window',
    invalid: 'invalid',
    invalidTitle: 'bytes that form no UTF-8 character',
  },
  tip: {
    token: (i: number, id: number, text: string) => `token ${i} (id ${id}) “${text}”`,
    pair: (q: number, from: string, k: number, to: string) => `byte ${q} “${from}” → byte ${k} “${to}”`,
    weight: (w: string) => `weight ${w}`,
    masked: 'masked: a byte cannot look at the future',
    looksAt: (q: number, label: string, layer: number, head: number) => `byte ${q} “${label}” looks at (layer ${layer}, head ${head}):`,
    byte: (i: number, label: string) => `byte ${i} “${label}”`,
    firstNotPredicted: 'the first byte is not predicted',
    byteRole: (i: number, label: string, hex: string, role: string) => `byte ${i} “${label}” (${hex}, ${role})`,
    loss: (p: string, loss: string) => `p = ${p} · loss ${loss} nats`,
    expected: 'what the model expected here:',
  },
  heads: {
    layer: 'Layer',
    head: 'Head',
    all: 'All heads',
    one: 'One head',
    cellLabel: (layer: number, head: number) => `Layer ${layer}, head ${head}`,
    cell: (layer: number, head: number) => `L${layer} H${head}`,
  },
  // features/inspect's notes (the line under the buttons)
  notes: {
    chooseText: 'Choose a text first.',
    sampleFirst: 'Generate a sample first.',
    typeText: 'Type a text to look inside.',
    inspected: (bytes: number, step: number) => `${bytes} bytes, model at step ${step}`,
    cut: (bytes: number, of: number) => ` (the last ${bytes} of ${of}: the model sees at most its context)`,
  },
};
