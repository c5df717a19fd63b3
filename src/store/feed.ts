// The feed's own shapes (D-40, D-41): an event as the feed keeps it, and a page's filter. Apart
// from store.ts so that the webhook tables, which the store port includes, can name them too.
import type { PublicEventDraft, PublicEventType } from '../domain/public-events.ts';

/** A public event as the feed keeps it (D-40, D-41): what was published and its place in the feed. */
export interface StoredEvent {
  /** Positive, increasing in feed order, never reused (not even after a reset). */
  seq: number;
  event: PublicEventDraft;
}

/** A page of the feed (D-41): events with seq > after, in seq order, filtered. */
export interface EventFilter {
  after: number;
  limit: number;
  type?: PublicEventType;
  /** Only events of these types (the notifier's, D-72); alone of the filters. */
  types?: readonly PublicEventType[];
  dealId?: string;
  /** D-58: only the events this Seller sees (its deals', and the platform's: seesEvent). */
  sellerId?: string;
  /** D-58: only the events this closer sees (about itself, the postings, the platform's: seesEvent). */
  closerId?: string;
}
