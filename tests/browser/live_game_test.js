// The Live games pages against a real gunbaid (ctest label `browser`): the
// umpire (one browser context) signs in, creates a server-dice game from
// samples/pbem/armies.textproto through the page and starts turn 1; two
// players (two more contexts, so two sessionStorages) sign in with the
// credentials the page showed and play two whole turns through their action
// forms (activate, fire or move, end activation and turn), each seeing the
// other's events arrive live without a reload; the umpire ends the game and
// exports it through the page, and the real `gunbai verify` of that export
// must say ok (exit 0). A wrong credential is refused with its message; an
// order of battle with tests/browser/hostile-names.textproto's names is
// shown as text. Every state is screenshotted at 1280 and 360 pixels.
//
// Usage: node live_game_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {launchBrowser, WIDTHS} = require('./browser.js');
const {startGunbaid} = require('./gunbaid.js');

const [gunbai, gunbaid, dataDir, outDir] = process.argv.slice(2);
if (!gunbai || !gunbaid || !dataDir || !outDir) {
  console.error('usage: node live_game_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const repo = path.resolve(__dirname, '..', '..');
const shotsDir = path.join(outDir, 'browser-screenshots');
fs.mkdirSync(shotsDir, {recursive: true});
const UMPIRE = 'umpire-credential-' + 'u'.repeat(40);

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAILED ${name}: ${e.stack || e}`);
  }
}

// A page in `context` (its own sessionStorage) with the problems
// browser.js's openPage records.
async function openIn(context, url, origin) {
  const page = await context.newPage();
  const problems = {consoleErrors: [], pageErrors: [], dialogs: [], requests: []};
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => problems.pageErrors.push(String(err)));
  page.on('dialog', async (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(origin + '/') && !u.startsWith('blob:' + origin + '/') &&
        !u.startsWith('data:')) {
      problems.requests.push(u);
    }
  });
  await page.setViewport({width: WIDTHS.desktop, height: 900});
  await page.goto(url, {waitUntil: 'load', timeout: 15000});
  return {page, problems};
}

// Screenshots of the page as it is at both widths; at 360 it must not
// scroll sideways. Ends at desktop width.
async function shots(page, name) {
  for (const [widthName, width] of Object.entries(WIDTHS)) {
    // Width only: changing isMobile would reload the page (and its state).
    await page.setViewport({width, height: 900});
    await new Promise((r) => setTimeout(r, 150));
    if (width === WIDTHS.phone) {
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(w <= 360, `${name}: the page is ${w}px wide at 360`);
    }
    await page.screenshot({path: path.join(shotsDir, `live-${name}-${widthName}.png`), fullPage: true});
  }
  await page.setViewport({width: WIDTHS.desktop, height: 900});
}

// The deliberately wrong credentials' refusals (403), the refused hostile
// game id (400) and, on a gunbaid without /v1/games:legalActions, its 404
// (asked once a page) are the only failed loads the browser may log.
function noProblems(problems) {
  assert.deepEqual(problems.consoleErrors.filter((m) =>
      !/^Failed to load resource: the server responded with a status of 40[034]/.test(m)), []);
  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.dialogs, []);
  assert.deepEqual(problems.requests, []);
}

const textOf = (page, sel) => page.$eval(sel, (n) => n.textContent);
const seqsShown = (page) => page.$$eval('.events .live-event',
    (items) => items.map((i) => Number(i.dataset.seq)).sort((a, b) => a - b));

async function waitForSeq(page, seq, timeout = 10000) {
  await page.waitForFunction((s) => [...document.querySelectorAll('.events .live-event')]
      .some((i) => Number(i.dataset.seq) === s), {timeout}, seq);
}

// Signs in through the form with the keyboard: the field has the focus
// when the page opens; Enter submits.
async function signIn(page, token) {
  await page.waitForSelector('#live-credential');
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
  assert.equal(focused, 'live-credential', 'the credential field has the focus');
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
}

// Waits until the page has no refresh or send under way or due.
async function settled(page) {
  await page.waitForFunction(() => document.getElementById('main').dataset.busy === '0',
                             {timeout: 10000});
}

// Presses the button `sel` with the keyboard (focus, Enter) once the page
// has settled.
async function press(page, sel) {
  await page.waitForSelector(sel, {timeout: 10000});
  await settled(page);
  await page.focus(sel);
  await page.keyboard.press('Enter');
}

// Waits until the action form is drawn for the current version, then
// returns the offered actions as {kind, unit, target}.
async function offered(page) {
  await page.waitForSelector('.actions .action-groups, .actions .waiting', {timeout: 10000});
  await settled(page);
  return page.$$eval('.actions button.action', (bs) => bs.map((b) => ({
    kind: b.dataset.kind, unit: b.dataset.unit, target: b.dataset.target})));
}

// Clicks the first offered action of `kind` (and `unit`), waits for the
// reply; returns the reply box's text.
async function act(page, kind, unit) {
  const sel = `.actions button.action[data-kind="${kind}"]` + (unit ? `[data-unit="${unit}"]` : '');
  await page.$eval('.reply-area', (n) => { n.textContent = ''; });
  await press(page, sel);
  await page.waitForSelector('.reply-area .reply, .reply-area .error', {timeout: 10000});
  const error = await page.$('.reply-area .error');
  if (error) throw new Error('the append was refused: ' + await textOf(page, '.reply-area .error'));
  // The form is drawn again after the refresh.
  await settled(page);
  return textOf(page, '.reply-area .reply');
}

// One clan's part of a turn through its page: activate, fire (or move when
// no firing is offered), end activation and turn.
async function playTurn(page, clan, turn) {
  let actions = await offered(page);
  assert.ok(actions.some((a) => a.kind === 'activation'),
      `${clan} turn ${turn}: activation offered (${JSON.stringify(actions)})`);
  await act(page, 'activation');
  actions = await offered(page);
  const fire = actions.find((a) => a.kind === 'fire');
  const move = actions.find((a) => a.kind === 'move');
  assert.ok(fire || move, `${clan} turn ${turn}: fire or move offered`);
  // Turn 1 fires when it may (the server's dice), turn 2 moves: a second
  // volley's losses would owe morale and rout moves the form offers but a
  // short test need not chase.
  let reply;
  if (fire && turn === 1) {
    // One stand fires (the chooser offers 1 to the unit's stands).
    const sel = `.actions button.action[data-kind="fire"][data-unit="${fire.unit}"]`;
    await page.$eval(sel, (b) => {
      const s = b.parentElement.querySelector('select.stands');
      s.value = '1';
    });
    reply = await act(page, 'fire', fire.unit);
    assert.match(reply, /dice: \d/, `${clan}'s firing shows the server's dice`);
  } else if (move) {
    reply = await act(page, 'move', move.unit);
  } else {
    reply = await act(page, 'fire', fire.unit);
  }
  await shots(page, `${clan}-turn${turn}-acted`);
  await settleMorale();
  reply = await act(page, 'turn_end');
  return reply;
}

// Both players append the morale tests their units owe (a volley that cost
// a stand), which the end of the turn needs first. Each page must first
// show the last event appended (it arrives by the watch).
let players = {};
async function settleMorale() {
  const last = Math.max(...await seqsShown(players.oda.page), ...await seqsShown(players.asai.page));
  for (const clan of ['oda', 'asai']) {
    const p = players[clan].page;
    await waitForSeq(p, last);
    await settled(p);
    for (;;) {
      const actions = await offered(p);
      const owed = actions.find((a) => a.kind === 'morale' || a.kind === 'result_move');
      if (!owed) break;
      const reply = await act(p, owed.kind, owed.unit);
      assert.match(reply, owed.kind === 'morale' ? /morale/ : /result move/, reply);
    }
  }
}

function runGunbai(args, env) {
  try {
    return {stdout: execFileSync(gunbai, args, {encoding: 'utf8', env: {...process.env, ...env}}), code: 0};
  } catch (e) {
    return {stdout: String(e.stdout || '') + String(e.stderr || ''), code: e.status};
  }
}

(async () => {
  const daemon = await startGunbaid(gunbaid, {umpireToken: UMPIRE});
  const origin = daemon.httpUrl;
  const browser = await launchBrowser();
  try {
    const umpireContext = await browser.createBrowserContext();
    const {page: ump, problems: umpProblems} = await openIn(umpireContext, origin + '/#/live', origin);
    let gameId = '';
    const creds = {};

    await check('umpire: a wrong credential is refused with its message', async () => {
      await shots(ump, 'umpire-sign-in');
      await signIn(ump, 'not-the-umpire-credential-at-all');
      await ump.waitForSelector('.sign-in .error', {timeout: 10000});
      const text = await textOf(ump, '.sign-in .error');
      assert.match(text, /not accepted/);
      assert.match(text, /PERMISSION_DENIED|UNAUTHENTICATED/);
      await shots(ump, 'umpire-wrong-credential');
      // The browser logs the refused request (403) as a console error: that
      // one is expected here.
      umpProblems.consoleErrors = umpProblems.consoleErrors.filter((m) => !/status of 40[13]/.test(m));
      await ump.$eval('#live-credential', (n) => { n.value = ''; n.focus(); });
    });

    await check('umpire: signs in, creates a server-dice game from armies.textproto', async () => {
      await signIn(ump, UMPIRE);
      await ump.waitForSelector('#live-oob', {timeout: 10000});
      await shots(ump, 'umpire-signed-in');
      assert.equal(await ump.$eval('#live-dice', (s) => s.value), 'DICE_MODE_SERVER');
      const input = await ump.$('#live-oob');
      await input.uploadFile(path.join(repo, 'samples', 'pbem', 'armies.textproto'));
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created-game', {timeout: 10000});
      gameId = await textOf(ump, '.created-id');
      assert.match(gameId, /^game-/);
      const items = await ump.$$eval('.credential-item', (li) => li.map((i) => ({
        clan: i.dataset.clan, token: i.querySelector('input.credential').value,
        link: i.querySelector('a.player-link').href})));
      assert.deepEqual(items.map((i) => i.clan), ['oda', 'asai']);
      for (const i of items) {
        creds[i.clan] = i;
        assert.ok(i.token.length >= 16);
        assert.ok(!i.link.includes(i.token), 'the link does not carry the credential');
        assert.equal(i.link, `${origin}/#/live/${gameId}/${i.clan}`);
      }
      // The list shows the game.
      await ump.waitForFunction((g) => [...document.querySelectorAll('.game-link')]
          .some((a) => a.textContent === g), {timeout: 10000}, gameId);
      await shots(ump, 'umpire-created');
      noProblems(umpProblems);
    });

    // Each player's page, in its own context.
    for (const clan of ['oda', 'asai']) {
      const context = await browser.createBrowserContext();
      players[clan] = await openIn(context, creds[clan].link, origin);
    }

    await check('a player: a wrong credential is refused with its message', async () => {
      const p = players.asai.page;
      await signIn(p, creds.oda.token.slice(0, -4) + 'beef');
      await p.waitForSelector('.sign-in .error', {timeout: 10000});
      assert.match(await textOf(p, '.sign-in .error'), /not accepted/);
      await shots(p, 'player-wrong-credential');
      players.asai.problems.consoleErrors = players.asai.problems.consoleErrors
          .filter((m) => !/status of 40[13]/.test(m));
      await p.$eval('#live-credential', (n) => { n.value = ''; n.focus(); });
    });

    await check('umpire starts turn 1; players sign in and see it', async () => {
      await ump.goto(`${origin}/#/live/${gameId}/umpire`, {waitUntil: 'load'});
      await ump.waitForSelector('.actions .start-turn', {timeout: 10000});
      await shots(ump, 'umpire-game-empty');
      await press(ump, '.actions .start-turn');
      await waitForSeq(ump, 1);
      for (const clan of ['oda', 'asai']) {
        const p = players[clan].page;
        await signIn(p, creds[clan].token);
        await waitForSeq(p, 1);
        assert.equal(await textOf(p, '.state-turn'), '1');
      }
      await shots(players.oda.page, 'player-turn1-start');
    });

    for (const turn of [1, 2]) {
      await check(`turn ${turn}: oda plays, asai sees it live; asai plays; gunbaid starts the next turn`, async () => {
        const oda = players.oda.page;
        const asai = players.asai.page;
        const before = Math.max(...await seqsShown(asai));
        await playTurn(oda, 'oda', turn);
        const odaLast = Math.max(...await seqsShown(oda));
        assert.ok(odaLast >= before + 3, 'oda appended activation, action and turn end');
        // Asai's page shows oda's events without a reload.
        await waitForSeq(asai, odaLast);
        const shown = await asai.$eval(`.events .live-event[data-seq="${before + 2}"]`, (n) => n.textContent);
        assert.match(shown, /oda/);
        await shots(asai, `asai-sees-oda-turn${turn}`);
        const reply = await playTurn(asai, 'asai', turn);
        // asai's turn_end was the last clan's: gunbaid rolled the next turn_start.
        assert.match(reply, /turn start/);
        await oda.waitForFunction((t) => document.querySelector('.state-turn') &&
            document.querySelector('.state-turn').textContent === String(t), {timeout: 10000}, turn + 1);
        await shots(oda, `oda-turn${turn + 1}-started`);
      });
    }

    let exportFile = '';
    await check('umpire ends the game and exports it through the page; gunbai verify says ok', async () => {
      await ump.waitForSelector('.actions .end-game', {timeout: 10000});
      await press(ump, '.actions .end-game');
      await ump.waitForFunction(() => document.querySelector('.state-over') &&
          document.querySelector('.state-over').textContent === 'yes', {timeout: 10000});
      // The download the page starts lands in a directory of ours.
      const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-live-'));
      const cdp = await ump.createCDPSession();
      await cdp.send('Page.setDownloadBehavior', {behavior: 'allow', downloadPath: downloads});
      await press(ump, '.actions .export');
      await ump.waitForSelector('.export-link', {timeout: 10000});
      const want = await ump.$eval('.export-link', (a) => a.getAttribute('download'));
      exportFile = path.join(downloads, want);
      for (let i = 0; i < 100 && !fs.existsSync(exportFile); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(fs.existsSync(exportFile), `the page's download ${want} arrived`);
      const text = fs.readFileSync(exportFile, 'utf8');
      await shots(ump, 'umpire-ended-exported');
      const verified = runGunbai(['verify', exportFile]);
      assert.equal(verified.code, 0, `gunbai verify: ${verified.stdout}`);
      assert.match(verified.stdout, /^ok/m);
      // The page shows as many events as the export (and the CLI's export) holds.
      const shown = (await seqsShown(ump)).length;
      const cli = runGunbai(['game', 'export', `--server=${daemon.grpcAddr}`, `--game=${gameId}`],
                            {GUNBAI_TOKEN: UMPIRE});
      assert.equal(cli.code, 0, cli.stdout);
      const events = JSON.parse(text).log.events.length;
      assert.equal(shown, events);
      assert.equal((cli.stdout.match(/^\s*events \{/gm) || []).length, events,
                   'the CLI export has the same events');
      noProblems(umpProblems);
    });

    await check('players see the end of the game; no problems on their pages', async () => {
      for (const clan of ['oda', 'asai']) {
        const p = players[clan].page;
        await p.waitForFunction(() => document.querySelector('.state-over') &&
            document.querySelector('.state-over').textContent === 'yes', {timeout: 10000});
        await p.waitForSelector('.actions .waiting', {timeout: 10000});
        noProblems(players[clan].problems);
      }
      await shots(players.asai.page, 'player-game-ended');
    });

    await check('hostile names are shown as text', async () => {
      await ump.goto(`${origin}/#/live`, {waitUntil: 'load'});
      await ump.waitForSelector('#live-oob', {timeout: 10000});
      // The file as it is: gunbaid refuses its game id (the game gets an id
      // from gunbaid), and the page shows the refusal, the id as text.
      const hostile = path.join(repo, 'tests', 'browser', 'hostile-names.textproto');
      await (await ump.$('#live-oob')).uploadFile(hostile);
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created .error', {timeout: 10000});
      assert.match(await textOf(ump, '.created .error'), /game id/);
      await shots(ump, 'umpire-hostile-refused');
      // Without the game id line: created, every other name kept.
      const noId = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-live-')), 'hostile.textproto');
      fs.writeFileSync(noId, fs.readFileSync(hostile, 'utf8').replace(/^\s*game_id:.*$/m, ''));
      await (await ump.$('#live-oob')).uploadFile(noId);
      await ump.click('.create-game button[type="submit"]');
      await ump.waitForSelector('.created-game', {timeout: 10000});
      const names = await ump.$$eval('.created .clan-name, .created .player-name, .created .error',
                                     (n) => n.map((x) => x.textContent).join('\n'));
      const scripts = await ump.evaluate(() => document.querySelectorAll('main script, main img, main b').length);
      assert.equal(scripts, 0, 'no markup from the names');
      await shots(ump, 'umpire-hostile-created');
      if (await ump.$('.created-game')) {
        assert.ok(names.includes('<script>alert(1)</script>'), names);
        assert.ok(names.includes('Western & <b>Army</b>'), names);
        assert.ok(names.includes('Aiko "the \'Quoter\'" & co'), names);
        await ump.click('.umpire-game-link');
        await ump.waitForSelector('.live-units', {timeout: 10000});
        const table = await textOf(ump, '.live-units');
        assert.ok(table.includes('tok-<script>alert(3)</script>'), table);
        assert.ok(table.includes('<img src=x onerror=alert(2)> "Yumi" & \'Co\''), table);
        assert.equal(await ump.evaluate(() => document.querySelectorAll('main script, main img').length), 0);
        await shots(ump, 'umpire-hostile-game');
      } else {
        // gunbaid refused the header's game id: its message names it, as text.
        assert.ok(names.includes('<script>'), names);
      }
      noProblems(umpProblems);
    });
  } finally {
    await browser.close();
    await daemon.stop();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
