// shortcuts.ts — the keyboard: Space starts or pauses training, g generates a sample, ? shows
// the help (a <dialog>, which closes with Esc). Keys typed into a field, or Space on a button
// (which presses that button), are left alone.

export interface ShortcutActions {
  startPause(): void;
  generate(): void;
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

export function installShortcuts(help: HTMLDialogElement, helpButton: HTMLElement, actions: ShortcutActions): void {
  helpButton.addEventListener('click', () => help.showModal());
  window.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || help.open) return;
    const onControl = (e.target as HTMLElement | null)?.closest?.('button, a, summary, [role=button], label.button');
    if (e.key === ' ' && !onControl) {
      e.preventDefault();
      actions.startPause();
    } else if (e.key === 'g') {
      actions.generate();
    } else if (e.key === '?') {
      e.preventDefault();
      help.showModal();
    }
  });
}
