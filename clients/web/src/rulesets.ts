// The rulesets the server has installed (GameService.ListRulesets), read once per page:
// the player pages name no game.

import { useEffect, useState } from "preact/hooks";
import { Refusal, type Ruleset, call } from "./api";

let asked: Promise<Ruleset[]> | null = null;

/** The installed rulesets ([] until they arrive, or if they cannot be read). */
export function useRulesets(): Ruleset[] {
  const [rulesets, setRulesets] = useState<Ruleset[]>([]);
  useEffect(() => {
    asked ??= call("ListRulesets", {}).then((reply) => reply.rulesets ?? [], (error: unknown) => {
      asked = null;
      if (error instanceof Refusal) return [];
      throw error;
    });
    void asked.then(setRulesets);
  }, []);
  return rulesets;
}

/** A ruleset's title (ListRulesets' `title`), or its name when not installed. */
export function titleOf(rulesets: Ruleset[], name: string): string {
  return rulesets.find((r) => r.name === name)?.title || name;
}

/** The default ruleset's name (else the first's, else ""). */
export function defaultRuleset(rulesets: Ruleset[]): string {
  return (rulesets.find((r) => r.is_default) ?? rulesets[0])?.name ?? "";
}
