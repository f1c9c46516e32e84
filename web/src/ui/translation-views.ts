// translation-views.ts — the views only translation mode shows (the translate box and the
// translator's attention maps), gathered as one entry so main.ts loads them in one chunk of their
// own, the first time the page switches to translation.
export { AlignmentPanel } from './alignment-panel';
export { TranslatePanel } from './translate-panel';
