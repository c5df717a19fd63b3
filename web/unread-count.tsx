// The header's unread count (D-72, D-277), live: a link to the inbox beside the signed-in person,
// named for screen readers with its count ("Notifications, 3 unread"). The count is the summary's
// (`GET /users/me/notifications/summary`), read when the header shows, a little after an event
// that may have made a notification (approval.* and gig.posted: the notifier writes it within
// about a second of the event, so the read right after an event may be too early and is tried
// again twice, until the count changes), and every 30 s as a fallback for what the stream cannot
// say (a notification read in another tab). One count per page, shared with the inbox, which
// lowers it as it marks notifications read and reads its list again when the count moved.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { inbox } from './inbox-api.ts';
import { type LiveEvent, useLive } from './live.ts';

/** What the page knows: the count (undefined until read) and how often the service's count moved. */
export interface Unread {
  count?: number;
  /** Bumped when a read of the service found a count other than the one known: the inbox reads again. */
  moved: number;
}

let known: Unread = { moved: 0 };
const watchers = new Set<(unread: Unread) => void>();

function set(next: Unread) {
  known = next;
  for (const watcher of watchers) watcher(next);
}

/** The count as the page knows it, re-rendering the component when it changes. */
export function useUnread(): Unread {
  const [now, setNow] = useState(known);
  useEffect(() => {
    watchers.add(setNow);
    setNow(known);
    return () => {
      watchers.delete(setNow);
    };
  }, []);
  return now;
}

let reading: Promise<void> | undefined;
let again = false;

/** Reads the count; a read asked for while one is on its way follows it (once), never beside it. */
export function readUnread(): Promise<void> {
  if (reading) {
    again = true;
    return reading;
  }
  reading = (async () => {
    do {
      again = false;
      const count = await inbox.unread().catch(() => undefined);
      if (count !== undefined && count !== known.count)
        set({ count, moved: known.count === undefined ? known.moved : known.moved + 1 });
    } while (again);
  })().finally(() => {
    reading = undefined;
  });
  return reading;
}

/** The inbox marked some read itself: the count goes down without asking the service. */
export function markedRead(howMany = 1) {
  if (known.count !== undefined) set({ ...known, count: Math.max(0, known.count - howMany) });
}

/** The fallback: the count is read this often, while the page is visible. */
const POLL_MS = 30_000;
/** After an event that may notify: when to read, from the event on (until the count changes). */
const AFTER_EVENT_MS = [400, 1500, 4000];

/** Whether an event may have made a notification for someone (D-72). */
const notifies = (event: LiveEvent) => event.type.startsWith('approval.') || event.type === 'gig.posted';

/** Reads the count now, after events that may notify, and every POLL_MS: mounted once, in the header. */
function useUnreadFollower() {
  useEffect(() => {
    readUnread();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') readUnread();
    }, POLL_MS);
    const shown = () => {
      if (document.visibilityState === 'visible') readUnread();
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', shown);
      clearFollowUps();
    };
  }, []);
  useLive(
    useCallback((event: LiveEvent) => {
      if (!notifies(event)) return;
      // A burst of events is followed once: the follow-ups start again from its last event.
      clearFollowUps();
      const before = known.count;
      for (const ms of AFTER_EVENT_MS)
        followUps.push(
          setTimeout(() => {
            if (known.count === before) readUnread();
          }, ms),
        );
    }, []),
  );
}

let followUps: ReturnType<typeof setTimeout>[] = [];
function clearFollowUps() {
  for (const timer of followUps) clearTimeout(timer);
  followUps = [];
}

/** `Notifications, 3 unread`; `none unread`; just `Notifications` until the count is read. */
export function unreadName(count: number | undefined): string {
  if (count === undefined) return 'Notifications';
  return `Notifications, ${count === 0 ? 'none' : count.toLocaleString('en-US')} unread`;
}

/** The header's link to the inbox, with its count as a badge (none when nothing is unread). */
export function UnreadLink({ current }: { current: boolean }) {
  useUnreadFollower();
  const { count } = useUnread();
  return (
    <a
      href="#/notifications"
      class="inbox-link"
      aria-label={unreadName(count)}
      aria-current={current ? 'page' : undefined}
    >
      Notifications
      {count ? (
        <span class="badge" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      ) : null}
    </a>
  );
}
