import type { errors as en } from '../en/errors';

export const errors: typeof en = {
  coreSays: '核心报告（英文原文）：',
  core: {
  },
};
