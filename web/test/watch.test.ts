// The page's side of the run's history (features/watch/history.ts): snapshots appended from the
// worker's events, replaced by a reset; and where validation crosses the baselines (the loss
// chart's line, features/train/panel.ts).
import { describe, expect, it } from 'vitest';

import { crossings } from '../src/features/train/panel';
import { Snapshots as Insight } from '../src/features/watch/history';
import type { Baselines, WatchMsg as InsightMsg } from '../src/features/watch/messages';

const baselines: Baselines = { unigram: 3, bigram: 2.5, uniform: 4, unigramBits: 3 / Math.LN2, bigramBits: 2.5 / Math.LN2, uniformBits: 4 / Math.LN2, distinct: 55, tokens: 1000 };

/** A message with K snapshots of a model with L = 1, NH = 2, T = 3 (A = 1 * 2 * 6), N = 2, P = 3. */
function msg(reset: boolean, steps: number[], total: number): InsightMsg {
  const K = steps.length, A = 12;
  return {
    reset, enabled: true, kind: 'gpt', L: 1, NH: 2, T: 3, N: 2, P: 3, attentionBytes: A,
    probe: new Uint8Array([97, 98, 99]), bytes: new Uint8Array([97, 98]), baselines, total, sizeBytes: total * 100,
    steps: Float64Array.from(steps),
    attention: Uint8Array.from({ length: K * A }, (_, i) => i % 256),
    embedding: Float32Array.from({ length: K * 4 }, (_, i) => i),
    probeLoss: Float32Array.from({ length: K * 3 }, (_, i) => (i % 3 === 0 ? NaN : i)),
    positionLoss: Float32Array.from({ length: K * 3 }, (_, i) => 10 + i),
    Le: 0, S: 0, probeSource: new Uint8Array(0),
    probeTokens: new Int32Array(0), mapTokens: new Int32Array(0), probeLabels: [], mapLabels: [],
    // byte 0's nearest is byte 1 (cosine 0.5) and the other way round; k = 1
    neighbours: { k: 1, step: steps[K - 1] ?? 0, index: Int32Array.from([1, 0]), similarity: Float32Array.from([0.5, 0.5]) },
  };
}

describe('the run\'s history of snapshots', () => {
  it('splits a message into snapshots and appends the next ones', () => {
    let h = Insight.apply(null, msg(true, [0, 50], 2));
    expect(h.snapshots.map((s) => s.step)).toEqual([0, 50]);
    expect([...h.snapshots[1].attention]).toEqual(Array.from({ length: 12 }, (_, i) => 12 + i));
    expect([...h.snapshots[1].embedding]).toEqual([4, 5, 6, 7]);
    expect([...h.snapshots[1].positionLoss]).toEqual([13, 14, 15]);
    const same = Insight.apply(h, msg(false, [100], 3));
    expect(same).toBe(h);
    expect(h.snapshots.map((s) => s.step)).toEqual([0, 50, 100]);
    h = Insight.apply(h, msg(true, [0], 1));
    expect(h.snapshots.map((s) => s.step)).toEqual([0]);
  });

  it('finds the packed map of a layer and head: (L, NH, T(T+1)/2)', () => {
    const h = Insight.apply(null, msg(true, [0], 1));
    expect(h.mapOffset(0, 0)).toBe(0);
    expect(h.mapOffset(0, 1)).toBe(6);
  });
});

