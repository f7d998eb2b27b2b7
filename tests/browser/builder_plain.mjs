// The builder without a mouse's hover or a script. On a phone's touch screen (390 px,
// `hover: none`), "Add a question here" shows between questions without hovering, and
// a tap on it opens the palette at that place. With JavaScript off, a question's Delete
// button asks on a page of its own, whose button deletes it by a plain post, and the
// builder comes back without it. Buttons are pressed by keyboard.
//
//   node tests/browser/builder_plain.mjs <base url> <cookie name=value> <form id> <field id>
//
// Prints one JSON object.
import { launch, signedIn } from './lib.mjs';

const [base, cookie, formId, fieldId] = process.argv.slice(2);
const browser = await launch();
const out = {};
const builder = `${base}/app/forms/${formId}`;
const context = (options) => signedIn(browser, base, cookie, options);
try {
  const touch = await context({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const phone = await touch.newPage();
  await phone.goto(builder);
  const add = phone.locator('a.add-here').first();
  out.touchHasNoHover = await phone.evaluate(() => matchMedia('(hover: none)').matches);
  out.addHereOpacity = await add.evaluate((a) => getComputedStyle(a).opacity);
  await add.tap();
  // The palette opens in the list, before the first question (the script swaps the
  // page in place; without it the link's ?add=0 does the same).
  await phone.locator('#question-list > li.q-palette #palette').waitFor();
  out.paletteBefore = await phone.locator('#question-list > li.q-palette + li.q a.q-label').innerText();
  await touch.close();

  const plain = await context({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  const page = await plain.newPage();
  await page.goto(`${builder}?edit=${fieldId}`);
  out.before = await page.locator('#question-list > li.q').count();
  // By keyboard: the button focused, then Enter.
  await page.locator(`#q-${fieldId} form[action$="/remove"] button`).focus();
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  // Without script there is no undo: a page asks first.
  out.asked = await page.locator('h1').innerText();
  await page.getByRole('button', { name: 'Delete the question' }).focus();
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  out.after = await page.locator('#question-list > li.q').count();
  out.landed = new URL(page.url()).pathname + new URL(page.url()).search;
  out.notice = await page.locator('main .notice, main .error').allInnerTexts();
  await plain.close();
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
