import type { inspect as en } from '../en/inspect';

export const inspect: typeof en = {
};
