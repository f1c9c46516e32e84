import type { tokens as en } from '../en/tokens';

export const tokens: typeof en = {
  title: '词元',
  explain: '模型读到的是什么。按字节读时，每个字节就是一个 token；从训练文本学到的 BPE 词表把最常相邻出现的两个 token 合并成新的 token，' +
    '一次合并一对，于是一个 token 能装下好几个字节，同样的算力能看到更多文本。逐步查看这些合并，可以看到文本被切成越来越长的 token。',
  bytesOnly: '这次训练按字节读：256 个 token，每个字节值一个。请在设置中选择 BPE，或在这里学习或载入一个词表。',
  summary: (vocab, merges, how) => `BPE：${vocab} 个 token（256 个字节加 ${merges} 次合并），${how}。`,
  fromModel: '属于这个模型',
  learned: (bytesPerToken) => `从训练文本学得（在该文本上每个 token 平均 ${bytesPerToken} 字节）`,
  loaded: (name) => `载入自 ${name}`,
  vocabLabel: '词表大小',
  train: '从文本学习',
  load: '载入词表文件…',
  cancel: '取消',
  counting: (percent) => `正在读取文本：${percent}%`,
  merging: (done, total) => `正在合并：${done} / ${total}`,
  textLabel: '一段文本，按模型读它的方式切分',
  chipTitle: (id, bytes) => `token ${id}，${bytes} 字节`,
  rate: (tokens, bytes, perByte) => `${bytes} 字节切成 ${tokens} 个 token：每字节 ${perByte} 个 token`,
  mergesTitle: '按学习顺序排列的合并',
  mergesExplain: '每次合并把两个 token 连成一个新的；次数是合并时这一对在训练文本中出现的次数。上面的文本按滑块所在位置之前的合并来切分。',
  stepLabel: '已应用的合并',
  prev: '少一次合并',
  next: '多一次合并',
  stepNote: (step, merges) => `${step} / ${merges}`,
  mergeCount: (id, count) => (count ? `token ${id}，出现 ${count} 次` : `token ${id}`),
  wordLabel: '输入一个词，看它怎样被切分',
};
