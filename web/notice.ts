// Notices that end (D-230): a notice of something done goes after NOTICE_MS and on navigation; a
// refusal stays until the next notice or navigation, since a person may need it to decide again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** How long a notice of something done stays: long enough to read, not forever. */
export const NOTICE_MS = 6000;

/** A notice: shown when set, gone after NOTICE_MS (unless refused) and on a hash change. */
export function useNotice<T extends { refused?: boolean } | string>(): [
  T | undefined,
  (notice: T | undefined) => void,
] {
  const [notice, setNotice] = useState<T | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    const clear = () => setNotice(undefined);
    addEventListener('hashchange', clear);
    return () => {
      removeEventListener('hashchange', clear);
      clearTimeout(timer.current);
    };
  }, []);
  const say = useCallback((next: T | undefined) => {
    clearTimeout(timer.current);
    setNotice(next);
    const lasting = typeof next === 'object' && next !== null && next.refused;
    if (next !== undefined && !lasting) timer.current = setTimeout(() => setNotice(undefined), NOTICE_MS);
  }, []);
  return [notice, say];
}
