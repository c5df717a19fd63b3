// The contract's OpenAPI links (D-32): from what an operation creates or answers to the
// operations on it, each named by an id in the answer's body.
type Json = Record<string, unknown>;

/** The words a link says when it holds for one shape of an answer that may be several (D-11). */
const WHEN_DEAL = ' (when the answer is the Deal)';
const WHEN_ESCALATED = ' (when the answer is the escalation)';

/**
 * Every operation on what a 201 or a gig answer names, as OpenAPI links. Each runtime expression
 * names an id in the body (`Location` is a path, not an id). Where the answer may be the Deal or
 * the escalation, a link holds for one of the two, and its description says which: a gig only
 * where the answer is sure to carry one (the escalation, a gig's outcome), never on a plain Deal
 * or a dry run.
 */
export function links(): Record<string, Record<string, Record<string, Json>>> {
  const link = (operationId: string, id: string, description: string) => ({
    operationId,
    parameters: { id },
    description,
  });
  const onDeal = (id: string) => ({
    getDeal: link('getDeal', id, 'Read the deal'),
    advanceDeal: link('advanceDeal', id, 'Propose its next move'),
    reportSignals: link('reportSignals', id, 'Report signals on it'),
    getSettlement: link('getSettlement', id, 'Its settlement, once won'),
  });
  const onGig = (id: string, when = '') => ({
    getGig: link('getGig', id, `Read the gig${when}`),
    claimGig: link('claimGig', id, `Claim it for a closer${when}`),
    advanceGig: link('advanceGig', id, `Propose a move of its deal${when}`),
    releaseGig: link('releaseGig', id, `Withdraw it${when}`),
  });
  return {
    createDeal: { 201: onDeal('$response.body#/id') },
    reengageDeal: { 201: onDeal('$response.body#/id') },
    sell: {
      201: {
        getDeal: link('getDeal', '$response.body#/id', `Read the deal${WHEN_DEAL}`),
        getSettlement: link('getSettlement', '$response.body#/id', `Its settlement, once won${WHEN_DEAL}`),
        getEscalatedDeal: link('getDeal', '$response.body#/deal/id', `Read the deal${WHEN_ESCALATED}`),
        deescalateDeal: link(
          'deescalateDeal',
          '$response.body#/deal/id',
          `Take it off the human track${WHEN_ESCALATED}`,
        ),
        ...onGig('$response.body#/gig/id', WHEN_ESCALATED),
      },
    },
    advanceDeal: { 200: onGig('$response.body#/gig/id', WHEN_ESCALATED) },
    enrolCloser: { 201: { getCloser: link('getCloser', '$response.body#/id', 'Read it') } },
    claimGig: { 200: onGig('$response.body#/gig/id') },
  };
}
