import type { data as en } from '../en/data';

export const data: typeof en = {
};
