// The ledger's pages read again when the ledger may have moved: `load` once when shown, and once
// more SETTLE_MS after the last of a burst of live events that `matters` names. Answers how many
// times it read again, which a statement watches to read its month again too.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type LiveEvent, useLive } from './live.ts';

/** Events arriving together are answered by one read, this long after the last. */
const SETTLE_MS = 500;

export function useLedgerReads(load: () => Promise<void>, matters: (type: string) => boolean): number {
  const [again, setAgain] = useState(0);
  const settle = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    load();
    return () => clearTimeout(settle.current);
  }, [load]);
  useLive(
    useCallback(
      (event: LiveEvent) => {
        if (!matters(event.type)) return;
        clearTimeout(settle.current);
        settle.current = setTimeout(() => {
          load();
          setAgain((n) => n + 1);
        }, SETTLE_MS);
      },
      [load, matters],
    ),
  );
  return again;
}
