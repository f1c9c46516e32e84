// train — the Train panel: controls, status lines, numbers, the loss chart, the pre-flight
// estimate and the NaN guard. See i18n/index.ts for the conventions.
export const train = {
  title: 'Train',
  explain: {
    gpt: 'Each step shows the model a batch of windows, measures how badly it predicted every next byte ' +
      '(cross-entropy loss, in nats: ln 256 ≈ 5.55 is a blind guess) and nudges all weights to do better. ' +
      'Validation loss is measured on text the model never trains on: if it rises while training loss falls, the model is memorising.',
    seq2seq: 'Each step shows the translator a batch of pairs: the decoder is given the target so far (teacher forcing) and the loss ' +
      'measures how badly it predicted each next byte of the target and its end (in nats per target byte). Each evaluation also translates ' +
      'held-out pairs greedily: exact match is the share translated exactly right, CER the character error rate (edits per reference character).',
  },
  // what Start does (features/train/derive.ts startLabel)
  start: 'Start',
  pause: 'Pause',
  resume: 'Resume',
  trainMore: 'Train more',
  reset: 'Reset',
  validateNow: 'Validate now',
  validateNowTitle: 'Measure the loss on the held-out 10% now',
  progressLabel: 'Training progress',
  // why Start can't (features/train/derive.ts startBlockedReason)
  blocked: {
    loading: 'The model code is still loading',
    noPairs: 'Choose a task or a file of pairs first',
    noText: 'Choose a text first',
    settings: 'Fix the settings first',
  },
  // the status line (features/train/derive.ts statusLine)
  status: {
    loading: 'Loading the model code…',
    creating: 'Creating the model…',
    training: (rate: string) => `Training at ${rate} tokens/s…`,
    finished: (steps: string) => `Finished the schedule (${steps} steps). "Train more" continues at the final learning rate.`,
    paused: (step: string, params: string, time: string) => `Paused at step ${step}. ${params} parameters, trained for ${time}.`,
    noPairs: 'Choose a task or a file of pairs, then press Start.',
    noText: 'Choose a text, then press Start.',
    readyPairs: 'Ready: Start creates an encoder-decoder with random weights and trains it to translate.',
    readyText: 'Ready: Start creates a model with random weights and trains it.',
  },
  // a model in a few words (features/session/describe.ts describeModel: runs list, notices)
  describe: {
    translator: (enc: number, dec: number, heads: number, width: number, dff: number, block: number) =>
      `translator: ${enc} + ${dec} layers × ${heads} heads, width ${width}, d_ff ${dff}, up to ${block} bytes`,
    gpt: (layers: number, heads: number, width: number, block: number) => `${layers} layers × ${heads} heads, width ${width}, context ${block}`,
    recurrent: (cell: string, layers: number, units: number, width: number, block: number) =>
      `${cell}: ${layers} ${layers === 1 ? 'layer' : 'layers'} × ${units} units, width ${width}, window ${block}`,
    lstmTranslator: (enc: number, dec: number, units: number, width: number, block: number) =>
      `LSTM translator: ${enc} + ${dec} layers × ${units} units, width ${width}, up to ${block} bytes`,
    unknown: 'a model',
  },
  // the numbers
  stat: {
    step: 'Step', stepTitle: 'Optimizer steps done',
    loss: 'Train loss (avg)', lossTitle: 'Moving average of the training loss per step',
    lossNow: (last: string) => `last step: ${last}; shown: moving average`,
    val: 'Validation loss', valTitle: 'Mean loss on held-out batches (lower is better)',
    valAt: 'measured after this many steps',
    exact: 'Exact match', exactTitle: 'Held-out pairs translated exactly right (greedy decoding), at the last evaluation',
    cer: 'CER', cerTitle: 'Character error rate on held-out pairs: edits (insert, delete, substitute) per reference character',
    tps: 'Tokens/s', tpsTitle: 'Bytes of text processed per second (forward + backward + update)',
    elapsed: 'Elapsed', elapsedTitle: 'Training time of this run',
    eta: 'Remaining', etaTitle: 'Estimated time to the end of the schedule',
    lr: 'Learning rate', lrTitle: 'Warmup, then cosine decay',
    grad: 'Gradient norm', gradTitle: 'Size of the last gradient (clipped at 1.0)',
    done: 'done',
  },
  // the chart
  chartLabel: {
    gpt: 'Loss curves: training loss per step, its average, and validation loss',
    seq2seq: 'Loss curves: training loss per step, its average, validation loss; held-out exact match and character error rate in percent',
  },
  unitLabel: 'Loss unit',
  lossIn: 'Loss in ',
  natsPerByte: 'nats per byte',
  natsPerToken: 'nats per token',
  bitsPerByte: 'bits per byte',
  baselineNote: 'Dashed lines: the loss of simple models of this text (from the core): ' +
    'guessing uniformly among the bytes it uses, knowing only how often each byte occurs (unigram), and knowing the previous byte (bigram). ' +
    'Below the bigram line the model uses more than one byte of context.',
  chart: {
    step: 'step',
    lossNats: 'loss (nats per byte)',
    lossNatsToken: 'loss (nats per token)',
    lossBits: 'loss (bits per byte)',
    train: 'train',
    trainAvg: 'train (avg)',
    validation: 'validation',
    heldOut: 'held-out %',
    exact: 'exact match',
    cer: 'CER',
    uniform: 'uniform over the bytes seen',
    unigram: 'unigram',
    bigram: 'bigram',
  },
  // "Validation loss beats a bigram model (1.23) at step 340"
  crossings: {
    names: { uniform: 'a uniform guess', unigram: 'a unigram model', bigram: 'a bigram model' },
    notYet: (name: string, level: string, unit: string) => `not yet below ${name} (${level} ${unit})`,
    beats: (name: string, level: string, step: string) => `beats ${name} (${level}) at step ${step}`,
    separator: '; ',
    line: (parts: string) => `Validation loss ${parts}.`,
    nats: 'nats',
    bits: 'bits',
  },
  // the pre-flight (features/estimate/panel.ts)
  estimate: {
    measuring: 'Measuring a few real steps of these settings on this device…',
    none: 'No estimate: ',
    main: (measured: string, steps: number, rate: string, total: string, time: string) =>
      `Estimate, measured on this device in ${measured} (${steps} real steps): ${rate} tokens/s, so ${total} steps take about ${time}`,
    evaluations: (n: string) => ` with ${n} validation losses`,
    memory: (bytes: string) => `; memory about ${bytes}.`,
    webgpu: (adapter: string) => ` Measured with the CPU build: on WebGPU (${adapter}) the run's own figures replace it once it starts.`,
    thisGpu: 'this GPU',
    bpe: (tokensPerByte: string, bytesPerSec: string) => ` With its BPE vocabulary the text is ${tokensPerByte} tokens per byte: about ${bytesPerSec} bytes of text a second.`,
    scale: (bigram: string, unigram: string, blind: string) => `For scale: on this text a bigram model (the byte before predicts the next) reaches ${bigram} ` +
      `nats per byte, byte frequencies alone ${unigram}, a blind guess ln 256 = ${blind}.`,
    counted: (bytes: string) => ` (Counted on the first ${bytes}.)`,
    now: (rate: string) => `Now, measured by the run: ${rate} tokens/s`,
    nowDone: '.',
    nowLeft: (left: string, total: string) => `, ${left} left (estimated before the start: ${total} in all).`,
  },
  // the NaN guard (features/train/guard-notice.ts)
  guard: {
    title: (n: number, lr: string, scale: number) => `NaN guard: ${n} diverged step${n === 1 ? '' : 's'} undone; ` +
      `the learning rate is now ${lr ? `${lr}, ` : ''}${scale} × the schedule's.`,
    event: (step: number) => `Step ${step} diverged (`,
    // why, after the step (the core's train.diverged_* without "training diverged at step N: ")
    why: {
      loss: (loss: string) => `the loss is ${loss}`,
      norm: (norm: string) => `the gradient norm is ${norm}`,
      high: (loss: string, limit: string) => `the loss is ${loss}, worse than ${limit} (4 x a uniform guess)`,
    },
    eventBack: (restored: number, scale: number) => `): nothing reached the weights. Back to step ${restored}, ` +
      `the last good state; learning rate × ${scale} from there.`,
    paused: (scale: number) => 'Training paused: three steps in a row diverged, even after going back and halving the learning ' +
      `rate each time (now ${scale} × the schedule's). Lower learning_rate or raise grad_clip (Reset, change the settings, Start), ` +
      'or press Resume to try again at the lower rate. The core said: ',
  },
};
