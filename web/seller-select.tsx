// The operator's Seller filter (keys mode, D-54): a select of the Sellers the session may list, by
// name, shown only when there are some. The board and the Insights page each filter by it.
export function SellerSelect({
  sellers,
  value,
  onChange,
  everyLabel,
}: {
  sellers: ReadonlyMap<string, string>;
  value: string;
  onChange: (sellerId: string) => void;
  /** What the empty choice (no filter) reads. */
  everyLabel: string;
}) {
  if (sellers.size === 0) return null;
  return (
    <label>
      Seller{' '}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{everyLabel}</option>
        {[...sellers].map(([id, name]) => (
          <option value={id} key={id}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
