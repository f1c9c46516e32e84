// The Chinese (simplified) catalogue: TypeScript checks it against the English one, key by key.
import type { Messages } from '../en';
import { common } from './common';
import { data } from './data';
import { errors } from './errors';
import { exporting } from './export';
import { hidden } from './hidden';
import { inspect } from './inspect';
import { runs } from './runs';
import { learn } from './learn';
import { page } from './page';
import { run } from './run';
import { sample } from './sample';
import { settings } from './settings';
import { share } from './share';
import { train } from './train';
import { translate } from './translate';
import { tokens } from './tokens';
import { watch } from './watch';

export const zhCN: Messages = { common, page, data, settings, train, share, sample, inspect, translate, runs, learn, watch, hidden, tokens, run, errors, export: exporting };

