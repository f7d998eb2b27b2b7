// Key letters for the hosted page's choices: each option card shows a letter (A, B,
// C…) once this script runs, and pressing it while one of a question's options has the
// focus chooses that question's option of that letter, as a click on its card would. Without this script the cards work as plain radios and checkboxes. Served
// from the binary (`/f/assets/keys.js`), allowed by the page's `script-src 'self'`.
const form = document.querySelector('form');
if (form) {
  form.classList.add('keys');
  let current = null;
  form.addEventListener('focusin', (event) => {
    current = event.target.closest('[data-keys]');
  });
  form.addEventListener('keydown', (event) => {
    if (!current || event.altKey || event.ctrlKey || event.metaKey) return;
    // Typing in a text box is typing, never a choice.
    const target = event.target;
    if (target.matches('textarea, select, input:not([type=radio]):not([type=checkbox])')) return;
    if (!/^[a-z]$/i.test(event.key)) return;
    const index = event.key.toUpperCase().charCodeAt(0) - 65;
    const inputs = current.querySelectorAll('input[type=radio], input[type=checkbox]');
    const input = inputs[index];
    if (!input) return;
    event.preventDefault();
    input.click();
    input.focus();
  });
}
