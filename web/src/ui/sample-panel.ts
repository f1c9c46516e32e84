// sample-panel.ts — generating text, streamed chunk by chunk. Each character is shaded by how
// unlikely the model found it (its probability under the model at temperature 1, the product over
// its bytes for a multi-byte character); hovering or moving the keyboard cursor over a character
// shows the five bytes the model thought most likely at each of its positions.
import type { GenerateRequest } from '../app/controller';
import { type PageStore, type SampleState, watch } from '../app/state';
import { formatProb } from '../format';
import type { SampleChunk } from '../protocol';
import { type Segment, Utf8Stream, alternativeLabel, byteRole, charLabel, hex, hexChip } from '../utf8';
import { clear, h, panelHeader, setText } from './dom';
import { segmentProb, shadedSpan } from './shading';
import { hideTooltip, showTooltip } from './tooltip';

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

export class SamplePanel {
  readonly el: HTMLElement;
  readonly prompt: HTMLTextAreaElement;
  private inputs: Record<string, HTMLInputElement> = {};
  private output: HTMLElement;
  private genBtn: HTMLButtonElement;
  private stopBtn: HTMLButtonElement;
  private info: HTMLElement;
  private stream = new Utf8Stream();
  private gen: Generated = { bytes: [], probs: [], topBytes: [], topProbs: [] };
  private pendingEl: HTMLElement | null = null;
  private tokens: HTMLElement[] = [];
  private active = -1;
  private chunks = 0;
  private generating = false;
  private shown: SampleState | null = null;   // the generation drawn, and how many of its chunks
  private chunksDrawn = 0;

  constructor(store: PageStore, private handlers: SampleHandlers) {
    this.prompt = h('textarea', { id: 'prompt', rows: 2, placeholder: 'Empty: the text starts after a newline', spellcheck: 'false' });
    const num = (id: string, label: string, value: string, attrs: Record<string, string | number>, help: string) => {
      const input = h('input', { id, type: 'number', value, ...attrs, 'aria-describedby': `${id}-help` });
      this.inputs[id] = input;
      return h('div', { class: 'knob' }, h('label', { for: id }, label), input, h('span', { class: 'help', id: `${id}-help` }, help));
    };
    this.genBtn = h('button', { id: 'btn-generate', type: 'button', class: 'primary' }, 'Generate');
    this.stopBtn = h('button', { id: 'btn-stop-generate', type: 'button', disabled: true }, 'Stop');
    this.genBtn.addEventListener('click', () => this.generate());
    this.stopBtn.addEventListener('click', () => handlers.onStop());
    this.output = h('div', {
      id: 'sample-output', class: 'sample-output', tabindex: '0', role: 'log', 'aria-live': 'off',
      'aria-label': 'Generated text. Use the arrow keys to inspect each character.',
    });
    this.info = h('p', { id: 'sample-info', class: 'muted small', 'aria-live': 'polite' }, '');
    this.el = h('section', { id: 'sample', class: 'card wide', 'aria-labelledby': 'sample-title' },
      panelHeader(4, 'Sample', 'The model writes one byte at a time: it gives a probability to each of the 256 bytes, one is drawn, ' +
        'and it is fed back in. Temperature flattens (>1) or sharpens (<1) the distribution; top-k and top-p keep only the ' +
        'likeliest bytes. Shading shows how surprised the model itself was by each character.'),
      h('div', { class: 'sample-grid' },
        h('div', { class: 'knob prompt-knob' }, h('label', { for: 'prompt' }, 'Prompt'), this.prompt),
        h('div', { class: 'knob-row' },
          num('sample-length', 'Length', '400', { min: 1, max: 20000, step: 50 }, 'bytes to generate'),
          num('sample-temp', 'Temperature', '0.8', { min: 0, max: 5, step: 0.1 }, '0 = always the likeliest'),
          num('sample-topk', 'Top-k', '0', { min: 0, max: 256, step: 1 }, '0 = off'),
          num('sample-topp', 'Top-p', '1', { min: 0.01, max: 1, step: 0.05 }, '1 = off'),
          num('sample-seed', 'Seed', '1', { min: 0, step: 1 }, 'same seed, same text'))),
      h('div', { class: 'row' }, this.genBtn, this.stopBtn, this.info),
      this.output,
      h('p', { class: 'legend small' }, h('span', { class: 'legend-bar surprise' }), ' light: the model expected it · dark: it was a surprise (probability below 1/256)'));
    this.el.querySelector('h2')!.id = 'sample-title';
    this.prompt.addEventListener('input', () => handlers.onPrompt(this.prompt.value));
    watch(store, ['mode'], (st) => (this.el.hidden = st.mode !== 'gpt'));
    watch(store, ['sample'], (st) => this.sync(st.sample));
    watch(store, ['model', 'sample', 'mode'], (st) => this.setEnabled(!!st.model && st.mode === 'gpt', 'Train or load a model to sample from it.'));
    this.output.addEventListener('keydown', (e) => this.onKey(e));
    this.output.addEventListener('blur', () => hideTooltip());
    this.output.addEventListener('mouseleave', () => hideTooltip());
    this.output.addEventListener('mouseover', (e) => {
      const t = (e.target as HTMLElement).closest<HTMLElement>('.tok');
      if (t) this.focusToken(Number(t.dataset.k), false);
    });
  }

