// language-switch.ts — English / 中文, top right. Each language is named in itself; the choice
// is remembered (i18n/index.ts) and the page relabels itself without a reload.
import { type Locale, LOCALE_NAMES, locale, setLocale, tr } from '../i18n';
import { h } from './dom';

export function bindLanguageSwitch(slot: HTMLElement): void {
  const select = h('select', { id: 'language', 'aria-label': tr((m) => m.page.language), title: tr((m) => m.page.languageTitle) },
    ...(Object.keys(LOCALE_NAMES) as Locale[]).map((l) =>
      h('option', { value: l, lang: l, translate: 'no' }, LOCALE_NAMES[l]))) as HTMLSelectElement;
  select.addEventListener('change', () => void setLocale(select.value as Locale).catch(() => { select.value = locale.get(); }));
  locale.subscribe((l) => { select.value = l; });
  slot.replaceWith(select);
}
