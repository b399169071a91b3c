// "Verify in your browser": the game's public log exported here (public-log.ts) or a log
// file a person chooses, checked by verify.ts with WebCrypto, and the verdict in words:
// "verified by your browser: N versions, head <hash>", or the first version that does not
// match, or the signature that fails.

import { useEffect, useState } from "preact/hooks";
import { Refusal } from "./api";
import { exportPublicLog, publishedKeys } from "./public-log";
import { LogFormatError, type PublishedKey, readPublicLog, verifyChain, verifySignature } from "./verify";

interface Verdict {
  tone: "ok" | "warn" | "bad";
  headline: string;
  details: string[];
}

const SCOPE = "Checked by this page with WebCrypto: every event's SHA-256 chained from version 1, the "
  + "header's head and event count, and the service's Ed25519 signature with the keys this server "
  + "publishes. Not checked here: the rules' re-fold, the hidden cards' commitments and the seed "
  + "(the server's VerifyGame and `teoti replay FILE --verify` check those).";

/** The verdict on a log file's text (the keys: those this server publishes). */
async function judge(logText: string, keys: () => Promise<PublishedKey[]>,
  progress: (done: number) => void): Promise<Verdict> {
  let log;
  try {
    log = readPublicLog(logText);
  } catch (error) {
    if (error instanceof LogFormatError) return { tone: "bad", headline: `not a public log: ${error.message}`, details: [] };
    throw error;
  }
  const chain = await verifyChain(log, progress);
  const about = `game ${log.gameId} (${log.ruleset}), ${log.finished ? "finished" : "not finished"}`;
  if (!chain.ok) {
    return { tone: "bad", headline: `version ${chain.firstBad} does not match: ${chain.reason}`,
      details: [about, `versions 1 to ${chain.checked} chain (to ${chain.head})`] };
  }
  const headline = `verified by your browser: ${chain.checked} versions, head ${chain.head}`;
  if (!log.signatures.length) {
    return { tone: "warn", headline, details: [about,
      "not signed: the log carries no signature of the service, so the chain alone does not prove who wrote it"] };
  }
  const published = await keys();
  const signatures = await Promise.all(log.signatures.map((signed) => verifySignature(log, signed, published)));
  const failed = signatures.find((s) => !s.ok && !s.unsupported);
  const lines = signatures.map((s) => (s.ok ? `signature OK: ${s.detail}`
    : s.unsupported ? `signature ${s.detail}` : `signature FAILED (key ${s.keyId}): ${s.detail}`));
  if (failed) return { tone: "bad", headline: `refused: signature of key ${failed.keyId} fails: ${failed.detail}`, details: [about, headline, ...lines] };
  return { tone: signatures.every((s) => s.ok) ? "ok" : "warn", headline, details: [about, ...lines] };
}

/** The verification panel of the replay page for `gameId`. */
export function VerifyPanel({ gameId }: { gameId: string }) {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [busy, setBusy] = useState("");
  const [download, setDownload] = useState("");
  useEffect(() => () => { if (download) URL.revokeObjectURL(download); }, [download]);

  let keys: Promise<PublishedKey[]> | null = null;
  const cachedKeys = () => (keys ??= publishedKeys());

  const run = async (what: string, text: () => Promise<string>) => {
    setBusy(what);
    setVerdict(null);
    try {
      const logText = await text();
      setVerdict(await judge(logText, cachedKeys, (done) => setBusy(`${what}: ${done} versions checked…`)));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      setVerdict({ tone: "bad", headline: `the server refused: ${error.reason}: ${error.message}`, details: [] });
    } finally {
      setBusy("");
    }
  };

  const verifyServed = () => void run("exporting and verifying the log", async () => {
    const logText = await exportPublicLog(gameId);
    setDownload(URL.createObjectURL(new Blob([logText], { type: "application/jsonl" })));
    return logText;
  });

  const verifyFile = (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void run(`verifying ${file.name}`, () => file.text());
  };

  return (
    <section id="verify" class="panel verify" aria-labelledby="verify-title">
      <h3 id="verify-title">Verify in your browser</h3>
      <div class="row">
        <button id="verify-log" type="button" class="primary" disabled={Boolean(busy)} onClick={verifyServed}>
          Verify this game's log
        </button>
        <label class="file-pick">Or verify a log file (teoti export)
          <input id="log-file" type="file" accept=".jsonl,.json,.txt,application/json,text/plain"
            disabled={Boolean(busy)} onChange={verifyFile} />
        </label>
        {download && <a id="download-log" class="button" href={download} download={`${gameId}.jsonl`}>
          Download this log</a>}
      </div>
      <p id="verify-busy" class="muted" aria-live="polite">{busy}</p>
      <div id="verify-result" role="status" class={verdict ? `verdict ${verdict.tone}` : "verdict"} hidden={!verdict}>
        {verdict && <p class="verdict-headline"><b>{verdict.headline}</b></p>}
        {verdict && verdict.details.length > 0 && <ul>{verdict.details.map((line) => <li key={line}>{line}</li>)}</ul>}
      </div>
      <p class="muted scope">{SCOPE}</p>
    </section>
  );
}
