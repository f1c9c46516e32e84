import type { common as en } from '../en/common';

export const common: typeof en = {
  close: '关闭',
  dismiss: '关闭提示',
  cancel: '取消',
  loading: '加载中…',
  none: '无',
  seconds: (s) => `${s} 秒`,
  minutesSeconds: (m, s) => `${m} 分 ${s} 秒`,
  hoursMinutes: (h, m) => `${h} 小时 ${m} 分`,
  thousand: (x) => `${x} k`,
  million: (x) => `${x} M`,
  byteRole: {
    ascii: 'ASCII 字符',
    control: 'ASCII 控制字节',
    continuation: '多字节字符的后续字节',
    invalid: '在 UTF-8 中永远无效',
    lead: (n) => `${n} 字节字符的首字节`,
  },
};
