// Writes LICENSE.txt for the bundle from esbuild's metafile: every npm package
// that contributed code to the output, with its version and license text.
// Usage: node licenses.mjs META_JSON NODE_MODULES_DIR OUT_FILE
import fs from "node:fs";
import path from "node:path";

const [metaFile, nodeModules, outFile] = process.argv.slice(2);
const meta = JSON.parse(fs.readFileSync(metaFile, "utf8"));
const out = Object.values(meta.outputs)[0];
const pkgs = new Set();
for (const [input, info] of Object.entries(out.inputs)) {
  if (info.bytesInOutput === 0) continue;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) pkgs.add(m[1]);
}
// Group packages that ship the same license text.
const byText = new Map();
for (const name of [...pkgs].sort()) {
  const dir = path.join(nodeModules, name);
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const lic = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!lic) throw new Error(`no license file in ${name}`);
  const text = fs.readFileSync(path.join(dir, lic), "utf8").trim();
  if (!byText.has(text)) byText.set(text, []);
  byText.get(text).push(`${name}@${pj.version} (${pj.license})`);
}
let s =
  "codemirror.js bundles code from the npm packages below (built by\n" +
  "tools/vendor-codemirror/build.sh). Their license texts follow, each after\n" +
  "the list of packages that ship it.\n";
for (const [text, names] of byText) {
  s += "\n" + "=".repeat(72) + "\n" + names.join("\n") + "\n" + "-".repeat(72) + "\n\n" + text + "\n";
}
fs.writeFileSync(outFile, s);
console.log(`LICENSE.txt: ${pkgs.size} packages, ${byText.size} distinct license texts`);
