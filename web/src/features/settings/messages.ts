// messages.ts — the core's verdict on a configuration, before anything is allocated.
import type { CoreCoded } from '../../lib/coded';
import type { PairsReport, SessionConfig } from '../../../../wasm/tinygpt';

export interface Verdict {
  problems: ({ field: string; message: string } & CoreCoded)[];  // empty when the core accepts the settings
  parameters: number;
  trainingBytes: number;
  pairs?: PairsReport;      // translation: how the core reads the worker's pairs at this block_size
}

export interface SettingsCalls {
  /** Checks a configuration with the core's own rules and estimates its size (no allocation). */
  validate(msg: { config: SessionConfig }): Verdict;
}
