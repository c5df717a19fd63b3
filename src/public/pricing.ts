// The Pricing Document (spec "Pricing Document", D-32): the service is free, and that price is a
// stated intent, not a binding term. One rate row per operationId of the OpenAPI contract.
export const PRICING_STATEMENT =
  'Every operation is free during the pre-launch sandbox and demo. This is a stated intent, not a binding price: ' +
  'do not contract on it. Binding terms will be published before keys are issued.';

/** Where the open item (binding terms) is tracked: a section of the contract's info. */
export const PRICING_LEDGER_URL = '/openapi.json#/info/x-pricing-ledger';
export const PRICING_LEDGER =
  'Open item: publish binding terms (a termsUrl) before keys are issued. Until then /pricing declares binding: false.';

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
    ledgerUrl: `${baseUrl}${PRICING_LEDGER_URL}`,
    rates: [...operationIds].sort().map((operation) => ({
      operation,
      price: 0,
      unit: 'request',
      included: 'unlimited',
      disclosure: 'published',
    })),
  };
}
