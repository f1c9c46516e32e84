// share-box.ts — "Share this run" in the Train panel, and the banner of a page opened with a run
// link: what the link set up, which text it needs, and whether the replay matches it bit for bit.
import type { ReplayState } from '../app/replay';
import { type PageStore, type RunState, watch } from '../app/state';
import { h, setText } from './dom';
import './trust.css';

export class ShareBox {
  readonly el: HTMLElement;
  private button: HTMLButtonElement;
  private url: HTMLInputElement;
  private copy: HTMLButtonElement;
  private note: HTMLElement;

  constructor(store: PageStore, onShare: () => void) {
    this.button = h('button', { id: 'btn-share', type: 'button', title: 'A link that sets up this run again: settings, seed, text, first losses' }, 'Share this run');
    this.url = h('input', { id: 'share-url', type: 'text', readonly: true, 'aria-label': 'Link to this run', hidden: true });
    this.copy = h('button', { id: 'btn-share-copy', type: 'button', hidden: true }, 'Copy');
    this.note = h('p', { id: 'share-note', class: 'share-note muted small', hidden: true });
    this.button.addEventListener('click', onShare);
    this.copy.addEventListener('click', () => {
      this.url.select();
      navigator.clipboard?.writeText(this.url.value).then(() => setText(this.copy, 'Copied'), () => document.execCommand('copy'));
    });
    this.el = h('div', { id: 'share', class: 'share-row' }, this.button, this.url, this.copy, this.note);
    watch(store, ['model', 'step', 'running', 'shareUrl', 'ready'], (s) => this.draw(s));
  }

  private draw(s: RunState): void {
    this.button.disabled = !s.model || !s.corpus;
    const u = s.shareUrl;
    const shown = !!u && !!s.model;
    this.url.hidden = this.copy.hidden = this.note.hidden = !shown || !!u?.error;
    if (!u || !shown) return;
    if (u.error) {
      this.note.hidden = false;
      setText(this.note, `No link: ${u.error}`);
      return;
    }
    if (this.url.value !== u.url) {
      this.url.value = u.url;
      setText(this.copy, 'Copy');
    }
    const n = Math.min(50, u.step);
    setText(this.note, `The link holds the settings, the seed, the build variant (${s.ready?.buildVariant ?? 'this page\'s'}), the text ` +
      `(the built-in one by name, your file by its fingerprint and size: the file itself stays here) and the first ${n} losses. ` +
      'Opening it sets the run up again; with the same text it reproduces these losses bit for bit on the same build variant.');
  }
}

export class ReplayBanner {
  readonly el: HTMLElement;
  private text: HTMLElement;
  private status: HTMLElement;

  constructor(store: PageStore) {
    this.text = h('p', { class: 'replay-text' });
    this.status = h('p', { id: 'replay-status', class: 'replay-status', role: 'status' });
    this.el = h('div', { id: 'replay-banner', class: 'banner replay', role: 'region', 'aria-label': 'Shared run', hidden: true },
      h('strong', {}, 'A shared run'), this.text, this.status);
    watch(store, ['replay', 'model', 'corpus'], (s) => this.draw(s.replay));
  }

  private draw(r: ReplayState | null): void {
    this.el.hidden = !r;
    if (!r) return;
    const c = r.link.config;
    this.el.dataset.status = r.check?.status ?? (r.active ? 'running' : 'waiting');
    setText(this.text, `Settings from the link: ${c.n_layer} layers × ${c.n_head} heads, width ${c.n_embd}, context ${c.block_size}, ` +
      `batch ${c.batch_size}, seed ${c.seed}, ${c.max_iters} steps. Made on ${r.link.variant || 'an unknown build'}; this page runs ` +
      `${r.variant}${r.link.variant && r.link.variant !== r.variant ? ': the losses will differ a little (bit-identical only on the same build variant)' : ''}.`);
    const status = r.check ? `Replay: ${r.check.message}.`
      : r.corpusNote ? `Choose the text it trained on: ${r.corpusNote}. Drop it on the page or pick it in Data.`
      : r.active ? `Comparing the first ${r.link.losses.length} losses with the link's…`
      : `The text is the link's. Press Start to replay the run; its first ${r.link.losses.length} losses will be compared bit for bit.`;
    setText(this.status, status);
  }
}
