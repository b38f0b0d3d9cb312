#!/usr/bin/env node
// run-examples.mjs runs every runnable example of this repository and
// compares each one's output with its expected transcript. It exits 0 when
// every output matches, 1 when one differs or an example fails (each
// difference printed as a line diff, - expected + got), 2 on bad usage.
//
//	node scripts/docs/run-examples.mjs            run them all
//	node scripts/docs/run-examples.mjs NAME...    run only these
//	node scripts/docs/run-examples.mjs --update   rewrite the transcripts
//	node scripts/docs/run-examples.mjs --list     name them
//
// The examples:
//
//	stage-16-mcp-adoption   the adoption proof: `go run ./cmd/mcprig demo`,
//	                        compared with cmd/mcprig/internal/adoption/testdata/stage-16-mcp-adoption.txt
//	                        (the same file TestAdoption reads)
//	examples/downstream     a user's module: its tests and examples, run as a
//	                        user's CI runs them (CI=true go test ./...); the
//	                        transcript is what passed, in examples/downstream/testdata/run.txt
//	go-examples             every Example function of the module, each checked by
//	                        go test against its // Output: comment, its transcript
//	readme-snippets         every Go snippet of README.md names the files it is
//	                        taken from (<!-- snippet: FILE... --> above it), and
//	                        every line of it is a line of those files, which the
//	                        examples above compile and run; a line with … stands
//	                        for code left out, and trailing // comments are not
//	                        compared
//
// Plain Node (v18 or later), no packages: it needs only go on PATH.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// goTest reduces `go test -v` output to what is the same on every run: one
// line per test, subtest and example that passed, failed or was skipped,
// and one per package, without durations; sorted, since parallel subtests
// finish in any order.
function goTest(out) {
  const lines = [];
  for (const line of out.split('\n')) {
    let m = line.match(/^\s*--- (PASS|FAIL|SKIP): (\S+)/);
    if (m) {
      lines.push(`${m[1]} ${m[2]}`);
      continue;
    }
    m = line.match(/^(ok|FAIL|\?)\s+(\S+)/);
    if (m && m[2] !== 'FAIL') lines.push(`${m[1] === '?' ? 'none' : m[1]} ${m[2]}`);
  }
  return lines.sort().join('\n') + '\n';
}

const examples = [
  {
    name: 'stage-16-mcp-adoption',
    what: 'the adoption proof (mcprig demo)',
    cmd: ['go', 'run', './cmd/mcprig', 'demo'],
    transcript: 'cmd/mcprig/internal/adoption/testdata/stage-16-mcp-adoption.txt',
  },
  {
    name: 'examples/downstream',
    what: "a user's module, as its CI runs it",
    cwd: 'examples/downstream',
    env: { CI: 'true' },
    cmd: ['go', 'test', '-count=1', '-v', './...'],
    transcript: 'examples/downstream/testdata/run.txt',
    normalize: goTest,
  },
  {
    name: 'go-examples',
    what: 'every Example function, checked against its // Output:',
    cmd: ['go', 'test', '-count=1', '-v', '-run', '^Example', './...'],
    // The transcripts are the // Output: comments, which go test compares;
    // what ran is printed, and a failure is a difference.
    normalize: (out) => goTest(out).split('\n').filter((l) => l.startsWith('PASS') || l.startsWith('FAIL')).join('\n') + '\n',
  },
  {
    name: 'readme-snippets',
    what: "README.md's Go snippets, line by line, in the code they name",
    check: checkSnippets,
  },
];

// snippetLine is what of a line of Go is compared: trimmed, without a
// trailing comment; null for a line that is not compared (blank, a comment,
// or … standing for code left out).
function snippetLine(line) {
  let s = line.trim();
  const i = s.indexOf(' // ');
  if (i >= 0) s = s.slice(0, i).trim();
  if (s === '' || s.startsWith('//') || s.includes('…')) return null;
  return s;
}

