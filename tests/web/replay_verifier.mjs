// Runs the reference web client's log verifier (clients/web/src/verify.ts, bundled by the
// test with the client's pinned esbuild) in node, on a job read from stdin:
// {"bundle": path, "keys": [...], "logs": {name: text}, "canonical": [json text, ...]}.
// Prints {"logs": {name: {chain, signatures}}, "canonical": [text, ...]}: what the page
// would conclude, for tests/web/test_replay_verifier.py to compare with the server's code.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const job = JSON.parse(readFileSync(0, "utf8"));
const verifier = await import(pathToFileURL(job.bundle).href);
const logs = {};
for (const [name, text] of Object.entries(job.logs)) {
  try {
    const log = verifier.readPublicLog(text);
    const chain = await verifier.verifyChain(log);
    const signatures = [];
    for (const signed of log.signatures) signatures.push(await verifier.verifySignature(log, signed, job.keys));
    logs[name] = { chain, signatures };
  } catch (error) {
    logs[name] = { error: String(error) };
  }
}
const canonical = job.canonical.map((text) => verifier.canonicalJson(verifier.parseJson(text)));
process.stdout.write(JSON.stringify({ logs, canonical }));
