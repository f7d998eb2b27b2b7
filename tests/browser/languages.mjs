// Opens a hosted page of a form in several languages in Debian's headless Chromium at
// phone width (390×844), as a visitor whose browser prefers `locale`, saves a
// full-page screenshot, and prints as JSON what a right-to-left reader relies on: the
// page's lang and dir, whether anything overflows sideways or overlaps, whether each
// option's box stands at the start (right, in Arabic) of its card, and axe's serious
// and critical violations.
//
//   node tests/browser/languages.mjs <url> <locale> <screenshot.png>
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const [url, locale, shot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale });
  const page = await context.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const opened = await page.goto(url);
  await page.screenshot({ path: shot, fullPage: true });
  const seen = await page.evaluate(() => {
    const box = (e) => e.getBoundingClientRect();
    const doc = document.documentElement;
    // Visible blocks that must not overlap one another: labels, option cards, the
    // switcher's entries, the buttons.
    const blocks = [...document.querySelectorAll('h1, label, .opt, .langs li, button, input[type=text], p')]
      .filter((e) => !e.closest('.hp') && box(e).width > 0 && box(e).height > 0);
    const overlaps = [];
    for (let i = 0; i < blocks.length; i += 1) {
      for (let j = i + 1; j < blocks.length; j += 1) {
        const [a, b] = [blocks[i], blocks[j]];
        if (a.contains(b) || b.contains(a)) continue;
        const [r, s] = [box(a), box(b)];
        const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
        const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
        if (x > 1 && y > 1) overlaps.push(`${a.tagName}.${a.className} × ${b.tagName}.${b.className}`);
      }
    }
    const cards = [...document.querySelectorAll('.opt')].map((card) => {
      const c = box(card);
      const b = box(card.querySelector('.box'));
      return b.left + b.width / 2 > c.left + c.width / 2 ? 'right' : 'left';
    });
    return {
      lang: doc.lang,
      dir: doc.dir,
      overflow: doc.scrollWidth > doc.clientWidth,
      overlaps,
      boxes: cards,
      heading: document.querySelector('h1')?.textContent,
      submit: document.querySelector('button[type=submit]')?.textContent,
    };
  });
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  console.log(JSON.stringify({
    status: opened.status(),
    ...seen,
    cspViolations,
    axe: result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  }));
} finally {
  await browser.close();
}
