// Conditions of a hosted page (see edge/routes/hosted/conditions.rs): each element with
// `data-show-if` (a field, or a part of the form under a page break) lists conditions on
// answers of the same page, `[{field, op, value, kind, text}]`. As the visitor answers, an
// element whose conditions do not all hold is hidden and its inputs disabled, so that
// the browser does not send them; it comes back when they hold again. The rule is the
// core's (`forms::logic`), which judges the posted page: an answer to a field that is
// not shown does not exist, so hiding one link of a chain hides what hangs on it. The
// page's hints ("Answer only if ...") are for pages without this script.

const OTHER = '_other';

const form = document.querySelector('form[data-conditions]');

// The answer to field `id` as the core would take it (see posted.rs's `decode`), read
// from the enabled inputs named `<id>` or `<id>:one|many|other|int|bool`; undefined
// when unanswered.
function read(id) {
  let value;
  let many = null;
  let other = '';
  for (const input of form.elements) {
    if (!input.name || input.disabled) continue;
    const at = input.name.lastIndexOf(':');
    const base = at < 0 ? input.name : input.name.slice(0, at);
    const suffix = at < 0 ? '' : input.name.slice(at + 1);
    if (base !== id) continue;
    const picked = input.type !== 'radio' && input.type !== 'checkbox' || input.checked;
    switch (suffix) {
      case '':
        if (input.type !== 'file') value = input.value;
        break;
      case 'one':
        if (picked && input.value !== '') value = input.value === OTHER ? { other: '' } : input.value;
        break;
      case 'many':
        many = many || [];
        if (picked) many.push(input.value === OTHER ? { other: '' } : input.value);
        break;
      case 'int':
        if (picked) value = Number(input.value);
        break;
      case 'bool':
        if (picked) value = true;
        break;
      case 'other':
        other = input.value.trim();
        break;
      default:
    }
  }
  if (many) {
    const slot = many.find((item) => typeof item === 'object');
    if (slot) slot.other = other;
    else if (other) many.push({ other });
    value = many;
  } else if (value && typeof value === 'object') {
    value = { other };
  } else if (value === undefined && other) {
    value = { other };
  }
  if (typeof value === 'string' && value.trim() === '') return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  return value;
}

// A phone number as digits after an optional +, near enough to the core's E.164.
const phone = (s) => s.replace(/[^\d+]/g, '');

// `text`: the field is answered with text (the page's conditions say which are).
function same(kind, text, a, b) {
  if (kind === 'number') return Number(a) === Number(b);
  if (typeof a === 'string' && typeof b === 'string' && text) {
    if (kind === 'phone') return phone(a) === phone(b);
    return a.trim().toLowerCase() === b.trim().toLowerCase();
  }
  return a === b;
}

// Numbers as numbers, dates (`YYYY-MM-DD`) as text, which orders them.
function key(kind, v) {
  if (kind === 'date') return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null;
  const n = typeof v === 'number' ? v : Number(v);
  return typeof v === 'object' || Number.isNaN(n) ? null : n;
}

function holds(c, answer) {
  const { op, kind, text, value } = c;
  if (op === 'answered') return answer !== undefined;
  if (op === 'not_answered') return answer === undefined;
  if (answer === undefined) return op === 'not_equals';
  switch (op) {
    case 'equals': return same(kind, text, answer, value);
    case 'not_equals': return !same(kind, text, answer, value);
    case 'any_of': {
      const list = Array.isArray(value) ? value : [];
      if (Array.isArray(answer)) return answer.some((ticked) => list.includes(ticked));
      return list.some((v) => same(kind, text, answer, v));
    }
    case 'contains':
      if (Array.isArray(answer)) return answer.includes(value);
      if (typeof answer === 'string' && typeof value === 'string') {
        return answer.toLowerCase().includes(value.toLowerCase());
      }
      return false;
    case 'greater_than':
    case 'less_than': {
      const x = key(kind, answer);
      const y = key(kind, value);
      if (x === null || y === null) return false;
      return op === 'greater_than' ? x > y : x < y;
    }
    default: return true;
  }
}

if (form) {
  const rules = [];
  for (const element of form.querySelectorAll('[data-show-if]')) {
    try {
      rules.push([element, JSON.parse(element.dataset.showIf)]);
    } catch {
      // Left shown, with its hint: the core still judges the page.
    }
  }
  for (const [element] of rules) {
    for (const hint of element.querySelectorAll(':scope > .hint')) hint.hidden = true;
  }
  // In page order, so that an element's conditions read answers already settled, and a
  // part of the form comes before the fields inside it.
  const apply = () => {
    for (const [element, conditions] of rules) {
      const inHidden = element.parentElement.closest('[data-show-if][hidden]') !== null;
      const show = !inHidden && conditions.every((c) => holds(c, read(c.field)));
      element.hidden = !show;
      for (const input of element.querySelectorAll('input, select, textarea')) {
        input.disabled = !show;
      }
    }
  };
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  apply();
}
