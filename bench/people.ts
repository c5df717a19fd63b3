// People in `npm run bench` (D-63): a sign-in with a password costs an Argon2id verification
// (19 MiB, 2 iterations), tens of milliseconds of one core by design, so its row is measured on
// its own; and a flood of sign-ins beside keys mode's keyed sells shows that the hashes, which
// run on at most half the cores, leave the other requests theirs (its sells against the plain
// keys-mode row of the same run). The invitations go to an SMTP server in this process, as they
// would to a mail server, and the person accepts theirs before the measurement.
import autocannon from 'autocannon';
import { SMTPServer } from 'smtp-server';
import { BENCH_OPERATOR_KEY, dealBody, JSON_HEADERS, OPERATOR_HEADERS, PREFIX, post } from './setup.ts';

export const PASSWORD = 'a fictional bench passphrase 2026';

/** The invitations received, by recipient: their links' tokens. */
const tokens = new Map<string, string>();
const waiting = new Map<string, (token: string) => void>();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    stream.on('end', () => {
      const token = /#\/accept\/([A-Za-z0-9_-]{43})/.exec(text.replace(/=\r?\n/g, ''))?.[1];
      for (const to of session.envelope.rcptTo) {
        if (token === undefined) continue;
        tokens.set(to.address, token);
        waiting.get(to.address)?.(token);
      }
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
smtp.server.unref();
const address = smtp.server.address();
const SMTP_URL = `smtp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

/** Keys mode with mail to this process (DEMO_CONTROLS=on: the measurement starts from a reset). */
export const PEOPLE_ENV = { AUTH: 'keys', OPERATOR_KEY: BENCH_OPERATOR_KEY, DEMO_CONTROLS: 'on', SMTP_URL };

let invited = 0;

/** A person of the operator invited, mailed and accepted: their email, with PASSWORD. */
export async function benchPerson(url: string): Promise<string> {
  const email = `bench-${process.pid}-${++invited}@bench.example`;
  const arrived = new Promise<string>((resolve) => waiting.set(email, resolve));
  await post(`${url}/users`, JSON.stringify({ email, name: 'Bench Person', role: 'operator' }), OPERATOR_HEADERS);
  const token = tokens.get(email) ?? (await arrived);
  await post(`${url}/users/accept`, JSON.stringify({ token, password: PASSWORD }));
  return email;
}

/** The request of a sign-in with a password. */
export const signIn = (email: string): autocannon.Request => ({
  method: 'POST',
  path: '/console/session',
  headers: JSON_HEADERS,
  body: JSON.stringify({ email, password: PASSWORD }),
});

/** A Seller and its full key (keys mode), for the sells measured beside the flood. */
export async function sellerKey(url: string): Promise<string> {
  const seller = await post(`${url}/sellers`, JSON.stringify({ name: 'Bench Seller' }), OPERATOR_HEADERS);
  const key = await post(`${url}/keys`, JSON.stringify({ name: 'bench', principal: seller.id }), OPERATOR_HEADERS);
  return key.key as string;
}

/** Keyed sells by a Seller's key, each a first attempt. */
export const keyedSells = (key: string): Partial<autocannon.Options> => ({
  idReplacement: true,
  requests: [
    {
      method: 'POST',
      path: `${PREFIX}/sell`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${key}`, 'idempotency-key': 'bench-[<id>]' },
      body: dealBody(2),
    },
  ],
});

/** A flood of sign-ins (20 connections, as fast as they are answered) until stopped; its figures then. */
export function signInFlood(url: string, email: string): { stop(): Promise<string> } {
  const flood = autocannon({ url, connections: 20, duration: 3600, requests: [signIn(email)] });
  return {
    stop: async () => {
      const done = new Promise<autocannon.Result>((resolve) => flood.once('done', resolve));
      flood.stop();
      const result = await done;
      return `a flood of sign-ins beside: ${Math.round(result.requests.average)} sign-ins/s, p99 ${result.latency.p99} ms, ${result.non2xx} not 2xx`;
    },
  };
}
