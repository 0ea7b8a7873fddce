// The inspector's trace waterfall in a real browser: headless Chromium (Debian's package,
// /usr/bin/chromium, or $CHROMIUM) opens /_emulator/ on the real a2a-emulator binary
// ($A2A_EMULATOR, built by run.sh). A client sends an invocation with a W3C traceparent;
// an exporter then posts that trace's spans (the front's server span, the agent's span
// under it, a store call under that) to the emulator's OTLP receiver in OTLP JSON. The
// test asserts the invocation row links to its trace, the waterfall nests the spans by
// parent with bars placed by start and duration, and a click shows a span's attributes.
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
const screenshot = (process.env.INSPECTOR_SCREENSHOT || join(tmpdir(), "inspector.png")).replace(/\.png$/, "-trace.png");
const SESSION = "browser-trace-session-0123456789abcdef";
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const STEP = 10_000;

/** Starts the emulator on a free port; resolves with its base URL and page URL. */
function startEmulator() {
  const child = spawn(emulatorPath, ["--host", "127.0.0.1", "--port", "0", "--agent", "echo"], {
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
      if (listening) base = listening[1].replace(/\/$/, "");
      const inspector = line.match(/^a2a-emulator inspector on (\S+)/);
      if (inspector && base) {
        clearTimeout(timer);
        resolve({ child, base, page: inspector[1] });
      }
    });
  });
}

/** One span in OTLP JSON, `startMs` and `durationMs` from `origin` (nanoseconds, a BigInt). */
function span(origin, id, parent, name, kind, startMs, durationMs, attributes, status) {
  const at = (ms) => String(origin + BigInt(Math.round(ms * 1e6)));
  return {
    traceId: TRACE, spanId: id, parentSpanId: parent, name, kind,
    startTimeUnixNano: at(startMs), endTimeUnixNano: at(startMs + durationMs),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    status: status || {},
  };
}

test("an invocation's trace shows as a waterfall, its spans nested by parent", async (t) => {
  assert.ok(emulatorPath, "A2A_EMULATOR names the a2a-emulator binary");
  const emulator = await startEmulator();
  t.after(() => emulator.child.kill("SIGTERM"));
  const profile = mkdtempSync(join(tmpdir(), "inspector-chromium-"));
  t.after(() => rmSync(profile, { recursive: true, force: true }));
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

  // The invocation, its trace context from a client span that exported nothing.
  const sent = await fetch(`${emulator.base}/?A2A-Version=1.0`, {
    method: "POST",
    headers: {
      "content-type": "application/json", "x-amzn-bedrock-agentcore-runtime-session-id": SESSION,
      traceparent: `00-${TRACE}-${CLIENT_SPAN}-01`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] } } }),
  });
  assert.equal(sent.status, 200);
  // What the hosts would export: 100 ms in all, the agent's span from 10 to 90 ms, a store
  // call (failed) from 20 to 45 ms.
  const origin = BigInt(Date.now()) * 1_000_000n;
  const exported = await fetch(`${emulator.base}/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      resourceSpans: [{
        resource: { attributes: [{ key: "service.name", value: { stringValue: "echo-agent" } }] },
        scopeSpans: [{ scope: { name: "a2a-lambda-server" }, spans: [
          span(origin, "2222222222222222", "1111111111111111", "PutItem", 3, 20, 25, { "db.operation.name": "PutItem" }, { code: 2, message: "ConditionalCheckFailed" }),
          span(origin, "1111111111111111", "aaaaaaaaaaaaaaaa", "execute echo", 1, 10, 80, {}),
          span(origin, "aaaaaaaaaaaaaaaa", CLIENT_SPAN, "SendMessage", 2, 0, 100, { "session.id": SESSION, "rpc.method": "SendMessage" }),
        ] }],
      }],
    }),
  });
  assert.equal(exported.status, 200);
  assert.deepEqual(await exported.json(), {});

  // The row links to its trace once the page has read the traces.
  const link = page.locator('#invocations tr[data-seq="1"] a.trace-link');
  await link.waitFor();
  assert.equal(await page.locator('#invocations tr[data-seq="1"]').getAttribute("data-trace"), TRACE);
  await link.click();
  await page.locator(".waterfall .span-row").nth(2).waitFor();
  assert.match(await page.locator("#detail-title").textContent(), new RegExp(`^Trace ${TRACE} · 3 spans · 100\\.000 ms · session ${SESSION}$`));

  // Nested by parent (not in the order sent), each bar where its span ran.
  const rows = await page.locator(".waterfall .span-row").evaluateAll((all) => all.map((row) => {
    const bar = row.querySelector(".span-bar");
    return {
      id: row.dataset.spanId, depth: row.dataset.depth, name: row.querySelector(".span-name").firstChild.textContent,
      left: bar.style.left, width: bar.style.width, error: bar.classList.contains("status-error"),
      ms: row.querySelector(".span-ms").textContent,
    };
  }));
  assert.deepEqual(rows, [
    { id: "aaaaaaaaaaaaaaaa", depth: "0", name: "SendMessage", left: "0%", width: "100%", error: false, ms: "100.000" },
    { id: "1111111111111111", depth: "1", name: "execute echo", left: "10%", width: "80%", error: false, ms: "80.000" },
    { id: "2222222222222222", depth: "2", name: "PutItem", left: "20%", width: "25%", error: true, ms: "25.000" },
  ]);
  // The bars as drawn: the store call's starts a fifth of the way along the agent's track.
  const track = await page.locator('.span-row[data-span-id="2222222222222222"] .span-track').boundingBox();
  const bar = await page.locator('.span-row[data-span-id="2222222222222222"] .span-bar').boundingBox();
  assert.ok(Math.abs((bar.x - track.x) / track.width - 0.2) < 0.01, `bar at ${bar.x - track.x} of ${track.width}`);
  assert.ok(Math.abs(bar.width / track.width - 0.25) < 0.01, `bar ${bar.width} wide of ${track.width}`);

  // A click shows the span's attributes and status.
  await page.locator('.span-row[data-span-id="2222222222222222"]').click();
  await page.locator("#span-detail pre").waitFor();
  const about = JSON.parse(await page.locator("#span-detail pre").textContent());
  assert.deepEqual(about.attributes, { "db.operation.name": "PutItem" });
  assert.deepEqual(about.status, { code: "error", message: "ConditionalCheckFailed" });
  assert.equal(about.parentSpanId, "1111111111111111");
  assert.equal(about.service, "echo-agent");
  assert.deepEqual(errors, []);

  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`trace screenshot: ${screenshot}`);
});
