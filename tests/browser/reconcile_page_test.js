// The Two copies page a real gunbaid serves, in headless chromium at 1280
// and 360 pixels, checked against the real CLI (`gunbai reconcile
// --format=json`, not the page or the daemon): two copies of
// tests/data/anegawa-clean, the second with seq 6's volley rolled all 1s,
// are chosen through the page's file inputs, and the page must show the
// CLI's shape, verdict, the copy the rules support and each copy's count
// of violations and disputes from the divergence; the same copy twice must
// show that they agree. No console error, page error, dialog, request off
// gunbaid or sideways scrolling.
//
// Usage: node reconcile_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {launchBrowser, openPage, screenshot, WIDTHS, checks, expectClean} = require('./browser.js');
const {startGunbaid} = require('./gunbaid.js');

const [gunbai, gunbaid, dataDir, outDir] = process.argv.slice(2);
if (!gunbai || !gunbaid || !dataDir || !outDir) {
  console.error('usage: node reconcile_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-reconcile-page-'));

// Runs gunbai reconcile --format=json; exit 1 (they differ) is no error.
function cliReconcile(a, b) {
  try {
    return JSON.parse(execFileSync(gunbai, ['reconcile', '--format=json', a, b],
                                   {encoding: 'utf8'}));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);
    throw e;
  }
}

const {check, summary} = checks();

async function compareOnPage(browser, origin, a, b, name, width) {
  const {page, problems} = await openPage(browser, origin + '/#/reconcile', width);
  try {
    await (await page.$('#reconcile-a')).uploadFile(a);
    await (await page.$('#reconcile-b')).uploadFile(b);
    await page.click('#reconcile-go');
    await page.waitForSelector('#reconcile-result .verdict, #reconcile-result .error',
                               {timeout: 30000});
    const error = await page.$('#reconcile-result .error');
    assert.equal(error, null, error && await page.evaluate((e) => e.textContent, error));
    await expectClean(page, problems, origin);
    await screenshot(page, shotsDir,
        `reconcile-${name}-${width === WIDTHS.desktop ? 'desktop' : 'phone'}`);
    return page;
  } catch (e) {
    await page.close();
    throw e;
  }
}

(async () => {
  const daemon = await startGunbaid(gunbaid);
  const browser = await launchBrowser();
  const origin = daemon.httpUrl;
  try {
    const a = path.join(dataDir, 'anegawa-clean.textproto');
    const b = path.join(work, 'anegawa-other-dice.textproto');
    const text = fs.readFileSync(a, 'utf8');
    const edited = text.replace('dice: [2, 2, 3, 2, 1, 1, 4, 4]',
                                'dice: [1, 1, 1, 1, 1, 1, 1, 1]');
    assert.notEqual(edited, text, 'the edit of seq 6 applies');
    fs.writeFileSync(b, edited);

    await check('other dice: the page shows gunbai reconcile\'s reading', async () => {
      const cli = cliReconcile(a, b);
      assert.equal(cli.shape, 'RECONCILE_SHAPE_OTHER_DICE');
      for (const width of [WIDTHS.desktop, WIDTHS.phone]) {
        const page = await compareOnPage(browser, origin, a, b, 'other-dice', width);
        try {
          const verdict = await page.$eval('#reconcile-result .verdict', (p) => ({
            text: p.textContent, shape: p.dataset.shape, support: p.dataset.support}));
          assert.equal(verdict.shape, cli.shape);
          assert.equal(verdict.support, cli.rules_support);
          assert.equal(verdict.text, cli.verdict);
          const findings = await page.$$eval('.reconcile-copy',
              (cards) => cards.map((c) => [c.dataset.copy,
                  c.querySelector('[data-findings]').dataset.findings]));
          assert.deepEqual(findings, [
            ['A', String(cli.a.findings_from_divergence)],
            ['B', String(cli.b.findings_from_divergence)]]);
        } finally {
          await page.close();
        }
      }
    });

    await check('the same copy twice: the page says they agree', async () => {
      const cli = cliReconcile(a, a);
      assert.equal(cli.shape, 'RECONCILE_SHAPE_SAME');
      const page = await compareOnPage(browser, origin, a, a, 'same', WIDTHS.desktop);
      try {
        const verdict = await page.$eval('#reconcile-result .verdict', (p) => p.textContent);
        assert.equal(verdict, cli.verdict);
        assert.equal(await page.$('.reconcile-copy'), null);
      } finally {
        await page.close();
      }
    });
  } finally {
    await browser.close();
    await daemon.stop();
    fs.rmSync(work, {recursive: true, force: true});
  }
  process.exit(summary());
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