// checkSnippets checks README.md's Go snippets against the files they name.
function checkSnippets() {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const problems = [];
  let snippets = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```go') continue;
    snippets++;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    const m = j >= 0 ? lines[j].match(/^<!-- snippet: (.+?) -->$/) : null;
    if (!m) {
      problems.push(`README.md:${i + 1}: a Go snippet with no <!-- snippet: FILE... --> above it`);
      continue;
    }
    const have = new Set();
    for (const file of m[1].split(/\s+/)) {
      if (!existsSync(join(root, file))) {
        problems.push(`README.md:${j + 1}: ${file} does not exist`);
        continue;
      }
      for (const l of readFileSync(join(root, file), 'utf8').split('\n')) {
        const s = snippetLine(l);
        if (s !== null) have.add(s);
      }
    }
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      const s = snippetLine(lines[i]);
      if (s !== null && !have.has(s)) problems.push(`README.md:${i + 1}: not in ${m[1]}: ${s}`);
    }
  }
  if (snippets === 0) problems.push('README.md has no Go snippet');
  if (problems.length > 0) return { ok: false, seconds: '0.0', report: problems.join('\n') };
  return { ok: true, seconds: '0.0', report: `${snippets} snippets, every line found` };
}

// diff returns a line diff of want and got (- want, + got), from their
// longest common subsequence; empty when they are the same.
function diff(want, got) {
  const a = want.split('\n');
  const b = got.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let changed = false;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push('  ' + a[i]);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] > lcs[i + 1][j])) {
      out.push('+ ' + b[j++]);
      changed = true;
    } else {
      out.push('- ' + a[i++]);
      changed = true;
    }
  }
  return changed ? out.join('\n') : '';
}

function run(ex) {
  if (ex.check) return ex.check();
  const started = Date.now();
  const r = spawnSync(ex.cmd[0], ex.cmd.slice(1), {
    cwd: join(root, ex.cwd ?? '.'),
    env: { ...process.env, ...(ex.env ?? {}) },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.error) return { ok: false, seconds, report: `cannot run ${ex.cmd.join(' ')}: ${r.error.message}` };
  const got = (ex.normalize ?? ((s) => s))(r.stdout);
  if (r.status !== 0) {
    return { ok: false, seconds, got, report: `${ex.cmd.join(' ')} exited ${r.status}\n${r.stdout}${r.stderr}` };
  }
  if (!ex.transcript) return { ok: true, seconds, got, report: `${got.split('\n').filter((l) => l.startsWith('PASS')).length} passed` };
  const path = join(root, ex.transcript);
  if (update) {
    writeFileSync(path, got);
    return { ok: true, seconds, got, report: `wrote ${ex.transcript}` };
  }
  let want;
  try {
    want = readFileSync(path, 'utf8');
  } catch (e) {
    return { ok: false, seconds, got, report: `no transcript ${ex.transcript} (${e.code}); write it with --update` };
  }
  const d = diff(want, got);
  if (d) return { ok: false, seconds, got, report: `output differs from ${ex.transcript} (- expected, + got):\n${d}` };
  return { ok: true, seconds, got };
}

const argv = process.argv.slice(2);
const update = argv.includes('--update');
if (argv.includes('--list')) {
  for (const ex of examples) console.log(`${ex.name}\t${ex.what}`);
  process.exit(0);
}
const names = argv.filter((a) => !a.startsWith('--'));
const unknownFlag = argv.find((a) => a.startsWith('--') && a !== '--update' && a !== '--list');
const unknownName = names.find((n) => !examples.some((ex) => ex.name === n));
if (unknownFlag || unknownName) {
  console.error(`run-examples: unknown ${unknownFlag ? 'flag ' + unknownFlag : 'example ' + unknownName}`);
  console.error(`usage: node scripts/docs/run-examples.mjs [--update | --list] [NAME...]; examples: ${examples.map((e) => e.name).join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const ex of examples) {
  if (names.length > 0 && !names.includes(ex.name)) continue;
  const r = run(ex);
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${ex.name} (${ex.what}) ${r.seconds}s`);
  if (r.report) console.log(r.report.replace(/^/gm, '     '));
  if (!r.ok) failed++;
}
if (failed > 0) {
  console.log(`${failed} example(s) differ from their transcripts`);
  process.exit(1);
}
