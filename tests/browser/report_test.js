// The HTML report in a real browser (ctest label `browser`): for each sample
// log, the page the real `gunbai audit --format=html --impact` writes is
// opened in headless chromium at 1280 and 360 pixels and checked against
// `gunbai audit --format=json` of the same log (not against the renderer):
// the verdict, the number of findings and their rule ids and seqs in order,
// the exit code. The page must load nothing but itself, log no console error
// (a refused style sheet is one), raise no dialog and make no script element
// and fit 360 pixels without sideways scrolling. The log with hostile names
// must show each name as text, exactly. Screenshots go to OUT_DIR.
//
// Usage: node report_test.js GUNBAI DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const {pathToFileURL} = require('node:url');
const {launchBrowser, atBothWidths} = require('./browser.js');

const [gunbai, dataDir, outDir] = process.argv.slice(2);
if (!gunbai || !dataDir || !outDir) {
  console.error('usage: node report_test.js GUNBAI DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');
const pagesDir = path.join(outDir, 'browser-pages');
fs.mkdirSync(pagesDir, {recursive: true});

// The names in tests/browser/hostile-names.textproto, as written there.
const HOSTILE = {
  gameId: 'hostile-<script>alert("game")</script>',
  clans: [
    {id: 'tokugawa', name: '<script>alert(1)</script>',
     player: 'Aiko "the \'Quoter\'" & co'},
    {id: 'ishida"&\'', name: 'Western & <b>Army</b>', player: 'Ben'},
  ],
  unit: {id: 'tok-yumi', name: '<img src=x onerror=alert(2)> "Yumi" & \'Co\''},
  unitId: 'tok-<script>alert(3)</script>',
};

// Runs gunbai; returns {stdout, code}. Exit 1 (findings) is not an error.
function runGunbai(args) {
  try {
    return {stdout: execFileSync(gunbai, args, {encoding: 'utf8'}), code: 0};
  } catch (e) {
    if (typeof e.status !== 'number' || e.status > 1) throw e;
    return {stdout: e.stdout, code: e.status};
  }
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAILED ${name}\n  ${String(e.message).replace(/\n/g, '\n  ')}`);
  }
}

// What the page says, read in the browser.
async function readPage(page) {
  return page.evaluate(() => {
    const v = document.getElementById('verdict');
    return {
      verdict: v && v.dataset.verdict,
      counts: v && [v.dataset.violations, v.dataset.disputes,
                    v.dataset.warnings, v.dataset.unverifiable].map(Number),
      verdictTitle: v && document.getElementById('verdict-title').textContent,
      verdictBorder: v && getComputedStyle(v).borderTopWidth,
      findings: [...document.querySelectorAll('article.finding')].map(
          (a) => [a.dataset.seq, a.dataset.rule]),
      scripts: document.querySelectorAll('script').length,
      images: document.querySelectorAll('img').length,
      bold: document.querySelectorAll('b').length,
      iframes: document.querySelectorAll('iframe,object,embed').length,
      eventRows: document.querySelectorAll('table.events tbody tr').length,
      svgTitles: [...document.querySelectorAll('svg[role=img]')].every(
          (s) => s.querySelector('title') && s.getAttribute('aria-label')),
      svgs: document.querySelectorAll('svg[role=img]').length,
      scrollWidth: document.documentElement.scrollWidth,
      h1: document.querySelector('h1').textContent,
      facts: [...document.querySelectorAll('.facts dd')].map(
          (d) => d.textContent),
      legend: [...document.querySelectorAll('.stands .legend li')].map(
          (l) => l.textContent.trim()),
      diceClans: [...document.querySelectorAll('figure.dice')].map(
          (f) => f.getAttribute('data-clan')),
      bodyText: document.body.innerText,
      title: document.title,
    };
  });
}

function expectedVerdict(report) {
  const s = report.summary || {};
  const n = (k) => Number(s[k] || 0);
  return {
    verdict: n('violations') + n('disputes') + n('warnings') === 0 ?
        'clean' : 'findings',
    counts: [n('violations'), n('disputes'), n('warnings'), n('unverifiable')],
  };
}

async function checkLog(browser, logPath, extra) {
  const name = path.basename(logPath).replace(/\.[a-z]+$/, '');
  const htmlPath = path.join(pagesDir, `${name}.html`);
  const html = runGunbai(['audit', '--format=html', '--impact', '-o', htmlPath,
                          logPath]);
  const json = runGunbai(['audit', '--format=json', logPath]);
  const report = JSON.parse(json.stdout);
  const want = expectedVerdict(report);
  const url = pathToFileURL(htmlPath).href;
  await check(`${name}: exit code ${json.code} as for --format=json`, () => {
    assert.equal(html.code, json.code);
    assert.equal(html.stdout, '', 'with -o nothing on stdout');
  });
  await atBothWidths(browser, url, shotsDir, name,
      async (page, problems, width) => {
        const got = await readPage(page);
        await check(`${name} @${width}: verdict and findings as the JSON report`,
            () => {
              assert.equal(got.verdict, want.verdict);
              assert.deepEqual(got.counts, want.counts);
              assert.ok(got.verdictTitle.startsWith(
                  want.verdict === 'clean' ? '\u2714 Clean' : '\u2716 Not clean'),
                  got.verdictTitle);
              assert.deepEqual(got.findings, (report.findings || []).map(
                  (f) => [String(f.seq), f.rule_id]));
              assert.equal(got.eventRows, Number(report.events_replayed));
            });
        await check(`${name} @${width}: self-contained, no script, no errors`,
            () => {
              assert.deepEqual(problems.requests, [url],
                  'the page must load nothing but itself');
              assert.deepEqual(problems.consoleErrors, []);
              assert.deepEqual(problems.pageErrors, []);
              assert.deepEqual(problems.dialogs, []);
              assert.equal(got.scripts, 0);
              assert.equal(got.iframes, 0);
              // The style sheet applied (its CSP hash matched): the verdict
              // box has its 3px border.
              assert.equal(got.verdictBorder, '3px');
              assert.ok(got.svgs >= 2, `${got.svgs} charts`);
              assert.ok(got.svgTitles, 'every chart has a title and a label');
              if (width === 'phone') {
                assert.ok(got.scrollWidth <= 360,
                    `the page is ${got.scrollWidth}px wide at 360`);
              }
            });
        if (extra) await extra(got, width);
      });
}

async function main() {
  const logs = fs.readdirSync(dataDir).filter((f) => f.endsWith('.textproto'))
      .sort().map((f) => path.join(dataDir, f));
  assert.ok(logs.length >= 3, `sample logs in ${dataDir}`);
  const started = Date.now();
  const browser = await launchBrowser();
  try {
    for (const log of logs) await checkLog(browser, log);
    await checkLog(browser, path.join(__dirname, 'hostile-names.textproto'),
        async (got, width) => {
          await check(`hostile names @${width}: shown as text, exactly`, () => {
            assert.equal(got.images, 0, 'an <img> from a name');
            assert.equal(got.bold, 0, 'a <b> from a name');
            assert.equal(got.h1, `Audit of game \u201c${HOSTILE.gameId}\u201d`);
            assert.equal(got.title, `gunbai audit: ${HOSTILE.gameId}`);
            for (const c of HOSTILE.clans) {
              assert.ok(got.facts.includes(
                  `${c.name} (${c.id}), played by ${c.player}`),
                  `clan ${c.id} in ${JSON.stringify(got.facts)}`);
            }
            assert.deepEqual(got.diceClans, HOSTILE.clans.map((c) => c.id));
            assert.ok(got.legend.includes(
                `${HOSTILE.unit.name} (${HOSTILE.unit.id})`),
                JSON.stringify(got.legend));
            assert.ok(got.legend.some((l) => l.endsWith(`(${HOSTILE.unitId})`)),
                JSON.stringify(got.legend));
            assert.ok(got.bodyText.includes(HOSTILE.unit.name));
          });
        });
  } finally {
    await browser.close();
  }
  console.log(`screenshots in ${shotsDir} (${((Date.now() - started) / 1000)
      .toFixed(1)} s)`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
