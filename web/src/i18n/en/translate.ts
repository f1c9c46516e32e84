// translate — the translator at work (features/translate/panel.ts) and its attention maps
// (features/inspect/alignment-panel.ts). Data in messages (a character, ⟨end⟩, ⟨BOS⟩, a translation) arrives
// as a parameter: the page marks it as data (ui/note.ts withData).
export const translate = {
  title: 'Translate',
  explain: 'The encoder reads the whole source once; the decoder then writes the translation one byte at a time, ' +
    'each from a distribution over the 256 bytes and the end token, reading the source through cross-attention. Greedy (beam 1) takes ' +
    'the likeliest byte each time; a wider beam keeps that many candidate translations and returns the best; a temperature above 0 ' +
    'draws each byte instead (another translation at each click). Shading shows how ' +
    'sure the model was of each character.',
  source: 'Source',
  sourcePlaceholder: 'A source to translate (Ctrl+Enter)',
  // around the schema's field name block_size (shown as code)
  sourceHelpBefore: 'The model reads at most ',
  sourceHelpAfter: ' bytes of source.',
  beam: 'Beam width',
  beamHelp: '1 = greedy',
  temperature: 'Temperature',
  temperatureHelp: '0 = greedy or the beam; above 0 samples (beam 1)',
  translate: 'Translate',
  trySeed: 'Try the seed\'s sentence: ',
  seedTitle: 'The running example of the seed document',
  fromData: 'A source from the data',
  fromDataTitle: 'The source of a pair from the data',
  outputLabel: 'Translation. Use the arrow keys to inspect each character.',
  legend: ' light: the model was sure · dark: it was a surprise (probability below 1/256); ',
  legendEnd: ': it chose to stop',
  needModelShort: 'Train or load a translator first',
  needModel: 'Train or load a translator to translate with it.',
  badBeam: 'Beam width must be between 1 and 8',
  badTemperature: 'Temperature must be between 0 and 5',
  sampleOrBeam: 'Sampling (a temperature above 0) takes a beam width of 1',
  noSource: 'Type a source first.',
  translating: 'Translating…',
  result: (bytes: number, logProb: string, how: { beam: number; temperature: number; seed: number }, finished: boolean, step: number, end: string) =>
    `${bytes} bytes, log p ${logProb}, ${how.temperature > 0 ? `sampled at temperature ${how.temperature} (seed ${how.seed})` : how.beam > 1 ? `beam ${how.beam}` : 'greedy'}, ` +
    `${finished ? `ended with ${end}` : 'stopped at the length limit'}; model at step ${step}.`,
  /** Where the translation ran (features/translate/route.ts) and how long it took. */
  where: (route: 'cpu' | 'gpu' | 'host', ms: string, syncMs: string | null, faster: boolean) => {
    const why = faster ? 'the faster route for this model, as measured' : 'measuring which route is faster';
    return route === 'gpu' ? ` Decoded on the GPU in ${ms} ms (${why}).`
      : route === 'host' ? ` Decoded on the CPU with the GPU's weights in ${ms} ms` +
        `${syncMs !== null ? `, after ${syncMs} ms bringing them back` : ''} (${why}).`
      : ` Decoded on the CPU in ${ms} ms.`;
  },
  reference: (fromData: boolean, expected: string, same: boolean) =>
    `${fromData ? 'The data' : 'The seed'} says: “${expected}” — ${same ? 'the same.' : 'not the same.'}`,
  endTip: (end: string) => `${end}: the translation stops here`,
  /** The three kinds of attention map of the translator. */
  maps: {
    cross: {
      label: 'cross-attention (decoder → source)',
      rowAxis: 'target byte being written ↓',
      colAxis: (_bos: string) => 'source byte it reads →',
      tip: (q: number, row: string, k: number, col: string) => `writing “${row}” (row ${q}) reads source byte ${k} “${col}”`,
    },
    encoder: {
      label: 'encoder self-attention',
      rowAxis: 'source byte ↓',
      colAxis: (_bos: string) => 'source byte it looks at →',
      tip: (q: number, row: string, k: number, col: string) => `source byte ${q} “${row}” looks at byte ${k} “${col}”`,
    },
    decoder: {
      label: 'decoder self-attention (causal)',
      rowAxis: 'target byte being written ↓',
      colAxis: (bos: string) => `decoder input it looks at (${bos} + target so far) →`,
      tip: (q: number, row: string, k: number, col: string) => `writing “${row}” (row ${q}) looks at input ${k} “${col}”`,
    },
  },
  align: {
    title: 'Look inside: attention',
    // the explanation, around the seed's example (我 爱 吃 火锅 → I like to eat hot pot, shown as data)
    explain1: 'Cross-attention is where the translator reads the source: for every byte it writes (a row), ' +
      'each head of each decoder layer puts weights that sum to 1 over the source bytes (columns). As it learns, the bytes of a word come to ' +
      'read the bytes of the word they translate: for ',
    explain2: ', ',
    explain3: ' reads ',
    explain4: ' and ',
    explain5: ', though the order of the words differs. Self-attention is each side looking at itself: the encoder at the whole source, ' +
      'the decoder at what it has written.',
    show: 'Show:',
    sourcePair: 'a pair of the data',
    sourceTranslation: 'the last translation',
    sourceCustom: 'your own pair',
    anotherPair: 'Another pair',
    lookInside: 'Look inside',
    target: 'Target',
    attention: 'Attention',
    mapLabel: 'Attention map; arrow keys move over the weights',
    needModel: 'Train or load a translator, then look inside.',
    rowTick: (i: number, label: string) => `row ${i}: ${label}`,
    columnTick: (i: number, label: string) => `column ${i}: ${label}`,
    maskedTip: 'masked: the decoder cannot look at what it has not written yet',
    weightTip: (w: string, layer: number, head: number) => `weight ${w} (layer ${layer}, head ${head})`,
  },
  // notes of features/inspect (the attention maps' line)
  notes: {
    translateFirst: 'Translate something first.',
    typePair: 'Type a source (and a target).',
    choosePairs: 'Choose pairs first.',
    inspected: (S: number, T: number, step: number, bos: string) =>
      `${S} source bytes × ${T} target positions (${bos} and ${T - 1} bytes), model at step ${step}`,
  },
};
