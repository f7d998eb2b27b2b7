// The endpoint's refusal page: its "Back to the form" link goes back in the browser's
// history instead of loading the owner's page again, so the form comes back as the
// visitor left it, with what they typed. Browsers often send another site only the
// origin of the page as its Referer, which the link's address then is. Without this
// script the link (and the browser's Back button, which the page names) still works.
// Served from the binary (`/f/assets/back.js`), allowed by `script-src 'self'`.
for (const link of document.querySelectorAll('a[data-history-back]')) {
  link.addEventListener('click', (event) => {
    // Only when this page was reached from another one in this tab.
    if (window.history.length > 1) {
      event.preventDefault();
      window.history.back();
    }
  });
}
