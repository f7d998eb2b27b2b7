// What the browser scripts share: Debian's headless Chromium launched as every script
// launches it, a context with the session cookie, and axe-core's serious and critical
// violations of a page.
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

// A new context of `browser` with `options`, carrying the cookie `name=value` for `base`.
export async function signedIn(browser, base, cookie, options) {
  const context = await browser.newContext(options);
  const [name, ...rest] = cookie.split('=');
  await context.addCookies([{ name, value: rest.join('='), url: base }]);
  return context;
}

// The ids of the serious and critical WCAG 2.1 A/AA and best-practice violations.
export async function axeSerious(page) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}
