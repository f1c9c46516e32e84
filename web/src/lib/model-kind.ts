// model-kind.ts — the config's model kinds in two families (core/include/tinygpt/config.h):
// language models that continue a text (gpt, and the recurrent rnn, gru, lstm) and translators
// trained on pairs (seq2seq, lstm_seq2seq). The page's mode is the family: 'gpt' or 'seq2seq'.
import type { ModelKind } from '../../../wasm/tinygpt';

export type { ModelKind };
/** What the page trains: a language model ('gpt') or a translator ('seq2seq'), whatever the architecture. */
export type Mode = 'gpt' | 'seq2seq';

/** rnn, gru, lstm: a recurrent language model (core rnn.h). */
export const isRecurrent = (kind: string | undefined): boolean => kind === 'rnn' || kind === 'gru' || kind === 'lstm';
/** seq2seq, lstm_seq2seq: trained on pairs, translates. */
export const isTranslator = (kind: string | undefined): boolean => kind === 'seq2seq' || kind === 'lstm_seq2seq';
/** The mode (family) of a model kind. */
export const modeOf = (kind: string | undefined): Mode => (isTranslator(kind) ? 'seq2seq' : 'gpt');
/** The architectures of each mode, in the order the settings offer them: the Transformer first. */
export const KINDS_OF: Record<Mode, ModelKind[]> = { gpt: ['gpt', 'lstm', 'gru', 'rnn'], seq2seq: ['seq2seq', 'lstm_seq2seq'] };
