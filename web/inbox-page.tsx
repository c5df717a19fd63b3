// The inbox (#/notifications, D-72, D-277), a person's only (keys mode): what concerns them, newest
// first, a page at a time ("Show older" follows the Link header's cursor). Each says what happened
// in words, when, and links to what it is about: an approval requested to the Approvals page, an
// approval's outcome to the deal, a gig to the closer desk. Opening one marks it read; "Mark all
// read" marks those shown (one call each); "Show unread only" lists the unread. The page reads its
// first page again when the header's count moved (a new notification, or one read elsewhere), so
// it is live like the count. The person's mail settings are under the list.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.ts';
import { unreachableWords } from './error-words.ts';
import { inbox, type Notification, routeOf } from './inbox-api.ts';
import { titleWords, whereWords } from './inbox-words.ts';
import { useNotice } from './notice.ts';
import { NotificationSettings } from './notification-settings.tsx';
import { markedRead, readUnread, useUnread } from './unread-count.tsx';
import { plural, when } from './words.ts';

/** The deals' account names by id, kept while the page is open in the tab (null: not readable). */
const dealNames = new Map<string, string | null>();

/** Reads the names of the deals not read yet, a few at a time (a deal page's GET each). */
async function readDealNames(ids: readonly string[]): Promise<boolean> {
  const unknown = [...new Set(ids)].filter((id) => !dealNames.has(id));
  // Taken at once, so a read that overlaps this one does not ask for them again.
  for (const id of unknown) dealNames.set(id, null);
  for (let i = 0; i < unknown.length; i += 6) {
    await Promise.all(
      unknown.slice(i, i + 6).map(async (id) => {
        const answer = await api.GET('/pipeline/deals/{id}', { params: { path: { id } } }).catch(() => undefined);
        dealNames.set(id, answer?.data?.account.name ?? null);
      }),
    );
  }
  return unknown.length > 0;
}

/** A notification's number: the later made, the higher (`ntf_0012` → 12). */
const numberOf = (n: Notification) => Number(n.id.replace(/^\D+/, ''));

/**
 * The fresh first page with the ones already shown that it does not hold, newest first as the
 * service lists them; the fresh page alone if the two do not meet (more came than a page holds).
 */
function merged(fresh: Notification[], shown: Notification[]): Notification[] | undefined {
  const ids = new Set(fresh.map((n) => n.id));
  if (!shown.some((n) => ids.has(n.id))) return undefined;
  return [...fresh, ...shown.filter((n) => !ids.has(n.id))].sort((a, b) => numberOf(b) - numberOf(a));
}

type Said = { text: string; refused: boolean };

