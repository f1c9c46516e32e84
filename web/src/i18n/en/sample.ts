// sample — the sample panel (features/sample/panel.ts) and the tooltip of a character the model wrote
// (ui/shading.ts: also the translate panel's).
export const sample = {
  title: 'Sample',
  explain: 'The model writes one byte at a time: it gives a probability to each of the 256 bytes, one is drawn, ' +
    'and it is fed back in. Temperature flattens (>1) or sharpens (<1) the distribution; top-k and top-p keep only the ' +
    'likeliest bytes. Shading shows how surprised the model itself was by each character.',
  prompt: 'Prompt',
  promptPlaceholder: 'Empty: the text starts after a newline',
  length: 'Length',
  lengthHelp: 'bytes to generate',
  temperature: 'Temperature',
  temperatureHelp: '0 = always the likeliest',
  topK: 'Top-k',
  topKHelp: '0 = off',
  topP: 'Top-p',
  topPHelp: '1 = off',
  seed: 'Seed',
  seedHelp: 'same seed, same text',
  generate: 'Generate',
  stop: 'Stop',
  outputLabel: 'Generated text. Use the arrow keys to inspect each character.',
  legend: ' light: the model expected it · dark: it was a surprise (probability below 1/256)',
  needModel: 'Train or load a model to sample from it.',
  bad: {
    length: 'Length must be between 1 and 20000',
    temperature: 'Temperature must be 0 or more',
    topK: 'Top-k must be between 0 and 256',
    topP: 'Top-p must be in (0, 1]',
    seed: 'Seed must be 0 or more',
  },
  generating: 'Generating…',
  cutOff: 'cut off: the generation ended inside this character',
  done: (bytes: number, step: number, chunks: number) => `${bytes} bytes from the model at step ${step}, in ${chunks} chunks.`,
  stoppedReplaced: 'Stopped: the model was replaced.',
  stoppedReset: 'Stopped: the model was reset.',
  /** Before the worker's reason a generation stopped. */
  stopped: 'Stopped: ',
  tip: {
    notComplete: (chip: string) => `${chip} (not a complete UTF-8 character)`,
    charBytes: (ch: string, bytes: string) => `“${ch}” = bytes ${bytes}`,
    charByte: (ch: string, byte: string) => `“${ch}” (byte ${byte})`,
    probability: (p: string, product: boolean) => `probability ${p}${product ? ' (product over its bytes)' : ''}`,
    byteOf: (j: number, len: number, byte: string, p: string) => `byte ${j} of ${len}: ${byte} (p ${p})`,
    alternative: (byte: string, role: string) => `${byte}: ${role}`,
    likeliest: 'the five likeliest next bytes:',
  },
};
