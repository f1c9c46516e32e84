import type { train as en } from '../en/train';

export const train: typeof en = {
};
