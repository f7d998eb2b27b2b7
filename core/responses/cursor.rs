//! Opaque, tamper-evident keyset cursors.
//!
//! A cursor is base64url of: version, sort order, form id, the last row's
//! `(submitted_at, id)`, followed by a truncated HMAC-SHA256 of those bytes under a
//! secret shared by all instances. Changing any byte, or using a cursor on another
//! form or with the other sort order, is refused.

use crate::crypto::{hmac_sha256, tag_matches};
use crate::error::CoreError;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use uuid::Uuid;

const VERSION: u8 = 1;
const PAYLOAD_LEN: usize = 1 + 1 + 16 + 8 + 16;
const MAC_LEN: usize = 16;

/// Order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Asc,
    Desc,
}

impl Sort {
    fn byte(self) -> u8 {
        match self {
            Self::Asc => 0,
            Self::Desc => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Asc => "asc",
            Self::Desc => "desc",
        }
    }
}

/// The keyset position after which (in the listing's order) the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub submitted_at: DateTime<Utc>,
    pub id: Uuid,
}

/// Signs and checks cursors.
#[derive(Clone)]
pub(crate) struct CursorCodec {
    key: Vec<u8>,
}

impl CursorCodec {
    pub(crate) fn new(key: Vec<u8>) -> Self {
        Self { key }
    }

    pub(crate) fn encode(&self, form_id: Uuid, sort: Sort, at: Position) -> String {
        let mut bytes = Vec::with_capacity(PAYLOAD_LEN + MAC_LEN);
        bytes.push(VERSION);
        bytes.push(sort.byte());
        bytes.extend_from_slice(form_id.as_bytes());
        bytes.extend_from_slice(&at.submitted_at.timestamp_micros().to_be_bytes());
        bytes.extend_from_slice(at.id.as_bytes());
        let tag = hmac_sha256(&self.key, &[&bytes]);
        bytes.extend_from_slice(&tag[..MAC_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub(crate) fn decode(
        &self,
        token: &str,
        form_id: Uuid,
        sort: Sort,
    ) -> Result<Position, CoreError> {
        let invalid = || {
            CoreError::validation(
                "cursor is invalid: pass back a next_cursor exactly as returned, or an empty cursor to start",
            )
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(token.trim())
            .map_err(|_| invalid())?;
        if bytes.len() != PAYLOAD_LEN + MAC_LEN {
            return Err(invalid());
        }
        let (payload, tag) = bytes.split_at(PAYLOAD_LEN);
        if !tag_matches(&self.key, payload, tag) {
            return Err(invalid());
        }
        if payload[0] != VERSION {
            return Err(invalid());
        }
        if payload[1] != sort.byte() {
            let issued = if payload[1] == 0 { "asc" } else { "desc" };
            return Err(CoreError::Validation(format!(
                "cursor was issued for sort={issued}; repeat the request with that sort, or start again with an empty cursor"
            )));
        }
        let field = |range: std::ops::Range<usize>| payload.get(range).ok_or_else(invalid);
        let cursor_form = Uuid::from_slice(field(2..18)?).map_err(|_| invalid())?;
        if cursor_form != form_id {
            return Err(CoreError::validation("cursor belongs to another form"));
        }
        let micros = i64::from_be_bytes(field(18..26)?.try_into().map_err(|_| invalid())?);
        let submitted_at = DateTime::from_timestamp_micros(micros).ok_or_else(invalid)?;
        let id = Uuid::from_slice(field(26..42)?).map_err(|_| invalid())?;
        Ok(Position { submitted_at, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tamper_evidence() {
        let codec = CursorCodec::new(b"secret".to_vec());
        let form = Uuid::new_v4();
        let at = Position {
            submitted_at: DateTime::from_timestamp_micros(1_790_000_000_123_000).expect("valid"),
            id: Uuid::new_v4(),
        };
        let token = codec.encode(form, Sort::Asc, at);
        assert_eq!(codec.decode(&token, form, Sort::Asc).expect("valid"), at);
        assert!(codec.decode(&token, form, Sort::Desc).is_err());
        assert!(codec.decode(&token, Uuid::new_v4(), Sort::Asc).is_err());
        let mut bytes = URL_SAFE_NO_PAD.decode(&token).expect("base64");
        bytes[20] ^= 1;
        assert!(
            codec
                .decode(&URL_SAFE_NO_PAD.encode(bytes), form, Sort::Asc)
                .is_err()
        );
        assert!(codec.decode("garbage!", form, Sort::Asc).is_err());
        let other = CursorCodec::new(b"other".to_vec());
        assert!(other.decode(&token, form, Sort::Asc).is_err());
    }
}
