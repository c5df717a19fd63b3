// D-76: an event stream lives no longer than its credential. On a keys-mode server (the store of
// TEST_STORE; the machine clock the test's, so that an expiry passes without waiting for it), a
// stream opened with a Seller's key or with a console session's cookie ends within 5 s of the
// key's revocation, its expiry, the end of a roll's grace, or the session's sign-out, even while
// nothing is written to it, and no event of a sale made after reaches it; a stream whose
// credential stands goes on. On two instances over PostgreSQL: test/postgres/key-revocation-instances.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { account, startTestServer, type TestServer } from '../support/http.ts';
import { as, bearer, makeKey, makeSeller, OP } from '../support/keys.ts';
import { openStream, type SseMessage, type Stream } from '../support/sse.ts';

const WITHIN_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The deal a message's event is about. */
function dealOf(message: SseMessage): string | undefined {
  const { data } = JSON.parse(message.data as string);
  return data.dealId ?? data.deal?.id ?? data.gig?.dealId;
}

/** Resolves with the ms it took `stream` to end; fails if it is still open after `limitMs`. */
async function endsWithin(stream: Stream, limitMs: number): Promise<number> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream is still open after ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([stream.ended, late]);
  } finally {
    clearTimeout(timer);
  }
  return Date.now() - start;
}

