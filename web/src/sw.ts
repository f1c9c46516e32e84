/// <reference lib="webworker" />
// sw.ts — the site's one service worker. It does two jobs, because only one service worker can
// control a scope:
//  1. Cross-origin isolation on static hosts that can't set headers (GitHub Pages): it adds
//     COOP same-origin + COEP require-corp to every response it serves, the technique of the
//     coi-serviceworker package (features/offline/register.ts reloads once so the page runs isolated, which
//     enables SharedArrayBuffer and the threads build).
//  2. Offline use: at install it caches every file of the build (the list is written into this
//     file at build time, see web/tools/assets-plugin.ts): app shell, wasm builds and the built-in
//     corpus. Hashed assets are served cache-first; the page itself network-first, falling back
//     to the cache when offline.
// Keep this file free of imports: it is built as a standalone classic script.
export {};

declare const self: ServiceWorkerGlobalScope;

interface Manifest { version: string; files: string[] }
// the string is replaced at build time by {"version": "...", "files": ["./", "index.html", ...]}
const manifest: Manifest = JSON.parse('__TINYGPT_PRECACHE_MANIFEST__');
const CACHE = `tinygpt-${manifest.version}`;
const scope = new URL(self.registration.scope);

function withIsolation(response: Response): Response {
  // opaque and error responses can't be rewritten (and a same-origin page never needs them)
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(manifest.files.map((f) => new Request(new URL(f, scope).href, { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith('tinygpt-') && key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

function isPage(request: Request, url: URL): boolean {
  return request.mode === 'navigate' || url.pathname === scope.pathname || url.pathname.endsWith('/index.html');
}

async function networkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request.url.split('?')[0].split('#')[0], response.clone());
    return response;
  } catch (e) {
    const cached = (await cache.match(request, { ignoreSearch: true })) ?? (await cache.match(new URL('./', scope).href));
    if (cached) return cached;
    throw e;
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && request.method === 'GET') await cache.put(request, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith((isPage(request, url) ? networkFirst(request) : cacheFirst(request)).then(withIsolation));
});
