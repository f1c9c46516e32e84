// run-bar.ts (train) — on narrow screens (a phone), a strip that stays at the top while the page
// scrolls: Start/Pause, step, loss and tokens/s. Hidden by CSS on wide screens.
import { view, watch } from '../../app/store';
import { tr } from '../../i18n';
import { formatCount, formatLoss, formatRate } from '../../lib/format';
import { h, setText, throttle } from '../../ui';
import { startBlockedReason, startDisabled, startLabel, totalSteps } from './derive';
import type { TrainStores } from './panel';

export function bindRunBar(bar: HTMLElement, stores: TrainStores, onStartPause: () => void): void {
  const store = view(stores.train, stores.runtime, stores.data, stores.settings, stores.session);
  const button = h('button', { type: 'button', id: 'bar-start', class: 'primary' }, 'Start');
  button.addEventListener('click', onStartPause);
  const step = h('b', { id: 'bar-step' }, '0');
  const loss = h('b', { id: 'bar-loss' }, '—');
  const tps = h('b', { id: 'bar-tps' }, '—');
  bar.append(button, h('span', {}, tr((m) => m.page.barStep), step), h('span', {}, tr((m) => m.page.barLoss), loss),
    h('span', {}, tps, tr((m) => m.page.barTokens)));
  watch(store, ['ready', 'corpus', 'mode', 'model', 'settings', 'verdict', 'validateId', 'textSize', 'creating', 'loading', 'running', 'finished', 'locale'], (s) => {
    setText(button, startLabel(s));
    button.dataset.state = s.running ? 'running' : s.model ? 'paused' : 'idle';
    button.setAttribute('aria-disabled', String(startDisabled(s)));
    button.title = startBlockedReason(s);
  });
  const draw = throttle(() => {
    const s = store.get();
    setText(step, `${formatCount(s.step)} / ${formatCount(totalSteps(s))}`, s.step);
    setText(loss, formatLoss(s.history.smoothed() ?? s.lastLoss));
    setText(tps, formatRate(s.tokensPerSec));
  }, 250);
  watch(store, ['step', 'lastLoss', 'tokensPerSec', 'model', 'settings'], draw);
}
