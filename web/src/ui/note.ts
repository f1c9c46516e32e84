// note.ts — drawing a Note: a sentence a store keeps as a message to word, not as words, so
// that it is worded in the page's language when it is drawn and again at a switch.
import { locale, type Msg, t } from '../i18n';
import { coreText } from '../i18n/core-messages';
import { coreNode } from './core-message';
import { h } from './dom';

/**
 * A sentence the page shows, worded when it is drawn (a language switch rewords it): a catalogue
 * message, or a message of the core or the worker (`core`: its English; `from`: the object
 * carrying its code and args, i18n/core-messages.ts) between catalogue words.
 */
export type Note = Msg | CoreNote;
export interface CoreNote { core: string; from?: object; before?: Msg; after?: Msg }

/** The note as plain text in the page's language (a core message the catalogue lacks: its English). */
export function noteText(note: Note | null | undefined): string {
  if (!note) return '';
  if (typeof note === 'function') return note(t());
  return `${note.before?.(t()) ?? ''}${coreText(note.core, note.from)}${note.after?.(t()) ?? ''}`;
}

/** The note as DOM: a core message the catalogue does not word is shown as the core wrote it, marked (coreNode). */
export function noteNode(note: Note): Node {
  if (typeof note === 'function') return document.createTextNode(note(t()));
  return h('span', {}, note.before?.(t()) ?? '', coreInline(note.core, note.from), note.after?.(t()) ?? '');
}

/** What a NoteLine shows besides a note: DOM drawn in the page's language (withData, say). */
export interface Drawn { draw: () => Node }

/**
 * A line of a panel showing one note at a time (a status, why a button can't be used), worded
 * again when the language switches. `value` goes to data-value (tests read it).
 */
export class NoteLine {
  private note: Note | Drawn | null = null;
  private value: string | undefined;

  constructor(readonly el: HTMLElement) {
    locale.listen(() => this.draw());
  }

  get current(): Note | Drawn | null {
    return this.note;
  }

  set(note: Note | Drawn | null, value?: number | string): void {
    if (note === this.note && (value === undefined || String(value) === this.value)) return;
    this.note = note;
    this.value = value === undefined ? undefined : String(value);
    this.draw();
  }

  private draw(): void {
    if (this.value !== undefined) this.el.dataset.value = this.value;
    if (!this.note) {
      if (this.el.firstChild) this.el.replaceChildren();
      return;
    }
    // plain text stays one text node (setText's habit: no redraw when the words are the same)
    if (typeof this.note === 'function') {
      const text = this.note(t());
      if (this.el.textContent !== text || this.el.children.length) this.el.textContent = text;
    } else if ('draw' in this.note) this.el.replaceChildren(this.note.draw());
    else this.el.replaceChildren(noteNode(this.note));
  }
}

/**
 * A message with data in it (a character, bytes in hex, a file's or a run's name) as DOM: the
 * data sits in translate="no" spans (the zh-CN check and a translating browser leave it alone),
 * the words around it are the message's. Either `build` words the message with `slot(i)` where
 * data[i] goes — withData((slot) => t().sample.tip.charBytes(slot(0), slot(1)), ['中', 'e4 b8 ad'])
 * — or the message is already worded and each data value is found by its exact text in it
 * (the longest first): withData(t().data.notice.notCheckpoint(name), [name]).
 */
export function withData(build: string | ((slot: (i: number) => string) => string), data: readonly (string | number)[]): DocumentFragment {
  const out = document.createDocumentFragment();
  const datum = (v: string | number) => h('span', { translate: 'no' }, String(v));
  if (typeof build === 'function') {
    for (const part of build((i) => `\u0001${i}\u0002`).split(/(\u0001\d+\u0002)/)) {
      const slot = /^\u0001(\d+)\u0002$/.exec(part);
      if (slot) out.append(datum(data[Number(slot[1])]));
      else if (part) out.append(part);
    }
    return out;
  }
  const values = data.map(String).filter((d) => d.length > 0).sort((a, b) => b.length - a.length);
  let rest = build;
  while (rest) {
    let at = -1;
    let value = '';
    for (const v of values) {
      const i = rest.indexOf(v);
      if (i >= 0 && (at < 0 || i < at)) [at, value] = [i, v];
    }
    if (at < 0) break;
    if (at > 0) out.append(rest.slice(0, at));
    out.append(datum(value));
    rest = rest.slice(at + value.length);
  }
  if (rest) out.append(rest);
  return out;
}

/**
 * A core message inside one of the page's sentences (coreNode: on the English page the core's own
 * sentence; in Chinese its wording with the args marked as data, or the English marked as such).
 */
export function coreInline(text: string, from?: object): Node {
  return coreNode(text, from);
}
