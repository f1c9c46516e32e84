// terms.ts — the Latin-script words the Chinese page may show: names of things (formats, APIs,
// programs, functions, units) that Chinese technical writing keeps as they are. The catalogue
// test (web/test/i18n.test.ts) allows only these in zh-CN messages, and the zh-CN e2e pass
// (tests/e2e/i18n.e2e.test.ts) allows only these (and snake_case identifiers such as n_embd)
// in the page's text outside data the person gave or the model wrote (marked translate="no",
// or code/kbd/pre/samp elements).
// A word here is matched case-sensitively as written.
export const TERMS: readonly string[] = [
  // the project, programs, platforms
  'tinygpt', 'GPT', 'JavaScript', 'WebAssembly', 'wasm', 'WebGPU', 'Web', 'Worker', 'IndexedDB', 'PyTorch', 'Python', 'CLI',
  'C++', 'CPU', 'GPU', 'SIMD', 'SIMD128', 'scalar', 'simd', 'threads', 'AVX', 'SSE', 'Chromium', 'Chrome', 'SwiftShader',
  'auto', 'Node', 'simd128', 'avx512', 'avx2', 'sse2', 'sse', 'neon',   // kernel sets the core names (runtime badge)
  // model and math
  'AdamW', 'Adam', 'LayerNorm', 'GELU', 'ReLU', 'softmax', 'token', 'tokens', 'logits', 'MLP', 'FFN', 'Q', 'K', 'V', 'BOS', 'EOS',
  'PAD', 'CER', 'NaN', 'Transformer', 'bigram', 'unigram', 'nats', 'bits', 'lr', 'exp', 'log', 'ln', 'max', 'min', 'mean',
  'var', 'sqrt', 'eps', 'tanh', 'erf', 'RNN', 'GRU', 'LSTM', 'Luong', 'BPE', 'TGPTTOKN',
  // keys (as written on the keyboard)
  'Ctrl', 'Enter', 'Ctrl+Enter',
  // formats and units
  'TSV', 'UTF', 'ASCII', 'Latin', 'Windows', 'ckpt', 'tsv', 'txt', 'safetensors', 'json', 'KiB', 'MiB', 'GiB', 'TiB', 'KB', 'MB', 'GB',
  'ms', 'URL', 'bin', 'uint16', 'uint32', 'utf', 'OPFS',
  // export formats and the tools that read them (docs/export.md)
  'ONNX', 'GGUF', 'gguf', 'onnx', 'llama', 'cpp', 'gpt2', 'Hugging', 'Face', 'transformers', 'js', 'Runtime', 'zip', 'f32', 'f16', 'q8_0',
  // the files of a Hugging Face model folder, by name (config.json, model.safetensors)
  'config', 'model',
  // llm.c (Karpathy's C trainer, whose token shards the page reads and writes) and the command that converts encodings
  'llm', 'iconv',
  // the parts of llm.c's shard names (*_train_*.bin, *_val_*.bin) that say which split a shard is
  'train', 'val',
];
