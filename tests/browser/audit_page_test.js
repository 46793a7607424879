// The Audit page a real gunbaid serves, in headless chromium at 1280 and
// 360 pixels, checked against the real CLI (not against the page or the
// daemon): each log is uploaded through the page's file input as a user
// chooses a file, and the page must show the verdict and the findings
// (their rule ids and seqs, in order) that `gunbai audit --format=json`
// gives for the same file; stepping to an event must show each unit's
// stands that `gunbai state --at=SEQ --format=json` gives. The logs: the
// sample games of tests/data (text), a generated game with planted faults
// as text, JSON and binary (`gunbai generate --format=...`), and the log of
// hostile names, whose every name must show as text, exactly. No console
// error, page error, dialog, request off gunbaid or sideways scrolling.
//
// Usage: node audit_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
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
  console.error('usage: node audit_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-audit-page-'));

// Runs gunbai; exit 1 (findings) is not an error.
function run(args) {
  try {
    return execFileSync(gunbai, args, {encoding: 'utf8', maxBuffer: 1 << 28});
  } catch (e) {
    if (e.status === 1) return e.stdout;
    throw e;
  }
}

const {check, summary} = checks();

// The verdict line `gunbai audit`'s JSON summary gives, as the page words it.
function expectedVerdict(summary) {
  const n = (k) => Number(summary[k] || 0);
  const plural = (c, one, many) => `${c} ${c === 1 ? one : many}`;
  if (n('violations') + n('disputes') + n('warnings') === 0) return /^Clean/;
  return new RegExp('^' + [plural(n('violations'), 'violation', 'violations'),
    plural(n('disputes'), 'disputed result', 'disputed results'),
    plural(n('warnings'), 'warning', 'warnings'),
    plural(n('unverifiable'), 'unverifiable', 'unverifiable')].join(', '));
}

// Uploads `file` through the page's file input and waits for the verdict.
async function upload(page, file) {
  const input = await page.$('#audit-file');
  await input.uploadFile(file);
  await page.waitForSelector('#audit-result .verdict, #audit-result .error',
                             {timeout: 30000});
}