  private setEnabled(canGenerate: boolean, why: string): void {
    this.genBtn.disabled = !canGenerate || this.generating;
    this.genBtn.title = canGenerate ? '' : why;
    if (!canGenerate && !this.generating) setText(this.info, why);
    else if (this.info.textContent === why) setText(this.info, '');
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
    const bad = !(length >= 1 && length <= 20000) ? 'Length must be between 1 and 20000'
      : !(temperature >= 0) ? 'Temperature must be 0 or more'
        : !(topK >= 0 && topK <= 256) ? 'Top-k must be between 0 and 256'
          : !(topP > 0 && topP <= 1) ? 'Top-p must be in (0, 1]'
            : !(seed >= 0) ? 'Seed must be 0 or more' : '';
    if (bad) {
      setText(this.info, bad);
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
    this.tokens = [];
    this.active = -1;
    this.chunks = 0;
    this.pendingEl = null;
    clear(this.output);
    this.output.dataset.chunks = '0';
    this.output.dataset.done = 'false';
    this.output.append(h('span', { class: 'prompt-text' }, new TextDecoder().decode(prompt)));
    setText(this.info, 'Generating…');
  }

  private chunk(c: SampleChunk): void {
    for (let i = 0; i < c.bytes.length; i++) {
      this.gen.bytes.push(c.bytes[i]);
      this.gen.probs.push(c.probs[i]);
    }
    for (let i = 0; i < c.topBytes.length; i++) {
      this.gen.topBytes.push(c.topBytes[i]);
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
        el.title = 'cut off: the generation ended inside this character';
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
    if (c.done) this.end(`${this.gen.bytes.length} bytes from the model at step ${c.step}, in ${this.chunks} chunks.`);
  }

  private end(text: string): void {
    this.generating = false;
    this.stopBtn.disabled = true;
    this.genBtn.disabled = false;
    this.output.dataset.done = 'true';
    setText(this.info, text);
  }

  private render(seg: Segment, pending = false): HTMLElement {
    const el = shadedSpan(seg, segmentProb(this.gen.probs, seg), pending ? -1 : this.tokens.length, pending);
    if (!pending) this.tokens.push(el);
    return el;
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.tokens.length) return;
    let k = this.active;
    if (e.key === 'ArrowRight') k = Math.min(this.tokens.length - 1, k + 1);
    else if (e.key === 'ArrowLeft') k = Math.max(0, k < 0 ? this.tokens.length - 1 : k - 1);
    else if (e.key === 'Home') k = 0;
    else if (e.key === 'End') k = this.tokens.length - 1;
    else if (e.key === 'Escape') {
      hideTooltip();
      return;
    } else return;
    e.preventDefault();
    this.focusToken(k, true);
  }

  private focusToken(k: number, scroll: boolean): void {
    if (k < 0 || k >= this.tokens.length) return;
    this.tokens[this.active]?.classList.remove('active');
    this.active = k;
    const el = this.tokens[k];
    el.classList.add('active');
    if (scroll) el.scrollIntoView({ block: 'nearest' });
    showTooltip(this.explain(el), el.getBoundingClientRect());
  }

  /** Tooltip: the character, its probability, and the top-5 alternatives at each of its bytes. */
  private explain(el: HTMLElement): HTMLElement {
    const start = Number(el.dataset.start);
    const len = Number(el.dataset.len);
    const p = Number(el.dataset.p);
    const box = h('div', { class: 'tip-sample' });
    const bytes = this.gen.bytes.slice(start, start + len);
    const title = el.classList.contains('chip') ? `${hexChip(bytes)} (not a complete UTF-8 character)`
      : `“${charLabel(el.textContent ?? '')}” ${len > 1 ? `= bytes ${bytes.map(hex).join(' ')}` : `(byte ${hex(bytes[0])})`}`;
    box.append(h('div', { class: 'tip-title' }, title), h('div', { class: 'muted' }, `probability ${formatProb(p)}${len > 1 ? ' (product over its bytes)' : ''}`));
    for (let j = 0; j < len; j++) {
      const i = start + j;
      const list = h('ol', { class: 'alts' });
      const prefix = bytes.slice(0, j);   // the bytes of this character before position j
      for (let r = 0; r < 5; r++) {
        const b = this.gen.topBytes[i * 5 + r];
        const q = this.gen.topProbs[i * 5 + r];
        const lab = alternativeLabel(prefix, b);
        list.append(h('li', { class: b === this.gen.bytes[i] ? 'chosen' : '', title: `${hex(b)}: ${byteRole(b)}` },
          h('span', { class: `alt-label ${lab.kind}` }, lab.text),
          h('span', { class: 'bar', style: `--w:${(q * 100).toFixed(1)}%` }),
          h('span', { class: 'alt-p' }, formatProb(q))));
      }
      if (len > 1) box.append(h('div', { class: 'tip-sub' }, `byte ${j + 1} of ${len}: ${hex(this.gen.bytes[i])} (p ${formatProb(this.gen.probs[i])})`));
      else box.append(h('div', { class: 'tip-sub' }, 'the five likeliest next bytes:'));
      box.append(list);
    }
    return box;
  }
}
