// register.ts (offline) — registers sw.js (production builds only) and, on hosts that can't send
// COOP/COEP headers, reloads the page once when the service worker takes control, so that the
// page becomes cross-origin isolated (the coi-serviceworker technique) and trains with threads.
// `prepareReload` keeps what the person did before it (their settings, their text) for the
// reloaded page, or says no (a live model): then it only reports that a reload enables threads.

import { t } from '../../i18n';

const FLAG = 'tinygpt-coi-reload';

export interface SwStatus {
  registered: boolean;
  message: string;
}

export async function registerServiceWorker(prepareReload: () => Promise<boolean>, onHint: (text: string) => void): Promise<SwStatus> {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator) || !window.isSecureContext) {
    return { registered: false, message: 'no service worker (development server or insecure context)' };
  }
  const maybeReload = async () => {
    if (window.crossOriginIsolated) return;
    if (sessionStorage.getItem(FLAG)) return;          // tried once already: the host or browser prevents it
    if (!(await prepareReload())) {
      onHint(t().page.reloadForThreads);
      return;
    }
    sessionStorage.setItem(FLAG, '1');
    window.location.reload();
  };
  try {
    const reg = await navigator.serviceWorker.register(new URL('./sw.js', document.baseURI), { scope: './' });
    if (window.crossOriginIsolated) sessionStorage.removeItem(FLAG);
    // already installed but this load wasn't controlled (e.g. a hard reload): reload once under it
    if (reg.active && !navigator.serviceWorker.controller) void maybeReload();
    navigator.serviceWorker.addEventListener('controllerchange', () => void maybeReload());
    return { registered: true, message: 'offline cache active' };
  } catch (e) {
    return { registered: false, message: `service worker not registered: ${e instanceof Error ? e.message : e}` };
  }
}
