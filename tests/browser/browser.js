// The browser-test harness: Debian's chromium, headless, driven by
// puppeteer-core (which downloads no browser). A test launches one browser,
// opens each page at a width with openPage (which records every console
// error, uncaught page error, dialog and request the page makes), checks
// it, and saves screenshots at the desktop and phone widths.
//
// Reusable by any test of gunbai's pages: the HTML report of `gunbai audit
// --format=html` (report_test.js) and, later, the pages a live gunbaid
// serves (openPage takes any URL).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

let puppeteer;
try {
  puppeteer = require('puppeteer-core');
} catch (e) {
  throw new Error(
      'puppeteer-core is not installed in tests/browser: run ' +
      '`bash deploy/setup.sh` (it runs `npm ci` there)');
}

// The widths every page is looked at: a desktop and a small phone.
const WIDTHS = Object.freeze({desktop: 1280, phone: 360});

// Debian's chromium, or $GUNBAI_CHROMIUM.
function chromiumPath() {
  const p = process.env.GUNBAI_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(p)) {
    throw new Error(
        `no browser at ${p}: run \`bash deploy/setup.sh\` (Debian's ` +
        'chromium), or set GUNBAI_CHROMIUM');
  }
  return p;
}

// Launches headless chromium. Chromium's sandbox cannot start as root (CI
// runs as root), so only then is it started with --no-sandbox.
async function launchBrowser() {
  const args = ['--disable-gpu', '--hide-scrollbars', '--no-first-run',
                '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-sync'];
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    args.push('--no-sandbox');
  }
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args,
    // A private profile each run, removed by puppeteer at close.
    timeout: 20000,
  });
}

// Opens `url` in a new page `width` pixels wide and waits for it to load.
// Returns {page, problems}: problems.consoleErrors (console.error messages,
// CSP refusals among them), problems.pageErrors (uncaught exceptions),
// problems.dialogs (alert/confirm/prompt, each dismissed) and
// problems.requests (every URL the page asked for, the page itself first).
async function openPage(browser, url, width, options = {}) {
  const page = await browser.newPage();
  const problems = {consoleErrors: [], pageErrors: [], dialogs: [],
                    requests: []};
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => problems.pageErrors.push(String(err)));
  page.on('dialog', async (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('request', (req) => problems.requests.push(req.url()));
  await page.setViewport({width, height: options.height || 900,
                          deviceScaleFactor: 1,
                          isMobile: width < 600, hasTouch: width < 600});
  await page.goto(url, {waitUntil: 'load', timeout: 15000});
  return {page, problems};
}

// Saves a full-page screenshot of `page` as DIR/NAME.png and returns the
// path.
async function screenshot(page, dir, name) {
  fs.mkdirSync(dir, {recursive: true});
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({path: file, fullPage: true});
  return file;
}

// Opens `url` at each of WIDTHS, runs `check(page, problems, widthName)` on
// it (which may add to `failures`), saves DIR/NAME-WIDTHNAME.png and closes
// the page. Returns the screenshots' paths.
async function atBothWidths(browser, url, dir, name, check) {
  const shots = [];
  for (const [widthName, width] of Object.entries(WIDTHS)) {
    const {page, problems} = await openPage(browser, url, width);
    try {
      await check(page, problems, widthName);
      shots.push(await screenshot(page, dir, `${name}-${widthName}`));
    } finally {
      await page.close();
    }
  }
  return shots;
}

// A test's named checks: check(name, fn) runs fn, prints "ok NAME" or
// "FAILED NAME" with the error, and goes on; summary() prints the counts
// and returns the exit code (0 when every check passed).
function checks() {
  let passed = 0;
  let failed = 0;
  return {
    async check(name, fn) {
      try {
        await fn();
        passed++;
        console.log(`ok ${name}`);
      } catch (e) {
        failed++;
        console.log(`FAILED ${name}\n${e.stack || e}`);
      }
    },
    summary() {
      console.log(`${passed} passed, ${failed} failed`);
      return failed === 0 ? 0 : 1;
    },
  };
}

// Asserts what every page gunbaid serves must be: no console error, page
// error or dialog, no request off `origin` (a data: URL, as the map's
// picture is shown, fetches nothing), no sideways scrolling.
async function expectClean(page, problems, origin) {
  const assert = require('node:assert/strict');
  assert.deepEqual(problems.consoleErrors, [], 'console errors');
  assert.deepEqual(problems.pageErrors, [], 'page errors');
  assert.deepEqual(problems.dialogs, [], 'dialogs');
  for (const url of problems.requests) {
    if (url.startsWith('data:')) continue;
    assert.ok(url.startsWith(origin + '/'), `a request off gunbaid: ${url}`);
  }
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  const width = page.viewport().width;
  assert.ok(scroll <= width, `scrolls sideways: ${scroll} > ${width}`);
}

module.exports = {WIDTHS, launchBrowser, openPage, screenshot, atBothWidths, checks,
                  expectClean};
