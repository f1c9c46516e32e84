// state.ts (export) — the store of the export feature: which export is being written, and the last
// check in ONNX Runtime (the core's continuation beside onnxruntime-web's).
import type { Coded } from '../../lib/coded';

/** A check in ONNX Runtime: the same prompt, continued greedily by the core and by onnxruntime-web. */
export interface ExportCheck {
  prompt: string;
  core: string;
  onnx: string;
  /** The tokens of each continuation (bytes for a byte model). */
  tokens: number;
  /** The token at which the two continuations first differ (-1: identical). */
  firstDifference: number;
  /** max |onnx - core| over the prompt's logits (every position, every token). */
  maxDiff: number;
}

export interface ExportSlice {
  /** The export being written ('onnx', 'hf', 'gguf-f16', ...), or null. */
  exportBusy: string | null;
  /** The last check in ONNX Runtime, its failure, or nothing yet. */
  exportCheck: ExportCheck | null;
  exportCheckError: Coded | null;
  exportChecking: boolean;
}
