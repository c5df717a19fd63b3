// The contract's OpenAPI links (D-32, D-267): from what an operation creates or answers to the
// operations on it, each named by an id in the answer's body.
type Json = Record<string, unknown>;

/**
 * Every operation on what a 201 or a gig answer names, as OpenAPI links. Each runtime expression
 * names an id in the body (`Location` is a path, not an id), one that every answer of its status
 * carries: a link holds for the response, never for one shape of it. So sell (the Deal or the
 * escalation) and advanceDeal (the Deal, the escalation or a dry run) link nowhere: no id sits at
 * one place in all their shapes, and a tool follows a link on every answer (D-11).
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
  const onGig = (id: string) => ({
    getGig: link('getGig', id, 'Read the gig'),
    claimGig: link('claimGig', id, 'Claim it for a closer'),
    advanceGig: link('advanceGig', id, 'Propose a move of its deal'),
    releaseGig: link('releaseGig', id, 'Withdraw it'),
  });
  return {
    createDeal: { 201: onDeal('$response.body#/id') },
    reengageDeal: { 201: onDeal('$response.body#/id') },
    enrolCloser: { 201: { getCloser: link('getCloser', '$response.body#/id', 'Read it') } },
    claimGig: { 200: onGig('$response.body#/gig/id') },
  };
}
