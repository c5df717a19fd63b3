// The Team page (#/team, D-62, D-66): the people of the session's Seller (or closer), for a session
// that may manage them (users:manage; the nav shows the page to no one else): invite with a role,
// change a role, disable and enable. The operator manages everyone's on its admin page.
import { PeoplePanel } from './people-panel.tsx';
import type { Session } from './session.ts';

export function TeamPage({ session }: { session: Session }) {
  const nameOf = (principal: string) => (principal === session.principal ? session.name : principal);
  return (
    <>
      <h1>Team</h1>
      <p class="hint">
        The people of {session.name}. Each signs in with their email and a password, and may do what their role may;
        every move they make is shown with their name.
      </p>
      <PeoplePanel principal={session.principal} nameOf={nameOf} me={session.user?.id} />
    </>
  );
}
