// sample — the model continuing a prompt, streamed; each character shaded by the probability the
// model gave it, the five likeliest bytes on hover.
import { map, type MapStore, patch, watch } from '../../app/store';
import type { Coded } from '../../lib/coded';
import type { Port } from '../../lib/wire';
import type { Session } from '../session';
import type { Settings } from '../settings';
import type { SampleCalls, SampleEvents } from './messages';
import { SamplePanel } from './panel';
import { endSample, type GenerateRequest, type SampleSlice, sampleText } from './state';

export { sampleText };
export type { SampleSlice };

export interface Sample {
  readonly $: MapStore<SampleSlice>;
  generate(req: GenerateRequest): void;
  stop(): void;
  /** The panel; returns the `g` shortcut's action (generate when it can). */
  mount(slot: HTMLElement): () => void;
}

export function createSample(port: Port<SampleCalls, SampleEvents>, settings: Settings, session: Session): Sample {
  const $ = map<SampleSlice>({ sample: null, samplePrompt: '' });
  port.on('sampleChunk', (m) => {
    const g = $.get().sample;
    if (g && m.id === g.id) patch($, { sample: { ...g, chunks: [...g.chunks, m], generating: !m.done } });
  });
  port.onFailure('generate', (e: Coded) => patch($, { sample: endSample($.get().sample, { before: (x) => x.sample.stopped, core: e.message, from: e }) }));
  // the model changed under a generation: it ends
  watch(session.$, ['lastModel'], () => patch($, { sample: endSample($.get().sample, (x) => x.sample.stoppedReplaced) }));
  watch(session.$, ['model'], ({ model }) => void (!model && patch($, { sample: endSample($.get().sample, (x) => x.sample.stoppedReset) })));

  const api: Sample = {
    $,
    generate(req) {
      if (!session.$.get().model) return;
      const id = ($.get().sample?.id ?? 0) + 1;
      patch($, { sample: { id, prompt: req.prompt.slice(), chunks: [], generating: true, note: null } });
      port.call('generate', { id, prompt: req.prompt.buffer as ArrayBuffer, length: req.length, options: req.options })
        .catch((e: Coded) => patch($, { sample: endSample($.get().sample, { before: (x) => x.sample.stopped, core: e.message, from: e }) }));
    },
    stop() {
      const g = $.get().sample;
      if (g) port.send('stopGeneration', { id: g.id });
    },
    mount(slot) {
      const panel = new SamplePanel($, settings.$, session.$, {
        onGenerate: (r) => api.generate(r), onStop: () => api.stop(), onPrompt: (samplePrompt) => patch($, { samplePrompt }),
      });
      slot.append(panel.el);
      return () => panel.generateNow();
    },
  };
  return api;
}

