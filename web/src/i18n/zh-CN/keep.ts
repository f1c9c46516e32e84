import type { keep as en } from '../en/keep';

export const keep: typeof en = {
};
