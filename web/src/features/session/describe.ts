// describe.ts — a model in a few words, in the page's language ("4 layers × 4 heads, width 128, context 64").
import { t } from '../../i18n';
import type { FullConfig } from './messages';

/** What describeModel words: the model's shape, as a run record stored it. */
export type ModelShape = Partial<Pick<FullConfig, 'model' | 'n_layer' | 'n_enc_layer' | 'n_dec_layer' | 'd_ff' | 'n_head' | 'n_embd' | 'n_hidden' | 'block_size'>>;

/** The cell's name as the page writes it. */
const CELLS: Record<string, string> = { rnn: 'RNN', gru: 'GRU', lstm: 'LSTM' };

export function describeModel(c: ModelShape): string {
  const say = t().train.describe;
  const n = (x: number | undefined) => x ?? NaN;
  if (c.model === 'lstm_seq2seq') return say.lstmTranslator(n(c.n_enc_layer), n(c.n_dec_layer), n(c.n_hidden), n(c.n_embd), n(c.block_size));
  if (c.model && CELLS[c.model]) return say.recurrent(CELLS[c.model], n(c.n_layer), n(c.n_hidden), n(c.n_embd), n(c.block_size));
  if (c.model === 'seq2seq') return say.translator(n(c.n_enc_layer), n(c.n_dec_layer), n(c.n_head), n(c.n_embd), n(c.d_ff), n(c.block_size));
  if (c.n_layer === undefined) return say.unknown;  // a run saved by an older version of the page
  return say.gpt(c.n_layer, n(c.n_head), n(c.n_embd), n(c.block_size));
}
