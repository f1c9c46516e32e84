// worker.ts (settings) — the core's checkConfig, and for a translator how the core reads the
// worker's pairs at the form's block_size (a file may have no usable pair at a shorter one).
import { isTranslator } from '../../lib/model-kind';
import type { PairsReport } from '../../../../wasm/tinygpt';
import { codedOf } from '../../lib/coded';
import { handlers, type WorkerFeature } from '../../worker/registry';
import { needModule } from '../../worker/state';
import type { DataState } from '../data/worker';
import type { SettingsCalls } from './messages';

export function settingsWorker(): WorkerFeature<DataState> {
  return {
    name: 'settings',
    handlers: handlers<SettingsCalls, DataState>({
      validate(msg, ctx) {
        const M = needModule(ctx.state);
        const { problems, parameters, trainingBytes } = M.checkConfig(msg.config);
        const c = ctx.state.corpus;
        let pairs: PairsReport | undefined;
        if (isTranslator(msg.config.model) && c?.kind === 'pairs' && c.bytes && !problems.some((p) => p.field === 'block_size')) {
          try {
            pairs = M.pairsReport(c.bytes, msg.config.block_size ?? 64);
          } catch (e) {
            // the core's message (its code words it), the file named before it in the English
            problems.push({ field: 'block_size', message: `${c.name}: ${e instanceof Error ? e.message : e}`, ...codedOf(e) });
          }
        }
        return { problems, parameters, trainingBytes, pairs };
      },
    }),
  };
}
