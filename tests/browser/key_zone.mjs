// A key's expiry day typed in Chromium on a computer in Tokyo (UTC+9, no summer time):
// the page names the zone beside the date, and the key is created. Prints JSON with the
// note the page showed and the secret shown once; the test reads the expiry stored.
//
//   node tests/browser/key_zone.mjs <base url> <cookie name=value> <day YYYY-MM-DD>
import { launch, signedIn } from './lib.mjs';

const [base, cookie, day] = process.argv.slice(2);
const browser = await launch();
const out = { cspViolations: [] };
try {
  const context = await signedIn(browser, base, cookie, { timezoneId: 'Asia/Tokyo', viewport: { width: 390, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) out.cspViolations.push(m.text());
  });
  await page.goto(`${base}/app/keys`);
  out.note = await page.locator('#expires-zone').innerText();
  await page.locator('#scope-read').check();
  await page.locator('#expires').fill(day);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create key' }).click()]);
  out.secret = (await page.locator('#new-key').innerText()).trim();
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
