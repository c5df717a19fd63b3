// Every demo list pages the same way (D-39, src/views/page.ts): `limit` (1 to 1000, default 100)
// and an opaque `cursor`; a page that is not the last carries `Link: <next page>; rel="next"`,
// and the body stays the bare array of the spec.

/** The next page's URL: this request's path and query with the cursor replaced. */
export function nextUrl(url: string, cursor: string): string {
  const [path, query = ''] = url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('cursor', cursor);
  return `${path}?${params.toString()}`;
}
