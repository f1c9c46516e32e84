// panel.ts (estimate) — the pre-flight in the Train panel: before Start, what this device measured for
// the chosen settings on the chosen text (tokens/s, the time of the configured steps, memory) and
// the loss of simple models of the text for scale; while training, the same numbers as the core's
// run loop measures them now, next to the estimate.
import { type MapStore, type View, view, watch } from '../../app/store';
import { type Locale, t } from '../../i18n';
import { formatBytes, formatCount, formatDuration, formatLoss, formatRate } from '../../lib/format';
import { coreInline, h, setText, throttle } from '../../ui';
import type { DataSlice } from '../data';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import { etaMs, type TrainSlice } from '../train';
import type { WebgpuSlice } from '../webgpu';
import { type EstimateSlice, runMemoryBytes } from './runner';
import './panel.css';

type S = EstimateSlice & SessionSlice & DataSlice & SettingsSlice & TrainSlice & WebgpuSlice & { locale: Locale };

const LN256 = Math.log(256);

export class EstimateBox {
  readonly el: HTMLElement;
  private main: HTMLElement;
  private scale: HTMLElement;
  private now: HTMLElement;

  private store: View<S>;

  constructor(stores: { estimate: MapStore<EstimateSlice>; session: MapStore<SessionSlice>; data: MapStore<DataSlice>; settings: MapStore<SettingsSlice>;
    train: MapStore<TrainSlice>; webgpu: MapStore<WebgpuSlice> }) {
    this.store = view(stores.estimate, stores.session, stores.data, stores.settings, stores.train, stores.webgpu);
    const store = this.store;
    this.main = h('p', { id: 'estimate-main', class: 'estimate-main' });
    this.scale = h('p', { id: 'estimate-scale', class: 'estimate-scale muted' });
    this.now = h('p', { id: 'estimate-now', class: 'estimate-now', hidden: true });
    this.el = h('div', { id: 'estimate-box', class: 'estimate-box', 'aria-live': 'polite', hidden: true }, this.main, this.scale, this.now);
    watch(store, ['estimate', 'model', 'corpus', 'backend', 'locale'], (s) => this.draw(s));
    const soon = throttle(() => this.draw(this.store.get()), 500);
    watch(store, ['step', 'tokensPerSec', 'etaMs', 'running'], soon);
  }

  private draw(s: S): void {
    const e = s.estimate;
    // the estimate belongs to the settings and text it measured: a model of other settings has its own numbers
    const own = !!e && (!s.model || sameRun(e.config, s.model.config)) && e.corpusSize === s.corpus?.stats.size;
    this.el.hidden = !own;
    if (!e || !own) {
      // nothing stale (in another language) while hidden
      for (const el of [this.main, this.scale, this.now]) el.replaceChildren();
      return;
    }
    this.el.dataset.state = e.measuring ? 'measuring' : e.result ? 'measured' : 'failed';
    const say = t().train.estimate;
    if (e.measuring) {
      setText(this.main, say.measuring);
      setText(this.scale, '');
      this.now.hidden = true;
      return;
    }
    const r = e.result;
    if (!r) {
      // the worker's (or the core's) reason
      this.main.replaceChildren(say.none, coreInline(e.error?.message ?? '', e.error ?? undefined));
      setText(this.scale, '');
      return;
    }
    const steps = e.config.max_iters;
    this.el.dataset.tokensPerSec = String(r.tokensPerSec);
    this.el.dataset.totalSeconds = String(r.totalSeconds);
    this.el.dataset.memoryBytes = String(runMemoryBytes(e));
    this.el.dataset.bigram = String(r.entropy.bigram);
    this.el.dataset.unigram = String(r.entropy.unigram);
    setText(this.main, say.main(formatDuration(r.measuredMs), r.stepsTimed + 1, formatRate(r.tokensPerSec), formatCount(steps),
      formatDuration(r.totalSeconds * 1000)) +
      `${r.evaluations ? say.evaluations(formatCount(r.evaluations)) : ''}${say.memory(formatBytes(runMemoryBytes(e)))}` +
      // the measurement runs the wasm build; a gpt model on WebGPU trains elsewhere, at its own pace
      (s.backend?.backend === 'webgpu' && e.config.model === 'gpt' ? say.webgpu(s.backend.adapter || say.thisGpu) : '') +
      // a BPE run: a token holds several bytes, so the text itself goes by faster than the tokens
      (r.tokensPerByte !== 1 ? say.bpe(r.tokensPerByte.toFixed(3), formatRate(r.bytesPerSec)) : ''));
    this.el.dataset.tokensPerByte = String(r.tokensPerByte);
    setText(this.scale, say.scale(formatLoss(r.entropy.bigram), formatLoss(r.entropy.unigram), formatLoss(LN256)) +
      (r.entropy.bytes < e.corpusSize ? say.counted(formatBytes(r.entropy.bytes)) : ''));
    // while training: the core's own measurements, corrected as it goes
    const left = etaMs(s);
    this.now.hidden = !s.model || s.step === 0;
    if (s.model && s.step > 0)
      setText(this.now, say.now(formatRate(s.tokensPerSec)) +
        (left === null ? say.nowDone : say.nowLeft(formatDuration(left), formatDuration(r.totalSeconds * 1000))));
  }
}

/** The model was made from the settings the estimate measured (the `run` group may change later). */
function sameRun(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const k of ['model', 'n_layer', 'n_head', 'n_embd', 'block_size', 'batch_size'])
    if (a[k] !== b[k]) return false;
  return true;
}
