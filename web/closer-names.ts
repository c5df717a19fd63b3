// The closers' names (D-228): a page shows a closer by name, never by its id. The names are read
// once (GET /closers/closers) and again only when a page meets an id it does not know.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { allClosers } from './api.ts';

type Names = ReadonlyMap<string, string>;
let names: Promise<Names> | undefined;

/** The closers' names by id, read once and again only for an unknown id. */
function readNames(): Promise<Names> {
  names ??= allClosers()
    .then((all) => new Map(all.map((c) => [c.id, c.name])))
    .catch(() => {
      names = undefined;
      return new Map();
    });
  return names;
}

/** The closers' names, and a function naming one (its id until the names are read). */
export function useCloserNames(ids: readonly string[] = []): (id: string) => string {
  const [known, setKnown] = useState<Names>(new Map());
  const wanted = ids.join();
  useEffect(() => {
    let live = true;
    (async () => {
      let found = await readNames();
      if (ids.some((id) => !found.has(id))) {
        names = undefined;
        found = await readNames();
      }
      if (live) setKnown(found);
    })();
    return () => {
      live = false;
    };
  }, [wanted]);
  return useCallback((id: string) => known.get(id) ?? id, [known]);
}

/** The closer ids a text names. */
export const closerIdsIn = (text: string) => [...text.matchAll(/\bcloser_\d+\b/g)].map((m) => m[0]);
