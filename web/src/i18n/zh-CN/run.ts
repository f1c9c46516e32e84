import type { run as en } from '../en/run';

export const run: typeof en = {
};
