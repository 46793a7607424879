// The Ruling page a real gunbaid serves, in headless chromium at 1280 and
// 360 pixels. Three situations are entered through the form as an umpire
// enters them (choosing, typing, ticking, then pressing Enter on the
// button), each the situation of a log in tests/data whose numbers are
// worked by hand in its comments (ruling-volley.textproto in
// tests/data/README.md): the page's outcomes must be those numbers, and
// those `gunbai audit --outcomes --format=json` gives for the log (the CLI
// is the reference, not the page). Then: a wrong number of dice gives its
// finding, and a unit name holding markup is shown as text.
//
// Usage: node ruling_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const path = require('node:path');
const {launchBrowser, openPage, screenshot, WIDTHS, checks, expectClean} = require('./browser.js');
const {startGunbaid} = require('./gunbaid.js');

const [gunbai, gunbaid, dataDir, outDir] = process.argv.slice(2);
if (!gunbai || !gunbaid || !dataDir || !outDir) {
  console.error('usage: node ruling_page_test.js GUNBAI GUNBAID DATA_DIR OUT_DIR');
  process.exit(2);
}
const shotsDir = path.join(outDir, 'browser-screenshots');

function cliOutcomes(log) {
  let out;
  try {
    out = execFileSync(gunbai, ['audit', '--outcomes', '--format=json',
                                path.join(dataDir, log)], {encoding: 'utf8'});
  } catch (e) {
    if (e.status !== 1) throw e;
    out = e.stdout;
  }
  // Kind and value; the subject by its place (the page names the units
  // unit-a and unit-b, the log by their own ids).
  return (JSON.parse(out).outcomes || []).map((o) => `${o.kind}=${o.value}`);
}

const {check, summary} = checks();

// The form's controls, by the card (0 or 1) and the field's name.
const unit = (i, name) => `fieldset.unit-card:nth-of-type(${i + 1}) [name="${name}"]`;

async function type(page, selector, value) {
  await page.click(selector, {clickCount: 3});
  await page.type(selector, String(value));
  await page.keyboard.press('Tab');  // The change event, as a user leaves it.
}

async function tick(page, selector, want) {
  const now = await page.$eval(selector, (b) => b.checked);
  if (now !== want) await page.click(selector);
}

async function setUnit(page, i, u) {
  await type(page, unit(i, 'name'), u.name);
  for (const f of ['troopType', 'mobility', 'quality', 'armour', 'meleeWeapon', 'missileWeapon']) {
    await page.select(unit(i, f), u[f]);
  }
  await type(page, unit(i, 'stands'), u.stands);
  await type(page, unit(i, 'standsPerRank'), u.standsPerRank);
  await type(page, unit(i, 'standsNow'), u.standsNow);
  await type(page, unit(i, 'carriedHits'), u.carriedHits || 0);
  for (const f of ['disordered', 'movedThisTurn', 'firstVolleySpent', 'routing', 'charging']) {
    await tick(page, unit(i, f), Boolean(u[f]));
  }
}

async function setDice(page, box, dice) {
  const inputs = await page.$$(`fieldset[data-dice="${box}"] input.die`);
  assert.equal(inputs.length, dice.length, `${box}: ${inputs.length} dice boxes`);
  for (let i = 0; i < dice.length; i++) {
    await inputs[i].click({clickCount: 3});
    await inputs[i].type(String(dice[i]));
  }
}

// Presses the button with the keyboard and waits for the ruling.
async function rule(page) {
  await page.focus('#ruling-submit');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#ruling-result section.outcome, #ruling-result .error',
                             {timeout: 20000});
  const error = await page.$('#ruling-result .error');
  assert.equal(error, null, error && await page.evaluate((e) => e.textContent, error));
  return page.$$eval('#ruling-result section.outcome',
      (ss) => ss.map((s) => `${s.dataset.kind}=${s.querySelector('.outcome-value').textContent}`));
}

const ODA_TEPPO = {name: 'Oda Teppo', troopType: 'TROOP_TYPE_ASHIGARU', mobility: 'MOBILITY_FOOT',
  quality: 'QUALITY_SEASONED', armour: 'ARMOUR_LIGHT', meleeWeapon: 'MELEE_WEAPON_IMPROVISED',
  missileWeapon: 'MISSILE_WEAPON_ARQUEBUS', stands: 6, standsPerRank: 2, standsNow: 4,
  movedThisTurn: true, firstVolleySpent: true};
