// files.ts (runs) — checkpoints as files: downloading the live model's, and loading one (or a
// .safetensors model, a new run from its weights) over it. Replacing a live model asks first and
// saves it before it goes.
import { isTranslator } from '../../lib/model-kind';
import { type MapStore, patch } from '../../app/store';
import { t } from '../../i18n';
import { MAGIC, checkpointFileName, isCheckpoint, isSafetensors } from '../../lib/checkpoint';
import type { Coded } from '../../lib/coded';
import { formatCount } from '../../lib/format';
import type { Port } from '../../lib/wire';
import { coreInline, downloadBytes, h, notify, withData } from '../../ui';
import type { Data } from '../data';
import { describeModel, type ModelSummary, type Session } from '../session';
import type { Train } from '../train';
import type { RunsCalls } from './messages';
import type { RunsSlice } from './state';

export interface FilesDeps { data: Data; session: Session; train: Train }

export class Files {
  constructor(private readonly $: MapStore<RunsSlice>, private readonly port: Port<RunsCalls, object>, private readonly d: FilesDeps) {}

  /** The live model's checkpoint as a file. */
  async download(): Promise<void> {
    if (!this.d.session.$.get().model || this.$.get().download) return;
    patch(this.$, { download: true });
    try {
      const r = await this.port.call('save', {});
      const name = checkpointFileName(this.d.data.$.get().corpus?.ref.name ?? 'model', r.step);
      downloadBytes(name, r.bytes.buffer as ArrayBuffer);
      const bytes = formatCount(r.bytes.byteLength);
      notify(() => h('span', {}, withData((slot) => t().run.downloaded(slot(0), bytes), [name]), h('code', {}, `tinygpt train --resume ${name}`)), 'success');
    } catch (e) {
      notify(() => h('span', {}, t().run.saveFailed, coreInline((e as Coded).message, e as object)), 'error');
    } finally {
      patch(this.$, { download: false });
    }
  }

  private async read(file: File): Promise<ArrayBuffer | null> {
    try {
      return await file.arrayBuffer();
    } catch (e) {
      // the browser's words: as data
      notify(() => withData((slot) => t().run.cantRead(slot(0), slot(1)), [file.name, `${e instanceof Error ? e.message : e}`]), 'error');
      return null;
    }
  }

  /** A checkpoint file (tinygpt train --save, a download): the model it holds replaces the live one. */
  async loadCheckpoint(file: File): Promise<void> {
    const buffer = await this.read(file);
    if (!buffer) return;
    const bytes = new Uint8Array(buffer);
    if (!isCheckpoint(bytes)) {
      if (isSafetensors(bytes, bytes.length)) return this.load(file, buffer, 'loadSafetensors');
      notify(() => withData((slot) => t().run.notCheckpoint(slot(0), slot(1)), [file.name, MAGIC]), 'error');
      return;
    }
    return this.load(file, buffer, 'load');
  }

  /** A .safetensors model file (tinygpt export, python/tinygpt): a new run from its weights and config. */
  async loadModel(file: File): Promise<void> {
    const buffer = await this.read(file);
    if (buffer) return this.load(file, buffer, 'loadSafetensors');
  }

  private async load(file: File, bytes: ArrayBuffer, how: 'load' | 'loadSafetensors'): Promise<void> {
    const { session, data } = this.d;
    if (session.$.get().model) {
      const step = formatCount(this.d.train.$.get().step);
      if (!confirm(how === 'load' ? t().run.confirmLoad(step, file.name) : t().run.confirmModelFile(step, file.name))) return;
      session.replacing();   // the worker answers in order: that save is the current model's
    }
    notify(() => withData((slot) => t().run.loading(slot(0)), [file.name]), 'info', { id: 'loading', timeout: 3000 });
    session.setLoading({ name: file.name, reason: 'file' });
    let m: ModelSummary;
    try {
      m = how === 'load' ? await this.port.call('load', { bytes, reason: 'file', name: file.name }) : await this.port.call('loadSafetensors', { bytes, name: file.name });
    } catch (e) {
      session.setLoading(null);
      const r = t().run;
      notify(() => h('span', {}, withData((slot) => r.loadFailed(slot(0)), [file.name]), coreInline((e as Coded).message, e as object), r.unchanged), 'error');
      return;
    }
    const r = t().run;
    notify(() => withData((slot) => r.loaded(slot(0), describeModel(m.config), formatCount(m.step)), [file.name]), 'success');
    // a model of the other kind: the data of its kind the page had comes back
    const pairs = isTranslator(m.config.model);
    const restoring = data.$.get().corpus?.kind !== (pairs ? 'pairs' : 'text') && data.restoreFor(pairs ? 'pairs' : 'text');
    if (!m.hasCorpus && !restoring) notify(r.chooseData(pairs), 'info');
    else if (m.hasCorpus && !m.corpusMatches) {
      // what differs, in the core's words (worded by its code)
      const why = m.corpusMismatch;
      notify(() => h('span', {}, t().run.otherData(pairs), ...(why ? [' ', coreInline(why.message, why)] : [])), 'warning', { timeout: 10000 });
    }
  }
}
