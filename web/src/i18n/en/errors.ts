// errors — what the core and the worker say (i18n/core-messages.ts): `core.<code>` words a coded
// message from its args (core/include/tinygpt/error.h; the codes: core/src/messages.cpp and
// lib/coded.ts WORKER_MESSAGE_CODES); `coreSays` frames one the catalogue does not word (shown in
// English). The English here follows the core's own sentences; on the English page the core's
// exact text is shown (core-messages.ts), so these are the reference for the other languages.
import { type CoreArgs, coreWordings, has } from '../core-args';

const who = (a: CoreArgs) => (`${a.name}` === '' ? 'This file' : `${a.name}`);
const lineList = (count: string, lines: string) => `${Number(count) === 1 ? ' (line ' : ' (lines '}${lines})`;

/** TsvReport::summary(): "1200 pairs from 1203 lines; skipped: ..." */
function pairsReport(a: CoreArgs): string {
  const n = (k: string) => Number(a[k]);
  let s = `${a.pairs} ${n('pairs') === 1 ? 'pair' : 'pairs'} from ${a.lines} ${n('lines') === 1 ? 'line' : 'lines'}`;
  const skipped: string[] = [];
  if (n('no_tab')) skipped.push(`${a.no_tab} without a tab${lineList(a.no_tab, a.no_tab_lines)}`);
  if (n('empty_side')) skipped.push(`${a.empty_side} with an empty source or target${lineList(a.empty_side, a.empty_side_lines)}`);
  if (n('too_long')) {
    skipped.push(`${a.too_long} longer than the model's ${a.source_limit}-byte source / ${a.target_limit}-byte target limit` +
      lineList(a.too_long, a.too_long_lines));
  }
  if (n('blank')) skipped.push(`${a.blank} ${n('blank') === 1 ? 'blank line' : 'blank lines'}`);
  if (skipped.length) s += `; skipped: ${skipped.join(', ')}`;
  if (n('extra_columns')) {
    s += `; ${a.extra_columns} with more than two columns (only the first two are used)${lineList(a.extra_columns, a.extra_column_lines)}`;
  }
  return s;
}

/** share::check_replay's note when the link was made on another build variant. */
const variantNote = (a: CoreArgs) => (has(a, 'link_variant')
  ? ` (the link was made on ${a.link_variant}, this is ${a.variant}: runs are bit-identical only on the same build variant)` : '');

/** Why the tuner's round started: " (steps slowed from 20.0 ms to 30.0 ms)", " (periodic re-check)" or "". */
const tunerTrigger = (a: CoreArgs) => {
  if (!has(a, 'trigger')) return '';
  return has(a, 'from_ms') ? ` (steps slowed from ${a.from_ms} ms to ${a.to_ms} ms)` : ' (periodic re-check)';
};

