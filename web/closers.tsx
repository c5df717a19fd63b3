// The closers: the directory with each Register, and the match ranking (D-25) for an industry
// and a deal value.
import { useEffect, useState } from 'preact/hooks';
import { allClosers, api, type Closer, usd } from './api.ts';
import { plural } from './words.ts';

type Match = { closer: Closer; score: number; winRate: number };

export function Closers() {
  const [closers, setClosers] = useState<Closer[]>([]);
  const [industry, setIndustry] = useState('saas');
  const [value, setValue] = useState('50000');
  const [ranking, setRanking] = useState<Match[] | undefined>();
  useEffect(() => {
    allClosers().then(setClosers);
  }, []);
  return (
    <>
      <h1>Closers</h1>
      {/* A narrow screen scrolls the table, not the page. */}
      <div class="table-scroll">
        <table aria-label="Directory">
          <thead>
            <tr>
              <th>Closer</th>
              <th>Industries</th>
              <th>Gigs</th>
              <th>Wins</th>
              <th>Closed value</th>
            </tr>
          </thead>
          <tbody>
            {closers.map((c) => (
              <tr key={c.id}>
                <td title={c.id}>{c.name}</td>
                <td>{c.industries.join(', ')}</td>
                <td>{c.record.gigs}</td>
                <td>{c.record.wins}</td>
                <td>{usd(c.record.grossClosedUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        class="match"
        aria-label="Match"
        onSubmit={async (e) => {
          e.preventDefault();
          const answer = await api.POST('/closers/match', {
            body: { industry, valueUsd: Number(value), role: 'closer' },
          });
          setRanking(answer.data as Match[] | undefined);
        }}
      >
        <h2>Match a deal</h2>
        <label>
          Industry <input value={industry} onInput={(e) => setIndustry(e.currentTarget.value)} />
        </label>
        <label>
          Value (USD) <input type="number" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <button type="submit">Rank closers</button>
      </form>
      {ranking ? (
        <ol aria-label="Ranking">
          {ranking.map((m) => (
            <li key={m.closer.id}>
              {m.closer.name}: match score {m.score.toFixed(2)}, win rate {Math.round(m.winRate * 100)}%,{' '}
              {plural(m.closer.record.gigs, 'gig')}
            </li>
          ))}
        </ol>
      ) : null}
    </>
  );
}
