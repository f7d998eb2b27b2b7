// The dashboard's one script, served from the binary under the pages' CSP
// (script-src 'self'). Everything it does is a convenience: every page works without it.
(function () {
  'use strict';
  // The builder has a script of its own, loaded only on its page.
  if (document.getElementById('builder')) {
    var builder = document.createElement('script');
    builder.src = '/app/assets/builder.js';
    document.head.appendChild(builder);
  }
  // Copy buttons: <button data-copy="ID"> copies the text of the element ID.
  document.addEventListener('click', function (event) {
    var button = event.target.closest('[data-copy]');
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    var text = source.value !== undefined ? source.value : source.textContent;
    navigator.clipboard.writeText(text.trim()).then(function () {
      var status = document.getElementById(button.getAttribute('data-copy') + '-copied');
      if (status) status.textContent = 'Copied.';
    });
  });
  // Typed confirmations: a button stays disabled until its input holds the expected text.
  document.querySelectorAll('[data-confirm-input]').forEach(function (input) {
    var button = document.getElementById(input.getAttribute('data-confirm-input'));
    var expected = input.getAttribute('data-expected');
    if (!button) return;
    var sync = function () { button.disabled = input.value !== expected; };
    input.addEventListener('input', sync);
    sync();
  });
  // Times in the owner's own time zone. The server keeps and shows times in UTC, and
  // says so; with this script, a date-time box with data-utc shows its time on the
  // computer's clock and names the zone, and its form sends the zone's offset from UTC
  // for that date (data-zone-offset), so that what was typed is taken as it was meant.
  // A <time data-local> shows its moment on the computer's clock too. Pages the
  // builder replaces in place are zoned again as they arrive.
  var zone = (window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone) || '';
  var pad = function (n) { return (n < 10 ? '0' : '') + n; };
  var zoned = function (root) {
    root.querySelectorAll('input[data-utc]:not([data-zoned])').forEach(function (input) {
      input.setAttribute('data-zoned', '');
      var at = new Date(input.getAttribute('data-utc'));
      if (input.getAttribute('data-utc') && !isNaN(at)) {
        input.value = at.getFullYear() + '-' + pad(at.getMonth() + 1) + '-' + pad(at.getDate()) +
          'T' + pad(at.getHours()) + ':' + pad(at.getMinutes());
      }
      var note = document.getElementById(input.getAttribute('data-zone-note'));
      if (note) note.textContent = 'In your computer\u2019s time zone' + (zone ? ', ' + zone : '') + '.';
    });
    root.querySelectorAll('time[data-local]:not([data-zoned])').forEach(function (time) {
      time.setAttribute('data-zoned', '');
      var at = new Date(time.getAttribute('datetime'));
      if (isNaN(at)) return;
      var bare = time.getAttribute('data-local') === 'bare';
      time.textContent = at.getFullYear() + '-' + pad(at.getMonth() + 1) + '-' + pad(at.getDate()) +
        ' ' + pad(at.getHours()) + ':' + pad(at.getMinutes()) +
        (time.hasAttribute('data-seconds') ? ':' + pad(at.getSeconds()) : '') +
        (zone && !bare ? ' (' + zone + ')' : '');
    });
    // A column heading's zone, over times that leave it out.
    root.querySelectorAll('[data-zone-name]:not([data-zoned])').forEach(function (name) {
      name.setAttribute('data-zoned', '');
      if (zone) name.textContent = zone;
    });
    // Days (date filters, a key's expiry): the computer's, not UTC's; the form sends the
    // zone's offset from UTC (minutes east, as of the first day given) in its
    // data-day-zone box.
    root.querySelectorAll('[data-day-zone-note]:not([data-zoned])').forEach(function (note) {
      note.setAttribute('data-zoned', '');
      if (zone) note.textContent = 'Days in your computer\u2019s time zone, ' + zone + '.';
    });
  };
  zoned(document);
  new MutationObserver(function () { zoned(document); })
    .observe(document.body, { childList: true, subtree: true });
  // In the capture phase: before the builder's script reads the form to send it.
  document.addEventListener('submit', function (event) {
    event.target.querySelectorAll('input[data-utc][data-zoned]').forEach(function (input) {
      var offset = input.form && input.form.querySelector('[data-zone-offset]');
      if (!offset) return;
      var local = new Date(input.value);
      offset.value = input.value && !isNaN(local) ? String(-local.getTimezoneOffset()) : '';
    });
    var dayZone = event.target.querySelector('input[data-day-zone]');
    if (dayZone) {
      var first = Array.prototype.map.call(event.target.querySelectorAll('input[type=date]'), function (box) {
        return box.value ? new Date(box.value + 'T12:00') : null;
      }).filter(function (d) { return d && !isNaN(d); })[0] || new Date();
      dayZone.value = String(-first.getTimezoneOffset());
    }
  }, true);
  // Live refresh: an element with data-refresh="URL" and data-every="SECONDS" is replaced
  // by the same element of the page at URL, while the page is visible. The page also has
  // a visible Refresh link, which works without this.
  document.querySelectorAll('[data-refresh]').forEach(function (region) {
    var every = Math.max(2, parseInt(region.getAttribute('data-every'), 10) || 10) * 1000;
    var url = region.getAttribute('data-refresh');
    var tick = function () {
      // Not while the owner is choosing rows: a refresh would untick them.
      if (document.hidden || region.querySelector('input[type=checkbox]:checked')) return;
      fetch(url, { credentials: 'same-origin', headers: { 'x-refresh': '1' } })
        .then(function (reply) { return reply.ok ? reply.text() : null; })
        .then(function (html) {
          if (!html) return;
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var fresh = doc.getElementById(region.id);
          if (fresh && fresh.innerHTML !== region.innerHTML) region.innerHTML = fresh.innerHTML;
        })
        .catch(function () {});
    };
    setInterval(tick, every);
  });
})();
