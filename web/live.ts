// The console follows the service's event stream (GET /events/stream, D-41): every committed
// change arrives as an event, so a page refreshes what the change touched without a reload.
import { useEffect } from 'preact/hooks';
import { PUBLIC_EVENT_TYPES } from '../src/domain/public-events.ts';
import { api } from './api.ts';

export interface LiveEvent {
  type: string;
  data: Record<string, unknown> & { dealId?: string; deal?: { id: string }; gig?: { dealId: string } };
}

type Listener = (event: LiveEvent) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

/**
 * Opens the stream once, from the feed's newest seq: it is read before any page reads the
 * records, so no change is missed (EventSource resumes with Last-Event-ID by itself).
 */
export async function connectLive(): Promise<void> {
  if (source) return;
  const page = await api.GET('/events', { params: { query: { limit: 1 } } });
  source = new EventSource(`/events/stream?after=${page.data?.lastSeq ?? 0}`);
  source.onmessage = (message) => deliver(message.data);
  // Each public event type is its own SSE event name.
  for (const type of PUBLIC_EVENT_TYPES)
    source.addEventListener(type, (message) => deliver((message as MessageEvent).data));
}

function deliver(text: string) {
  let event: LiveEvent;
  try {
    event = JSON.parse(text);
  } catch {
    return;
  }
  for (const listener of listeners) listener(event);
}

/** The deal an event is about, if any. */
export function dealOf(event: LiveEvent): string | undefined {
  return event.data.dealId ?? event.data.deal?.id ?? event.data.gig?.dealId;
}

/** Calls `listener` with every event while the component is mounted. */
export function useLive(listener: Listener) {
  useEffect(() => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [listener]);
}
