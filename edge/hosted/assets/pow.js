// The proof of work of a hosted page (core/hosted/pow.rs: the ALTCHA scheme): finds the
// number whose SHA-256 after the salt is the challenge, in the background as soon as the
// page loads, and puts the solution in the hidden `pow_solution` input; the submit
// button waits for it, and a live region says so. Served from the binary, allowed by the
// page's Content-Security-Policy (script-src 'self'); nothing else runs on the page.

// SHA-256 (FIPS 180-4) in plain JavaScript rather than crypto.subtle.digest: measured in
// Chromium it tries numbers about six times faster (one call per number, no promise
// each time: ~75 ms for the expected 50,000 hashes on a desktop, ~0.3-0.7 s with the CPU
// slowed fourfold as for a phone, against ~0.5 s and ~2 s), and it works on pages
// served over plain HTTP too, where browsers offer no crypto.subtle. The salt's whole
// 64-byte blocks are hashed once (the "midstate"); each number then costs one or two.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Uint32Array(64);

// Hashes the 64-byte block at `offset` of `bytes` into the state `h` (8 words).
function compress(h, bytes, offset) {
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    W[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15];
    const b = W[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let [a, b, c, d, e, f, g, k] = h;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
}

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

// The 32 bytes of a lowercase hex digest as 8 big-endian words.
function words(hex) {
  const out = new Int32Array(8);
  for (let i = 0; i < 8; i++) out[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16) | 0;
  return out;
}

// Tries numbers start..end (inclusive) in plain JavaScript; the one that matches, or null.
function searchPlain(salt, target, start, end) {
  const bytes = new TextEncoder().encode(salt);
  const whole = bytes.length - (bytes.length % 64);
  const mid = Int32Array.from(INITIAL);
  for (let o = 0; o < whole; o += 64) compress(mid, bytes, o);
  const rest = bytes.subarray(whole);
  const block = new Uint8Array(128);
  const h = new Int32Array(8);
  for (let n = start; n <= end; n++) {
    const digits = String(n);
    const len = rest.length + digits.length;
    const blocks = len + 9 > 64 ? 2 : 1;
    block.fill(0, 0, blocks * 64);
    block.set(rest, 0);
    for (let i = 0; i < digits.length; i++) block[rest.length + i] = digits.charCodeAt(i);
    block[len] = 0x80;
    const bits = (bytes.length + digits.length) * 8;
    const end64 = blocks * 64;
    block[end64 - 4] = bits >>> 24; block[end64 - 3] = bits >>> 16;
    block[end64 - 2] = bits >>> 8; block[end64 - 1] = bits;
    h.set(mid);
    compress(h, block, 0);
    if (blocks === 2) compress(h, block, 64);
    let same = true;
    for (let i = 0; i < 8 && same; i++) same = h[i] === target[i];
    if (same) return n;
  }
  return null;
}

// Lets the page handle input between slices of work: a message to ourselves comes back
// at once (a timer would wait 4 ms each time).
function yieldToPage() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

// The number 0..max whose hash after `salt` is `challenge`, or null. Works in slices
// of about 20 ms, yielding between them so that the page stays responsive.
export async function solve(salt, challenge, max) {
  const target = words(challenge);
  let slice = 1000;
  for (let start = 0, end = 0; start <= max; start = end + 1) {
    end = Math.min(max, start + slice - 1);
    const began = performance.now();
    const found = searchPlain(salt, target, start, end);
    if (found !== null) return found;
    const took = performance.now() - began;
    if (took < 10) slice *= 2;
    await yieldToPage();
  }
  return null;
}

// Solves the challenge of `form` (its `pow*` data attributes) into its solution input:
// `pow_solution` on the hosted page, `_pow` on an owner's own page (endpoint mode).
async function prove(form) {
  const { powAlgorithm, powChallenge, powSalt, powMax, powSignature } = form.dataset;
  const input = form.querySelector('input[name="pow_solution"], input[name="_pow"]');
  const status = document.getElementById('pow-status');
  const buttons = Array.from(form.querySelectorAll('button[type="submit"]'));
  const say = (text) => { if (status) status.textContent = text; };
  buttons.forEach((button) => { button.disabled = true; });
  say(status?.dataset.checking || 'Checking that a browser, not a robot, sends this form. Submit is ready in a moment.');
  const started = performance.now();
  const number = await solve(powSalt, powChallenge, Number(powMax));
  if (number === null || !input) {
    say(status?.dataset.failed || 'This page could not finish its check against robots. Please reload it.');
  } else {
    input.value = btoa(JSON.stringify({
      algorithm: powAlgorithm, challenge: powChallenge, number, salt: powSalt, signature: powSignature,
    }));
    // How long it took, for the tests that measure it (nothing reads it otherwise).
    form.dataset.powMs = String(Math.round(performance.now() - started));
    buttons.forEach((button) => { button.disabled = false; });
    say(status?.dataset.ready || 'Ready to submit.');
  }
}

// The hosted page: a form that carries its challenge in its data attributes.
const hosted = document.querySelector('form[data-pow-challenge]');
if (hosted) await prove(hosted);

// An owner's own page: a form that names where to fetch its challenge
// (`/f/{short_id}/challenge`, readable by the form's allowed origins).
const own = document.querySelector('form[data-pow-challenge-url]');
if (own) {
  const reply = await fetch(own.dataset.powChallengeUrl, { mode: 'cors', credentials: 'omit' })
    .then((r) => r.json())
    .catch(() => null);
  const c = reply && reply.data && reply.data.challenge;
  if (c) {
    Object.assign(own.dataset, {
      powAlgorithm: c.algorithm,
      powChallenge: c.challenge,
      powSalt: c.salt,
      powMax: String(c.max_number),
      powSignature: c.signature,
    });
    await prove(own);
  }
}
