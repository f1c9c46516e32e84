import type { translate as en } from '../en/translate';

export const translate: typeof en = {
};
