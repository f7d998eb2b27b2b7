// One question at a time (the form's `one_question_at_a_time`): the core already makes
// each question its own page, so without this script every step is a page posted and
// answered with the next. With it, the step feels like one: the question's first control
// has the focus (unless a refused answer has it), Enter continues from a choice as it
// does from a text box (never inside a text area, where Enter is a new line), and the
// step's place ("Page 2 of 3") is said in a live region for a screen reader. Served from
// the binary (`/f/assets/steps.js`), allowed by the page's `script-src 'self'`.
const form = document.querySelector('form[data-steps]');
if (form) {
  const next = form.querySelector('.nav button[type=submit]:not([value=back])');
  if (!form.querySelector('[autofocus]')) {
    const first = form.querySelector(
      '.field input:not([type=hidden]), .field select, .field textarea');
    if (first) first.focus();
  }
  const steps = document.getElementById('steps');
  const live = document.getElementById('step-live');
  if (steps && live) {
    // Set after load: a live region filled with the page is not announced.
    setTimeout(() => { live.textContent = steps.textContent.trim(); }, 100);
  }
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target;
    // A text area takes Enter as a new line; a button or a link does its own thing;
    // a text box already submits by the browser's own implicit submission.
    if (!target.matches('input[type=radio], input[type=checkbox], select')) return;
    if (!next) return;
    event.preventDefault();
    form.requestSubmit(next);
  });
}
