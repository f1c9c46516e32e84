import type { watch as en } from '../en/watch';

export const watch: typeof en = {
};
