// Validate WGSL files with Tint: Chromium's WebGPU, headless, on SwiftShader.
//
//   node tests/tint_check.mjs FILE.wgsl...        (or: --list FILES.json)
//
// Prints one JSON object {path: [error, ...]} for all files, checked in ONE
// browser session: each file is compiled with createShaderModule (its
// getCompilationInfo errors, as "line:col: message") and, when that is clean,
// turned into a compute pipeline with layout 'auto' (entry point: the name of
// the file's @compute function) inside a validation error scope.
// Needs playwright-core (`npm install --prefix tests`) and a Chromium binary:
// $PYSHADE_CHROMIUM, else /usr/bin/chromium. playwright's own browser download
// is never used. Exit status: 0 after checking (errors are in the JSON),
// 2 on bad usage, 3 when WebGPU itself is unavailable.

import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

function fail(code, message) {
  process.stderr.write(`tint_check: ${message}\n`);
  process.exit(code);
}

let paths = process.argv.slice(2);
if (paths[0] === "--list") paths = JSON.parse(readFileSync(paths[1], "utf8"));
if (paths.length === 0) fail(2, "usage: node tint_check.mjs FILE.wgsl... | --list FILES.json");

const files = paths.map((path) => {
  const code = readFileSync(path, "utf8");
  const m = /@compute\b[^]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(code);
  return { path, code, entry: m ? m[1] : null };
});

const executablePath = process.env.PYSHADE_CHROMIUM || "/usr/bin/chromium";
const dir = mkdtempSync(join(tmpdir(), "pyshade-tint-"));
const page_path = join(dir, "blank.html");   // file:// is a secure context; about:blank is not
writeFileSync(page_path, "<!doctype html><title>tint</title>\n");

const browser = await chromium.launch({
  executablePath,
  headless: true,
  timeout: 120_000,
  args: [
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--use-webgpu-adapter=swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
const version = browser.version();
let result;
try {
  const page = await browser.newPage();
  await page.goto(pathToFileURL(page_path).href);
  result = await page.evaluate(async (files) => {
    if (!navigator.gpu) return { fatal: "navigator.gpu is undefined (WebGPU disabled?)" };
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return { fatal: "requestAdapter() returned null" };
    const features = adapter.features.has("shader-f16") ? ["shader-f16"] : [];
    const device = await adapter.requestDevice({ requiredFeatures: features });
    let lost = null;
    device.lost.then((info) => { lost = info.message || info.reason; });
    const out = {};
    for (const { path, code, entry } of files) {
      const errors = [];
      if (lost) { errors.push(`device lost: ${lost}`); out[path] = errors; continue; }
      device.pushErrorScope("validation");
      const module = device.createShaderModule({ code });
      const info = await module.getCompilationInfo();
      for (const msg of info.messages) {
        if (msg.type === "error") errors.push(`${msg.lineNum}:${msg.linePos}: ${msg.message}`);
      }
      const moduleError = await device.popErrorScope();
      if (errors.length === 0 && moduleError) errors.push(moduleError.message);
      if (errors.length === 0) {
        device.pushErrorScope("validation");
        device.createComputePipeline({
          layout: "auto",
          compute: entry ? { module, entryPoint: entry } : { module },
        });
        const pipelineError = await device.popErrorScope();
        if (pipelineError) errors.push(`pipeline: ${pipelineError.message}`);
      }
      out[path] = errors;
    }
    const ai = adapter.info || {};
    return { adapter: `${ai.vendor} ${ai.architecture}`.trim(), results: out };
  }, files);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}

if (result.fatal) fail(3, `${result.fatal} (Chromium ${version})`);
process.stderr.write(`tint_check: ${files.length} files, Chromium ${version}, adapter ${result.adapter}\n`);
process.stdout.write(JSON.stringify(result.results, null, 1) + "\n");
