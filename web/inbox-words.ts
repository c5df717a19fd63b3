// A notification in the console's words (D-72, D-228). The service's title says what happened
// ("Approval requested: closing agent proposed closed won at $34,000.00"), by names and amounts;
// an id or a stage's code left in it is written as the console writes them everywhere else.
import { type Notification, routeOf } from './inbox-api.ts';
import { humanize } from './words.ts';

/** The title in words. */
export const titleWords = (n: Pick<Notification, 'title'>): string => humanize(n.title);

/** Where a notification's link goes, as its line says: "Opens the Approvals page". */
export function whereWords(n: Pick<Notification, 'type' | 'dealId'>): string {
  const route = routeOf(n);
  if (route === '/desk') return 'Opens the closer desk';
  if (route === '/approvals') return 'Opens the Approvals page';
  return 'Opens the deal’s page';
}
