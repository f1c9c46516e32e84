// panel.ts (sample) — generating text, streamed chunk by chunk. Each character is shaded by how
// unlikely the model found it (its probability under the model at temperature 1, the product over
// its bytes for a multi-byte character); hovering or moving the keyboard cursor over a character
// shows the five bytes the model thought most likely at each of its positions.
import { type MapStore, view, watch } from '../../app/store';
import { type Msg, t, tr } from '../../i18n';
import { formatProb } from '../../lib/format';
import { type Segment, Utf8Stream, alternativeLabel, byteRole, hex } from '../../lib/utf8';
import { TokenStrip, characterTitle, clear, h, type Note, NoteLine, panelHeader, segmentProb, shadedSpan, surprise, withData } from '../../ui';
import type { SessionSlice } from '../session';
import type { SettingsSlice } from '../settings';
import type { SampleChunk } from './messages';
import type { GenerateRequest, SampleSlice, SampleState } from './state';

export interface SampleHandlers {
  onGenerate(req: GenerateRequest): void;
  onStop(): void;
  /** The prompt box changed (the "look inside" panel can inspect it). */
  onPrompt(text: string): void;
}

interface Generated {
  bytes: number[];
  probs: number[];
  topBytes: number[];
  topProbs: number[];
}

/** A BPE model's generation, token by token (its texts come from the worker: Tokenizer.tokenText). */
interface GeneratedTokens {
  ids: number[];
  labels: string[];
  probs: number[];
  topIds: number[];
  topLabels: string[];
  topProbs: number[];
}

export class SamplePanel {
  readonly el: HTMLElement;
  readonly prompt: HTMLTextAreaElement;
  private inputs: Record<string, HTMLInputElement> = {};
  private output: HTMLElement;
  private genBtn: HTMLButtonElement;
  private stopBtn: HTMLButtonElement;
  private info: NoteLine;
  private strip: TokenStrip;
  private stream = new Utf8Stream();
  private gen: Generated = { bytes: [], probs: [], topBytes: [], topProbs: [] };
  private toks: GeneratedTokens = { ids: [], labels: [], probs: [], topIds: [], topLabels: [], topProbs: [] };
  private decoder = new TextDecoder();
  private pendingEl: HTMLElement | null = null;
  private chunks = 0;
  private generating = false;
  private shown: SampleState | null = null;   // the generation drawn, and how many of its chunks
  private chunksDrawn = 0;

