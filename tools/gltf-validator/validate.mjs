// Validates glTF files with the Khronos glTF validator and prints one JSON line per file:
//   {"file", "errors", "warnings", "infos", "messages": [first 20 errors/warnings "CODE pointer: message"]}
// Exit status: 0 if every file has 0 errors, 1 if some file has errors, 2 on usage or I/O problems.
//   node tools/gltf-validator/validate.mjs FILE.glb [FILE.gltf ...]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: validate.mjs FILE.glb|FILE.gltf ...');
  process.exit(2);
}
let failed = false;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    console.error(`validate.mjs: cannot read ${file}: ${e.message}`);
    process.exit(2);
  }
  const dir = path.dirname(file);
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 1000,
    externalResourceFunction: (uri) =>
      readFile(path.join(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const issues = report.issues;
  const messages = issues.messages
    .filter((m) => m.severity <= 1)
    .slice(0, 20)
    .map((m) => `${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  console.log(JSON.stringify({ file, errors: issues.numErrors, warnings: issues.numWarnings, infos: issues.numInfos, messages }));
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
