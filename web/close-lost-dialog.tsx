// The close-lost dialog of a deal's page (D-229): a reason is required; confirm or cancel.
import { useEffect, useRef, useState } from 'preact/hooks';

export function CloseLostDialog({
  onConfirm,
  onCancel,
}: {
  onConfirm: (reason: string) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="close-lost-title" class="confirm" onCancel={onCancel}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) onConfirm(reason.trim());
        }}
      >
        <h2 id="close-lost-title" class="dialog-title">
          Close this deal as lost?
        </h2>
        <p>It leaves the pipeline; it can be re-engaged later as a new deal.</p>
        <label>
          Reason{' '}
          <textarea
            required
            rows={3}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
            placeholder="e.g. chose a competitor"
          />
        </label>
        <div class="actions">
          <button type="submit">Confirm close lost</button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
