// messages.cpp — the codes of the core's coded messages (error.h). The page words each one in
// every language it has (web/src/i18n/*/errors.ts); a web test compares its catalogues with this
// list (wasm messageCodes()), so a new code here without a wording fails CI.
#include <algorithm>

#include "tinygpt/error.h"

namespace tinygpt {

const std::vector<std::string_view>& message_codes() {
  static const std::vector<std::string_view> codes = {
      // config fields and the rules between them (config.cpp, trainer.cpp); args name the field(s)
      "config.unknown_field", "config.unknown_field_near", "config.not_finite", "config.not_whole", "config.no_choice",
      "config.range", "config.not_a_choice", "config.expects_whole", "config.expects_number",
      "config.seq2seq_block_min", "config.seq2seq_block_max", "config.heads_divide", "config.min_lr_above",
      "config.warmup_longer", "config.memory", "config.fixed", "config.max_iters_done", "config.max_iters_warmup",
      "config.not_a_number", "config.not_a_string",  // a field of the wrong JS type (wasm/common.cpp)
      // data (data.cpp, pairs.cpp, trainer.cpp)
      "corpus.empty", "corpus.too_short", "pairs.empty", "pairs.none_usable", "pairs.report", "data.no_corpus",
      "data.no_pairs", "model.not_gpt", "model.not_seq2seq", "model.other_kind",
      "data.stateful_short",  // a stateful recurrent run's B streams do not fit the text (trainer.cpp)
      // a corpus read where it lies (source.cpp), llm.c token shards (shards.cpp), resuming on other data
      "corpus.cannot_open", "corpus.file_gone", "corpus.file_changed", "corpus.file_unreadable", "corpus.vocab",
      "corpus.other_size", "corpus.other_content", "pairs.not_in_memory", "shard.bad_magic", "shard.bad_version", "shard.bad_count", "shard.mixed", "shard.none",
      // what the sniffer makes of a file (sniff.cpp): "sniff." + the file kind, or a variant of it
      "sniff.empty", "sniff.checkpoint", "sniff.not_checkpoint", "sniff.utf8_text", "sniff.utf8_damaged",
      "sniff.tsv_pairs", "sniff.latin1_text", "sniff.utf16_text", "sniff.binary_nul", "sniff.binary_control",
      "sniff.binary_invalid", "sniff.tsv_pairs_bad", "sniff.low_entropy",
      // checkpoints (checkpoint.cpp)
      "checkpoint.not_checkpoint", "checkpoint.too_short", "checkpoint.truncated", "checkpoint.trailing",
      "checkpoint.corrupt", "checkpoint.inconsistent", "checkpoint.not_finite", "checkpoint.version",
      "checkpoint.newer", "checkpoint.invalid_config",
      "checkpoint.corpus_short",  // the loaded run's context is longer than the text there is (wasm/runs.cpp)
      // a generation or a generation tree the model moved on from (wasm/sample.cpp, wasm/watch.cpp)
      "sample.model_changed", "tree.replaced", "tree.stale",
      // looking inside (trainer.cpp): the text or the pair to inspect, the history's probe
      "inspect.empty", "inspect.no_source", "inspect.source_long", "inspect.target_long", "watch.probe_long",
      "watch.probe_empty",
      // sampling and translating options, the source to translate (sample.cpp, translate.cpp)
      "sample.temperature", "sample.top_k", "sample.top_p", "sample.window_keep", "sample.negative_length",
      "translate.empty", "translate.source_long", "translate.beam", "translate.sampling_and_beam",
      "translate.length_penalty", "translate.max_len",
      // the NaN guard (trainer.cpp, run.cpp, gpu_host.cpp)
      "train.diverged_loss", "train.diverged_norm", "train.diverged_high", "train.paused",
      // the thread tuner's last decision (runtime.cpp), shown on the runtime badge
      "threads.only", "threads.timing_first", "threads.timing", "threads.chosen",
      // run links and their replay (share.cpp)
      "share.not_a_link", "share.version", "share.malformed", "share.bad_corpus", "share.bad_losses",
      "share.no_corpus", "share.wrong_kind", "replay.diverged", "replay.no_losses", "replay.matches", "replay.so_far",
      // the tokenizer (tokenizer_train.cpp, tokenizer_io.cpp, tokenizer.cpp)
      "tokenizer.vocab_range", "tokenizer.vocab_too_large", "tokenizer.empty_text", "tokenizer.not_tokenizer",
      "tokenizer.version", "tokenizer.truncated", "tokenizer.corrupt", "tokenizer.inconsistent", "tokenizer.bad_json",
      "tokenizer.unsupported", "tokenizer.bad_merges", "tokenizer.unknown_id", "tokenizer.no_files", "tokenizer.not_text",
      // a run's tokenizer (config.cpp, trainer.cpp, checkpoint.cpp, safetensors.cpp, translate.cpp)
      "config.bytes_vocab", "config.bpe_vocab", "tokenizer.config_mismatch", "tokenizer.missing", "tokenizer.fixed",
      "tokenizer.translator_specials", "tokenizer.model_mismatch", "checkpoint.tokenizer_missing",
      "checkpoint.tokenizer_damaged", "safetensors.tokenizer_missing", "watch.bytes_only",
      "share.bad_tokenizer", "share.other_tokenizer", "replay.diverged_bpb",
      // the wasm layer (wasm/common.h)
      "wasm.out_of_memory",
      // exports and imports (export*.cpp): a model a format cannot hold, a Hugging Face folder read back
      "export.head_bias", "export.not_gpt2", "import.no_config", "import.model_type", "import.unsupported", "import.no_weights",
      "import.missing_tensor", "import.shape", "import.tokenizer", "import.export_format",
  };
  return codes;
}

bool is_message_code(std::string_view code) {
  const auto& codes = message_codes();
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

Message coded(std::string_view code, MessageArgs args, std::string text) {
  // An unlisted code would reach the page without a wording: the message goes uncoded (the page
  // shows its English), and web/test/core-messages.test.ts fails on the code in the sources.
  if (!is_message_code(code)) return {"", {}, std::move(text)};
  return {std::string(code), std::move(args), std::move(text)};
}

}  // namespace tinygpt
