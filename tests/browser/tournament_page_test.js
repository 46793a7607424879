// The Tournament page a real gunbaid serves, in headless chromium at 1280
// and 360 pixels, checked against the real CLI (`gunbai tournament
// standings --format=json` over the same files, not the page or the
// daemon): a two-round tournament of four players over copies of
// tests/data/skf-kawanakajima.textproto (as tests/replay/
// tournament_cli_test.sh builds it: one copy with both faults mended,
// verified, the first side winning; one as kept, disputed; one game with
// no log, missing) is opened through the page's file inputs, the logs
// named by paths in a folder ("r1/ok.textproto") matched by file name. The
// page must show the CLI's ranks and scores, each game's status, the
// provisional verdict, and the next round. Then the umpire rules on the
// disputed game from the page: the standings change as worked by hand,
// and the file the page offers reads to the same standings in the CLI. No console error, page error,
// dialog, request off gunbaid or sideways scrolling.
//
// Usage: node tournament_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
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
  console.error('usage: node tournament_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-tournament-page-'));

const TOURNAMENT = `name: "Spring Taikai"
version: "1"
players { id: "aki" name: "Aki" army: "Uesugi" }
players { id: "ben" name: "Ben" army: "Takeda" }
players { id: "cat" name: "Cat" army: "Uesugi" }
players { id: "dan" name: "Dan" army: "Takeda" }
scoring { win: 3 draw: 1 loss: 0 bye: 3 tie_breaks: TIE_BREAK_OPPONENTS_SCORE }
rounds {
  number: 1
  ruleset: "skf"
  games { table: 1 first: "aki" second: "ben" log: "r1/ok.textproto" }
  games { table: 2 first: "cat" second: "dan" log: "r1/kept.textproto" }
}
rounds {
  number: 2
  ruleset: "skf"
  games { table: 1 first: "aki" second: "cat" log: "r2/ok-anon.textproto" }
  games { table: 2 first: "ben" second: "dan" }
}
`;

