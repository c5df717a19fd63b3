// The in-memory adapter (the demo default, D-3). One unit of work at a time: a queue
// serializes them, writes go straight to the tables (memory-data.ts) and an undo log rolls them
// back on a throw (memory-unit.ts); reads are memory-reader.ts's.
import type { EventFilter, Store, StoredEvent, StoreReader, UnitOfWork } from '../store.ts';
import { emptyData } from './memory-data.ts';
import { MemoryReader } from './memory-reader.ts';
import { MemoryUnitOfWork } from './memory-unit.ts';

export class MemoryStore implements Store {
  readonly runsUnitsAgain = false;
  private data = emptyData();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly webhookWatchers = new Set<() => void>();

  /** Runs work after every earlier unit of work has finished. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  read<T>(work: (reader: StoreReader) => Promise<T>): Promise<T> {
    return this.serialize(() => work(new MemoryReader(this.data)));
  }

  transaction<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      const uow = new MemoryUnitOfWork(this.data, (data) => {
        this.data = data;
      });
      try {
        const result = await work(uow);
        if (uow.webhooksChanged) for (const watcher of this.webhookWatchers) watcher();
        return result;
      } catch (error) {
        for (const step of uow.undo.reverse()) step();
        throw error;
      }
    });
  }

  events(filter: EventFilter): Promise<StoredEvent[]> {
    return this.serialize(async () => {
      const { closerId } = filter;
      if (closerId === undefined) return this.data.events.page(filter);
      // D-237: a closer reads the postings of the gigs that are open now, and of its own.
      const { gigs } = this.data;
      return this.data.events.page(filter, (gigId) => {
        const gig = gigs.get(gigId);
        return gig !== undefined && (gig.status === 'open' || gig.closerId === closerId);
      });
    });
  }

  lastSeq(): Promise<number> {
    return this.serialize(async () => this.data.events.lastSeq);
  }

  /** One instance only: its own moves of the clock are all there is. */
  watchClockOffset(): () => void {
    return () => undefined;
  }

  watchWebhooks(listener: () => void): () => void {
    this.webhookWatchers.add(listener);
    return () => this.webhookWatchers.delete(listener);
  }

  async close() {}
}
