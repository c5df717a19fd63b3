// D-268: a demo tool's `ifMatch`, the If-Match of the HTTP request it stands for. HTTP takes the
// ETag its answers send (`"3"`, quoted) or `*`; an agent reads a version as deal.version (3), may
// hold it as text ("3"), or copies the ETag ("\"3\""), and each names the same version, so the
// tool takes all three and `*`. What HTTP refuses as no version at all (a weak tag W/"3", a list,
// 0) the tool refuses too: a condition that cannot be read must not let a move go ahead
// unconditionally (D-173).
import { Type } from '@sinclair/typebox';
import type { IfMatch } from '../domain/version.ts';
import { PATTERN_WORDS } from '../schemas/common.ts';

const MAX_VERSION = 999_999_999_999_999;
const DIGITS = '[1-9][0-9]{0,14}';

export const IfMatchArgument = {
  ...Type.Union([
    Type.Integer({ minimum: 1, maximum: MAX_VERSION, description: 'deal.version, e.g. 3' }),
    Type.String({
      pattern: `^(\\*|${DIGITS}|"${DIGITS}")$`,
      description: 'the version as text ("3"), the ETag HTTP answers with its quotes ("\\"3\\""), or "*" for any',
    }),
  ]),
  description:
    'the deal version this call was decided on: deal.version (3), as text ("3") or the ETag HTTP answers ' +
    '("\\"3\\""); or "*" for any version. Not a weak tag (W/"3"), not a list',
  // One line for any value it refuses, instead of one per branch of the union (tool-server.ts).
  [PATTERN_WORDS]:
    'must be the deal version: an integer (1 or more) like 3, the same as text "3" or as the ETag "\\"3\\"", ' +
    'or "*": not a weak W/"3", not a list',
};

/** The version an `ifMatch` names; the argument was validated against IfMatchArgument. */
export function ifMatchOf(value: number | string): IfMatch {
  if (typeof value === 'number' || value === '*') return value;
  return Number(value.replaceAll('"', ''));
}
