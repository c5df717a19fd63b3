// A person's mail settings (D-72), on the inbox page: which notifications also come by mail. The
// inbox has them all whatever is chosen; mail goes at once for approval requests and outcomes,
// and as one digest at most every 15 minutes for gigs. Read with GET and saved whole with PUT
// (`/users/me/notification-settings`); a refusal is said beside the form.
import { useEffect, useState } from 'preact/hooks';
import { errorWords } from './error-words.ts';
import { inbox, type MailSettings } from './inbox-api.ts';
import { useNotice } from './notice.ts';

type Choice = keyof MailSettings['email'];

/** Each choice in words: its label, and what it sends. */
const CHOICES: { name: Choice; label: string; hint: string }[] = [
  {
    name: 'approvals',
    label: 'Approval requests',
    hint: 'at once, when a key’s proposal waits for an approval you may give',
  },
  {
    name: 'outcomes',
    label: 'Outcomes of my keys’ proposals',
    hint: 'at once, when a proposal of a key you made is approved, denied, expires or is superseded',
  },
  {
    name: 'gigs',
    label: 'Gig digests',
    hint: 'new gigs in your industries, one mail at most every 15 minutes',
  },
];

type Said = { text: string; refused: boolean; raw?: string };

export function NotificationSettings() {
  const [saved, setSaved] = useState<MailSettings['email'] | undefined>();
  const [draft, setDraft] = useState<MailSettings['email'] | undefined>();
  const [unreadable, setUnreadable] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, say] = useNotice<Said>();

  useEffect(() => {
    let live = true;
    inbox.settings().then(
      (answer) => {
        if (!live) return;
        if (answer.ok) {
          setSaved(answer.data.email);
          setDraft(answer.data.email);
        } else setUnreadable(`Your mail settings could not be read: ${errorWords(answer.error)}`);
      },
      () => live && setUnreadable('Cannot reach the service: reload the page to read your mail settings.'),
    );
    return () => {
      live = false;
    };
  }, []);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    setBusy(true);
    try {
      const answer = await inbox.saveSettings({ email: draft });
      if (answer.ok) {
        setSaved(answer.data.email);
        setDraft(answer.data.email);
        say({ text: 'Saved your mail settings.', refused: false });
      } else say({ text: errorWords(answer.error), refused: true, raw: answer.error.error });
    } catch {
      say({ text: 'Cannot reach the service: nothing was saved. Try again.', refused: true });
    } finally {
      setBusy(false);
    }
  };

  const changed = draft !== undefined && saved !== undefined && CHOICES.some((c) => draft[c.name] !== saved[c.name]);
  return (
    <section class="mail-settings" aria-labelledby="mail-settings-heading">
      <h2 id="mail-settings-heading">Mail settings</h2>
      <p class="hint">Every notification is in this inbox; these also come by mail to your email.</p>
      {unreadable ? (
        <p role="alert" class="refused">
          {unreadable}
        </p>
      ) : draft === undefined ? (
        <p>Reading your mail settings…</p>
      ) : (
        <form aria-label="Mail settings" onSubmit={save}>
          <fieldset>
            <legend>Send me a mail for</legend>
            {CHOICES.map((choice) => (
              <div class="mail-choice" key={choice.name}>
                <label>
                  <input
                    type="checkbox"
                    checked={draft[choice.name]}
                    onChange={(e) => setDraft({ ...draft, [choice.name]: e.currentTarget.checked })}
                    aria-describedby={`mail-${choice.name}-hint`}
                  />
                  {choice.label}
                </label>
                <span class="muted" id={`mail-${choice.name}-hint`}>
                  {choice.hint}
                </span>
              </div>
            ))}
          </fieldset>
          <button type="submit" disabled={busy || !changed}>
            Save mail settings
          </button>
          {said ? (
            <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'} title={said.raw}>
              {said.text}
            </p>
          ) : null}
        </form>
      )}
    </section>
  );
}
