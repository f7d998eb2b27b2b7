//! The canonical encoding of an entry and its hash: SHA-256 over every column but the
//! hash itself (the previous entry's hash included), each as a length-prefixed byte
//! string in a fixed order, so that no two different entries encode alike and any
//! edit of a stored column changes the hash `formsd audit verify` recomputes.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The `prev_hash` of a chain's first entry.
pub(crate) const GENESIS: [u8; 32] = [0; 32];

/// Every hashed column of an entry.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub chain: Uuid,
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub account_id: Option<Uuid>,
    pub actor_kind: String,
    pub actor_key_id: Option<Uuid>,
    pub actor_session_id: Option<Uuid>,
    pub actor_member_id: Option<Uuid>,
    pub client_ip: String,
    pub user_agent: String,
    pub action: String,
    pub target_kind: String,
    pub target_id: String,
    pub form_id: Option<Uuid>,
    pub changed: Vec<String>,
    pub outcome: String,
    pub prev_hash: Vec<u8>,
}

/// Appends `bytes` with its length, so that field boundaries cannot shift.
fn put(hasher: &mut Sha256, bytes: &[u8]) {
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    hasher.update(len.to_be_bytes());
    hasher.update(bytes);
}

/// An optional id: a marker byte, then the id when there is one.
fn put_id(hasher: &mut Sha256, id: Option<Uuid>) {
    match id {
        Some(id) => {
            hasher.update([1]);
            hasher.update(id.as_bytes());
        }
        None => hasher.update([0]),
    }
}

/// The entry's hash (the stored `hash` column).
pub(crate) fn of(entry: &Entry) -> Vec<u8> {
    let mut h = Sha256::new();
    // A version, should the encoding ever change.
    put(&mut h, b"formsd-audit-v1");
    h.update(entry.chain.as_bytes());
    h.update(entry.seq.to_be_bytes());
    // Microseconds: what PostgreSQL keeps of a timestamp.
    h.update(entry.at.timestamp_micros().to_be_bytes());
    put_id(&mut h, entry.account_id);
    put(&mut h, entry.actor_kind.as_bytes());
    put_id(&mut h, entry.actor_key_id);
    put_id(&mut h, entry.actor_session_id);
    put_id(&mut h, entry.actor_member_id);
    put(&mut h, entry.client_ip.as_bytes());
    put(&mut h, entry.user_agent.as_bytes());
    put(&mut h, entry.action.as_bytes());
    put(&mut h, entry.target_kind.as_bytes());
    put(&mut h, entry.target_id.as_bytes());
    put_id(&mut h, entry.form_id);
    h.update(
        u64::try_from(entry.changed.len())
            .unwrap_or(u64::MAX)
            .to_be_bytes(),
    );
    for name in &entry.changed {
        put(&mut h, name.as_bytes());
    }
    put(&mut h, entry.outcome.as_bytes());
    put(&mut h, &entry.prev_hash);
    h.finalize().to_vec()
}

/// `at` as PostgreSQL will store it (microseconds), so that the hash made before the
/// insert is the one recomputed from the row.
pub(crate) fn stored_time(at: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(at.timestamp_micros()).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            chain: Uuid::nil(),
            seq: 1,
            at: stored_time(Utc::now()),
            account_id: None,
            actor_kind: "operator".into(),
            actor_key_id: None,
            actor_session_id: None,
            actor_member_id: None,
            client_ip: "127.0.0.1".into(),
            user_agent: "ua".into(),
            action: "UpdateAccount".into(),
            target_kind: "account".into(),
            target_id: "x".into(),
            form_id: None,
            changed: vec!["ab".into(), "c".into()],
            outcome: "ok".into(),
            prev_hash: GENESIS.to_vec(),
        }
    }

    #[test]
    fn field_boundaries_count() {
        let a = entry();
        let mut b = entry();
        b.changed = vec!["a".into(), "bc".into()];
        assert_ne!(of(&a), of(&b));
        assert_eq!(of(&a), of(&a.clone()));
    }
}
