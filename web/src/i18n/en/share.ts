// share — "Share this run" and the banner of a page opened with a run link (features/share/replay.ts).
// See i18n/index.ts for the conventions (strings, or functions of typed parameters).
export const share = {
  button: 'Share this run',
  buttonTitle: 'A link that sets up this run again: settings, seed, text, first losses',
  urlLabel: 'Link to this run',
  copy: 'Copy',
  copied: 'Copied',
  noLink: 'No link: ',
  thisPage: 'this page\'s',
  note: (variant: string, losses: number) => `The link holds the settings, the seed, the build variant (${variant}), the text ` +
    `(the built-in one by name, your file by its fingerprint and size: the file itself stays here) and the first ${losses} losses. ` +
    'Opening it sets the run up again; with the same text it reproduces these losses bit for bit on the same build variant.',
  // the banner
  bannerLabel: 'Shared run',
  bannerTitle: 'A shared run',
  settings: (layers: number, heads: number, width: number, block: number, batch: number, seed: number, steps: number) =>
    `Settings from the link: ${layers} layers × ${heads} heads, width ${width}, context ${block}, batch ${batch}, seed ${seed}, ${steps} steps. `,
  madeOn: (variant: string, ours: string) => `Made on ${variant}; this page runs ${ours}`,
  unknownBuild: 'an unknown build',
  differs: ': the losses will differ a little (bit-identical only on the same build variant)',
  end: '.',
  replay: 'Replay: ',
  chooseText: (which: string) => `Choose the text it trained on: ${which}. Drop it on the page or pick it in Data.`,
  comparing: (n: number) => `Comparing the first ${n} losses with the link's…`,
  ready: (n: number) => `The text is the link's. Press Start to replay the run; its first ${n} losses will be compared bit for bit.`,
  // which text the link needs (replay.ts corpusNote)
  need: {
    builtin: (name: string) => `the built-in text ${name}`,
    sameFile: 'the same file',
    aFile: 'a file',
    file: (name: string, size: string, bytes: number) => `${name} (${size}, ${bytes} bytes)`,
    other: (name: string, bytes: number, fingerprint: string, have: string, haveBytes: number, haveFingerprint: string) =>
      `${name} (${bytes} bytes, fingerprint ${fingerprint}); ${have} is ${haveBytes} bytes with fingerprint ${haveFingerprint}`,
    fileShort: (name: string, bytes: number) => `${name} (${bytes} bytes)`,
  },
  // notices
  cantReplay: 'This link can\'t be replayed: ',
  opened: (text: string, n: number) => `A shared run: its settings are set, on ${text}. Press Start to replay it; its first ${n} losses will be compared, bit for bit.`,
};