export function InboxPage() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [list, setList] = useState<Notification[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [unreachable, setUnreachable] = useState('');
  const [busy, setBusy] = useState(false);
  const [, setNamesRead] = useState(0);
  const [said, say] = useNotice<Said>();
  const { count, moved } = useUnread();
  const shown = useRef<Notification[]>([]);
  shown.current = list ?? [];

  // Reads overlap (the filter changed, the count moved): only the newest answer shows.
  const latest = useRef(0);
  const readFirst = useCallback(
    async (keep: boolean) => {
      const mine = ++latest.current;
      try {
        const page = await inbox.page(unreadOnly);
        if (mine !== latest.current) return;
        const together = keep ? merged(page.records, shown.current) : undefined;
        setList(together ?? page.records);
        if (!together) setNext(page.next);
        setUnreachable('');
      } catch (error) {
        if (mine === latest.current)
          setUnreachable(unreachableWords(error).replace(' Retrying…', ' The page reads it again on the next change.'));
      }
    },
    [unreadOnly],
  );
  useEffect(() => {
    setList(undefined);
    readFirst(false);
  }, [readFirst]);
  // The header's count moved (not by this page's own reads): something new, or read elsewhere.
  const seenMoved = useRef(moved);
  useEffect(() => {
    if (moved === seenMoved.current) return;
    seenMoved.current = moved;
    readFirst(true);
  }, [moved, readFirst]);

  // The deals the approvals' notifications are about, by their accounts' names.
  useEffect(() => {
    const ids = (list ?? []).filter((n) => n.type.startsWith('approval.') && n.dealId).map((n) => n.dealId as string);
    readDealNames(ids).then((read) => read && setNamesRead((n) => n + 1));
  }, [list]);

  const showOlder = async () => {
    if (!next) return;
    const mine = latest.current;
    setBusy(true);
    try {
      const page = await inbox.page(unreadOnly, next);
      if (mine !== latest.current) return;
      const have = new Set(shown.current.map((n) => n.id));
      setList([...shown.current, ...page.records.filter((n) => !have.has(n.id))]);
      setNext(page.next);
    } catch (error) {
      setUnreachable(unreachableWords(error).replace(' Retrying…', ' Try again.'));
    } finally {
      setBusy(false);
    }
  };

  /** Marks these read, a few calls at a time; answers how many the service marked. */
  const markRead = async (notes: readonly Notification[]): Promise<number> => {
    let marked = 0;
    for (let i = 0; i < notes.length; i += 6) {
      const answers = await Promise.all(notes.slice(i, i + 6).map((n) => inbox.markRead(n.id).catch(() => undefined)));
      const read = new Map(answers.flatMap((a) => (a?.ok ? [[a.data.id, a.data] as const] : [])));
      marked += read.size;
      markedRead(read.size);
      setList((now) => now?.map((n) => read.get(n.id) ?? n));
    }
    return marked;
  };

  /** Opening one (its link) marks it read; the link goes on to what it is about meanwhile. */
  const opened = (n: Notification) => {
    if (!n.read) markRead([n]);
  };

  const markAll = async () => {
    const unread = shown.current.filter((n) => !n.read);
    setBusy(true);
    try {
      const marked = await markRead(unread);
      say(
        marked === unread.length
          ? { text: `Marked ${plural(marked, 'notification')} read.`, refused: false }
          : { text: `Marked ${marked} of ${unread.length} read: try again for the others.`, refused: true },
      );
      // The count again from the service: what the page marked, and anything read elsewhere.
      readUnread();
    } finally {
      setBusy(false);
    }
  };

  // A title names a key by its id only when the key's name was not kept: it is one of the
  // person's own Seller's keys, said so without a read of every key.
  const notes = list ?? [];
  const unreadShown = notes.filter((n) => !n.read).length;
  return (
    <section class="inbox" aria-labelledby="inbox-heading">
      <h1 id="inbox-heading">Notifications</h1>
      <p class="hint">
        What concerns you: proposals waiting for an approval you may give, how the proposals of keys you made ended, and
        new gigs in your industries. Opening one marks it read.
      </p>
      <div class="inbox-tools">
        <label>
          <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} />
          Show unread only
        </label>
        <button type="button" class="secondary" disabled={busy || unreadShown === 0} onClick={markAll}>
          Mark all read
        </button>
        {count !== undefined ? <span class="muted">{plural(count, 'unread notification')} in all</span> : null}
      </div>
      {said ? (
        <p role={said.refused ? 'alert' : 'status'} class={said.refused ? 'refused' : 'done'}>
          {said.text}
        </p>
      ) : null}
      {unreachable ? (
        <p role="alert" class="unreachable">
          {unreachable}
        </p>
      ) : null}
      {list === undefined ? (
        <p>Reading your notifications…</p>
      ) : notes.length === 0 ? (
        <p class="empty">{unreadOnly ? 'Nothing unread.' : 'No notifications yet.'}</p>
      ) : (
        <ol class="inbox-list" aria-label="Your notifications">
          {notes.map((n) => (
            <NotificationItem
              key={n.id}
              n={n}
              words={titleWords(n)}
              deal={n.dealId && n.type !== 'gig.posted' ? dealNames.get(n.dealId) : undefined}
              opened={opened}
            />
          ))}
        </ol>
      )}
      {next ? (
        <button type="button" class="secondary" disabled={busy} onClick={showOlder}>
          Show older
        </button>
      ) : null}
      <NotificationSettings />
    </section>
  );
}

/** One notification: unread marked, what happened (the link), its deal, when, and where it leads. */
function NotificationItem({
  n,
  words,
  deal,
  opened,
}: {
  n: Notification;
  words: string;
  deal?: string | null;
  opened: (n: Notification) => void;
}) {
  return (
    <li class={n.read ? 'notification' : 'notification unread'}>
      <p class="notification-title">
        {n.read ? null : (
          <>
            <span class="unread-mark">Unread</span>{' '}
          </>
        )}
        <a href={`#${routeOf(n)}`} title={n.title} onClick={() => opened(n)}>
          {words}
        </a>
      </p>
      <p class="notification-meta">
        {deal ? <span>{deal}</span> : null}
        <time dateTime={n.at}>{when(n.at)}</time>
        <span>{whereWords(n)}</span>
      </p>
    </li>
  );
}