  constructor(sample: MapStore<SampleSlice>, settings: MapStore<SettingsSlice>, session: MapStore<SessionSlice>, private handlers: SampleHandlers) {
    const store = view(sample, settings, session);
    this.prompt = h('textarea', { id: 'prompt', rows: 2, placeholder: tr((m) => m.sample.promptPlaceholder), spellcheck: 'false' });
    const num = (id: string, label: Msg, value: string, attrs: Record<string, string | number>, help: Msg) => {
      const input = h('input', { id, type: 'number', value, ...attrs, 'aria-describedby': `${id}-help` });
      this.inputs[id] = input;
      return h('div', { class: 'knob' }, h('label', { for: id }, tr(label)), input, h('span', { class: 'help', id: `${id}-help` }, tr(help)));
    };
    this.genBtn = h('button', { id: 'btn-generate', type: 'button', class: 'primary' }, tr((m) => m.sample.generate));
    this.stopBtn = h('button', { id: 'btn-stop-generate', type: 'button', disabled: true }, tr((m) => m.sample.stop));
    this.genBtn.addEventListener('click', () => this.generate());
    this.stopBtn.addEventListener('click', () => handlers.onStop());
    this.output = h('div', {
      id: 'sample-output', class: 'sample-output', tabindex: '0', role: 'log', 'aria-live': 'off',
      'aria-label': tr((m) => m.sample.outputLabel),
    });
    this.strip = new TokenStrip(this.output, (tok) => this.explain(tok));
    this.info = new NoteLine(h('p', { id: 'sample-info', class: 'muted small', 'aria-live': 'polite' }, ''));
    this.el = h('section', { id: 'sample', class: 'card wide', 'aria-labelledby': 'sample-title' },
      panelHeader(4, tr((m) => m.sample.title), tr((m) => m.sample.explain)),
      h('div', { class: 'sample-grid' },
        h('div', { class: 'knob prompt-knob' }, h('label', { for: 'prompt' }, tr((m) => m.sample.prompt)), this.prompt),
        h('div', { class: 'knob-row' },
          num('sample-length', (m) => m.sample.length, '400', { min: 1, max: 20000, step: 50 }, (m) => m.sample.lengthHelp),
          num('sample-temp', (m) => m.sample.temperature, '0.8', { min: 0, max: 5, step: 0.1 }, (m) => m.sample.temperatureHelp),
          num('sample-topk', (m) => m.sample.topK, '0', { min: 0, max: 65536, step: 1 }, (m) => m.sample.topKHelp),
          num('sample-topp', (m) => m.sample.topP, '1', { min: 0.01, max: 1, step: 0.05 }, (m) => m.sample.topPHelp),
          num('sample-seed', (m) => m.sample.seed, '1', { min: 0, step: 1 }, (m) => m.sample.seedHelp))),
      h('div', { class: 'row' }, this.genBtn, this.stopBtn, this.info.el),
      this.output,
      h('p', { class: 'legend small' }, h('span', { class: 'legend-bar surprise' }), tr((m) => m.sample.legend)));
    this.el.querySelector('h2')!.id = 'sample-title';
    this.prompt.addEventListener('input', () => handlers.onPrompt(this.prompt.value));
    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'gpt'));
    watch(store, ['sample'], (st) => this.sync(st.sample));
    watch(store, ['model', 'sample', 'mode', 'locale'], (st) => this.setEnabled(!!st.model && st.mode === 'gpt'));
  }

  private readonly needModel: Msg = (m) => m.sample.needModel;

  private setEnabled(canGenerate: boolean): void {
    this.genBtn.disabled = !canGenerate || this.generating;
    this.genBtn.title = canGenerate ? '' : this.needModel(t());
    if (!canGenerate && !this.generating) this.info.set(this.needModel);
    else if (this.info.current === this.needModel) this.info.set(null);
  }

  /** Draws the store's generation: a new one from its start, the same one from where it was. */
  private sync(g: SampleState | null): void {
    if (!g) return;
    if (g.id !== this.shown?.id) {
      this.begin(g.prompt);
      this.chunksDrawn = 0;
    }
    this.shown = g;
    for (; this.chunksDrawn < g.chunks.length; this.chunksDrawn++) this.chunk(g.chunks[this.chunksDrawn]);
    if (!g.generating && this.generating) this.end(g.note);
  }

  /** The `g` shortcut: what the Generate button does, when it can. */
  generateNow(): void {
    if (!this.genBtn.disabled) this.generate();
  }

  private generate(): void {
    const v = (id: string) => Number(this.inputs[id].value);
    const length = Math.round(v('sample-length'));
    const temperature = v('sample-temp');
    const topK = Math.round(v('sample-topk'));
    const topP = v('sample-topp');
    const seed = Math.round(v('sample-seed'));
    const bad: Msg | null = !(length >= 1 && length <= 20000) ? (m) => m.sample.bad.length
      : !(temperature >= 0) ? (m) => m.sample.bad.temperature
        : !(topK >= 0 && topK <= 65536) ? (m) => m.sample.bad.topK
          : !(topP > 0 && topP <= 1) ? (m) => m.sample.bad.topP
            : !(seed >= 0) ? (m) => m.sample.bad.seed : null;
    if (bad) {
      this.info.set(bad);
      return;
    }
    this.handlers.onGenerate({ prompt: new TextEncoder().encode(this.prompt.value), length, options: { temperature, topK, topP, seed } });
  }

  /** A generation was accepted: clear the output and show the prompt. */
  private begin(prompt: Uint8Array): void {
    this.generating = true;
    this.genBtn.disabled = true;
    this.stopBtn.disabled = false;
    this.stream = new Utf8Stream();
    this.gen = { bytes: [], probs: [], topBytes: [], topProbs: [] };
    this.toks = { ids: [], labels: [], probs: [], topIds: [], topLabels: [], topProbs: [] };
    this.decoder = new TextDecoder();
    this.strip.reset();
    this.chunks = 0;
    this.pendingEl = null;
    // the last sample's height is kept while the new one streams in: the panels below do not jump
    // up and back down with each sample (a layout shift every time)
    if (this.output.offsetHeight > 0) this.output.style.minHeight = `${this.output.offsetHeight}px`;
    clear(this.output);
    this.output.dataset.chunks = '0';
    this.output.dataset.done = 'false';
    this.output.append(h('span', { class: 'prompt-text', translate: 'no' }, new TextDecoder().decode(prompt)));
    this.info.set((m) => m.sample.generating);
  }

  private chunk(c: SampleChunk): void {
    if (c.labels) return this.tokenChunk(c);
    // a byte model: token i is byte i
    for (let i = 0; i < c.bytes.length; i++) {
      this.gen.bytes.push(c.bytes[i]);
      this.gen.probs.push(c.probs[i]);
    }
    for (let i = 0; i < c.topTokens.length; i++) {
      this.gen.topBytes.push(c.topTokens[i]);
      this.gen.topProbs.push(c.topProbs[i]);
    }
    const { settled, pending } = this.stream.push(c.bytes);
    this.pendingEl?.remove();
    this.pendingEl = null;
    for (const seg of settled) this.output.append(this.render(seg));
    if (c.done) {
      // a character the generation stopped inside of: its bytes are shown, marked as cut off
      for (const seg of this.stream.finish()) {
        const el = this.render(seg);
        el.classList.add('partial');
        el.title = t().sample.cutOff;
        this.output.append(el);
      }
    }
    else if (pending) {
      this.pendingEl = this.render(pending, true);
      this.output.append(this.pendingEl);
    }
    if (c.bytes.length) this.chunks++;
    this.output.dataset.chunks = String(this.chunks);
    this.output.dataset.bytes = String(this.gen.bytes.length);
    this.output.scrollTop = this.output.scrollHeight;
    if (c.done) {
      const bytes = this.gen.bytes.length, chunks = this.chunks;
      this.end((m) => m.sample.done(bytes, c.step, chunks));
    }
  }

  /** A BPE model's chunk: one shaded span per token, its text decoded (a character cut between tokens goes on with the next). */
  private tokenChunk(c: SampleChunk): void {
    let start = 0;
    for (let i = 0; i < c.tokens.length; i++) {
      const k = this.toks.ids.length;
      this.toks.ids.push(c.tokens[i]);
      this.toks.labels.push(c.labels![i]);
      this.toks.probs.push(c.probs[i]);
      for (let r = 0; r < 5; r++) {
        this.toks.topIds.push(c.topTokens[i * 5 + r]);
        this.toks.topLabels.push(c.topLabels![i * 5 + r]);
        this.toks.topProbs.push(c.topProbs[i * 5 + r]);
      }
      const text = this.decoder.decode(c.bytes.subarray(start, c.ends[i]), { stream: !(c.done && i === c.tokens.length - 1) });
      start = c.ends[i];
      const el = h('span', { class: 'tok bpe', 'data-k': this.strip.length, 'data-token': k, translate: 'no' }, text);
      el.style.setProperty('--s', surprise(c.probs[i]).toFixed(3));
      el.dataset.p = c.probs[i].toPrecision(4);
      this.strip.add(el);
      this.output.append(el);
    }
    if (c.tokens.length) this.chunks++;
    this.output.dataset.chunks = String(this.chunks);
    this.output.dataset.tokens = String(this.toks.ids.length);
    this.output.scrollTop = this.output.scrollHeight;
    if (c.done) {
      const n = this.toks.ids.length, chunks = this.chunks;
      this.end((m) => m.sample.doneTokens(n, c.step, chunks));
    }
  }

  /** Tooltip of a BPE token: its text, its probability, the five tokens the model thought likeliest. */
  private explainToken(el: HTMLElement): HTMLElement {
    const i = Number(el.dataset.token);
    const m = t().sample.tip;
    const list = h('ol', { class: 'alts' });
    for (let r = 0; r < 5; r++) {
      const q = this.toks.topProbs[i * 5 + r];
      list.append(h('li', { class: this.toks.topIds[i * 5 + r] === this.toks.ids[i] ? 'chosen' : '' },
        h('span', { class: 'alt-label', translate: 'no' }, this.toks.topLabels[i * 5 + r]),
        h('span', { class: 'bar', style: `--w:${(q * 100).toFixed(1)}%` }), h('span', { class: 'alt-p' }, formatProb(q))));
    }
    return h('div', { class: 'tip-sample' },
      h('div', { class: 'tip-title' }, withData((slot) => m.token(this.toks.ids[i], slot(0)), [this.toks.labels[i]])),
      h('div', { class: 'muted' }, m.probability(formatProb(this.toks.probs[i]), false)), h('div', { class: 'tip-sub' }, m.likeliest), list);
  }

  private end(note: Note | null): void {
    this.generating = false;
    this.stopBtn.disabled = true;
    this.genBtn.disabled = false;
    this.output.dataset.done = 'true';
    this.output.style.minHeight = '';
    this.info.set(note);
  }

  private render(seg: Segment, pending = false): HTMLElement {
    const el = shadedSpan(seg, segmentProb(this.gen.probs, seg), pending ? -1 : this.strip.length, pending);
    if (!pending) this.strip.add(el);
    return el;
  }

  /** Tooltip: the character, its probability, and the top-5 alternatives at each of its bytes. */
  private explain(el: HTMLElement): HTMLElement {
    if (el.classList.contains('bpe')) return this.explainToken(el);
    const start = Number(el.dataset.start);
    const len = Number(el.dataset.len);
    const p = Number(el.dataset.p);
    const m = t().sample.tip;
    const box = h('div', { class: 'tip-sample' });
    const bytes = this.gen.bytes.slice(start, start + len);
    box.append(h('div', { class: 'tip-title' }, characterTitle(el, bytes)), h('div', { class: 'muted' }, m.probability(formatProb(p), len > 1)));
    for (let j = 0; j < len; j++) {
      const i = start + j;
      const list = h('ol', { class: 'alts' });
      const prefix = bytes.slice(0, j);   // the bytes of this character before position j
      for (let r = 0; r < 5; r++) {
        const b = this.gen.topBytes[i * 5 + r];
        const q = this.gen.topProbs[i * 5 + r];
        const lab = alternativeLabel(prefix, b);
        // the byte in hex and its role in UTF-8, on its label (the label is data: translate="no")
        list.append(h('li', { class: b === this.gen.bytes[i] ? 'chosen' : '' },
          h('span', { class: `alt-label ${lab.kind}`, translate: 'no', title: m.alternative(hex(b), byteRole(b)) }, lab.text),
          h('span', { class: 'bar', style: `--w:${(q * 100).toFixed(1)}%` }),
          h('span', { class: 'alt-p' }, formatProb(q))));
      }
      if (len > 1) box.append(h('div', { class: 'tip-sub' }, withData((slot) => m.byteOf(j + 1, len, slot(0), formatProb(this.gen.probs[i])), [hex(this.gen.bytes[i])])));
      else box.append(h('div', { class: 'tip-sub' }, m.likeliest));
      box.append(list);
    }
    return box;
  }
}
