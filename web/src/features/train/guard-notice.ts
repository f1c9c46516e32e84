// guard-notice.ts (train) — what the NaN guard did, inside the Train panel: each diverged step (which one,
// why, back to which step, the learning-rate scale) and the pause after three rollbacks in a row.
import { type MapStore, watch } from '../../app/store';
import { locale, t } from '../../i18n';
import { formatLr } from '../../lib/format';
import { coreInline, h, setText, withData } from '../../ui';
import './guard.css';
import { divergedStep, divergedWhy } from './guard';
import type { RollbackInfo } from './messages';
import type { TrainSlice } from './state';

const SHOWN = 5;   // the latest rollbacks listed (all of them are counted)

export class GuardNotice {
  readonly el: HTMLElement;
  private title: HTMLElement;
  private list: HTMLElement;
  private pause: HTMLElement;

  constructor(store: MapStore<TrainSlice>) {
    this.title = h('strong', { class: 'guard-title' });
    this.list = h('ol', { class: 'guard-events' });
    this.pause = h('p', { id: 'guard-pause', class: 'guard-pause', role: 'alert', hidden: true });
    this.el = h('div', { id: 'guard', class: 'guard', role: 'status', hidden: true }, this.title, this.list, this.pause);
    // the learning rate the next step uses (the core reports it with every slice) is part of the news
    watch(store, ['guard', 'lr', 'locale'], (s) => this.draw(s));
  }

  private draw(s: TrainSlice): void {
    const g = s.guard;
    this.el.hidden = g.events.length === 0 && !g.paused;
    this.el.dataset.rollbacks = String(g.events.length);
    this.el.dataset.lrScale = String(g.lrScale);
    this.el.dataset.lr = String(s.lr);
    const say = t().train.guard;
    setText(this.title, say.title(g.events.length, s.lr === null ? '' : formatLr(s.lr), g.lrScale));
    // why a step diverged is the core's sentence (run.h): shown by coreInline
    this.list.replaceChildren(...g.events.slice(-SHOWN).map((r) => h('li', {
      'data-failed': divergedStep(r), 'data-restored': r.restoredStep, 'data-scale': r.lrScale,
    }, say.event(divergedStep(r)), why(r), say.eventBack(r.restoredStep, r.lrScale))));
    this.pause.hidden = !g.paused;
    this.pause.replaceChildren(...(g.paused ? [say.paused(g.lrScale), coreInline(g.paused.message, g.paused)] : []));
  }
}

/**
 * Why a step diverged, without the step (the line says it): the core's words after "…at step N: "
 * on the English page, the catalogue's words from the rollback's code and args in another.
 */
function why(r: RollbackInfo): Node {
  const words = t().train.guard.why;
  const a = r.args ?? {};
  // the numbers are the core's, as it wrote them (nan, inf, 1.2e+03): data
  const w = locale.get() === 'en' ? null
    : r.code === 'train.diverged_loss' ? withData((slot) => words.loss(slot(0)), [a.loss])
    : r.code === 'train.diverged_norm' ? withData((slot) => words.norm(slot(0)), [a.norm])
    : r.code === 'train.diverged_high' ? withData((slot) => words.high(slot(0), slot(1)), [a.loss, a.limit]) : null;
  return w ?? coreInline(divergedWhy(r), r);
}