export const errors = {
  coreSays: 'The core says: ',
  core: coreWordings({
    // config fields and the rules between them
    'config.unknown_field': (a) => `unknown config field '${a.field}'`,
    'config.unknown_field_near': (a) => `unknown config field '${a.field}' (did you mean ${a.near}?)`,
    'config.not_finite': (a) => `${a.field} must be a finite number`,
    'config.not_whole': (a) => `${a.field} must be a whole number (got ${a.value})`,
    'config.no_choice': (a) => `${a.field} has no choice number ${a.value}`,
    'config.range': (a) => `${a.field} must be in ${a.range} (got ${a.value})`,
    'config.not_a_choice': (a) => `${a.field} must be one of ${a.choices} (got '${a.value}')`,
    'config.expects_whole': (a) => `${a.field} expects a whole number, got '${a.value}'`,
    'config.expects_number': (a) => `${a.field} expects a number, got '${a.value}'`,
    'config.seq2seq_block_min': 'block_size must be at least 2 for seq2seq (a target needs BOS and one byte)',
    'config.seq2seq_block_max': (a) => `block_size must be at most 4096 for seq2seq (got ${a.value})`,
    'config.heads_divide': (a) => `n_embd ${a.n_embd} is not divisible by n_head ${a.n_head} (each head gets n_embd / n_head channels)`,
    'config.min_lr_above': (a) => `min_lr ${a.min_lr} is above learning_rate ${a.learning_rate}`,
    'config.warmup_longer': (a) => `warmup_iters ${a.warmup_iters} is longer than max_iters ${a.max_iters}`,
    'config.memory': (a) => `this configuration needs about ${a.need_mib} MiB, more than the ${a.limit_mib} MiB allowed: ` +
      'reduce batch_size, block_size, n_embd or n_layer',
    'config.fixed': (a) => `${a.field} is fixed once the model exists (start a new run to change it)`,
    'config.max_iters_done': (a) => `max_iters must be above the steps already done (${a.step})`,
    'config.max_iters_warmup': (a) => `max_iters must be at least warmup_iters (${a.warmup_iters})`,
    // data
    'config.not_a_number': (a) => `${a.field} must be a number`,
    'config.not_a_string': (a) => `${a.field} must be a string`,
    'corpus.empty': 'the corpus is empty: give a file with some text in it',
    'corpus.too_short': (a) => `the corpus has ${a.bytes} bytes, fewer than context + 1 = ${a.needed}: use a longer text or a shorter context`,
    'pairs.empty': 'the pair file is empty: give lines of source<TAB>target',
    'pairs.none_usable': (a) => `no usable source<TAB>target pair: ${pairsReport(a)}. ` +
      'Each line must be the source text, one tab, then the target text.',
    'pairs.report': pairsReport,
    'corpus.cannot_open': (a) => `cannot open ${a.path}`,
    'corpus.file_gone': (a) => `the data file ${a.path} is gone: training paused, nothing was lost. Drop it again to go on`,
    'corpus.file_changed': (a) => `the data file ${a.path} changed while training: training paused, nothing was lost. Drop it again to go on`,
    'corpus.file_unreadable': (a) => `cannot read the data file ${a.path}: training paused, nothing was lost`,
    'corpus.vocab': (a) => `the corpus holds token ${a.token}, outside the model's vocabulary of ${a.vocab}: these shards were made with another tokenizer`,
    'corpus.other_size': (a) => `this run was trained on a corpus of ${a.was} tokens; this one has ${a.is}`,
    'corpus.other_content': (a) => `this run was trained on another corpus of the same size (${a.size} tokens): its fingerprint was ${a.was}, this one's is ${a.is}`,
    'pairs.not_in_memory': "a translator's pairs are read whole: give them as a TSV file, not as shards",
    'shard.bad_magic': (a) => `${a.name} is not an llm.c token shard: its header does not start with 20240520`,
    'shard.bad_version': (a) => `${a.name} is a token shard of version ${a.version}, which this tinygpt does not read (1: uint16 tokens, 2: uint32)`,
    'shard.bad_count': (a) => `${a.name}'s header says ${a.tokens} tokens, which does not match the file's ${a.bytes} bytes`,
    'shard.mixed': (a) => `the shards mix two tokenizers: ${a.a} and ${a.b} hold tokens of different widths`,
    'shard.none': (a) => (a.path ? `${a.path} holds no token shards (files named *_train_*.bin or *_val_*.bin)`
      : 'no token shards for training: llm.c\'s shards are named *_train_*.bin and *_val_*.bin'),
    'data.no_corpus': 'no corpus: load a text first',
    'data.no_pairs': 'no pairs: load a TSV of source<TAB>target lines or a built-in task first',
    'model.not_gpt': (a) => `this run's model is a ${a.kind} translation model, not a language model`,
    'model.not_seq2seq': (a) => `this run's model is a language model (${a.kind}), not a seq2seq translation model`,
    'model.other_kind': (a) => `this run's model is ${a.kind}, not ${a.wanted}`,
    'data.stateful_short': (a) => 'a stateful run reads the text as batch_size streams of at least block_size + 1 bytes: ' +
      `its training split has ${a.bytes} bytes, it needs ${a.need}`,
    // the sniffer
    'sniff.empty': (a) => `${who(a)} is empty: there is nothing to learn from. Choose a file with some text in it.`,
    'sniff.checkpoint': (a) => `${who(a)} is a tinygpt checkpoint.`,
    'sniff.not_checkpoint': (a) => `${who(a)} is named like a checkpoint but is not one: it does not start with TGPTCKPT ` +
      '(a checkpoint from another program, or another file renamed). Nothing was loaded.',
    'sniff.utf8_text': (a) => `${who(a)} is UTF-8 text.`,
    'sniff.utf8_damaged': (a) => `${who(a)} is UTF-8 text with ${a.invalid} invalid byte sequences; they are kept as bytes.`,
    'sniff.tsv_pairs': (a) => `${who(a)} holds tab-separated pairs (${a.lines} lines "source<TAB>target" in the first ${a.bytes} bytes): ` +
      'input for a translation model. This model trains on it as plain text.',
    'sniff.tsv_pairs_bad': (a) => `${who(a)} holds tab-separated pairs, with ${a.bad} bad ${Number(a.bad) === 1 ? 'line' : 'lines'}: ` +
      `${a.lines} of the ${a.all} lines in the first ${a.bytes} bytes are "source<TAB>target", the others are not ` +
      `(${Number(a.bad) === 1 ? 'line' : 'lines'} ${a.bad_lines}). Input for a translation model, which skips the bad lines. ` +
      'This model trains on it as plain text.',
    'sniff.low_entropy': (a) => `${who(a)} is text with almost no variety: ${a.distinct} distinct byte ${Number(a.distinct) === 1 ? 'value' : 'values'}, ` +
      `${a.bits} bits per byte (English prose has about 4.5). A model learns next to nothing from it.`,
    'sniff.latin1_text': (a) => `${who(a)} is not UTF-8 but reads as ${a.encoding} text (${a.high_bytes} bytes are accented letters ` +
      'or symbols in that encoding). Convert it to UTF-8, or train on its bytes as they are.',
    'sniff.utf16_text': (a) => `${who(a)} is UTF-16 text (${a.encoding}, with a byte order mark). The model learns from bytes: ` +
      'convert it to UTF-8 (same characters, fewer bytes) or train on its bytes as they are.',
    'sniff.binary_nul': (a) => `${who(a)} looks like a binary file, not text (${a.count} NUL ${Number(a.count) === 1 ? 'byte' : 'bytes'}). ` +
      'The model reads bytes, so it can still learn from it, but samples and previews will be mostly hex.',
    'sniff.binary_control': (a) => `${who(a)} looks like a binary file, not text (${a.count} control bytes). ` +
      'The model reads bytes, so it can still learn from it, but samples and previews will be mostly hex.',
    'sniff.binary_invalid': (a) => `${who(a)} looks like a binary file, not text (${a.percent}% of it is not valid UTF-8, nor a Latin-1 text). ` +
      'The model reads bytes, so it can still learn from it, but samples and previews will be mostly hex.',
    // checkpoints
    'checkpoint.not_checkpoint': 'not a tinygpt checkpoint: the file does not start with the TGPTCKPT magic bytes',
    'checkpoint.too_short': (a) => `not a tinygpt checkpoint: the file is only ${a.bytes} bytes long`,
    'checkpoint.truncated': 'checkpoint is truncated: the file ends before its contents do',
    'checkpoint.trailing': (a) => `checkpoint has ${a.extra} unexpected bytes after its end`,
    'checkpoint.corrupt': 'checkpoint is corrupt: its contents do not match its structure or checksum',
    'checkpoint.inconsistent': 'checkpoint is inconsistent: its history does not match its state',
    'checkpoint.not_finite': 'checkpoint contains NaN or Inf values',
    'checkpoint.version': (a) => `checkpoint version ${a.version} is not supported (this build reads versions 1 and ${a.supported})`,
    'checkpoint.newer': (a) => `checkpoint sets '${a.field}', which this build of tinygpt does not know: it was written by a newer version`,
    'checkpoint.invalid_config': (a) => `checkpoint has an invalid config: ${a.problem}`,
    // looking inside
    'inspect.empty': 'inspect: give at least one byte of text',
    'inspect.no_source': 'give a source text to look inside',
    'inspect.source_long': (a) => `the source is ${a.bytes} bytes, longer than block_size (${a.limit})`,
    'inspect.target_long': (a) => `the target is ${a.bytes} bytes; at most block_size - 1 = ${a.limit} fit`,
    'watch.probe_long': (a) => `the probe's source may have at most ${a.source} bytes and its target ${a.target}`,
    'watch.probe_empty': 'the probe text is empty',
    'checkpoint.corpus_short': (a) => `the current corpus is shorter than this checkpoint's block_size + 1 (${a.needed} bytes)`,
    'sample.model_changed': 'the model was trained since beginGeneration(): start a new generation',
    'tree.replaced': 'the model was replaced: start a new generation tree',
    'tree.stale': (a) => `the model has trained since this tree was grown (step ${a.step}, now ${a.now}): grow it again`,
    // sampling and translating
    'sample.temperature': 'temperature must be between 0 and 100',
    'sample.top_k': (a) => `top-k must be between 0 (off) and ${a.max}`,
    'sample.top_p': 'top-p must be in (0, 1] (1 = off)',
    'sample.window_keep': (a) => `window_keep must be between 0 (default: half the context) and the context (${a.max})`,
    'sample.negative_length': 'the number of bytes to generate must be >= 0',
    'translate.empty': 'translate: the source is empty',
    'translate.source_long': (a) => `translate: the source has ${a.bytes} bytes; this model reads at most ${a.limit}`,
    'translate.beam': 'beam width must be between 1 and 64',
    'translate.sampling_and_beam': 'sampling (temperature > 0) and beam search exclude each other',
    'translate.length_penalty': 'length penalty must be between 0 and 10',
    'translate.max_len': (a) => `max_len must be between 0 (the model's limit) and ${a.max}`,
    // the NaN guard
    'train.diverged_loss': (a) => `training diverged at step ${a.step}: the loss is ${a.loss}`,
    'train.diverged_norm': (a) => `training diverged at step ${a.step}: the gradient norm is ${a.norm}`,
    'train.diverged_high': (a) => `training diverged at step ${a.step}: the loss is ${a.loss}, worse than ${a.limit} (4 x a uniform guess)`,
    'train.paused': (a) => `training diverged at step ${a.step}; training paused after ${a.rollbacks} rollbacks in a row ` +
      `(the learning rate is now ${a.lr_scale} x the schedule's): lower learning_rate or raise grad_clip, then continue`,
    // the thread tuner
    'threads.only': (a) => `${a.threads} ${Number(a.threads) === 1 ? 'thread' : 'threads'}: the only count this build and machine offer`,
    'threads.timing_first': (a) => `timing ${a.threads} ${Number(a.threads) === 1 ? 'thread' : 'threads'} first`,
    'threads.timing': (a) => `timing ${a.threads} ${Number(a.threads) === 1 ? 'thread' : 'threads'}${tunerTrigger(a)}`,
    'threads.chosen': (a) => {
      const others: string[] = [];
      for (let i = 0; i < Number(a.others); i++) {
        const n = a[`other_${i}_threads`];
        others.push(`${n} ${Number(n) === 1 ? 'thread' : 'threads'}: ${a[`other_${i}_ms`]} ms/step`);
      }
      return `${a.threads} ${Number(a.threads) === 1 ? 'thread' : 'threads'}: ${a.ms} ms/step` +
        (others.length ? ` (${others.join(', ')})` : '') + `, chosen at step ${a.step}${tunerTrigger(a)}`;
    },
    // run links and their replay
    'share.not_a_link': 'this is not a tinygpt run link (it has no tinygpt=1 field)',
    'share.version': (a) => `this run link is of version ${a.version}; this tinygpt reads version ${a.supported}`,
    'share.malformed': 'the link is malformed: a field without a value, or a field given twice',
    'share.bad_corpus': "the link's corpus must be builtin:NAME or fnv:<16 hex digits>:<size>",
    'share.bad_losses': "the link's losses are damaged (cut off, not base64url, or too many)",
    'share.no_corpus': 'the link does not say which text the run trained on (corpus=...)',
    'share.wrong_kind': (a) => `the link gives ${a.field}, which a ${a.model} model does not have`,
    'replay.diverged': (a) => `differs from the shared run at step ${a.step}: loss ${a.run_loss} here, ${a.link_loss} in the link` +
      (has(a, 'link_variant') ? `; over the first ${a.compared_steps} steps the losses differ by at most ${a.max_difference}` : '') +
      variantNote(a),
    'replay.no_losses': 'the link holds no losses to compare with',
    'replay.matches': (a) => `matches the shared run at step ${a.step}: the first ${a.step} losses are identical, bit for bit${variantNote(a)}`,
    'replay.so_far': (a) => `matches the shared run so far (step ${a.compared} of ${a.expected})${variantNote(a)}`,
    // the tokenizer
    'tokenizer.vocab_range': (a) => `a vocabulary of ${a.vocab} tokens: choose 256 (bytes) to 65,536`,
    'tokenizer.vocab_too_large': (a) => `this text supports only ${a.merges} merges (a vocabulary of ${a.possible}), not the vocabulary of ` +
      `${a.vocab} asked for: every other pair of tokens occurs once at most. Choose a smaller vocabulary or a longer text`,
    'tokenizer.empty_text': 'the text to learn a vocabulary from is empty',
    'tokenizer.not_text': 'a vocabulary is learned from a text, and these are token shards',
    'tokenizer.not_tokenizer': (a) => `${a.name} is not a tinygpt tokenizer (it does not start with TGPTTOKN)`,
    'tokenizer.version': (a) => `${a.name} is a tokenizer of format version ${a.version}, which this tinygpt does not read (a newer tinygpt wrote it?)`,
    'tokenizer.truncated': (a) => `${a.name} ends early (${a.bytes} bytes): the tokenizer was cut off`,
    'tokenizer.corrupt': (a) => `${a.name} is damaged: its contents do not match its checksum`,
    'tokenizer.inconsistent': (a) => `${a.name} is not a consistent tokenizer: ${a.what}`,
    'tokenizer.bad_json': (a) => `${a.name} is not a tokenizer file tinygpt can read: ${a.what}`,
    'tokenizer.unsupported': (a) => `${a.name} is a kind of tokenizer tinygpt does not read (it reads byte-level BPE, as GPT-2's): ${a.what}`,
    'tokenizer.bad_merges': (a) => `${a.name}, line ${a.line}: a merge is two tokens separated by one space`,
    'tokenizer.unknown_id': (a) => `token ${a.id} is not in this vocabulary of ${a.count} ids`,
    'tokenizer.no_files': (a) => `no tokenizer at ${a.path}: give a tokenizer.json, a tinygpt tokenizer, or GPT-2's vocab.json with merges.txt beside it`,
    // a run's tokenizer
    'config.bytes_vocab': (a) => `vocab_size must be 256 with tokenizer bytes (got ${a.value}): choose tokenizer bpe for a larger vocabulary`,
    'config.bpe_vocab': 'tokenizer bpe needs a vocab_size above 256 (256 is the bytes alone: tokenizer bytes)',
    'tokenizer.config_mismatch': (a) => `this tokenizer has ${a.tokens} tokens; the run's config says tokenizer ${a.tokenizer}, vocab_size ${a.vocab}`,
    'tokenizer.missing': (a) => `this run reads BPE tokens (vocab_size ${a.vocab}) but has no tokenizer: train one on the text or load its tokenizer.json first`,
    'tokenizer.fixed': 'the tokenizer is fixed once the run has trained (start a new run to change it)',
    'tokenizer.translator_specials': 'a translator reads BOS, EOS and PAD right after the text tokens: this tokenizer numbers its special tokens otherwise',
    'tokenizer.model_mismatch': (a) => `the tokenizer has ${a.tokens} tokens, the model's vocabulary ${a.vocab}`,
    'checkpoint.tokenizer_missing': (a) => `this checkpoint's run reads BPE tokens (vocab_size ${a.vocab}) but the file has no tokenizer: ` +
      'without it no text can be read or written (load its tokenizer.json, or train anew)',
    'checkpoint.tokenizer_damaged': (a) => `checkpoint's tokenizer section is damaged: ${a.problem}`,
    'safetensors.tokenizer_missing': (a) => `safetensors: the model reads BPE tokens (vocab_size ${a.vocab}) but its metadata has no ` +
      '"tokenizer.json": without it no text can be read or written',
    'watch.bytes_only': 'the run\'s history (the page\'s watch views) of a translator reads bytes: a BPE translator trains without it for now',
    'share.bad_tokenizer': "the link's tokenizer (tok=) or tokens per byte (tpb=) is damaged, or disagrees with its settings",
    'share.other_tokenizer': (a) => `this run's tokenizer (fingerprint ${a.run}) is not the shared run's (${a.link}): the replay would not be the shared run`,
    'replay.diverged_bpb': (a) => `differs from the shared run at step ${a.step}: ${a.run_bpb} bits per byte here, ${a.link_bpb} in the link ` +
      `(loss ${a.run_loss} / ${a.link_loss} nats per token)` +
      (has(a, 'link_variant') ? `; over the first ${a.compared_steps} steps the losses differ by at most ${a.max_difference}` : '') +
      variantNote(a),
    // the wasm layer
    'wasm.out_of_memory': 'out of memory: the browser could not give the model more memory',
    // exports and imports (core export*.cpp)
    'export.head_bias': 'gguf: llama.cpp\'s gpt2 has no head bias, and this model\'s is not zero: train with the GPT-2 layout ' +
      '(tie_weights 1) for llama.cpp, or export ONNX',
    'export.not_gpt2': 'hf: a Hugging Face GPT-2 has its head tied to the token embedding and no head bias, and this model has ' +
      'a head of its own (tie_weights 0): export it as ONNX, or train with the GPT-2 layout (tie_weights 1)',
    'import.no_config': (a) => `no config.json among the files (${a.files}): a Hugging Face model folder has config.json beside model.safetensors`,
    'import.model_type': (a) => `config.json says model_type "${a.model_type}": tinygpt reads GPT-2's layout (model_type gpt2) only`,
    'import.unsupported': (a) => `config.json: ${a.what}`,
    'import.no_weights': 'no model.safetensors beside config.json (tinygpt reads the weights in safetensors, not pytorch_model.bin)',
    'import.missing_tensor': (a) => `model.safetensors has no tensor ${a.name}`,
    'import.shape': (a) => `model.safetensors: ${a.name} is ${a.got} but config.json makes it ${a.want}`,
    'import.tokenizer': (a) => `${has(a, 'file') ? a.file : 'tokenizer.json'}: ${a.what}`,
    'import.export_format': (a) => `${a.name} is ${a.format === 'gguf' ? 'a GGUF' : 'an ONNX'} file, a format tinygpt exports for ` +
      `${a.format === 'gguf' ? 'llama.cpp' : 'ONNX Runtime and transformers.js'} and does not read back: load a checkpoint (.ckpt), ` +
      'a model file (.safetensors) or a Hugging Face GPT-2 folder (config.json with model.safetensors)',
    // the worker's own
    'worker.loading': 'the module is still loading',
    'worker.no_model': 'no model yet: press Start to create one',
    'worker.no_corpus': 'no corpus: choose a text first',
    'worker.no_pairs': 'no pairs: choose a task or a file of pairs first',
    'worker.choose_text': 'choose a text first',
    'worker.tree_gone': 'that generation tree is gone: begin again',
    'worker.tree_stale': (a) => `the model has trained since this tree was grown (step ${a.step}): begin again`,
    'worker.inspect_empty': 'give some text to look inside (at least one byte)',
    'worker.not_recurrent': 'the hidden-state view needs an rnn, gru or lstm model',
    'tokens.cancelled': 'learning the vocabulary was cancelled: the model was not created',
    'tokens.two_files': 'give one tokenizer file (tokenizer.json, a tinygpt tokenizer), or GPT-2\'s vocab.json and merges.txt together',
    'tokens.none': 'the run reads bytes: choose BPE, or learn or load a vocabulary',
    'variant.requested': (a) => `variant ${a.variant} requested`,
    'variant.not_isolated': 'the page is not cross-origin isolated (no SharedArrayBuffer), so one thread',
    'variant.no_threads': 'this browser lacks wasm threads',
    'variant.no_simd': 'this browser has no WebAssembly SIMD',
    'variant.threads_need_isolation': 'threads need a cross-origin isolated page',
    'variant.load_failed': (a) => `the ${a.variant} build failed to load`,
    'gpu.off_requested': '?backend=wasm asks for the CPU build',
    'gpu.not_available': 'WebGPU is not available in this browser',
    'gpu.no_adapter': 'WebGPU found no GPU adapter',
    'gpu.no_device': 'WebGPU could not create a device',
    'gpu.device_lost': 'the GPU device was lost',
    'gpu.lstm_seq2seq': 'the LSTM translator has no GPU plan: it trains on the CPU',
    'gpu.recurrent': 'a recurrent model (rnn, gru, lstm) has no GPU plan: it trains on the CPU',
    'gpu.limits': "the model does not fit this GPU's limits",
    'gpu.out-of-memory': 'the GPU could not allocate the memory the model needs',
    'gpu.pipeline': 'a GPU kernel failed to build',
    'gpu.internal': 'WebGPU reported an error',
    'gpu.unavailable': 'WebGPU is not available',
    'gpu.device-lost': 'the GPU device was lost',
    'gpu.generate_lost': 'the GPU gave up; generate again (now on the CPU)',
  }),
};
