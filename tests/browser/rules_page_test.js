// The home page and the Rules page a real gunbaid serves, in headless
// chromium at 1280 and 360 pixels: the list has exactly the rules `gunbai
// explain --list --format=json` gives (the CLI, not the page, is the
// reference), a rule's own page shows the text `gunbai explain RULE
// --format=json` gives, a made-up id says that nothing states it, and the
// filter narrows the list. Every page: no console error, no page error, no
// dialog, no request off the gunbaid, no sideways scrolling at 360 px.
//
// Usage: node rules_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const path = require('node:path');
const {launchBrowser, atBothWidths, checks, expectClean} = require('./browser.js');
const {startGunbaid} = require('./gunbaid.js');

const [gunbai, gunbaid, , outDir] = process.argv.slice(2);
if (!gunbai || !gunbaid || !outDir) {
  console.error('usage: node rules_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');

function explain(args) {
  return JSON.parse(execFileSync(gunbai, ['explain', ...args, '--format=json'],
                                 {encoding: 'utf8'}));
}

const {check, summary} = checks();

(async () => {
  const daemon = await startGunbaid(gunbaid);
  const browser = await launchBrowser();
  const origin = daemon.httpUrl;
  try {
    await check('the home page links every page', async () => {
      await atBothWidths(browser, origin + '/', shotsDir, 'home',
          async (page, problems) => {
            await page.waitForSelector('.home-links');
            const links = await page.$$eval('.home-links h2 a',
                (as) => as.map((a) => a.getAttribute('href')));
            assert.deepEqual(links, ['#/audit', '#/ruling', '#/live', '#/reconcile', '#/tournament',
                                    '#/rules']);
            await expectClean(page, problems, origin);
          });
    });

    const list = explain(['--list']);
    await check('the list is the CLI\'s list, and the filter narrows it',
        async () => {
          await atBothWidths(browser, origin + '/#/rules', shotsDir, 'rules-list',
              async (page, problems) => {
                await page.waitForSelector('table.rule-list tbody tr');
                const ids = await page.$$eval('table.rule-list tbody tr td:first-child',
                    (tds) => tds.map((td) => td.textContent));
                assert.deepEqual(ids, list.rules.map((r) => r.id));
                // Typed as a user types: only the ids holding "volley".
                await page.focus('#rule-filter');
                await page.keyboard.type('daimyo.fire.eligibility');
                const filtered = await page.$$eval(
                    'table.rule-list tbody tr td:first-child',
                    (tds) => tds.map((td) => td.textContent));
                const expected = list.rules.filter((r) =>
                    r.id.includes('daimyo.fire.eligibility') ||
                    r.text.toLowerCase().includes('daimyo.fire.eligibility'))
                    .map((r) => r.id);
                assert.ok(expected.length >= 3, 'the docs state eligibility rules');
                assert.deepEqual(filtered, expected);
                await expectClean(page, problems, origin);
              });
        });

    const hit = explain(['daimyo.fire.hit']);
    await check('a rule\'s page shows its reading, reached by its link',
        async () => {
          await atBothWidths(browser, origin + '/#/rules', shotsDir, 'rules-one',
              async (page, problems) => {
                await page.waitForSelector('a.rule-id');
                // Keyboard: the link found and followed with Enter.
                await page.focus('a.rule-id[href="#/rules/daimyo.fire.hit"]');
                await page.keyboard.press('Enter');
                await page.waitForSelector('section.rule');
                const shown = await page.$eval('section.rule', (s) => ({
                  id: s.querySelector('h2').textContent,
                  text: s.querySelectorAll('p')[1].textContent,
                }));
                assert.equal(shown.id, 'daimyo.fire.hit');
                assert.equal(shown.text, hit.rules[0].text);
                assert.equal(await page.title(), 'Rules · gunbai');
                await expectClean(page, problems, origin);
              });
        });

    await check('a made-up id says nothing states it', async () => {
      await atBothWidths(browser, origin + '/#/rules/daimyo.no.such.rule',
          shotsDir, 'rules-unknown', async (page, problems) => {
            await page.waitForSelector('main .notice');
            const text = await page.$eval('main .notice', (p) => p.textContent);
            assert.match(text, /No rules doc states or mentions daimyo\.no\.such\.rule/);
            await expectClean(page, problems, origin);
          });
    });
  } finally {
    await browser.close();
    await daemon.stop();
  }
  process.exit(summary());
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
