// The builder's script, loaded by app.js on a form's page (under the pages' CSP,
// script-src 'self'). It only enhances what works without it:
// - the builder's posts (forms marked data-builder) and its links (open a question, add
//   here, close) are sent with fetch and the page's #builder swapped for the answer's,
//   without a reload; the address follows (history), Back works;
// - the open question saves itself as it is edited (a second after the typing stops, or
//   when a box is left), without taking the focus or the caret; a failed save keeps what
//   was typed and says why, beside the Save button (which still saves at once);
// - the open question's state reads "Not saved yet" / "Saving…" / "Saved";
// - the preview follows the open question as it is typed;
// - questions can be dragged by their handle: the new order is posted at once (the
//   Move up / Move down buttons stay the keyboard's way);
// - the preview takes the design's colours, typeface and corners as they are chosen;
// - a deleted question leaves at once with an Undo for a few seconds, and only then is
//   the deletion sent (without the script, the service asks to confirm instead).
(function () {
  'use strict';
  if (!document.getElementById('builder') || !window.fetch || !window.DOMParser) return;
  document.documentElement.classList.add('js-drag');
  var unsaved = false;

  function $(selector, from) { return (from || document).querySelector(selector); }
  function el(tag, cls, text) {
    var made = document.createElement(tag);
    made.className = cls;
    made.textContent = text;
    return made;
  }
  // An error in the builder's notices (replaced by the next page swapped in).
  function alertBox(text) {
    var notices = document.getElementById('builder-notices');
    if (!notices) return;
    notices.innerHTML = '';
    notices.appendChild(el('p', 'error', text)).setAttribute('role', 'alert');
  }

  function setState(form, text, kind) {
    var state = form && $('[data-save-state]', form);
    if (!state) return;
    state.textContent = text;
    state.className = 'save-state muted ' + (kind || '');
  }

  // Replaces the notices and the builder by those of a whole page; keeps the folds that
  // were open; focuses `focus` (a selector) or what the address's hash names.
  function swap(html, url, focus, push) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    var open = Array.prototype.map.call(document.querySelectorAll('#builder details[open][id]'),
      function (d) { return d.id; });
    ['builder-notices', 'builder'].forEach(function (id) {
      var fresh = doc.getElementById(id);
      var old = document.getElementById(id);
      if (fresh && old) old.replaceWith(document.adoptNode(fresh));
    });
    open.forEach(function (id) { var d = document.getElementById(id); if (d) d.open = true; });
    design();
    if (url) {
      if (push) history.pushState({ builder: true }, '', url);
      else history.replaceState({ builder: true }, '', url);
    }
    unsaved = false;
    showInPreview();
    var target = (focus && $(focus)) || $('[data-editor] input[name=label]') ||
      (location.hash && document.getElementById(location.hash.slice(1)));
    if (target) {
      target.focus({ preventScroll: true });
      var box = target.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) target.scrollIntoView({ block: 'center' });
    }
  }

  // The preview, which stays in view beside the list, scrolls to the open question.
  function showInPreview() {
    var editor = $('[data-editor]');
    var side = $('.builder-side');
    var pv = editor && $('[data-pv="' + editor.getAttribute('data-editor') + '"]');
    if (!pv || !side) return;
    side.scrollTop += pv.getBoundingClientRect().top - side.getBoundingClientRect().top - 16;
  }
  showInPreview();

  // A plain message from a refused page: its error box, without "Nothing was saved."
  function reason(html) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    var box = doc.querySelector('#builder-notices .error, main .error');
    var text = box ? box.textContent.trim() : '';
    return text.replace(/^Nothing was saved\.\s*/, '') || 'the service refused it';
  }

  function load(url, focus, push) {
    return fetch(url, { credentials: 'same-origin', headers: { 'x-builder': '1' } })
      .then(function (reply) {
        if (!reply.ok) { location.href = url; return; }
        return reply.text().then(function (html) { swap(html, reply.url || url, focus, push); });
      })
      .catch(function () { location.href = url; });
  }

  // Sends a post of the builder; on success the page it leads to is swapped in, on a
  // refusal what was typed stays and the reason is shown beside Save.
  function send(form, action, body, focus) {
    setState(form, 'Saving…', '');
    return fetch(action, {
      method: 'POST', body: body, credentials: 'same-origin', headers: { 'x-builder': '1' },
    }).then(function (reply) {
      return reply.text().then(function (html) {
        if (reply.ok) {
          swap(html, reply.url, focus, false);
          setState($('[data-editor]'), 'Saved', 'saved');
          return;
        }
        var why = reply.status === 422 ? reason(html) : 'the service answered ' + reply.status;
        if (!/[.!?]$/.test(why)) why += '.';
        setState(form, 'Not saved: ' + why + ' Change it and try again.', 'failed');
        if (!form || !$('[data-save-state]', form)) alertBox('Not saved: ' + why);
      });
    }).catch(function () {
      setState(form, 'Not saved: no connection to the service. Try again.', 'failed');
    });
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.closest('#builder')) return;
    var submitter = event.submitter;
    if (form.hasAttribute('data-builder-get')) {
      event.preventDefault();
      var query = new URLSearchParams(new FormData(form)).toString();
      load(form.action.split('?')[0] + '?' + query, '[data-condition]:last-of-type select', true);
      return;
    }
    if (!form.hasAttribute('data-builder')) return;
    event.preventDefault();
    if (form.hasAttribute('data-remove')) { removeWithUndo(form); return; }
    commitRemoval(false);
    clearTimeout(due);
    due = null;
    var action = (submitter && submitter.getAttribute('formaction')) || form.action;
    if (saving) {
      // A background save is on its way: the question is saved once, after it.
      var own = form.hasAttribute('data-editor') && action === form.action;
      saving.then(function () {
        var now = own ? $('[data-editor]') : form;
        if (!now || !document.body.contains(now)) return;
        if (own && !unsaved) { setState(now, 'Saved', 'saved'); return; }
        send(now, own ? now.action : action,
          new URLSearchParams(new FormData(now, own ? undefined : submitter || undefined)), null);
      });
      return;
    }
    var data = new FormData(form, submitter || undefined);
    var focus = null;
    if (submitter && submitter.classList.contains('q-move')) {
      // Keep the focus on the moved question's arrow, so that it can move again.
      var li = submitter.closest('li[data-field]');
      var dir = submitter.value;
      focus = li && '#q-' + li.getAttribute('data-field') + ' .q-move[value=' + dir + ']';
    }
    send(form, action, new URLSearchParams(data), focus);
  });

  document.addEventListener('click', function (event) {
    var link = event.target.closest('#builder a.q-label, #builder a.add-here, #builder .q-editor a[href], #builder .palette a[href]');
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    var focus = link.classList.contains('add-here') ? '#new-label' : null;
    if (pending) { commitRemoval(false).then(function () { load(link.href, focus, true); }); return; }
    var editor = $('[data-editor]');
    // What was typed is saved before the question closes (a refusal keeps it open).
    if (unsaved && editor) {
      clearTimeout(due);
      due = null;
      saveQuietly(editor).then(function () {
        if (!unsaved) load(link.href, focus, true);
      });
      return;
    }
    load(link.href, focus, true);
  });

  document.addEventListener('change', function (event) {
    var select = event.target.closest('select[data-auto-submit]');
    if (select && select.value) select.form.requestSubmit();
    var op = event.target.closest('select[data-condition-op]');
    if (op) showValueFor(op);
  });

  // A condition's value controls: the one made for the chosen comparison is shown and
  // sent; the others are hidden and disabled.
  function showValueFor(op) {
    var row = op.closest('[data-condition]');
    if (!row) return;
    row.querySelectorAll('[data-for-ops]').forEach(function (box) {
      var on = box.getAttribute('data-for-ops').split(' ').indexOf(op.value) >= 0;
      box.hidden = !on;
      box.disabled = !on;
      box.querySelectorAll('input, select').forEach(function (c) {
        c.disabled = !on;
        if (c.type !== 'checkbox') c.required = on;
      });
    });
  }

  window.addEventListener('popstate', function () {
    commitRemoval(false).then(function () { load(location.href, null, false); });
  });
  window.addEventListener('pagehide', function () { commitRemoval(true); });
  window.addEventListener('beforeunload', function (event) {
    if (unsaved) { event.preventDefault(); event.returnValue = ''; }
  });

  // Typing in the open question: the state says so, the preview and the list follow, and
  // a save is due a second after the typing stops.
  document.addEventListener('input', function (event) {
    var form = event.target.closest('#builder form[data-builder]');
    if (!form || form.id === 'add' || form.id === 'move-form') return;
    unsaved = true;
    edits += 1;
    setState(form, 'Not saved yet', 'unsaved');
    var fid = form.getAttribute('data-editor');
    if (fid) {
      follow(form, fid);
      if (!halfTyped(form)) autosave(form, 1000);
    }
  });

  // Leaving a box (or ticking, choosing) saves what it holds, emptied boxes included: an
  // option emptied and left is removed, as the editor says.
  document.addEventListener('change', function (event) {
    var form = event.target.closest('#builder form[data-editor]');
    if (form && unsaved) autosave(form, 150);
  });

  // A label or an option box emptied while typing is not saved until it is left: a
  // pause while retyping must not remove the option (its answers would lose it).
  function halfTyped(form) {
    return Array.prototype.some.call(
      form.querySelectorAll('input[name=label], input[name=option_label]'),
      function (input) { return input.value.trim() === ''; });
  }

  var due = null;
  var edits = 0;
  var saving = null;
  function autosave(form, delay) {
    clearTimeout(due);
    due = setTimeout(function () { due = null; saveQuietly(form); }, delay);
  }

  // Posts the open question in the background. The answer's page is swapped in only if
  // nothing was typed meanwhile (else another save follows), and the focus and caret go
  // back where they were, so typing carries on undisturbed.
  function saveQuietly(form) {
    if (!document.body.contains(form)) return Promise.resolve();
    // One save at a time: two posts of the same new options would add them twice.
    if (saving) return saving.then(function () { return saveQuietly($('[data-editor]') || form); });
    var sent = edits;
    setState(form, 'Saving…', '');
    saving = fetch(form.action, {
      method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin',
      headers: { 'x-builder': '1' },
    }).then(function (reply) {
      return reply.text().then(function (html) {
        if (edits !== sent) { autosave(form, 1000); return; }
        if (!reply.ok) {
          var why = reply.status === 422 ? reason(html) : 'the service answered ' + reply.status;
          if (!/[.!?]$/.test(why)) why += '.';
          setState(form, 'Not saved: ' + why + ' Change it and try again.', 'failed');
          return;
        }
        var at = caret();
        swap(html, reply.url, at && at.selector, false);
        if (at) at.restore();
        setState($('[data-editor]'), 'Saved', 'saved');
      });
    }).catch(function () {
      setState(form, 'Not saved: no connection to the service. It is tried again when you type.', 'failed');
    }).then(function () { saving = null; });
    return saving;
  }

  // Where the focus is in the open question, to be put back after a swap: a selector of
  // the same box (by name and rank) and its caret.
  function caret() {
    var el = document.activeElement;
    var form = el && el.closest && el.closest('form[data-editor]');
    if (!form || !el.name) return null;
    var same = form.querySelectorAll('[name="' + el.name + '"]');
    var rank = Array.prototype.indexOf.call(same, el);
    var start = el.selectionStart, end = el.selectionEnd;
    var selector = '[data-editor] [name="' + el.name + '"]';
    return {
      selector: rank === 0 ? selector : null,
      restore: function () {
        var box = document.querySelectorAll(selector)[rank];
        if (!box) return;
        box.focus({ preventScroll: true });
        try { if (start != null) box.setSelectionRange(start, end); } catch (e) { /* no caret */ }
      },
    };
  }

  function follow(form, fid) {
    var pv = $('[data-pv="' + fid + '"]');
    var label = $('input[name=label]', form);
    if (label) {
      if (pv) pv.querySelectorAll('[data-pv-label]').forEach(function (s) { s.textContent = label.value; });
      var row = $('#q-' + fid + ':not(.q-page) .q-label');
      if (row) row.textContent = label.value;
    }
    if (!pv) return;
    var required = $('input[name=required]', form);
    var mark = $('[data-pv-required]', pv);
    if (required && mark) mark.hidden = !required.checked;
    var placeholder = $('input[name=placeholder]', form);
    var box = $('input:not([type=radio]):not([type=checkbox]), textarea', pv);
    if (placeholder && box) box.placeholder = placeholder.value;
    var list = $('[data-pv-options]', pv);
    var select = $('select', pv);
    if (!list && !select) return;
    if (!$('input[name=option_label], textarea[name=options]', form)) return;
    var labels = [];
    form.querySelectorAll('input[name=option_label]').forEach(function (i) { if (i.value.trim()) labels.push(i.value.trim()); });
    var more = $('textarea[name=options]', form);
    if (more) more.value.split('\n').forEach(function (l) { if (l.trim()) labels.push(l.trim()); });
    if (list) {
      var type = list.getAttribute('data-pv-options');
      // Cards as the hosted page draws them; "Other" stays last.
      var other = $('[data-pv-other]', list);
      list.querySelectorAll('label:not([data-pv-other])').forEach(function (l) { l.remove(); });
      labels.forEach(function (text) {
        var l = list.insertBefore(el('label', 'opt', ''), other);
        var i = l.appendChild(el('input', '', ''));
        i.type = type;
        i.name = 'pv-' + fid;
        l.appendChild(el('span', 'box', ''));
        l.appendChild(el('span', '', text));
      });
    } else if (select) {
      select.textContent = '';
      ['Choose…'].concat(labels).forEach(function (text) {
        var o = document.createElement('option');
        o.textContent = text;
        select.appendChild(o);
      });
    }
  }

  // Dragging by the handle (mouse or touch-pad): the line moves as it is dragged; the
  // order is posted when it is dropped.
  var dragged = null;
  document.addEventListener('pointerdown', function (event) {
    var handle = event.target.closest('#question-list .q-handle');
    if (handle) handle.closest('li.q').draggable = true;
  });
  document.addEventListener('dragstart', function (event) {
    var li = event.target.closest && event.target.closest('#question-list > li.q');
    if (!li || !li.draggable) return;
    dragged = li;
    li.classList.add('q-dragging');
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', li.getAttribute('data-field'));
  });
  document.addEventListener('dragover', function (event) {
    if (!dragged) return;
    var li = event.target.closest && event.target.closest('#question-list > li.q');
    if (!li || li === dragged) return;
    event.preventDefault();
    var box = li.getBoundingClientRect();
    var before = event.clientY < box.top + box.height / 2;
    li.parentNode.insertBefore(dragged, before ? li : li.nextSibling);
  });
  document.addEventListener('drop', function (event) {
    if (dragged) event.preventDefault();
  });
  document.addEventListener('dragend', function () {
    if (!dragged) return;
    var li = dragged;
    dragged = null;
    li.classList.remove('q-dragging');
    li.draggable = false;
    var list = document.getElementById('question-list');
    var moveForm = document.getElementById('move-form');
    if (!list || !moveForm) return;
    commitRemoval(false);
    var body = new URLSearchParams(new FormData(moveForm));
    list.querySelectorAll(':scope > li.q:not([hidden])').forEach(function (q) { body.append('order', q.getAttribute('data-field')); });
    var order = function () {
      send(null, list.getAttribute('data-order'), body, '#q-' + li.getAttribute('data-field') + ' .q-label');
    };
    if (saving) saving.then(order); else order();
  });

  // Deleting a question: its line and its preview leave at once and a note offers Undo
  // (focused, so that Enter undoes); the deletion is posted after UNDO_MS, or at once
  // when another change is made or the page is left. It is not swapped in (another
  // question may be open by then): its line and preview are removed.
  var UNDO_MS = 8000;
  var pending = null;
  function removeWithUndo(form) {
    commitRemoval(false);
    var li = form.closest('li[data-field]');
    if (!li) return;
    var fid = li.getAttribute('data-field');
    var pv = $('[data-pv="' + fid + '"]');
    clearTimeout(due);
    due = null;
    unsaved = false;
    li.hidden = true;
    if (pv) pv.hidden = true;
    var toast = el('div', 'toast', '');
    toast.setAttribute('role', 'status');
    toast.appendChild(el('span', '', '\u201c' + form.getAttribute('data-remove') + '\u201d was deleted.'));
    var undo = toast.appendChild(el('button', 'secondary', 'Undo'));
    undo.type = 'button';
    document.body.appendChild(toast);
    var entry = { form: form, li: li, pv: pv, toast: toast, timer: null };
    // Not while the note has the focus or the pointer: the owner may be about to undo.
    var later = function () {
      entry.timer = setTimeout(function () {
        if (pending !== entry) return;
        if (toast.matches(':hover, :focus-within')) later(); else commitRemoval(false);
      }, UNDO_MS);
    };
    later();
    undo.addEventListener('click', function () {
      if (pending !== entry) return;
      pending = null;
      clearTimeout(entry.timer);
      toast.remove();
      li.hidden = false;
      if (pv) pv.hidden = false;
      var label = $('.q-label', li);
      if (label) label.focus();
    });
    pending = entry;
    undo.focus();
  }

  // Posts the pending deletion, if any (`keepalive`: the page is being left). A refusal
  // brings the question back and says why.
  function commitRemoval(keepalive) {
    var entry = pending;
    if (!entry) return saving || Promise.resolve();
    pending = null;
    clearTimeout(entry.timer);
    entry.toast.remove();
    var body = new URLSearchParams(new FormData(entry.form));
    body.set('confirm', 'yes');
    var post = function () {
      return fetch(entry.form.action, {
        method: 'POST', body: body, credentials: 'same-origin', keepalive: keepalive,
        headers: { 'x-builder': '1' },
      });
    };
    if (keepalive) { post(); return Promise.resolve(); }
    var done = (saving || Promise.resolve()).then(post).then(function (reply) {
      if (!reply.ok) throw reply;
      entry.li.remove();
      if (entry.pv) entry.pv.remove();
      if (/[?&]edit=/.test(location.search)) history.replaceState({ builder: true }, '', location.pathname + '#questions');
    }).catch(function () {
      entry.li.hidden = false;
      if (entry.pv) entry.pv.hidden = false;
      alertBox('Not deleted: the service refused it or could not be reached. The question is back in the list.');
    }).then(function () { if (saving === done) saving = null; });
    saving = done;
    return done;
  }

  // The design fold's choices on the preview, through CSS variables set with the CSSOM
  // (the pages' CSP forbids style attributes in markup, not this). The typefaces are the
  // hosted page's (edge/hosted/theme.rs).
  var FONTS = {
    system: 'system-ui,sans-serif',
    humanist: "Seravek,'Gill Sans Nova',Ubuntu,Calibri,'DejaVu Sans',sans-serif",
    serif: "Charter,'Bitstream Charter','Sitka Text',Cambria,Georgia,serif",
    rounded: "ui-rounded,'SF Pro Rounded',Nunito,'Arial Rounded MT',system-ui,sans-serif",
    mono: "ui-monospace,'SF Mono',Menlo,Consolas,'DejaVu Sans Mono',monospace"
  };
  function design() {
    var form = $('form[data-design]');
    var preview = $('.static-preview');
    if (!form || !preview) return;
    var value = function (name) { var el = form.elements[name]; return el ? el.value : ''; };
    var radius = Math.max(0, Math.min(24, parseInt(value('radius'), 10) || 0));
    preview.classList.add('themed');
    preview.classList.toggle('themed-dark', value('appearance') === 'dark');
    preview.style.setProperty('--pv-accent', value('accent'));
    preview.style.setProperty('--pv-bg', value('background'));
    preview.style.setProperty('--pv-font', FONTS[value('font')] || FONTS.system);
    preview.style.setProperty('--pv-radius', radius + 'px');
  }
  ['input', 'change'].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (event.target.closest && event.target.closest('form[data-design]')) design();
    });
  });
  design();
})();
