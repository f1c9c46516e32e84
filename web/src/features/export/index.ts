// export — the model in the formats other tools read (core export.h, docs/export.md): "Download
// as…" safetensors, ONNX, a Hugging Face GPT-2 folder (zipped with fflate) or GGUF; the check in
// ONNX Runtime (onnxruntime-web, loaded on first use: ort-check.ts); and back: a dropped Hugging Face
// folder starts a new run (through the runs feature, as a .safetensors model file does), and a
// dropped GGUF or ONNX file is said to be an export format.
import { zipSync, type Zippable } from 'fflate';

import { map, type MapStore, patch } from '../../app/store';
import { t } from '../../i18n';
import type { Coded } from '../../lib/coded';
import { formatBytes } from '../../lib/format';
import type { Port } from '../../lib/wire';
import { coreInline, downloadBytes, h, notify, withData } from '../../ui';
import type { Data } from '../data';
import type { RunsFeature } from '../runs';
import type { Session } from '../session';
import type { ExportCalls, ExportFile } from './messages';
import { runCheck } from './ort-check';
import { type ExportChoice, ExportBox } from './panel';
import type { ExportCheck, ExportSlice } from './state';

export type { ExportCheck, ExportChoice, ExportSlice };

export interface ExportDeps { session: Session; data: Data; runs: RunsFeature }

export interface Export {
  readonly $: MapStore<ExportSlice>;
  download(choice: ExportChoice): Promise<void>;
  check(prompt: string): Promise<void>;
  /** A Hugging Face GPT-2 folder's files (config.json, model.safetensors, tokenizer.json or vocab.json + merges.txt): a new run. */
  importFolder(files: File[]): Promise<void>;
  /** Its box in the runs panel. */
  mount(runsPanel: HTMLElement): void;
}

const CHECK_BYTES = 40;   // bytes continued by the check

/** The name of an export's download: one file as it is, a folder (hf, a translator's two ONNX graphs) as a zip. */
function downloadName(choice: ExportChoice, step: number, files: number): string {
  const base = `tinygpt-step${step}`;
  if (choice === 'hf' || files > 1) return `${base}-${choice}.zip`;
  if (choice.startsWith('gguf-')) return `${base}-${choice.slice(5)}.gguf`;
  return `${base}.${choice}`;
}

/** The folder as one zip (weights stored as they are: floats hardly compress; the JSON deflated). */
function zipped(files: ExportFile[], folder: string): Uint8Array {
  const z: Zippable = {};
  for (const f of files) z[`${folder}/${f.path}`] = [f.bytes, { level: f.path.endsWith('.json') ? 6 : 0 }];
  return zipSync(z);
}

export function createExport(port: Port<ExportCalls, object>, d: ExportDeps): Export {
  const $ = map<ExportSlice>({ exportBusy: null, exportCheck: null, exportCheckError: null, exportChecking: false });
  const failed = (what: string, e: unknown, name: string) =>
    notify(() => h('span', {}, withData((slot) => (what === 'import' ? t().export.importFailed(slot(0)) : t().export.failed), [name]),
      coreInline((e as Coded).message, e as object), what === 'import' ? t().export.unchanged : ''), 'error');

  const api: Export = {
    $,
    async download(choice) {
      if (!d.session.$.get().model || $.get().exportBusy) return;
      patch($, { exportBusy: choice });
      try {
        const [format, dtype] = choice.split('-') as [ExportFile['path'], string | undefined];
        const r = await port.call('exportModel', { format: format as never, options: dtype ? { dtype: dtype as 'f32' } : {} });
        const name = downloadName(choice, r.step, r.files.length);
        const bytes = name.endsWith('.zip') ? zipped(r.files, name.replace(/\.zip$/, '')) : r.files[0].bytes;
        downloadBytes(name, bytes.buffer as ArrayBuffer);
        notify(() => withData((slot) => t().export.downloaded(slot(0), formatBytes(bytes.byteLength)), [name]), 'success');
      } catch (e) {
        failed('export', e, '');
      } finally {
        patch($, { exportBusy: null });
      }
    },
    async check(prompt) {
      const model = d.session.$.get().model;
      if (!model || $.get().exportChecking || !prompt) return;
      patch($, { exportChecking: true, exportCheckError: null, exportCheck: null });
      try {
        const c = model.config;
        // the prompt and its continuation fit the context: the exported graph has block_size positions
        const bytes = new TextEncoder().encode(prompt).slice(-Math.max(1, Math.floor(c.block_size / 2)));
        const tokens = Math.min(CHECK_BYTES, c.block_size - bytes.length);
        const text = new TextDecoder().decode(bytes);   // before the call: its buffer is transferred to the worker
        const w = await port.call('exportCheck', { prompt: bytes, tokens });
        const exportCheck = await runCheck({ ...w, prompt: text, shape: c });
        patch($, { exportCheck, exportChecking: false });
      } catch (e) {
        patch($, { exportCheckError: { message: e instanceof Error ? e.message : String(e), ...(e as object) }, exportChecking: false });
      }
    },
    async importFolder(files) {
      const name = files[0]?.webkitRelativePath.split('/')[0] || 'model';
      notify(() => withData((slot) => t().export.importing(slot(0)), [name]), 'info', { id: 'loading', timeout: 3000 });
      try {
        const wanted = files.filter((f) => ['config.json', 'model.safetensors', 'tokenizer.json', 'vocab.json', 'merges.txt'].includes(f.name));
        const read = await Promise.all(wanted.map(async (f) => [f.name, await f.arrayBuffer()] as const));
        const r = await port.call('modelFileFromFolder', { files: Object.fromEntries(read) });
        await d.runs.loadCheckpointFile(new File([r.bytes.buffer as ArrayBuffer], `${name}.safetensors`));
      } catch (e) {
        failed('import', e, name);
      }
    },
    mount(runsPanel) {
      runsPanel.append(new ExportBox($, d.session.$, { onDownload: (c) => void api.download(c), onCheck: (p) => void api.check(p) }).el);
    },
  };
  // a dropped folder with a config.json is a Hugging Face model; a GGUF or ONNX file is an export
  d.data.setModelFiles({
    folder: (files) => api.importFolder(files),
    async exportFile(file, head) {
      const { problem } = await port.call('exportFormatOf', { head: head.slice(0, 4096).buffer as ArrayBuffer, name: file.name });
      if (!problem) return false;
      notify(() => h('span', {}, coreInline(problem.message, problem), t().export.unchanged), 'error');
      return true;
    },
  });
  return api;
}
