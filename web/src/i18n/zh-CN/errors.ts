import type { errors as en } from '../en/errors';

export const errors: typeof en = {
};
