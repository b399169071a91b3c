// The player and tournament pages (route.ts names them): who is signed in is read
// from this browser (player.ts) and asked for where a page needs it.

import { useState } from "preact/hooks";
import { AccountBar, SignIn } from "./account";
import { Home } from "./home";
import type { Seated } from "./lobby";
import { type Account, savedAccount } from "./player";
import type { Page } from "./route";
import { TablePage } from "./table-page";
import { TournamentPage } from "./tournament-page";
import { Tournaments } from "./tournaments";

export function PlayerPages({ page, enter }: { page: Page; enter: (seated: Seated) => void }) {
  const [account, setAccount] = useState<Account | null>(savedAccount);
  const bar = account && <AccountBar account={account} signedOut={() => setAccount(null)} />;
  if (page.kind === "tournaments") return <><Tournaments /></>;
  if (page.kind === "tournament") {
    return <TournamentPage key={page.id} tournamentId={page.id} account={account} enter={enter} />;
  }
  if (!account) return <SignIn signedIn={setAccount} />;
  return (
    <>
      {bar}
      {page.kind === "table"
        ? <TablePage key={page.id} tableId={page.id} account={account} enter={enter} />
        : <Home account={account} enter={enter} />}
    </>
  );
}
