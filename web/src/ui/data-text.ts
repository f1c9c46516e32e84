// data-text.ts — a sentence of the page's own words with data in it (a file's name, a glimpse of
// its text): the data are wrapped in translate="no" spans, so the zh-CN check (and a translating
// browser) leaves them alone. The data are found by their exact text in the worded sentence.
import { h } from './dom';

/** `text` as nodes, each occurrence of a value of `data` in a <span translate="no">. */
export function withData(text: string, data: readonly string[]): (Node | string)[] {
  const values = data.filter((d) => d.length > 0).sort((a, b) => b.length - a.length);
  if (!values.length) return [text];
  const out: (Node | string)[] = [];
  let rest = text;
  while (rest) {
    let at = -1;
    let value = '';
    for (const v of values) {
      const i = rest.indexOf(v);
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        value = v;
      }
    }
    if (at < 0) {
      out.push(rest);
      break;
    }
    if (at > 0) out.push(rest.slice(0, at));
    out.push(h('span', { translate: 'no' }, value));
    rest = rest.slice(at + value.length);
  }
  return out;
}