async function auditMatchesCli(browser, origin, file, name, width) {
  const cli = JSON.parse(run(['audit', '--format=json', file]));
  const {page, problems} = await openPage(browser, origin + '/#/audit', width);
  try {
    await upload(page, file);
    const error = await page.$('#audit-result .error');
    assert.equal(error, null, error && await page.evaluate((e) => e.textContent, error));
    const verdict = await page.$eval('#audit-result .verdict', (p) => p.textContent);
    assert.match(verdict, expectedVerdict(cli.summary || {}));
    const shown = await page.$$eval('section.findings-section > ul.findings > li.finding',
        (lis) => lis.map((li) => `${li.dataset.seq}:${li.dataset.rule}`));
    const expected = (cli.findings || []).map((f) => `${f.seq || 0}:${f.rule_id}`);
    assert.deepEqual(shown, expected);
    // Under each finding, how many of the combinations of readings give it,
    // as `gunbai audit --all-readings` counts them; and the findings only
    // other readings give, folded away, as it lists them.
    const all = JSON.parse(run(['audit', '--format=json', '--all-readings', '--any-reading', file]));
    const combinations = await page.$$eval(
        'section.findings-section > ul.findings > li.finding p.readings',
        (ps) => ps.map((p) => p.dataset.combinations));
    assert.deepEqual(combinations, (all.findings || []).map((f) => String(f.combinations_found)));
    const others = await page.$$eval('details.other-readings li.finding',
        (lis) => lis.map((li) => `${li.dataset.seq}:${li.dataset.rule}`));
    assert.deepEqual(others, (all.other_reading_findings || []).map(
        (f) => `${f.seq || 0}:${f.rule_id}`));
    // Under each finding, the remedy `gunbai audit --remedies` orders under
    // the default procedure, in its words.
    const withRemedies = JSON.parse(run(['audit', '--format=json', '--remedies', file]));
    const remedies = await page.$$eval('section.findings-section > ul.findings > li.finding',
        (lis) => lis.map((li) => (li.querySelector('p.remedy') || {}).textContent || ''));
    assert.deepEqual(remedies, (withRemedies.findings || []).map((f) =>
        `Remedy: ${f.remedy.text} (procedure pbem-default 1.0).`));
    await page.waitForSelector('#step-detail table.state');
    await expectClean(page, problems, origin);
    await screenshot(page, shotsDir, `audit-${name}-${width === WIDTHS.desktop ? 'desktop' : 'phone'}`);
    return {page, problems, cli};
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
    // The generated game with planted faults, in three formats: the same
    // game (same seed), so the same findings.
    const generated = {};
    for (const [format, ext] of [['text', 'textproto'], ['json', 'json'], ['binary', 'binpb']]) {
      const file = path.join(work, `generated.${ext}`);
      execFileSync(gunbai, ['generate', '--seed=4', '--turns=6', '--faults=3',
                            `--format=${format}`, `--output=${file}`]);
      generated[format] = file;
    }
    const samples = fs.readdirSync(dataDir).filter((f) => f.endsWith('.textproto') &&
        !f.includes('expected')).sort();
    assert.ok(samples.length >= 4, 'the sample games are there');
    for (const sample of samples) {
      await check(`${sample}: the page shows gunbai audit's findings`, async () => {
        const {page} = await auditMatchesCli(browser, origin, path.join(dataDir, sample),
            sample.replace('.textproto', ''), WIDTHS.desktop);
        await page.close();
      });
    }
    for (const [format, file] of Object.entries(generated)) {
      await check(`a generated game as ${format}: read as ${format}, gunbai audit's findings`,
          async () => {
            for (const width of [WIDTHS.desktop, WIDTHS.phone]) {
              const {page} = await auditMatchesCli(browser, origin, file,
                  `generated-${format}`, width);
              const read = await page.$eval('.summary .muted', (p) => p.textContent);
              const words = {text: 'protobuf text format', json: 'JSON', binary: 'binary protobuf'};
              assert.ok(read.includes(`read as ${words[format]}`), read);
              await page.close();
            }
          });
    }

    await check('stepping shows the state gunbai state gives', async () => {
      const file = path.join(dataDir, 'nagashino-melee.textproto');
      const log = JSON.parse(run(['state', '--format=json', file]));  // After the last.
      assert.ok(log.units.length > 0);
      for (const width of [WIDTHS.desktop, WIDTHS.phone]) {
        const {page, problems} = await auditMatchesCli(browser, origin, file,
            'nagashino-step', width);
        try {
          // Keyboard: Next from the first event, twice, then check; then
          // the last event by its button.
          const seqs = await page.$$eval('button.event', (bs) => bs.map((b) => b.dataset.seq));
          await page.focus('#step-next');
          await page.keyboard.press('Enter');
          await page.keyboard.press('Enter');
          const third = seqs[2];
          await page.waitForFunction((seq) => {
            const h = document.querySelector('#step-detail h3');
            return h && h.textContent.startsWith(`After event ${seq}:`);
          }, {}, third);
          const expected = JSON.parse(run(['state', '--format=json', `--at=${third}`, file]));
          const stands = await page.$$eval('#step-detail table.state tbody tr',
              (trs) => trs.map((tr) => `${tr.dataset.unit}:${tr.querySelector('.stands').textContent}`));
          assert.deepEqual(stands, expected.units.map((u) => `${u.id}:${u.stands || 0}`));
          const last = seqs[seqs.length - 1];
          await page.click(`button.event[data-seq="${last}"]`);
          await page.waitForFunction((seq) => {
            const h = document.querySelector('#step-detail h3');
            return h && h.textContent.startsWith(`After event ${seq}:`);
          }, {}, last);
          const final = await page.$$eval('#step-detail table.state tbody tr',
              (trs) => trs.map((tr) => `${tr.dataset.unit}:${tr.querySelector('.stands').textContent}`));
          assert.deepEqual(final, log.units.map((u) => `${u.id}:${u.stands || 0}`));
          await expectClean(page, problems, origin);
          await screenshot(page, shotsDir,
              `audit-stepped-${width === WIDTHS.desktop ? 'desktop' : 'phone'}`);
        } finally {
          await page.close();
        }
      }
    });

    await check('hostile names are text', async () => {
      const file = path.join(__dirname, 'hostile-names.textproto');
      const {page, problems} = await auditMatchesCli(browser, origin, file, 'hostile',
                                                      WIDTHS.desktop);
      try {
        const scripts = await page.$$eval('script', (ss) => ss.map((s) => s.src));
        assert.ok(scripts.every((src) => src.startsWith(origin + '/app/')), scripts.join());
        assert.equal(await page.$('main img'), null, 'a name became an <img>');
        assert.equal(await page.$('main b'), null, 'a name became <b>');
        const text = await page.$eval('main', (m) => m.textContent);
        assert.ok(text.includes('hostile-<script>alert("game")</script>'), 'the game id');
        const rows = await page.$$eval('#step-detail table.state tbody tr td:first-child',
            (tds) => tds.map((td) => td.textContent));
        assert.ok(rows.includes('<img src=x onerror=alert(2)> "Yumi" & \'Co\''), rows.join('|'));
        assert.deepEqual(problems.dialogs, []);
      } finally {
        await page.close();
      }
    });

    await check('a file that is not a log says where it breaks', async () => {
      const file = path.join(work, 'broken.textproto');
      fs.writeFileSync(file, 'header { game_id: 3 }\n');
      const {page, problems} = await openPage(browser, origin + '/#/audit', WIDTHS.phone);
      try {
        await upload(page, file);
        const error = await page.$eval('#audit-result .error', (p) => p.textContent);
        assert.match(error, /broken\.textproto:1:\d+: /);
        // The failed call's 400 is the only console line the browser logs.
        problems.consoleErrors = problems.consoleErrors.filter((m) => !/status of 400/.test(m));
        await expectClean(page, problems, origin);
        await screenshot(page, shotsDir, 'audit-error-phone');
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
