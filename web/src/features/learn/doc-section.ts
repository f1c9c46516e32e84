// doc-section.ts — a section of docs/ as the learn-by-hand boxes show it: Markdown rendered by
// marked, its math ($…$, $$…$$) by KaTeX (both well-kept; a hand-written renderer would miss the
// tables and the TeX). A chunk of its own, fetched the first time a box opens its section.
import 'katex/dist/katex.min.css';

import { Marked } from 'marked';
import markedKatex from 'marked-katex-extension';

// nonStandard: inline math right next to a CJK character or punctuation ("令$H_0$为"), as the
// Chinese twins write it; throwOnError false: a formula KaTeX can't set stays visible as its source
const marked = new Marked(markedKatex({ throwOnError: false, nonStandard: true, output: 'html' }));

/**
 * The section's Markdown as DOM. The source is the site's own docs/ (same origin, built with the
 * page), so its HTML is trusted. Marked translate="no": the section is already in the page's
 * language (the twin of the page in Chinese), its words and formulas are its own.
 */
export function renderDocSection(markdown: string): HTMLElement {
  const body = document.createElement('div');
  body.className = 'doc-section';
  body.setAttribute('translate', 'no');
  body.innerHTML = marked.parse(markdown, { async: false });
  return body;
}
