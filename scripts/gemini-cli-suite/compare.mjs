// compare.mjs 061.json gemini-ls.json divergences: the suite's results
// (vitest's JSON reporter) side by side, one line a test; exits 1 when a
// test Gemini CLI 0.61 passes fails against gemini-ls and divergences
// (lines "test name<TAB>why"; # starts a comment) does not name it.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [refFile, oursFile, divergenceFile] = process.argv.slice(2);

function results(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const byName = new Map();
  for (const suite of report.testResults) {
    for (const t of suite.assertionResults) {
      byName.set(`${basename(suite.name)} > ${t.fullName}`, t);
    }
  }
  return byName;
}

const divergences = new Map(
  readFileSync(divergenceFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.split('\t')),
);
const ref = results(refFile);
const ours = results(oursFile);
let refPassed = 0;
let oursPassed = 0;
let unexplained = 0;
const rows = [];
for (const [name, r] of ref) {
  const o = ours.get(name);
  const oursStatus = o ? o.status : 'missing';
  if (r.status !== 'passed') {
    continue;
  }
  refPassed++;
  let why = '';
  if (oursStatus === 'passed') {
    oursPassed++;
  } else if (divergences.has(name)) {
    why = divergences.get(name);
  } else {
    unexplained++;
    const msg = (o?.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 160);
    why = `FAIL: ${msg}`;
  }
  rows.push(`| ${name} | ${r.status} | ${oursStatus} | ${why} |`);
}
console.log('| test | 0.61 | gemini-ls | why |');
console.log('| --- | --- | --- | --- |');
for (const row of rows.sort()) console.log(row);
// Tests skipped for 0.61 (an interactive test, left-out.ts) did not run.
const skipped = [...ref.values()].filter((t) => t.status === 'skipped' || t.status === 'pending').length;
console.log(
  `\nOf the ${ref.size - skipped} tests run (${skipped} interactive ones skipped), Gemini CLI 0.61 passes ${refPassed}; gemini-ls passes ${oursPassed} of those, ` +
    `${refPassed - oursPassed - unexplained} more are stated divergences, ${unexplained} are not.`,
);
process.exit(unexplained > 0 ? 1 : 0);
