import { type CoreArgs, coreWordings, has } from '../core-args';
import type { errors as en } from '../en/errors';

const who = (a: CoreArgs) => (`${a.name}` === '' ? '此文件' : `“${a.name}”`);
const lineList = (lines: string) => `（第 ${lines} 行）`;

/** 句对文件的读取报告（TsvReport::summary）。 */
function pairsReport(a: CoreArgs): string {
  const n = (k: string) => Number(a[k]);
  let s = `从 ${a.lines} 行中读出 ${a.pairs} 个句对`;
  const skipped: string[] = [];
  if (n('no_tab')) skipped.push(`${a.no_tab} 行没有制表符${lineList(a.no_tab_lines)}`);
  if (n('empty_side')) skipped.push(`${a.empty_side} 行的源文本或目标文本为空${lineList(a.empty_side_lines)}`);
  if (n('too_long')) {
    skipped.push(`${a.too_long} 行超过模型的长度上限（源文本 ${a.source_limit} 字节、目标文本 ${a.target_limit} 字节）` +
      lineList(a.too_long_lines));
  }
  if (n('blank')) skipped.push(`${a.blank} 个空行`);
  if (skipped.length) s += `；跳过：${skipped.join('，')}`;
  if (n('extra_columns')) s += `；${a.extra_columns} 行多于两列（只用前两列）${lineList(a.extra_column_lines)}`;
  return s;
}

const variantNote = (a: CoreArgs) => (has(a, 'link_variant')
  ? `（链接生成于 ${a.link_variant}，这里是 ${a.variant}：只有在同一构建变体上，运行结果才逐位相同）` : '');
const binary = '模型读取的是字节，所以仍然可以从中学习，但样本和预览大多会显示为十六进制。';

const tunerTrigger = (a: CoreArgs) => {
  if (!has(a, 'trigger')) return '';
  return has(a, 'from_ms') ? `（步耗时从 ${a.from_ms} 毫秒变慢到 ${a.to_ms} 毫秒）` : '（定期复查）';
};

