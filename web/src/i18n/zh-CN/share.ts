import type { share as en } from '../en/share';

export const share: typeof en = {
};
