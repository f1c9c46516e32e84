// guard-notice.ts — what the NaN guard did, inside the Train panel: each diverged step (which one,
// why, back to which step, the learning-rate scale) and the pause after three rollbacks in a row.
import { divergedStep, divergedWhy } from '../app/guard';
import { type PageStore, type RunState, watch } from '../app/state';
import { formatLr } from '../format';
import { h, setText } from './dom';
import './trust.css';

const SHOWN = 5;   // the latest rollbacks listed (all of them are counted)

export class GuardNotice {
  readonly el: HTMLElement;
  private title: HTMLElement;
  private list: HTMLElement;
  private pause: HTMLElement;

  constructor(store: PageStore) {
    this.title = h('strong', { class: 'guard-title' });
    this.list = h('ol', { class: 'guard-events' });
    this.pause = h('p', { id: 'guard-pause', class: 'guard-pause', role: 'alert', hidden: true });
    this.el = h('div', { id: 'guard', class: 'guard', role: 'status', hidden: true }, this.title, this.list, this.pause);
    // the learning rate the next step uses (the core reports it with every slice) is part of the news
    watch(store, ['guard', 'lr'], (s) => this.draw(s));
  }

  private draw(s: RunState): void {
    const g = s.guard;
    this.el.hidden = g.events.length === 0 && !g.paused;
    this.el.dataset.rollbacks = String(g.events.length);
    this.el.dataset.lrScale = String(g.lrScale);
    this.el.dataset.lr = String(s.lr);
    setText(this.title, `NaN guard: ${g.events.length} diverged step${g.events.length === 1 ? '' : 's'} undone; ` +
      `the learning rate is now ${s.lr === null ? '' : `${formatLr(s.lr)}, `}${g.lrScale} × the schedule's.`);
    this.list.replaceChildren(...g.events.slice(-SHOWN).map((r) => h('li', {
      'data-failed': divergedStep(r), 'data-restored': r.restoredStep, 'data-scale': r.lrScale,
    }, `Step ${divergedStep(r)} diverged (${divergedWhy(r)}): nothing reached the weights. Back to step ${r.restoredStep}, ` +
      `the last good state; learning rate × ${r.lrScale} from there.`)));
    this.pause.hidden = !g.paused;
    setText(this.pause, g.paused ? `Training paused: three steps in a row diverged, even after going back and halving the learning ` +
      `rate each time (now ${g.lrScale} × the schedule's). Lower learning_rate or raise grad_clip (Reset, change the settings, Start), ` +
      `or press Resume to try again at the lower rate. The core said: ${g.paused}` : '');
  }
}
