import type { sample as en } from '../en/sample';

export const sample: typeof en = {
};
