// Shared setup of the SDK tests: the real client, pointed at the avaindex
// that tests/sdk_test.go started, and the facts it read off the node.
import { readFileSync } from "node:fs";
import { Avalanche } from "@avalanche-sdk/chainkit";

const url = process.env.AVAINDEX_URL;
const factsFile = process.env.AVAINDEX_FACTS;
if (!url || !factsFile) {
  throw new Error("AVAINDEX_URL and AVAINDEX_FACTS are unset: run these tests with `go test ./tests -run TestSDK`");
}

// facts are what the Go test learned from the node itself: the source of
// truth the SDK's answers are compared with.
export const facts = JSON.parse(readFileSync(factsFile, "utf8"));

// network is the name the SDK knows (its enum is closed): avaindex serves
// the local network under it with --network-alias.
export const network = facts.network;

export const avalanche = new Avalanche({ serverURL: url, enableTelemetry: false, network });

// opts go with every call, as the SDK documents for a local server; no
// retries, so that an error answer is seen as it is.
export const opts = { serverURL: url, retries: { strategy: "none" } };

// pages runs the SDK's own page iterator to the end and returns every page.
export async function pages(first, max = 10000) {
  const out = [];
  for await (const page of first) {
    out.push(page);
    if (out.length > max) {
      throw new Error(`more than ${max} pages: the iterator does not end`);
    }
  }
  return out;
}
