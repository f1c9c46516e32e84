// panel.ts (share) — "Share this run" in the Train panel, and the banner of a page opened with a run
// link: what the link set up, which text it needs, and whether the replay matches it bit for bit.
import { type MapStore, view, watch } from '../../app/store';
import { type Locale, t, tr } from '../../i18n';
import { coreInline, h, setText, withData } from '../../ui';
import type { DataSlice } from '../data';
import type { RuntimeSlice } from '../runtime';
import type { SessionSlice } from '../session';
import type { TrainSlice } from '../train';
import { needText, type ReplayState, type ShareSlice } from './replay';

type S = ShareSlice & SessionSlice & TrainSlice & RuntimeSlice & DataSlice & { locale: Locale };
export interface ShareStores { share: MapStore<ShareSlice>; session: MapStore<SessionSlice>; train: MapStore<TrainSlice>; runtime: MapStore<RuntimeSlice>; data: MapStore<DataSlice> }
import './panel.css';

export class ShareBox {
  readonly el: HTMLElement;
  private button: HTMLButtonElement;
  private url: HTMLInputElement;
  private copy: HTMLButtonElement;
  private note: HTMLElement;
  private copied = false;     // "Copied" until the link changes

  constructor(stores: ShareStores, onShare: () => void) {
    const store = view(stores.share, stores.session, stores.train, stores.runtime, stores.data);
    this.button = h('button', { id: 'btn-share', type: 'button', title: tr((m) => m.share.buttonTitle) }, tr((m) => m.share.button));
    this.url = h('input', { id: 'share-url', type: 'text', readonly: true, 'aria-label': tr((m) => m.share.urlLabel), hidden: true, translate: 'no' });
    this.copy = h('button', { id: 'btn-share-copy', type: 'button', hidden: true }, t().share.copy);
    this.note = h('p', { id: 'share-note', class: 'share-note muted small', hidden: true });
    this.button.addEventListener('click', onShare);
    this.copy.addEventListener('click', () => {
      this.url.select();
      navigator.clipboard?.writeText(this.url.value).then(() => {
        this.copied = true;
        setText(this.copy, t().share.copied);
      }, () => document.execCommand('copy'));
    });
    this.el = h('div', { id: 'share', class: 'share-row' }, this.button, this.url, this.copy, this.note);
    watch(store, ['model', 'step', 'running', 'shareUrl', 'ready', 'locale'], (s) => this.draw(s));
  }

  private draw(s: S): void {
    this.button.disabled = !s.model || !s.corpus;
    const u = s.shareUrl;
    if (u && this.url.value !== u.url) this.copied = false;
    setText(this.copy, this.copied ? t().share.copied : t().share.copy);
    const shown = !!u && !!s.model;
    this.url.hidden = this.copy.hidden = this.note.hidden = !shown || !!u?.error;
    if (!u || !shown) {
      this.note.replaceChildren();   // nothing stale, in another language, while hidden
      return;
    }
    const say = t().share;
    if (u.error) {
      this.note.hidden = false;
      this.note.replaceChildren(say.noLink, coreInline(u.error.message, u.error));
      return;
    }
    this.url.value = u.url;
    const n = Math.min(50, u.step);
    const variant = s.ready?.buildVariant;
    this.note.replaceChildren(withData(say.note(variant ?? say.thisPage, n), variant ? [variant] : []));
  }
}

export class ReplayBanner {
  readonly el: HTMLElement;
  private text: HTMLElement;
  private status: HTMLElement;

  constructor(stores: ShareStores) {
    const store = view(stores.share, stores.session, stores.data);
    this.text = h('p', { class: 'replay-text' });
    this.status = h('p', { id: 'replay-status', class: 'replay-status', role: 'status' });
    this.el = h('div', { id: 'replay-banner', class: 'banner replay', role: 'region', 'aria-label': tr((m) => m.share.bannerLabel), hidden: true },
      h('strong', {}, tr((m) => m.share.bannerTitle)), this.text, this.status);
    watch(store, ['replay', 'model', 'corpus', 'locale'], (s) => this.draw(s.replay));
  }

  private draw(r: ReplayState | null): void {
    this.el.hidden = !r;
    if (!r) {
      this.text.replaceChildren();
      this.status.replaceChildren();
      return;
    }
    const c = r.link.config;
    this.el.dataset.status = r.check?.status ?? (r.active ? 'running' : 'waiting');
    const say = t().share;
    const madeOn = say.madeOn(r.link.variant || say.unknownBuild, r.variant);
    this.text.replaceChildren(say.settings(c.n_layer, c.n_head, c.n_embd, c.block_size, c.batch_size, c.seed, c.max_iters),
      withData(madeOn, [r.link.variant, r.variant]), r.link.variant && r.link.variant !== r.variant ? say.differs : '', say.end);
    const n = r.link.losses.length;
    if (r.check) this.status.replaceChildren(say.replay, coreInline(r.check.message, r.check), say.end);
    else if (r.corpusNote) {
      const need = needText(r.corpusNote);
      this.status.replaceChildren(withData(say.chooseText(need.text), need.data));
    } else setText(this.status, r.active ? say.comparing(n) : say.ready(n));
  }
}
