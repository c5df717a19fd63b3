// The "Download CSV" button (D-74) of the lists (the board's deals, the refused proposals, the
// approvals, a closer's payouts) and of each insight's table: it saves the file, says so while
// it reads, and says in words what went wrong when nothing could be saved. `what` completes its
// name for a screen reader where a page has several ("Download CSV of the funnel").
import { useState } from 'preact/hooks';
import { useNotice } from './notice.ts';

/** `save`: saves the file; answers undefined, or the words of what went wrong. */
export function DownloadCsv({ save, what }: { save: () => Promise<string | undefined> | undefined; what?: string }) {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useNotice<{ words: string; refused: true }>();
  const click = async () => {
    setBusy(true);
    setSaid(undefined);
    try {
      const failed = await save();
      if (failed) setSaid({ words: failed, refused: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="download">
      <button type="button" class="secondary" disabled={busy} onClick={click}>
        {busy ? 'Preparing the CSV…' : 'Download CSV'}
        {what && !busy ? <span class="visually-hidden"> of {what}</span> : null}
      </button>
      {said ? <span role="alert">{said.words}</span> : null}
    </span>
  );
}
