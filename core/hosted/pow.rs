//! Proof of work of hosted pages (the ALTCHA scheme, written here): one rule — a form
//! whose settings turn `proof_of_work` on stores a page's submission only with the
//! solution of a challenge this core issued for that form, unexpired, used once.
//!
//! Why: a robot that posts thousands of submissions pays thousands of puzzles, while a
//! visitor's browser solves one in the background while they type; no third party sees
//! the visitor, no cookie is set, and a self-hoster runs it all (reCAPTCHA and the like
//! cannot be self-hosted).
//!
//! A challenge: a salt naming the form and the instant it expires, a secret number
//! `0 ≤ n ≤ MAX_NUMBER`, `challenge = hex(SHA-256(salt ‖ decimal(n)))` and
//! `signature = hex(HMAC-SHA256(key, challenge))`. The browser tries numbers until the
//! hash matches and sends `{algorithm, challenge, number, salt, signature}`; the core
//! checks the signature (in constant time), the salt's form and expiry, and the hash,
//! then spends the challenge (`pow_spent`): a second use is refused. The salt is bound
//! to the challenge by the hash (a changed salt needs a preimage of SHA-256), and its
//! parts have fixed shapes and it ends in a separator, so no digit can move between the
//! salt and the number to extend its expiry.

use crate::crypto::{hmac_sha256, same};
use crate::error::{CoreError, ProofOfWorkRefusal as Refusal};
use base64::{Engine, engine::general_purpose::STANDARD};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The form setting that turns the proof of work on.
pub(crate) const SETTING: &str = "proof_of_work";
/// The one hash function of the scheme, by its Web Crypto name.
pub(crate) const ALGORITHM: &str = "SHA-256";
/// The largest secret number: a browser tries on average half of them, 50,000
/// SHA-256 hashes (tens of milliseconds in a desktop Chromium, a few hundred at most on
/// a phone; see the book, docs/src/using/hosted-pages.md), and a robot pays as much for each submission.
pub(crate) const MAX_NUMBER: u64 = 100_000;
/// How long a challenge may be used: long enough for a form filled in one sitting (the
/// page solves it when it loads); an older one is refused, and the page shown again
/// with a new one solves that at once, answers kept. It also bounds `pow_spent`.
pub(crate) const LIFETIME_MINUTES: i64 = 60;
/// Label under which the challenges' key is derived from the start tokens' key: one
/// secret to keep, two keys that never sign each other's messages.
const KEY_LABEL: &[u8] = b"forms.v1 hosted proof-of-work challenges";

/// Whether a form's settings turn the proof of work on.
pub(crate) fn required(settings: &Map<String, Value>) -> bool {
    settings.get(SETTING) == Some(&Value::Bool(true))
}

/// An issued challenge, as the page gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub algorithm: &'static str,
    pub challenge: String,
    pub salt: String,
    pub max_number: u64,
    pub signature: String,
}

/// A solution as the page sends it (base64 of this JSON).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Solution {
    algorithm: String,
    challenge: String,
    number: u64,
    salt: String,
    signature: String,
}

/// A verified solution, to be spent: its challenge and when that expires.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Proof {
    pub digest: [u8; 32],
    pub expires_at: DateTime<Utc>,
}

/// Issues and verifies challenges.
#[derive(Clone)]
pub(crate) struct Pow {
    key: [u8; 32],
    max_number: u64,
}

/// The salt of a challenge for `form_id` expiring at `expires` (Unix seconds), with
/// `random` (32 hex digits): fixed shapes, and a final `.`, so that it parses one way.
fn salt(form_id: Uuid, expires: i64, random: &str) -> String {
    format!("{}.{expires}.{random}.", form_id.simple())
}

/// The form and expiry of a salt of ours; `None` for any other text.
fn parse_salt(salt: &str) -> Option<(Uuid, DateTime<Utc>)> {
    let mut parts = salt.strip_suffix('.')?.split('.');
    let (form, expires, random) = (parts.next()?, parts.next()?, parts.next()?);
    let hex32 = |s: &str| s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let digits =
        !expires.is_empty() && expires.len() <= 12 && expires.bytes().all(|b| b.is_ascii_digit());
    if parts.next().is_some() || !hex32(form) || !hex32(random) || !digits {
        return None;
    }
    let form = Uuid::parse_str(form).ok()?;
    let expires = DateTime::from_timestamp(expires.parse().ok()?, 0)?;
    Some((form, expires))
}

