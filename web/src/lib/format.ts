// format.ts — numbers for people (units in the page's language: i18n common.*).
import { t } from '../i18n';

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes in binary units (the core states memory in MiB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatParams(n: number): string {
  if (n >= 1e6) return t().common.million((n / 1e6).toFixed(n >= 1e7 ? 1 : 2));
  if (n >= 1e3) return t().common.thousand((n / 1e3).toFixed(1));
  return String(n);
}

/** 1:02:03, 4 min 05 s, 12.3 s */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = ms / 1000;
  if (s < 60) return t().common.seconds(s.toFixed(s < 10 ? 1 : 0));
  const m = Math.floor(s / 60);
  const rs = Math.floor(s % 60);
  if (m < 60) return t().common.minutesSeconds(m, String(rs).padStart(2, '0'));
  const h = Math.floor(m / 60);
  return t().common.hoursMinutes(h, String(m % 60).padStart(2, '0'));
}

export function formatRate(perSec: number): string {
  if (!Number.isFinite(perSec) || perSec <= 0) return '—';
  if (perSec >= 1e4) return t().common.thousand((perSec / 1e3).toFixed(1));
  return perSec.toFixed(0);
}

export function formatLoss(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(4);
}

export function formatLr(x: number): string {
  return x.toExponential(2);
}

/** 42.0%, 0.37%, 2.1e-6 (tiny probabilities as plain numbers, not percent) */
export function formatProb(p: number): string {
  if (p >= 0.01) return `${(p * 100).toFixed(1)}%`;
  if (p >= 0.0001) return `${(p * 100).toFixed(2)}%`;
  return p.toExponential(1);
}

/** 0.8125 -> "81.3%" (exact match, CER); '—' when there is none. */
export function formatPercent(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(x >= 0.9995 || x === 0 ? 0 : 1)}%`;
}
