// A headless MCP round trip with the official TypeScript SDK client: discovery, dynamic
// client registration, consent (played with the signed-in user's cookies), token exchange,
// tools/list and tools/call apply_content_ops; then, once the test has restarted the server,
// another call in the same session. Run by app/mcp's TestTypeScriptClient.
//
// Env: LW_URL (server base URL), LW_COOKIE (the signed-in browser's cookies), LW_WORLD and
// LW_DOCUMENT (a timeline to write to). Prints one JSON line with what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

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
const tools = await mcp.listTools();
const result = await mcp.callTool({
  name: "apply_content_ops",
  arguments: { worldId: process.env.LW_WORLD, documentId: process.env.LW_DOCUMENT, ops: [{ op: "timeline.addEvent", label: "Written from TypeScript", dateMs: 42 }] },
});
const whoami = await mcp.callTool({ name: "whoami", arguments: {} });
const seen = {
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
seen.afterRestart = { result: again.structuredContent, isError: again.isError ?? false };
console.log(JSON.stringify(seen));
process.stdin.destroy();
await mcp.close();
