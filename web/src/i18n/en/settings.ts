// settings — the Model and training panel. The knobs' labels and help, and the presets' labels and
// blurbs, are the core's (config.h, presets()) in English, kept here by name so the page can word
// them in Chinese; web/test/core-text.test.ts fails when the core's English changes.
// See i18n/index.ts for the conventions (strings, or functions of typed parameters).
export interface FieldText { label: string; help: string }
export interface PresetText { label: string; blurb: string }

export const settings = {
  title: 'Model and training',
  explain: {
    gpt: 'A GPT of this many layers, heads and width, trained with AdamW on random windows of ' +
      '"context" bytes. Bigger models learn more but each step costs more. The knobs, their limits, the size and the memory ' +
      'below all come from the core itself.',
    seq2seq: 'The encoder-decoder Transformer of the seed: an encoder of self-attention layers reads the source, a decoder ' +
      'of causal self-attention and cross-attention layers writes the target, both post-norm with a ReLU feed-forward of width d_ff. ' +
      'block_size bounds the source, and the target + 1. Trained with AdamW on random batches of pairs; the knobs come from the core.',
    lstm: 'An LSTM (torch.nn.LSTM\'s cell): an embedding of width n_embd, then layers of n_hidden units that read the window one ' +
      'byte at a time, each keeping a cell state through input, forget and output gates, then a linear head. The gradient flows ' +
      'back through every step of the window; stateful carries the state on to the next window. Same AdamW and schedule as the GPT.',
    gru: 'A GRU (torch.nn.GRU\'s cell): like the LSTM but with two gates, reset and update, and no separate cell state: ' +
      'fewer weights per unit. Read one byte at a time, trained through every step of the window.',
    rnn: 'A plain recurrent network: each layer\'s state is tanh of the byte\'s embedding and the previous state, one matrix ' +
      'each. The simplest memory there is: watch how far back it reaches compared with the LSTM.',
    lstm_seq2seq: 'An LSTM encoder reads the source; an LSTM decoder, started from the encoder\'s last state, writes the target ' +
      'while attending to every source position (Luong attention, one map per step). The rival of the Transformer translator, ' +
      'on the same pairs and metrics.',
  },
  architecture: 'Architecture',
  tokenizerChoice: 'Tokens',
  tokenizerKinds: {
    bytes: { label: 'Bytes', blurb: 'every byte a token: 256, any file' },
    bpe: { label: 'BPE', blurb: 'a vocabulary learned from the text: more text per step' },
  } as Record<string, PresetText>,
  kinds: {
    gpt: { label: 'Transformer', blurb: 'attention over the whole window' },
    lstm: { label: 'LSTM', blurb: 'gated memory, one byte at a time' },
    gru: { label: 'GRU', blurb: 'two gates, no cell state' },
    rnn: { label: 'RNN', blurb: 'tanh of the last state' },
    seq2seq: { label: 'Transformer', blurb: 'the seed\'s encoder-decoder' },
    lstm_seq2seq: { label: 'LSTM', blurb: 'encoder-decoder with attention' },
  } as Record<string, PresetText>,
  presetsLabel: 'Presets',
  allSettings: 'All settings: model, training, validation',
  loading: 'Loading the model code…',
  groups: { model: 'Model', training: 'Training', run: 'Validation' },
  locked: 'These are the settings of the current model. Reset to choose new ones (only the Validation fields can change now).',
  creating: 'Creating the model…',
  knobTitle: (name: string, range: string) => `${name}: ${range}`,
  notPossible: 'not possible here',
  presetEstimate: (params: string, bytes: string) => `${params} params · ≈${bytes}`,
  estimate: (params: string, bytes: string) => `${params} parameters · about ${bytes} of memory for training ` +
    '(weights, gradients, AdamW moments, activations)',
  cantStart: 'Can\'t start: ',
  isEmpty: (label: string) => `${label} is empty`,
  notNumber: (label: string) => `${label} must be a number`,
  corpusTooShort: (size: number, need: number) =>
    `the corpus has ${size} bytes, fewer than block_size + 1 = ${need}: use a longer text or a shorter context`,
  fields: {
    model: { label: 'Model', help: 'gpt, rnn, gru, lstm: a language model that continues text; seq2seq, lstm_seq2seq: an encoder-decoder that translates' },
    n_layer: { label: 'Layers', help: 'Transformer blocks (gpt), or recurrent layers (rnn, gru, lstm), stacked on each other' },
    n_enc_layer: { label: 'Encoder layers', help: 'encoder layers: self-attention over the source, then a ReLU feed-forward (lstm_seq2seq: LSTM layers)' },
    n_dec_layer: { label: 'Decoder layers', help: 'decoder layers: causal self-attention, cross-attention to the source, feed-forward (lstm_seq2seq: LSTM layers)' },
    d_ff: { label: 'Feed-forward width', help: 'hidden width of each layer\'s ReLU feed-forward network' },
    n_head: { label: 'Heads', help: 'attention heads per layer; n_embd is split between them' },
    tie_weights: { label: 'GPT-2 layout', help: '1: the head is the token embedding wte (tied) with no bias, as GPT-2 and nanoGPT: such a model exports as a Hugging Face GPT-2 folder and to llama.cpp' },
    n_embd: { label: 'Width', help: 'size of each token\'s vector (must be divisible by n_head)' },
    n_hidden: { label: 'Hidden size', help: 'units of each recurrent layer\'s hidden state (and of the LSTM\'s cell state)' },
    block_size: { label: 'Context', help: 'how many tokens the model sees at once (seq2seq: the longest source, and target + 1)' },
    tokenizer: { label: 'Tokenizer', help: 'bytes: every byte is a token (vocab_size 256); bpe: a byte-level BPE vocabulary of vocab_size tokens learned from the text' },
    vocab_size: { label: 'Vocabulary', help: 'tokens the model knows: 256 bytes, plus the BPE merges (the translators add BOS, EOS and PAD)' },
    seed: { label: 'Seed', help: 'random start and order of the data: same seed, same run' },
    batch_size: { label: 'Batch', help: 'windows of text (or pairs) per step' },
    learning_rate: { label: 'Learning rate', help: 'peak step size of AdamW, reached after warmup_iters' },
    min_lr: { label: 'Minimum learning rate', help: 'floor of the cosine decay (about learning_rate / 10)' },
    warmup_iters: { label: 'Warmup', help: 'steps of linear ramp-up of the learning rate' },
    max_iters: { label: 'Steps', help: 'length of the schedule: the cosine decay reaches min_lr at this step' },
    weight_decay: { label: 'Weight decay', help: 'pulls weight matrices and embeddings towards zero (AdamW)' },
    beta1: { label: 'Adam beta1', help: 'decay of AdamW\'s first moment (momentum)' },
    beta2: { label: 'Adam beta2', help: 'decay of AdamW\'s second moment' },
    eps: { label: 'Adam eps', help: 'added to AdamW\'s denominator' },
    grad_clip: { label: 'Gradient clip', help: 'largest global gradient norm (0 = no clipping)' },
    stateful: { label: 'Stateful', help: '1: each window continues the text of the last and starts from its hidden state (truncated BPTT); 0: from zeros' },
    eval_interval: { label: 'Validate every', help: 'steps between validation losses (0 = only when asked)' },
    eval_iters: { label: 'Validation batches', help: 'batches averaged for one validation loss' },
  } as Record<string, FieldText>,
  presets: {
    tiny: { label: 'tiny', blurb: 'Learns letter pairs in seconds: for a first look and for tests.' },
    S: { label: 'small (S)', blurb: 'nanoGPT\'s CPU Shakespeare setting: words and names in a few minutes (val loss ~1.9 at 2000 steps).' },
    fast: { label: 'fast (S, BPE)', blurb: 'S with a 4,096-token vocabulary and a short schedule: val loss 1.9 nats per byte in under a minute.' },
    M: { label: 'medium (M)', blurb: '6 layers, width 384, context 256: 11M parameters; slow without threads or a GPU.' },
    's2s-tiny': { label: 'translate: tiny', blurb: '1 + 1 layers, width 32: reverses strings perfectly in a few seconds.' },
    's2s-small': { label: 'translate: small', blurb: '2 + 2 layers, width 32: the Chinese-English phrases in about a minute.' },
    's2s-base': { label: 'translate: base', blurb: '2 + 2 layers, width 64, d_ff 256: numbers and dates in words; zh-en with margin.' },
    'lstm-tiny': { label: 'LSTM: tiny', blurb: '1 LSTM layer of 128 units: about as many parameters as tiny.' },
    'lstm-S': { label: 'LSTM: small (S)', blurb: '2 LSTM layers of 256 units (0.94M parameters): S\'s size, window and schedule.' },
    'gru-tiny': { label: 'GRU: tiny', blurb: '1 GRU layer of 160 units: about as many parameters as tiny.' },
    'gru-S': { label: 'GRU: small (S)', blurb: '2 GRU layers of 288 units (0.90M parameters): S\'s size, window and schedule.' },
    'rnn-tiny': { label: 'RNN: tiny', blurb: '1 tanh RNN layer of 256 units: about as many parameters as tiny.' },
    'rnn-S': { label: 'RNN: small (S)', blurb: '2 tanh RNN layers of 512 units (0.97M parameters): S\'s size, window and schedule.' },
    's2s-lstm': { label: 'translate: LSTM', blurb: 'LSTM encoder and decoder (1 + 1 layers of 128 units) with attention: the Transformer\'s rival.' },
  } as Record<string, PresetText>,
};