describe('D-76: an event stream ends with its credential', () => {
  let t: TestServer;
  /** Added to the machine clock: moves it past an expiry at once. */
  let skew = 0;
  let seller: string;
  /** The Seller's key that sells: never ended. */
  let writer: string;

  before(async () => {
    t = await startTestServer({
      clock: { now: () => Date.now() + skew },
      config: { auth: 'keys', operatorKey: OP },
    });
    seller = await makeSeller(t, 'Streaming Fictional Sales');
    writer = (await makeKey(t, OP, { name: 'writer', principal: seller })).key;
  });
  after(() => t?.close());

  const sell = async (name: string): Promise<string> => {
    const sold = await as(t, bearer(writer)).post(`${t.prefix}/sell`, {
      account: account({ name }),
      listValueUsd: 50_000,
    });
    assert.equal(sold.status, 201, sold.text);
    return sold.body.id;
  };

  /** The Seller's events of a deal, as its feed has them. */
  const eventsOf = async (dealId: string) => {
    const page = await as(t, bearer(writer)).get(`/events?dealId=${dealId}&limit=1000`);
    assert.equal(page.status, 200, page.text);
    return page.body.events as { seq: number }[];
  };

  /** A sale whose every event `stream` received (it is open and live). */
  const seenLive = async (stream: Stream, name: string) => {
    const dealId = await sell(name);
    const expected = (await eventsOf(dealId)).map((e) => String(e.seq));
    assert.ok(expected.length > 0);
    await stream.waitFor((m) => expected.every((seq) => m.some((x) => x.id === seq)));
  };

  /** A stream opened with these headers at the feed's end, shown live by a sale. */
  const liveStream = async (headers: Record<string, string>): Promise<Stream> => {
    const newest = (await as(t, bearer(OP)).get('/events?limit=1')).body.lastSeq as number;
    const stream = await openStream(t, `/events/stream?after=${newest}`, headers);
    assert.equal(stream.response.statusCode, 200);
    await seenLive(stream, 'Before the end');
    return stream;
  };

  /** A sale after the stream ended: the feed has it, the stream none of it. */
  const noneAfter = async (stream: Stream, received: number) => {
    const dealId = await sell('After the end');
    assert.ok((await eventsOf(dealId)).length > 0, 'the sale published');
    await sleep(200);
    assert.deepEqual(
      stream.messages.slice(received).filter((m) => dealOf(m) === dealId),
      [],
      'no event of the sale made after the credential ended',
    );
  };

  /**
   * Ends the credential, then at once sells: the stream ends within 5 s, and no event of that
   * sale reaches it (this instance knows of the end at once).
   */
  const endsBeforeTheSale = async (stream: Stream, end: () => Promise<void>) => {
    const received = stream.messages.length;
    await end();
    const dealId = await sell('Sold at the end');
    await endsWithin(stream, WITHIN_MS);
    assert.deepEqual(
      stream.messages.slice(received).filter((m) => dealOf(m) === dealId),
      [],
      'no event of the sale made once the credential ended',
    );
    await noneAfter(stream, received);
  };

  it("a Seller key's stream ends when the operator revokes the key, before the next sale's events", async () => {
    const key = await makeKey(t, OP, { name: 'to revoke', principal: seller });
    const stream = await liveStream(bearer(key.key));
    try {
      await endsBeforeTheSale(stream, async () => {
        assert.equal((await as(t, bearer(OP)).post(`/keys/${key.id}/revoke`, {})).status, 200);
      });
    } finally {
      stream.close();
    }
  });

  it('a stream to which nothing is written ends too: revoked by its own Seller, it ends within 5 s', async () => {
    const key = await makeKey(t, OP, { name: 'self-revoked', principal: seller });
    const stream = await liveStream(bearer(key.key));
    try {
      const received = stream.messages.length;
      assert.equal((await as(t, bearer(key.key)).post(`/keys/${key.id}/revoke`, {})).status, 200);
      await endsWithin(stream, WITHIN_MS);
      await noneAfter(stream, received);
    } finally {
      stream.close();
    }
  });

  it("a stream ends when its key expires (machine time), with nothing written to it, and gets no later sale's events", async () => {
    const key = await makeKey(t, OP, {
      name: 'expiring',
      principal: seller,
      expiresAt: new Date(Date.now() + skew + 60_000).toISOString(),
    });
    const stream = await liveStream(bearer(key.key));
    try {
      const received = stream.messages.length;
      await sleep(1200);
      assert.equal(stream.isEnded(), false, 'open while its key is live');
      skew += 61_000;
      await endsWithin(stream, WITHIN_MS);
      assert.equal((await as(t, bearer(key.key)).get(`${t.prefix}/deals`)).status, 401, 'the key is refused');
      await noneAfter(stream, received);
    } finally {
      stream.close();
    }
  });

  it("a rolled key's stream goes on through the grace and ends with it; the new key's stream goes on", async () => {
    const key = await makeKey(t, OP, { name: 'to roll', principal: seller });
    const old = await liveStream(bearer(key.key));
    let renewed: Stream | undefined;
    try {
      const roll = await as(t, bearer(OP)).post(`/keys/${key.id}/roll`, { graceSeconds: 30 });
      assert.equal(roll.status, 201, roll.text);
      renewed = await liveStream(bearer(roll.body.key));
      assert.equal(old.isEnded(), false, "the old key's stream goes on during the grace");
      await seenLive(old, 'During the grace');
      const received = old.messages.length;
      skew += 31_000;
      await endsBeforeTheSale(old, async () => undefined);
      assert.equal(renewed.isEnded(), false, "the new key's stream goes on");
      await seenLive(renewed, 'After the grace');
      assert.ok(old.messages.length === received, 'nothing more on the old stream');
    } finally {
      old.close();
      renewed?.close();
    }
  });

  it("a console session's stream ends when the person signs out, and when the session's key is revoked", async () => {
    const signIn = async (key: string) => {
      const answer = await as(t, {}).post('/console/session', { key });
      assert.equal(answer.status, 200, answer.text);
      return answer.headers.getSetCookie()[0].split(';')[0];
    };
    const key = await makeKey(t, OP, { name: 'console', principal: seller });
    const cookie = await signIn(key.key);
    const signedOut = await liveStream({ cookie });
    const other = await signIn(key.key);
    const onOther = await liveStream({ cookie: other });
    try {
      await endsBeforeTheSale(signedOut, async () => {
        assert.equal((await as(t, { cookie }).post('/console/session/end')).status, 204);
      });
      assert.equal(onOther.isEnded(), false, "another session's stream of the same key goes on");
      await seenLive(onOther, 'Another session');
      await endsBeforeTheSale(onOther, async () => {
        assert.equal((await as(t, bearer(OP)).post(`/keys/${key.id}/revoke`, {})).status, 200);
      });
    } finally {
      signedOut.close();
      onOther.close();
    }
  });
});