// Runs gunbai tournament standings --format=json; exit 1 (provisional) is
// no error.
function cliStandings(file) {
  try {
    return JSON.parse(execFileSync(gunbai, ['tournament', 'standings', '--format=json', file],
                                   {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);
    throw e;
  }
}

const {check, summary} = checks();

(async () => {
  const daemon = await startGunbaid(gunbaid);
  const browser = await launchBrowser();
  const origin = daemon.httpUrl;
  try {
    const kept = fs.readFileSync(path.join(dataDir, 'skf-kawanakajima.textproto'), 'utf8');
    const ok = kept
        .replace('dice: 6 modifiers: "obstacle" claimed_hits: 0',
                 'dice: 6 modifiers: "obstacle" claimed_hits: 1')
        .replace('claimed_winner: "takeda"', 'claimed_winner: "uesugi"');
    assert.notEqual(ok, kept, 'the mends apply');
    const anon = (text) => text.replace(/ player: "[A-Za-z]*"/g, '');
    fs.mkdirSync(path.join(work, 'r1'));
    fs.mkdirSync(path.join(work, 'r2'));
    fs.writeFileSync(path.join(work, 'r1', 'ok.textproto'), ok);
    fs.writeFileSync(path.join(work, 'r1', 'kept.textproto'), anon(kept));
    fs.writeFileSync(path.join(work, 'r2', 'ok-anon.textproto'), anon(ok));
    const file = path.join(work, 'spring.textproto');
    fs.writeFileSync(file, TOURNAMENT);

    await check('the page shows gunbai tournament standings\' ranks, games and verdict',
                async () => {
      const cli = cliStandings(file);
      // By hand: r1 aki beat ben (ok: Uesugi, the first clan, wins;
      // verified), cat v dan disputed (not counted); r2 aki beat cat (the
      // same), verified; ben v dan has no log: missing. aki 3 + 3 = 6; ben,
      // cat and dan 0; opponents' score: ben and cat met aki (6), dan no
      // one counted (0): ben and cat in the file's order, then dan.
      assert.deepEqual(cli.standings.map((p) => [p.player, p.score || 0]),
                       [['aki', 6], ['ben', 0], ['cat', 0], ['dan', 0]]);
      assert.equal(cli.final || false, false);
      for (const width of [WIDTHS.desktop, WIDTHS.phone]) {
        const {page, problems} = await openPage(browser, origin + '/#/tournament', width);
        try {
          await (await page.$('#tournament-file')).uploadFile(file);
          await (await page.$('#tournament-logs')).uploadFile(
              path.join(work, 'r1', 'ok.textproto'), path.join(work, 'r1', 'kept.textproto'),
              path.join(work, 'r2', 'ok-anon.textproto'));
          await page.click('#tournament-go');
          await page.waitForSelector('#tournament-result .verdict, #tournament-result .error',
                                     {timeout: 60000});
          const error = await page.$('#tournament-result .error');
          assert.equal(error, null, error && await page.evaluate((e) => e.textContent, error));
          const rows = await page.$$eval('#tournament-standings tbody tr',
              (trs) => trs.map((tr) => [tr.dataset.player, Number(tr.dataset.score)]));
          assert.deepEqual(rows, cli.standings.map((p) => [p.player, p.score || 0]));
          const games = await page.$$eval('#tournament-games li',
              (lis) => lis.map((li) => [Number(li.dataset.round), Number(li.dataset.table),
                                        li.dataset.status]));
          assert.deepEqual(games, cli.games.map((g) => [g.round, g.table, g.status]));
          assert.equal(await page.$eval('#tournament-result .verdict', (p) => p.dataset.final),
                       'false');
          const reason = await page.$eval('#tournament-games li[data-status=' +
              'RESULT_STATUS_DISPUTED] .reason', (p) => p.textContent);
          assert.equal(reason, cli.games[1].reason);
          const next = await page.$$eval('#tournament-next li', (lis) => lis.length);
          assert.equal(next, 2);
          await expectClean(page, problems, origin);
          await screenshot(page, shotsDir,
              `tournament-${width === WIDTHS.desktop ? 'desktop' : 'phone'}`);
        } finally {
          await page.close();
        }
      }
    });

    await check('the umpire rules on the disputed game: the standings change', async () => {
      // By hand: ruling r1t2 "cat wins" (the first side): cat 3 + 0 = 3;
      // aki 6; ben and dan 0. Opponents' score: cat met dan (0) and aki
      // (6): 6; ben met aki: 6; dan met cat (3): 3. So aki, cat, ben, dan.
      const {page, problems} = await openPage(browser, origin + '/#/tournament',
                                              WIDTHS.desktop);
      try {
        await (await page.$('#tournament-file')).uploadFile(file);
        await (await page.$('#tournament-logs')).uploadFile(
            path.join(work, 'r1', 'ok.textproto'), path.join(work, 'r1', 'kept.textproto'),
            path.join(work, 'r2', 'ok-anon.textproto'));
        await page.click('#tournament-go');
        await page.waitForSelector('#tournament-result .verdict', {timeout: 60000});
        await page.click('details.rule-form[data-round="1"][data-table="2"] summary');
        await page.select('#rule-1-2-kind', 'first');
        await page.type('#rule-1-2-note', 'Uesugi reached 5 points at the end of turn 2');
        await page.click('details.rule-form[data-round="1"][data-table="2"] .rule-go');
        await page.waitForSelector('#tournament-download', {timeout: 60000});
        const rows = await page.$$eval('#tournament-standings tbody tr',
            (trs) => trs.map((tr) => [tr.dataset.player, Number(tr.dataset.score)]));
        assert.deepEqual(rows, [['aki', 6], ['cat', 3], ['ben', 0], ['dan', 0]]);
        const ruled = await page.$eval(
            '#tournament-games li[data-round="1"][data-table="2"]',
            (li) => [li.dataset.status, li.querySelector('.ruling').textContent]);
        assert.deepEqual(ruled, ['RESULT_STATUS_RULED',
            'ruling 1: the result is changed: cat (the first side) wins: Uesugi reached 5 ' +
            'points at the end of turn 2']);
        // The file offered for download is the one the CLI reads to the
        // same standings.
        const href = await page.$eval('#tournament-download', (a) => a.getAttribute('href'));
        const ruledFile = path.join(work, 'ruled.textproto');
        fs.writeFileSync(ruledFile, decodeURIComponent(href.replace(/^data:[^,]*,/, '')));
        const cli = cliStandings(ruledFile);
        assert.deepEqual(cli.standings.map((p) => [p.player, p.score || 0]), rows);
        await expectClean(page, problems, origin);
        await screenshot(page, shotsDir, 'tournament-ruled-desktop');
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