describe('the history of a BPE language model', () => {
  it('keeps the probe\'s and the map\'s tokens by their text; a byte history has none', () => {
    // the probe "the king" in 3 tokens, the map 2 tokens; the probe's text is its tokens' bytes
    const m = { ...msg(true, [0], 1), probe: new TextEncoder().encode('the king'), bytes: new Uint8Array(0),
      probeTokens: Int32Array.from([300, 32, 410]), mapTokens: Int32Array.from([32, 300]), probeLabels: ['the', ' ', 'king'], mapLabels: [' ', 'the'] };
    const h = Insight.apply(null, m);
    expect(h.probeLabels).toEqual(['the', ' ', 'king']);
    expect(h.mapLabels).toEqual([' ', 'the']);
    expect([...h.mapTokens]).toEqual([32, 300]);
    expect(h.T).toBe(3);   // positions are tokens, not the probe's 8 bytes
    expect(h.nearest(0, 1)).toEqual([{ index: 1, cosine: 0.5 }]);
    // the next message (no reset) keeps them
    Insight.apply(h, { ...m, reset: false, steps: Float64Array.from([50]) });
    expect(h.mapLabels).toEqual([' ', 'the']);
    const bytes = Insight.apply(null, msg(true, [0], 1));
    expect(bytes.probeLabels).toEqual([]);
    expect(bytes.mapLabels).toEqual([]);
  });

  it('words a token\'s neighbours in English and Chinese', async () => {
    const { en } = await import('../src/i18n/en');
    const { zhCN } = await import('../src/i18n/zh-CN');
    expect(en.watch.nearestToken('300', '1,200')).toBe(' (token 300): nearest in the embedding space (cosine, step 1,200) ');
    expect(zhCN.watch.nearestToken('300', '1,200')).toBe('（词元 300）：嵌入空间中的最近邻（余弦相似度，第 1,200 步）');
  });
});

describe('Insight of a translator', () => {
  it('finds the cross-attention map (T, S) of a decoder layer and head, stored first', () => {
    // L = 2 decoder layers, NH = 2, T = 3 (BOS + 2 target bytes), S = 4 source bytes
    const m = { ...msg(true, [0], 1), kind: 'seq2seq' as const, L: 2, Le: 1, S: 4, probeSource: new Uint8Array([1, 2, 3, 4]) };
    const h = Insight.apply(null, m);
    expect(h.kind).toBe('seq2seq');
    expect([...h.probeSource]).toEqual([1, 2, 3, 4]);
    expect(h.crossOffset(0, 0)).toBe(0);
    expect(h.crossOffset(0, 1)).toBe(12);
    expect(h.crossOffset(1, 0)).toBe(24);
    expect(h.crossOffset(1, 1)).toBe(36);
  });

  it('finds where each row of a cross-attention map peaks, per head and over heads', () => {
    // L = 1, NH = 2, T = 2, S = 3: head 0 rows peak at 2 and 0; head 1 at 1 and 0 (rows 0: 0.81 vs 0.36 and 0.49)
    const m = { ...msg(true, [0], 1), kind: 'seq2seq' as const, L: 1, NH: 2, T: 2, S: 3, attentionBytes: 12 };
    m.attention = Uint8Array.from([0, 153, 229, 255, 0, 0, /* head 1 */ 0, 178, 127, 255, 0, 0]);
    const h = Insight.apply(null, m);
    expect(h.crossPeaks(h.snapshots[0], 0, 0)).toEqual([2, 0]);
    expect(h.crossPeaks(h.snapshots[0], 0, 1)).toEqual([1, 0]);
    // over heads, row 0: column 1 has 0.36 + 0.49 = 0.85, column 2 has 0.81 + 0.25 = 1.06
    expect(h.crossPeaks(h.snapshots[0], 0, 'all')).toEqual([2, 0]);
  });

  it('lists the nearest bytes in the full embedding space from the core’s table, none for a bad byte', () => {
    const h = Insight.apply(null, msg(true, [0, 50], 2));
    expect(h.nearest(0, 5)).toEqual([{ index: 1, cosine: 0.5 }]);
    expect(h.nearest(1, 5)).toEqual([{ index: 0, cosine: 0.5 }]);
    expect(h.nearest(2, 5)).toEqual([]);
    expect(h.neighbours.step).toBe(50);
  });
});

describe('crossings', () => {
  it('gives the first evaluated step at or under each baseline, null where none is', () => {
    const c = crossings(baselines, [0, 100, 200, 300], [5.5, 3.9, 3.0, 2.6]);
    expect(c).toEqual([
      { name: 'uniform', level: 4, step: 100 },
      { name: 'unigram', level: 3, step: 200 },
      { name: 'bigram', level: 2.5, step: null },
    ]);
  });
});