export const errors: typeof en = {
  coreSays: '核心报告（英文原文）：',
  core: coreWordings({
    'config.unknown_field': (a) => `没有名为“${a.field}”的配置项`,
    'config.unknown_field_near': (a) => `没有名为“${a.field}”的配置项（是不是 ${a.near}？）`,
    'config.not_finite': (a) => `${a.field} 必须是有限的数`,
    'config.not_whole': (a) => `${a.field} 必须是整数（输入的是 ${a.value}）`,
    'config.no_choice': (a) => `${a.field} 没有编号为 ${a.value} 的选项`,
    'config.range': (a) => `${a.field} 必须在 ${a.range} 范围内（输入的是 ${a.value}）`,
    'config.not_a_choice': (a) => `${a.field} 只能是 ${a.choices} 之一（输入的是“${a.value}”）`,
    'config.expects_whole': (a) => `${a.field} 需要一个整数，输入的是“${a.value}”`,
    'config.expects_number': (a) => `${a.field} 需要一个数，输入的是“${a.value}”`,
    'config.seq2seq_block_min': '翻译模型的上下文长度至少为 2（目标序列需要 BOS 和至少一个字节）',
    'config.seq2seq_block_max': (a) => `翻译模型的上下文长度最多为 4096（输入的是 ${a.value}）`,
    'config.heads_divide': (a) => `嵌入维度 ${a.n_embd} 不能被注意力头数 ${a.n_head} 整除（每个头分到“嵌入维度 ÷ 头数”个通道）`,
    'config.min_lr_above': (a) => `最小学习率 ${a.min_lr} 高于学习率 ${a.learning_rate}`,
    'config.warmup_longer': (a) => `预热步数 ${a.warmup_iters} 超过了总步数 ${a.max_iters}`,
    'config.memory': (a) => `该配置大约需要 ${a.need_mib} MiB 内存，超过了允许的 ${a.limit_mib} MiB：请减小批次大小、上下文长度、嵌入维度或层数`,
    'config.fixed': (a) => `模型创建后就不能再改 ${a.field}（要改请开始新的训练）`,
    'config.max_iters_done': (a) => `总步数必须大于已经完成的步数（${a.step}）`,
    'config.max_iters_warmup': (a) => `总步数不能少于预热步数（${a.warmup_iters}）`,
    'config.not_a_number': (a) => `${a.field} 必须是数`,
    'config.not_a_string': (a) => `${a.field} 必须是字符串`,
    'corpus.empty': '语料为空：请选择一个有文字内容的文件',
    'corpus.too_short': (a) => `语料只有 ${a.bytes} 字节，少于上下文长度 + 1 = ${a.needed}：请使用更长的文本或更短的上下文`,
    'pairs.empty': '句对文件为空：每行应为源文本、一个制表符、再接目标文本',
    'pairs.none_usable': (a) => `没有可用的句对：${pairsReport(a)}。每行应为源文本、一个制表符、再接目标文本。`,
    'pairs.report': pairsReport,
    'corpus.cannot_open': (a) => `无法打开 ${a.path}`,
    'corpus.file_gone': (a) => `数据文件 ${a.path} 不见了：训练已暂停，没有丢失任何内容。请重新拖入它以继续`,
    'corpus.file_changed': (a) => `数据文件 ${a.path} 在训练过程中被修改了：训练已暂停，没有丢失任何内容。请重新拖入它以继续`,
    'corpus.file_unreadable': (a) => `无法读取数据文件 ${a.path}：训练已暂停，没有丢失任何内容`,
    'corpus.vocab': (a) => `语料中有 token ${a.token}，超出了模型 ${a.vocab} 个 token 的词表：这些分片是用另一种分词器制作的`,
    'corpus.other_size': (a) => `这次运行训练时用的语料有 ${a.was} 个 token，而这份语料有 ${a.is} 个`,
    'corpus.other_content': (a) => `这次运行训练时用的是另一份同样大小（${a.size} 个 token）的语料：它的指纹是 ${a.was}，这份的是 ${a.is}`,
    'pairs.not_in_memory': '翻译模型的句对需要整体读入：请以 TSV 文件提供，而不是分片',
    'shard.bad_magic': (a) => `${a.name} 不是 llm.c 的 token 分片：它的文件头不是以 20240520 开头`,
    'shard.bad_version': (a) => `${a.name} 是版本 ${a.version} 的 token 分片，本 tinygpt 不能读取（1：uint16 token，2：uint32）`,
    'shard.bad_count': (a) => `${a.name} 的文件头说有 ${a.tokens} 个 token，与文件的 ${a.bytes} 字节不符`,
    'shard.mixed': (a) => `这些分片混用了两种分词器：${a.a} 和 ${a.b} 中 token 的宽度不同`,
    'shard.none': (a) => (a.path ? `${a.path} 中没有 token 分片（文件名为 *_train_*.bin 或 *_val_*.bin）`
      : '没有用于训练的 token 分片：llm.c 的分片文件名为 *_train_*.bin 和 *_val_*.bin'),
    'data.no_corpus': '还没有语料：请先载入文本',
    'data.no_pairs': '还没有句对：请先载入 TSV 句对文件或内置任务',
    'model.not_gpt': () => '本次训练的模型是翻译模型（编码器-解码器），不是语言模型',
    'model.not_seq2seq': () => '本次训练的模型是语言模型，不是翻译模型',
    'model.other_kind': (a) => `本次训练的模型是 ${a.kind}，不是 ${a.wanted}`,
    'data.stateful_short': (a) => `保持状态的训练把文本切成“批次大小”条、每条至少“上下文长度 + 1”字节的连续文本流：训练部分只有 ${a.bytes} 字节，需要 ${a.need} 字节`,
    'sniff.empty': (a) => `${who(a)}是空的：没有可学习的内容。请选择一个有文字内容的文件。`,
    'sniff.checkpoint': (a) => `${who(a)}是 tinygpt 检查点。`,
    'sniff.not_checkpoint': (a) => `${who(a)}的名字像检查点，但并不是：它的开头没有检查点的标识字节（可能是其他程序的检查点，或被改名的其他文件）。没有载入任何内容。`,
    'sniff.utf8_text': (a) => `${who(a)}是 UTF-8 文本。`,
    'sniff.utf8_damaged': (a) => `${who(a)}是 UTF-8 文本，其中有 ${a.invalid} 处无效的字节序列；这些字节按原样保留。`,
    'sniff.tsv_pairs': (a) => `${who(a)}包含以制表符分隔的句对（前 ${a.bytes} 字节中有 ${a.lines} 行是“源文本、制表符、目标文本”）：` +
      '这是翻译模型的输入。本模型会把它当作普通文本来训练。',
    'sniff.tsv_pairs_bad': (a) => `${who(a)}包含以制表符分隔的句对，其中有 ${a.bad} 行格式不对：前 ${a.bytes} 字节的 ${a.all} 行中，` +
      `${a.lines} 行是“源文本、制表符、目标文本”，其余的不是（第 ${a.bad_lines} 行）。这是翻译模型的输入，它会跳过格式不对的行。` +
      '本模型会把它当作普通文本来训练。',
    'sniff.low_entropy': (a) => `${who(a)}这段文本几乎没有变化：只有 ${a.distinct} 种不同的字节值，每字节 ${a.bits} 比特的信息量` +
      '（英文散文约为 4.5）。模型几乎学不到任何东西。',
    'sniff.latin1_text': (a) => `${who(a)}不是 UTF-8，而是 ${a.encoding} 文本（有 ${a.high_bytes} 个字节是该编码中的重音字母或符号）。` +
      '请把它转换为 UTF-8，或直接用它的字节训练。',
    'sniff.utf16_text': (a) => `${who(a)}是 UTF-16 文本（${a.encoding}，带字节顺序标记）。模型从字节学习：` +
      '可以把它转换为 UTF-8（字符相同，字节更少），也可以直接用它的字节训练。',
    'sniff.binary_nul': (a) => `${who(a)}看起来是二进制文件，不是文本（有 ${a.count} 个零字节）。${binary}`,
    'sniff.binary_control': (a) => `${who(a)}看起来是二进制文件，不是文本（有 ${a.count} 个控制字节）。${binary}`,
    'sniff.binary_invalid': (a) => `${who(a)}看起来是二进制文件，不是文本（${a.percent}% 的内容既不是有效的 UTF-8，也不是 Latin-1 文本）。${binary}`,
    'checkpoint.not_checkpoint': '这不是 tinygpt 检查点：文件开头没有检查点的标识字节',
    'checkpoint.too_short': (a) => `这不是 tinygpt 检查点：文件只有 ${a.bytes} 字节`,
    'checkpoint.truncated': '检查点文件不完整：文件在内容结束之前就断了（可能下载或复制时中断）',
    'checkpoint.trailing': (a) => `检查点文件末尾多出了 ${a.extra} 个字节`,
    'checkpoint.corrupt': '检查点已损坏：内容与其结构或校验和不符',
    'checkpoint.inconsistent': '检查点内容前后不一致：记录的历史与模型状态对不上',
    'checkpoint.not_finite': '检查点中含有 NaN 或无穷大的值',
    'checkpoint.version': (a) => `不支持版本 ${a.version} 的检查点（此版本只能读取版本 1 和 ${a.supported}）`,
    'checkpoint.newer': (a) => `检查点设置了此版本 tinygpt 不认识的“${a.field}”：它是由更新的版本写入的`,
    'checkpoint.invalid_config': (a) => `检查点中的配置无效（核心的说明：${a.problem}）`,
    'inspect.empty': '请给出至少一个字节的文本再查看',
    'inspect.no_source': '请给出要查看的源文本',
    'inspect.source_long': (a) => `源文本有 ${a.bytes} 字节，超过了上下文长度（${a.limit}）`,
    'inspect.target_long': (a) => `目标文本有 ${a.bytes} 字节；最多只能放下 上下文长度 - 1 = ${a.limit} 字节`,
    'watch.probe_long': (a) => `探针的源文本最多 ${a.source} 字节，目标文本最多 ${a.target} 字节`,
    'watch.probe_empty': '探针文本为空',
    'checkpoint.corpus_short': (a) => `当前语料比这个检查点的上下文长度 + 1（${a.needed} 字节）还短`,
    'sample.model_changed': '开始生成之后模型又训练过了：请重新开始生成',
    'tree.replaced': '模型已被替换：请重新生成一棵生成树',
    'tree.stale': (a) => `生成树长出之后模型又训练过了（第 ${a.step} 步，现在第 ${a.now} 步）：请重新生成`,
    'sample.temperature': '温度必须在 0 到 100 之间',
    'sample.top_k': (a) => `k 值（只从概率最高的 k 个字节中采样）必须在 0（关闭）到 ${a.max} 之间`,
    'sample.top_p': 'p 值（核采样的累计概率）必须在 (0, 1] 之间（1 表示关闭）',
    'sample.window_keep': (a) => `保留窗口必须在 0（默认：上下文的一半）到上下文长度（${a.max}）之间`,
    'sample.negative_length': '要生成的字节数不能为负',
    'translate.empty': '翻译：源文本为空',
    'translate.source_long': (a) => `翻译：源文本有 ${a.bytes} 字节；这个模型最多读取 ${a.limit} 字节`,
    'translate.beam': '束宽必须在 1 到 64 之间',
    'translate.sampling_and_beam': '采样（温度 > 0）和束搜索不能同时使用',
    'translate.length_penalty': '长度惩罚必须在 0 到 10 之间',
    'translate.max_len': (a) => `最大长度必须在 0（模型的上限）到 ${a.max} 之间`,
    'train.diverged_loss': (a) => `训练在第 ${a.step} 步发散：损失为 ${a.loss}`,
    'train.diverged_norm': (a) => `训练在第 ${a.step} 步发散：梯度范数为 ${a.norm}`,
    'train.diverged_high': (a) => `训练在第 ${a.step} 步发散：损失为 ${a.loss}，超过了 ${a.limit}（均匀猜测的 4 倍）`,
    'train.paused': (a) => `训练在第 ${a.step} 步发散；连续回滚 ${a.rollbacks} 次后已暂停（学习率现为计划值的 ${a.lr_scale} 倍）：` +
      '请降低学习率或提高梯度裁剪阈值，然后继续',
    'threads.only': (a) => `${a.threads} 个线程：这是此构建和这台机器唯一可用的线程数`,
    'threads.timing_first': (a) => `先测 ${a.threads} 个线程的步耗时`,
    'threads.timing': (a) => `正在测 ${a.threads} 个线程的步耗时${tunerTrigger(a)}`,
    'threads.chosen': (a) => {
      const others: string[] = [];
      for (let i = 0; i < Number(a.others); i++) others.push(`${a[`other_${i}_threads`]} 个线程每步 ${a[`other_${i}_ms`]} 毫秒`);
      return `${a.threads} 个线程每步 ${a.ms} 毫秒` + (others.length ? `（${others.join('，')}）` : '') +
        `，在第 ${a.step} 步选定${tunerTrigger(a)}`;
    },
    'share.not_a_link': '这不是 tinygpt 的运行链接（缺少 tinygpt=1 字段）',
    'share.version': (a) => `这个运行链接的版本是 ${a.version}；此 tinygpt 只能读取版本 ${a.supported}`,
    'share.malformed': '链接格式有误：有字段缺少值，或同一字段出现了两次',
    'share.bad_corpus': '链接中的语料字段无效',
    'share.bad_losses': '链接中的损失数据已损坏（被截断、编码错误或数量过多）',
    'share.no_corpus': '链接没有说明这次运行是用哪段文本训练的',
    'share.wrong_kind': (a) => `链接给出了 ${a.field}，但 ${a.model} 模型没有这一项`,
    'replay.diverged': (a) => `与分享的运行在第 ${a.step} 步出现差异：这里的损失为 ${a.run_loss}，链接中为 ${a.link_loss}` +
      (has(a, 'link_variant') ? `；前 ${a.compared_steps} 步的损失最多相差 ${a.max_difference}` : '') + variantNote(a),
    'replay.no_losses': '链接中没有可比较的损失',
    'replay.matches': (a) => `与分享的运行在第 ${a.step} 步一致：前 ${a.step} 个损失逐位相同${variantNote(a)}`,
    'replay.so_far': (a) => `到目前为止与分享的运行一致（第 ${a.compared} 步，共 ${a.expected} 步）${variantNote(a)}`,
    'tokenizer.vocab_range': (a) => `${a.vocab} 个 token 的词表：请选择 256（字节）到 65,536 之间的大小`,
    'tokenizer.vocab_too_large': (a) => `这段文本只够做 ${a.merges} 次合并（词表大小 ${a.possible}），达不到所要的 ${a.vocab} 个 token 的词表：` +
      '其余每对相邻 token 最多只出现一次。请选择更小的词表或更长的文本',
    'tokenizer.empty_text': '用来学习词表的文本是空的',
    'tokenizer.not_text': '词表要从文本中学习，而这些是 token 分片',
    'tokenizer.not_tokenizer': (a) => `${a.name} 不是 tinygpt 的分词器（开头不是 TGPTTOKN）`,
    'tokenizer.version': (a) => `${a.name} 是格式版本 ${a.version} 的分词器，本 tinygpt 不能读取（也许是更新的 tinygpt 写的？）`,
    'tokenizer.truncated': (a) => `${a.name} 提前结束了（${a.bytes} 字节）：分词器文件被截断了`,
    'tokenizer.corrupt': (a) => `${a.name} 已损坏：内容与校验和不符`,
    'tokenizer.inconsistent': (a) => `${a.name} 不是一个自洽的分词器：${a.what}`,
    'tokenizer.bad_json': (a) => `${a.name} 不是 tinygpt 能读取的分词器文件：${a.what}`,
    'tokenizer.unsupported': (a) => `${a.name} 这种分词器 tinygpt 不能读取（它读取字节级 BPE，如 GPT 的）：${a.what}`,
    'tokenizer.bad_merges': (a) => `${a.name} 第 ${a.line} 行：一条合并规则应是用一个空格隔开的两个 token`,
    'tokenizer.unknown_id': (a) => `token ${a.id} 不在这个共 ${a.count} 个编号的词表中`,
    'tokenizer.no_files': (a) => `${a.path} 处没有分词器：请给出分词器的 json 文件、tinygpt 分词器，或 GPT 的词表文件及其旁边的合并规则文件`,
    'config.bytes_vocab': (a) => `按字节分词时词表大小必须是 256（现在是 ${a.value}）：要更大的词表请选择 BPE`,
    'config.bpe_vocab': '用 BPE 分词时词表大小必须大于 256（256 只是字节本身，即按字节分词）',
    'tokenizer.config_mismatch': (a) => `这个分词器有 ${a.tokens} 个 token，而这次训练配置的分词方式是 ${a.tokenizer}、词表大小是 ${a.vocab}`,
    'tokenizer.missing': (a) => `这次训练读 BPE token（词表大小 ${a.vocab}），但还没有分词器：请先在文本上学习一个，或载入它的 json 文件`,
    'tokenizer.fixed': '训练开始后分词器就固定了（要换分词器请开始一次新的训练）',
    'tokenizer.translator_specials': '翻译模型要求 BOS、EOS、PAD 紧跟在文本 token 之后：这个分词器的特殊 token 编号不同',
    'tokenizer.model_mismatch': (a) => `分词器有 ${a.tokens} 个 token，而模型的词表是 ${a.vocab}`,
    'checkpoint.tokenizer_missing': (a) => `这个检查点的训练读 BPE token（词表大小 ${a.vocab}），但文件里没有分词器：没有它就无法读写文本（请载入它的 json 文件，或重新训练）`,
    'checkpoint.tokenizer_damaged': (a) => `检查点中的分词器部分已损坏（核心的说明：${a.problem}）`,
    'safetensors.tokenizer_missing': (a) => `这个模型读 BPE token（词表大小 ${a.vocab}），但其元数据中没有分词器的 json：没有它就无法读写文本`,
    'watch.bytes_only': '翻译模型的训练历史（观察学习过程的视图）按字节读：BPE 翻译模型暂时不记录历史',
    'share.bad_tokenizer': '链接中的分词器指纹或每字节 token 数已损坏，或与其设置不一致',
    'share.other_tokenizer': (a) => `这次训练的分词器（指纹 ${a.run}）不是分享的运行所用的（${a.link}）：重放不会是同一次运行`,
    'replay.diverged_bpb': (a) => `与分享的运行在第 ${a.step} 步出现差异：这里为每字节 ${a.run_bpb} bits，链接中为 ${a.link_bpb}` +
      `（每个 token 的损失为 ${a.run_loss} / ${a.link_loss} nats）` +
      (has(a, 'link_variant') ? `；前 ${a.compared_steps} 步的损失最多相差 ${a.max_difference}` : '') +
      variantNote(a),
    'wasm.out_of_memory': '内存不足：浏览器无法为模型分配更多内存',
    'export.head_bias': 'llama.cpp 的 gpt2 架构没有输出层偏置，而这个模型的偏置不为零：要在 llama.cpp 中使用，请以 GPT-2 布局（输出层与词嵌入共享权重）训练，或导出 ONNX',
    'export.not_gpt2': 'Hugging Face 的 GPT-2 输出层与词嵌入共享权重且没有偏置，而这个模型有自己的输出层：请导出为 ONNX，或以 GPT-2 布局（输出层与词嵌入共享权重）训练',
    'import.no_config': (a) => `这些文件（${a.files}）中没有 config.json：Hugging Face 的模型文件夹里 config.json 与 model.safetensors 放在一起`,
    'import.model_type': (a) => `config.json 中的模型类型是“${a.model_type}”：tinygpt 只读取 GPT-2 布局（gpt2）`,
    'import.unsupported': (a) => `config.json 中有 tinygpt 不支持的设置：${a.what}`,
    'import.no_weights': 'config.json 旁边没有 model.safetensors（tinygpt 读取 safetensors 格式的权重）',
    'import.missing_tensor': (a) => `model.safetensors 中没有张量 ${a.name}`,
    'import.shape': (a) => `model.safetensors：${a.name} 的形状是 ${a.got}，而按 config.json 应为 ${a.want}`,
    'import.tokenizer': (a) => `分词器文件${has(a, 'file') ? `（${a.file}）` : ''}：${a.what}`,
    'import.export_format': (a) => `${a.name} 是 ${a.format === 'gguf' ? 'GGUF' : 'ONNX'} 文件，这是 tinygpt 为 ` +
      `${a.format === 'gguf' ? 'llama.cpp' : 'ONNX Runtime 和 transformers.js'} 导出的格式，不能读回：请载入检查点（.ckpt）、` +
      '模型文件（.safetensors）或 Hugging Face 的 GPT-2 文件夹（config.json 与 model.safetensors）',
    'worker.loading': '模块仍在加载中',
    'worker.no_model': '还没有模型：请按“开始”创建一个',
    'worker.no_corpus': '还没有语料：请先选择文本',
    'worker.no_pairs': '还没有句对：请先选择任务或句对文件',
    'worker.choose_text': '请先选择文本',
    'worker.tree_gone': '这棵生成树已不存在：请重新开始',
    'worker.tree_stale': (a) => `生成树长出之后模型又训练过了（第 ${a.step} 步）：请重新开始`,
    'worker.inspect_empty': '请给出要查看的文本（至少一个字节）',
    'worker.not_recurrent': '隐藏状态视图需要循环模型（RNN、GRU 或 LSTM）',
    'tokens.cancelled': '已取消学习词表：模型没有创建',
    'tokens.two_files': '请给出一个分词器文件（分词器的 json 文件或 tinygpt 分词器），或同时给出 GPT 的词表文件和合并规则文件',
    'tokens.none': '这次训练按字节读：请选择 BPE，或学习、载入一个词表',
    'variant.requested': (a) => `指定了 ${a.variant} 构建`,
    'variant.not_isolated': '页面没有跨源隔离（无法使用共享内存），因此只用一个线程',
    'variant.no_threads': '此浏览器不支持 wasm 多线程',
    'variant.no_simd': '此浏览器不支持 WebAssembly SIMD',
    'variant.threads_need_isolation': '多线程需要跨源隔离的页面',
    'variant.load_failed': (a) => `${a.variant} 构建加载失败`,
    'gpu.off_requested': '网址参数要求使用 CPU 构建',
    'gpu.not_available': '此浏览器不支持 WebGPU',
    'gpu.no_adapter': 'WebGPU 没有找到 GPU 适配器',
    'gpu.no_device': 'WebGPU 无法创建设备',
    'gpu.device_lost': 'GPU 设备已丢失',
    'gpu.lstm_seq2seq': 'LSTM 翻译模型没有 GPU 方案：它在 CPU 上训练',
    'gpu.recurrent': '循环模型（RNN、GRU、LSTM）没有 GPU 方案：它在 CPU 上训练',
    'gpu.limits': '模型超出了这块 GPU 的限制',
    'gpu.out-of-memory': 'GPU 无法分配模型所需的显存',
    'gpu.pipeline': 'GPU 内核构建失败',
    'gpu.internal': 'WebGPU 报告了一个错误',
    'gpu.unavailable': 'WebGPU 不可用',
    'gpu.device-lost': 'GPU 设备已丢失',
    'gpu.generate_lost': 'GPU 出错了；请重新生成（现在在 CPU 上运行）',
  }),
};
