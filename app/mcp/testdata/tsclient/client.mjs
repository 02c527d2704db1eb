// A headless MCP session with the official TypeScript SDK client: discovery, dynamic client
// registration, consent (played with the signed-in user's cookies), token exchange; an
// agent's whole session (../agent_session.json: every document type and op, rename, move,
// history, a resource and its subscription, a prompt, a delete); tools/list and
// apply_content_ops on the test's timeline; then, once the test has restarted the server,
// more calls in the same session. Run by app/mcp's TestTypeScriptClient.
//
// Env: LW_URL (server base URL), LW_COOKIE (the signed-in browser's cookies), LW_WORLD and
// LW_DOCUMENT (a timeline to write to). Prints one JSON line with what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";

const base = process.env.LW_URL;
const cookie = process.env.LW_COOKIE;
const redirectUrl = "http://127.0.0.1:53683/callback";

let client = {}, tokens, verifier, code;

const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: "TypeScript check", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return client.client_id ? client : undefined; },
  saveClientInformation(info) { client = info; },
  tokens() { return tokens; },
  saveTokens(t) { tokens = t; },
  saveCodeVerifier(v) { verifier = v; },
  codeVerifier() { return verifier; },
  // The user's browser: open the consent page signed in, press Allow, read the code.
  async redirectToAuthorization(url) {
    const page = await fetch(url, { headers: { cookie }, redirect: "manual" });
    if (page.status !== 200) throw new Error(`consent page: ${page.status}`);
    const html = await page.text();
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
      form.set(m[1], m[2].replaceAll("&amp;", "&").replaceAll("&#34;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">"));
    }
    form.set("decision", "approve");
    const res = await fetch(new URL("/oauth/authorize", base), {
      method: "POST", body: form, redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    });
    const location = new URL(res.headers.get("location"));
    code = location.searchParams.get("code");
    if (!code) throw new Error(`no code: ${location}`);
  },
};

const endpoint = new URL("/api/mcp", base);
let transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
const mcp = new Client({ name: "ts-check", version: "1.0.0" });
try {
  await mcp.connect(transport);
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  await transport.finishAuth(code);
  transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await mcp.connect(transport);
}
// An agent's whole session (../agent_session.json, which the Go SDK's test runs too): a world,
// one document of every type and every op, rename, move, history, a resource read and a
// subscription notification on a write, a prompt and a delete.
const session = JSON.parse(readFileSync(new URL("../agent_session.json", import.meta.url), "utf8"));
const call = async (name, args) => {
  const r = await mcp.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return r.structuredContent;
};
const fill = (v, created, version) => {
  if (v === "$version") return version;
  if (typeof v === "string" && /^\$\d+$/.test(v)) return created[Number(v.slice(1))];
  if (Array.isArray(v)) return v.map((x) => fill(x, created, version));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, created, version)]));
  return v;
};
const world = await call("create_world", { name: "Agent world", genre: "fantasy" });
const ids = {};
const versions = {};
for (const d of session.documents) {
  const doc = await call("create_document", { worldId: world.id, name: d.name, documentType: d.type });
  ids[d.type] = doc.id;
  const created = [];
  let version = 0;
  for (const batch of d.batches) {
    const res = await call("apply_content_ops", { worldId: world.id, documentId: doc.id, ops: fill(batch, created, version) });
    created.push(...res.created.map((c) => c.id));
    version = res.version;
  }
  versions[d.type] = version;
}
const moved = await call("update_document", { worldId: world.id, documentId: ids.card, name: "Aria of the North", parentId: ids.folder });
const history = await call("get_history", { worldId: world.id, documentId: ids.card });
const uri = `loreweave://worlds/${world.id}/documents/${ids.card}`;
const read = await mcp.readResource({ uri });
const notified = new Promise((resolve) => mcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
await mcp.subscribeResource({ uri });
await call("apply_content_ops", { worldId: world.id, documentId: ids.card, ops: [{ op: "card.setProperty", key: "Home", value: "Vharn" }] });
const updatedUri = await Promise.race([notified, new Promise((r) => setTimeout(() => r("timeout"), 10000))]);
const prompt = await mcp.getPrompt({ name: "check_card_against_timeline", arguments: { worldId: world.id, cardId: ids.card, timelineId: ids.timeline } });
await call("delete_document", { worldId: world.id, documentId: ids.animator });
const agent = {
  versions,
  moved: moved.parentId === ids.folder && moved.name === "Aria of the North",
  historyVersions: history.items.map((i) => i.version),
  readCard: JSON.parse(read.contents[0].text).text.includes("Raised in a storm"),
  notified: updatedUri === uri,
  promptMessages: prompt.messages.length,
};

const tools = await mcp.listTools();
const result = await mcp.callTool({
  name: "apply_content_ops",
  arguments: { worldId: process.env.LW_WORLD, documentId: process.env.LW_DOCUMENT, ops: [{ op: "timeline.addEvent", label: "Written from TypeScript", dateMs: 42 }] },
});
const whoami = await mcp.callTool({ name: "whoami", arguments: {} });
const seen = {
  agent,
  tools: tools.tools.map((t) => t.name).sort(),
  result: result.structuredContent,
  isError: result.isError ?? false,
  whoami: whoami.structuredContent,
  tokenPrefix: tokens?.access_token?.slice(0, 6),
};

// The server restarts (the test says when it is back): the same client, the same session,
// calls again without reconnecting.
console.log("RESTART");
await new Promise((resolve) => process.stdin.once("data", resolve));
const again = await mcp.callTool({
  name: "apply_content_ops",
  arguments: { worldId: process.env.LW_WORLD, documentId: process.env.LW_DOCUMENT, ops: [{ op: "timeline.addEvent", label: "After the restart", dateMs: 43 }] },
});
const listed = await call("list_documents", { worldId: world.id });
seen.afterRestart = { result: again.structuredContent, isError: again.isError ?? false, documents: listed.totalItems };
console.log(JSON.stringify(seen));
process.stdin.destroy();
await mcp.close();
