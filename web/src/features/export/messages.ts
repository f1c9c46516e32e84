// messages.ts (export) — the model in other tools' formats (core export.h): its files out of the
// worker; what the check in ONNX Runtime compares with; a Hugging Face folder read back into a model
// file; whether a dropped file is one of the export formats.
import type { ExportFile, ExportFormat, ExportOptions } from '../../../../wasm/tinygpt';
import type { Coded } from '../../lib/coded';

export type { ExportFile, ExportFormat, ExportOptions };

export interface ExportCalls {
  /** The live model's export: its files in order (one; the folder's for hf). Throws the core's coded message. */
  exportModel(msg: { format: ExportFormat; options: ExportOptions }): { files: ExportFile[]; step: number };
  /**
   * For the check in ONNX Runtime: the model as ONNX, the prompt's tokens and the core's logits for
   * them (T × V), and the core's greedy continuation of `tokens` bytes (temperature 0).
   */
  exportCheck(msg: { prompt: Uint8Array; tokens: number }): {
    onnx: Uint8Array; ids: Int32Array; logits: Float32Array; vocab: number; continuation: Int32Array;
    /** Every token's bytes one after the other; ends[v]: where token v's bytes end (a byte model: ends[v] = v + 1). */
    tokenBytes: { bytes: Uint8Array; ends: Uint32Array };
  };
  /** The core's import.export_format message when a file's first bytes are an export format's, else null. */
  exportFormatOf(msg: { head: ArrayBuffer; name: string }): { problem: Coded | null };
  /** A Hugging Face GPT-2 folder's files by name, as a tinygpt model file (for runs' loadSafetensors). */
  modelFileFromFolder(msg: { files: Record<string, ArrayBuffer> }): { bytes: Uint8Array };
}
