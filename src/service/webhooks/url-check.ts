// A webhook url at registration (D-42): a URL, http or https, at most 2,000 characters
// (the schema bounds it), and, unless WEBHOOK_ALLOW_PRIVATE=true, not a host that is or
// resolves to a forbidden address (the check is made again on every attempt's connection).
import { isIP } from 'node:net';
import { type Refusal, refuse } from '../../domain/refusal.ts';
import { hostOf, isForbiddenAddress, isLocalName, resolveAll } from './address-policy.ts';

export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<Refusal | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse.invalid('INVALID_BODY', 'The request body is invalid: url: is not a URL', ['url: is not a URL']);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const problem = `url: must be http or https, not ${url.protocol.slice(0, -1).slice(0, 40)}`;
    return refuse.invalid('INVALID_BODY', `The request body is invalid: ${problem}`, [problem]);
  }
  if (allowPrivate) return undefined;
  const host = hostOf(url);
  const forbidden = (address: string) =>
    refuse.forbidden(
      'WEBHOOK_URL_FORBIDDEN',
      `The webhook url's host ${host} is or resolves to ${address}, a loopback, private or link-local address; webhooks reach public addresses only.`,
    );
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? forbidden(host) : undefined;
  if (isLocalName(host)) return forbidden('this machine');
  // A name that does not resolve (yet) is accepted: each attempt resolves and checks it again.
  const addresses = (await resolveAll(host)) ?? [];
  const bad = addresses.find(isForbiddenAddress);
  return bad === undefined ? undefined : forbidden(bad);
}
