// watch — "Watch it learn": how the model got from noise to text, drawn from the run's history of
// snapshots that the core takes at every evaluation (core watch.h): a time-lapse of attention, the
// embedding map, step-through generation, what changed, and stored runs compared. Its views are a
// chunk of their own, loaded when the panel nears the screen.
import { map, type MapStore, patch, view, watch } from '../../app/store';
import { t, tr } from '../../i18n';
import { coreText } from '../../i18n/core-messages';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import { h, panelHeader } from '../../ui';
import type { RunsFeature } from '../runs';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { Train } from '../train';
import { Snapshots } from './history';
import type { Baselines, Tree, WatchCalls, WatchEvents } from './messages';
import type { WatchSlice } from './state';

export { Snapshots };
export type { Baselines, WatchSlice };

export interface Watch {
  readonly $: MapStore<WatchSlice>;
  /** The data's entropy baselines (the loss chart draws them). */
  readonly baselines: MapStore<{ baselines: Baselines | null }>;
  /** Section 8: its views load when it nears the screen (or takes the focus). */
  mount(slot: HTMLElement): void;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function createWatch(port: Port<WatchCalls, WatchEvents>, d: { session: Session; settings: Settings; train: Train; runs: RunsFeature }): Watch {
  const $ = map<WatchSlice>({ watch: null, watchRev: 0, tree: null, treeSelected: 0, treeNote: '', compare: {}, compareNote: '' });
  const baselines = map<{ baselines: Baselines | null }>({ baselines: null });
  port.on('watch', (m) => {
    const w = Snapshots.apply($.get().watch, m);
    patch($, { watch: w, watchRev: $.get().watchRev + 1 });
    patch(baselines, { baselines: w.baselines });
  });
  watch(d.session.$, ['lastModel'], () => patch($, { tree: null, treeSelected: 0 }));   // the worker dropped the tree with the model
  let hadModel = false;
  watch(d.session.$, ['model'], ({ model }) => {
    if (!model && hadModel) {
      patch($, { watch: null, watchRev: $.get().watchRev + 1, tree: null, treeSelected: 0 });
      patch(baselines, { baselines: null });
    }
    hadModel = !!model;
  });
  const grown = (p: Promise<Tree>) => p.then((tree) => patch($, { tree, treeSelected: tree.selected, treeNote: '' }),
    (e: Coded) => patch($, { treeNote: coreText(capitalise(e.message), e) }));
  const handlers = {
    /** Step-through generation: a new tree from a prompt, with the top-k next bytes at every node. */
    treeStart(prompt: Uint8Array, topK: number) {
      if (!d.session.$.get().model) return;
      const id = ($.get().tree?.id ?? 0) + 1;
      patch($, { treeNote: t().run.growing });
      void grown(port.call('treeStart', { id, prompt: prompt.slice().buffer as ArrayBuffer, topK }));
    },
    /** Grows the selected branch by a candidate byte (or walks to the child that has it). */
    treeExtend(node: number, token: number) {
      const tree = $.get().tree;
      if (!tree) return;
      const child = tree.nodes[node]?.children.find((c) => tree.nodes[c].token === token);
      if (child !== undefined) return handlers.treeSelect(child);
      void grown(port.call('treeExtend', { id: tree.id, node, token }));
    },
    treeSelect(node: number) {
      const tree = $.get().tree;
      if (tree && node >= 0 && node < tree.nodes.length) patch($, { treeSelected: node });
    },
    /** A stored run's curves, for "compare runs". */
    compareRun(id: string) {
      const name = d.runs.nameOf(id);
      if (name === null) return;
      patch($, { compareNote: t().runs.reading(name) });
      d.runs.curves(id).then((c) => {
        if (c) patch($, { compare: { ...$.get().compare, [id]: c }, compareNote: '' });
      }, (e: Coded) => patch($, { compareNote: t().run.curvesFailed + coreText(e.message, e) }));
    },
  };
  return {
    $,
    baselines,
    mount(slot) {
      const section = h('section', { id: 'watch', class: 'card wide', 'aria-labelledby': 'watch-title' },
        panelHeader(8, tr((m) => m.page.watchTitle), tr((m) => m.page.watchExplain)),
        h('div', { id: 'watch-body' }, h('p', { class: 'muted small' }, tr((m) => m.page.watchLoading))));
      section.querySelector('h2')!.id = 'watch-title';
      slot.append(section);
      let loading = false;
      const load = () => {
        if (loading) return;
        loading = true;
        observer.disconnect();
        void import('./views').then(({ WatchViews }) => {
          const body = section.querySelector<HTMLElement>('#watch-body')!;
          body.replaceChildren();
          new WatchViews(view($, d.runs.$, d.train.$, d.session.$, d.settings.$), body, handlers);
          section.dataset.loaded = 'true';
        });
      };
      const observer = new IntersectionObserver((e) => { if (e.some((x) => x.isIntersecting)) load(); }, { rootMargin: '600px' });
      observer.observe(section);
      section.addEventListener('focusin', load);
    },
  };
}
