// The Pricing Document (spec "Pricing Document", D-32): the service is free, and that price is a
// stated intent, not a binding term. One rate row per operationId of the OpenAPI contract.
export const PRICING_STATEMENT =
  'Every operation is free during the pre-launch sandbox and demo. This is a stated intent, not a binding price: ' +
  'do not contract on it. Binding terms will be published before keys are issued.';

export interface RateRow {
  operation: string;
  price: number;
  unit: string;
  included: 'unlimited';
  disclosure: 'published';
  note?: string;
}

export interface PricingDocument {
  model: 'free';
  unit: string;
  price: number;
  binding: false;
  statement: string;
  ledgerUrl: string;
  rates: RateRow[];
}

export function pricingDocument(operationIds: readonly string[], baseUrl = ''): PricingDocument {
  return {
    model: 'free',
    unit: 'request',
    price: 0,
    binding: false,
    statement: PRICING_STATEMENT,
    ledgerUrl: `${baseUrl}/docs#pricing-ledger`,
    rates: [...operationIds].sort().map((operation) => ({
      operation,
      price: 0,
      unit: 'request',
      included: 'unlimited',
      disclosure: 'published',
    })),
  };
}
