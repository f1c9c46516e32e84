import type { learn as en } from '../en/learn';

export const learn: typeof en = {
};
