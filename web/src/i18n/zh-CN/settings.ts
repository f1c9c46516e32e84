import type { settings as en } from '../en/settings';

export const settings: typeof en = {
};