fn hash_hex(salt: &str, number: u64) -> String {
    hex::encode(Sha256::digest(format!("{salt}{number}").as_bytes()))
}

impl Pow {
    /// Challenges signed with a key derived from `token_key` (the start tokens' key).
    pub(crate) fn new(token_key: &[u8]) -> Self {
        Self {
            key: hmac_sha256(token_key, &[KEY_LABEL]),
            max_number: MAX_NUMBER,
        }
    }

    fn sign(&self, challenge: &str) -> [u8; 32] {
        hmac_sha256(&self.key, &[challenge.as_bytes()])
    }

    /// A new challenge for the page of `form_id`.
    pub(crate) fn issue(&self, form_id: Uuid, now: DateTime<Utc>) -> Challenge {
        let expires = (now + Duration::minutes(LIFETIME_MINUTES)).timestamp();
        let salt = salt(form_id, expires, &hex::encode(rand::random::<[u8; 16]>()));
        let secret = rand::random_range(0..=self.max_number);
        let challenge = hash_hex(&salt, secret);
        Challenge {
            algorithm: ALGORITHM,
            signature: hex::encode(self.sign(&challenge)),
            challenge,
            salt,
            max_number: self.max_number,
        }
    }

    /// Checks a page's solution for `form_id` (without spending it). An empty one is
    /// `Missing`; one that is not of a challenge we issued for this form, or whose
    /// number is wrong, `Invalid`; one past its expiry, `Expired`.
    pub(crate) fn verify(
        &self,
        solution: &str,
        form_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Proof, CoreError> {
        let solution = solution.trim();
        if solution.is_empty() {
            return Err(CoreError::ProofOfWork(Refusal::Missing));
        }
        let invalid = || CoreError::ProofOfWork(Refusal::Invalid);
        let bytes = STANDARD.decode(solution).map_err(|_| invalid())?;
        let solution: Solution = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
        let signature = hex::decode(&solution.signature).map_err(|_| invalid())?;
        if solution.algorithm != ALGORITHM || !same(&self.sign(&solution.challenge), &signature) {
            return Err(invalid());
        }
        let (salt_form, expires_at) = parse_salt(&solution.salt).ok_or_else(invalid)?;
        if salt_form != form_id {
            return Err(invalid());
        }
        if expires_at <= now {
            return Err(CoreError::ProofOfWork(Refusal::Expired));
        }
        if solution.number > self.max_number
            || hash_hex(&solution.salt, solution.number) != solution.challenge
        {
            return Err(invalid());
        }
        let mut digest = [0u8; 32];
        hex::decode_to_slice(&solution.challenge, &mut digest).map_err(|_| invalid())?;
        Ok(Proof { digest, expires_at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::seam::comparisons_in;
    use serde_json::json;

    /// What a page's script does: tries every number (the tests' challenges are small).
    fn solve(c: &Challenge) -> String {
        let number = (0..=c.max_number)
            .find(|n| hash_hex(&c.salt, *n) == c.challenge)
            .expect("a challenge has a solution");
        encode(c, number, &c.salt, &c.signature)
    }

    fn encode(c: &Challenge, number: u64, salt: &str, signature: &str) -> String {
        let solution = json!({
            "algorithm": c.algorithm, "challenge": c.challenge, "number": number,
            "salt": salt, "signature": signature,
        });
        STANDARD.encode(solution.to_string())
    }

    fn small() -> Pow {
        Pow {
            max_number: 1000,
            ..Pow::new(b"token key")
        }
    }

    fn refusal(result: Result<Proof, CoreError>) -> Refusal {
        match result {
            Err(CoreError::ProofOfWork(refusal)) => refusal,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_solved_challenge_verifies_until_it_expires() {
        let pow = small();
        let form = Uuid::new_v4();
        let now = Utc::now();
        let c = pow.issue(form, now);
        assert_eq!(c.algorithm, "SHA-256");
        assert_eq!(c.max_number, 1000);
        let proof = pow.verify(&solve(&c), form, now).expect("solved");
        assert_eq!(hex::encode(proof.digest), c.challenge);
        assert_eq!(
            proof.expires_at.timestamp(),
            (now + Duration::minutes(LIFETIME_MINUTES)).timestamp()
        );
        let late = now + Duration::minutes(LIFETIME_MINUTES + 1);
        assert_eq!(
            refusal(pow.verify(&solve(&c), form, late)),
            Refusal::Expired
        );
    }

    #[test]
    fn a_wrong_number_a_tampered_signature_or_another_forms_challenge_is_refused() {
        let pow = small();
        let form = Uuid::new_v4();
        let now = Utc::now();
        let c = pow.issue(form, now);
        let right = (0..=c.max_number)
            .find(|n| hash_hex(&c.salt, *n) == c.challenge)
            .expect("solvable");
        let wrong = encode(&c, (right + 1) % 1001, &c.salt, &c.signature);
        assert_eq!(refusal(pow.verify(&wrong, form, now)), Refusal::Invalid);

        let mut forged = hex::decode(&c.signature).expect("hex");
        forged[0] ^= 1;
        let tampered = encode(&c, right, &c.salt, &hex::encode(forged));
        assert_eq!(refusal(pow.verify(&tampered, form, now)), Refusal::Invalid);
        // Signed with another key (another installation's, or the start tokens' own).
        let other = Pow {
            max_number: 1000,
            ..Pow::new(b"other key")
        };
        assert_eq!(
            refusal(other.verify(&solve(&c), form, now)),
            Refusal::Invalid
        );

        assert_eq!(
            refusal(pow.verify(&solve(&c), Uuid::new_v4(), now)),
            Refusal::Invalid,
            "another form's challenge"
        );
        for junk in ["", "  ", "not base64!", "e30="] {
            let expected = if junk.trim().is_empty() {
                Refusal::Missing
            } else {
                Refusal::Invalid
            };
            assert_eq!(refusal(pow.verify(junk, form, now)), expected, "{junk:?}");
        }
    }

    #[test]
    fn no_digit_moves_from_the_number_into_the_salt() {
        // `salt ‖ number` is the same text if the salt takes the number's first digits;
        // the salt's shape must refuse it, or the expiry could be pushed out.
        let pow = small();
        let form = Uuid::new_v4();
        let now = Utc::now();
        let c = pow.issue(form, now);
        let right = (0..=c.max_number)
            .find(|n| hash_hex(&c.salt, *n) == c.challenge)
            .expect("solvable");
        let text = format!("{}{right}", c.salt);
        for split in c.salt.len() - 3..text.len() {
            let (salt, number) = text.split_at(split);
            if salt == c.salt {
                continue;
            }
            if let Ok(number) = number.parse::<u64>() {
                let moved = encode(&c, number, salt, &c.signature);
                assert!(pow.verify(&moved, form, now).is_err(), "{salt} {number}");
            }
        }
        assert_eq!(parse_salt("x"), None);
        let expires = (now + Duration::minutes(1)).timestamp();
        let good = salt(form, expires, &"a".repeat(32));
        assert_eq!(
            parse_salt(&good).map(|(f, at)| (f, at.timestamp())),
            Some((form, expires))
        );
        assert_eq!(parse_salt(&format!("{good}1")), None);
        assert_eq!(parse_salt(&good.replace(".aaaa", ".aaa")), None);
    }

    #[test]
    fn the_signature_is_compared_in_constant_time() {
        let pow = small();
        let form = Uuid::new_v4();
        let now = Utc::now();
        let c = pow.issue(form, now);
        let (result, compared) = comparisons_in(|| pow.verify(&solve(&c), form, now));
        assert!(result.is_ok());
        assert_eq!(compared, 1);
    }

    #[test]
    fn the_key_is_not_the_start_tokens_key() {
        assert_ne!(Pow::new(b"k").key.to_vec(), b"k".to_vec());
        assert_ne!(Pow::new(b"k").key, Pow::new(b"l").key);
    }

    #[test]
    fn the_setting_is_a_boolean_true() {
        let on = json!({"proof_of_work": true});
        assert!(required(on.as_object().expect("object")));
        let off = json!({"proof_of_work": false, "other": true});
        assert!(!required(off.as_object().expect("object")));
        assert!(!required(&Map::new()));
    }
}
