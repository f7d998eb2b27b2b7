// Members in Debian's headless Chromium, by keyboard only: the owner tabs to the
// invitation form, types an address, picks Viewer with a key press, tabs to Send and presses Enter
// and reads the link shown; a second browser, never signed in, opens the link, tabs to
// its button and accepts with Enter, and lands signed in as a viewer. At 390 and 1280
// px; axe-core (serious and critical) and CSP violations are collected on each page,
// sideways scrolling noted, and screenshots written to SHOTS (if set). The new viewer
// then opens the form's builder, which offers them no form that posts. Prints JSON.
//
//   node tests/browser/members.mjs <base url> <owner's cookie name=value> <form id>
import { launch, signedIn, axeSerious } from './lib.mjs';

const [base, cookie, formId] = process.argv.slice(2);
const shots = process.env.SHOTS;
const browser = await launch();
const out = { axe: [], cspViolations: [], sideways: [], roles: {}, builderPosts: {} };
async function check(page, step, width) {
  for (const id of await axeSerious(page)) out.axe.push(`${step}@${width}:${id}`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) out.sideways.push(`${step}@${width}`);
  if (shots) await page.screenshot({ path: `${shots}/members-${step}-${width}.png`, fullPage: true });
}
function watch(page) {
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) out.cspViolations.push(m.text());
  });
}
// Presses Tab until the focus is on what `matches` accepts (at most 60 times).
async function tabTo(page, matches) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const e = document.activeElement;
      return { id: e.id, tag: e.tagName, text: e.innerText || '' };
    });
    if (matches(at)) return true;
  }
  return false;
}
try {
  for (const width of [390, 1280]) {
    const owner = await signedIn(browser, base, cookie, { viewport: { width, height: 900 } });
    const page = await owner.newPage();
    watch(page);
    await page.goto(`${base}/app/members`);
    await check(page, 'owner', width);
    if (!await tabTo(page, (at) => at.id === 'invite-email')) throw new Error('no way to the address by Tab');
    await page.keyboard.type(`vera${width}@example.com`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('v');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('#invite-link').waitFor();
    const link = await page.locator('#invite-link').inputValue();
    await check(page, 'invited', width);

    const invitee = await browser.newContext({ viewport: { width, height: 900 } });
    const visit = await invitee.newPage();
    watch(visit);
    await visit.goto(link);
    await check(visit, 'invitation', width);
    if (!await tabTo(visit, (at) => at.text.includes('Accept the invitation'))) throw new Error('no way to Accept by Tab');
    await visit.keyboard.press('Enter');
    await visit.waitForURL(/\/app\/forms/);
    await visit.goto(`${base}/app/members`);
    out.roles[width] = await visit.locator('#members-h + p').innerText();
    await check(visit, 'member', width);
    await visit.goto(`${base}/app/forms/${formId}`);
    await check(visit, 'viewer-builder', width);
    out.builderPosts[width] = await visit.locator('main form[method="post"]').count();
    await owner.close();
    await invitee.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