const TAKEDA_HORSE = {name: 'Takeda Horse', troopType: 'TROOP_TYPE_SAMURAI',
  mobility: 'MOBILITY_MOUNTED', quality: 'QUALITY_VETERAN', armour: 'ARMOUR_LIGHT',
  meleeWeapon: 'MELEE_WEAPON_LANCE', missileWeapon: 'MISSILE_WEAPON_NONE', stands: 4,
  standsPerRank: 2, standsNow: 3, carriedHits: 2};

async function volley(page, firer) {
  await page.select('select[name="kind"]', 'volley');
  await setUnit(page, 0, firer || ODA_TEPPO);
  await setUnit(page, 1, TAKEDA_HORSE);
  await page.select('select[name="range"]', 'RANGE_BAND_EFFECTIVE');
  await type(page, 'input[name="standsFiring"]', 4);
}

(async () => {
  const daemon = await startGunbaid(gunbaid);
  const browser = await launchBrowser();
  const origin = daemon.httpUrl;
  try {
    for (const [widthName, width] of Object.entries(WIDTHS)) {
      await check(`${widthName}: a volley (ruling-volley.textproto)`, async () => {
        const {page, problems} = await openPage(browser, origin + '/#/ruling', width);
        try {
          await page.waitForSelector('select[name="kind"]');
          await screenshot(page, shotsDir, `ruling-form-${widthName}`);
          await volley(page);
          await setDice(page, 'fire', [3, 3, 2, 3, 6, 1, 1, 4]);
          const shown = await rule(page);
          // By hand (tests/data/README.md): +1 light armour, +1 arquebus at
          // cavalry, +1 effective range, -1 moved: +2; 8 hit, 7 miss, 9
          // hit, 7 miss: 2 hits; 2 carried + 2 = 4: 1 stand lost, 1 carried.
          assert.deepEqual(shown, ['hits=2', 'stands_lost=1']);
          assert.deepEqual(shown, cliOutcomes('ruling-volley.textproto'));
          const terms = await page.$$eval('#ruling-result section.outcome:first-of-type table.trace tr',
              (trs) => trs.map((tr) => tr.querySelector('td').textContent));
          assert.deepEqual(terms, ['1', '1', '1', '-1', '8', '7', '9', '7']);
          const rules = await page.$$eval('#ruling-result a.rule-id', (as) => as.map((a) => a.getAttribute('href')));
          assert.ok(rules.includes('#/rules/daimyo.fire.hit'), rules.join());
          await expectClean(page, problems, origin);
          await screenshot(page, shotsDir, `ruling-volley-${widthName}`);
        } finally {
          await page.close();
        }
      });
    }

    for (const [widthName, width] of Object.entries(WIDTHS)) await check(`${widthName}: a melee round (ruling-melee.textproto)`, async () => {
      const {page, problems} = await openPage(browser, origin + '/#/ruling', width);
      try {
        await page.waitForSelector('select[name="kind"]');
        await page.select('select[name="kind"]', 'melee');
        await setUnit(page, 0, {name: 'Oda Samurai', troopType: 'TROOP_TYPE_SAMURAI',
          mobility: 'MOBILITY_FOOT', quality: 'QUALITY_VETERAN', armour: 'ARMOUR_HEAVY',
          meleeWeapon: 'MELEE_WEAPON_POLE_ARM', missileWeapon: 'MISSILE_WEAPON_NONE',
          stands: 4, standsPerRank: 2, standsNow: 4, firstVolleySpent: false});
        await setUnit(page, 1, {name: 'Takeda Ashigaru', troopType: 'TROOP_TYPE_ASHIGARU',
          mobility: 'MOBILITY_FOOT', quality: 'QUALITY_SEASONED', armour: 'ARMOUR_LIGHT',
          meleeWeapon: 'MELEE_WEAPON_LONG_SPEAR', missileWeapon: 'MISSILE_WEAPON_NONE',
          stands: 6, standsPerRank: 3, standsNow: 6});
        await type(page, 'input[name="round"]', 2);
        for (const i of [0, 1]) {
          await type(page, `input[name="side${i}-fighting"]`, 4);
          await type(page, `input[name="side${i}-front"]`, 2);
        }
        await setDice(page, 'melee1', [5, 4, 2, 3, 6, 1, 3, 3]);
        await setDice(page, 'melee2', [6, 6, 1, 2, 4, 3, 5, 5]);
        const shown = await rule(page);
        // By hand (the log's comment): 3 hits and 2; the Ashigaru loses 1
        // stand; Oda wins by one, fewer than 2 ahead: the Ashigaru is
        // pushed back (rules/daimyo/RULES.md, daimyo.melee.outcome).
        assert.deepEqual(shown, ['hits=3', 'hits=2', 'stands_lost=0', 'stands_lost=1',
                                 'melee_outcome=Oda Samurai wins, Takeda Ashigaru pushed back']);
        assert.deepEqual(shown.slice(0, 4), cliOutcomes('ruling-melee.textproto').slice(0, 4));
        assert.equal(cliOutcomes('ruling-melee.textproto')[4],
                     'melee_outcome=oda-sam wins, tak-ash pushed back');
        await expectClean(page, problems, origin);
        await screenshot(page, shotsDir, `ruling-melee-${widthName}`);
      } finally {
        await page.close();
      }
    });

    for (const [widthName, width] of Object.entries(WIDTHS)) await check(`${widthName}: a morale test (ruling-morale.textproto)`, async () => {
      const {page, problems} = await openPage(browser, origin + '/#/ruling', width);
      try {
        await page.waitForSelector('select[name="kind"]');
        await page.select('select[name="kind"]', 'morale');
        await setUnit(page, 0, {name: 'Oda Yari', troopType: 'TROOP_TYPE_ASHIGARU',
          mobility: 'MOBILITY_FOOT', quality: 'QUALITY_SEASONED', armour: 'ARMOUR_LIGHT',
          meleeWeapon: 'MELEE_WEAPON_LONG_SPEAR', missileWeapon: 'MISSILE_WEAPON_NONE',
          stands: 6, standsPerRank: 3, standsNow: 5, disordered: true});
        await page.select('select[name="reason"]', '1');
        await setDice(page, 'morale', [4, 2]);
        const shown = await rule(page);
        // By hand: pass 6; -1 disordered, -2 a stand lost; 6 - 3 = 3; fail
        // by 3 in the stand-loss column: retreat.
        assert.deepEqual(shown, ['morale_result=total 3: retreat']);
        assert.deepEqual(shown, cliOutcomes('ruling-morale.textproto'));
        await expectClean(page, problems, origin);
        await screenshot(page, shotsDir, `ruling-morale-${widthName}`);
      } finally {
        await page.close();
      }
    });

    await check('too few dice is a finding; a name with markup is text', async () => {
      const {page, problems} = await openPage(browser, origin + '/#/ruling', WIDTHS.desktop);
      try {
        await page.waitForSelector('select[name="kind"]');
        const hostile = '<img src=x onerror=alert(2)> "Yumi" & \'Co\'';
        await volley(page, Object.assign({}, ODA_TEPPO, {name: hostile}));
        await setDice(page, 'fire', [3, 3, 2, 3, 6, 1, 1, 4]);
        // One die left out: seven dice for four stands.
        const inputs = await page.$$('fieldset[data-dice="fire"] input.die');
        await inputs[7].click({clickCount: 3});
        await page.keyboard.press('Backspace');
        await page.focus('#ruling-submit');
        await page.keyboard.press('Enter');
        await page.waitForSelector('#ruling-result li.finding, #ruling-result .error');
        const rules = await page.$$eval('#ruling-result li.finding', (lis) => lis.map((l) => l.dataset.rule));
        assert.ok(rules.some((r) => /dice/.test(r)), rules.join());
        const text = await page.$eval('#ruling-result', (r) => r.textContent);
        assert.ok(text.includes(hostile), text.slice(0, 300));
        assert.equal(await page.$('#ruling-result img'), null);
        await expectClean(page, problems, origin);
        await screenshot(page, shotsDir, 'ruling-dice-finding-desktop');
      } finally {
        await page.close();
      }
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
