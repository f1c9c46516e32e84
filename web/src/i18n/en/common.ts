// common — words many panels use: buttons, units, durations.
export const common = {
  close: 'Close',
  dismiss: 'Dismiss',
  cancel: 'Cancel',
  loading: 'Loading…',
  none: 'none',
  // durations and units (format.ts)
  seconds: (s: string) => `${s} s`,
  minutesSeconds: (m: number, s: string) => `${m} min ${s} s`,
  hoursMinutes: (h: number, m: string) => `${h} h ${m} min`,
  thousand: (x: string) => `${x} k`,
  million: (x: string) => `${x} M`,
  // what a byte is in UTF-8 (utf8.ts byteRole)
  byteRole: {
    ascii: 'ASCII',
    control: 'ASCII control byte',
    continuation: 'continuation byte of a multi-byte character',
    invalid: 'never valid in UTF-8',
    lead: (n: number) => `first byte of a ${n}-byte character`,
  },
};
