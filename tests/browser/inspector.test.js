// The emulator's inspector page in a real browser: headless Chromium (Debian's package,
// /usr/bin/chromium, or $CHROMIUM) opens /_emulator/ on the real a2a-emulator binary
// ($A2A_EMULATOR, built by run.sh); a client then makes a send, a throttled retry and a
// stream, and the test asserts the rows the page shows live, opens the throttled row's
// details, and saves a screenshot ($INSPECTOR_SCREENSHOT).
// playwright-core drives the browser over CDP and downloads no browser of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const emulatorPath = process.env.A2A_EMULATOR;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const screenshot = process.env.INSPECTOR_SCREENSHOT || join(tmpdir(), "inspector.png");
const SESSION = "browser-test-session-0123456789abcdef";
const STEP = 10_000;

/** Starts the emulator on a free port; resolves with its base URL and page URL. */
function startEmulator() {
  const child = spawn(emulatorPath, ["--host", "127.0.0.1", "--port", "0", "--agent", "echo", "--rate-limit", "1"], {
    env: { PATH: process.env.PATH, NO_COLOR: "1", RUST_LOG: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the emulator printed no inspector line")), 30_000);
    let base = null;
    child.on("exit", (code) => reject(new Error(`the emulator exited (${code})`)));
    lines.on("line", (line) => {
      const listening = line.match(/^a2a-emulator listening on (\S+)/);
      if (listening) base = listening[1];
      const inspector = line.match(/^a2a-emulator inspector on (\S+)/);
      if (inspector && base) {
        clearTimeout(timer);
        resolve({ child, base, page: inspector[1] });
      }
    });
  });
}

function send(base, text, id) {
  return fetch(`${base}/?A2A-Version=1.0`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-amzn-bedrock-agentcore-runtime-session-id": SESSION, authorization: "Bearer browser-secret" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "SendMessage", params: { message: { messageId: `m-${id}`, role: "ROLE_USER", parts: [{ text }] } } }),
  });
}

test("the inspector page shows a send, a throttled retry and a stream as they happen", async (t) => {
  assert.ok(emulatorPath, "A2A_EMULATOR names the a2a-emulator binary");
  const emulator = await startEmulator();
  t.after(() => emulator.child.kill("SIGTERM"));
  const profile = mkdtempSync(join(tmpdir(), "inspector-chromium-"));
  t.after(() => rmSync(profile, { recursive: true, force: true }));
  // A fresh profile, and the flags a closed network and CI's container need.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1360, height: 860 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  t.after(() => browser.close());
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(STEP);
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(emulator.page);
  await page.locator("#live.on").waitFor();

  // A send, then a retry throttled at once (one invocation a second), then the retry a
  // second later that goes through.
  assert.equal((await send(emulator.base, "hello", 1)).status, 200);
  const throttled = await send(emulator.base, "hello again", 2);
  assert.equal(throttled.status, 429);
  assert.equal((await throttled.json()).error.code, -32053);
  await new Promise((done) => setTimeout(done, 1100));
  assert.equal((await send(emulator.base, "hello again", 3)).status, 200);
  // A stream on AWS's path (v0.3).
  await new Promise((done) => setTimeout(done, 1100));
  const arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/test_agent-AbCdEf1234";
  const streamed = await fetch(`${emulator.base}/runtimes/${encodeURIComponent(arn)}/invocations`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "x-amzn-bedrock-agentcore-runtime-session-id": SESSION },
    body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "message/stream", params: { message: { kind: "message", messageId: "m-4", role: "user", parts: [{ kind: "text", text: "streamed" }] } } }),
  });
  assert.equal(streamed.status, 200);
  assert.match(await streamed.text(), /completed/);

  // The rows, newest first, as the live feed put them on the page.
  const rows = page.locator("#invocations tbody tr");
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll("#invocations tbody tr")];
    return cells.length === 4 && cells.every((row) => !row.classList.contains("open"));
  }).catch(async (error) => {
    await page.screenshot({ path: screenshot, fullPage: true });
    const table = await page.locator("#invocations").innerText();
    throw new Error(`${error.message}; the table shows:\n${table}`);
  });
  const shown = await rows.evaluateAll((all) => all.map((row) => ({
    seq: row.dataset.seq, method: row.dataset.method, status: row.dataset.status, code: row.dataset.code,
  })));
  assert.deepEqual(shown, [
    { seq: "4", method: "message/stream", status: "200", code: "" },
    { seq: "3", method: "SendMessage", status: "200", code: "" },
    { seq: "2", method: "SendMessage", status: "429", code: "-32053" },
    { seq: "1", method: "SendMessage", status: "200", code: "" },
  ]);
  assert.equal(await page.locator('#invocations tr[data-seq="2"] td.code-retry').textContent(), "-32053");
  assert.equal(await page.locator('#invocations tr[data-seq="2"] td.s4').textContent(), "429");
  // The session and the streamed task, with their states.
  await page.locator(`#sessions li[data-session="${SESSION}"][data-state="idle"]`).waitFor();
  await page.locator('#tasks li[data-state="completed"]').first().waitFor();

  // The throttled row's details: never reached a container, its token masked.
  await page.locator('#invocations tr[data-seq="2"]').click();
  await page.locator("#detail-panel:not([hidden])").waitFor();
  assert.match(await page.locator("#detail-title").textContent(), /Invocation #2 · SendMessage · 429 \/ -32053/);
  const detail = await page.locator("#detail").textContent();
  assert.match(detail, /authorization: Bearer \*\*\*\*/);
  assert.doesNotMatch(detail, /browser-secret/);
  assert.match(detail, /\(did not reach a container\)/);
  assert.deepEqual(errors, []);

  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`inspector screenshot: ${screenshot}`);
});
