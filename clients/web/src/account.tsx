// Signing in: register a player name (RegisterPlayer) or paste a player credential made
// elsewhere (checked with GetMyPlayer). The credential is kept in this browser only
// (player.ts); signing out forgets it here (it stays valid: revoke it to end it).

import { useState } from "preact/hooks";
import { Refusal, newId, present } from "./api";
import { type Account, PLAYER_SERVICE, callAs, forgetAccount, keepAccount } from "./player";
import { Refused } from "./table-view";

export function SignIn({ signedIn }: { signedIn: (account: Account) => void }) {
  const [name, setName] = useState("");
  const [pasted, setPasted] = useState("");
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  const attempt = async (work: () => Promise<Account>) => {
    setRefusal(null);
    try {
      const account = await work();
      keepAccount(account);
      signedIn(account);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      setRefusal(error);
    }
  };

  const register = (event: Event) => {
    event.preventDefault();
    void attempt(async () => {
      const reply = await callAs(PLAYER_SERVICE, "RegisterPlayer", {
        name: name.trim(), credential_label: "browser", command_id: newId(),
      }, "");
      const player = present(reply.player, "player");
      return { credential: reply.credential, player_id: player.player_id, name: player.name };
    });
  };

  const paste = (event: Event) => {
    event.preventDefault();
    const credential = pasted.trim();
    void attempt(async () => {
      const reply = await callAs(PLAYER_SERVICE, "GetMyPlayer", {}, credential);
      const player = present(reply.player, "player");
      return { credential, player_id: player.player_id, name: player.name };
    });
  };

  return (
    <section id="sign-in" class="panel sign-in">
      <h2>Sign in</h2>
      <p class="muted">
        A player name keeps your games, turns, tables and tournaments together. Its
        credential stays in this browser (never in a link); keep a copy to sign in elsewhere.
      </p>
      <Refused refusal={refusal} />
      <form id="register-form" class="row" onSubmit={register}>
        <label>New player name
          <input id="register-name" required maxLength={60} autoComplete="nickname" value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button id="register" type="submit" class="primary">Register</button>
      </form>
      <form id="credential-form" class="row" onSubmit={paste}>
        <label>or your player credential
          <input id="credential" required type="password" autoComplete="current-password"
            placeholder="tpc_…" value={pasted}
            onInput={(e) => setPasted((e.target as HTMLInputElement).value)} />
        </label>
        <button id="use-credential" type="submit">Sign in</button>
      </form>
    </section>
  );
}

/** Who is signed in, with the way out, and the credential to copy to another device
 * (on demand only: RegisterPlayer shows it once, and this browser is where it is kept). */
export function AccountBar({ account, signedOut }: { account: Account; signedOut: () => void }) {
  return (
    <p id="account" class="account">
      Signed in as <b id="account-name">{account.name}</b>
      <button id="sign-out" type="button" onClick={() => { forgetAccount(); signedOut(); }}>Sign out</button>
      <details class="credential">
        <summary>Your credential, to sign in elsewhere</summary>
        <code id="my-credential">{account.credential}</code>
      </details>
    </p>
  );
}
