// learn — "Learn by hand": one real training step of the walkthrough's tiny GPT (the core's
// learn::trace_step), box by box, with the step's graph, keyboard stepping, and token and weight
// edits the core recomputes. Its code is a chunk of its own, loaded when the section is opened.
import { watch } from '../../app/store';
import { tr } from '../../i18n';
import type { Port } from '../../lib/wire';
import { h, panelHeader } from '../../ui';
import type { Runtime } from '../runtime';
import type { LearnCalls } from './messages';

export interface Learn {
  /** Section 7; `#learn` in the address opens it at once. */
  mount(slot: HTMLElement): void;
}

export function createLearn(port: Port<LearnCalls, object>, runtime: Runtime): Learn {
  const ready = () => new Promise<void>((resolve) => {
    const off = watch(runtime.$, ['ready'], (s) => {
      if (!s.ready) return;
      queueMicrotask(() => off());
      resolve();
    });
  });
  return {
    mount(slot) {
      const host = h('div', { id: 'learn-host' });
      let opened = false;
      const open = async () => {
        if (opened) return;
        opened = true;
        openBtn.disabled = true;
        openBtn.replaceChildren(h('span', {}, tr((m) => m.common.loading)));
        const { mountLearn } = await import('./panel');
        await mountLearn(host, {
          // the worker answers once the module has loaded
          trace: async (model, edits) => {
            await ready();
            return port.call('learn', { model, edits });
          },
        });
        openBtn.hidden = true;
      };
      const openBtn = h('button', { type: 'button', id: 'walk-open', class: 'primary', onclick: () => void open() }, tr((m) => m.page.learnOpen));
      if (location.hash === '#learn') queueMicrotask(() => void open());
      const section = h('section', { id: 'learn', class: 'card wide', 'aria-labelledby': 'learn-title' },
        panelHeader(7, tr((m) => m.page.learnTitle), tr((m) => m.page.learnExplain)), openBtn, host);
      section.querySelector('h2')!.id = 'learn-title';
      slot.append(section);
    },
  };
}
