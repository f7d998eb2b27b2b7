//! Moving an account between instances (issue 33 §3): the operator exports an account
//! as one archive and imports it into another instance, ids kept.
//!
//! The archive is JSON lines (UTF-8, one record a line, `\n` between them), each line
//! `{"kind": …, "row": {…}}` with, for the records that carry bytes (a logo, a file),
//! `"content"`: the bytes in standard base64. The first record is the header (its
//! format version, the schema it was written by); the last is the trailer, which counts
//! the records between them, so that a cut archive is refused rather than half read.
//! A row is the table row as PostgreSQL's `to_jsonb` writes it, less what must not
//! move (webhook secrets) and what the importing instance recounts (a form's response
//! counter); it is read back with `jsonb_populate_record`, so a column added by a
//! migration travels without a change here, and both instances must run the same
//! schema (the header says which; the import refuses another).
//!
//! What stays behind: API keys, sessions, identities, sign-in links, members and
//! invitations (the imported account gets a new owner, migration 0045's trigger),
//! webhook deliveries and their attempts, notifications, idempotency records, the audit
//! trail and usage counts. Webhooks get a new secret on import, shown once.
//!
//! `export` writes the archive page by page from one snapshot; `import` reads it line by
//! line into one transaction. `store` holds the queries of both, `blobs` the bytes of
//! logos and files, wherever the instance keeps them.

mod blobs;
mod export;
mod import;
pub(crate) mod service;
mod store;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the header names the archive.
const FORMAT: &str = "forms-account-archive";
/// The format's version; bumped when the records' shape changes.
const VERSION: i64 = 1;

/// The kinds of records, in the order they may appear: the header, the account and its
/// monthly response counts, then each form followed by its logo, webhooks, responses
/// (each page followed by its files) and partial responses (with their staged files),
/// and the trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Header,
    Account,
    Quota,
    Form,
    Logo,
    Webhook,
    Response,
    Partial,
    File,
    End,
}

/// One line of the archive.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    kind: Kind,
    row: Value,
    /// The bytes of a logo or a file, in base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

impl Record {
    fn new(kind: Kind, row: Value) -> Self {
        Self {
            kind,
            row,
            content: None,
        }
    }
}

/// The header's row.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: i64,
    /// The newest migration of the instance that wrote it: rows are its tables' rows.
    schema: i64,
    account_id: uuid::Uuid,
    exported_at: chrono::DateTime<chrono::Utc>,
}

/// The trailer's row.
#[derive(Debug, Serialize, Deserialize)]
struct Trailer {
    /// The records between the header and the trailer.
    records: u64,
}

#[cfg(test)]
mod tests;
