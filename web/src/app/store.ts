// store.ts — each feature keeps its state in a store of its own: a nanostores `map` (about 1 kB),
// written only by that feature, read by others through what the feature exports. A panel that
// shows several features' state reads them as one object through a View: `get()` merges the
// stores (their keys are distinct), `watch(view, keys, fn)` calls fn when one of those keys
// changes in whichever store has it (nanostores' listenKeys), so a progress event redraws the
// training numbers but not the settings form. The page's language is one of a view's keys
// (`locale`): panels that word text list it to be redrawn at a switch.
import { listenKeys, map, type MapStore } from 'nanostores';

import { type Locale, locale } from '../i18n';

export { map, type MapStore };

/** Changes several keys with one notification (listeners of unchanged keys are not called). */
export function patch<S extends object>(store: MapStore<S>, changes: Partial<S>): void {
  store.set({ ...store.get(), ...changes });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any slice (MapStore is invariant in its value)
type AnyStore = MapStore<any>;
type StateOf<T> = T extends MapStore<infer S> ? S : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Merged<T extends readonly AnyStore[]> = UnionToIntersection<StateOf<T[number]>> & { locale: Locale };

/** Several stores read as one (and the page's language as `locale`). */
export interface View<S extends object> {
  get(): S;
  /** fn on every change of one of `keys` (not called now). */
  listen(keys: readonly (keyof S)[], fn: () => void): () => void;
}

export function view<T extends readonly AnyStore[]>(...stores: T): View<Merged<T>> {
  const owner = new Map<string, AnyStore>();
  for (const s of stores) for (const k of Object.keys(s.get())) owner.set(k, s);
  return {
    get: () => Object.assign({}, ...stores.map((s) => s.get()), { locale: locale.get() }) as Merged<T>,
    listen(keys, fn) {
      const offs: (() => void)[] = [];
      const byStore = new Map<AnyStore, string[]>();
      for (const k of keys as string[]) {
        if (k === 'locale') {
          offs.push(locale.listen(() => fn()));
          continue;
        }
        const s = owner.get(k);
        if (!s) throw new Error(`no store has '${k}'`);
        byStore.set(s, [...(byStore.get(s) ?? []), k]);
      }
      for (const [s, ks] of byStore) offs.push(listenKeys(s, ks, () => fn()));
      return () => offs.forEach((off) => off());
    },
  };
}

/** Calls fn(state) now and whenever one of `keys` changes (`locale`: the page's language). */
export function watch<S extends object>(v: View<S>, keys: readonly (keyof S)[], fn: (s: S) => void): () => void;
export function watch<S extends object>(v: MapStore<S>, keys: readonly (keyof S | 'locale')[], fn: (s: S & { locale: Locale }) => void): () => void;
export function watch(v: View<object> | AnyStore, keys: readonly PropertyKey[], fn: (s: never) => void): () => void {
  const w = ('setKey' in v ? view(v) : v) as View<object>;
  const off = w.listen(keys as never[], () => fn(w.get() as never));
  fn(w.get() as never);
  return off;
}
