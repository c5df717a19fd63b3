// Numbered query parameters, for the reads that build their SQL from filters.

/** Numbered query parameters: param(value) appends one and answers its placeholder. */
export function parameters() {
  const params: unknown[] = [];
  return {
    params,
    param: (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}
